"""What we change in typer, and why: plain names in help, and plain values read plainly.

1. typer writes a command's arguments as `{PROGRAM}...` in the usage line and as
   `PROGRAM <list[Path]>` in the argument list (the Python type, even when a metavar is
   given). A student reads neither. Our arguments show `PROGRAM...` in both places
   (`[NAME]` when optional), as click and older typer wrote them. Options need no change:
   each of ours has a metavar (`--engine regions|blocks|interp`, `--pc ADDR`), which typer
   shows as it is.
2. typer converts every value through a pydantic TypeAdapter: importing pydantic and
   building the adapters is 50-60 ms of CPU, a third of `lc3jit asm` (a command that
   reaches typer must start within 12x `python -c pass`). A parameter that is text or a
   path (or a list of paths), with no parser of its own, is read here: `str(value)`, or
   `Path(value)` with the check its declaration asks for (`dir_okay=False`: not a
   directory, in typer's words); a flag given is a bool already. Anything else (numbers,
   a flag's value written as text) and a value left out go to typer as before.

Only typer's public API is used: the classes of `typer.core`, given to typer by `cls=`,
override click's public methods (`get_usage_pieces`, `get_help_record`, `process_value`);
what a parameter is declared as is read from the command's own signature (`Annotated[type,
typer.Option(...)]`), not from typer's internals. Every lc3jit command is built with
`PlainCommand` (the application with `PlainGroup`), which swaps the class of its
parameters, its help option too: typer has no `cls` for a parameter.
`tests/test_cli.py` runs every command's help and checks what `lc3jit asm` imports.
"""

from __future__ import annotations

import functools
import inspect
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.models import ParameterInfo

Convert = Callable[[Any, Any, Any], Any]  # (value, param, ctx) -> the value the command gets


def _path_checked(info: ParameterInfo) -> Convert:
    """A path as typer reads it for this declaration (only `dir_okay=False` is ever asked)."""

    def path(value: Any, param: Any, ctx: Any) -> Path:
        if not info.dir_okay and os.path.isdir(value):
            raise typer.BadParameter(f"file {str(value)!r} is a directory.", ctx=ctx, param=param)
        return Path(value)

    return path


def _plain_conversion(annotation: Any) -> Convert | None:
    """How to read the values of a parameter declared `annotation` (`Annotated[type, info]`)
    without pydantic, or None to leave them to typer."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    python_type, *extras = typing.get_args(annotation)
    infos = [extra for extra in extras if isinstance(extra, ParameterInfo)]
    if len(infos) != 1 or infos[0].parser is not None:
        return None
    if typing.get_origin(python_type) in (typing.Union, type(str | None)):  # X | None: X, None aside
        kinds = [t for t in typing.get_args(python_type) if t is not type(None)]
        python_type = kinds[0] if len(kinds) == 1 else python_type
    if python_type is str:
        return lambda value, param, ctx: str(value)
    if python_type is Path:
        return _path_checked(infos[0])
    if python_type == list[Path]:
        path = _path_checked(infos[0])
        return lambda values, param, ctx: [path(value, param, ctx) for value in values]
    return None


def _read(param: Any, ctx: Any, value: Any, typers: Callable[[Any, Any], Any]) -> Any:
    """The value the command gets (`process_value`): read by the command's conversion for the
    parameter where it has one, else by typer's own (`typers`)."""
    plain = getattr(ctx.command, "conversions", {}).get(param.name)
    if value is None and not param.required:  # left out, and needed by nobody: nothing to read
        value = () if param.multiple or param.nargs == -1 else None
    elif value is not None and plain is not None:
        value = plain(value, param, ctx)
    else:  # typer's: numbers, flags, a value needed and left out
        return typers(ctx, value)
    return param.callback(ctx, param, value) if param.callback is not None else value


class PlainArgument(TyperArgument):
    """An argument shown by its plain name: NAME, NAME... for several, [NAME] if optional."""

    def process_value(self, ctx: Any, value: Any) -> Any:
        return _read(self, ctx, value, super().process_value)

    def _plain_name(self) -> str:
        name = (self.metavar or self.name or "").upper()
        return f"{name}..." if self.nargs != 1 else name

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        return [self._plain_name() if self.required else f"[{self._plain_name()}]"]

    def get_help_record(self, ctx: Any) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        return None if record is None else (self._plain_name(), record[1])


class PlainOption(TyperOption):
    """An option whose text or path values are read without pydantic."""

    def process_value(self, ctx: Any, value: Any) -> Any:
        return _read(self, ctx, value, super().process_value)


def _plain(params: list[Any]) -> list[Any]:
    """The parameters, each of typer's own classes given ours (in place)."""
    for param in params:
        if type(param) is TyperArgument:
            param.__class__ = PlainArgument
        elif type(param) is TyperOption:
            param.__class__ = PlainOption
    return params


class PlainCommand(TyperCommand):
    """A typer command whose parameters (its help option too) are PlainArgument and PlainOption,
    each read by `conversions` (by name) where it has one."""

    @functools.cached_property
    def conversions(self) -> dict[str, Convert | None]:
        """How to read each parameter's values without pydantic, from the command's own
        declaration of it (None: typer reads them)."""
        if self.callback is None:
            return {}
        declared = inspect.signature(self.callback, eval_str=True).parameters
        return {name: _plain_conversion(parameter.annotation) for name, parameter in declared.items()}

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class PlainGroup(TyperGroup):
    """The application: its own options (--version, --help) as PlainOption."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))
