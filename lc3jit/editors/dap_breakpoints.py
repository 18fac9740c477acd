"""The Debug Adapter's breakpoints: source lines, functions, instructions, data (watches).

An editor sends each kind as a whole list (setBreakpoints for one source, and so on); the
adapter keeps them (`Breakpoints`) and makes the debugger's stops and watches what they add
up to (`apply`): at once when the program is stopped, at a moment's stop of the running
program (exactly between two instructions) otherwise. A breakpoint's condition (an
expression, lc3jit/debugging/expressions.py), hit count and log message are the adapter's: the
engine stops at the address, and the adapter says whether that is a stop. Data breakpoints
are the debugger's watches: on a word (accessType write, read or readWrite) or on a
register R0-R7 (its changes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lc3jit.debugging.expressions import ExpressionError, Value, evaluate, truth
from lc3jit.debugging.watches import REGISTER
from lc3jit.editors.dap_program import canonical
from lc3jit.editors.dap_wire import Message, RequestError, reference
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.isa import WORD_MASK
from lc3jit_runtime.machine import IO_BASE
from lc3jit_runtime.outcome import Outcome

REGISTERS, LABELS = 1, 2  # variablesReference of the two scopes
#: Asked of a running program to apply breakpoints set meanwhile, then go on.
RECONFIGURE = Outcome(Ending.RECONFIGURE)
#: A data breakpoint's accessType, as the debugger's watches name it.
_ACCESS = {"write": "write", "read": "read", "readWrite": "access"}
_HIT = re.compile(r"\s*(==|>=|>|%|<=|<)?\s*(\d+)\s*")


@dataclass
class Breakpoint:
    """One breakpoint the client set: where it stops, and when."""

    id: int
    address: int | None
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None
    hits: int = 0
    line: int | None = None
    source: dict[str, Any] | None = None
    message: str | None = None
    watched: str | int | None = None  # a data breakpoint's register ("R2") or word
    access: str = "write"  # a data breakpoint's accesses: write, read or access (readWrite)

    def reply(self) -> Message:
        reply: Message = {"id": self.id, "verified": self.address is not None or self.watched is not None}
        if self.address is not None:
            reply["instructionReference"] = f"0x{self.address:04X}"
        if self.line is not None:
            reply["line"] = self.line
        if self.source is not None:
            reply["source"] = self.source
        if self.message:
            reply["message"] = self.message
        return reply


def hit_reached(condition: str, hits: int) -> bool:
    """A hit condition as editors write it: `5` or `>= 5` (from the 5th hit on), `== 5`,
    `> 5`, `< 5`, `<= 5`, `% 5` (every 5th)."""
    match = _HIT.fullmatch(condition)
    if match is None:
        raise ExpressionError(f"not a hit count: {condition!r} (e.g. 5, >= 5, == 5, % 5)")
    operator, count = match.group(1) or ">=", int(match.group(2))
    return {
        "==": hits == count,
        ">=": hits >= count,
        ">": hits > count,
        "<": hits < count,
        "<=": hits <= count,
        "%": count > 0 and hits % count == 0,
    }[operator]


@dataclass
class Breakpoints:
    """The client's breakpoints by kind; each setBreakpoints-like request replaces one list."""

    by_source: dict[str, list[Breakpoint]] = field(default_factory=dict)
    functions: list[Breakpoint] = field(default_factory=list)
    instructions: list[Breakpoint] = field(default_factory=list)
    data: list[Breakpoint] = field(default_factory=list)

    def code(self) -> list[Breakpoint]:
        every = [bp for bps in self.by_source.values() for bp in bps] + self.functions + self.instructions
        return [bp for bp in every if bp.address is not None]


