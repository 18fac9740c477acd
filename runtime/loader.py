"""Program images from files: classic `.obj`, lc3convert `.hex`/`.bin` text, lc3as `.sym`.

An image is an origin and the words that load from there, plus what is known about
them (labels, source lines) for dumps and messages. Every malformed file is a
`LoadError` that names the file and the problem in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import LoadError
from .isa import MEMORY_WORDS

#: The most a file can hold: an origin and 65,536 words.
MAX_OBJ_BYTES = 2 * (MEMORY_WORDS + 1)


@dataclass(frozen=True)
class SourceLine:
    """Where a word came from, for messages and dumps."""

    path: str
    line: int
    text: str


@dataclass(frozen=True)
class Image:
    """Words to place in memory at origin, with labels and source where known."""

    origin: int
    words: tuple[int, ...]
    name: str = "<memory>"
    symbols: dict[str, int] = field(default_factory=dict)
    source: dict[int, SourceLine] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.words:
            raise LoadError(self.name, "no words after the origin")
        end = self.origin + len(self.words)
        if end > MEMORY_WORDS:
            raise LoadError(self.name, f"{len(self.words)} words from x{self.origin:04X} run past xFFFF")

    @property
    def end(self) -> int:
        """One past the last address."""
        return self.origin + len(self.words)


def _read_bytes(path: Path, limit: int) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(limit + 1)
    except OSError as e:
        raise LoadError(path, e.strerror or str(e)) from None


def _read_text(path: Path) -> str:
    data = _read_bytes(path, 64 * MAX_OBJ_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LoadError(path, f"not a text file (byte {e.start} is not UTF-8)") from None


def parse_obj(path: Path) -> Image:
    """Big-endian words; the first is the origin."""
    data = _read_bytes(path, MAX_OBJ_BYTES)
    if not data:
        raise LoadError(path, "empty file")
    if len(data) > MAX_OBJ_BYTES:
        raise LoadError(path, f"more than {MAX_OBJ_BYTES} bytes: runs past xFFFF wherever it loads")
    if _is_text(data):  # checked first: text of an odd length would say "odd number of bytes"
        kind = "assembly source: name it .asm" if b".orig" in data.lower() else "name it .hex or .bin"
        raise LoadError(path, f"a text file, not an .obj of 16-bit words ({kind})")
    if len(data) % 2:
        raise LoadError(path, f"odd number of bytes ({len(data)}): an .obj holds 16-bit words")
    words = [data[i] << 8 | data[i + 1] for i in range(0, len(data), 2)]
    return Image(words[0], tuple(words[1:]), str(path))


def _is_text(data: bytes) -> bool:
    """Lines of printable ASCII: what an .obj never is (its origin alone has a byte
    outside that range for every origin below x2020, and words of code many more)."""
    return b"\n" in data and all(0x20 <= byte < 0x7F or byte in b"\t\r\n" for byte in data)


_HEX_WORD = re.compile(r"(?:0?[xX])?([0-9a-fA-F]{1,4})")
_BIN_WORD = re.compile(r"[01]{16}")


def parse_text(path: Path, binary: bool) -> Image:
    """One word a line, hex (`.hex`) or 16 binary digits (`.bin`); `;` starts a comment."""
    words = []
    for number, line in enumerate(_read_text(path).splitlines(), 1):
        text = line.split(";", 1)[0].strip()
        if not text:
            continue
        match = (_BIN_WORD if binary else _HEX_WORD).fullmatch(text)
        if match is None:
            kind = "16 binary digits" if binary else "a hex word of 1 to 4 digits"
            raise LoadError(path, f"line {number}: expected {kind}, found {text[:20]!r}")
        words.append(int(text, 2) if binary else int(match.group(1), 16))
    if not words:
        raise LoadError(path, "empty file: no words")
    return Image(words[0], tuple(words[1:]), str(path))


_SYM_LINE = re.compile(r"//\s*([A-Za-z_][\w.]*)\s+(?:x|0x)?([0-9A-Fa-f]{1,4})\s*")


def parse_sym(path: Path) -> dict[str, int]:
    """lc3as symbol table: `//<tab>LABEL<tab>ADDR` lines below a header of `//` lines."""
    symbols = {}
    for line in _read_text(path).splitlines():
        match = _SYM_LINE.fullmatch(line.strip())
        if match and match.group(1).lower() not in {"symbol", "scope"}:
            symbols[match.group(1)] = int(match.group(2), 16)
    return symbols


#: What the file name's extension says a program file holds (`.asm` is assembled by lc3jit).
FORMATS = (".obj", ".hex", ".bin", ".asm")


def unknown_format(path: Path) -> LoadError:
    found = f"extension {path.suffix!r}" if path.suffix else "no extension"
    return LoadError(path, f"{found}: a program is {', '.join(FORMATS[:-1])} or {FORMATS[-1]}")


def load_image_file(path: Path) -> Image:
    """An `.obj`, `.hex` or `.bin` file, with the `.sym` beside an `.obj` when there is one."""
    suffix = path.suffix.lower()
    if suffix in (".hex", ".bin"):
        return parse_text(path, binary=suffix == ".bin")
    if suffix != ".obj":
        raise unknown_format(path)
    image = parse_obj(path)
    sym = path.with_suffix(".sym")
    if sym.is_file():
        return Image(image.origin, image.words, image.name, parse_sym(sym))
    return image
