"""`lc3jit dap`: the Debug Adapter Protocol, so that VS Code, Neovim and Emacs debug LC-3.

The adapter is a front over the debugging session (lc3jit/debugging/session.py), as
`lc3jit debug` is another: its breakpoints are the engine's stops, so between stops the program runs
translated at full speed; its watches are data breakpoints; stepping, `next` and
`finish` are its own. What is added here is what an editor asks for in its terms:
source lines (dap_program.py), conditions and hit counts on breakpoints, a pause that
interrupts a running program (Machine.request_stop, taken before the next instruction),
expressions (expressions.py), memory as bytes, the disassembly, and a console whose
display is the debug console and whose keyboard is what the user types there. The
breakpoint requests are dap_breakpoints.py, the requests that look at the stopped program
dap_inspect.py, the console it gives the program dap_debugger.py; here are the
session, launching, and running.

Requests are read on the main thread; a command that runs the program (continue, next,
stepIn, stepOut) runs on a worker thread and reports with a `stopped` or `exited` event,
so that `pause` and new breakpoints are heard while it runs. A breakpoint or data
breakpoint set while the program runs stops the engine for a moment (exactly, between
two instructions), is applied, and the run goes on: the engine is never changed under
a running program.
"""

from __future__ import annotations

import io
import os
import re
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lc3jit.api import Simulator
from lc3jit.debugging.expressions import ExpressionError
from lc3jit.debugging.session import Session
from lc3jit.debugging.stops import CommandError, Stop
from lc3jit.editors.dap_breakpoints import BreakpointRequests, Breakpoints
from lc3jit.editors.dap_debugger import ConsoleKeyboard, EventDisplay
from lc3jit.editors.dap_inspect import THREAD, Inspection
from lc3jit.editors.dap_program import Program
from lc3jit.editors.dap_wire import Channel, Message, ProtocolError, RequestError
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

PAUSED = Outcome(Ending.PAUSED, "paused")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")

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
    "supportsStepBack": True,
    "exceptionBreakpointFilters": [],
}


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


class Adapter(BreakpointRequests, Inspection):
    """One debug session: requests in, responses and events out, one program."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.debugger: Session | None = None
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
    def dbg(self) -> Session:
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

    # Requests: the session.
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
        self.debugger = Session(
            make,
            max_steps=launch.max_steps,
            skips=lambda pc: not self.breakpoint_stops(pc),  # hit counts, logpoints, conditions
            reconfigure=self.apply_pending,  # breakpoints set while the program runs
        )
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
            self.start(self.dbg.cont)

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

    # Requests: running.
    def on_continue(self, args: Message) -> Message:
        self.start(self.dbg.cont)
        return {"allThreadsContinued": True}

    def on_next(self, args: Message) -> None:
        self.start(self.dbg.next)

    def on_step_in(self, args: Message) -> None:
        self.start(self.dbg.step)

    def on_step_out(self, args: Message) -> None:
        self.start(self.dbg.finish)

    def on_step_back(self, args: Message) -> None:
        self.start(self.dbg.reverse_step)

    def on_reverse_continue(self, args: Message) -> None:
        self.start(self.dbg.reverse_continue)

    def on_pause(self, args: Message) -> None:
        with self.lock:
            if self.running:
                self.sim.machine.request_stop(PAUSED)

    def start(self, command: Callable[[], Outcome]) -> None:
        """Run a session's command on the worker; its outcome becomes an event."""
        with self.lock:
            if self.running:
                raise RequestError("the program is running already")
            self.dbg.running()  # CommandError once it has ended
            self.running = True
        self.worker = threading.Thread(target=self._work, args=(command,), name="lc3jit-dap-run", daemon=True)
        self.worker.start()

    def _work(self, command: Callable[[], Outcome]) -> None:
        try:
            outcome = command()
            while outcome.ending is Ending.RECONFIGURE:  # asked before the command began: begin it
                self.sim.machine.take_ending()
                self.apply_pending()
                outcome = command()
        except CommandError as e:  # a way back with no history
            self.note(str(e), "stderr")
            outcome = STEP_LIMIT
        except Exception as e:  # a bug of ours: say it rather than hang the editor
            self.note(f"lc3jit dap: {type(e).__name__}: {e}", "stderr")
            outcome = Outcome(Ending.FAULT, str(e))
        stop = self.dbg.stop(outcome)
        if stop.reason in ("ended", "limit"):
            self.dbg.ended = outcome  # the step limit reached ends an editor's session too
        for change in stop.pushes:
            self.note(change[:1].upper() + change[1:])
        with self.lock:
            self.running = False
            self.sim.machine.take_ending()  # a pause that came too late to stop anything
            self.pending = False
        self.apply()
        self.reported(stop)

    def reported(self, stop: Stop) -> None:
        """The event for how a run stopped: stopped, or exited and terminated."""
        outcome = stop.outcome
        if stop.reason in ("ended", "limit"):
            if outcome.message and outcome.ending is not Ending.HALT:
                self.note(f"{outcome.message} at x{stop.pc:04X}", "stderr")
            self.channel.event("exited", {"exitCode": outcome.exit_code})
            self.channel.event("terminated")
        elif stop.reason == "breakpoint":
            self.stopped("breakpoint", self.hit_ids(stop.pc))
        elif stop.reason == "watch":
            ids = [bp.id for bp in self.breakpoints.data]
            self.stopped("data breakpoint", ids, outcome.message)
        else:
            self.stopped(stop.reason)

    def stopped(self, reason: str, ids: list[int] | None = None, text: str | None = None) -> None:
        body: Message = {"reason": reason, "threadId": THREAD, "allThreadsStopped": True}
        if ids:
            body["hitBreakpointIds"] = ids
        if text:
            body["text"] = text
            body["description"] = f"Paused on {reason}"
        self.channel.event("stopped", body)


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
