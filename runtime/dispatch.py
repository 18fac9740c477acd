"""The block cache and the dispatch loop: translated code and the interpreter, mixed.

A table indexed by PC holds, for every address, something to call that returns the
next PC: a translated block (many instructions), a translated region (a loop nest or a
subroutine, as many instructions as its budget allows), an interpreter step (one), or
`_cold`, which interprets one word and, when the PC turns out to be hot, asks the
translator (a callback lc3jit installs) for code from there; each with its size (0 for a
region, which reports its own count), so the loop counts instructions exactly and never
runs past --max-steps. Each entry is one (function, size) pair: one list of 65,536 rather
than two (half the fresh memory a run from the translation cache pays for), read
by the loop in one index and one unpacking, as fast as two indexes, and never a function
with another entry's size.

Translated code leaves early only through an exception, after writing its registers
back: a Stop (HALT, a fault, the end of input) or a Leave (LeaveBlock, a store into
translated code; a store that enabled interrupts or wrote the PSR; an access-control
violation, resuming in its handler). Blocks are runs of consecutive words, so
`at - start` tells how far into a block the run got; a region writes its count first.
While KBSR[14] is set, the loop looks for a keyboard interrupt before each block and
region (see `run`).

The Dispatcher also keeps the stop protocol (every entry is written through `keep`; a stop
requested swaps the whole table; breakpoints cut translations before them) and decides when
to translate at run time (within a share of the time run so far and the machine's
translation budget, with a queue of the PCs that got hot while the share was spent). Those
were mixins in modules of their own; one class in one module is what a run from the
translation cache imports (a module and two classes more cost it 0.15 ms), and
why this module is near 500 lines.
"""

from __future__ import annotations

import time

from .code_helpers import CodeHelpers, LoadedKey
from .errors import Leave, Stop, StopRequested
from .interp import Interpreter, stop_here, stop_requested
from .isa import MEMORY_WORDS, WORD_MASK
from .lean import cached_property, deque
from .machine import WATCH_TRANSLATED, Machine, spans_of
from .outcome import UNLIMITED, Outcome
from .record import Record

#: Visits to a PC with no code before it is translated; more when translated code already
#: covers its word (the PC is inside a block or region entered elsewhere, which will
#: most often run it once control gets back there).
HOT_VISITS = 2
COVERED_HOT_VISITS = 32
#: Added to the PC a region returns when it leaves the instruction there to the interpreter:
#: a PC past the memory's end is never an address, so it cannot be mistaken for one.
INTERPRET_AT = MEMORY_WORDS
#: While keyboard interrupts are enabled, the most instructions a region runs per call.
INTERRUPT_SLICE = 1000
#: Otherwise: a region comes back this often (a few milliseconds), so that a requested
#: stop (a signal, a lost display) is taken soon, at an exact instruction.
RUN_SLICE = 1 << 20
#: The entry of every PC once a stop is requested: whatever the loop calls next raises StopRequested.
STOPPED = (stop_requested, 1)
#: How often a block may be invalidated by stores before its words stay interpreted.
RETRANSLATE_LIMIT = 2
#: Translating at run time takes at most this share of the time since the run began,
#: after a first allowance (seconds): see `Dispatcher.translate`.
TRANSLATION_SHARE = 0.2
TRANSLATION_ALLOWANCE = 0.05
#: While PCs wait for translation's share of the time, how many region calls apart the
#: dispatcher looks whether the share allows again (a clock read costs as much as a call).
RETRY_EVERY = 64


class Translation(Record, fields=("start", "length", "function", "words"), defaults={"words": ()}):
    """Translated code entered at `start`; called, it returns the next PC.

    A block (`length` > 0) runs exactly `length` consecutive words: `function(start)`.
    A region (`length` 0) runs what its budget allows: `function(budget)`, and leaves
    the count in N[0]. `words` are the words it was translated from (for a block, the
    `length` words from `start`).
    """

    start: int
    length: int
    function: Callable[[int], int]
    words: tuple[int, ...]

    def covered(self) -> Iterable[int]:
        return self.words or ((self.start + i) & WORD_MASK for i in range(self.length))


TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence
    from typing import Protocol

    class Translator(Protocol):
        """The translator's side, which lc3jit installs (the runtime never imports it)."""

        def __call__(self, dispatcher: Dispatcher, pc: int) -> Sequence[Translation]:
            """Translations to install for a PC grown hot, the first entered at pc; none to
            interpret it."""

        def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
            """Translated code left through the JMP or JSRR at site for target (a sample, see
            Dispatcher.left_through): a translator may learn the target, or ignore it."""


