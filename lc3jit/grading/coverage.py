"""Which words of the program ran in a test, on every engine, at translated speed.

The interpreter marks a word in the write map (WATCH_DECODED) the first time it decodes
it, so whatever it ran is known for nothing. Translated code marks nothing; so the
translator of an engine built for coverage (`covering`) translates only words already
marked: it sees every word of the loaded images not run yet as a stop, before which
blocks and regions end. When the run reaches such a word, it leaves translated code for
the dispatcher, whose interpreter runs it (and marks it); once that PC is hot it is
translated from there like any other. Translated code therefore never runs a word not
marked, and the marks are exactly the words that ran, as with the interpreter alone
(tests/test_coverage.py compares them on real and random programs, the tiered switch at
random points). A run of no-op words entered by the dispatcher is run as one step
without marking it (the interpreter marks all of such a run when it enters it).

What this costs: a test that stays on the interpreter (the pytest plugin's tests start
tiered, and most never reach the switch) pays nothing; past the switch, code that ran
runs translated, cut before the words that had not run yet when it was translated: a
trip through the dispatcher where the flow reaches them, and one translation more.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress
from typing import TYPE_CHECKING

from lc3jit.session import UntranslatableError, why_not_translated
from lc3jit_runtime.dispatch import Dispatcher, Translation
from lc3jit_runtime.machine import IO_BASE, WATCH_DECODED, Machine

if TYPE_CHECKING:
    from lc3jit_runtime.dispatch import Translator


#: bytes.translate's table: a write map's flags to 1 where the interpreter marked the word.
_DECODED = bytes(int(bool(flags & WATCH_DECODED)) for flags in range(256))


def executed(machine: Machine) -> set[int]:
    """The addresses below xFE00 the machine's engines ran (the interpreter's marks), found
    at C speed (a failing test of a class asks, and the map is 65,024 words)."""
    marks = bytes(machine.watch[:IO_BASE]).translate(_DECODED)
    return set(compress(range(IO_BASE), marks))


def covering(machine: Machine, engine: str, words: Iterable[int]) -> Dispatcher:
    """The translated engine `engine` for a run with coverage: its translator, built as
    its engine builds it (labels as leaders) but translating nothing ahead, translates
    only the words run so far of `words` (those of the loaded images: what a source line
    can name)."""
    if reason := why_not_translated():
        raise UntranslatableError(reason)
    from lc3jit.translator.regions import RegionTranslator
    from lc3jit.translator.translate import BlockTranslator

    kind = RegionTranslator if engine == "regions" else BlockTranslator
    inner = kind(machine.edition, machine.labels, machine.access_control)
    return Dispatcher(machine, CoveringTranslator(inner, words, machine))


class CoveringTranslator:
    """A translator that sees the words not run yet as stops (see the module's docstring)."""

    def __init__(self, inner: Translator, words: Iterable[int], machine: Machine) -> None:
        self.inner = inner
        self.watch = machine.watch
        self.unrun = {a for a in words if a < IO_BASE}

    def __call__(self, dispatcher: Dispatcher, pc: int) -> Sequence[Translation]:
        watch = self.watch
        self.unrun = unrun = {a for a in self.unrun if not watch[a] & WATCH_DECODED}
        if pc in unrun:
            return []  # not reached by the translator's callers: interpreted for good
        stops = dispatcher.stops
        dispatcher.stops = stops | unrun  # only while translating: the dispatcher's own stay
        try:
            return self.inner(dispatcher, pc)
        finally:
            dispatcher.stops = stops

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        self.inner.left_through(dispatcher, site, target)
