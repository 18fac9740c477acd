"""`check`: lc3jit's own assembler against the `bytecode` library, on the user's programs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lc3jit.cli.common import command, fail
from lc3jit.cli.options import Edition, FullSystem

#: Instructions each run of `check` takes at most, unless told.
CHECK_STEPS = 100_000


@command(name="check")
def check_command(
    programs: Annotated[
        list[Path],
        typer.Argument(metavar="PROGRAM", help="Programs to check, each on its own (.asm, .obj, ...)."),
    ],
    edition: Edition = 3,
    full_system: FullSystem = False,
    steps: Annotated[
        int,
        typer.Option("--steps", min=0, metavar="N", help="Instructions each run takes at most."),
    ] = CHECK_STEPS,
) -> None:
    """Check the translator against the `bytecode` library on this Python: each program is
    translated ahead of time by lc3jit's own assembler and by `bytecode`, every code object
    compared field by field and its stack depth, as `bytecode` computes it, checked against
    the bound the translator gives; then it runs up to N instructions with each (the same
    keys typed) and the two runs must end alike. One line a program; exit 1 on any difference.
    Run it on a new Python or a new `bytecode` release before trusting translated code."""
    from lc3jit.inspection.check import check_program
    from lc3jit.session import why_not_translated
    from lc3jit.translator.codegen.emitter import STACK_BOUND
    from lc3jit_runtime.errors import LC3Error

    if reason := why_not_translated():
        raise fail(f"nothing to check: {reason}")
    failed = False
    for path in programs:
        try:
            verdict = check_program([path], edition, full_system, steps)
        except LC3Error as e:
            raise fail(str(e)) from None
        if verdict.differences:
            failed = True
            typer.echo(f"{path}: DIFFERENT: {'; '.join(verdict.differences)}")
        else:
            plural = "" if verdict.steps == 1 else "s"
            typer.echo(
                f"{path}: same: {verdict.codes} code objects, stack at most {verdict.deepest} of"
                f" {STACK_BOUND}, runs of {verdict.steps:,} instruction{plural} alike"
            )
    if failed:
        raise typer.Exit(1)
