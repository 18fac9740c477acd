"""The debugging session: one program under the debugger, run, stepped both ways, stopped
by breakpoints and watches, at translated speed. The text debugger (debugger.py) and the
debug adapter (lc3jit/editors/dap.py) are fronts over it.

Between stops the program runs on its engine (regions by default), at full speed: a
breakpoint is a stop the engine keeps (`set_stop`): translations covering its address are
dropped, and code translated from then on ends its blocks and regions before it, so only
a jump there comes back to the dispatcher, whose table entry for that PC stops. Code that
never reaches a breakpoint runs exactly as without one; deleting it translates the code
around it whole again. A watch on stores marks its word in the machine's write map, so the
stores into it take the slow path, where the debugger stops the run after the store; a
watch on a register or on reads runs the program in a checking interpreter instead
(lc3jit/debugging/watches.py).

Stepping goes through an interpreter of the debugger's own, one instruction at a time;
`next` runs the call it steps over on the engine, stopping at the return point once the
stack pointer is back where it was, and `finish` steps the current routine's own
instructions and runs each call it makes the same way. A command's whole work runs inside
one console session (one output thread, one switch to raw keys), so a step costs
microseconds, not the milliseconds of starting the console again.

Each command is a method that returns the run's Outcome without printing (`step`, `next`,
`finish`, `cont`, `until`; going back, `reverse_step`, `reverse_next`, `reverse_finish`,
`reverse_continue`, `goto`, done by its collaborator in backward.py); `stop` turns an
Outcome into the record a front shows. The session is composed: its history (reverse.py),
its watches (watches.py) and its way back (backward.py) are objects it holds, and a front
adds its own say on breakpoints (`skips`) and a moment's stop to change them
(`reconfigure`) as callables, not by subclassing. docs/debugger.md describes the API.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lc3jit.api import Simulator
from lc3jit.debugging.backward import Reverse
from lc3jit.debugging.reverse import CHECKPOINT_EVERY, DEFAULT_LIMIT, History, RecordedConsole
from lc3jit.debugging.stops import (
    ARRIVED,
    BREAKPOINT,
    ENDED,
    STEPPED,
    Body,
    CommandError,
    Stop,
    calls,
    done,
    reason,
    returns,
)
from lc3jit.debugging.watches import Check, CheckingInterpreter, WatchList
from lc3jit.session import run_engine
from lc3jit.toolchain.places import Places
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import Watched
from lc3jit_runtime.isa import Flow, Instruction, decode
from lc3jit_runtime.machine import IO_BASE, USER_BASE
from lc3jit_runtime.outcome import Outcome

if TYPE_CHECKING:
    from lc3jit.debugging.inspecting import Condition
    from lc3jit.session import Runnable


class Session:
    """A program under the debugger, and the ways forward: what the commands act on.

    make gives a fresh Simulator (at the start, and for run/restart); history is how many
    instructions back the reverse commands reach (0: no history, nothing recorded), with a
    checkpoint every `every` instructions. A front may pass `skips` (at a breakpoint's
    address: does the run go on past it, e.g. a hit count not reached) and `reconfigure`
    (called when the run stopped for a moment, Ending.RECONFIGURE, to change the
    breakpoints; the run then goes on)."""

    def __init__(
        self,
        make: Callable[[], Simulator],
        max_steps: int | None = None,
        history: int = DEFAULT_LIMIT,
        every: int = CHECKPOINT_EVERY,
        skips: Callable[[int], bool] | None = None,
        reconfigure: Callable[[], None] | None = None,
    ) -> None:
        self.make = make
        self.every = every
        self.skips = skips
        self.reconfigure = reconfigure
        self.target: int | None = None  # where run_to is going: never skipped
        self.max_steps = max_steps
        self.history_limit = history
        self.breakpoints: set[int] = set()
        self.conditions: dict[int, Condition] = {}
        self.temporary: set[int] = set()  # tbreak: deleted when hit
        self.watch_list = WatchList(self.where)
        self.watches = self.watch_list.memory  # address -> the value last seen there
        self.frames: list[tuple[int, int]] = []  # (return PC, R6) of calls seen being made
        self.pushed: list[str] = []  # watched words written by pushes since the last stop
        self.scanning = False  # reverse-continue looking for hits: pushes are not reported
        self.reverse = Reverse(self)
        self.load()

    def load(self) -> None:
        """A fresh machine from the files, with the breakpoints and watches kept."""
        self.sim = sim = self.make()
        machine = sim.machine
        self.stepper = CheckingInterpreter(machine, self._check)
        self.watcher = CheckingInterpreter(machine, self._check)  # the engine while a check is needed
        machine.observer = self._observed
        self.recorded = RecordedConsole(machine.console)
        machine.console = self.recorded  # type: ignore[assignment]
        self.history = (
            History(machine, self.recorded, self.history_limit, self.every) if self.history_limit else None
        )
        for address in self.breakpoints:
            sim.engine.set_stop(address, True)
            self.watcher.set_stop(address, True)
        self.watch_list.arm(machine)
        self.places = Places(sim.symbols, sim.images)
        self.labels = self.places.labels
        self.frames = []
        self.ended: Outcome | None = None

    def _observed(self, address: int, value: int, at: int, pushed: bool) -> None:
        """A store into a watched word: stop after the store instruction. A push by TRAP, an
        exception or an interrupt cannot stop in the middle of entering the supervisor: it
        is reported at the next stop."""
        change = self.watch_list.stored(address, value, at)
        if change is None:
            return
        if pushed:
            if not self.scanning:  # (reverse-continue does not stop at pushes)
                self.pushed.append(change + " (a push)")
        else:
            raise Watched(at, True, change)

    @property
    def quiet(self) -> bool:
        """Replaying (going back): watches do not stop the run."""
        return self.watch_list.quiet

    @quiet.setter
    def quiet(self, value: bool) -> None:
        self.watch_list.quiet = value

    def _check(self, ins: Instruction) -> Check | None:
        return self.watch_list.check(self.sim.machine, ins)

    def set_stop(self, address: int, on: bool) -> None:
        """A breakpoint's stop, in the engine and in the interpreter that stands in for it."""
        self.sim.engine.set_stop(address, on)
        self.watcher.set_stop(address, on)

    @property
    def runner(self) -> Runnable:
        """What runs the program between stops: its engine, translated, unless a watch on a
        register or on reads is set, which only an interpreter checking each step sees."""
        return self.watcher if self.watch_list.checked else self.sim.engine

    def address(self, text: str) -> int:
        try:
            return self.sim.address(text)
        except (KeyError, ValueError):
            raise CommandError(f"no label or address {text!r}") from None

    def where(self, address: int) -> str:
        """x3005 <LOOP+2>: the address, and the nearest label before it if close."""
        return self.places.where(address)

    # Running: every command's work is a body run inside one console session.
    def _drive(self, body: Callable[[int | None], Outcome], steps: int | None = None) -> Outcome:
        """Run body within --max-steps (steps: the count a command asked for, None for
        until a stop). A body gets the count it must stop at (None: none)."""
        budget = steps
        if self.max_steps is not None:
            left = self.max_steps - self.sim.machine.icount
            if left <= 0:
                return self.limit_reached
            budget = left if steps is None else min(steps, left)
        outcome = run_engine(Body(self.sim.machine, body), budget).outcome
        if outcome.ending in ENDED:
            self.ended = outcome  # it stays ended: no command runs it on past its end
        limited = self.max_steps is not None and self.sim.machine.icount >= self.max_steps
        return self.limit_reached if outcome.ending is Ending.STEP_LIMIT and limited else outcome

    @property
    def limit_reached(self) -> Outcome:
        return Outcome(Ending.STEP_LIMIT, f"the step limit (--max-steps {self.max_steps}) is reached")

    def advance(self, runnable: Runnable, stop_at: int | None) -> Outcome:
        """Run on runnable until a stop or the count stop_at, a checkpoint at every boundary
        the history keeps."""
        machine, history = self.sim.machine, self.history
        while True:
            left = None if stop_at is None else stop_at - machine.icount
            if left is not None and left <= 0:
                return STEPPED
            if history is not None:
                chunk = history.until_next(machine.icount)
                left = chunk if left is None else min(chunk, left)
            self.recorded.live = history is None or machine.icount >= history.frontier
            outcome = runnable.run(left)
            if history is not None:
                history.reached()
            if outcome.ending is Ending.RECONFIGURE and self.reconfigure is not None:
                machine.take_ending()
                self.reconfigure()
                if runnable in (self.sim.engine, self.watcher):
                    runnable = self.runner  # a watch on a register or on reads may have been set
                continue
            if outcome.ending is not Ending.STEP_LIMIT:
                return outcome

    def step_one(self, stop_at: int | None = None) -> Outcome:
        """One instruction in the debugger's interpreter (a breakpoint at the PC does not stop it)."""
        if stop_at is not None and stop_at <= self.sim.machine.icount:
            return STEPPED
        return self.advance(self.stepper, self.sim.machine.icount + 1)

    def stopping(self, outcome: Outcome) -> bool:
        """Does this stop of the engine stop the command? A breakpoint whose condition is
        false does not; a temporary one is deleted as it stops."""
        if outcome.ending is not Ending.BREAKPOINT:
            return True
        pc = self.sim.pc
        if self.skips is not None and pc != self.target and self.skips(pc):
            return False
        condition = self.conditions.get(pc)
        if condition is not None and not condition.holds():
            return False
        if pc in self.temporary:
            self._delete(pc)
        return True

    def _holds(self, pc: int) -> bool:
        condition = self.conditions.get(pc)
        return condition is None or condition.holds()

    def go(self, stop_at: int | None) -> Outcome:
        """Run on the engine from the PC until a stop, stepping over a breakpoint at the PC."""
        machine = self.sim.machine
        outcome = self.step_one(stop_at) if self.sim.pc in self.breakpoints else STEPPED
        while outcome.ending is Ending.STEP_LIMIT and (stop_at is None or machine.icount < stop_at):
            outcome = self.advance(self.runner, stop_at)
            if outcome.ending is Ending.BREAKPOINT and not self.stopping(outcome):
                outcome = self.step_one(stop_at)
        return outcome

    def run_to(self, target: int, sp: int | None, stop_at: int | None) -> Outcome:
        """Run on the engine until the PC is target with R6 = sp (any R6 if None), or another stop."""
        machine = self.sim.machine
        temporary = target not in self.breakpoints
        if temporary:
            self.set_stop(target, True)
        self.target = target
        try:
            while True:
                outcome = self.advance(self.runner, stop_at)
                if outcome.ending is not Ending.BREAKPOINT:
                    return outcome
                if machine.pc == target and (sp is None or machine.reg[6] == sp):
                    return ARRIVED
                if machine.pc != target and self.stopping(outcome):
                    return outcome
                outcome = self.step_one(stop_at)  # a deeper call's return, or a condition false
                if outcome.ending is not Ending.STEP_LIMIT:
                    return outcome
        finally:
            self.target = None
            if temporary:
                self.set_stop(target, False)

    def current(self) -> Instruction:
        pc = self.sim.pc
        return decode(self.sim.machine.mem[pc], pc)

    def in_call(self) -> bool:
        """Is the PC in a routine something called, so that `finish` has a return to reach:
        a call the session saw being made, the system's code (traps and interrupts, below
        x3000), or a subroutine a JSR in the program enters, with no return between its
        first word and the PC? The program's own top level is none of these."""
        pc, mem = self.sim.pc, self.sim.machine.mem
        if self.frames or pc < USER_BASE:
            return True
        for image in self.sim.images:
            for offset in range(len(image.words)):
                ins = decode(image.words[offset], image.origin + offset)
                entry = ins.target
                called = ins.form.flow is Flow.CALL and entry is not None and entry <= pc
                if called and not any(returns(decode(mem[a], a)) for a in range(entry, pc)):
                    return True
        return False

    def step_tracking(self, stop_at: int | None) -> Outcome:
        """step_one, keeping `frames` for finish: a call entered pushes, a return pops."""
        ins, sp = self.current(), self.sim.machine.reg[6]
        outcome = self.step_one(stop_at)
        if calls(ins) and self.sim.pc != ins.next_pc:
            self.frames.append((ins.next_pc, sp))
        elif returns(ins) and self.frames and self.sim.pc == self.frames[-1][0]:
            self.frames.pop()
        return outcome

    # The commands as methods: each returns how the run stopped, printing nothing.
    def step(self, count: int = 1) -> Outcome:
        """count instructions, into calls and traps; a breakpoint (its condition true) stops it."""

        def body(stop_at: int | None) -> Outcome:
            end = self.sim.machine.icount + count
            limit = end if stop_at is None else min(end, stop_at)
            while True:
                outcome = self.step_tracking(limit)
                if outcome.ending is not Ending.STEP_LIMIT or self.sim.machine.icount >= limit:
                    return outcome
                if self.sim.pc in self.breakpoints and self.stopping(BREAKPOINT):
                    return BREAKPOINT

        self.running()
        return self._drive(body, count)

    def next(self) -> Outcome:
        """One instruction, running a JSR, JSRR or TRAP through to its return."""
        self.running()
        return done(self._drive(self._over, None))

    def _over(self, stop_at: int | None) -> Outcome:
        ins, sp = self.current(), self.sim.machine.reg[6]
        outcome = self.step_one(stop_at)
        if outcome.ending is Ending.STEP_LIMIT and calls(ins) and self.sim.pc != ins.next_pc:
            outcome = self.run_to(ins.next_pc, sp, stop_at)
        return outcome

    def finish(self) -> Outcome:
        """Run until the current subroutine (or trap routine) returns."""

        def body(stop_at: int | None) -> Outcome:
            if self.frames:
                target, sp = self.frames.pop()
                return self.run_to(target, sp, stop_at)
            machine = self.sim.machine
            while stop_at is None or machine.icount < stop_at:  # step this routine, running its calls
                ins = self.current()
                outcome = done(self._over(stop_at))
                if outcome.ending is not Ending.STEP_LIMIT:
                    return outcome
                if returns(ins):
                    return ARRIVED
                if self.sim.pc in self.breakpoints and self.stopping(BREAKPOINT):
                    return BREAKPOINT
            return STEPPED

        self.running()
        return done(self._drive(body, None))

    def until(self, target: int) -> Outcome:
        """Run until the PC reaches target (any frame), or another stop."""
        self.running()
        return done(self._drive(lambda stop_at: self.run_to(target, None, stop_at), None))

    def cont(self, count: int | None = None) -> Outcome:
        """Run at full speed until a breakpoint, a watch, or the end; with count, for at
        most that many instructions (a front that runs the program in slices)."""
        self.running()
        self.frames = []
        return self._drive(self.go, count)

    def running(self) -> None:
        """A command that runs the program forward refuses once it has ended (HALT, a
        fault, the input used up), changing nothing."""
        if self.ended is not None:
            how = "halted" if self.ended.ending is Ending.HALT else f"ended: {self.ended.message}"
            raise CommandError(f"the program has {how}; `run` starts it again")

    def stop(self, outcome: Outcome) -> Stop:
        """The record of how a command stopped, for a front to report; the pushes reported
        since the last stop are taken (reported once)."""
        stop = Stop(reason(outcome), outcome, self.sim.pc, tuple(self.pushed))
        self.pushed = []
        return stop

    # Going back: the session's Reverse (backward.py) does each.
    def goto(self, target: int) -> Outcome:
        """The state after `target` instructions, within the history."""
        return self.reverse.goto(target)

    def reverse_step(self, count: int = 1) -> Outcome:
        """Back count instructions (to the history's start at most)."""
        return self.reverse.reverse_step(count)

    def reverse_next(self) -> Outcome:
        """Back one instruction, over a whole call when it was the call's return."""
        return self.reverse.reverse_next()

    def reverse_finish(self) -> Outcome:
        """Back to the call that entered the current routine."""
        return self.reverse.reverse_finish()

    def reverse_continue(self) -> Outcome:
        """Back to the latest breakpoint or watch hit before now, or the history's start."""
        return self.reverse.reverse_continue()

    # Breakpoints and watches.
    def stop_at(self, addresses: set[int]) -> None:
        """Make the breakpoints exactly these addresses, as an editor sets them (a whole list
        at once): the others deleted, the new ones added."""
        for address in self.breakpoints - addresses:
            self._delete(address)
        for address in addresses - self.breakpoints:
            self.breakpoints.add(address)
            self.set_stop(address, True)

    def _delete(self, address: int) -> None:
        if address in self.breakpoints:
            self.breakpoints.discard(address)
            self.conditions.pop(address, None)
            self.temporary.discard(address)
            self.set_stop(address, False)
        elif address in self.watches:
            self.unwatch(address)

    def watch(self, target: str | int, kind: str = "write") -> str:
        """Watch a register ("R2": its changes) or a word for `kind` accesses (write, read,
        access); what it holds now. A watch on a register or on reads makes the program run
        in the debugger's checking interpreter until it is deleted."""
        if isinstance(target, int) and target >= IO_BASE:
            raise CommandError("device registers cannot be watched")
        shown = self.watch_list.add(self.sim.machine, target, kind)
        self.stepper.refresh()
        self.watcher.refresh()
        return shown

    def unwatch(self, target: str | int) -> None:
        """Delete the watch on a register ("R2") or a word."""
        self.watch_list.remove(self.sim.machine, target)
        self.stepper.refresh()
        self.watcher.refresh()
