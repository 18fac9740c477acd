"""Which Pythons the translator writes bytecode for. Every translated run asks first
(lc3jit.session.why_not_translated), a run that loads its translations from the cache
included, so the answer lives here, where it costs nothing to import, rather than in the
emitter (a few milliseconds of start-up, issue 20). How those Pythons differ stays the
emitter's alone; it imports these.
"""

from __future__ import annotations

import sys

PY = sys.version_info[:2]
#: The Pythons whose bytecode the emitter writes, each tested in CI.
SPOKEN = ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15))


def speaks_this_python() -> bool:
    """Whether the running Python is one whose bytecode the emitter knows.

    On any other (a 3.16 one day) the code generated could crash the process, so the
    engines run on the interpreter instead.
    """
    return PY in SPOKEN


def unknown_python() -> str | None:
    """What to tell a user whose Python the emitter does not speak; None where it does."""
    if speaks_this_python():
        return None
    (first, *_, last) = (f"{major}.{minor}" for major, minor in SPOKEN)
    return f"the translator does not know the bytecode of Python {PY[0]}.{PY[1]} (it knows {first} to {last})"
