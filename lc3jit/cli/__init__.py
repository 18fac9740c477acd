"""The `lc3jit` command through typer: parses arguments, calls the library, maps its errors
to exit codes. A plain `lc3jit run` does not come here (lc3jit/launch.py).

One module per group of commands, each adding its commands to `common.app` when imported
(in the order `lc3jit --help` lists them): running (run, compile), debugging (debug),
toolchain (asm, disasm), inspection (dump, bench), checking (check), grading (grade), editors (dap, lsp).
A command imports the library it needs when it runs, so `lc3jit asm` or `--help` loads
neither the translator nor the debugger (docs/benchmarks.md has the numbers).
`options` turns run's option table into typer parameters; `typer_adapter` is the one
place where typer is adapted (plain names in help; text and paths read without pydantic).
"""

from __future__ import annotations

import errno
import importlib
import sys
from typing import Annotated

import typer

from lc3jit.cli.common import EXIT_CODES_HELP, app, command, version_line

__all__ = ["EXIT_CODES_HELP", "app", "main"]

#: The command modules, in the order help lists their commands (typer lists them as added).
GROUPS = ("running", "debugging", "toolchain", "inspection", "checking", "grading", "editors")
for _group in GROUPS:
    importlib.import_module(f"lc3jit.cli.{_group}")


def _print_version(given: bool) -> None:
    if given:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Run LC-3 programs by translating their machine code into Python bytecode."""


@command()
def version() -> None:
    """Print the version of lc3jit and of Python."""
    typer.echo(version_line())


def main() -> None:
    """Every command through typer; output that cannot be written ends it as `run` ends."""
    try:
        if sys.stdout is None:  # descriptor 1 closed: print() would drop every line silently
            raise OSError(errno.EBADF, "stdout is closed")
        app()
    except OSError as e:
        from lc3jit.runner import output_failed

        sys.exit(output_failed(e))
