"""The options of `lc3jit run`, declared once.

The fast launcher (`lc3jit/launch.py`) reads a plain command line by this table without
importing typer, and the typer CLI (`lc3jit/cli/`) builds its `run` command from the
same rows, so an option added here exists both ways; `tests/test_launch.py` holds the
two together. A row names the option, the `RunOptions` field it fills, the kind of its
value (which says how each side reads it), its default and its help.
"""

from __future__ import annotations

import os

from lc3jit.session import ENGINES
from lc3jit.tiered import TRANSLATE_AFTER
from lc3jit_runtime.isa import MEMORY_WORDS
from lc3jit_runtime.loader import extension
from lc3jit_runtime.machine import TRANSLATION_BUDGET
from lc3jit_runtime.record import MutableRecord, Record

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from _typeshed import StrPath  # the launcher's plain strings, typer's Paths

#: Every option's value when it is not given.
RUN_DEFAULTS: dict[str, object] = {
    "engine": "regions",
    "edition": 3,
    "pc": None,
    "max_steps": None,
    "max_output": None,
    "translation_budget": None,
    "input_file": None,
    "stats": False,
    "state_json": None,
    "full_system": False,
    "os_image": None,
    "no_cache": False,
    "translate_after": TRANSLATE_AFTER,
    "trace": None,
    "trace_range": (0, MEMORY_WORDS),
    "assembler": None,
}


class RunOptions(MutableRecord, fields=("programs", *RUN_DEFAULTS), defaults=RUN_DEFAULTS):
    """The options of `lc3jit run`, as the launcher or typer read them (defaults: RUN_DEFAULTS)."""

    programs: list[StrPath]
    engine: str
    edition: int
    pc: int | None
    max_steps: int | None
    max_output: int | None  # bytes the program may write
    translation_budget: int | None  # instructions the translators may translate
    input_file: StrPath | None
    stats: bool
    state_json: StrPath | None
    full_system: bool
    os_image: StrPath | None
    no_cache: bool
    translate_after: int
    trace: StrPath | None
    trace_range: tuple[int, int]
    assembler: str | None  # None: LC3JIT_ASSEMBLER's, else the fast one


class Option(
    Record,
    fields=("name", "field", "kind", "help", "metavar", "fast"),
    defaults={"metavar": None, "fast": True},
):
    """One option of `run`. kind: flag, engine, edition, address, count, file (not a
    directory), path, range (START:STOP), assembler. fast: whether the launcher reads it
    (an option it leaves to typer sends the whole command line there)."""

    name: str
    field: str
    kind: str
    help: str
    metavar: str | None
    fast: bool

    @property
    def default(self) -> object:
        return RUN_DEFAULTS[self.field]


