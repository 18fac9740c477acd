"""The bench loops against lc3-ensemble (the Rust simulator with its own OS, `pip install
lc3-ensemble-test`): the target is every bench program at least 2x its speed.

Both run each program to its HALT in this process, one after the other round after round:
ours translated before the run (`--translate-after 0`), only `run()` timed, as
lc3-ensemble's `run()` is timed alone after it assembled and loaded the source. The
minimum CPU time of the rounds counts; the ratio is our instructions a second over
lc3-ensemble's (its count includes the few instructions of its own OS's start).
lc3-ensemble-test has no wheel for 3.15: there, time ours alone with `--ours-only` and
divide by a run of this script on a Python that has it.
Run: `python examples/bench/ensemble_loops.py [--rounds N] [--ours-only]`.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from peers import ensemble_run  # type: ignore[import-not-found]

from lc3jit.api import Simulator

BENCH = Path(__file__).resolve().parent
PROGRAMS = ("arith", "fib", "sieve", "sort", "strings", "dispatch")


def ours(name: str) -> tuple[float, int]:
    """CPU seconds of the translated run, and its instructions."""
    simulator = Simulator(BENCH / f"{name}.obj", translate_after=0)
    began = time.process_time()
    simulator.run(check=False)
    return time.process_time() - began, simulator.machine.icount


def theirs(name: str) -> tuple[float, int]:
    """CPU seconds of lc3-ensemble's run, and its instructions."""
    seconds, _, count = ensemble_run((BENCH / f"{name}.asm").read_text())
    return seconds, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the minimum counts")
    parser.add_argument("--ours-only", action="store_true", help="time lc3jit's regions alone")
    arguments = parser.parse_args()
    sides = {"regions": ours} if arguments.ours_only else {"regions": ours, "lc3-ensemble": theirs}
    if not arguments.ours_only:
        try:
            import ensemble_test  # noqa: F401
        except ImportError:
            sys.exit("ensemble_loops.py: lc3-ensemble is not installed here (pip install lc3-ensemble-test)")
    print(f"Python {platform.python_version()}, {arguments.rounds} rounds")
    columns = [f"{side} MIPS" for side in sides] + ["regions x lc3-ensemble"] * (len(sides) > 1)
    print(f"| program | {' | '.join(columns)} |")
    print(f"|---|{'---:|' * len(columns)}")
    for name in PROGRAMS:
        best: dict[str, tuple[float, int]] = {}
        for _ in range(arguments.rounds):
            for side, run in sides.items():
                seconds, count = run(name)
                best[side] = min(best.get(side, (seconds, count)), (seconds, count))
        mips = {side: count / seconds / 1e6 for side, (seconds, count) in best.items()}
        cells = [f"{value:.1f}" for value in mips.values()]
        if len(sides) > 1:
            cells.append(f"{mips['regions'] / mips['lc3-ensemble']:.2f}")
        print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
