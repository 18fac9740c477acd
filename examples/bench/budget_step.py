"""A loop's count and budget check, the two ways regions write it, in machine instructions
(cachegrind): `n -= k; n < room` (a subtraction and a compare), and one step of a table
(`n = T[n]`, tested for None: regions.codegen.budget's `step`).

Each way is a loop written with lc3jit's own Emitter that does nothing but count and
check, k = 6 a time round, and refill `n` with 240 where it runs short, as a region does:
40 times round a refill. One process runs it `--rounds` refills, another twice as many; the
difference over the extra times round is one time round.
Run: `python examples/bench/budget_step.py [--rounds N]` (valgrind on the PATH).
"""

from __future__ import annotations

import argparse
import platform
import shutil
import sys
from pathlib import Path
from types import FunctionType

from command_startup import instructions  # type: ignore[import-not-found]

from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Emitter, Label
from lc3jit.translator.regions.codegen.budget import step_table

BENCH = Path(__file__).resolve().parent
K, GRANT = 6, 240
ROUND = GRANT // K  # times round the loop a refill


def add(e: Emitter, local: str, k: int) -> None:
    e.load(local)
    e.const(abs(k))
    e.binary(BinaryOp.ADD if k > 0 else BinaryOp.SUBTRACT)
    e.store(local)


def counted_loop(way: str) -> FunctionType:
    """f(refills) -> n at the end: the loop, with `way`'s count and check on its back edge."""
    e, top, check, end = Emitter(way, 1), Label(), Label(), Label()
    e.const(GRANT - K)
    e.store("n")
    e.place(top)
    if way == "table":
        short = Label()
        e.const(step_table(-K, 0, GRANT + 1))
        e.load("n")
        e.subscript()
        e.dup()
        e.jump_if_none(short)
        e.store("n")
        e.jump(top)
        e.place(short)
        e.pop()
    add(e, "n", -K)
    e.place(check)
    e.load("n")
    e.const(0)
    e.compare(Compare.LT)
    e.jump_if_false(top)
    add(e, "refills", -1)  # the refill: the next grant, or the end
    e.load("refills")
    e.jump_if_false(end, is_bool=False)
    add(e, "n", GRANT)
    e.jump(check)
    e.place(end)
    e.load("n")
    e.return_top()
    return FunctionType(e.to_code(("refills",)), {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000, help="refills of the shorter run (default 2000)")
    parser.add_argument("--run", choices=("compare", "table"), help="(a counted process) run one way")
    arguments = parser.parse_args()
    if arguments.run:
        counted_loop(arguments.run)(arguments.rounds)
        return
    if shutil.which("valgrind") is None:
        parser.error("needs valgrind (cachegrind) on the PATH")
    rounds = arguments.rounds
    for way in ("compare", "table"):
        once, twice = (
            instructions([sys.executable, __file__, "--run", way, "--rounds", str(n)], BENCH)
            for n in (rounds, 2 * rounds)
        )
        print(f"{way}: {(twice - once) / (rounds * ROUND):.1f} machine instructions a time round")
    print(f"Python {platform.python_version()}")


if __name__ == "__main__":
    main()
