"""Errors and warnings at a place in the source, collected so that one run reports them all.

Only the first SHOWN of each severity are kept and shown in full; the rest are counted
("and 12 more errors"), so that a hostile source (a comma 16,000 times on a line) costs
linear time and memory, not one echoed line per error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lc3jit_runtime.errors import LC3Error

if TYPE_CHECKING:
    from lc3jit.toolchain.asm.syntax import Statement

#: Errors (and, apart, warnings) reported in full; the rest are counted.
SHOWN = 30
#: The most characters of a source line echoed under a message, around its column.
ECHO_WIDTH = 100
#: Words quoted in a message are cut to this length.
_QUOTED = 40
_LONG_WORD = re.compile(rf"\S{{{_QUOTED + 1},}}")


def _clip_words(message: str) -> str:
    """A message with each word longer than _QUOTED cut short (a token of 5,000 digits)."""
    return _LONG_WORD.sub(lambda m: m[0][: _QUOTED - 3] + "...", message)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """An error or warning at a place in the source, shown as compilers show them."""

    path: str
    line: int
    column: int
    message: str
    text: str  # the source line, for the caret display
    severity: str = "error"

    def __str__(self) -> str:
        text, column = self.text, self.column
        if len(text) > ECHO_WIDTH:  # a window around the column, marked where it is cut
            start = max(0, min(column - 1 - ECHO_WIDTH // 2, len(text) - ECHO_WIDTH))
            head = "..." if start else ""
            tail = "..." if start + ECHO_WIDTH < len(text) else ""
            text, column = head + text[start : start + ECHO_WIDTH] + tail, column - start + len(head)
        # Keep the line's tabs under the caret so that it lines up in a terminal.
        pad = "".join(c if c == "\t" else " " for c in text[: column - 1])
        head = f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message}"
        return f"{head}\n{text}\n{pad}^"


def more(count: int, severity: str) -> str:
    return f"and {count} more {severity}{'s' if count > 1 else ''}"


class AssemblyError(LC3Error):
    """The source has errors: the first SHOWN of them in source order, each with its place,
    and how many more there are (`count` is all of them). The warnings of the same source
    are kept beside them (`warnings`, the first SHOWN) and shown in their place: a warning
    is often why the error happened (a bare `3000` read as decimal)."""

    def __init__(
        self,
        diagnostics: list[Diagnostic],
        warnings: list[Diagnostic] | tuple[()] = (),
        count: int | None = None,
    ) -> None:
        count = len(diagnostics) if count is None else count
        summary = f"{diagnostics[0].path}: {count} error{'s' if count > 1 else ''}"
        shown = sorted([*diagnostics, *warnings], key=lambda d: (d.line, d.column))
        extra = [more(count - len(diagnostics), "error")] if count > len(diagnostics) else []
        # One line first, as every lc3jit error has, then the details it summarises.
        super().__init__("\n".join([summary, *map(str, shown), *extra]))
        self.diagnostics = tuple(diagnostics)
        self.warnings = tuple(warnings)
        self.count = count


def first_shown(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The first SHOWN errors and the first SHOWN warnings, in source order."""
    kept: list[Diagnostic] = []
    counts = {"error": 0, "warning": 0}
    for d in sorted(diagnostics, key=lambda d: (d.line, d.column)):
        counts[d.severity] += 1
        if counts[d.severity] <= SHOWN:
            kept.append(d)
    return kept


class Reporter:
    """The diagnostics of one source: both passes report here."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.diagnostics: list[Diagnostic] = []  # the first SHOWN of each severity, and some more
        self.counts = {"error": 0, "warning": 0}  # all reported, shown or not

    def report(self, statement: Statement, column: int, message: str, severity: str = "error") -> None:
        message = _clip_words(message)
        diagnostic = Diagnostic(self.path, statement.number, column, message, statement.text, severity)
        self.diagnostics.append(diagnostic)
        self.counts[severity] += 1
        if len(self.diagnostics) > 4 * SHOWN:  # forget what will not be shown: memory stays bounded
            self.diagnostics = first_shown(self.diagnostics)

    def warn(self, statement: Statement, column: int, message: str) -> None:
        self.report(statement, column, message, "warning")

    def error_count(self) -> int:
        return self.counts["error"]

    def finish(self) -> list[Diagnostic]:
        """What is shown, in source order: kept as `diagnostics` too."""
        self.diagnostics = first_shown(self.diagnostics)
        return self.diagnostics
