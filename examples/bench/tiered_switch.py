"""The tiered switch: how fast a plain `lc3jit run` runs once it has switched to translated code.

A plain run starts on the interpreter and builds the region engine after TRANSLATE_AFTER
instructions (lc3jit/tiered.py). The engine built then must run the rest of the program as
fast as the one `--translate-after 0` builds before the run: the same regions, rooted where
the program's functions begin, not at the PC the switch happened to reach. This script
measures exactly that, in one process per Python, for each bench program:

- tiered: a Simulator with the default switch runs its first TRANSLATE_AFTER + 1
  instructions untimed (the switch and its translation happen there), then the rest of the
  program, timed;
- `-t0`: a Simulator that translated before the run runs the same first instructions
  untimed, then the same rest, timed.

The two are interleaved round after round and the minimum CPU time of the rounds counts.
The ratio is tiered's instructions a second over `-t0`'s (issue 20's target: at least 0.95).
Run-time translations after the switch fall in the timed part, as they do in a real run.
Both must end in the same state with the same output; a difference stops the script.
Run it with each Python: `python examples/bench/tiered_switch.py [--rounds N]`.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.tiered import TRANSLATE_AFTER

BENCH = Path(__file__).resolve().parent
PROGRAMS = ("arith", "fib", "sieve", "sort", "strings", "dispatch")


def rest_of_run(program: Path, translate_after: int) -> tuple[float, int, dict[str, object], str]:
    """CPU seconds and instructions of the run after its first TRANSLATE_AFTER + 1, and how it ended."""
    simulator = Simulator(program, translate_after=translate_after)
    simulator.run(max_steps=TRANSLATE_AFTER + 1, check=False)
    before = simulator.machine.icount
    began = time.process_time()
    simulator.run(check=False)
    spent = time.process_time() - began
    return spent, simulator.machine.icount - before, simulator.state(), simulator.output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the minimum counts")
    parser.add_argument("programs", nargs="*", default=PROGRAMS, help="bench programs by name")
    arguments = parser.parse_args()
    print(f"Python {platform.python_version()}, switch after {TRANSLATE_AFTER:,} instructions")
    print("| program | instructions after the switch | tiered MIPS | -t0 MIPS | tiered / -t0 |")
    print("|---|---:|---:|---:|---:|")
    for name in arguments.programs:
        program = BENCH / f"{name}.obj"
        best = {"tiered": float("inf"), "-t0": float("inf")}
        ends = {}
        for _ in range(arguments.rounds):
            for label, after in (("tiered", TRANSLATE_AFTER), ("-t0", 0)):
                spent, steps, state, output = rest_of_run(program, after)
                best[label] = min(best[label], spent)
                ends[label] = (steps, state, output)
        if ends["tiered"] != ends["-t0"]:
            sys.exit(f"{name}: the tiered run and the -t0 run ended differently")
        steps = ends["tiered"][0]
        mips = {label: steps / spent / 1e6 for label, spent in best.items()}
        ratio = mips["tiered"] / mips["-t0"]
        print(f"| {name} | {steps:,} | {mips['tiered']:.1f} | {mips['-t0']:.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
