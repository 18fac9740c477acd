"""The debugger behind `lc3jit debug`: breakpoints, watches, stepping, at translated speed.

Between stops the program runs on its engine (regions by default), at full speed: a
breakpoint is a stop the engine keeps (`set_stop`): translations covering its address are
dropped, and code translated from then on ends its blocks and regions before it, so only
a jump there comes back to the dispatcher, whose table entry for that PC stops. Code that
never reaches a breakpoint runs exactly as without one; deleting it translates the code
around it whole again. A watch marks its word in the machine's write map, so the stores
into it take the slow path, where the debugger stops the run after the store.

Stepping (`step`, and `finish` when the debugger did not see the call being made) goes
through an interpreter of the debugger's own, one instruction at a time; `next` runs the
call it steps over on the engine, stopping at the return point once the stack pointer is
back where it was (a recursive call's return to the same point does not stop it).

Commands (`help` lists them): break/delete at a label or address, watch, step [N], next,
finish, continue, regs, mem ADDR [N], list [LOC], set R3 x10 / set PC LOC / set x3100 #5,
run/restart, quit. Labels come from the .asm or the .sym of every file loaded.
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TextIO

from lc3jit.api import Simulator
from lc3jit.session import Runnable, run_engine
from lc3jit.toolchain.disasm import instruction_text, labels_by_address
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import Watched
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import WORD_MASK, Flow, Instruction, decode, to_signed
from lc3jit_runtime.machine import IO_BASE, WATCH_OBSERVED
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

#: How far from a label an address is still shown as LABEL+n.
LABEL_REACH = 0x100
#: Words `list` shows before and after the PC.
LIST_AROUND = 5

ARRIVED = Outcome(Ending.ARRIVED)  # a temporary stop reached: next or finish done
BREAKPOINT = Outcome(Ending.BREAKPOINT)
#: Endings after which the program cannot go on: `run` starts it again.
ENDED = (Ending.HALT, Ending.FAULT, Ending.INPUT_EXHAUSTED)


class CommandError(Exception):
    """A command that cannot be done as typed: one line for the user, then the prompt."""


def _calls(ins: Instruction) -> bool:
    """JSR, JSRR or TRAP: what `next` steps over."""
    return ins.form.flow in (Flow.CALL, Flow.TRAP)


def _returns(ins: Instruction) -> bool:
    return ins.form.flow is Flow.RTI or ins.is_return


class Debugger:
    """A program under the debugger: what the commands act on, and how they print."""

    def __init__(self, make: Callable[[], Simulator], out: TextIO, max_steps: int | None = None) -> None:
        self.make = make  # a fresh Simulator: at the start, and for run/restart
        self.out = out
        self.max_steps = max_steps
        self.breakpoints: set[int] = set()
        self.watches: dict[int, int] = {}  # address -> the value last seen there
        self.frames: list[tuple[int, int]] = []  # (return PC, R6) of calls seen being made
        self.pushed: list[str] = []  # watched words written by pushes since the last stop
        self.commands: dict[str, Callable[[list[str]], None]] = {
            "break": self.cmd_break,
            "delete": self.cmd_delete,
            "watch": self.cmd_watch,
            "step": self.cmd_step,
            "next": self.cmd_next,
            "finish": self.cmd_finish,
            "continue": self.cmd_continue,
            "regs": self.cmd_regs,
            "mem": self.cmd_mem,
            "list": self.cmd_list,
            "set": self.cmd_set,
            "run": self.cmd_run,
            "restart": self.cmd_restart,
            "help": self.cmd_help,
        }
        self.aliases = {"b": "break", "d": "delete", "s": "step", "n": "next", "c": "continue", "r": "run"}
        self.load()

    # The program.
    def load(self) -> None:
        """A fresh machine from the files, with the breakpoints and watches kept."""
        self.sim = sim = self.make()
        machine = sim.machine
        self.stepper = Interpreter(machine)
        machine.observer = self._observed
        for address in self.breakpoints:
            sim.engine.set_stop(address, True)
        for address in self.watches:
            machine.watch[address] |= WATCH_OBSERVED
            self.watches[address] = machine.mem[address]
        self.labels = labels_by_address(sim.symbols)
        self.label_addresses = sorted(self.labels)
        self.frames = []
        self.ended: Outcome | None = None

    def _observed(self, address: int, value: int, at: int, pushed: bool) -> None:
        """A store into a watched word: stop after the store instruction. A push by TRAP, an
        exception or an interrupt cannot stop in the middle of entering the supervisor: it
        is reported at the next stop."""
        if address not in self.watches:
            return
        old, self.watches[address] = self.watches[address], value
        change = f"watch {self.where(address)}: x{old:04X} -> x{value:04X}, by x{at:04X}"
        if pushed:
            self.pushed.append(change + " (a push)")
        else:
            raise Watched(at, True, change)

    def address(self, text: str) -> int:
        try:
            return self.sim.address(text)
        except (KeyError, ValueError):
            raise CommandError(f"no label or address {text!r}") from None

    def where(self, address: int) -> str:
        """x3005 <LOOP+2>: the address, and the nearest label before it if close."""
        index = bisect.bisect_right(self.label_addresses, address) - 1
        if index < 0 or address - self.label_addresses[index] > LABEL_REACH:
            return f"x{address:04X}"
        base = self.label_addresses[index]
        offset = f"+{address - base}" if address != base else ""
        return f"x{address:04X} <{self.labels[base]}{offset}>"

    def say(self, text: str = "") -> None:
        """A line of the debugger's, on a line of its own after the program's output."""
        console = self.sim.console
        if console.mid_line:
            console.mid_line = False
            text = "\n" + text
        self.out.write(text + "\n")
        self.out.flush()

    # Running.
    def _run(self, runnable: Runnable, steps: int | None) -> Outcome:
        """Run `steps` instructions (None: until a stop) within --max-steps; the console's
        output is flushed before the debugger speaks again."""
        budget = steps
        if self.max_steps is not None:
            left = self.max_steps - self.sim.machine.icount
            if left <= 0:
                return self.limit_reached
            budget = left if steps is None else min(steps, left)
        outcome = run_engine(runnable, budget).outcome
        return self.limit_reached if outcome.ending is Ending.STEP_LIMIT and steps is None else outcome

    @property
    def limit_reached(self) -> Outcome:
        return Outcome(Ending.STEP_LIMIT, f"the step limit (--max-steps {self.max_steps}) is reached")

    def step_one(self) -> Outcome:
        """One instruction in the debugger's interpreter (a breakpoint at the PC does not stop it)."""
        return self._run(self.stepper, 1)

    def go(self) -> Outcome:
        """Run on the engine from the PC until a stop, stepping over a breakpoint at the PC."""
        if self.sim.pc in self.breakpoints:
            outcome = self.step_one()
            if outcome is not STEP_LIMIT:
                return outcome
        return self._run(self.sim.engine, None)

    def run_to(self, target: int, sp: int | None) -> Outcome:
        """Run on the engine until the PC is target with R6 = sp (any R6 if None), or another stop."""
        engine, machine = self.sim.engine, self.sim.machine
        temporary = target not in self.breakpoints
        if temporary:
            engine.set_stop(target, True)
        try:
            outcome = self._run(engine, None)
            while outcome.ending is Ending.BREAKPOINT and machine.pc == target:
                if sp is None or machine.reg[6] == sp:
                    return ARRIVED
                if target in self.breakpoints:
                    return outcome
                outcome = self.step_one()  # a deeper call's return to the same point
                if outcome is STEP_LIMIT:
                    outcome = self._run(engine, None)
            return outcome
        finally:
            if temporary:
                engine.set_stop(target, False)

    def current(self) -> Instruction:
        pc = self.sim.pc
        return decode(self.sim.machine.mem[pc], pc)

    def step_tracking(self) -> Outcome:
        """step_one, keeping `frames` for finish: a call entered pushes, a return pops."""
        ins, sp = self.current(), self.sim.machine.reg[6]
        outcome = self.step_one()
        if _calls(ins) and self.sim.pc != ins.next_pc:
            self.frames.append((ins.next_pc, sp))
        elif _returns(ins) and self.frames and self.sim.pc == self.frames[-1][0]:
            self.frames.pop()
        return outcome

    def report(self, outcome: Outcome) -> None:
        """Say why the run stopped and where it is now."""
        machine = self.sim.machine
        for change in self.pushed:
            self.say(change[:1].upper() + change[1:])
        self.pushed = []
        match outcome.ending:
            case Ending.BREAKPOINT:
                self.say(f"Breakpoint at {self.where(machine.pc)}")
            case Ending.WATCH:
                self.say(outcome.message[:1].upper() + outcome.message[1:])
            case Ending.HALT:
                self.say(f"The program halted after {machine.icount} instructions.")
            case ending if ending.by_signal:
                self.say(f"Interrupted at {self.where(machine.pc)}")
            case Ending.STEP_LIMIT if outcome is not STEP_LIMIT:
                self.say(f"Stopped: {outcome.message}")
            case Ending.FAULT | Ending.INPUT_EXHAUSTED:
                self.say(f"Stopped: {outcome.message}")
        if outcome.ending in ENDED:
            self.ended = outcome
        else:
            self.show_pc()

    def show_pc(self) -> None:
        pc = self.sim.pc
        self.say(f"=> {self.where(pc)}  {self.sim.machine.mem[pc]:04X}  {self.text(pc)}")

    def text(self, address: int) -> str:
        return instruction_text(decode(self.sim.machine.mem[address], address), self.labels)

    def running(self) -> None:
        if self.ended is not None:
            raise CommandError("the program is not running: `run` starts it again")

    # Commands.
    def execute(self, line: str) -> bool:
        """Do one command line; False after quit."""
        words = line.split()
        if not words:
            return True
        name = self.aliases.get(words[0].lower(), words[0].lower())
        if name in ("quit", "q", "exit"):
            return False
        matches = [c for c in self.commands if c.startswith(name)]
        command = self.commands.get(name) or (self.commands[matches[0]] if len(matches) == 1 else None)
        if command is None:
            self.say(f"error: unknown command {words[0]!r} (help lists them)")
            return True
        try:
            command(words[1:])
        except CommandError as e:
            self.say(f"error: {e}")
        return True

    def cmd_break(self, args: list[str]) -> None:
        """break [LOC]: stop before the instruction at LOC (a label or an address); alone, list."""
        if not args:
            self.say("Breakpoints: " + (", ".join(self.where(a) for a in sorted(self.breakpoints)) or "none"))
            watches = ", ".join(f"{self.where(a)} = x{v:04X}" for a, v in sorted(self.watches.items()))
            self.say("Watches: " + (watches or "none"))
            return
        for address in map(self.address, args):
            if address not in self.breakpoints:
                self.breakpoints.add(address)
                self.sim.engine.set_stop(address, True)
            self.say(f"Breakpoint at {self.where(address)}")

    def cmd_delete(self, args: list[str]) -> None:
        """delete [LOC...]: remove the breakpoint or watch at LOC; alone, remove them all."""
        targets: Iterable[int] = list(map(self.address, args)) if args else [*self.breakpoints, *self.watches]
        for address in targets:
            if address in self.breakpoints:
                self.breakpoints.discard(address)
                self.sim.engine.set_stop(address, False)
            elif address in self.watches:
                del self.watches[address]
                self.sim.machine.watch[address] &= ~WATCH_OBSERVED
            else:
                raise CommandError(f"no breakpoint or watch at {self.where(address)}")
            self.say(f"Deleted {self.where(address)}")

    def cmd_watch(self, args: list[str]) -> None:
        """watch LOC: stop after an instruction (ST, STI, STR) stores into the word at LOC."""
        if len(args) != 1:
            raise CommandError("watch takes one label or address")
        address = self.address(args[0])
        if address >= IO_BASE:
            raise CommandError("device registers cannot be watched")
        self.watches[address] = self.sim.machine.mem[address]
        self.sim.machine.watch[address] |= WATCH_OBSERVED
        self.say(f"Watching {self.where(address)} = x{self.watches[address]:04X}")

    def cmd_step(self, args: list[str]) -> None:
        """step [N]: run one instruction (N), into calls and traps; stops at breakpoints."""
        self.running()
        count = self._count(args)
        outcome = STEP_LIMIT
        for _ in range(count):
            outcome = self.step_tracking()
            if outcome is not STEP_LIMIT or self.sim.pc in self.breakpoints:
                break
        if outcome is STEP_LIMIT and self.sim.pc in self.breakpoints and count > 1:
            outcome = BREAKPOINT
        self.report(outcome)

    def cmd_next(self, args: list[str]) -> None:
        """next: one instruction, running a JSR, JSRR or TRAP through to its return."""
        self.running()
        ins, sp = self.current(), self.sim.machine.reg[6]
        outcome = self.step_one()
        if outcome is STEP_LIMIT and _calls(ins) and self.sim.pc != ins.next_pc:
            outcome = self.run_to(ins.next_pc, sp)
        self.report(STEP_LIMIT if outcome is ARRIVED else outcome)

    def cmd_finish(self, args: list[str]) -> None:
        """finish: run until the current subroutine (or trap routine) returns."""
        self.running()
        if self.frames:
            target, sp = self.frames.pop()
            outcome = self.run_to(target, sp)
        else:
            outcome = self._finish_stepping()
        self.report(STEP_LIMIT if outcome is ARRIVED else outcome)

    def _finish_stepping(self) -> Outcome:
        """No call seen being made: step, counting calls and returns, to the return that
        leaves the current routine (exact, in the interpreter)."""
        depth = 0
        while True:
            ins = self.current()
            outcome = self.step_one()
            if outcome is not STEP_LIMIT:
                return outcome
            if _calls(ins) and self.sim.pc != ins.next_pc:
                depth += 1
            elif _returns(ins):
                if depth == 0:
                    return ARRIVED
                depth -= 1
            if self.sim.pc in self.breakpoints:
                return BREAKPOINT

    def cmd_continue(self, args: list[str]) -> None:
        """continue: run at full speed until a breakpoint, a watch, or the end."""
        self.running()
        self.frames = []
        self.report(self.go())

    def cmd_run(self, args: list[str]) -> None:
        """run: start the program again from the beginning (if it ran) and continue."""
        if self.sim.machine.icount or self.ended is not None:
            self.load()
        at_start = self.sim.pc in self.breakpoints  # a breakpoint on the first instruction stops there
        self.report(BREAKPOINT if at_start else self.go())

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

    def cmd_mem(self, args: list[str]) -> None:
        """mem ADDR [N]: N words (default 1) from ADDR: hex, signed, character, label."""
        if not 1 <= len(args) <= 2:
            raise CommandError("mem takes an address and a count")
        start, count = self.address(args[0]), self._count(args[1:])
        for address in range(start, min(start + count, WORD_MASK + 1)):
            word = self.sim.machine.mem[address]
            char = repr(chr(word)) if 32 <= word < 127 else ""
            label = self.labels.get(address, "")
            self.say(f"x{address:04X}  {label:<12} x{word:04X} {to_signed(word):>6} {char}".rstrip())

    def cmd_list(self, args: list[str]) -> None:
        """list [LOC]: instructions around LOC (default the PC), labels; => the PC, * a breakpoint."""
        center = self.address(args[0]) if args else self.sim.pc
        for address in range(max(0, center - LIST_AROUND), min(WORD_MASK + 1, center + LIST_AROUND + 1)):
            mark = "=>" if address == self.sim.pc else " *" if address in self.breakpoints else "  "
            label = self.labels.get(address, "")
            word = self.sim.machine.mem[address]
            self.say(f"{mark} x{address:04X}  {word:04X}  {label:<12} {self.text(address)}")

    def cmd_set(self, args: list[str]) -> None:
        """set R3 x10 | set PC LOC | set ADDR VALUE: a register, the PC, or a memory word."""
        if len(args) != 2:
            raise CommandError("set takes a register or address and a value")
        target, value = args[0].upper(), self._value(args[1])
        if target == "PC":
            self.sim.pc = value
            self.frames = []
            self.ended = None  # a program that ended may go on from elsewhere
        elif len(target) == 2 and target[0] == "R" and target[1] in "01234567":
            self.sim.registers[int(target[1])] = value
        else:
            address = self.address(args[0])
            self.sim.memory[address] = value
            if address in self.watches:
                self.watches[address] = value & WORD_MASK
        self.say(f"{args[0]} = x{value & WORD_MASK:04X}")

    def cmd_help(self, args: list[str]) -> None:
        """help: this list."""
        for command in self.commands.values():
            self.say((command.__doc__ or "").split("\n")[0])
        self.say("quit: leave the debugger.  Abbreviations: b d s n c r, or any unique prefix.")

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


def interact(debugger: Debugger, script: TextIO | None, history: str | None = None) -> None:
    """Read commands until quit or the end: from a script (each echoed after the prompt, so
    the transcript reads like a session), or typed at the prompt with readline's editing
    and a history kept in `history` across sessions."""
    debugger.show_pc()
    if script is not None:
        for line in script:
            debugger.say(PROMPT + line.rstrip("\n"))
            if not debugger.execute(line):
                return
        return
    readline = _readline(history)
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                debugger.say()
                return
            except KeyboardInterrupt:
                debugger.say()
                continue
            try:
                if not debugger.execute(line):
                    return
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