class BreakpointRequests:
    """The Adapter's breakpoint requests (a part of the Adapter), and how the debugger's
    stops and watches follow them."""

    def on_set_breakpoints(self, args: Message) -> Message:
        source = args.get("source") or {}
        path = source.get("path")
        if not path:
            raise RequestError("breakpoints need a source with a path")
        wanted = args.get("breakpoints")
        if wanted is None:
            wanted = [{"line": line} for line in args.get("lines", [])]
        bps = []
        for spec in wanted:
            bp = self.new_breakpoint(spec, None)
            bp.source = {"name": Path(path).name, "path": path}
            found = self.program.address_of_line(path, int(spec["line"])) if self.program else None
            if found is None:
                bp.line = int(spec["line"])
                bp.message = "no instruction on or after this line in the program loaded"
            else:
                bp.address, bp.line = found
            bps.append(bp)
        self.breakpoints.by_source[canonical(path)] = bps
        self.changed()
        return {"breakpoints": [bp.reply() for bp in bps]}

    def on_set_function_breakpoints(self, args: Message) -> Message:
        bps = [self.located(spec, spec.get("name", "")) for spec in args.get("breakpoints", [])]
        self.breakpoints.functions = bps
        self.changed()
        return {"breakpoints": [bp.reply() for bp in bps]}

    def on_set_instruction_breakpoints(self, args: Message) -> Message:
        bps = []
        for spec in args.get("breakpoints", []):
            base = reference(spec.get("instructionReference", ""))
            bps.append(self.located(spec, f"x{(base + int(spec.get('offset', 0))) & WORD_MASK:04X}"))
        self.breakpoints.instructions = bps
        self.changed()
        return {"breakpoints": [bp.reply() for bp in bps]}

    def on_set_exception_breakpoints(self, args: Message) -> Message:
        return {"breakpoints": []}

    def on_data_breakpoint_info(self, args: Message) -> Message:
        name = str(args.get("name", ""))
        if args.get("variablesReference") == REGISTERS or REGISTER.fullmatch(name):
            register = REGISTER.fullmatch(name)
            if register is None:
                return {
                    "dataId": None,
                    "description": f"{name} cannot be watched: R0-R7 and memory words can",
                }
            return {
                "dataId": f"R{register[1]}",
                "description": f"changes of R{register[1]}",
                "accessTypes": ["write"],
                "canPersist": True,
            }
        try:
            value = evaluate(self.sim, name)
        except ExpressionError as e:
            return {"dataId": None, "description": str(e)}
        address = word_address(value)
        if address is None or address >= IO_BASE:
            return {"dataId": None, "description": f"{name} is not a word of memory that can be watched"}
        return {
            "dataId": f"0x{address:04X}",
            "description": f"accesses to {self.dbg.where(address)}",
            "accessTypes": ["write", "read", "readWrite"],
            "canPersist": True,
        }

    def on_set_data_breakpoints(self, args: Message) -> Message:
        bps = []
        for spec in args.get("breakpoints", []):
            bp = self.new_breakpoint(spec, None)
            data_id = str(spec.get("dataId", ""))
            register = REGISTER.fullmatch(data_id)
            bp.watched = f"R{register[1]}" if register else reference(data_id)
            bp.access = _ACCESS.get(spec.get("accessType", "write"), "write")
            if register and bp.access != "write":
                bp.watched, bp.message = None, "a register is watched for changes (accessType write)"
            elif isinstance(bp.watched, int) and bp.watched >= IO_BASE:
                bp.watched, bp.message = None, "device registers cannot be watched"
            bps.append(bp)
        self.breakpoints.data = bps
        self.changed()
        return {"breakpoints": [bp.reply() for bp in bps]}

    def new_breakpoint(self, spec: Message, address: int | None) -> Breakpoint:
        bp = Breakpoint(
            self.next_id,
            address,
            spec.get("condition") or None,
            spec.get("hitCondition") or None,
            spec.get("logMessage") or None,
        )
        self.next_id += 1
        return bp

    def located(self, spec: Message, where: str) -> Breakpoint:
        """A breakpoint at a label, LABEL+n or an address (function and instruction breakpoints)."""
        bp = self.new_breakpoint(spec, None)
        try:
            bp.address = self.sim.address(where)
        except (KeyError, ValueError):
            bp.message = f"no label or address {where!r} in the program"
            return bp
        if self.program is not None and bp.address in self.program.lines:
            path, bp.line = self.program.lines[bp.address]
            bp.source = {"name": Path(path).name, "path": path}
        return bp

    def changed(self) -> None:
        """Apply the breakpoints now, or at a moment's stop of the running program."""
        with self.lock:
            if self.running:
                self.pending = True
                self.sim.machine.request_stop(RECONFIGURE)
                return
        self.apply()

    def apply_pending(self) -> None:
        """On the worker, stopped between two instructions: apply what changed meanwhile."""
        with self.lock:
            pending, self.pending = self.pending, False
        if pending:
            self.apply()

    def apply(self) -> None:
        """Make the engine's stops and the machine's watches what the client has set."""
        dbg = self.dbg
        wanted = {bp.address for bp in self.breakpoints.code() if bp.address is not None}
        dbg.stop_at(set() if self.launch and self.launch.no_debug else wanted)
        watched = {bp.watched: bp.access for bp in self.breakpoints.data if bp.watched is not None}
        kinds = dbg.watch_list.kinds
        for target in dbg.watch_list.targets():
            if target not in watched or (isinstance(target, int) and kinds[target] != watched[target]):
                dbg.unwatch(target)
        for target, access in watched.items():
            if target not in dbg.watch_list.targets():
                dbg.watch(target, access)

    def breakpoint_stops(self, pc: int) -> bool:
        """At a breakpoint's address: does any breakpoint there stop (its condition true, its
        hit count reached)? Each whose condition holds counts a hit; a logpoint prints."""
        stops = False
        for bp in self.breakpoints.code():
            if bp.address != pc:
                continue
            try:
                if bp.condition is not None and not truth(self.sim, bp.condition):
                    continue
                bp.hits += 1
                if bp.hit_condition is not None and not hit_reached(bp.hit_condition, bp.hits):
                    continue
            except ExpressionError as e:
                self.note(f"breakpoint at {self.dbg.where(pc)}: {e}", "stderr")  # stop, and say why
            if bp.log_message is not None:
                self.note(self.interpolate(bp.log_message))
                continue
            stops = True
        return stops

    def hit_ids(self, pc: int) -> list[int]:
        return [bp.id for bp in self.breakpoints.code() if bp.address == pc]

    def interpolate(self, message: str) -> str:
        """A logpoint's message, each {expression} replaced by its value."""

        def value(match: re.Match[str]) -> str:
            try:
                return evaluate(self.sim, match.group(1)).describe(self.sim)
            except ExpressionError as e:
                return f"<{e}>"

        return re.sub(r"\{([^{}]+)\}", value, message)


def word_address(value: Value) -> int | None:
    """The address of the word a value names (M[...] or a label), if it names one."""
    if value.kind == "word" and isinstance(value.where, int):
        return value.where
    return value.value if value.kind == "address" else None
