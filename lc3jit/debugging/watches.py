"""Watches on registers and on memory reads: gdb's `watch $r2`, `rwatch ADDR`, `awatch ADDR`.

A store is seen by the machine itself (the write map's WATCH_OBSERVED sends it to the
debugger's observer), so a watch on stores costs nothing to translated code that does not
store into its word. Reads and register changes have no such hook: translated code reads
memory and keeps registers in Python locals without looking at anything, and giving it a
check at every load would slow every program. So while a register watch or a read watch is
set, the debugger runs the program in an interpreter whose steps check what the watches ask
(`CheckingInterpreter`), as gdb falls back to software watchpoints: an instruction that reads
memory first works out which words it will read (the state before it runs decides them), and
after one that may change a watched register the registers are compared with the values
last seen. The
instruction that read the word or changed the register completes, and the run stops after
it, as after a watched store. Steps that have nothing to check are the interpreter's own.

The same interpreter, with another check, finds the calls and returns of a stretch for
`reverse-finish` (lc3jit/debugging/backward.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import takewhile

from lc3jit_runtime.errors import Leave, Watched
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import NOOP_WORDS, WORD_MASK, Flow, Instruction, decode
from lc3jit_runtime.machine import IO_BASE, TRAP_TABLE, WATCH_OBSERVED, Machine, user_address
from lc3jit_runtime.traps import HOST_TRAPS

#: A check of one instruction: called before it runs, it returns what it needs after; then
#: called with that and the next PC, it returns why the run stops there (None: it goes on).
Check = tuple[Callable[[], object], Callable[[object, int], str | None]]

#: gdb's commands, and the accesses each stops at.
KINDS = {"watch": "write", "rwatch": "read", "awatch": "access"}
REGISTER = re.compile(r"\$?[rR]([0-7])")
PUTS, PUTSP = 0x22, 0x24


def words_read(ins: Instruction, m: Machine) -> Iterable[int]:
    """The words of memory the instruction reads as data if it runs now (not its fetch).

    LD, LDR, LDI (the pointer, then the word it points to), STI (the pointer), RTI (its two
    pops), TRAP (its vector, where it goes through the table; PUTS and PUTSP run by the host
    read their string, up to its x0000 word). Under access control, user mode reads up to
    the first word closed to it (which takes the exception instead)."""
    name = ins.form.name
    if name in ("LD", "STI"):
        reads: tuple[int, ...] = (ins.target,)  # type: ignore[assignment]
    elif name == "LDR":
        reads = ((m.reg[ins.baser] + ins.offset6) & WORD_MASK,)  # type: ignore[index,operator]
    elif name == "LDI":
        pointer: int = ins.target  # type: ignore[assignment]
        reads = (pointer, m.mem[pointer]) if pointer < IO_BASE else (pointer,)
    elif name == "RTI":
        reads = () if m.user_mode else (m.reg[6], (m.reg[6] + 1) & WORD_MASK)
    elif name == "TRAP":
        vector: int = ins.trapvect8  # type: ignore[assignment]
        if not (m.host_traps and vector in HOST_TRAPS):
            return (TRAP_TABLE + vector,)
        return _string(m) if vector in (PUTS, PUTSP) else ()
    else:
        return ()
    if m.access_control and m.user_mode:
        reads = tuple(takewhile(user_address, reads))
    return reads


def _string(m: Machine) -> range | tuple[int, ...]:
    """The words PUTS reads: from R0 to its x0000 word (around the end of memory, if so)."""
    start = m.reg[0]
    try:
        return range(start, m.mem.index(0, start) + 1)
    except ValueError:
        pass
    try:
        return (*range(start, len(m.mem)), *range(m.mem.index(0, 0, start) + 1))
    except ValueError:
        return ()  # no end anywhere: the trap faults without reading


class CheckingInterpreter(Interpreter):
    """An interpreter whose steps run a check around each instruction `checks` gives one
    for, and stop the run after it (Watched) when the check says so."""

    def __init__(self, machine: Machine, checks: Callable[[Instruction], Check | None]) -> None:
        super().__init__(machine)
        self.checks = checks

    def step_at(self, pc: int) -> Callable[[int], int]:
        if self.steps[pc] is not self._miss:
            return self.steps[pc]
        step = super().step_at(pc)
        word = self.machine.mem[pc]
        check = None if word < NOOP_WORDS else self.checks(decode(word, pc))
        if check is not None:
            step = checked(step, check, pc)
            self.keep(pc, pc + 1, step)
        return step

    def refresh(self) -> None:
        """The checks changed: every word gets its step (and check) again when reached."""
        self._stop(False)


def checked(step: Callable[[int], int], check: Check, at: int) -> Callable[[int], int]:
    """step, with check around it: a stop after the instruction, which completes."""
    before, after = check

    def run(pc: int) -> int:
        seen = before()
        try:
            next_pc = step(pc)
        except Leave as leave:
            stop = after(seen, leave.resume_pc)
            if stop is not None:
                raise _stop(at, leave.resume_pc, stop) from None
            raise
        stop = after(seen, next_pc)
        if stop is not None:
            raise _stop(at, next_pc, stop)
        return next_pc

    return run


def _stop(at: int, resume_pc: int, message: str) -> Watched:
    stop = Watched(at, True, message)
    stop.resume_pc = resume_pc  # after a jump, a call or a trap: where it went
    return stop


def _nothing() -> tuple[()]:
    return ()


@dataclass
class WatchList:
    """What the debugger watches: memory words (the accesses that stop at each), registers.

    `memory` holds every watched word's value as last seen (as `Debugger.watches` always
    has), `kinds` whether stores, reads or both stop there, `registers` each watched
    register's value as last seen. While `quiet` (a replay going back) nothing stops."""

    where: Callable[[int], str]
    memory: dict[int, int] = field(default_factory=dict)
    kinds: dict[int, str] = field(default_factory=dict)
    registers: dict[int, int] = field(default_factory=dict)
    quiet: bool = False

    @property
    def checked(self) -> bool:
        """Is a watch set that only an interpreter checking each instruction sees?"""
        return bool(self.registers) or any(kind != "write" for kind in self.kinds.values())

    def add(self, machine: Machine, target: str | int, kind: str = "write") -> str:
        """Watch a register ("R2") or a word (its address) for `kind` accesses; what it is now."""
        if isinstance(target, str):
            register = int(target[-1])
            self.registers[register] = machine.reg[register]
            return f"R{register} = x{machine.reg[register]:04X}"
        self.memory[target] = machine.mem[target]
        self.kinds[target] = kind
        machine.mark(target, target + 1, WATCH_OBSERVED)  # (for a read watch: to keep its value up to date)
        return self._word(target)

    def remove(self, machine: Machine, target: str | int) -> None:
        if isinstance(target, str):
            del self.registers[int(target[-1])]
        else:
            del self.memory[target], self.kinds[target]
            machine.watch[target] &= ~WATCH_OBSERVED

    def targets(self) -> list[str | int]:
        return [*(f"R{r}" for r in sorted(self.registers)), *sorted(self.memory)]

    def describe(self) -> list[str]:
        """Each watch and the value it last saw, as `info watchpoints` lists them."""
        shown = [f"R{r} = x{value:04X}" for r, value in sorted(self.registers.items())]
        return shown + [self._word(address) for address in sorted(self.memory)]

    def _word(self, address: int) -> str:
        kind = "" if self.kinds[address] == "write" else f" ({self.kinds[address]})"
        return f"{self.where(address)} = x{self.memory[address]:04X}{kind}"

    def arm(self, machine: Machine) -> None:
        """A fresh machine (run, restart): its write map marked, the values last seen its own."""
        for address in self.memory:
            machine.mark(address, address + 1, WATCH_OBSERVED)
        self.resync(machine)

    def resync(self, machine: Machine) -> None:
        """The values last seen are the machine's now (after going back, or a `set`)."""
        for address in self.memory:
            self.memory[address] = machine.mem[address]
        for register in self.registers:
            self.registers[register] = machine.reg[register]

    def stored(self, address: int, value: int, at: int) -> str | None:
        """A store into a watched word (from the machine's observer): why it stops, if it does."""
        old = self.memory.get(address)
        if old is None:
            return None
        self.memory[address] = value
        if self.quiet or self.kinds[address] == "read":
            return None
        kind = "watch" if self.kinds[address] == "write" else "access watch"
        return f"{kind} {self.where(address)}: x{old:04X} -> x{value:04X}, by x{at:04X}"

    def check(self, machine: Machine, ins: Instruction) -> Check | None:
        """The check of one instruction for the watches set now, if it needs one: the
        instructions that may change a watched register, the instructions that read memory
        when a word's reads are watched."""
        reading = [a for a, kind in self.kinds.items() if kind != "write"]
        if not _may_change(ins, self.registers) and not (reading and _may_read(ins)):
            return None
        reg, at = machine.reg, ins.address

        def before() -> list[int]:
            if not reading:
                return []
            return [a for a in words_read(ins, machine) if a in self.kinds and self.kinds[a] != "write"]

        def after(read: object, next_pc: int) -> str | None:
            stops = []
            for address in read:  # type: ignore[attr-defined]
                kind = "read watch" if self.kinds[address] == "read" else "access watch"
                stops.append(f"{kind} {self.where(address)}: read x{machine.mem[address]:04X}, by x{at:04X}")
            for register, old in self.registers.items():
                if reg[register] != old:
                    self.registers[register] = reg[register]
                    stops.append(f"watch R{register}: x{old:04X} -> x{reg[register]:04X}, by x{at:04X}")
            return "; ".join(stops) if stops and not self.quiet else None

        return (before if reading else _nothing), after


def _may_change(ins: Instruction, registers: Iterable[int]) -> bool:
    """May running ins change one of the registers? Its destination may; a call, a trap
    (R7; a host GETC or IN writes R0) and RTI may change more; R6 changes with the stack
    when an exception or an interrupt enters the supervisor, before or during any
    instruction, so a watch on R6 checks them all."""
    return any(r == 6 or r == ins.dr for r in registers) or (
        bool(registers) and ins.form.flow in (Flow.CALL, Flow.TRAP, Flow.RTI)
    )


def _may_read(ins: Instruction) -> bool:
    return ins.form.name in ("LD", "LDR", "LDI", "STI", "RTI", "TRAP")
