"""The options of `run` (lc3jit/run_options.py) as typer parameters, and those other
commands share with it (`--edition`, `--pc`, `--input`, `--os`, ...), from the same rows."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from lc3jit.run_options import OPTION, RUN_OPTIONS
from lc3jit.session import ENGINES


def _edition(value: int) -> int:
    if value not in (2, 3):
        raise typer.BadParameter("the edition is 2 or 3")
    return value


def _engine(value: str) -> str:
    if value not in ENGINES:
        raise typer.BadParameter(f"no engine {value!r}; choose from {', '.join(ENGINES)}")
    return value


def _assembler(value: str | None) -> str | None:
    from lc3jit.translator.codegen.assembler import check_assembler

    try:
        return None if value is None else check_assembler(value)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


#: What help shows for a value of each kind: plain words and the choices, not typer's types.
METAVARS = {
    "engine": "regions|blocks|interp",  # the default first
    "edition": "3|2",
    "address": "ADDR",
    "count": "N",
    "file": "FILE",
    "path": "FILE",
    "range": "START:STOP",
    "assembler": "fast|bytecode",
}

#: How typer reads a value of each kind of run_options.Option; an address and a range are
#: read as text and converted in the command, as the options of other commands are.
KINDS: dict[str, tuple[object, dict[str, object]]] = {
    "flag": (bool, {}),
    "engine": (str, {"callback": _engine}),
    "edition": (int, {"callback": _edition}),
    "address": (str | None, {}),
    "count": (int | None, {"min": 0}),
    "file": (Path | None, {"dir_okay": False}),
    "path": (Path | None, {}),
    "range": (str | None, {}),
    "assembler": (str | None, {"callback": _assembler}),
}


def option(name: str, **overrides: object) -> object:
    """The Annotated type of a `run` option, for a typer parameter."""
    row = OPTION[name]
    python_type, checks = KINDS[row.kind]
    settings = {"help": row.help, "metavar": row.metavar or METAVARS.get(row.kind), **checks, **overrides}
    return Annotated[python_type, typer.Option(row.name, **settings)]


Edition = option("--edition")
InputFile = option("--input")
Pc = option("--pc")
FullSystem = option("--os")
OsImage = option("--os-image")
EngineName = option("--engine")
MaxSteps = option("--max-steps")
Assembler = option("--assembler")


def assemble_with(name: str | None) -> None:
    """Write this command's code objects with the assembler `name` (None: as the
    environment says), and those of the processes it starts (`bench --process`)."""
    if name is not None:
        import os

        from lc3jit.translator.codegen.assembler import VARIABLE

        os.environ[VARIABLE] = name


def with_run_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give the command the options of `run` from their table, as keyword parameters after
    its own: typer reads a command's parameters from its signature."""
    own = list(inspect.signature(command, eval_str=True).parameters.values())[:-1]  # all but **options
    options = [
        inspect.Parameter(
            row.field,
            inspect.Parameter.KEYWORD_ONLY,
            default=None if row.kind == "range" else row.default,  # text until the command reads it
            annotation=option(row.name),
        )
        for row in RUN_OPTIONS
    ]
    command.__signature__ = inspect.Signature([*own, *options])  # type: ignore[attr-defined]
    return command
