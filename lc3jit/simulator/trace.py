"""Instruction traces: one line per instruction executed, the same on every engine.

    x3003 <LOOP+1>  1261  ADD R1, R1, #1        R1=x0005 cc=P
    x3004 <LOOP+2>  3E04  ST R7, SAVE7          M[x3009]=x300A

A line gives the PC (and the label it is near), the word, the instruction (PC-relative
operands by label), then what it wrote: registers, the condition codes when it set them,
the PSR when its privilege or priority changed, and each memory word stored (device
registers excepted: what the display got is the program's output).

A trace needs the state after every instruction; translated code keeps registers in
locals for a whole region and writes them back only when it leaves. So a traced run goes
through the reference interpreter, one step at a time, whichever engine was asked for:
the trace is the oracle's, identical for every engine by construction, and costs about
2 us an instruction (10^6 instructions in a few seconds). Stores are seen by marking
every word in the write map for the run, so pushes by TRAP and interrupts show too.
"""

from __future__ import annotations

from typing import TextIO

from lc3jit.toolchain.disasm import instruction_text
from lc3jit.toolchain.places import nearest_label
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import MEMORY_WORDS, Instruction, decode
from lc3jit_runtime.machine import EXCEPTION_TABLE, IO_BASE, KEYBOARD_VECTOR, WATCH_OBSERVED, Machine
from lc3jit_runtime.outcome import STEP_LIMIT, UNLIMITED, Outcome

TEXT_WIDTH = 24


class Tracer:
    """Runs a machine through the interpreter, writing a line for each instruction whose PC
    is in [start, stop)."""

    name = "interp (traced)"

    def __init__(
        self, machine: Machine, file: TextIO, labels: dict[int, str], start: int = 0, stop: int = MEMORY_WORDS
    ) -> None:
        self.machine = machine
        self.file = file
        self.labels = labels
        self.label_addresses = sorted(labels)
        self.start, self.stop = start, stop
        self.interpreter = Interpreter(machine)
        self.stores: list[tuple[int, int]] = []
        self._text: dict[tuple[int, int], tuple[Instruction, str]] = {}

    def _stored(self, address: int, value: int, at: int, pushed: bool) -> None:
        if address < IO_BASE:
            self.stores.append((address, value))

    def run(self, max_steps: int | None = None) -> Outcome:
        """Run until a stop or max_steps instructions, tracing each one."""
        m = self.machine
        watch, saved_observer = m.watch, m.observer
        m.observer = self._stored
        m.mark(0, len(m.mem), WATCH_OBSERVED)
        try:
            outcome = self._run(UNLIMITED if max_steps is None else max_steps)
            self.file.flush()
            return outcome
        except OSError as error:  # the trace file (a full disk): the run ends where it got to
            problem = f"cannot write the trace to {getattr(self.file, 'name', 'its file')}"
            return Outcome(Ending.OUTPUT_ERROR, f"{problem}: {error.strerror or error}")
        finally:
            m.observer = saved_observer
            for address in range(len(m.mem)):
                watch[address] &= ~WATCH_OBSERVED

    def _run(self, limit: int) -> Outcome:
        m, step, write = self.machine, self.interpreter.run, self.file.write
        for _ in range(limit):
            # An interrupt taken first runs the handler's first instruction in this step.
            pc = m.mem[EXCEPTION_TABLE + KEYBOARD_VECTOR] if m.kbsr_ie and m.interrupt_pending() else m.pc
            word, registers, ccv, mode, count = m.mem[pc], list(m.reg), m.ccv, m.psr_mode, m.icount
            self.stores.clear()
            outcome = step(1)
            if m.icount != count and self.start <= pc < self.stop:
                write(self.line(pc, word, registers, ccv, mode))
            if outcome is not STEP_LIMIT:
                return outcome
        return STEP_LIMIT

    def line(self, pc: int, word: int, registers: list[int], ccv: int, mode: int) -> str:
        """The line of the instruction (word) at pc, given the state before it ran."""
        m = self.machine
        ins, text = self.describe(pc, word)
        written = {r for r in range(8) if m.reg[r] != registers[r]}
        if ins.form.name in ("JSR", "JSRR"):
            written.add(7)
        elif ins.dr is not None:
            written.add(ins.dr)
        effects = [f"R{r}=x{m.reg[r]:04X}" for r in sorted(written)]
        if ins.sets_cc(m.edition) or m.ccv != ccv:
            effects.append(f"cc={'NZP'[(4, 2, 1).index(m.cond)]}")
        if m.psr_mode != mode:
            effects.append(f"PSR=x{m.psr:04X}")
        effects += [f"M[x{a:04X}]=x{v:04X}" for a, v in self.stores]
        label = nearest_label(self.labels, self.label_addresses, pc)
        where = f"x{pc:04X}" + (f" <{label}>" if label else "")
        return f"{where}  {word:04X}  {text:<{TEXT_WIDTH}} {' '.join(effects)}".rstrip() + "\n"

    def describe(self, pc: int, word: int) -> tuple[Instruction, str]:
        key = (pc, word)
        if key not in self._text:
            ins = decode(word, pc)
            self._text[key] = (ins, instruction_text(ins, self.labels))
        return self._text[key]
