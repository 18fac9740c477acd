"""The machine behind the web page: what its Web Worker runs under Pyodide.

The page's worker (page/src/worker.js) loads the program files into Pyodide's file
system and drives one `PageMachine` through the debugging API, as `lc3jit debug` does:
Run is `cont` in slices of instructions, so that between two slices the worker reads its
messages (Stop, keys typed); Step and Back are `step` and `reverse_step`. Every method
returns a report, a dict the worker posts to the page as it is: the program's new output,
what the debugger says of the stop, the registers, the memory and the source around the
PC, and the speed.

A key the program waits for (GETC, IN, the OS's KBSR polls) that has not been typed yet
pauses the run inside that instruction, which does not complete: the worker waits for the
next key and runs on from there, so the page never blocks and the key reaches the program
where it waits.
"""

from __future__ import annotations

import io
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.debugging.inspecting import Inspecting
from lc3jit.debugging.stops import ENDED, STEPPED, CommandError
from lc3jit.debugging.views import memory_lines, register_lines
from lc3jit.toolchain.asm import diagnose
from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import LC3Error, StopRequested
from lc3jit_runtime.outcome import Outcome

#: The ending of a run paused for a key not typed yet.
WAITING = Outcome(Ending.PAUSED, "waiting for a key")
MEMORY_AROUND = 8  # words shown before the PC in the memory pane (16 in all)
SOURCE_AROUND = 4  # instructions shown before the PC in the source pane (12 in all)
#: Endings after which Run starts the program again: the debugger's, and the output limit
#: (`lc3jit run` ends there too).
FINAL = (*ENDED, Ending.OUTPUT_LIMIT)
#: The defaults of the page's limits: a page left running stays bounded.
MAX_OUTPUT = 1 << 20
MAX_DIAGNOSTICS = 50
MAX_SOURCE = 1 << 20  # characters of the editor's text assembled as it changes
MAX_TYPED = 1 << 16  # keys typed ahead of the program (a paste): the rest are dropped
MAX_BREAKPOINTS = 256  # the editor's breakpoints a machine takes (the first ones)


class PageConsole(CapturedConsole):
    """The page's terminal: keys typed come in with `type_keys`; output is taken in pieces
    (`take_output`) as the page shows it. A wait for a key that has not come asks `waiting`
    to stop the run there."""

    def __init__(self) -> None:
        super().__init__()
        self.typed: deque[int] = deque()
        self.waiting: Callable[[], None] | None = None

    def type_keys(self, keys: bytes) -> None:
        self.typed.extend(keys[: max(0, MAX_TYPED - len(self.typed))])

    def next_key(self, wait: float | None = 0.0) -> int | None:
        if self.typed:
            return self.typed.popleft()
        if wait == 0.0 or self.waiting is None:  # a program's own poll: no key yet
            return None
        self.waiting()
        raise StopRequested  # the instruction waiting does not complete

    def take_output(self) -> str:
        """What the program wrote since the last time, forgotten here (the output limit
        counts every byte written all the same)."""
        new = self.output
        self.clear()
        return new.decode("latin-1")


