"""`asm` and `disasm`: source to words and back, without the translator (they start fast)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lc3jit.cli.common import address_range, command, fail, format_range, warn
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.loader import Image

ASM_HELP = """
A file with several .ORIG blocks gives one .obj and one .sym per block, in source order:
FILE.obj for the first block, then FILE-1.obj, FILE-2.obj, ...; load them back together
with `lc3jit run FILE.obj FILE-1.obj ...` (the first one's origin is the start PC), or
run the .asm itself. Errors and warnings are printed as file:line:col with the line and a
caret; any error writes nothing and exits with code 1.
"""


@command(epilog=ASM_HELP)
def asm(
    source: Annotated[
        Path, typer.Argument(metavar="FILE", help="LC-3 assembly source (lc3as and LC3Tools dialects).")
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", metavar="FILE", help="The .obj to write (default: FILE.obj beside FILE.asm)."
        ),
    ] = None,
) -> None:
    """Assemble FILE.asm into FILE.obj and FILE.sym, byte for byte as lc3as writes them."""
    from lc3jit.toolchain.asm import assemble_file, write_outputs

    try:
        assembly = assemble_file(source)
    except LC3Error as e:
        raise fail(str(e)) from None
    for warning in assembly.warning_texts():
        warn(warning)
    try:
        write_outputs(assembly, output or source.with_suffix(".obj"))
    except OSError as e:
        raise fail(f"{e.filename}: {e.strerror or e}") from None


def _clip(image: Image, start: int, stop: int) -> Image | None:
    """The part of an image inside [start, stop), labels kept; None when nothing is left."""
    low, high = max(start, image.origin), min(stop, image.end)
    if low >= high:
        return None
    words = image.words[low - image.origin : high - image.origin]
    return Image(low, words, image.name, image.symbols, image.source)


@command()
def disasm(
    program: Annotated[
        Path,
        typer.Argument(metavar="PROGRAM", help="Program to list (.obj with its .sym, .hex, .bin, .asm)."),
    ],
    chosen: Annotated[
        str | None,
        typer.Option(
            "--range",
            metavar="START:STOP",
            help="START:STOP, e.g. x3000:x3010; STOP excluded; either may be left out.",
        ),
    ] = None,
) -> None:
    """List a program as assembler text: labels, mnemonics, operands, then ; address, word
    and the target of PC-relative operands. `lc3jit asm` reads the listing back into the same
    words. Words of .FILL/.BLKW/.STRINGZ in an .asm are listed as .FILL."""
    from lc3jit.toolchain.asm import assemble_file
    from lc3jit.toolchain.disasm import write_listing
    from lc3jit_runtime.loader import load_file

    start, stop = address_range(chosen)
    try:
        if program.suffix.lower() == ".asm":
            assembly = assemble_file(program)
            images, code = assembly.images, assembly.code
        else:
            images, code = load_file(program, warn), None
    except LC3Error as e:
        raise fail(str(e)) from None
    parts = [part for part in (_clip(image, start, stop) for image in images) if part is not None]
    if not parts:
        raise fail(f"{program}: no words in {format_range(start, stop)}")
    for part in parts:
        write_listing(part, sys.stdout, code)
