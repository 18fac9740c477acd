"""What `lc3jit asm` writes: lc3as's .obj and .sym, one pair per .ORIG block."""

from __future__ import annotations

from pathlib import Path

from lc3jit.toolchain.asm.assembler import Assembly
from lc3jit_runtime.loader import Image


def obj_bytes(image: Image) -> bytes:
    """The classic .obj: the origin, then the words, each big-endian."""
    return b"".join(word.to_bytes(2, "big") for word in (image.origin, *image.words))


def sym_text(symbols: dict[str, int]) -> str:
    """lc3as's .sym: its four header lines, one row per label in order of definition."""
    header = (
        "// Symbol table\n"
        "// Scope level 0:\n"
        "//\tSymbol Name       Page Address\n"
        "//\t----------------  ------------\n"
    )
    rows = "".join(f"//\t{name:<16}  {address:04X}\n" for name, address in symbols.items())
    return header + rows + "\n"


def output_paths(obj: Path, count: int) -> list[Path]:
    """Where the blocks go: FILE.obj for the first, then FILE-1.obj, FILE-2.obj, ..."""
    return [obj] + [obj.with_name(f"{obj.stem}-{k}{obj.suffix}") for k in range(1, count)]


def write_outputs(assembly: Assembly, obj: Path) -> list[Path]:
    """Write each block's .obj and .sym; the .obj paths written, in block order."""
    paths = output_paths(obj, len(assembly.images))
    for image, path in zip(assembly.images, paths, strict=True):
        _write(path, obj_bytes(image))
        _write(path.with_suffix(".sym"), sym_text(image.symbols).encode())
    return paths


def _write(path: Path, data: bytes) -> None:
    """Write a file; an OSError names it even when the write, not the open, failed (a full disk)."""
    try:
        path.write_bytes(data)
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from e
