"""The labels of one source: defined in pass 1, looked up in pass 2 with a hint when unknown."""

from __future__ import annotations

from lc3jit.toolchain.asm.diagnostics import SHOWN, Reporter
from lc3jit.toolchain.asm.hints import mnemonic_hint, nearest
from lc3jit.toolchain.asm.spellings import is_keyword
from lc3jit.toolchain.asm.syntax import Statement, Token


class SymbolTable:
    """Labels by upper-cased name (labels are case-insensitive, as in lc3as)."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self.entries: dict[str, tuple[str, int, int]] = {}  # upper name -> (name, address, line)
        # Pass 2 reports in source order: the first SHOWN unknown labels are all it may show.
        self.hints_left = SHOWN

    def define(self, statement: Statement, address: int) -> str | None:
        """Define the statement's label at address: its name, or None (reported) when it is
        defined already."""
        token = statement.label
        name = token.text.removesuffix(":")
        if name.upper() in self.entries:
            _, _, line = self.entries[name.upper()]
            hint = mnemonic_hint(name)
            hint = f" ({hint})" if hint and statement.op is None else ""
            self.reporter.report(
                statement, token.column, f"label {name} is already defined on line {line}{hint}"
            )
            return None
        if statement.op is None and not token.text.endswith(":") and (hint := mnemonic_hint(name)):
            self.reporter.warn(
                statement, token.column, f"{name} alone on a line is taken as a label ({hint})"
            )
        self.entries[name.upper()] = (name, address, statement.number)
        return name

    def address_of(self, statement: Statement, token: Token) -> int | None:
        entry = self.entries.get(token.text.upper())
        if entry is None:
            self.reporter.report(
                statement, token.column, f"unknown label {token.text}{self.hint(token.text)}"
            )
            return None
        return entry[1]

    def hint(self, name: str) -> str:
        """What an unknown label may have meant: an instruction's name, or a label one or two
        edits away (LOPP for LOOP)."""
        if is_keyword(name):
            upper = name.upper()
            return f": {upper} is an instruction; a label of that name is defined with a colon ({name}:)"
        if self.hints_left <= 0:  # each looks at every label: only for errors shown
            return ""
        self.hints_left -= 1
        near = nearest(name, [defined for defined, _, _ in self.entries.values()])
        return f"; did you mean {near}?" if near else ""
