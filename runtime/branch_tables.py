"""The tables translated code's branches index with the value that set the codes.

Here, not in isa, so that a run that never translates does not build them.
"""

from __future__ import annotations

from . import contract
from .isa import SIGN_BIT

#: POSITIVE, NEGATIVE and ZERO, by their names in runtime.contract: tables of bools indexed
#: by the value. CPython specialises indexing a tuple, and one index costs less than the
#: two comparisons 0 < v < x8000 of BRp. Each table is periodic over 2^17 entries, so that
#: it is right for a sum not wrapped to 16 bits yet: any v from 0 to 2^17 - 1 gives the
#: codes of v mod 2^16. A sum of two words needs no wrap before its branch. (Negative
#: indices would be right too, but CPython's specialised indexing gives up on them.)
#: Built when the first dispatcher needs them (`code_tables`), not when this module is
#: imported: the API and the grader import it on every run, translated or not (1-3 ms).
_CODE_TABLES: dict[str, tuple[bool, ...]] = {}


def code_tables() -> dict[str, tuple[bool, ...]]:
    """POSITIVE, NEGATIVE and ZERO (see above), by their names in runtime.contract."""
    if not _CODE_TABLES:
        _CODE_TABLES[contract.POSITIVE] = ((False,) + (True,) * (SIGN_BIT - 1) + (False,) * SIGN_BIT) * 2
        _CODE_TABLES[contract.NEGATIVE] = ((False,) * SIGN_BIT + (True,) * SIGN_BIT) * 2
        _CODE_TABLES[contract.ZERO] = ((True,) + (False,) * (2 * SIGN_BIT - 1)) * 2
    return _CODE_TABLES


#: The values the tables above are indexed with.
CODE_TABLE_RANGE = (0, 4 * SIGN_BIT - 1)