class PageMachine:
    """A program loaded in the page, under the debugger: its runs, steps and reports."""

    def __init__(
        self,
        paths: Sequence[str],
        engine: str = "regions",
        edition: int = 3,
        os: bool = False,
        max_steps: int | None = None,
        max_output: int | None = MAX_OUTPUT,
    ) -> None:
        self.paths = [Path(p) for p in paths]
        self.engine = engine
        self.consoles: list[PageConsole] = []
        options = {"engine": engine, "edition": edition, "os": os, "max_output": max_output}

        def make() -> Simulator:
            console = PageConsole()
            sim = Simulator(*self.paths, console=console, **options)  # type: ignore[arg-type]
            console.waiting = lambda: sim.machine.request_stop(WAITING)
            self.consoles.append(console)
            del self.consoles[:-1]
            return sim

        self.said = io.StringIO()
        self.session = Inspecting(make, self.said, max_steps=max_steps)
        self.state = "ready"  # running, waiting (for a key), stopped, ended
        self.ran = 0  # instructions run forward by this machine, and in how many seconds
        self.seconds = 0.0

    @property
    def console(self) -> PageConsole:
        return self.consoles[-1]

    def type_keys(self, text: str) -> dict[str, object]:
        """Keys typed in the terminal (latin-1 characters, a byte each)."""
        self.console.type_keys(text.encode("latin-1", "replace"))
        if self.state == "waiting":
            self.state = "running"
        return self.report()

    def run(self, count: int) -> dict[str, object]:
        """At most count instructions at full speed, from the start again once ended."""
        if self.state == "ended":
            self.restart()
        if self.state == "waiting" and not self.console.typed:
            return self.report()
        return self._forward(lambda: self.session.cont(count), quiet=True)

    def stop(self) -> dict[str, object]:
        """The page's Stop: the run (between two slices) stops where it is."""
        if self.state in ("running", "waiting"):
            self.state = "stopped"
            self.session.show_pc()
        return self.report()

    def step(self) -> dict[str, object]:
        if self.state == "ended":
            self.restart()
        return self._forward(self.session.step)

    def back(self) -> dict[str, object]:
        """One instruction back (the output stays as the program wrote it)."""
        self._command(self.session.reverse_step)
        return self.report()

    def set_breakpoints(self, lines: Sequence[int]) -> dict[str, object]:
        """The editor's breakpoints, by line of the program's source: each stops at the
        first instruction at or after its line, as `break 12` does; a line after the last
        instruction, or any line of a program without source, sets none. The report says
        where they are."""
        addresses = set()
        for line in lines[:MAX_BREAKPOINTS]:
            try:
                addresses.add(self.session.location(str(int(line))))
            except (CommandError, ValueError, TypeError):
                continue
        self.session.stop_at(addresses)
        return self.report()

    def restart(self) -> None:
        """A fresh machine from the files, as the debugger's `run` starts again."""
        self.session.load()
        self.state = "ready"

    def _forward(self, command: Callable[[], Outcome], quiet: bool = False) -> dict[str, object]:
        machine = self.session.sim.machine
        before, started = machine.icount, time.perf_counter()
        self._command(command, quiet)
        if self.session.sim.machine is machine:  # (not started again)
            self.ran += machine.icount - before
            self.seconds += time.perf_counter() - started
        return self.report()

    def _command(self, command: Callable[[], Outcome], quiet: bool = False) -> None:
        """Run a debugger command; say how it stopped unless it is a slice of a run that
        goes on."""
        try:
            outcome = command()
        except CommandError as error:
            self.said.write(f"{error}\n")
            return
        machine = self.session.sim.machine
        if outcome is WAITING or machine.ending is WAITING:
            machine.take_ending()
            self.state = "waiting"
            return
        machine.take_ending()
        if outcome.ending in FINAL or self.session.ended is not None:
            self.state = "ended"
            self.said.write(self._ending(outcome) + "\n")
        elif quiet and outcome is STEPPED:  # the slice's count run: the run goes on
            self.state = "running"
        else:
            self.state = "stopped"
            self.session.report(outcome)

    def _ending(self, outcome: Outcome) -> str:
        """How the program ended, in the words of `lc3jit run`'s last line."""
        sim = self.session.sim
        if outcome.ending is Ending.HALT:
            return f"The program halted after {sim.instructions:,} instructions."
        return f"{outcome.message} at {sim.where()}{sim.diagnosis(outcome.ending)}"

    def report(self) -> dict[str, object]:
        """What the page shows now."""
        session = self.session
        sim = session.sim
        pc = sim.pc
        said, self.said = self.said.getvalue(), io.StringIO()
        session.out = self.said
        source = session.places.line(pc)
        start = max(0, pc - MEMORY_AROUND)
        return {
            "state": self.state,
            "output": self.console.take_output(),
            "said": said,
            "registers": register_lines(sim, session.where),
            "memory": memory_lines(sim, session.labels, start, 2 * MEMORY_AROUND),
            "source": self.source_lines(pc),
            "pc": pc,
            "line": source.line if source is not None else 0,
            "file": Path(source.path).name if source is not None else "",
            "breakpoints": self.breakpoint_lines(),
            "instructions": sim.instructions,
            "engine": sim.engine_name,
            "mips": self.ran / self.seconds / 1e6 if self.seconds else 0.0,
        }

    def breakpoint_lines(self) -> list[int]:
        """The source lines of the program's file (its first) where breakpoints are."""
        places, name = self.session.places, self.paths[0].name
        found = (places.line(address) for address in self.session.breakpoints)
        return sorted({line.line for line in found if line is not None and Path(line.path).name == name})

    def source_lines(self, pc: int) -> list[str]:
        """The lines around the PC as the debugger's `list` shows them: the source line
        where there is one, else the instruction disassembled; the PC's marked =>."""
        session = self.session
        lines = []
        for address in range(max(0, pc - SOURCE_AROUND), min(pc + 3 * SOURCE_AROUND, 0x10000)):
            text = session.places.line_text(address) or session.text(address)
            lines.append(f"{'=>' if address == pc else '  '} {session.where(address):<18} {text}")
        return lines


def load(paths: Sequence[str], **options: object) -> tuple[PageMachine | None, str]:
    """The machine of these files, or None and the one line `lc3jit run` says of them."""
    try:
        return PageMachine(paths, **options), ""  # type: ignore[arg-type]
    except LC3Error as error:
        return None, str(error)
    except (ValueError, OSError) as error:
        return None, f"{paths[0] if paths else ''}: {error}"


#: A loop that a translated engine translates as a region (a run of blocks otherwise).
WARM_UP = ".ORIG x3000\nAND R0, R0, #0\nLOOP ADD R0, R0, #1\nBRnp LOOP\nHALT\n.END\n"


def warm_up() -> None:
    """Import what the first run on a translated engine imports (the translator, the
    assembler of code objects): Pyodide compiles those sources as they are imported, which
    the worker does once it is ready, so that a program's first run times the program."""
    for engine in ("regions", "blocks"):
        Simulator(source=WARM_UP, engine=engine).run(max_steps=100, check=False)


def diagnostics(source: str, name: str) -> list[dict[str, object]]:
    """The assembler's errors and warnings for the editor, as the language server gives them."""
    if len(source) > MAX_SOURCE:
        message = f"{len(source):,} characters: the page checks sources of at most {MAX_SOURCE:,} as you type"
        return [{"line": 1, "column": 1, "message": message, "severity": "warning", "text": message}]
    _, found = diagnose(source, name)
    return [
        {"line": d.line, "column": d.column, "message": d.message, "severity": d.severity, "text": str(d)}
        for d in found[:MAX_DIAGNOSTICS]
    ]
