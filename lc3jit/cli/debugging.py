"""`debug`: the debugger at a prompt or over a file of commands."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated

import typer

from lc3jit.cli.common import address, command, fail, warn
from lc3jit.cli.options import (
    Assembler,
    Edition,
    EngineName,
    FullSystem,
    InputFile,
    MaxSteps,
    OsImage,
    Pc,
    assemble_with,
)
from lc3jit.cli.programs import Programs
from lc3jit.debugging.reverse import DEFAULT_LIMIT as DEFAULT_HISTORY
from lc3jit_runtime.errors import LC3Error

DEBUG_HELP = """
Commands: break LOC [if COND], tbreak, delete LOC, watch LOC, display, step [N], next, finish,
until LOC, continue, reverse-step [N] (back), reverse-next, reverse-finish, reverse-continue,
regs, info, print EXPR (p), mem [ADDR [N]] (x/N), list [LOC], set R3 x10 | set PC LOC |
set ADDR VALUE, run, restart, help, quit (abbreviations b d s n c r). LOC is a source line
(12, fib.asm:12), a label (from the .asm or .sym) or an address (x3000, *x3000). See
docs/debugger.md. Between stops the program
runs on its engine at full speed. The program's keys come from --input, else from stdin
when the commands come from --commands, else from the terminal. Commands piped into stdin
are echoed like those of --commands.
"""


@command(epilog=DEBUG_HELP)
def debug(
    programs: Programs,
    engine: EngineName = "regions",
    edition: Edition = 3,
    pc: Pc = None,
    max_steps: MaxSteps = None,
    input_file: InputFile = None,
    full_system: FullSystem = False,
    os_image: OsImage = None,
    assembler: Assembler = None,
    commands: Annotated[
        Path | None,
        typer.Option(
            "--commands",
            metavar="FILE",
            help="Run the debugger commands in FILE (echoed), then quit; the first that fails ends"
            " it with exit code 1.",
            dir_okay=False,
        ),
    ] = None,
    keep_going: Annotated[
        bool, typer.Option("--keep-going", help="With --commands: go on after a command that fails.")
    ] = False,
    history: Annotated[
        int,
        typer.Option(
            "--history",
            min=0,
            metavar="N",
            help="How many instructions back the reverse commands reach (0: keep no history).",
        ),
    ] = DEFAULT_HISTORY,
) -> None:
    """Debug a program: breakpoints, watches, stepping, registers and memory, at a prompt."""
    from lc3jit.api import Simulator
    from lc3jit.debugging.debugger import Debugger, interact
    from lc3jit_runtime.console import Console

    assemble_with(assembler)
    start_pc = address(pc, "--pc")
    keys_from_stdin = input_file is not None or commands is not None or sys.stdin.isatty()

    def make() -> Simulator:
        console = (
            Console.for_process(str(input_file) if input_file else None)
            if keys_from_stdin
            else Console(None, sys.stdout.buffer)
        )
        return Simulator(
            *programs,
            engine=engine,
            edition=edition,
            os=os_image or full_system,
            pc=start_pc,
            console=console,
            warn=warn,
        )

    try:
        debugger = Debugger(make, sys.stdout, max_steps, history)
        script = commands.open() if commands is not None else None
    except LC3Error as e:
        raise fail(str(e)) from None
    except OSError as e:  # the --input or --commands file
        raise fail(f"{e.filename}: {e.strerror or e}") from None
    if script is None and not sys.stdin.isatty():  # commands piped in: a transcript, as from a file
        code = interact(debugger, sys.stdin, keep_going=keep_going)
    else:
        with script if script is not None else contextlib.nullcontext():
            code = interact(debugger, script, str(Path.home() / ".lc3jit_history"), keep_going)
    if code:
        raise typer.Exit(code)
