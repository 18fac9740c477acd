"""Watching a program run as a grader wants to (lc3jit.grading.observe has the watchers):
the calls of its subroutines, its memory reads and writes."""

from __future__ import annotations

from collections.abc import Callable

from lc3jit.grading.observe import Accesses, Call, MemoryWatcher, Subroutine, mark_all
from lc3jit.simulator.base import SimulatorBase
from lc3jit.simulator.views import Address
from lc3jit_runtime.isa import decode


class Observing(SimulatorBase):
    """watch_calls, watch_memory, watch_writes."""

    def watch_calls(self, *subroutines: Address) -> list[Call]:
        """Record every call of these subroutines (default: the declared ones and every label
        a JSR names) from now on in `calls`: arguments by the declared convention, caller,
        depth, value returned. Runs at translated speed, stopping only at their entries
        and the return points of the calls under way."""
        addresses = [self.address(s) for s in subroutines] or [*self.subroutines, *self._jsr_targets()]
        watched = self._watched or {}
        for address in addresses:
            name = self.places.labels.get(address, f"x{address:04X}")
            watched[address] = self.subroutines.get(address) or Subroutine(name, address, result=None)
        self._watched = watched
        self._runner = None
        return self.calls

    def _jsr_targets(self) -> set[int]:
        """Labels that a JSR of the program's names (a subroutine's entry, as written)."""
        labels, targets = set(self.symbols.values()), set()
        for image in self.images:
            for offset, word in enumerate(image.words):
                if word >> 11 == 0b01001:  # JSR with a PC offset
                    target = decode(word, image.origin + offset).target
                    if target in labels:
                        targets.add(target)
        return targets

    def watch_memory(self) -> Accesses:
        """Record the program's memory reads and writes from now on (`accesses`): runs on
        the interpreter, one instruction at a time (reads cannot be seen otherwise)."""
        if self._memory is None:
            self._memory = MemoryWatcher(self.machine)
            self._memory.watch_writes()
            self._runner = None
        return self._memory.accesses

    def watch_writes(self, observer: Callable[[int, int, int, bool], None]) -> None:
        """Call observer(address, value, by_pc, pushed) after every store below xFE00, at
        translated speed (each store takes the write map's slow path)."""
        mark_all(self.machine, observer)

    @property
    def accesses(self) -> Accesses:
        if self._memory is None:
            raise ValueError("memory is not watched: call watch_memory() (or strict=True) first")
        return self._memory.accesses
