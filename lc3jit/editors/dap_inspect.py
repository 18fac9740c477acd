"""The Debug Adapter's views of a stopped program: the call stack, registers and labels,
expressions in the debug console and hovers, memory as bytes, the disassembly.

Memory is 16-bit words; the protocol's memory is bytes. A memoryReference is a word's
address (`0x4000`) and the bytes are the words big-endian, as in an `.obj` file, so byte
offset 2k is word k; `readMemory` answers with the byte address (twice the word's).
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

from lc3jit.debugging.expressions import Value, assign, evaluate, word_text
from lc3jit.editors.dap_breakpoints import LABELS, REGISTERS, word_address
from lc3jit.editors.dap_program import call_chain, routine_entries
from lc3jit.editors.dap_repl import console_command
from lc3jit.editors.dap_wire import Message, RequestError, reference
from lc3jit.toolchain.disasm import instruction_text
from lc3jit_runtime.isa import CC_VALUE, WORD_MASK, decode

THREAD = 1
_ASSIGNMENT = re.compile(r"\s*([^=<>!]+?)\s*=(?!=)\s*(.+)")


class Inspection:
    """The Adapter's requests that look at (and change) the stopped program (a part of the Adapter)."""

    def on_threads(self, args: Message) -> Message:
        return {"threads": [{"id": THREAD, "name": "LC-3"}]}

    def on_stack_trace(self, args: Message) -> Message:
        sim = self.stopped_machine()
        program = self.program
        assert program is not None
        labels = self.dbg.labels
        entries = routine_entries(program, sim.machine.mem, labels)
        pcs = [sim.pc, *call_chain(sim.machine, program, entries, self.dbg.frames)]
        frames = []
        for index, pc in enumerate(pcs):
            at = pc if index == 0 else (pc - 1) & WORD_MASK  # a caller is at its call
            frame: Message = {
                "id": index,
                "name": self.dbg.where(at).partition(" ")[2].strip("<>") or f"x{at:04X}",
                "line": 0,
                "column": 0,
                "instructionPointerReference": f"0x{at:04X}",
            }
            if at in program.lines:
                path, line = program.lines[at]
                frame.update(source={"name": Path(path).name, "path": path}, line=line, column=1)
            frames.append(frame)
        start = int(args.get("startFrame", 0))
        levels = int(args.get("levels", 0)) or len(frames)
        return {"stackFrames": frames[start : start + levels], "totalFrames": len(frames)}

    def on_scopes(self, args: Message) -> Message:
        return {
            "scopes": [
                {"name": "Registers", "variablesReference": REGISTERS, "expensive": False},
                {"name": "Labels", "variablesReference": LABELS, "expensive": False},
            ]
        }

    def on_variables(self, args: Message) -> Message:
        sim = self.stopped_machine()
        reference = args.get("variablesReference")
        if reference == REGISTERS:
            machine = sim.machine
            variables = [self.variable(f"R{r}", word_text(machine.reg[r])) for r in range(8)]
            variables.append(self.variable("PC", self.dbg.where(machine.pc), f"0x{machine.pc:04X}"))
            privilege = "user" if machine.user_mode else "supervisor"
            psr = f"x{machine.psr:04X} ({privilege}, priority {machine.psr >> 8 & 7})"
            variables.append(self.variable("PSR", psr))
            variables.append(self.variable("CC", sim.cond.lower()))
            return {"variables": variables}
        if reference == LABELS:
            mem = sim.machine.mem
            return {
                "variables": [
                    self.variable(
                        name,
                        f"x{address:04X} -> {word_text(mem[address])}",  # as evaluate shows a label
                        f"0x{address:04X}",
                        f"word at x{address:04X}",
                    )
                    for address, name in sorted(self.dbg.labels.items())
                ]
            }
        return {"variables": []}

    @staticmethod
    def variable(name: str, value: str, memory: str | None = None, kind: str | None = None) -> Message:
        variable: Message = {"name": name, "value": value, "variablesReference": 0, "evaluateName": name}
        if memory is not None:
            variable["memoryReference"] = memory
        if kind is not None:
            variable["type"] = kind
        return variable

    def on_set_variable(self, args: Message) -> Message:
        sim = self.stopped_machine()
        name, text = str(args.get("name", "")), str(args.get("value", ""))
        if args.get("variablesReference") == REGISTERS and name == "CC":
            return {"value": self.set_cc(text)}
        if args.get("variablesReference") == REGISTERS and name == "PSR":
            sim.machine.psr = evaluate(sim, text).value
            return {"value": f"x{sim.psr:04X}"}
        return {"value": self.write(name, text).describe(sim)}

    def set_cc(self, text: str) -> str:
        bits = {"n": 0b100, "z": 0b010, "p": 0b001}.get(text.strip().lower())
        if bits is None:
            raise RequestError("the condition codes are one of n, z, p")
        self.sim.machine.ccv = CC_VALUE[bits]
        return self.sim.cond.lower()

    def write(self, target: str, text: str) -> Value:
        """Assign, keeping the debugger's view in step: a new PC forgets the calls seen, and a
        watched word written by hand is not reported as a store."""
        value = assign(self.sim, target, text)
        if value.where == "PC":
            self.dbg.frames = []
            self.dbg.ended = None  # a program that ended may go on from elsewhere
        self.dbg.watch_list.resync(self.sim.machine)
        return value

    def on_evaluate(self, args: Message) -> Message:
        expression = str(args.get("expression", ""))
        context = args.get("context")
        if context == "repl" and (self.running or expression.startswith(">")):
            return self.type_keys(expression.removeprefix(">"))
        if context == "repl":  # the prompt's commands too (dap_repl.py)
            done = console_command(self, expression)  # type: ignore[arg-type]
            if done is not None:
                return done
        sim = self.stopped_machine()
        assignment = _ASSIGNMENT.fullmatch(expression) if context == "repl" else None
        value = self.write(*assignment.groups()) if assignment else evaluate(sim, expression)
        body: Message = {"result": value.describe(sim), "variablesReference": 0}
        address = word_address(value)
        if address is not None:
            body["memoryReference"] = f"0x{address:04X}"
        return body

    def type_keys(self, text: str) -> Message:
        """A line typed at the debug console while the program runs: keys for it, and Enter."""
        if self.keys is None:
            raise RequestError("the keyboard reads the launch's input file, not the debug console")
        self.keys.write(text.encode("latin-1", "replace") + b"\n")
        return {"result": "", "variablesReference": 0}

    def on_read_memory(self, args: Message) -> Message:
        mem = self.stopped_machine().machine.mem
        start = 2 * reference(args.get("memoryReference", "")) + int(args.get("offset", 0))
        count = int(args.get("count", 0))
        first, last = max(start, 0), min(start + count, 2 * (WORD_MASK + 1))
        data = bytes((mem[b >> 1] >> 8 if b % 2 == 0 else mem[b >> 1]) & 0xFF for b in range(first, last))
        return {
            "address": f"0x{first:X}",
            "data": base64.b64encode(data).decode("ascii"),
            "unreadableBytes": max(0, count - len(data)),
        }

    def on_write_memory(self, args: Message) -> Message:
        sim = self.stopped_machine()
        start = 2 * reference(args.get("memoryReference", "")) + int(args.get("offset", 0))
        data = base64.b64decode(args.get("data", ""))
        if start < 0 or start + len(data) > 2 * (WORD_MASK + 1):
            raise RequestError("the bytes fall outside memory")
        for index, byte in enumerate(data):
            address, low = divmod(start + index, 2)
            word = sim.machine.mem[address]
            word = word & 0xFF00 | byte if low else byte << 8 | word & 0xFF
            sim.memory[address] = word
        self.dbg.watch_list.resync(sim.machine)
        return {"bytesWritten": len(data)}

    def on_disassemble(self, args: Message) -> Message:
        sim = self.stopped_machine()
        start = reference(args.get("memoryReference", "")) + int(args.get("offset", 0)) // 2
        start += int(args.get("instructionOffset", 0))
        instructions = []
        for address in range(start, start + int(args.get("instructionCount", 0))):
            if not 0 <= address <= WORD_MASK:
                instructions.append(
                    {"address": hex(address), "instruction": "", "presentationHint": "invalid"}
                )
                continue
            word = sim.machine.mem[address]
            line: Message = {
                "address": f"0x{address:04X}",
                "instructionBytes": f"{word:04X}",
                "instruction": instruction_text(decode(word, address), self.dbg.labels),
            }
            if address in self.dbg.labels:
                line["symbol"] = self.dbg.labels[address]
            if self.program is not None and address in self.program.lines:
                path, number = self.program.lines[address]
                line.update(location={"name": Path(path).name, "path": path}, line=number)
            instructions.append(line)
        return {"instructions": instructions}
