"""The debugger of `lc3jit debug` as the Debug Adapter drives it, and the console it gives
the program: a display that is the debug console, a keyboard that is what the user types there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, BinaryIO

from lc3jit.api import Simulator
from lc3jit.debugging.debugger import ENDED, Debugger
from lc3jit.editors.dap_wire import Channel
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

if TYPE_CHECKING:
    from lc3jit.editors.dap import Adapter
    from lc3jit.session import Runnable


class EventDisplay:
    """The display of the program: each write becomes an `output` event on the debug console."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    def write(self, data: bytes) -> int:
        self.channel.event("output", {"category": "stdout", "output": data.decode("latin-1")})
        return len(data)

    def flush(self) -> None:
        """Nothing is held."""

    def isatty(self) -> bool:
        return False


class ConsoleKeyboard(Console):
    """Keys typed at the debug console, through a pipe: a KBSR poll finds none waiting
    rather than waiting for one, as at a terminal, and a GETC waits (pause still stops it)."""

    def __init__(self, keyboard: BinaryIO, display: EventDisplay) -> None:
        super().__init__(keyboard, display, interactive=True)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def raw_mode(self) -> Iterator[None]:
        """A pipe has no terminal modes to set."""
        try:
            yield
        finally:
            self.flush()


class AdapterDebugger(Debugger):
    """The debugger of `lc3jit debug`, reporting to the adapter instead of printing, and
    taking a breakpoint's condition and hit count into account where the engine stops."""

    def __init__(self, make: Callable[[], Simulator], adapter: Adapter, max_steps: int | None) -> None:
        self.adapter = adapter
        self.outcome: Outcome | None = None
        self.target: int | None = None  # where run_to is going: never skipped as a false condition
        super().__init__(make, _Discard(), max_steps)

    def say(self, text: str = "") -> None:
        self.adapter.note(text)

    def show_pc(self) -> None:
        """The editor shows where the program is."""

    def report(self, outcome: Outcome) -> None:
        for change in self.pushed:
            self.adapter.note(change[:1].upper() + change[1:])
        self.pushed = []
        self.outcome = outcome
        if outcome.ending in ENDED or (outcome.ending is Ending.STEP_LIMIT and outcome is not STEP_LIMIT):
            self.ended = outcome

    def run_to(self, target: int, *rest: int | None) -> Outcome:
        self.target = target
        try:
            return super().run_to(target, *rest)
        finally:
            self.target = None

    def skips(self, outcome: Outcome) -> bool:
        """Does the run go on past this stop of the engine: a breakpoint whose condition is
        false or whose hit count is not reached yet, or a logpoint (not where run_to goes)?"""
        pc = self.sim.pc
        if outcome.ending is not Ending.BREAKPOINT or pc == self.target:
            return False
        return not self.adapter.breakpoint_stops(pc)

    def stopping(self, outcome: Outcome) -> bool:
        return not self.skips(outcome) and super().stopping(outcome)

    def advance(self, runnable: Runnable, stop_at: int | None) -> Outcome:
        """Run as the debugger does, going on past a moment's stop to apply breakpoints set
        during the run."""
        while True:
            outcome = super().advance(runnable, stop_at)
            if outcome.ending is not Ending.RECONFIGURE:
                return outcome
            self.sim.machine.take_ending()
            self.adapter.apply_pending()
            if runnable in (self.sim.engine, self.watcher):
                runnable = self.runner  # a watch on a register or on reads may have been set


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        """Nothing is kept."""
