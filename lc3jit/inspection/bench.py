"""Benchmarks: every engine on the same program and input, checked against each other, timed.

Runs alternate between engines (interp, blocks, interp, blocks, ...) so that a slow spell
of a shared machine falls on all of them alike, and the median of the runs is reported.
An engine named ENGINE@LOC runs under the debugger with a breakpoint at LOC, continued
through at each hit: what breakpoints cost, checked like any engine.
Every run of every engine must end in the same output, architectural state, memory,
instruction count and stop reason as the first engine's first run: a benchmark of a
wrong translation is worthless, so a difference is an `MismatchError`, not a footnote.

A hand-written Python equivalent of a program (`PROG.py` beside `PROG.asm`, with a
`run() -> str` giving the text the program prints before HALT) can join as the "floor":
what the same work costs in plain Python with no emulation at all, timed in CPU time in the
same rounds as the engines (interp, python, interp, python, ...). Its output is checked
too; its MIPS count the LC-3 program's instructions. It is the floor of a translation, what
a translator's output would be if it could drop the 16-bit wrap and the condition codes
(so not a valid translation), and is written by these rules:
- one statement per LC-3 instruction that computes something, in the program's order, on
  locals r0..r7; nothing merged, reordered, strength-reduced or skipped;
- memory is a list indexed by LC-3 address, with the program's data and the same reads and
  writes (an LD is a read of memory, not a constant); words hold the value the program
  means, negative numbers as plain Python negatives;
- branches test the register just computed (no condition codes), as the same loops with
  the same number of iterations;
- no 16-bit wrap except where a value would grow without bound, marked where it is done;
- FINISH, which prints the checksum as four hex digits, is an f-string.

The JSON form (`FORMAT_VERSION` = 1, keys sorted):

    {"version": 1, "python": "3.11.7", "machine": "x86_64", "cpus": 2, "repeat": 3, "process": false,
     "programs": [{"program": str, "instructions": int, "stop_reason": str, "output": str,
                   "engines": [{"engine": str, "seconds": [float, ...],
                                "median_seconds": float, "mips": float,
                                "ratio_to_interp": float | null,
                                "time_over_floor": float | null,
                                "translation_seconds": float | null}]}]}

With `--process` (`"process": true` in the JSON), each run is a whole `lc3jit run` process
and `seconds` are its CPU time, start-up included; memory is not compared, and there is no
translation time (null) and no floor.

`ratio_to_interp` is the interpreter's median time over the engine's (null when the
interpreter was not run); `time_over_floor` is the engine's median time over the floor's
(null without a floor); `translation_seconds` is the median time to build the engine,
the ahead-of-time translation (null for the floor).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rich.console import Console as RichConsole
from rich.table import Table

from lc3jit.session import RunResult, boot, run_machine
from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.loader import Image

FORMAT_VERSION = 1
FLOOR = "python"  # the name of the floor's row


class MismatchError(LC3Error):
    """Two engines ran the same program to different ends."""


@dataclass(frozen=True)
class Observation:
    """What a run must agree on with every other run of the same program."""

    output: bytes
    state: dict[str, object]  # registers, PC, PSR, codes, stack pointers, count, stop reason
    memory: tuple[int, ...]

    def differences(self, other: Observation) -> list[str]:
        """What differs, in words, for the error message; empty when nothing does."""
        found = [
            f"{key} {self.state.get(key)!r} vs {other.state.get(key)!r}"
            for key in sorted(self.state.keys() | other.state.keys())
            if self.state.get(key) != other.state.get(key)
        ]
        if self.output != other.output:
            found.insert(0, f"output {_excerpt(self.output)} vs {_excerpt(other.output)}")
        words = [a for a, (x, y) in enumerate(zip(self.memory, other.memory, strict=True)) if x != y]
        if words:
            a = words[0]
            first = f"x{a:04X}: x{self.memory[a]:04X} vs x{other.memory[a]:04X}"
            found.append(f"memory at {len(words)} addresses, first {first}")
        return found


def _excerpt(output: bytes, limit: int = 60) -> str:
    return repr(output if len(output) <= limit else output[:limit] + b"...")


@dataclass
class EngineTimes:
    engine: str
    seconds: list[float] = field(default_factory=list)
    setup_seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def translation(self) -> float | None:
        return statistics.median(self.setup_seconds) if self.setup_seconds else None


@dataclass
class ProgramBench:
    program: str
    reference: Observation
    times: list[EngineTimes]

    @property
    def instructions(self) -> int:
        return int(self.reference.state["instructions"])  # type: ignore[call-overload]

    def mips(self, times: EngineTimes) -> float:
        return self.instructions / times.median / 1e6 if times.median else 0.0

    def median_of(self, engine: str) -> float | None:
        return next((t.median for t in self.times if t.engine == engine), None)

    def ratio(self, times: EngineTimes) -> float | None:
        """Interpreter time over this engine's: how many times faster than the interpreter."""
        interp = self.median_of("interp")
        return interp / times.median if interp and times.median else None

    def over_floor(self, times: EngineTimes) -> float | None:
        """This engine's time over the floor's: how many times slower than plain Python."""
        floor = self.median_of(FLOOR)
        return times.median / floor if floor else None


