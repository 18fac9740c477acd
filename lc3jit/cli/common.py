"""The typer application every command module adds its commands to, and what they share:
the exit codes, one-line failures, and reading addresses and ranges.

Only typer and lc3jit's light modules are imported here: each command imports what it
needs when it runs (`lc3jit asm` must not pay for the translator).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

import typer

from lc3jit import __version__
from lc3jit.cli.typer_adapter import PlainCommand, PlainGroup
from lc3jit.toolchain.numbers import parse_address
from lc3jit_runtime.isa import MEMORY_WORDS

EXIT_CODES_HELP = """
Exit codes: 0 after HALT; 1 load or assembly error, or output not written; 2 usage
error; 3 machine fault
(illegal opcode, unknown trap vector with no OS); 4 step limit reached; 5 input ended
while the program waited for a key; 6 output limit reached; 129 SIGHUP; 130 interrupted (Ctrl-C); 141 output
pipe closed; 143 SIGTERM. The output is written as the program prints; --stats and
--state-json give the exact state however the run ends.
"""

app = typer.Typer(
    help="Run LC-3 programs by translating their machine code into Python bytecode.\n\n" + EXIT_CODES_HELP,
    cls=PlainGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: `@command()` adds a command to the application, with plain names in its help.
command = functools.partial(app.command, cls=PlainCommand)


def version_line() -> str:
    return f"lc3jit {__version__} on Python {sys.version.split()[0]}"


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one line to stderr and give the exit to raise."""
    typer.echo(f"lc3jit: {message}", err=True)
    return typer.Exit(code)


def warn(message: str) -> None:
    typer.echo(message, err=True)


def address(text: str | None, option: str) -> int | None:
    """An address option's value (x3000, #12288, a label is not taken here), or None."""
    if text is None:
        return None
    try:
        return parse_address(text)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint=f"'{option}'") from None


def address_range(text: str | None, symbols: Callable[[], dict[str, int]] | None = None) -> tuple[int, int]:
    """--range A:B as [start, stop); either end may be left out; with symbols (the program's
    labels, upper-cased, read when an end is no number), an end may be a label or LABEL+N."""
    if text is None:
        return 0, MEMORY_WORDS
    start, colon, stop = text.partition(":")
    if not colon:
        raise typer.BadParameter(f"expected START:STOP, found {text!r}")

    def end(part: str, default: int) -> int:
        if not part:
            return default
        try:
            return parse_address(part)
        except ValueError as e:
            label, plus, offset = part.upper().partition("+")
            known = symbols() if symbols is not None else {}
            if label not in known or (plus and not offset.isdigit()):
                raise typer.BadParameter(f"{e} (nor a label of the program)") from None
            return min(known[label] + (int(offset) if plus else 0), MEMORY_WORDS)

    return end(start, 0), end(stop, MEMORY_WORDS)


def format_range(start: int, stop: int) -> str:
    return f"x{start:04X}:x{stop:04X}" if stop < MEMORY_WORDS else f"x{start:04X}:"
