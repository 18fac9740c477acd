"""The debugger behind `lc3jit debug`: breakpoints, watches, stepping both ways, at translated speed.

Between stops the program runs on its engine (regions by default), at full speed: a
breakpoint is a stop the engine keeps (`set_stop`): translations covering its address are
dropped, and code translated from then on ends its blocks and regions before it, so only
a jump there comes back to the dispatcher, whose table entry for that PC stops. Code that
never reaches a breakpoint runs exactly as without one; deleting it translates the code
around it whole again. A watch marks its word in the machine's write map, so the stores
into it take the slow path, where the debugger stops the run after the store.

Stepping goes through an interpreter of the debugger's own, one instruction at a time;
`next` runs the call it steps over on the engine, stopping at the return point once the
stack pointer is back where it was, and `finish` steps the current routine's own
instructions and runs each call it makes the same way. A command's whole work runs inside
one console session (one output thread, one switch to raw keys), so a step costs
microseconds, not the milliseconds of starting the console again.

Going backwards (`reverse-step`, `reverse-next`, `reverse-finish`, `reverse-continue`)
restores a checkpoint and runs forward again to the instruction wanted: see
lc3jit/tools/reverse.py. Every command is also a method that returns the run's Outcome
without printing (`step`, `next`, `finish`, `cont`, `until`, `reverse_step`,
`reverse_next`, `reverse_finish`, `reverse_continue`, `goto`), for front ends other than
the prompt (a Debug Adapter); `describe_stop` and `state` give what they would show.
"""

from __future__ import annotations

import contextlib
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TextIO

from lc3jit.api import Simulator
from lc3jit.session import Runnable, run_engine
from lc3jit.toolchain.disasm import instruction_text
from lc3jit.toolchain.numbers import parse_number
from lc3jit.tools.places import Places
from lc3jit.tools.reverse import CHECKPOINT_EVERY, DEFAULT_LIMIT, History, RecordedConsole
from lc3jit.tools.watches import KINDS, REGISTER, Check, CheckingInterpreter, WatchList
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import Watched
from lc3jit_runtime.isa import WORD_MASK, Flow, Instruction, decode, to_signed
from lc3jit_runtime.machine import IO_BASE, Machine
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

#: Source lines `list` shows before and after the PC's (words, without source).
LIST_AROUND = 5

ARRIVED = Outcome(Ending.ARRIVED)  # a temporary stop reached: next, finish, until done
BREAKPOINT = Outcome(Ending.BREAKPOINT)
STEPPED = STEP_LIMIT  # a count of instructions run, as asked
#: Endings after which the program cannot go on: `run` starts it again.
ENDED = (Ending.HALT, Ending.FAULT, Ending.INPUT_EXHAUSTED)
HISTORY_START = "the history begins here"
_COMMAND = {kind: command for command, kind in KINDS.items()}


def _done(outcome: Outcome) -> Outcome:
    """A temporary stop reached is the command done, as a step is: STEPPED."""
    return STEPPED if outcome is ARRIVED else outcome


def history_start(icount: int) -> Outcome:
    """Gone back as far as the history reaches: a stop of its own, saying so."""
    return Outcome(Ending.ARRIVED, f"{HISTORY_START}, at instruction {icount}")


class CommandError(Exception):
    """A command that cannot be done as typed: one line for the user, then the prompt."""


def _calls(ins: Instruction) -> bool:
    """JSR, JSRR or TRAP: what `next` steps over."""
    return ins.form.flow in (Flow.CALL, Flow.TRAP)


def _returns(ins: Instruction) -> bool:
    return ins.form.flow is Flow.RTI or ins.is_return


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt}
_COMPARE[">="] = operator.ge
_CONDITION = re.compile(r"\s*(\S+?)\s*(==|!=|<=|>=|<|>)\s*(\S+)\s*")


@dataclass(frozen=True)
class Condition:
    """`R2 == 0`, `M[COUNT] < #3`, `PC != LOOP`: compared as signed 16-bit numbers."""

    text: str
    left: Callable[[], int]
    compare: Callable[[int, int], bool]
    right: Callable[[], int]

    def holds(self) -> bool:
        return self.compare(to_signed(self.left() & WORD_MASK), to_signed(self.right() & WORD_MASK))


