"""What we change in typer, and why: plain names in help, and plain values read plainly.

1. typer 0.29 writes a command's arguments as `{PROGRAM}...` in the usage line (the braces
   are hard-coded in `TyperArgument._usage_display_name`) and as `PROGRAM <list[Path]>` in
   the argument list (the Python type, even when a metavar is given). A student reads
   neither. Our arguments show `PROGRAM...` in both places (`[NAME]` when optional), as
   click and older typer wrote them. Options need no change: each of ours has a metavar
   (`--engine regions|blocks|interp`, `--pc ADDR`), which typer shows as it is.
2. typer 0.29 converts every value through a pydantic TypeAdapter: importing pydantic and
   building the adapters is 50-60 ms of CPU, a third of `lc3jit asm` (a command
   that reaches typer must start within 12x `python -c pass`). A parameter that is text
   or a path (or a list of paths), with no parser of its own, is read here the way
   typer's adapter reads it: `str(value)`, or typer's own path checks (`coerce_cli_path`:
   exists, file_okay, dir_okay, readable, ...) and `Path(...)`; a flag given is a bool
   already. Anything else (numbers, a flag's value written as text) goes to typer's
   adapter as before.

Every lc3jit command is built with `PlainCommand` (the application with `PlainGroup`),
which gives its parameters these methods: typer has no `cls` for a parameter, so the
command swaps the class of its parameters, its help option too. The methods
overridden, and `coerce_cli_path`, are typer 0.29's: pyproject.toml keeps typer at 0.29.x.
`tests/test_cli.py` runs every command's help and checks what `lc3jit asm` imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer._coercion import RuntimeParam, build_runtime_param
from typer._param_types import coerce_cli_path
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

Convert = Callable[[Any, Any, Any], Any]  # (value, param, ctx) -> the value the command gets


@dataclass(frozen=True)
class _PlainRuntimeParam(RuntimeParam):
    """typer's coercion contract (None and multiple values handled by RuntimeParam.coerce)."""

    convert: Convert | None = None

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        assert self.convert is not None
        return self.convert(value, param, ctx)


def _plain_conversion(param: Any) -> Convert | None:
    """How to read the parameter's values without pydantic, or None to leave it to typer."""
    descriptor = param.type_descriptor
    info = descriptor.parameter_info
    if info.parser is not None or descriptor.file_annotation is not None or info.path_type is not None:
        return None

    def path(value: Any, param: Any, ctx: Any) -> Path:
        return Path(coerce_cli_path(value, info, path_type=None, param=param, ctx=ctx))

    if descriptor.annotation is bool:  # a flag is given as a bool; text ("yes") is typer's to read
        return lambda value, param, ctx: (
            value
            if isinstance(value, bool)
            else build_runtime_param(descriptor)._coerce_value(value, param, ctx)
        )
    if descriptor.annotation is str:
        return lambda value, param, ctx: str(value)
    if descriptor.annotation is Path:
        return path
    if descriptor.annotation == list[Path]:
        return lambda values, param, ctx: [path(value, param, ctx) for value in values]
    return None


def _runtime_param(param: Any) -> RuntimeParam | None:
    """The parameter's coercion when its values are plain (built once), or None for typer's."""
    if param._runtime_param is None:
        convert = _plain_conversion(param)
        if convert is None:
            return None
        descriptor = param.type_descriptor
        param._runtime_param = _PlainRuntimeParam(descriptor.parameter_info, descriptor.annotation, convert)
    return param._runtime_param


class PlainArgument(TyperArgument):
    """An argument shown by its plain name: NAME, NAME... for several, [NAME] if optional."""

    def get_runtime_param(self) -> RuntimeParam:
        return _runtime_param(self) or super().get_runtime_param()

    def _plain_name(self) -> str:
        name = (self.metavar or self.name or "").upper()
        return f"{name}..." if self.nargs != 1 else name

    def _usage_display_name(self) -> str:
        return self._plain_name() if self.required else f"[{self._plain_name()}]"

    def _rich_display_name(self) -> str:
        return self._plain_name()

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the help text says what the argument is; its Python type says nothing


class PlainOption(TyperOption):
    """An option whose text or path values are read without pydantic."""

    def get_runtime_param(self) -> RuntimeParam:
        return _runtime_param(self) or super().get_runtime_param()


def _plain(params: list[Any]) -> list[Any]:
    """The parameters, each of typer's own classes given ours (in place)."""
    for param in params:
        if type(param) is TyperArgument:
            param.__class__ = PlainArgument
        elif type(param) is TyperOption:
            param.__class__ = PlainOption
    return params


class PlainCommand(TyperCommand):
    """A typer command whose parameters (its help option too) are PlainArgument and PlainOption."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class PlainGroup(TyperGroup):
    """The application: its own options (--version, --help) as PlainOption."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))
