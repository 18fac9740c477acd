"""The translator: LC-3 machine code to Python bytecode, and the engines that run it.

Its parts, as layers (each imports only those below it; runtime/ is below them all):

    saved, cache, compile     translations kept between runs
    regions/                  many blocks in one code object (see its own picture)
    translate                 the block engine: the dispatcher's callback
    codegen/                  a block to a code object: the compiler's parts, one emitter
                              per form, dataflow and bounds, the emitter (the one place
                              that knows how Python versions differ), the assembler and
                              `bytecode` as the assembler when chosen
    blocks, jump_tables       which words are code, where blocks begin and end

Generated code names only what runtime.contract declares, bound by the dispatcher.
docs/internals.md follows one block from its words to its bytecode.

Which Pythons it writes bytecode for is said here, below them all: every translated run
asks first (lc3jit.session.why_not_translated), a run that loads its translations from the
cache included, and this package is imported anyway; the emitter, which knows how those
Pythons differ, would cost such a run a few milliseconds, a module of its own
a tenth of one.
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