class _Body:
    """A command's work as a Runnable, so that run_engine runs it in one console session."""

    name = "debugger"

    def __init__(self, machine: Machine, body: Callable[[int | None], Outcome]) -> None:
        self.machine = machine
        self.body = body

    def run(self, max_steps: int | None = None) -> Outcome:
        return self.body(None if max_steps is None else self.machine.icount + max_steps)


class Debugger:
    """A program under the debugger: what the commands act on, and how they print.

    make gives a fresh Simulator (at the start, and for run/restart); history is how many
    instructions back the reverse commands reach (0: no history, nothing recorded), with a
    checkpoint every `every` instructions."""

    def __init__(
        self,
        make: Callable[[], Simulator],
        out: TextIO,
        max_steps: int | None = None,
        history: int = DEFAULT_LIMIT,
        every: int = CHECKPOINT_EVERY,
    ) -> None:
        self.make = make
        self.every = every
        self.out = out
        self.max_steps = max_steps
        self.history_limit = history
        self.breakpoints: set[int] = set()
        self.conditions: dict[int, Condition] = {}
        self.temporary: set[int] = set()  # tbreak: deleted when hit
        self.watch_list = WatchList(self.where)
        self.watches = self.watch_list.memory  # address -> the value last seen there
        self.displays: list[str] = []
        self.frames: list[tuple[int, int]] = []  # (return PC, R6) of calls seen being made
        self.pushed: list[str] = []  # watched words written by pushes since the last stop
        self.hits: list[tuple[int, Outcome]] = []  # scanning: the stops a run went through
        self.scanning = False
        self.last_error: str | None = None
        self.next_mem: int | None = None  # where `mem` alone goes on
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "break": self.cmd_break,
            "tbreak": self.cmd_tbreak,
            "delete": self.cmd_delete,
            "watch": self.cmd_watch,
            "rwatch": self.cmd_rwatch,
            "awatch": self.cmd_awatch,
            "display": self.cmd_display,
            "step": self.cmd_step,
            "next": self.cmd_next,
            "finish": self.cmd_finish,
            "until": self.cmd_until,
            "continue": self.cmd_continue,
            "reverse-step": self.cmd_reverse_step,
            "reverse-next": self.cmd_reverse_next,
            "reverse-finish": self.cmd_reverse_finish,
            "reverse-continue": self.cmd_reverse_continue,
            "regs": self.cmd_regs,
            "info": self.cmd_info,
            "mem": self.cmd_mem,
            "list": self.cmd_list,
            "set": self.cmd_set,
            "run": self.cmd_run,
            "restart": self.cmd_restart,
            "help": self.cmd_help,
        }
        self.aliases = {
            "b": "break",
            "d": "delete",
            "s": "step",
            "n": "next",
            "c": "continue",
            "r": "run",
            "back": "reverse-step",
            "rs": "reverse-step",
            "rn": "reverse-next",
            "rc": "reverse-continue",
            "i": "info",
            "x": "mem",
        }
        self.load()

    # The program.
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

    def say(self, text: str = "") -> None:
        """A line of the debugger's, on a line of its own after the program's output."""
        console = self.sim.console
        if console.mid_line:
            console.mid_line = False
            text = "\n" + text
        self.out.write(text + "\n")
        self.out.flush()

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
        outcome = run_engine(_Body(self.sim.machine, body), budget).outcome
        limited = self.max_steps is not None and self.sim.machine.icount >= self.max_steps
        return self.limit_reached if outcome.reason == "step-limit" and limited else outcome

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
            outcome = runnable.run(left)
            if history is not None:
                history.reached()
            if outcome.reason != "step-limit":
                return outcome

    def step_one(self, stop_at: int | None = None) -> Outcome:
        """One instruction in the debugger's interpreter (a breakpoint at the PC does not stop it)."""
        if stop_at is not None and stop_at <= self.sim.machine.icount:
            return STEPPED
        return self.advance(self.stepper, self.sim.machine.icount + 1)

    def stopping(self, outcome: Outcome) -> bool:
        """Does this stop of the engine stop the command? A breakpoint whose condition is
        false does not; a temporary one is deleted as it stops."""
        if outcome.reason != "breakpoint":
            return True
        pc = self.sim.pc
        condition = self.conditions.get(pc)
        if condition is not None and not condition.holds():
            return False
        if pc in self.temporary:
            self._delete(pc)
        return True

    def go(self, stop_at: int | None) -> Outcome:
        """Run on the engine from the PC until a stop, stepping over a breakpoint at the PC."""
        machine = self.sim.machine
        outcome = self.step_one(stop_at) if self.sim.pc in self.breakpoints else STEPPED
        while outcome.reason == "step-limit" and (stop_at is None or machine.icount < stop_at):
            outcome = self.advance(self.runner, stop_at)
            if outcome.reason == "breakpoint" and not self.stopping(outcome):
                outcome = self.step_one(stop_at)
        return outcome

    def run_to(self, target: int, sp: int | None, stop_at: int | None) -> Outcome:
        """Run on the engine until the PC is target with R6 = sp (any R6 if None), or another stop."""
        machine = self.sim.machine
        temporary = target not in self.breakpoints
        if temporary:
            self.set_stop(target, True)
        try:
            while True:
                outcome = self.advance(self.runner, stop_at)
                if outcome.reason != "breakpoint":
                    return outcome
                if machine.pc == target and (sp is None or machine.reg[6] == sp):
                    return ARRIVED
                if machine.pc != target and self.stopping(outcome):
                    return outcome
                outcome = self.step_one(stop_at)  # a deeper call's return, or a condition false
                if outcome.reason != "step-limit":
                    return outcome
        finally:
            if temporary:
                self.set_stop(target, False)

    def current(self) -> Instruction:
        pc = self.sim.pc
        return decode(self.sim.machine.mem[pc], pc)

    def step_tracking(self, stop_at: int | None) -> Outcome:
        """step_one, keeping `frames` for finish: a call entered pushes, a return pops."""
        ins, sp = self.current(), self.sim.machine.reg[6]
        outcome = self.step_one(stop_at)
        if _calls(ins) and self.sim.pc != ins.next_pc:
            self.frames.append((ins.next_pc, sp))
        elif _returns(ins) and self.frames and self.sim.pc == self.frames[-1][0]:
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
                if outcome.reason != "step-limit" or self.sim.machine.icount >= limit:
                    return outcome
                if self.sim.pc in self.breakpoints and self.stopping(BREAKPOINT):
                    return BREAKPOINT

        self.running()
        return self._drive(body, count)

    def next(self) -> Outcome:
        """One instruction, running a JSR, JSRR or TRAP through to its return."""
        self.running()
        return _done(self._drive(self._over, None))

    def _over(self, stop_at: int | None) -> Outcome:
        ins, sp = self.current(), self.sim.machine.reg[6]
        outcome = self.step_one(stop_at)
        if outcome.reason == "step-limit" and _calls(ins) and self.sim.pc != ins.next_pc:
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
                outcome = _done(self._over(stop_at))
                if outcome.reason != "step-limit":
                    return outcome
                if _returns(ins):
                    return ARRIVED
                if self.sim.pc in self.breakpoints and self.stopping(BREAKPOINT):
                    return BREAKPOINT
            return STEPPED

        self.running()
        return _done(self._drive(body, None))

    def until(self, target: int) -> Outcome:
        """Run until the PC reaches target (any frame), or another stop."""
        self.running()
        return _done(self._drive(lambda stop_at: self.run_to(target, None, stop_at), None))

    def cont(self) -> Outcome:
        """Run at full speed until a breakpoint, a watch, or the end."""
        self.running()
        self.frames = []
        return self._drive(self.go, None)

    # Backwards.
    def _history(self) -> History:
        if self.history is None:
            raise CommandError("no history is kept (--history 0)")
        return self.history

    def goto(self, target: int) -> Outcome:
        """Put the machine in its state after `target` instructions, within the history: back
        to a checkpoint, then forward on the engine, breakpoints and watches passed over."""
        history = self._history()
        if not history.start <= target <= history.frontier:
            raise CommandError(
                f"instruction {target} is outside the history ({history.start}-{history.frontier})"
            )
        self._restore(target)
        self.quiet = True
        try:
            outcome = run_engine(_Body(self.sim.machine, lambda _: self._replay(target)), None).outcome
        finally:
            self.quiet = False
        self.frames, self.pushed = [], []
        self.watch_list.resync(self.sim.machine)
        self.ended = outcome if outcome.ending in ENDED else None
        return outcome

    def _restore(self, target: int) -> None:
        """The history's checkpoint at or before target, the watches' values as it has them."""
        self._history().restore(target)
        self.watch_list.resync(self.sim.machine)

    def _replay(self, target: int) -> Outcome:
        """Forward to the count target on the engine, as the run went before."""
        while self.sim.machine.icount < target:
            outcome = self.advance(self.sim.engine, target)
            if outcome.reason == "breakpoint":
                outcome = self.step_one(target)
            if outcome.reason not in ("step-limit", "watch", "breakpoint"):
                return outcome
        return STEPPED

    def reverse_step(self, count: int = 1) -> Outcome:
        """Back count instructions (to the history's start at most)."""
        history = self._history()
        target = self.sim.machine.icount - count
        if target < history.start:
            self.goto(history.start)
            return history_start(history.start)
        return self.goto(target)

    def reverse_next(self) -> Outcome:
        """Back one instruction; where that was the return of a call, back over the whole
        call, to the instruction that made it."""
        now = self.sim.machine.icount
        outcome = self.reverse_step(1)
        if outcome.message.startswith(HISTORY_START) or not _returns(self.current()):
            return outcome
        return self._back_to_call(now - 1)

    def reverse_finish(self) -> Outcome:
        """Back to the call that entered the current routine (JSR, JSRR or TRAP)."""
        return self._back_to_call(self.sim.machine.icount)

    def _back_to_call(self, before: int) -> Outcome:
        """Back to the latest call made before `before` that is not returned from by then."""
        history, depth = self._history(), 0
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
        """The calls made and returns done from instruction start to end, in order (stepping
        the stretch in the interpreter, from its checkpoint)."""
        self._restore(start)
        events: list[tuple[int, str]] = []

        def body(stop_at: int | None) -> Outcome:
            machine = self.sim.machine
            while machine.icount < end:
                ins, icount = self.current(), machine.icount
                outcome = self.step_one(end)
                if outcome.reason not in ("step-limit", "watch"):
                    return outcome
                if _calls(ins) and machine.pc != ins.next_pc:
                    events.append((icount, "call"))
                elif _returns(ins):
                    events.append((icount, "return"))
            return STEPPED

        self.quiet = True
        try:
            run_engine(_Body(self.sim.machine, body), None)
        finally:
            self.quiet = False
        return events

    def reverse_continue(self) -> Outcome:
        """Back to the latest breakpoint (its condition true) or watch hit before now, or to
        the history's start."""
        history = self._history()
        for start, end in list(history.intervals(self.sim.machine.icount)):
            hits = self._hits_between(start, end)
            if hits:
                icount, outcome = hits[-1]
                self.goto(icount)
                return outcome
        self.goto(history.start)
        return history_start(history.start)

    def _hits_between(self, start: int, end: int) -> list[tuple[int, Outcome]]:
        """The stops a run from instruction start to end goes through, in order."""
        self._restore(start)
        self.hits, self.scanning = [], True
        machine = self.sim.machine

        def body(stop_at: int | None) -> Outcome:
            while machine.icount < end:
                if machine.pc in self.breakpoints and self._holds(machine.pc):
                    self.hits.append((machine.icount, BREAKPOINT))
                outcome = self.step_one(end)
                if outcome.reason == "step-limit" and machine.icount < end:
                    outcome = self.advance(self.runner, end)
                if outcome.reason == "watch":
                    self.hits.append((machine.icount, outcome))
                elif outcome.reason not in ("step-limit", "breakpoint"):
                    return outcome
            return STEPPED

        try:
            run_engine(_Body(machine, body), None)
        finally:
            self.scanning = False
        hits, self.hits = [(i, o) for i, o in self.hits if i < end], []
        return hits

    def _holds(self, pc: int) -> bool:
        condition = self.conditions.get(pc)
        return condition is None or condition.holds()

    # What a front end shows.
    def describe_stop(self, outcome: Outcome) -> list[str]:
        """The lines saying why the run stopped (before the PC's line)."""
        machine = self.sim.machine
        lines = [change[:1].upper() + change[1:] for change in self.pushed]
        self.pushed = []
        match outcome.ending:
            case Ending.BREAKPOINT:
                lines.append(f"Breakpoint at {self.where(machine.pc)}")
            case Ending.WATCH:
                lines.append(outcome.message[:1].upper() + outcome.message[1:])
            case Ending.HALT:
                lines.append(f"The program halted after {machine.icount} instructions.")
            case ending if ending.by_signal:
                lines.append(f"Interrupted at {self.where(machine.pc)}")
            case Ending.ARRIVED if outcome.message:
                lines.append(outcome.message[:1].upper() + outcome.message[1:] + ".")
            case Ending.STEP_LIMIT if outcome is not STEPPED:
                lines.append(f"Stopped: {outcome.message}")
            case Ending.FAULT | Ending.INPUT_EXHAUSTED:
                lines.append(f"Stopped: {outcome.message}")
        return lines

    def state(self) -> dict[str, object]:
        """Registers, PC, PSR, codes, instructions: as the API's Simulator.state()."""
        return self.sim.state()

    def report(self, outcome: Outcome) -> None:
        """Say why the run stopped and where it is now."""
        for line in self.describe_stop(outcome):
            self.say(line)
        if outcome.ending in ENDED:
            self.ended = outcome
        else:
            self.show_pc()

    def show_pc(self) -> None:
        pc = self.sim.pc
        source = self.places.line(pc)
        if source is not None:
            self.say(f"=> {self.where(pc)}  {Path(source.path).name}:{source.line}  {source.text.strip()}")
        else:
            self.say(f"=> {self.where(pc)}  {self.sim.machine.mem[pc]:04X}  {self.text(pc)}")
        for expression in self.displays:
            self.say(f"   {expression} = {self._shown(expression)}")

    def text(self, address: int) -> str:
        return instruction_text(decode(self.sim.machine.mem[address], address), self.labels)

    def running(self) -> None:
        if self.ended is not None:
            raise CommandError("the program is not running: `run` starts it again")

    # Commands.
    def execute(self, line: str) -> bool:
        """Do one command line; False after quit. A command that fails says so in one line
        and leaves it in last_error (None when it succeeded)."""
        self.last_error = None
        words = line.split()
        if not words:
            return True
        name = self.aliases.get(words[0].lower(), words[0].lower())
        if "/" in name and name.split("/")[0] in ("x", "mem"):  # gdb's x/8 ADDR
            name, words = "mem", [words[0], *words[1:][:1], name.split("/")[1]]
        if name in ("quit", "q", "exit"):
            return False
        matches = [c for c in self.commands if c.startswith(name)]
        command = self.commands.get(name) or (self.commands[matches[0]] if len(matches) == 1 else None)
        if command is None:
            self._error(f"unknown command {words[0]!r} (help lists them)")
            return True
        try:
            command(words[1:])
        except CommandError as e:
            self._error(str(e))
        return True

    def _error(self, message: str) -> None:
        self.last_error = message
        self.say(f"error: {message}")

    def cmd_break(self, args: list[str]) -> None:
        """break [LOC [if COND]]: stop before the instruction at LOC (if COND: R2 == 0); alone, list."""
        if not args:
            self.cmd_info(["breakpoints"])
            return
        location, _, condition = " ".join(args).partition(" if ")
        if len(location.split()) != 1 or (_ and not condition.strip()):
            raise CommandError("break LOC, or break LOC if CONDITION (e.g. break LOOP if R2 == 0)")
        address = self.address(location.strip())
        if condition:
            self.conditions[address] = self.condition(condition)
        else:
            self.conditions.pop(address, None)
        if address not in self.breakpoints:
            self.breakpoints.add(address)
            self.set_stop(address, True)
        self.say(f"Breakpoint at {self.where(address)}" + (f" if {condition.strip()}" if condition else ""))

    def cmd_tbreak(self, args: list[str]) -> None:
        """tbreak LOC: a breakpoint deleted when it is hit."""
        self.cmd_break(args)
        self.temporary.add(self.address(" ".join(args).partition(" if ")[0].strip()))

    def condition(self, text: str) -> Condition:
        match = _CONDITION.fullmatch(text)
        if match is None:
            raise CommandError(f"not a condition: {text.strip()!r} (e.g. R2 == 0, M[COUNT] > #3)")
        return Condition(text.strip(), self.operand(match[1]), _COMPARE[match[2]], self.operand(match[3]))

    def operand(self, text: str) -> Callable[[], int]:
        """A register, the PC, a memory word M[LOC] or [LOC], or a number or label."""
        upper = text.upper()
        if re.fullmatch(r"R[0-7]", upper):
            index = int(upper[1])
            return lambda: self.sim.machine.reg[index]
        if re.fullmatch(r"R\d+", upper):
            raise CommandError(f"no register {text}: the registers are R0-R7")
        if upper == "PC":
            return lambda: self.sim.machine.pc
        if match := re.fullmatch(r"M?\[(.+)\]", text, re.IGNORECASE):
            address = self.address(match[1])
            return lambda: self.sim.machine.mem[address]
        value = self._value(text)
        return lambda: value

    def _shown(self, expression: str) -> str:
        try:
            value = self.operand(expression)() & WORD_MASK
        except CommandError as e:
            return f"({e})"
        return f"x{value:04X} {to_signed(value)}"

    def cmd_delete(self, args: list[str]) -> None:
        """delete [LOC|R2...]: remove the breakpoint or watch at LOC (R2); alone, remove them all."""
        if not args:
            for target in [*self.breakpoints, *self.watch_list.targets()]:
                self._delete_target(target)
        for text in args:
            register = REGISTER.fullmatch(text)
            if register is not None:
                if int(register[1]) not in self.watch_list.registers:
                    raise CommandError(f"no watch on R{register[1]}")
                self._delete_target(f"R{register[1]}")
                continue
            address = self.address(text)
            if address not in self.breakpoints and address not in self.watches:
                raise CommandError(f"no breakpoint or watch at {self.where(address)}")
            self._delete_target(address)

    def _delete_target(self, target: str | int) -> None:
        if isinstance(target, str):
            self.unwatch(target)
        else:
            self._delete(target)
        self.say(f"Deleted {target if isinstance(target, str) else self.where(target)}")

    def _delete(self, address: int) -> None:
        if address in self.breakpoints:
            self.breakpoints.discard(address)
            self.conditions.pop(address, None)
            self.temporary.discard(address)
            self.set_stop(address, False)
        elif address in self.watches:
            self.unwatch(address)

    def unwatch(self, target: str | int) -> None:
        """Delete the watch on a register ("R2") or a word."""
        self.watch_list.remove(self.sim.machine, target)
        self.stepper.refresh()
        self.watcher.refresh()

    def cmd_watch(self, args: list[str], kind: str = "write") -> None:
        """watch LOC|R2: stop after an instruction stores into the word at LOC, or changes R2."""
        if len(args) != 1:
            raise CommandError(
                f"{_COMMAND[kind]} takes one label or address" + (", or a register" * (kind == "write"))
            )
        register = REGISTER.fullmatch(args[0])
        if register is not None and kind != "write":
            raise CommandError(f"a register is watched for changes: watch {args[0]}")
        self.say("Watching " + self.watch(f"R{register[1]}" if register else self.address(args[0]), kind))

    def cmd_rwatch(self, args: list[str]) -> None:
        """rwatch LOC: stop after an instruction reads the word at LOC (LD, LDR, LDI, STI, a pop)."""
        self.cmd_watch(args, "read")

    def cmd_awatch(self, args: list[str]) -> None:
        """awatch LOC: stop after an instruction reads or stores into the word at LOC."""
        self.cmd_watch(args, "access")

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

    def cmd_display(self, args: list[str]) -> None:
        """display [EXPR]: show R2, PC, M[LOC] at every stop; alone, show them now."""
        if args:
            expression = " ".join(args)
            self.operand(expression)  # an error now, not at every stop
            self.displays.append(expression)
        for expression in self.displays:
            self.say(f"   {expression} = {self._shown(expression)}")

    def cmd_step(self, args: list[str]) -> None:
        """step [N]: run one instruction (N), into calls and traps; stops at breakpoints."""
        self.report(self.step(self._count(args)))

    def cmd_next(self, args: list[str]) -> None:
        """next: one instruction, running a JSR, JSRR or TRAP through to its return."""
        self.report(self.next())

    def cmd_finish(self, args: list[str]) -> None:
        """finish: run until the current subroutine (or trap routine) returns."""
        self.report(self.finish())

    def cmd_until(self, args: list[str]) -> None:
        """until LOC: run until the PC reaches LOC (or another stop)."""
        if len(args) != 1:
            raise CommandError("until takes one label or address")
        self.report(self.until(self.address(args[0])))

    def cmd_continue(self, args: list[str]) -> None:
        """continue: run at full speed until a breakpoint, a watch, or the end."""
        self.report(self.cont())

    def cmd_reverse_step(self, args: list[str]) -> None:
        """reverse-step [N] (back): back one instruction (N), exactly: registers, memory, output, count."""
        self.report(self.reverse_step(self._count(args)))

    def cmd_reverse_next(self, args: list[str]) -> None:
        """reverse-next: back one instruction, over a whole call when it was the call's return."""
        self.report(self.reverse_next())

    def cmd_reverse_finish(self, args: list[str]) -> None:
        """reverse-finish: back to the call that entered the current subroutine."""
        self.report(self.reverse_finish())

    def cmd_reverse_continue(self, args: list[str]) -> None:
        """reverse-continue: back to the previous breakpoint or watch hit (or the history's start)."""
        self.report(self.reverse_continue())

    def cmd_run(self, args: list[str]) -> None:
        """run: start the program again from the beginning (if it ran) and continue."""
        if self.sim.machine.icount or self.ended is not None:
            self.load()
        at_start = self.sim.pc in self.breakpoints and self._holds(self.sim.pc)
        self.report(BREAKPOINT if at_start else self.cont())

    def cmd_restart(self, args: list[str]) -> None:
        """restart: load the program again, stopped at its first instruction."""
        self.load()
        self.show_pc()

    def cmd_regs(self, args: list[str]) -> None:
        """regs: R0-R7, PC, PSR, condition codes, instructions executed."""
        sim = self.sim
        for row in (range(4), range(4, 8)):
            self.say("  ".join(f"R{r}=x{sim.registers[r]:04X} {to_signed(sim.registers[r]):>6}" for r in row))
        self.say(
            f"PC={self.where(sim.pc)}  PSR=x{sim.psr:04X}  CC={sim.cond}  instructions={sim.instructions}"
        )

    def cmd_info(self, args: list[str]) -> None:
        """info registers|breakpoints|watchpoints|display|history: as gdb's info."""
        what = args[0].lower() if args else ""
        if what and "registers".startswith(what):
            self.cmd_regs([])
        elif what and "breakpoints".startswith(what):
            shown = []
            for address in sorted(self.breakpoints):
                condition = self.conditions.get(address)
                temporary = " (temporary)" if address in self.temporary else ""
                shown.append(self.where(address) + (f" if {condition.text}" if condition else "") + temporary)
            self.say("Breakpoints: " + (", ".join(shown) or "none"))
            self.cmd_info(["watchpoints"])
        elif what and "watchpoints".startswith(what):
            self.say("Watches: " + (", ".join(self.watch_list.describe()) or "none"))
        elif what and "display".startswith(what):
            self.cmd_display([])
        elif what and "history".startswith(what):
            history = self._history()
            self.say(
                f"History: instructions {history.start}-{history.frontier}, {len(history.checkpoints)}"
                f" checkpoints, about {history.memory_bytes() // 1024} KiB"
            )
        else:
            raise CommandError("info registers, breakpoints, watchpoints, display or history")

    def cmd_mem(self, args: list[str]) -> None:
        """mem [ADDR [N]] (x/N ADDR): N words (default 1) from ADDR (default: after the last shown)."""
        if len(args) > 2:
            raise CommandError("mem takes an address and, if you like, a count")
        start = self.address(args[0]) if args else self.next_mem if self.next_mem is not None else self.sim.pc
        count = self._count(args[1:])
        for address in range(start, min(start + count, WORD_MASK + 1)):
            word = self.sim.machine.mem[address]
            char = repr(chr(word)) if 32 <= word < 127 else ""
            label = self.labels.get(address, "")
            self.say(f"x{address:04X}  {label:<12} x{word:04X} {to_signed(word):>6} {char}".rstrip())
        self.next_mem = min(start + count, WORD_MASK)

    def cmd_list(self, args: list[str]) -> None:
        """list [LOC]: source lines (or instructions) around LOC (default the PC); => the PC, * a break."""
        center = self.address(args[0]) if args else self.sim.pc
        if self._list_source(center):
            return
        for address in range(max(0, center - LIST_AROUND), min(WORD_MASK + 1, center + LIST_AROUND + 1)):
            mark = "=>" if address == self.sim.pc else " *" if address in self.breakpoints else "  "
            label = self.labels.get(address, "")
            word = self.sim.machine.mem[address]
            self.say(f"{mark} x{address:04X}  {word:04X}  {label:<12} {self.text(address)}")

    def _list_source(self, center: int) -> bool:
        """The lines of the .asm around the line of center, with the address of each line that
        made words; False when center has no source line or its file cannot be read."""
        source = self.places.line(center)
        if source is None:
            return False
        try:
            lines = Path(source.path).read_text(errors="replace").splitlines()
        except OSError:
            return False
        addresses: dict[int, int] = {}  # line -> its first address, in this file
        for address, line in sorted(self.places.lines.items(), reverse=True):
            if line.path == source.path:
                addresses[line.line] = address
        pc_line = self.places.line(self.sim.pc)
        breaks = {self.places.line(a).line for a in self.breakpoints if self.places.line(a) is not None}
        first = max(1, source.line - LIST_AROUND)
        for number in range(first, min(len(lines), source.line + LIST_AROUND) + 1):
            here = pc_line is not None and pc_line.path == source.path and pc_line.line == number
            mark = "=>" if here else " *" if number in breaks else "  "
            address = f"x{addresses[number]:04X}" if number in addresses else "     "
            self.say(f"{mark} {number:>4}  {address}  {lines[number - 1]}".rstrip())
        return True

    def cmd_set(self, args: list[str]) -> None:
        """set R3 x10 | set PC LOC | set ADDR VALUE: a register, the PC, or a memory word."""
        if len(args) != 2:
            raise CommandError("set takes a register or address and a value")
        target, value = args[0].upper(), self._value(args[1])
        if target == "PC":
            self.sim.pc = value & WORD_MASK
            self.frames = []
            self.ended = None  # a program that ended may go on from elsewhere
        elif re.fullmatch(r"R[0-7]", target):
            self.sim.registers[int(target[1])] = value
            self.watch_list.resync(self.sim.machine)
        elif re.fullmatch(r"R\d+", target):
            raise CommandError(f"no register {args[0]}: the registers are R0-R7")
        else:
            address = self.address(args[0])
            self.sim.memory[address] = value
            self.watch_list.resync(self.sim.machine)
        if self.history is not None:
            self.history.diverge()
        self.say(f"{args[0]} = x{value & WORD_MASK:04X}")

    def cmd_help(self, args: list[str]) -> None:
        """help: this list."""
        for command in self.commands.values():
            self.say((command.__doc__ or "").split("\n")[0])
        self.say(
            "quit: leave the debugger.  Abbreviations: b d s n c r i x back rs rn rc, or any unique prefix."
        )

    def _count(self, args: list[str]) -> int:
        if not args:
            return 1
        value = parse_number(args[0]) if args[0][:1] in "x#b" else parse_number("#" + args[0])
        if value is None or value < 1:
            raise CommandError(f"not a count: {args[0]!r}")
        return value

    def _value(self, text: str) -> int:
        value = parse_number(text)
        if value is not None:
            if not -0x8000 <= value <= WORD_MASK:
                raise CommandError(f"{text!r} does not fit in 16 bits")
            return value
        return self.address(text)