def observe(
    images: Sequence[Image], engine: str, keys: bytes, edition: int
) -> tuple[Observation, float, float | None]:
    """One run of one engine: what it ended with, its running time and its setup time."""
    console = CapturedConsole(keys)
    if BREAK in engine:
        result = run_with_breakpoint(images, engine, console, edition)
    else:
        result = run_machine(boot(images, console, edition), engine)
    state = result.state()
    return Observation(console.output, state, tuple(result.machine.mem)), result.seconds, result.setup_seconds


#: ENGINE@LOC in --engines: the engine with a breakpoint at LOC (a label or an address).
BREAK = "@"


def run_with_breakpoint(
    images: Sequence[Image], spec: str, console: CapturedConsole, edition: int
) -> RunResult:
    """ENGINE@LOC: run under the debugger with a breakpoint at LOC, continuing each time it is
    hit, so the run ends as the engine's own does: what breakpoints cost (`lc3jit debug`)."""
    from lc3jit.api import Simulator  # the debugger only for the runs that ask for it
    from lc3jit.debugging.debugger import Debugger

    engine, _, location = spec.partition(BREAK)
    start = time.perf_counter()
    debugger = Debugger(
        lambda: Simulator(*images, engine=engine, edition=edition, console=console), io.StringIO()
    )
    sim = debugger.sim
    try:
        address = sim.address(location)
    except (KeyError, ValueError):
        raise LC3Error(f"{images[0].name}: no label or address {location!r} for {spec}") from None
    debugger.execute(f"break x{address:04X}")
    ready = time.perf_counter()
    outcome = debugger.cont()
    while outcome.ending is Ending.BREAKPOINT:
        outcome = debugger.cont()
    return RunResult(outcome, sim.machine, sim.engine, time.perf_counter() - ready, ready - start)


