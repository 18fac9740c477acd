"""When the dispatcher translates at run time: within a share of the time run so far and the
machine's translation budget; and the queue of PCs that got hot while the share was spent,
translated once it allows again.

A part of the Dispatcher (runtime.dispatch), which mixes it in.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from .interp import Interpreter
from .machine import Machine

TYPE_CHECKING = False  # typing's, not imported by a run that loads its translations (issue 20)
if TYPE_CHECKING:
    from .dispatch import Translator

#: How often a block may be invalidated by stores before its words stay interpreted.
RETRANSLATE_LIMIT = 2
#: Translating at run time takes at most this share of the time since the run began,
#: after a first allowance (seconds): see `TranslationPacing.translate`.
TRANSLATION_SHARE = 0.2
TRANSLATION_ALLOWANCE = 0.05
#: While PCs wait for translation's share of the time, how many region calls apart the
#: dispatcher looks whether the share allows again (a clock read costs as much as a call).
RETRY_EVERY = 64


class TranslationPacing:
    """Translating hot PCs, at the pace the share and the budget allow. Entries go into the
    table through `keep` (the stop protocol's, runtime.dispatch) and `install` (the Dispatcher's)."""

    machine: Machine
    translator: Translator | None
    interpreter: Interpreter
    table: list[Callable[[int], int]]
    visits: dict[int, int]
    covering: dict[int, frozenset[int]]
    invalidations: dict[int, int]
    stops: set[int]
    started: float  # when the run began (reset by `run`)
    translating: float  # seconds spent translating since then
    deferred: deque[int]  # PCs interpreted while translating waits for its share
    retry_countdown: int
    _miss: Callable[[int], int]

    def _settle(self, pc: int) -> None:
        """Give pc its lasting entry: a translation, or the interpreter for good; or, when
        translating had to wait for its share of the time, the interpreter until the share
        allows again (see `_retry_deferred`)."""
        if not self.translate(pc):
            self.keep(pc, self.interpreter.step_at(pc), 1)
            self.covering[pc] = self.covering.get(pc, frozenset()) | {pc}
            waits = self.translator is not None and self.machine.translation_budget > 0
            if waits and not self.may_translate():
                self.deferred.append(pc)

    def _retry_deferred(self) -> None:
        """Called as a region comes back while PCs wait (see `_settle`): every RETRY_EVERY
        times, while translating is within its share again, the PCs that waited longest
        are translated now, in the order they got hot; one that a translation made since
        covers goes back to the cold path instead (it is inside code that will most
        often run it), and one dropped, translated or made a breakpoint meanwhile is let go.

        A big program's code gets hot all at once (its second pass), far faster than 20% of
        the time can pay for: without this, all but the first few regions stayed
        interpreted to the end (a 16k-word program ran tiered at 0.68x the interpreter).
        They are translated from here, not sent back to the cold path to get hot again:
        that sent a 48k-word program's 400,000 waiting PCs round the cold path, each
        refused again, and ran it at 0.88x the interpreter.
        """
        self.retry_countdown -= 1
        if self.retry_countdown > 0:
            return
        self.retry_countdown = RETRY_EVERY
        step_at, table, covering = self.interpreter.step_at, self.table, self.covering
        deferred = self.deferred
        while deferred and self.machine.ending is None and self.may_translate():
            pc = deferred.popleft()
            if pc in self.stops or table[pc][0] is not step_at(pc):
                continue
            if (covered_by := covering.get(pc)) is not None:
                if rest := covered_by - {pc}:
                    covering[pc] = rest
                else:
                    del covering[pc]
            if pc in covering:
                self.keep(pc, self._miss, 1)
                self.visits.pop(pc, None)
            elif not self.translate(pc):
                covering[pc] = covering.get(pc, frozenset()) | {pc}  # the interpreter for good (`_settle`)

    def may_translate(self) -> bool:
        """Is there time to translate now, and budget left (see `translate`)?"""
        elapsed = time.perf_counter() - self.started
        within = self.translating <= TRANSLATION_ALLOWANCE + TRANSLATION_SHARE * elapsed
        return within and self.machine.translation_budget > 0

    def translate(self, pc: int) -> bool:
        """Translate from pc now and install the code, if the translator gives any (a PC
        grown hot, or a region to translate again with what the run taught the translator).

        Translation must pay for itself: a program that keeps landing on fresh words
        (running through data, a wild jump) would spend its time translating code that
        runs once. So translating at run time may take at most TRANSLATION_SHARE of the
        time run so far, after TRANSLATION_ALLOWANCE; past that, new PCs are interpreted.
        What is translated is taken from the machine's translation budget (a translation
        begun within it is finished): once spent, new PCs are interpreted for good.
        """
        if self.translator is None or not self.may_translate():
            return False
        if self.invalidations.get(pc, 0) >= RETRANSLATE_LIMIT:  # code that rewrites itself
            return False
        began = time.perf_counter()
        translations = self.translator(self, pc)  # type: ignore[arg-type]
        self.translating += time.perf_counter() - began
        if translations:  # the entries of a region cover the same words: counted once
            covered = tuple(translations[0].covered())
            self.machine.translation_budget -= len(covered)
            # Their visits start again: the interpreter is about to run the words after pc
            # on this pass, each as hot as pc was, and would translate a region from each.
            for word in covered:
                self.visits.pop(word, None)
        for translation in translations:
            self.install(translation)
        return bool(translations)
