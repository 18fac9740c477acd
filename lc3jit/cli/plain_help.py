"""What we change in typer's help, and why: plain names where typer shows its internals.

typer 0.29 writes a command's arguments as `{PROGRAM}...` in the usage line (the braces
are hard-coded in `TyperArgument._usage_display_name`) and as `PROGRAM <list[Path]>` in
the argument list (the Python type, even when a metavar is given). A student reads
neither. Every lc3jit command is built with `PlainCommand`, which gives its arguments
`PlainArgument`'s three display methods: `PROGRAM...` in both places, `[NAME]` for an
optional one, as click and older typer wrote them. Options need no change: each of ours
has a metavar (`--engine regions|blocks|interp`, `--pc ADDR`), which typer shows as it
is; `tests/test_manners.py` runs every command's help and looks for typer's notation.

typer has no `cls` for an argument, so the command swaps the class of the arguments it
was built with; the methods it overrides are display only, and a typer without them
(an older one) ignores them.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand


class PlainArgument(TyperArgument):
    """An argument shown by its plain name: NAME, NAME... for several, [NAME] if optional."""

    def _plain_name(self) -> str:
        name = (self.metavar or self.name or "").upper()
        return f"{name}..." if self.nargs != 1 else name

    def _usage_display_name(self) -> str:
        return self._plain_name() if self.required else f"[{self._plain_name()}]"

    def _rich_display_name(self) -> str:
        return self._plain_name()

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the help text says what the argument is; its Python type says nothing


class PlainCommand(TyperCommand):
    """A typer command whose arguments show as PlainArgument."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument:
                param.__class__ = PlainArgument
