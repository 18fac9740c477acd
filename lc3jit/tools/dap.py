"""`lc3jit dap`: the Debug Adapter Protocol, so that VS Code, Neovim and Emacs debug LC-3.

The adapter is the debugger of `lc3jit debug` (lc3jit/tools/debugger.py) behind another
front: its breakpoints are the engine's stops, so between stops the program runs
translated at full speed; its watches are data breakpoints; stepping, `next` and
`finish` are its own. What is added here is what an editor asks for in its terms:
source lines (dap_program.py), conditions and hit counts on breakpoints, a pause that
interrupts a running program (Machine.request_stop, taken before the next instruction),
expressions (expressions.py), memory as bytes, the disassembly, and a console whose
display is the debug console and whose keyboard is what the user types there.

Requests are read on the main thread; a command that runs the program (continue, next,
stepIn, stepOut) runs on a worker thread and reports with a `stopped` or `exited` event,
so that `pause` and new breakpoints are heard while it runs. A breakpoint or data
breakpoint set while the program runs stops the engine for a moment (exactly, between
two instructions), is applied, and the run goes on: the engine is never changed under
a running program.

Memory is 16-bit words; the protocol's memory is bytes. A memoryReference is a word's
address (`0x4000`) and the bytes are the words big-endian, as in an `.obj` file, so byte
offset 2k is word k; `readMemory` answers with the byte address (twice the word's).
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import re
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from lc3jit.api import Simulator
from lc3jit.session import Runnable
from lc3jit.toolchain.disasm import instruction_text
from lc3jit.tools.dap_program import Program, call_chain, canonical, routine_entries
from lc3jit.tools.dap_wire import Channel, Message, ProtocolError
from lc3jit.tools.debugger import ENDED, CommandError, Debugger
from lc3jit.tools.expressions import ExpressionError, Value, assign, evaluate, truth, word_text
from lc3jit.tools.watches import REGISTER
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.isa import CC_VALUE, WORD_MASK, decode
from lc3jit_runtime.machine import IO_BASE
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

THREAD = 1
REGISTERS, LABELS = 1, 2  # variablesReference of the two scopes
PAUSED = Outcome(Ending.PAUSED, "paused")
#: Asked of a running program to apply breakpoints set meanwhile, then go on.
RECONFIGURE = Outcome(Ending.RECONFIGURE)
_ASSIGNMENT = re.compile(r"\s*([^=<>!]+?)\s*=(?!=)\s*(.+)")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: A data breakpoint's accessType, as the debugger's watches name it.
_ACCESS = {"write": "write", "read": "read", "readWrite": "access"}
_HIT = re.compile(r"\s*(==|>=|>|%|<=|<)?\s*(\d+)\s*")

CAPABILITIES = {
    "supportsConfigurationDoneRequest": True,
    "supportsFunctionBreakpoints": True,
    "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True,
    "supportsLogPoints": True,
    "supportsEvaluateForHovers": True,
    "supportsSetVariable": True,
    "supportsRestartRequest": True,
    "supportsTerminateRequest": True,
    "supportsDataBreakpoints": True,
    "supportsReadMemoryRequest": True,
    "supportsWriteMemoryRequest": True,
    "supportsDisassembleRequest": True,
    "supportsInstructionBreakpoints": True,
    "supportsStepBack": hasattr(Debugger, "reverse_step"),
    "exceptionBreakpointFilters": [],
}


class RequestError(Exception):
    """A request that cannot be done now or as given: its message goes back to the user."""


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


class EventDisplay:
    """The display of the program: each write becomes an `output` event on the debug console."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    def write(self, data: bytes) -> int:
        self.channel.event("output", {"category": "stdout", "output": data.decode("latin-1")})
        return len(data)

    def flush(self) -> None:
        """Nothing is held."""

    def isatty(self) -> bool:
        return False


