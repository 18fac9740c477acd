"""Regions over the plain-Python floor in machine instructions (cachegrind): exact where CPU
time on a shared machine moves by more than a change to the generated code does.

For each bench program with a floor (`PROG.py`), one process runs the region engine on it
twice and another once, in this process's Python; the difference is one run (its
translation done by the first, as `lc3jit bench` times it apart). The floor is counted the
same way. Prints each program's ratio and their geometric mean.
Run: `python examples/bench/floor_count.py [PROGRAM ...]` (valgrind on the PATH).
"""

from __future__ import annotations

import argparse
import math
import platform
import shutil
import sys
from pathlib import Path

from command_startup import instructions  # type: ignore[import-not-found]

BENCH = Path(__file__).resolve().parent
PROGRAMS = ("arith", "fib", "sieve", "sort", "strings")

REGIONS = """
from pathlib import Path
from lc3jit.inspection.bench import observe
from lc3jit.session import load_images
images = load_images([Path("{name}.obj")])
for _ in range({runs}):
    observe(images, "regions", b"", 3)
"""
FLOOR = """
import importlib.util
spec = importlib.util.spec_from_file_location("floor", "{name}.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for _ in range({runs}):
    module.run()
"""


def one_run(script: str, name: str) -> int:
    """Machine instructions of one run: two runs' process less one run's."""
    once, twice = (
        instructions([sys.executable, "-c", script.format(name=name, runs=n)], BENCH) for n in (1, 2)
    )
    return twice - once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", default=PROGRAMS, help="bench programs (default: all five)")
    arguments = parser.parse_args()
    if shutil.which("valgrind") is None:
        parser.error("needs valgrind (cachegrind) on the PATH")
    ratios = []
    for name in arguments.programs:
        regions, floor = one_run(REGIONS, name), one_run(FLOOR, name)
        ratios.append(regions / floor)
        print(f"{name}: regions {regions / 1e6:.1f} M, floor {floor / 1e6:.1f} M: {ratios[-1]:.3f}")
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"Python {platform.python_version()}: geometric mean {geomean:.3f}")


if __name__ == "__main__":
    main()