def observe_process(
    program: str, engine: str, keys: bytes, edition: int
) -> tuple[Observation, float, float | None]:
    """One run as a user starts it, `lc3jit run` in a process of its own, start-up included:
    its output and final state (memory stays inside the process), and its CPU time (user
    and system: on a shared machine, steadier than the time on the clock)."""
    import resource  # only here: not on every platform (not in Pyodide, where the web page dumps)

    if BREAK in engine:
        raise LC3Error(f"{program}: {engine}: a breakpoint is timed in this process only, not with --process")
    with tempfile.TemporaryDirectory() as folder:
        state_path = Path(folder) / "state.json"
        command = [sys.executable, "-m", "lc3jit", "run", program, "--engine", engine]
        command += ["--edition", str(edition), "--state-json", str(state_path)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, input=keys, capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not state_path.exists():
            raise LC3Error(f"{program}: `lc3jit run` ended with exit code {done.returncode}: {done.stderr!r}")
        state = json.loads(state_path.read_text())
    seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Observation(done.stdout, state, ()), seconds, None


def floor_module(program: Path) -> Path | None:
    """The hand-written Python equivalent beside a program, if there is one."""
    candidate = program.with_suffix(".py")
    return candidate if candidate.is_file() else None


def _floor_run(path: Path) -> Callable[[], str]:
    spec = importlib.util.spec_from_file_location(f"lc3jit_floor_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run  # type: ignore[no-any-return]


def bench_program(
    program: str,
    images: Sequence[Image],
    engines: Sequence[str],
    keys: bytes = b"",
    repeat: int = 3,
    edition: int = 3,
    floor: Path | None = None,
    tick: Callable[[], None] = lambda: None,
    process: bool = False,
) -> ProgramBench:
    """Run each engine `repeat` times, alternating, and check every run against the first.

    tick is called after each run (for a progress bar). With `process`, each run is a
    whole `lc3jit run` process (see observe_process).
    """
    times = [EngineTimes(name) for name in engines]
    floor_run = None if floor is None else _floor_run(floor)
    floor_times = EngineTimes(FLOOR)
    reference: Observation | None = None
    for _ in range(repeat):
        for entry in times:
            if process:
                seen, seconds, setup = observe_process(program, entry.engine, keys, edition)
            else:
                seen, seconds, setup = observe(images, entry.engine, keys, edition)
            if reference is None:
                reference = seen
            elif differences := reference.differences(seen):
                raise MismatchError(
                    f"{program}: engines {engines[0]} and {entry.engine} disagree: " + "; ".join(differences)
                )
            entry.seconds.append(seconds)
            if setup is not None:
                entry.setup_seconds.append(setup)
            tick()
        if floor_run is not None:
            assert floor is not None and reference is not None
            floor_times.seconds.append(_time_floor(program, floor, floor_run, reference))
            tick()
    assert reference is not None
    return ProgramBench(program, reference, times if floor is None else [*times, floor_times])


def _time_floor(program: str, path: Path, run: Callable[[], str], reference: Observation) -> float:
    """One run of the Python equivalent, in CPU time as the engines' runs are timed, in the
    same rounds as theirs; its text must be what the program printed before HALT."""
    began = time.process_time()
    text = run()
    seconds = time.process_time() - began
    if not reference.output.startswith(text.encode("latin-1")):
        raise MismatchError(
            f"{program}: {path} printed {_excerpt(text.encode('latin-1'))}, "
            f"the program {_excerpt(reference.output)}"
        )
    return seconds


def runs_needed(programs: int, engines: int, repeat: int, floors: int) -> int:
    """How many ticks a whole benchmark makes."""
    return (programs * engines + floors) * repeat


def to_json(benches: Sequence[ProgramBench], repeat: int, process: bool = False) -> str:
    document = {
        "version": FORMAT_VERSION,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "repeat": repeat,
        "process": process,
        "programs": [
            {
                "program": b.program,
                "instructions": b.instructions,
                "stop_reason": b.reference.state["stop_reason"],
                "output": b.reference.output.decode("latin-1"),
                "engines": [
                    {
                        "engine": t.engine,
                        "seconds": t.seconds,
                        "median_seconds": t.median,
                        "mips": b.mips(t),
                        "ratio_to_interp": b.ratio(t),
                        "time_over_floor": b.over_floor(t),
                        "translation_seconds": t.translation,
                    }
                    for t in b.times
                ],
            }
            for b in benches
        ],
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def costly_translations(benches: Sequence[ProgramBench]) -> list[tuple[ProgramBench, EngineTimes]]:
    """The runs that took less time than translating for them did."""
    return [
        (b, t) for b in benches for t in b.times if t.translation is not None and t.translation > t.median
    ]


def write_table(benches: Sequence[ProgramBench], file: TextIO, color: bool | None = None) -> None:
    """One row per program and engine; plain text in a pipe, coloured on a terminal. The total
    is translation and run together; a run shorter than its translation is said so below."""
    table = Table()
    table.add_column("program")
    table.add_column("engine")
    floors = any(b.median_of(FLOOR) for b in benches)  # the column only with a floor to compare
    columns = (
        "instructions",
        "median s",
        "MIPS",
        "x interp",
        *(["time / floor"] * floors),
        "translation ms",
        "total s",
    )
    for name in columns:
        table.add_column(name, justify="right")
    costly = costly_translations(benches)
    for b in benches:
        for i, t in enumerate(b.times):
            ratio, over_floor = b.ratio(t), b.over_floor(t)
            translation = "" if t.translation is None else f"{t.translation * 1000:.3f}"
            table.add_row(
                b.program if i == 0 else "",
                t.engine,
                f"{b.instructions:,}",
                f"{t.median:.6f}",
                f"{b.mips(t):.2f}",
                "" if ratio is None else f"{ratio:.1f}",
                *(["" if over_floor is None else f"{over_floor:.2f}"] * floors),
                translation + (" *" if (b, t) in costly else ""),
                f"{t.median + (t.translation or 0.0):.4f}",
                end_section=i == len(b.times) - 1,
            )
    out = RichConsole(file=file, force_terminal=color, no_color=color is False, width=130)
    out.print(f"lc3jit bench, Python {platform.python_version()}, {os.cpu_count()} CPUs", style="bold")
    out.print(table)
    for b, t in costly:
        assert t.translation is not None
        out.print(
            f"* {b.program} {t.engine}: translating ({t.translation * 1000:.1f} ms) costs more than the run "
            f"({t.median * 1000:.1f} ms); x interp counts the run only",
            style="yellow",
            soft_wrap=True,
        )
