"""What the debugger shows and reads: stops, registers, memory, source lines, displays, and
the values and conditions the user types (`R2 == 0`, `M[COUNT] < #3`, `PC != LOOP`).

A stop shows the student's line: the address, the label it is near, the file and line,
and the line as written (with its comment), from the program's `.asm` (or the `.asm` beside
an `.obj`), or the disassembly where there is none (lc3jit/toolchain/places.py finds them).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from lc3jit.debugging.session import Session
from lc3jit.debugging.stops import ENDED, STEPPED, CommandError, Stop
from lc3jit.debugging.views import memory_lines, register_lines
from lc3jit.toolchain.disasm import instruction_text
from lc3jit.toolchain.numbers import parse_number
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.isa import WORD_MASK, decode, to_signed
from lc3jit_runtime.outcome import Outcome

#: Source lines `list` shows before and after the PC's (words, without source).
LIST_AROUND = 5

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


class Inspecting(Session):
    """The text debugger's half that shows: what a stop shows and the commands that look,
    printed to out."""

    def __init__(self, make: Callable[[], Any], out: TextIO, *args: Any, **options: Any) -> None:
        self.out = out
        self.displays: list[str] = []
        self.next_mem: int | None = None  # where `mem` alone goes on
        super().__init__(make, *args, **options)

    def say(self, text: str = "") -> None:
        """A line of the debugger's, on a line of its own after the program's output."""
        console = self.sim.console
        if console.mid_line:
            console.mid_line = False
            text = "\n" + text
        self.out.write(text + "\n")
        self.out.flush()

    # What a front end shows.
    def describe_stop(self, stop: Stop) -> list[str]:
        """The lines saying why the run stopped (before the PC's line)."""
        machine, outcome = self.sim.machine, stop.outcome
        lines = [change[:1].upper() + change[1:] for change in stop.pushes]
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
        for line in self.describe_stop(self.stop(outcome)):
            self.say(line)
        if outcome.ending not in ENDED:
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

    # What the user types: values, locations, conditions.
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

    def location(self, text: str) -> int:
        """Where `break`, `tbreak` and `until` go, as gdb reads it: a source line (`12`, or
        `fib.asm:12`: the first word at or after it, as a blank line or a comment moves to the
        next instruction), an address (`*x3005`, `*LOOP`, `x3005`) or a label (`LOOP+2`)."""
        text = text.strip()
        if text.startswith("*"):
            return self.address(text[1:])
        file, _, number = text.rpartition(":")
        if number.isdigit():
            return self._line_address(file or None, int(number))
        return self.address(text)

    def _line_address(self, file: str | None, number: int) -> int:
        """The first word of the source line number of file (None: the program's, the file
        of its first word), or of the next line that has one."""
        lines = self.places.lines
        if not lines:
            raise CommandError("no source lines are known: break *ADDR or break LABEL")
        paths = list(dict.fromkeys(line.path for _, line in sorted(lines.items())))
        if file is None:
            path = paths[0]
        else:
            matching = [p for p in paths if p == file or Path(p).name == file]
            if not matching:
                raise CommandError(f"no source file {file!r} in the program")
            path = matching[0]
        after = [
            (line.line, address)
            for address, line in lines.items()
            if line.path == path and line.line >= number
        ]
        if not after:
            raise CommandError(f"no instruction at or after line {number} of {Path(path).name}")
        return min(after)[1]

    def _value(self, text: str) -> int:
        value = parse_number(text)
        if value is not None:
            if not -0x8000 <= value <= WORD_MASK:
                raise CommandError(f"{text!r} does not fit in 16 bits")
            return value
        return self.address(text)

    def _count(self, args: list[str]) -> int:
        if not args:
            return 1
        value = parse_number(args[0]) if args[0][:1] in "x#b" else parse_number("#" + args[0])
        if value is None or value < 1:
            raise CommandError(f"not a count: {args[0]!r}")
        return value

    def _shown(self, expression: str) -> str:
        try:
            value = self.operand(expression)() & WORD_MASK
        except CommandError as e:
            return f"({e})"
        return f"x{value:04X} {to_signed(value)}"

    # The commands that look.
    def cmd_display(self, args: list[str]) -> None:
        """display [EXPR]: show R2, PC, M[LOC] at every stop; alone, show them now."""
        if args:
            expression = " ".join(args)
            self.operand(expression)  # an error now, not at every stop
            self.displays.append(expression)
        for expression in self.displays:
            self.say(f"   {expression} = {self._shown(expression)}")

    def cmd_regs(self, args: list[str]) -> None:
        """regs: R0-R7, PC, PSR, condition codes, instructions executed."""
        for line in register_lines(self.sim, self.where):
            self.say(line)

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
            history = self.reverse.history()
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
        for line in memory_lines(self.sim, self.labels, start, count):
            self.say(line)
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