class ConsoleKeyboard(Console):
    """Keys typed at the debug console, through a pipe: a KBSR poll finds none waiting
    rather than waiting for one, as at a terminal, and a GETC waits (pause still stops it)."""

    def __init__(self, keyboard: BinaryIO, display: EventDisplay) -> None:
        super().__init__(keyboard, display, interactive=True)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def raw_mode(self) -> Iterator[None]:
        """A pipe has no terminal modes to set."""
        try:
            yield
        finally:
            self.flush()


class AdapterDebugger(Debugger):
    """The debugger of `lc3jit debug`, reporting to the adapter instead of printing, and
    taking a breakpoint's condition and hit count into account where the engine stops."""

    def __init__(self, make: Callable[[], Simulator], adapter: Adapter, max_steps: int | None) -> None:
        self.adapter = adapter
        self.outcome: Outcome | None = None
        self.target: int | None = None  # where run_to is going: never skipped as a false condition
        super().__init__(make, _Discard(), max_steps)

    def say(self, text: str = "") -> None:
        self.adapter.note(text)

    def show_pc(self) -> None:
        """The editor shows where the program is."""

    def report(self, outcome: Outcome) -> None:
        for change in self.pushed:
            self.adapter.note(change[:1].upper() + change[1:])
        self.pushed = []
        self.outcome = outcome
        if outcome.ending in ENDED or (outcome.ending is Ending.STEP_LIMIT and outcome is not STEP_LIMIT):
            self.ended = outcome

    def run_to(self, target: int, *rest: int | None) -> Outcome:
        self.target = target
        try:
            return super().run_to(target, *rest)
        finally:
            self.target = None

    def skips(self, outcome: Outcome) -> bool:
        """Does the run go on past this stop of the engine: a breakpoint whose condition is
        false or whose hit count is not reached yet, or a logpoint (not where run_to goes)?"""
        pc = self.sim.pc
        if outcome.ending is not Ending.BREAKPOINT or pc == self.target:
            return False
        return not self.adapter.breakpoint_stops(pc)

    # The debugger with reverse execution (lc3jit/tools/reverse.py) asks `stopping` whether a
    # breakpoint stops, and runs the engine through `advance`; the one before it, `_run`.
    def stopping(self, outcome: Outcome) -> bool:
        return not self.skips(outcome) and super().stopping(outcome)  # type: ignore[misc]

    def advance(self, runnable: Runnable, stop_at: int | None) -> Outcome:
        """Run as the debugger does, going on past a moment's stop to apply breakpoints set
        during the run."""
        while True:
            outcome = super().advance(runnable, stop_at)  # type: ignore[misc]
            if outcome.ending is not Ending.RECONFIGURE:
                return outcome
            self.sim.machine.take_ending()
            self.adapter.apply_pending()
            if runnable in (self.sim.engine, self.watcher):
                runnable = self.runner  # a watch on a register or on reads may have been set


class _Discard:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        """Nothing is kept."""


@dataclass
class Launch:
    """What the launch request asked for."""

    programs: list[Path]
    stop_on_entry: bool = False
    engine: str = "regions"
    edition: int = 3
    full_system: bool = False
    pc: str | None = None
    input_file: Path | None = None
    max_steps: int | None = None
    no_debug: bool = False

    @classmethod
    def parse(cls, args: Message) -> Launch:
        base = Path(args.get("cwd") or os.getcwd())
        names = [args["program"]] if isinstance(args.get("program"), str) else []
        names += [p for p in args.get("programs", []) if isinstance(p, str)]
        if not names:
            raise RequestError("launch needs a program: the .asm or .obj to debug")
        input_file = args.get("input")
        return cls(
            programs=[base / name for name in names],
            stop_on_entry=bool(args.get("stopOnEntry", False)),
            engine=str(args.get("engine", "regions")),
            edition=int(args.get("edition", 3)),
            full_system=bool(args.get("os", False)),
            pc=args.get("pc"),
            input_file=base / input_file if input_file else None,
            max_steps=args.get("maxSteps"),
            no_debug=bool(args.get("noDebug", False)),
        )


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


