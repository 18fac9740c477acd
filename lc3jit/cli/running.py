"""`run` through typer (what the fast launcher leaves to it) and `compile`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from lc3jit.cli.common import EXIT_CODES_HELP, address, address_range, command, fail, warn
from lc3jit.cli.options import Assembler, Edition, FullSystem, OsImage, Pc, assemble_with, with_run_options
from lc3jit.cli.programs import Programs, compiled_program, is_compiled, symbols
from lc3jit_runtime.errors import LC3Error


@command(epilog=EXIT_CODES_HELP)
@with_run_options
def run(ctx: typer.Context, programs: Programs, **options: Any) -> None:
    """Run a program: keys from the terminal (raw mode) or from a pipe or --input file.

    A compiled program (PROGRAM.pyc, from `lc3jit compile`) runs with its saved translations;
    others with the translations a run of the same program saved before, if any. A .pyc is
    Python code and running it runs that code: run only those you would run as Python programs."""
    from lc3jit.run_options import RunOptions
    from lc3jit.runner import run_program

    options["pc"] = address(options["pc"], "--pc")
    trace_range = options["trace_range"]
    options["trace_range"] = address_range(trace_range, lambda: symbols(programs))
    if trace_range is not None and options["trace"] is None:
        raise typer.BadParameter("--trace-range needs --trace")
    try:
        compiled = compiled_program(
            ctx, programs, options["edition"], options["full_system"], options["os_image"]
        )
    except LC3Error as e:
        raise fail(str(e)) from None
    if code := run_program(RunOptions(programs=programs, **options), compiled):
        raise typer.Exit(code)


@command(name="compile")
def compile_command(
    programs: Programs,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="The .pyc to write (default: PROGRAM.pyc in the current directory).",
        ),
    ] = None,
    edition: Edition = 3,
    pc: Pc = None,
    full_system: FullSystem = False,
    os_image: OsImage = None,
    assembler: Assembler = None,
) -> None:
    """Translate a program ahead of time into a Python bytecode file (.pyc): `python OUT.pyc` runs
    it with only lc3jit's runtime package, `lc3jit run OUT.pyc` with every option of run.

    Everything plausibly reachable is translated (the flow from the start and, under an OS, the
    trap and interrupt routines; labels and the targets of tables of addresses that look like
    code); what it translated and what it left to run time is printed. Loading a .pyc runs its
    code: a compiled file is as trusted as any Python file."""
    from lc3jit.session import load_images, os_images, why_not_translated
    from lc3jit.translator.compile import compile_program, describe, write_compiled

    assemble_with(assembler)
    if is_compiled(programs):
        raise typer.BadParameter("already compiled: give the program itself", param_hint="'PROGRAM...'")
    if reason := why_not_translated():
        raise fail(f"nothing to compile: {reason}")
    start_pc = address(pc, "--pc")
    try:
        system = os_images(edition, os_image) if full_system or os_image else []
        images = load_images(programs, warn=warn)
    except LC3Error as e:
        raise fail(str(e)) from None
    compiled = compile_program(str(programs[0]), images, edition, start_pc, system)
    path = output or Path(programs[0].with_suffix(".pyc").name)
    try:
        size = write_compiled(compiled, path)
    except OSError as e:
        raise fail(f"{path}: {e.strerror or e}") from None
    typer.echo(f"wrote {path} ({size:,} bytes)")
    for line in describe(compiled):
        typer.echo(line)
