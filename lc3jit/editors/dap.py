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

import gc
import io
import os
import re
import threading
from collections.abc import Callable
from typing import BinaryIO

from lc3jit.api import Simulator
from lc3jit.debugging.expressions import ExpressionError
from lc3jit.debugging.session import Session
from lc3jit.debugging.stops import CommandError, Stop
from lc3jit.editors.dap_args import Launch, arguments, read_input
from lc3jit.editors.dap_breakpoints import BreakpointRequests, Breakpoints
from lc3jit.editors.dap_debugger import ConsoleKeyboard, EventDisplay
from lc3jit.editors.dap_inspect import THREAD, Inspection
from lc3jit.editors.dap_program import Program
from lc3jit.editors.dap_wire import Channel, Message, MessageError, ProtocolError, RequestError
from lc3jit_runtime.collector import running
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
        """Answer requests until disconnect or the end of the input. A message that is not
        JSON is reported and passed over; a frame that cannot be read ends the session."""
        while not self.done:
            try:
                message = self.channel.read()
            except MessageError as e:
                self.note(f"lc3jit dap: {e}", "stderr")
                continue
            except ProtocolError as e:
                self.note(f"lc3jit dap: {e}", "stderr")
                break
            except OSError:  # the connection broke, or a client that stalled was cut off
                break
            if message is None:
                break
            if message.get("type") == "request":
                self.handle(message)
        self.stop_running()
        self.release()

    def release(self) -> None:
        """When a session ends: the debug console's keyboard closed, and what its launches
        made (frozen out of the collector's sight until a run ends) collected, so that a
        server of many sessions stays the size of one. A machine's lists are large and few,
        so the collector, counting allocations, would come to them late."""
        if self.keys is not None:
            self.keys.close()
        with running():
            pass  # the end of a run with nothing frozen meanwhile: the collector sees all again
        gc.collect()

    def handle(self, request: Message) -> None:
        """Answer one request: its response, or an error response (never an exception)."""
        command = request.get("command")
        command = command if isinstance(command, str) else ""
        name = _CAMEL.sub("_", command).lower()  # setBreakpoints: on_set_breakpoints
        handler = getattr(self, "on_" + name, None) if name.isidentifier() else None
        if handler is None:
            self.channel.fail(request, f"lc3jit does not support the request {command[:40]!r}")
            return
        try:
            body = handler(arguments(request))
        except (RequestError, ExpressionError, CommandError, KeyError, ValueError) as e:
            self.channel.fail(request, str(e.args[0]) if e.args else str(e))
            return
        except LC3Error as e:
            self.note(str(e), "stderr")
            self.channel.fail(request, str(e).splitlines()[0])
            return
        except (TypeError, AttributeError, IndexError, OverflowError) as e:
            self.channel.fail(request, f"{command}: missing or mistyped arguments ({e})")
            return
        except Exception as e:  # a bug of ours: an error response, and the session goes on
            self.note(f"lc3jit dap: {command}: {type(e).__name__}: {e}", "stderr")
            self.channel.fail(request, f"{command} failed: {type(e).__name__}: {e}")
            return
        self.channel.respond(request, body)
        if command == "launch":
            self.channel.event("initialized")
        after = getattr(self, "after_" + name, None)
        if after is not None:
            try:
                after()
            except Exception as e:  # the response is sent: say it on the console instead
                self.note(
                    f"lc3jit dap: {command}: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
                    "stderr",
                )

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
        if self.running:
            raise RequestError("the program is running: terminate it first")
        launch = Launch.parse(args)
        program = Program.load(launch.programs, lambda message: self.note(message, "stderr"))
        display = EventDisplay(self.channel)
        if launch.input_file is None:
            read, write = os.pipe()
            self.keys = os.fdopen(write, "wb", buffering=0)
            keyboard = os.fdopen(read, "rb", buffering=0)
        else:
            keys = read_input(launch.input_file)

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
        if self.launch is None or self.debugger is None:
            raise RequestError("no program is loaded: launch one first")

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
            while worker.is_alive():  # asked again: a command of several runs may take one stop
                self.sim.machine.request_stop(PAUSED)
                worker.join(0.05)
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
