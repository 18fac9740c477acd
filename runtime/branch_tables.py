"""The tables translated code's branches index with the value that set the codes.

Here, not in isa, so that a run that never translates does not build them; and each is
built only when code that names it is installed (`Dispatcher.install_entries`): a table
costs about 1.3 ms of CPU to build (a megabyte of pointers, page faults included), where
a whole short run from the translation cache should add at most 3 (issue 20), and most
short programs never branch on a sum not wrapped yet.
"""

from __future__ import annotations

from collections.abc import Callable

from . import contract
from .isa import SIGN_BIT

#: POSITIVE, NEGATIVE and ZERO, by their names in runtime.contract: how to make each table
#: of bools indexed by the value. CPython specialises indexing a tuple, and one index costs
#: less than the two comparisons 0 < v < x8000 of BRp. Each table is periodic over 2^17
#: entries, so that it is right for a sum not wrapped to 16 bits yet: any v from 0 to
#: 2^17 - 1 gives the codes of v mod 2^16. A sum of two words needs no wrap before its
#: branch. (Negative indices would be right too, but CPython's specialised indexing gives
#: up on them.)
_MAKERS: dict[str, Callable[[], tuple[bool, ...]]] = {
    contract.POSITIVE: lambda: ((False,) + (True,) * (SIGN_BIT - 1) + (False,) * SIGN_BIT) * 2,
    contract.NEGATIVE: lambda: ((False,) * SIGN_BIT + (True,) * SIGN_BIT) * 2,
    contract.ZERO: lambda: ((True,) + (False,) * (2 * SIGN_BIT - 1)) * 2,
}
NAMES = frozenset(_MAKERS)
#: What a table's name is bound to until code that names it is installed: indexing it
#: fails loudly (IndexError), never a silent wrong branch.
UNBUILT: tuple[bool, ...] = ()
_BUILT: dict[str, tuple[bool, ...]] = {}  # once a process: every dispatcher shares them


def code_table(name: str) -> tuple[bool, ...]:
    """The table named `name` in runtime.contract (see _MAKERS)."""
    if (table := _BUILT.get(name)) is None:
        table = _BUILT[name] = _MAKERS[name]()
    return table


#: The values the tables above are indexed with.
CODE_TABLE_RANGE = (0, 4 * SIGN_BIT - 1)
