"""Watching a program as a grader wants to: the subroutines it calls, the words it touches.

Each observation costs only what it must (`examples/grading/benchmark.py` measures them):
- Calls run at translated speed: the engine stops at the entries of the subroutines
  watched and at the return points of the calls under way (breakpoints, which end
  translated regions there and nowhere else), the watcher records the call and steps
  over that one instruction on the interpreter.
- Writes run at translated speed: every word is marked in the write map, so each store
  takes the slow path, which tells the watcher.
- Reads (and the strict mode, which needs them) step the interpreter one instruction at a
  time and look at each load's address first: translated code reads memory without
  asking anyone, so nothing cheaper can see a read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lc3jit_runtime.endings import Ending
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import WORD_MASK, Instruction, decode
from lc3jit_runtime.machine import IO_BASE, WATCH_OBSERVED, Machine
from lc3jit_runtime.outcome import STEP_LIMIT, UNLIMITED, Outcome

if TYPE_CHECKING:
    from lc3jit.session import Engine


@dataclass
class Call:
    """A subroutine call seen: `args` as its convention declares them (empty if undeclared),
    `caller` the index in `calls` of the call it was made from (None at the top)."""

    name: str
    address: int
    args: tuple[int, ...]
    depth: int
    caller: int | None
    return_address: int
    returned: bool = False
    value: int | None = None


@dataclass
class Subroutine:
    """How a subroutine takes its arguments and gives its result (see lc3jit.grading.calls)."""

    name: str
    address: int
    stack: bool = False  # the stack convention: arguments on the R6 stack, result at M[R6]
    params: tuple[str, ...] = ()
    registers: tuple[int, ...] = ()  # the register of each parameter (register convention)
    result: int | None = 0  # the result's register (register convention); None: no result

    def arguments(self, machine: Machine) -> tuple[int, ...]:
        """The arguments at entry."""
        if self.stack:
            sp = machine.reg[6]
            return tuple(machine.mem[(sp + i) & WORD_MASK] for i in range(len(self.params)))
        return tuple(machine.reg[r] for r in self.registers)

    def value(self, machine: Machine) -> int | None:
        """The result on return."""
        if self.stack:
            return machine.mem[machine.reg[6]]
        return None if self.result is None else machine.reg[self.result]


class CallWatcher:
    """Runs an engine, stopping at the entries of `subroutines` and at the return points of
    the calls under way, and records each call in `calls`."""

    name = "calls watched"

    def __init__(
        self, engine: Engine, step_one: Callable[[], Outcome], subroutines: dict[int, Subroutine]
    ) -> None:
        self.engine = engine
        self.machine = engine.machine
        self.stops = engine.stops  # the same set: a stop is the engine's
        self.step_one = step_one  # runs one instruction whatever the stops
        self.subroutines = subroutines
        self.calls: list[Call] = []
        self.open: list[int] = []  # indices in calls of the calls under way, innermost last
        self.own_stops: set[int] = set()
        for address in subroutines:
            self._stop_at(address)
            self.own_stops.add(address)  # an entry is ours even where a breakpoint stands

    def set_stop(self, pc: int, on: bool) -> None:
        self.engine.set_stop(pc, on)

    def _stop_at(self, address: int) -> None:
        """Stop there from now on; a stop someone else set (the API's return point, a
        breakpoint) stays theirs: the run ends there as they want."""
        if address not in self.own_stops and address not in self.engine.stops:
            self.own_stops.add(address)
            self.engine.set_stop(address, True)

    def run(self, max_steps: int | None = None) -> Outcome:
        m = self.machine
        limit = UNLIMITED if max_steps is None else max_steps
        start = m.icount
        while True:
            left = limit - (m.icount - start)
            if left <= 0:
                return STEP_LIMIT
            outcome = self.engine.run(left)
            if outcome.ending is not Ending.BREAKPOINT:
                return outcome
            pc = m.pc
            self._returned_to(pc)
            if pc not in self.own_stops:
                return outcome  # someone else's stop: the API's return point, a breakpoint
            if pc in self.subroutines:
                self._entered(self.subroutines[pc])
            outcome = self.step_one()
            if outcome is not STEP_LIMIT:
                return outcome

    def _entered(self, subroutine: Subroutine) -> None:
        m = self.machine
        caller = self.open[-1] if self.open else None
        call = Call(
            subroutine.name, subroutine.address, subroutine.arguments(m), len(self.open), caller, m.reg[7]
        )
        self.open.append(len(self.calls))
        self.calls.append(call)
        self._stop_at(call.return_address)

    def _returned_to(self, pc: int) -> None:
        """Close the innermost call under way that returns to pc, and any left open inside it."""
        for depth in range(len(self.open) - 1, -1, -1):
            call = self.calls[self.open[depth]]
            if call.return_address == pc:
                call.returned = True
                call.value = self.subroutines[call.address].value(self.machine)
                del self.open[depth:]
                return


@dataclass
class Accesses:
    """Memory reads and writes by the program's instructions (traps' own reads excluded)."""

    reads: Counter[int] = field(default_factory=Counter)
    writes: Counter[int] = field(default_factory=Counter)
    first_reader: dict[int, int] = field(default_factory=dict)  # address -> PC of the first read
    first_writer: dict[int, int] = field(default_factory=dict)


def loads_of(ins: Instruction, machine: Machine) -> tuple[int, ...]:
    """The addresses the instruction will read as data, given the registers now."""
    name, mem, reg = ins.form.name, machine.mem, machine.reg
    if name in ("LD", "LDI", "STI"):  # STI reads its pointer
        pointer = ins.target
        assert pointer is not None  # a PC-relative form
        return (pointer, mem[pointer]) if name == "LDI" else (pointer,)
    if name == "LDR":
        assert ins.baser is not None and ins.offset6 is not None
        return ((reg[ins.baser] + ins.offset6) & WORD_MASK,)
    return ()


class MemoryWatcher:
    """Runs the interpreter one instruction at a time, recording each load's address first;
    in strict mode a load of a word that nothing wrote (program, test or loader) stops the
    run before that instruction with a "strict" outcome naming the word and the reader.

    Writes are seen through the write map (every word observed), so pushes count too.
    """

    name = "interp (memory watched)"

    def __init__(self, machine: Machine, written: set[int] | None = None) -> None:
        self.machine = machine
        self.interpreter = Interpreter(machine)
        self.stops: set[int] = set()
        self.accesses = Accesses()
        #: Words something wrote; None when not strict.
        self.written = written
        self.violation: tuple[int, int] | None = None  # (address, reader's PC)
        self._decoded: dict[tuple[int, int], Instruction] = {}

    def set_stop(self, pc: int, on: bool) -> None:
        if on:
            self.stops.add(pc)
        else:
            self.stops.discard(pc)

    def stored(self, address: int, value: int, at: int, pushed: bool) -> None:
        """The write map's observer: a store into any word."""
        if address < IO_BASE:
            self.accesses.writes[address] += 1
            self.accesses.first_writer.setdefault(address, at)
            if self.written is not None:
                self.written.add(address)

    def run(self, max_steps: int | None = None, stop_at_stops: bool = True) -> Outcome:
        m, step = self.machine, self.interpreter.run
        accesses, written = self.accesses, self.written
        for _ in range(UNLIMITED if max_steps is None else max_steps):
            pc = m.pc
            if stop_at_stops and pc in self.stops:
                return Outcome(Ending.BREAKPOINT, f"breakpoint at x{pc:04X}")
            word = m.mem[pc]
            ins = self._decoded.get((pc, word))
            if ins is None:
                ins = self._decoded[(pc, word)] = decode(word, pc)
            for address in loads_of(ins, m):
                if address >= IO_BASE:
                    continue
                if written is not None and address not in written:
                    self.violation = (address, pc)
                    return Outcome(Ending.STRICT, f"read of x{address:04X}, which nothing wrote")
                accesses.reads[address] += 1
                accesses.first_reader.setdefault(address, pc)
            outcome = step(1)
            if outcome is not STEP_LIMIT:
                return outcome
        return STEP_LIMIT

    def step_one(self) -> Outcome:
        """One instruction, observed, whatever the stops (what a CallWatcher steps over with)."""
        return self.run(1, stop_at_stops=False)

    def watch_writes(self) -> None:
        mark_all(self.machine, self.stored)


def mark_all(machine: Machine, observer: Callable[[int, int, int, bool], None]) -> None:
    """Send every store below the device registers to observer (the write map's slow path)."""
    machine.observer = observer
    machine.mark(0, IO_BASE, WATCH_OBSERVED)
