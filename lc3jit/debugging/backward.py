"""Going back: `reverse-step`, `reverse-next`, `reverse-finish`, `reverse-continue`, exactly.

Every way back restores the history's checkpoint at or before the instruction wanted and
runs forward again to it (lc3jit/debugging/reverse.py keeps the checkpoints and the keys read);
finding where to go is a run forward from a checkpoint too: `reverse-continue` runs each
stretch between checkpoints on the program's engine again and notes the stops it passes,
`reverse-finish` runs the stretch in an interpreter that notes each call and return (a
check on those instructions alone, lc3jit/debugging/watches.py: the interpreter's own loop,
not a step at a time), then goes to the call on the engine. Which instruction count a
call was made at is the same on every engine (the differential tests hold them to the
interpreter, count for count), so finding it in the interpreter gives the state the
engine's own run had there; the cost is a run of the interpreter over the stretches
searched (docs/debugger.md gives it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lc3jit.debugging.reverse import History
from lc3jit.debugging.stops import BREAKPOINT, ENDED, STEPPED, Body, CommandError, calls, returns
from lc3jit.debugging.watches import Check, CheckingInterpreter
from lc3jit.session import run_engine
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.isa import Instruction
from lc3jit_runtime.outcome import Outcome

if TYPE_CHECKING:
    from lc3jit.debugging.session import Session
    from lc3jit.session import Runnable

HISTORY_START = "the history begins here"
CALL, RETURN = "call", "return"


def history_start(icount: int) -> Outcome:
    """Gone back as far as the history reaches: a stop of its own, saying so."""
    return Outcome(Ending.ARRIVED, f"{HISTORY_START}, at instruction {icount}")


def _nothing() -> None:
    return None


def call_or_return(ins: Instruction) -> Check | None:
    """A check that stops after a call made (JSR, JSRR, TRAP that went elsewhere) or a return
    done (RET, RTI), saying which."""
    if calls(ins):
        return _nothing, lambda _, next_pc: CALL if next_pc != ins.next_pc else None
    if returns(ins):
        return _nothing, lambda _, next_pc: RETURN
    return None


class Reverse:
    """A session's ways back: each puts the session's machine in the state a run forward to
    some count reaches (the session's history holds the checkpoints to start from)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def history(self) -> History:
        """The session's history; CommandError where none is kept."""
        if self.session.history is None:
            raise CommandError("no history is kept (--history 0)")
        return self.session.history

    def goto(self, target: int) -> Outcome:
        """Put the machine in its state after `target` instructions, within the history: back
        to a checkpoint, then forward on the engine, breakpoints and watches passed over."""
        history = self.history()
        if not history.start <= target <= history.frontier:
            raise CommandError(
                f"instruction {target} is outside the history ({history.start}-{history.frontier})"
            )
        self._restore(target)
        self.session.quiet = True
        try:
            outcome = self._through(self.session.sim.engine, target)
        finally:
            self.session.quiet = False
        self.session.frames, self.session.pushed = [], []
        self.session.watch_list.resync(self.session.sim.machine)
        self.session.ended = outcome if outcome.ending in ENDED else None
        return outcome

    def _restore(self, target: int) -> None:
        """The history's checkpoint at or before target, the watches' values as it has them."""
        self.history().restore(target)
        self.session.watch_list.resync(self.session.sim.machine)

    def _through(
        self, runnable: Runnable, end: int, seen: Callable[[int, Outcome], None] | None = None
    ) -> Outcome:
        """Run on runnable to the count end, in one console session, going on past the
        breakpoints and watch hits on the way; `seen` is told of each (at its count), a
        breakpoint only when its condition holds. Another ending (HALT) ends it."""
        machine = self.session.sim.machine

        def body(_: int | None) -> Outcome:
            while machine.icount < end:
                outcome = self.session.advance(runnable, end)
                if outcome.ending is Ending.BREAKPOINT:
                    if seen is not None and self.session._holds(machine.pc):
                        seen(machine.icount, BREAKPOINT)
                    outcome = self.session.step_one(end)
                if outcome.ending is Ending.WATCH:
                    if seen is not None:
                        seen(machine.icount, outcome)
                elif outcome.ending is not Ending.STEP_LIMIT:
                    return outcome
            return STEPPED

        return run_engine(Body(machine, body), None).outcome

    def reverse_step(self, count: int = 1) -> Outcome:
        """Back count instructions (to the history's start at most)."""
        history = self.history()
        target = self.session.sim.machine.icount - count
        if target < history.start:
            self.goto(history.start)
            return history_start(history.start)
        return self.goto(target)

    def reverse_next(self) -> Outcome:
        """Back one instruction; where that was the return of a call, back over the whole
        call, to the instruction that made it."""
        now = self.session.sim.machine.icount
        outcome = self.reverse_step(1)
        if outcome.message.startswith(HISTORY_START) or not returns(self.session.current()):
            return outcome
        return self._back_to_call(now - 1)

    def reverse_finish(self) -> Outcome:
        """Back to the call that entered the current routine (JSR, JSRR or TRAP)."""
        return self._back_to_call(self.session.sim.machine.icount)

    def _back_to_call(self, before: int) -> Outcome:
        """Back to the latest call made before `before` that is not returned from by then."""
        history, depth = self.history(), 0
        for start, end in list(history.intervals(before)):
            for icount, kind in reversed(self._calls_between(start, end)):
                if kind == "return":
                    depth += 1
                elif depth == 0:
                    return self.goto(icount)
                else:
                    depth -= 1
        self.goto(history.start)
        return history_start(history.start)

    def _calls_between(self, start: int, end: int) -> list[tuple[int, str]]:
        """The calls made and returns done from instruction start to end, in order: the
        stretch run again from its checkpoint in an interpreter that stops after each."""
        self._restore(start)
        events: list[tuple[int, str]] = []
        scanner = CheckingInterpreter(self.session.sim.machine, call_or_return)
        self.session.quiet = True
        try:
            self._through(scanner, end, lambda icount, outcome: events.append((icount - 1, outcome.message)))
        finally:
            self.session.quiet = False
            scanner.detach()
        return events

    def reverse_continue(self) -> Outcome:
        """Back to the latest breakpoint (its condition true) or watch hit before now, or to
        the history's start."""
        history = self.history()
        for start, end in list(history.intervals(self.session.sim.machine.icount)):
            hits = self._hits_between(start, end)
            if hits:
                icount, pc, outcome = hits[-1]
                self.goto(icount)
                machine = self.session.sim.machine
                if machine.pc != pc and machine.interrupt_pending():
                    # The stop came after an interrupt's entry, which is no instruction: a
                    # run to the count stops before it, the run forward stopped after it.
                    machine.pc = machine.take_interrupt(machine.pc)
                return outcome
        self.goto(history.start)
        return history_start(history.start)

    def _hits_between(self, start: int, end: int) -> list[tuple[int, int, Outcome]]:
        """The stops a run from instruction start to end goes through, in order: the count
        and PC of each."""
        self._restore(start)
        hits: list[tuple[int, int, Outcome]] = []
        machine = self.session.sim.machine

        def seen(icount: int, outcome: Outcome) -> None:
            hits.append((icount, machine.pc, outcome))

        self.session.scanning = True
        try:
            self._through(self.session.runner, end, seen)
        finally:
            self.session.scanning = False
        return [hit for hit in hits if hit[0] < end]