RUN_OPTIONS: tuple[Option, ...] = (
    Option(
        "--engine",
        "engine",
        "engine",
        "regions: loops and subroutines as single code objects (the default); "
        "blocks: one code object per basic block; interp: the reference interpreter.",
    ),
    Option("--edition", "edition", "edition", "Patt & Patel edition whose ISA to follow: 3 or 2."),
    Option("--pc", "pc", "address", "Start address (default: first origin)."),
    Option("--max-steps", "max_steps", "count", "Stop after this many instructions."),
    Option(
        "--max-output",
        "max_output",
        "count",
        "Stop once the program writes more than BYTES bytes: the output is cut there (exit 6).",
        metavar="BYTES",
    ),
    Option("--input", "input_file", "file", "Read the keyboard from this file instead of stdin."),
    Option("--stats", "stats", "flag", "Print instructions, time and MIPS to stderr."),
    Option("--state-json", "state_json", "path", "Write the final registers and stop reason as JSON."),
    Option(
        "--os",
        "full_system",
        "flag",
        "Full-system mode: load lc3jit's own OS first and run the program under it, in user"
        " mode (PSR x8002), with traps, exceptions and interrupts done by the OS.",
    ),
    Option(
        "--os-image",
        "os_image",
        "path",
        "Full-system mode with this OS image instead (e.g. the classic lc3os.obj); implies --os."
        " The machine starts at x0200 with R0 = the program's start address.",
    ),
    Option(
        "--no-cache",
        "no_cache",
        "flag",
        "Translate again instead of loading the translations a run saved before (also with"
        " LC3JIT_NO_CACHE=1).",
    ),
    Option(
        "--translate-after",
        "translate_after",
        "count",
        "Run the first N instructions on the interpreter and translate only then, if the"
        " run goes on (blocks, regions); 0 translates before the run.",
        metavar="N",
    ),
    Option(
        "--translation-budget",
        "translation_budget",
        "count",
        f"Translate at most N instructions in all, copies counted (default {TRANSLATION_BUDGET});"
        " past it, code stays interpreted.",
        metavar="N",
    ),
    Option(
        "--assembler",
        "assembler",
        "assembler",
        "fast: lc3jit's own assembler writes the code objects (the default); bytecode: the"
        " `bytecode` library builds and assembles each, as a check (also with"
        " LC3JIT_ASSEMBLER=bytecode; never from or to the translation cache).",
    ),
    Option(
        "--trace",
        "trace",
        "path",
        "Write a line per instruction executed to FILE ('-': stderr): PC, word, instruction,"
        " registers, codes and memory it wrote. Runs through the interpreter, on every engine.",
        fast=False,
    ),
    Option(
        "--trace-range",
        "trace_range",
        "range",
        "With --trace: only instructions at START:STOP (STOP excluded).",
        fast=False,
    ),
)
OPTION = {option.name: option for option in RUN_OPTIONS}


def _engine(text: str) -> str | None:
    return text if text in ENGINES else None


def _edition(text: str) -> int | None:
    return int(text) if text in ("2", "3") else None


def _count(text: str) -> int | None:
    """`0`, or ASCII digits without a leading zero (anything else goes to typer); read
    without `re`, which a plain run does not import (5 ms of CPU on 3.15)."""
    plain = text.isascii() and text.isdigit() and (text == "0" or text[0] != "0")
    return int(text) if plain else None


def _address(text: str) -> int | None:
    from lc3jit.toolchain.numbers import parse_address  # `re`: only for a run given an address

    try:
        return parse_address(text)
    except ValueError:
        return None


def _assembler(text: str) -> str | None:
    from lc3jit.translator.codegen.assembler import ASSEMBLERS  # only for a run given an assembler

    return text if text in ASSEMBLERS else None


def _path(text: str) -> str | None:
    return text if text and not text.startswith("-") else None


def _file(text: str) -> str | None:
    """--input is a file: typer refuses a directory."""
    return None if os.path.isdir(text) else _path(text)


#: The launcher's reader of a value of each kind: the value typer would take unchanged,
#: or None (not such a value, so typer must say what is wrong with it).
FAST_READERS: dict[str, Callable[[str], object]] = {
    "engine": _engine,
    "edition": _edition,
    "address": _address,
    "count": _count,
    "assembler": _assembler,
    "file": _file,
    "path": _path,
}


def parse_run(args: Sequence[str]) -> RunOptions | None:
    """The options of `run ARGS...` when they are plain; None for typer to parse."""
    programs: list[StrPath] = []
    values: dict[str, object] = {}
    rest = iter(args)
    for arg in rest:
        name, equals, inline = arg.partition("=")
        option = OPTION.get(name)
        if option is None or not option.fast or option.field in values:
            if (program := _path(arg)) is None or extension(program).lower() == ".pyc":
                return None
            programs.append(program)
        elif option.kind == "flag":
            if equals:
                return None
            values[option.field] = True
        else:
            text = inline if equals else next(rest, None)
            value = None if text is None else FAST_READERS[option.kind](text)
            if value is None:
                return None
            values[option.field] = value
    if not programs:
        return None
    return RunOptions(programs=programs, **values)  # type: ignore[arg-type]
