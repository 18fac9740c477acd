"""The stop protocol of the dispatcher's table: every entry is written through `keep`; a stop
requested (from any thread) swaps the whole table for the stopper; breakpoints (`set_stop`)
cut translations before them.

A part of the Dispatcher (runtime.dispatch), which mixes it in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from .interp import Interpreter, stop_here, stop_requested
from .machine import Machine

#: The entry of every PC once a stop is requested: whatever the loop calls next raises StopRequested.
STOPPED = (stop_requested, 1)

TYPE_CHECKING = False  # typing's, not imported by a run that loads its translations (issue 20)
if TYPE_CHECKING:
    from .dispatch import Translation


class StopProtocol:
    """Writing the table's entries so that a requested stop is never lost, and breakpoints."""

    machine: Machine
    interpreter: Interpreter
    table: list[tuple[Callable[[int], int], int]]
    blocks: dict[int, Translation]
    covering: dict[int, set[int]]
    noop_runs: dict[int, int]
    stops: set[int]  # PCs to stop before (breakpoints): see set_stop
    cut: set[int]  # starts of translations made while a stop stood
    _miss: Callable[[int], int]

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
        if "interpreter" in vars(self):  # else made when needed, with the stops (runtime.dispatch)
            self.interpreter.set_stop(pc, on)
        if on:
            self.stops.add(pc)
            starts = {pc, *self.covering.pop(pc, ()), *self._noops_over(pc)}  # type: ignore[attr-defined]
        else:
            self.stops.discard(pc)
            starts, self.cut = {pc, *self.cut}, set()
        order = [start for start in self.blocks if start in starts]  # a region's root first
        self._drop(starts)
        for start in order:
            if start not in self.blocks and start not in self.stops:
                self._settle(start)  # type: ignore[attr-defined]

    def _stop(self, on: bool) -> None:
        """A stop was requested: whatever the loop calls next raises StopRequested (an
        entry is read whole, function and size: the loop never calls a function with
        another's size). Or no longer: the translations back in the table, the
        breakpoints' steps too, and every other PC cold again."""
        self.table[:] = [STOPPED if on else (self._miss, 1)] * len(self.table)
        if not on:
            for translation in self.blocks.values():
                self._enter(translation)  # type: ignore[attr-defined]
            for pc in self.stops:
                self.table[pc] = (stop_here, 1)