PROMPT = "(lc3) "


def interact(
    debugger: Debugger, script: TextIO | None, history: str | None = None, keep_going: bool = False
) -> int:
    """Read commands until quit or the end: from a script (each echoed after the prompt, so
    the transcript reads like a session), or typed at the prompt with readline's editing
    and a history kept in `history` across sessions. The exit code: a script stops at its
    first failed command with 1, as gdb -batch does, unless keep_going."""
    debugger.show_pc()
    if script is not None:
        failed = False
        for line in script:
            debugger.say(PROMPT + line.rstrip("\n"))
            if not debugger.execute(line):
                break
            failed = failed or debugger.last_error is not None
            if failed and not keep_going:
                debugger.say("Stopped at the first failed command (--keep-going goes on).")
                return 1
        return 1 if failed else 0
    readline = _readline(history)
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                debugger.say()
                return 0
            except KeyboardInterrupt:
                debugger.say()
                continue
            try:
                if not debugger.execute(line):
                    return 0
            except KeyboardInterrupt:  # outside a run (which reports its own): back to the prompt
                debugger.say("Interrupted")
    finally:
        if readline is not None and history is not None:
            with contextlib.suppress(OSError):
                readline.write_history_file(history)


def _readline(history: str | None) -> ModuleType | None:
    """Line editing and history for input(), where the platform has readline."""
    try:
        import readline
    except ImportError:  # pragma: no cover - not on every platform
        return None
    if history is not None:
        with contextlib.suppress(OSError):
            readline.read_history_file(history)
    return readline
