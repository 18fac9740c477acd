"""What a student probably meant: a label or instruction a few edits away ("did you mean
LOOP?" for LOPP), and the decimal a bare number is read as (`.ORIG 3000` is #3000)."""

from __future__ import annotations

import functools
import re

from lc3jit.toolchain.asm.diagnostics import Reporter
from lc3jit.toolchain.asm.spellings import SPELLINGS, is_keyword
from lc3jit.toolchain.asm.syntax import Statement, Token
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.isa import WORD_MASK

#: How many edits away a known name may be for "did you mean" (one for short names).
NEAR_EDITS = 2
_BARE_DECIMAL = re.compile(r"[-+]?[0-9]+")


def edits(a: str, b: str, limit: int) -> int:
    """Levenshtein distance ignoring case (insertions, deletions, substitutions), or limit + 1
    when it is more than limit: only the band of cells within limit of the diagonal is
    computed, so a 5,000-letter name costs 5,000 times the band, not 5,000 times the other."""
    a, b, beyond = a.upper(), b.upper(), limit + 1
    if abs(len(a) - len(b)) > limit:
        return beyond
    previous = {j: j for j in range(min(len(b), limit) + 1)}
    for i, x in enumerate(a, 1):
        current = {0: i} if i <= limit else {}
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            current[j] = min(
                previous.get(j, beyond) + 1,
                current.get(j - 1, beyond) + 1,
                previous.get(j - 1, beyond) + (x != b[j - 1]),
            )
        if min(current.values()) > limit:
            return beyond
        previous = current
    return min(previous.get(len(b), beyond), beyond)


def nearest(name: str, known: list[str], reach: int = NEAR_EDITS) -> str | None:
    """The one known name closest to name within NEAR_EDITS (one edit for names of up to
    three letters, where two would reach almost anything); None if none or a tie."""
    reach, upper = 1 if len(name) <= 3 else reach, name.upper()
    scored = sorted(
        (distance, other)
        for other in known
        if abs(len(other) - len(name)) <= reach  # farther for certain: not worth a call
        and other.upper() != upper
        and (distance := edits(name, other, reach)) <= reach
    )
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    return scored[0][1]


@functools.lru_cache(maxsize=1024)  # a source may define or redefine the same names again and again
def mnemonic_hint(name: str) -> str | None:
    """For a label with no instruction after it: the instruction it is one edit from (GETS
    for GETC), as a misspelt instruction is taken for a label. One edit only: a label on a
    line of its own is common, and must not draw a warning for being short."""
    if is_keyword(name):
        return None
    near = nearest(name, list(SPELLINGS), 1)  # its keys are upper-case
    return f"{name.upper()} is not an instruction: did you mean {near}?" if near else None


def bare_decimal(reporter: Reporter, statement: Statement, token: Token) -> None:
    """A number with neither # nor x is read as decimal, as LC3Tools reads it; lc3as and
    the textbook want #, and a student who wrote `.ORIG 3000` meant x3000: say so."""
    if _BARE_DECIMAL.fullmatch(token.text):
        value = parse_number(token.text) or 0  # not int(): 5,000 digits would be a ValueError
        reporter.warn(
            statement,
            token.column,
            f"{token.text} has no # or x: read as decimal #{value} (x{value & WORD_MASK:04X});"
            f" write #{value} for decimal or x{token.text.lstrip('+')} for hex",
        )
