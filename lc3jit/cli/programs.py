"""The programs a command is given: files to load over one another, or one compiled program."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lc3jit_runtime.errors import LC3Error

if TYPE_CHECKING:
    from lc3jit_runtime.compiled import Compiled

Programs = Annotated[
    list[Path],
    typer.Argument(
        help="Program files (.obj, .hex, .bin, .asm); later ones load over earlier ones. For run, or"
        " one compiled program (.pyc, from `lc3jit compile`).",
        metavar="PROGRAM",
    ),
]


def is_compiled(programs: list[Path]) -> bool:
    return any(p.suffix.lower() == ".pyc" for p in programs)


def _given(ctx: typer.Context, option: str) -> bool:
    """Was the option on the command line (not left at its default)?"""
    source = ctx.get_parameter_source(option)
    return source is not None and source.name == "COMMANDLINE"


def compiled_program(
    ctx: typer.Context,
    programs: list[Path],
    edition: int,
    full_system: bool = False,
    os_image: Path | None = None,
) -> Compiled | None:
    """The compiled program (.pyc) among the programs, if any; it fixes the edition and the OS,
    so --edition and --os may only say what it was compiled with."""
    if not is_compiled(programs):
        return None
    if len(programs) > 1:
        raise typer.BadParameter("a compiled program (.pyc) is loaded alone", param_hint="'PROGRAM...'")
    if os_image is not None:
        raise typer.BadParameter(
            "a compiled program holds the OS it was compiled with", param_hint="'--os-image'"
        )
    from lc3jit_runtime.compiled import read_compiled

    compiled = read_compiled(programs[0])
    if compiled.key:
        raise LC3Error(f"{programs[0]}: an entry of the translation cache, not a compiled program")
    if _given(ctx, "edition") and edition != compiled.edition:
        raise typer.BadParameter(
            f"{programs[0]} was compiled for edition {compiled.edition}", param_hint="'--edition'"
        )
    if full_system and not compiled.system:
        raise typer.BadParameter(f"{programs[0]} was compiled without an OS", param_hint="'--os'")
    return compiled


def symbols(programs: list[Path]) -> dict[str, int]:
    """The labels of the programs, upper-cased (none for a compiled one, or one that will not load)."""
    if is_compiled(programs):
        return {}
    from lc3jit.session import load_images

    try:
        return {name.upper(): a for image in load_images(programs) for name, a in image.symbols.items()}
    except LC3Error:
        return {}