class Dispatcher(CodeHelpers):
    """Runs a machine through a table of translated blocks and interpreter steps.

    Its parts: the table and its entries, the stop protocol and breakpoints (from `keep`),
    when to translate (from `_settle`), the loop (`run`); the helpers translated code
    calls are runtime.code_helpers'.
    """

    name = "blocks"

    def __init__(self, machine: Machine, translator: Translator | None = None, profile: bool = False) -> None:
        self.machine = machine
        self.translator = translator
        self._miss: Callable[[int], int] = self._cold
        #: By PC: what to call and the instructions it runs (see the module's docstring).
        self.table: list[tuple[Callable[[int], int], int]] = [(self._miss, 1)] * len(machine.mem)
        self.visits: dict[int, int] = {}  # PC -> times reached with no code for it
        self.runs: dict[int, int] | None = {} if profile else None  # start -> times run
        self.blocks: dict[int, Translation] = {}  # by start: the translations installed
        # word -> starts of blocks that cover it: one set shared by every word of a region,
        # replaced, never changed in place (a set a word was 2 KB a word: 106 of the 130 MB a
        # 48k-word program's translations kept)
        self.covering: dict[int, frozenset[int]] = {}
        self.invalidations: dict[int, int] = {}  # start -> times its block was dropped
        self.started = time.perf_counter()  # when the run began (reset by `run`)
        self.translating = 0.0  # seconds spent translating since then
        self.noop_runs: dict[int, int] = {}  # start -> end of a run of no-op words run as one entry
        self.stops: set[int] = set()  # PCs to stop before (breakpoints): see set_stop
        self.cut: set[int] = set()  # starts of translations made while a stop stood
        self.region_count = [0]  # instructions the last region ran
        self.exit_counts: list[int] = []  # by address: regions' exits through that JMP or JSRR
        self.deferred: deque[int] = deque()  # PCs interpreted while translating waits for its share
        self.retry_countdown = RETRY_EVERY
        self.held: Stop | Leave | None = None  # what READ held back for REREAD
        self.load_from_code = self._load_from_code()
        self.globals = self._block_globals()
        machine.code_write_hooks.append(self._code_written)
        machine.stop_hooks.append(self._stop)

    @cached_property
    def interpreter(self) -> Interpreter:
        """The interpreter of words with no code, made when first needed: a run whose code all
        came from the translation cache may never need it, nor its 65,536 steps (a quarter
        of a millisecond of a cache hit). Made while a stop is requested, it stops
        at once, as every Interpreter does (its steps are the stopper); the breakpoints set
        before it was made (`lc3jit run` stops at a program's ends) hold for it."""
        interpreter = Interpreter(self.machine)
        for pc in self.stops:
            interpreter.set_stop(pc, True)
        return interpreter

    def adopt(self, interpreter: Interpreter) -> bool:
        """Interpret the words with no code on `interpreter`, one following the same machine
        (a tiered start's, with the steps it decoded), unless this dispatcher made its own
        already; whether it did. A tiered switch then keeps one table of 65,536 steps, not
        two, and what ran before it is not decoded again."""
        if "interpreter" in vars(self):
            return False
        self.interpreter = interpreter
        return True

    def install(self, translation: Translation) -> None:
        self.install_entries([translation])

    def _enter(self, translation: Translation, unbound: bool | None = None) -> None:
        """The table's entry at the translation's start: its function, through `_binding`
        while its code names a big table not built yet (runtime.code_helpers; `unbound`
        says whether it does, when the caller asked already)."""
        function = translation.function if self.runs is None else self._counted(translation)
        if self.tables_unbound(translation.function) if unbound is None else unbound:
            function = self._binding(translation, function)
        self.keep(translation.start, function, translation.length)

    def _binding(self, translation: Translation, function: Callable[[int], int]) -> Callable[[int], int]:
        """An entry that binds the tables the translation's code names when the loop first
        calls it, then gives its place to the code, and runs it."""

        def binding(argument: int) -> int:
            self.bind_tables(translation.function)
            self.keep(translation.start, function, translation.length)
            return function(argument)

        return binding

    def install_entries(self, translations: Sequence[Translation]) -> None:
        """Install translations that cover the same words (the entries of one region):
        each word is marked once, however many entries there are; and when they are one
        code in one namespace (a region's, each with its own default entry), whether it
        names a table not built yet is asked once (an OS's 55 entries from the cache: 0.4
        M machine instructions)."""
        first = translations[0].function
        code, namespace = getattr(first, "__code__", None), getattr(first, "__globals__", None)
        one_code = code is not None and all(
            getattr(f, "__code__", None) is code and getattr(f, "__globals__", None) is namespace
            for f in (t.function for t in translations)
        )
        unbound = self.tables_unbound(first) if one_code else None
        for translation in translations:
            start = translation.start
            if self.stops:
                self.cut.add(start)
            self.blocks[start] = translation
            self._enter(translation, unbound)
        starts = frozenset(translation.start for translation in translations)
        covering, words = self.covering, list(translations[0].covered())
        for word in words:
            covered_by = covering.get(word)
            covering[word] = starts if covered_by is None else covered_by | starts
        for start, end in spans_of(words):
            self.machine.mark(start, end, WATCH_TRANSLATED)

    def _counted(self, translation: Translation) -> Callable[[int], int]:
        """The block's function, counting its runs in self.runs (for `lc3jit dump --run`)."""
        runs, start, function = self.runs, translation.start, translation.function
        assert runs is not None

        def counted(pc: int) -> int:
            runs[start] = runs.get(start, 0) + 1
            return function(pc)

        return counted

    def _cold(self, pc: int) -> int:
        """A PC with no code yet: interpret its word; once it is hot, translate from it.

        Waiting for a second visit keeps one-off paths (start-up code, a wild jump
        through data) from paying for a translation they would never use. The words
        after a PC just translated are still cold when the interpreter reaches them on
        this pass: they wait longer, or every word of a loop would get a region of its own.

        A no-op word (empty memory, text: a program that forgot its HALT) is never
        translated: the run of them from here, and from the next word, which runs now,
        become entries of their own that count the run and go past it.
        """
        if (end := self.interpreter.noop_run_end(pc)) > pc:
            following = pc + 1
            self._install_noops(pc, end)
            if end > following:
                self._install_noops(following, end)
            return following & WORD_MASK
        visits = self.visits[pc] = self.visits.get(pc, 0) + 1
        if visits >= (COVERED_HOT_VISITS if pc in self.covering else HOT_VISITS):
            self._settle(pc)
        return self.interpreter.step_at(pc)(pc)

    def _install_noops(self, start: int, end: int) -> None:
        """An entry that runs the no-op words start..end-1 (see Machine.noop_run_end)."""
        following = end & WORD_MASK

        def noops(_: int) -> int:
            return following

        self.noop_runs[start] = end
        self.keep(start, noops, end - start)
        self.machine.mark(start, end, WATCH_TRANSLATED)

    def _code_written(self, address: int, at: int) -> None:
        """Drop every block, run of no-ops and interpreter step that covers a word just written."""
        for start in self._drop({*self.covering.pop(address, ()), *self._noops_over(address)}):
            self.invalidations[start] = self.invalidations.get(start, 0) + 1

    def _noops_over(self, address: int) -> list[int]:
        """The starts of the runs of no-ops that cover address: few, one or two per 4,096
        words a runaway went through."""
        return [start for start, end in self.noop_runs.items() if start <= address < end]

    # The stop protocol: every entry is written through `keep`; a stop requested (from any
    # thread) swaps the whole table for the stopper; breakpoints (`set_stop`) cut translations.

    def keep(self, start: int, entry: Callable[[int], int], size: int) -> None:
        """The table's entry at start: the one way the running thread writes entries.

        As with Interpreter.keep: a stop requested from another thread while this thread
        translates swaps the whole table for the stopper (`_stop`); an entry written after
        that swap would run on, a region for ever. The entry goes in first, then the stopper
        over it if a stop was requested meanwhile.
        """
        self.table[start] = (entry, size)
        if self.machine.ending is not None:
            self.table[start] = STOPPED

    def _drop(self, starts: Collection[int]) -> list[int]:
        """Send the PCs back to the cold path (a stop stays); the starts of the translations dropped."""
        dropped = [start for start in starts if self.blocks.pop(start, None) is not None]
        for start in starts:
            self.noop_runs.pop(start, None)
            self.keep(start, stop_here if start in self.stops else self._miss, 1)
        return dropped

    def set_stop(self, pc: int, on: bool) -> None:
        """Stop before the instruction at pc (a breakpoint), or no longer.

        Like a store into code, a new stop drops the translations that cover pc; they are
        translated again at once, from the same starts, and the translator (which reads
        `stops`) ends blocks and regions before pc, so only a jump to pc comes back here,
        where the table's entry stops. The dispatch loop is unchanged: code that does not
        reach pc runs as fast as before. Removing a stop translates again, whole, what was
        translated while stops stood.
        """
        if "interpreter" in vars(self):  # else made when needed, with the stops
            self.interpreter.set_stop(pc, on)
        if on:
            self.stops.add(pc)
            starts = {pc, *self.covering.pop(pc, ()), *self._noops_over(pc)}
        else:
            self.stops.discard(pc)
            starts, self.cut = {pc, *self.cut}, set()
        order = [start for start in self.blocks if start in starts]  # a region's root first
        self._drop(starts)
        for start in order:
            if start not in self.blocks and start not in self.stops:
                self._settle(start)

    def _stop(self, on: bool) -> None:
        """A stop was requested: whatever the loop calls next raises StopRequested (an
        entry is read whole, function and size: the loop never calls a function with
        another's size). Or no longer: the translations back in the table, the
        breakpoints' steps too, and every other PC cold again."""
        self.table[:] = [STOPPED if on else (self._miss, 1)] * len(self.table)
        if not on:
            for translation in self.blocks.values():
                self._enter(translation)
            for pc in self.stops:
                self.table[pc] = (stop_here, 1)

    # Translating hot PCs, at the pace the share of the time and the budget allow.

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

    def run(self, max_steps: int | None = None) -> Outcome:
        """Dispatch until a stop or max_steps instructions, counted exactly.

        While KBSR[14] is set, a keyboard interrupt is looked for before every block
        and region, and regions get at most INTERRUPT_SLICE instructions a call, so a
        key typed on a terminal is taken while a region loops. That is exact: with
        scripted keys, the interrupt condition can only become true where translated
        code returns here (a store that sets KBSR[14] or writes the PSR leaves it, RTI
        ends it), so every engine takes an interrupt at the same instruction.
        """
        m, table, region_count = self.machine, self.table, self.region_count
        deferred = self.deferred
        limit = UNLIMITED if max_steps is None else max_steps
        pc = start = m.pc
        done = size = 0
        slice_ = INTERRUPT_SLICE if m.kbsr_ie else RUN_SLICE
        self.bind_os_calls()
        self.started, self.translating = time.perf_counter(), 0.0
        try:
            while True:
                try:
                    while True:
                        start = pc
                        if slice_ == INTERRUPT_SLICE and done < limit and m.interrupt_pending():
                            size = 1  # an interrupt refused (no handler) ran nothing
                            pc = start = m.take_interrupt(pc)
                        function, size = table[pc]
                        if size:  # a block or an interpreter step
                            if done + size > limit:
                                break
                            pc = function(pc)
                            done += size
                        else:  # a region: runs what the budget allows, says how much
                            budget = limit - done
                            pc = function(budget if budget < slice_ else slice_)
                            done += region_count[0]
                            if pc > WORD_MASK:  # and leaves one instruction to the interpreter
                                pc -= INTERPRET_AT
                                if done == limit:
                                    break
                                start, size = pc, 1
                                pc = self.interpreter.step_at(pc)(pc)
                                done += 1
                            elif not region_count[0]:
                                break
                            if deferred:
                                self._retry_deferred()
                    break
                except Leave as leave:
                    if isinstance(leave, LoadedKey):
                        leave.finish(m)
                    done += self._executed(start, size, leave.at, True)
                    pc = leave.resume_pc
                    slice_ = INTERRUPT_SLICE if m.kbsr_ie else RUN_SLICE
                    self.bind_os_calls()
        except Stop as stop:
            done += self._executed(start, size, stop.at, stop.completed)
            pc = stop.resume_pc
            return Outcome.from_stop(stop)
        except StopRequested:  # before the entry at start ran anything
            pc = start
            assert m.ending is not None
            return m.ending
        finally:
            m.pc = pc
            m.icount += done
        # Less budget left than the next block needs: finish word by word.
        return self.interpreter.run(limit - done)

    def _executed(self, start: int, size: int, at: int, completed: bool) -> int:
        """Instructions run by the entry at start (of `size`) that stopped at `at`.

        A block covers consecutive words, so `at - start` counts them; a region wrote
        its count into N[0] before calling the helper that stopped it.
        """
        before = ((at - start) & WORD_MASK) if size else self.region_count[0]
        return before + completed
