"""What a breakpoint costs while it is not hit: each benchmark program run to the end by
`lc3jit run` (the API), and under `lc3jit debug` with a breakpoint at FINISH, the code that
prints the checksum, reached once after the whole computation.

Both sides run on the region engine, alternately (as `lc3jit bench` does, so a slow spell
of a shared machine falls on both), and the median of the runs counts; the debugged run
is the debugger's own code path (`break FINISH`, `continue` to it, `continue` to HALT),
and must end with the same output and instruction count. Building the engine is left out
of both. The breakpoint drops the translations that covered FINISH (the main loop's
region falls through to it), which are translated again when hot, cut before FINISH.

Run it with each Python: `python examples/bench/breakpoints.py [--repeat N]`.
"""

from __future__ import annotations

import io
import statistics
import sys
import time
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.debugger import Debugger

BENCH = Path(__file__).parent
PROGRAMS = ("arith", "fib", "sieve", "sort", "strings")


def plain(program: Path) -> tuple[float, str, int]:
    sim = Simulator(program)
    sim.engine  # noqa: B018 - translated ahead of time, before the clock starts
    start = time.perf_counter()
    sim.run()
    return time.perf_counter() - start, sim.output, sim.instructions


def debugged(program: Path) -> tuple[float, str, int]:
    transcript = io.StringIO()
    debugger = Debugger(lambda: Simulator(program), transcript)
    debugger.execute("break FINISH")
    start = time.perf_counter()
    debugger.execute("continue")
    seconds = time.perf_counter() - start
    assert debugger.sim.pc == debugger.sim.address("FINISH"), transcript.getvalue()
    debugger.execute("continue")
    return seconds, debugger.sim.output, debugger.sim.instructions


def main() -> None:
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
    print(f"Python {sys.version.split()[0]}, median of {repeat} alternating runs, region engine\n")
    print("| program | instructions | run ms | debug, break at FINISH: ms to it | ratio |")
    print("|---|---:|---:|---:|---:|")
    ratios = []
    for name in PROGRAMS:
        program = BENCH / f"{name}.asm"
        runs: dict[str, list[float]] = {"plain": [], "debugged": []}
        ends = set()
        for _ in range(repeat):
            for kind, measure in (("plain", plain), ("debugged", debugged)):
                seconds, output, instructions = measure(program)
                runs[kind].append(seconds)
                ends.add((output, instructions))
        assert len(ends) == 1, f"{name}: the debugged run ended differently"
        run_ms, debug_ms = (statistics.median(runs[k]) * 1000 for k in ("plain", "debugged"))
        ratios.append(debug_ms / run_ms)
        instructions = next(iter(ends))[1]
        print(f"| {name}.asm | {instructions:,} | {run_ms:.0f} | {debug_ms:.0f} | {debug_ms / run_ms:.2f} |")
    print(f"| geometric mean | | | | {statistics.geometric_mean(ratios):.2f} |")


if __name__ == "__main__":
    main()
