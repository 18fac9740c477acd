"""What the debugger's history costs: memory and time over about 10^6 instructions.

    python examples/bench/history_memory.py [ENGINE]

Runs sieve.asm and sort.asm under the debugger (10^6 instructions, no breakpoint) with
and without a history, and reports the history's memory (tracemalloc: what the run
allocated beyond the same run without a history, at its end) and the running times as a
ratio from one run; then goes back 3 instructions and reports how long that took.
"""

from __future__ import annotations

import argparse
import io
import time
import tracemalloc
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.debugging.debugger import Debugger

HERE = Path(__file__).parent
STEPS = 1_000_000


def measure(program: Path, engine: str, history: int) -> tuple[int, float, int, Debugger]:
    make = lambda: Simulator(program, engine=engine)  # noqa: E731
    debugger = Debugger(make, io.StringIO(), max_steps=STEPS, history=history)
    assert debugger.sim.engine is not None  # translated before the measurement starts
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    debugger.cont()
    seconds = time.perf_counter() - start
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used, seconds, debugger.sim.machine.icount, debugger


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", nargs="?", default="regions", help="the engine to run (default regions)")
    engine = parser.parse_args().engine
    print("| program | instructions | history memory | checkpoints | time with / without | back 3 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("sieve.asm", "sort.asm"):
        bare, bare_seconds, _, _ = measure(HERE / name, engine, 0)
        used, seconds, count, debugger = measure(HERE / name, engine, 10_000_000)
        start = time.perf_counter()
        debugger.reverse_step(3)
        back = time.perf_counter() - start
        history = debugger.history
        assert history is not None
        print(
            f"| {name} | {count:,} | {(used - bare) / 2**20:.2f} MiB | {len(history.checkpoints)} |"
            f" {seconds / bare_seconds:.2f} | {back * 1000:.1f} ms |"
        )


if __name__ == "__main__":
    main()