class Adapter:
    """One debug session: requests in, responses and events out, one program."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.debugger: AdapterDebugger | None = None
        self.program: Program | None = None
        self.launch: Launch | None = None
        self.breakpoints = Breakpoints()
        self.next_id = 1
        self.lock = threading.Lock()  # guards `running` and `pending`
        self.running = False
        self.pending = False  # breakpoints changed while the program ran
        self.worker: threading.Thread | None = None
        self.keys: BinaryIO | None = None  # the write end of the debug console's keyboard
        self.done = False

    # The session.
    def serve(self) -> None:
        """Answer requests until disconnect or the end of the input."""
        while not self.done:
            try:
                message = self.channel.read()
            except ProtocolError as e:
                self.note(f"lc3jit dap: {e}", "stderr")
                break
            if message is None:
                break
            if message.get("type") == "request":
                self.handle(message)
        self.stop_running()

    def handle(self, request: Message) -> None:
        command = str(request.get("command", ""))
        name = _CAMEL.sub("_", command).lower()  # setBreakpoints: on_set_breakpoints
        handler = getattr(self, "on_" + name, None)
        if handler is None:
            self.channel.fail(request, f"lc3jit does not support the request {command!r}")
            return
        try:
            body = handler(request.get("arguments") or {})
        except (RequestError, ExpressionError, CommandError, KeyError, ValueError) as e:
            self.channel.fail(request, str(e.args[0]) if e.args else str(e))
            return
        except LC3Error as e:
            self.note(str(e), "stderr")
            self.channel.fail(request, str(e).splitlines()[0])
            return
        self.channel.respond(request, body)
        if command == "launch":
            self.channel.event("initialized")
        after = getattr(self, "after_" + name, None)
        if after is not None:
            after()

    def note(self, text: str, category: str = "console") -> None:
        """A line for the debug console (the debugger's messages, warnings, errors)."""
        self.channel.event("output", {"category": category, "output": text + "\n"})

    @property
    def dbg(self) -> AdapterDebugger:
        if self.debugger is None:
            raise RequestError("no program is loaded: launch one first")
        return self.debugger

    @property
    def sim(self) -> Simulator:
        return self.dbg.sim

    def stopped_machine(self) -> Simulator:
        """The simulator, for a request that needs the program stopped."""
        if self.running:
            raise RequestError("the program is running: pause it first")
        return self.sim

    # Requests: the session's life.
    def on_initialize(self, args: Message) -> Message:
        return CAPABILITIES

    def on_launch(self, args: Message) -> Message:
        launch = Launch.parse(args)
        program = Program.load(launch.programs, lambda message: self.note(message, "stderr"))
        display = EventDisplay(self.channel)
        if launch.input_file is None:
            read, write = os.pipe()
            self.keys = os.fdopen(write, "wb", buffering=0)
            keyboard = os.fdopen(read, "rb", buffering=0)
        else:
            keys = launch.input_file.read_bytes()

        def make() -> Simulator:
            console = (
                ConsoleKeyboard(keyboard, display)
                if launch.input_file is None
                else Console(io.BytesIO(keys), display)  # type: ignore[arg-type]
            )
            return Simulator(
                *program.images,
                engine=launch.engine,
                edition=launch.edition,
                os=launch.full_system,
                pc=launch.pc,
                console=console,
                warn=lambda message: self.note(message, "stderr"),
            )

        self.program, self.launch = program, launch
        self.debugger = AdapterDebugger(make, self, launch.max_steps)
        self.channel.event("process", {"name": str(launch.programs[0]), "startMethod": "launch"})
        return {}

    def on_configuration_done(self, args: Message) -> None:
        return None

    def after_configuration_done(self) -> None:
        self.begin()

    def begin(self) -> None:
        """The program at its first instruction: stop there, or run."""
        assert self.launch is not None
        pc = self.sim.pc
        if self.launch.stop_on_entry:
            self.stopped("entry")
        elif pc in self.dbg.breakpoints and self.breakpoint_stops(pc):
            self.stopped("breakpoint", self.hit_ids(pc))
        else:
            self.start(self.dbg.cmd_continue)

    def on_restart(self, args: Message) -> None:
        self.stop_running()
        self.dbg.load()
        for bp in self.breakpoints.code() + self.breakpoints.data:
            bp.hits = 0

    def after_restart(self) -> None:
        self.begin()

    def on_terminate(self, args: Message) -> None:
        self.stop_running()

    def after_terminate(self) -> None:
        self.channel.event("terminated")

    def on_disconnect(self, args: Message) -> None:
        self.stop_running()
        self.done = True

    def stop_running(self) -> None:
        """Stop a run in progress and wait for its worker."""
        worker = self.worker
        if worker is not None and worker.is_alive():
            self.sim.machine.request_stop(PAUSED)
            worker.join()
            self.sim.machine.take_ending()

    # Requests: breakpoints.
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
            base = _reference(spec.get("instructionReference", ""))
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
        address = _word_address(value)
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
            bp.watched = f"R{register[1]}" if register else _reference(data_id)
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
        wanted = (
            set() if self.launch and self.launch.no_debug else {bp.address for bp in self.breakpoints.code()}
        )
        for address in dbg.breakpoints - wanted:
            dbg.breakpoints.discard(address)
            dbg.set_stop(address, False)
        for address in wanted - dbg.breakpoints:
            dbg.breakpoints.add(address)  # type: ignore[arg-type]
            dbg.set_stop(address, True)  # type: ignore[arg-type]
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

    # Requests: running.
    def on_continue(self, args: Message) -> Message:
        self.start(self.dbg.cmd_continue)
        return {"allThreadsContinued": True}

    def on_next(self, args: Message) -> None:
        self.start(self.dbg.cmd_next)

    def on_step_in(self, args: Message) -> None:
        self.start(self.dbg.cmd_step)

    def on_step_out(self, args: Message) -> None:
        self.start(self.dbg.cmd_finish)

    def on_step_back(self, args: Message) -> None:
        self.start(self.dbg.cmd_reverse_step)  # type: ignore[attr-defined]

    def on_reverse_continue(self, args: Message) -> None:
        self.start(self.dbg.cmd_reverse_continue)  # type: ignore[attr-defined]

    def on_pause(self, args: Message) -> None:
        with self.lock:
            if self.running:
                self.sim.machine.request_stop(PAUSED)

    def start(self, command: Callable[[list[str]], None]) -> None:
        """Run a debugger command on the worker; its outcome becomes an event."""
        with self.lock:
            if self.running:
                raise RequestError("the program is running already")
            self.dbg.running()  # CommandError once it has ended
            self.running = True
        self.dbg.outcome = None
        self.worker = threading.Thread(target=self._work, args=(command,), name="lc3jit-dap-run", daemon=True)
        self.worker.start()

    def _work(self, command: Callable[[list[str]], None]) -> None:
        try:
            command([])
            outcome = self.dbg.outcome or STEP_LIMIT
            while outcome.ending is Ending.RECONFIGURE:  # asked before the command began: begin it
                self.sim.machine.take_ending()
                self.apply_pending()
                command([])
                outcome = self.dbg.outcome or STEP_LIMIT
        except Exception as e:  # a bug of ours: say it rather than hang the editor
            self.note(f"lc3jit dap: {type(e).__name__}: {e}", "stderr")
            outcome = Outcome(Ending.FAULT, str(e))
            self.dbg.ended = outcome
        with self.lock:
            self.running = False
            self.sim.machine.take_ending()  # a pause that came too late to stop anything
            self.pending = False
        self.apply()
        self.reported(outcome)

    def reported(self, outcome: Outcome) -> None:
        """The event for how a run stopped: stopped, or exited and terminated."""
        pc = self.sim.pc
        if self.dbg.ended is not None:
            if outcome.message and outcome.ending is not Ending.HALT:
                self.note(f"{outcome.message} at x{pc:04X}", "stderr")
            self.channel.event("exited", {"exitCode": outcome.exit_code})
            self.channel.event("terminated")
        elif outcome.ending is Ending.BREAKPOINT:
            self.stopped("breakpoint", self.hit_ids(pc))
        elif outcome.ending is Ending.WATCH:
            ids = [bp.id for bp in self.breakpoints.data]
            self.stopped("data breakpoint", ids, outcome.message)
        elif outcome.ending is Ending.PAUSED:
            self.stopped("pause")
        else:
            self.stopped("step")

    def stopped(self, reason: str, ids: list[int] | None = None, text: str | None = None) -> None:
        body: Message = {"reason": reason, "threadId": THREAD, "allThreadsStopped": True}
        if ids:
            body["hitBreakpointIds"] = ids
        if text:
            body["text"] = text
            body["description"] = f"Paused on {reason}"
        self.channel.event("stopped", body)

    # Requests: looking.
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
                        name, word_text(mem[address]), f"0x{address:04X}", f"word at x{address:04X}"
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
        sim = self.stopped_machine()
        assignment = _ASSIGNMENT.fullmatch(expression) if context == "repl" else None
        value = self.write(*assignment.groups()) if assignment else evaluate(sim, expression)
        body: Message = {"result": value.describe(sim), "variablesReference": 0}
        address = _word_address(value)
        if address is not None:
            body["memoryReference"] = f"0x{address:04X}"
        return body

    def type_keys(self, text: str) -> Message:
        """A line typed at the debug console while the program runs: keys for it, and Enter."""
        if self.keys is None:
            raise RequestError("the keyboard reads the launch's input file, not the debug console")
        self.keys.write(text.encode("latin-1", "replace") + b"\n")
        return {"result": "", "variablesReference": 0}

    # Requests: memory and code.
    def on_read_memory(self, args: Message) -> Message:
        mem = self.stopped_machine().machine.mem
        start = 2 * _reference(args.get("memoryReference", "")) + int(args.get("offset", 0))
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
        start = 2 * _reference(args.get("memoryReference", "")) + int(args.get("offset", 0))
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
        start = _reference(args.get("memoryReference", "")) + int(args.get("offset", 0)) // 2
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


def _reference(text: str) -> int:
    """A memoryReference, dataId or instructionReference: a word's address, 0x4000 or x4000."""
    text = str(text).strip()
    try:
        return int(text.removeprefix("x").removeprefix("X"), 16) if text[:1] in "xX" else int(text, 0)
    except ValueError:
        raise RequestError(f"not a memory reference: {text!r}") from None


def _word_address(value: Value) -> int | None:
    """The address of the word a value names (M[...] or a label), if it names one."""
    if value.kind == "word" and isinstance(value.where, int):
        return value.where
    return value.value if value.kind == "address" else None


def serve_stdio() -> None:
    """One session over stdin and stdout. What else would write to stdout (a stray print)
    goes to stderr instead, so that nothing breaks the protocol's framing."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    Adapter(Channel(sys.stdin.buffer, out)).serve()


def serve_port(port: int, host: str = "127.0.0.1", announce: Callable[[str], None] | None = None) -> None:
    """Sessions over TCP, one after another, for clients that attach to a running adapter."""
    with socket.create_server((host, port)) as server:
        if announce is not None:
            announce(f"lc3jit dap: listening on {host}:{server.getsockname()[1]}")
        while True:
            connection, _ = server.accept()
            with connection, connection.makefile("rb") as incoming, connection.makefile("wb") as outgoing:
                Adapter(Channel(incoming, outgoing)).serve()


def main(port: int | None = None) -> int:
    """`lc3jit dap [--port N]`: the exit code."""
    if port is None:
        serve_stdio()
        return 0
    try:
        serve_port(port, announce=lambda line: print(line, file=sys.stderr, flush=True))
    except OSError as e:
        print(f"lc3jit: dap: port {port}: {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
