"""The tiered switch: how fast a plain `lc3jit run` runs once it has switched to translated code.

A plain run starts on the interpreter and builds the region engine after TRANSLATE_AFTER
instructions (lc3jit/tiered.py). The engine built then must run the rest of the program as
fast as the one `--translate-after 0` builds before the run: the same regions, rooted where
the program's functions begin, not at the PC the switch happened to reach. The
target is tiered at least 0.95x the MIPS of `-t0` at 10^8 instructions, and a run of the
bench programs as they are (1-3 M instructions, about 40 ms after the switch) moves more
than that margin between rounds of the same tree. So each bench program is assembled
again with the count that says how long it runs scaled up (`--instructions`, about that many
after the switch): the same work, more of it. For each, in one process per Python:

- tiered: a Simulator with the default switch runs its first TRANSLATE_AFTER + 1
  instructions (the switch and its translation happen there), then the rest, timed;
- `-t0`: a Simulator that translated before the run runs the same first instructions,
  then the same rest, timed.

Rounds alternate which of the two goes first; the minimum CPU time of the rounds counts.
`tiered / -t0` is tiered's instructions a second after the switch over `-t0`'s on the same
instructions (the target); `whole run` is the same ratio for the whole runs, building
the engines included (the interpreted start and the switch's translation against the
translation before the run). Run-time translations after the switch fall in the timed part,
as they do in a real run. Both must end in the same state with the same output; a
difference stops the script. Run it with each Python:
`python examples/bench/tiered_switch.py [--instructions N] [--rounds N] [program ...]`.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from command_startup import instructions as instructions_of  # cachegrind's count of a process

from lc3jit.api import Simulator
from lc3jit.tiered import TRANSLATE_AFTER

BENCH = Path(__file__).resolve().parent


def linear(count: int, was: int) -> float:
    return math.log(count / was)


def quadratic(count: int, was: int) -> float:  # an insertion sort of `count` words
    return 2 * math.log(count / was)


def fibonacci(count: int, was: int) -> float:  # the naive recursion's calls for fib(count)
    return (count - was) * math.log((1 + math.sqrt(5)) / 2)


class Length(NamedTuple):
    """What says how long a bench program runs, and how its instructions grow with it (the
    log of how many times the program's own they are: fib's grow past any float).

    `labels` name a count (a .FILL, and the .BLKW it sizes), at most a signed word's 32,767;
    or, with `copies`, a .STRINGZ whose text is copied that many times over (dispatch: its
    ROUNDS alone reach 39 M instructions)."""

    labels: tuple[str, ...]
    growth: Callable[[int, int], float]
    copies: bool = False


PROGRAMS: dict[str, Length] = {
    "arith": Length(("OUTER_COUNT",), linear),
    "fib": Length(("ARGUMENT",), fibonacci),
    "sieve": Length(("PASSES",), linear),
    "sort": Length(("COUNT", "ARRAY"), quadratic),
    "strings": Length(("ROUNDS",), linear),
    "dispatch": Length(("TEXT",), linear, copies=True),
}


def longer(name: str, instructions: int) -> str:
    """The bench program's source with its length scaled to run about `instructions` in all.

    Its own length is counted by running it once (translated, a few milliseconds); the
    count is the smallest whose growth reaches the instructions asked for.
    """
    source = (BENCH / f"{name}.asm").read_text()
    length = PROGRAMS[name]
    labels = "|".join(length.labels)
    what = r'\.STRINGZ\s+)"(.*)"' if length.copies else r"\.(?:FILL|BLKW)\s+#)(\d+)"
    pattern = re.compile(rf"^((?:{labels})\s+{what}", re.MULTILINE)
    was = 1 if length.copies else int(pattern.search(source)[2])
    simulator = Simulator(source=source, translate_after=0)
    simulator.run(check=False)
    times = math.log(instructions / simulator.machine.icount)
    low, high = 1, 0x7FFF  # a count in a signed word; copies of a text: too many for memory
    while low < high:
        middle = (low + high) // 2
        if length.growth(middle, was) >= times:
            high = middle
        else:
            low = middle + 1
    if length.copies:
        return pattern.sub(lambda match: f'{match[1]}"{match[2] * low}"', source)
    return pattern.sub(lambda match: f"{match[1]}{low}", source)


class Run(NamedTuple):
    """A run's CPU seconds, whole and after the switch; the instructions after it; how it ended."""

    whole: float
    rest: float
    steps: int
    end: tuple[dict[str, object], str]


def timed_run(source: str, translate_after: int) -> Run:
    """Build the engine, run the first TRANSLATE_AFTER + 1 instructions, then the rest."""
    began = time.process_time()
    simulator = Simulator(source=source, translate_after=translate_after)
    simulator.run(max_steps=TRANSLATE_AFTER + 1, check=False)
    before, switched = simulator.machine.icount, time.process_time()
    simulator.run(check=False)
    done = time.process_time()
    steps = simulator.machine.icount - before
    return Run(done - began, done - switched, steps, (simulator.state(), simulator.output))


#: The engines compared, by the instructions each interprets before it translates.
ENGINES = {"tiered": TRANSLATE_AFTER, "-t0": 0}
#: One whole run, for cachegrind to count (--count): the source's file, the switch.
ONE_RUN = (
    "import sys; from pathlib import Path; from lc3jit.api import Simulator; "
    "Simulator(source=Path(sys.argv[1]).read_text(), translate_after=int(sys.argv[2])).run(check=False)"
)


def cpu_row(name: str, instructions: int, rounds: int) -> str:
    """The program's row of CPU times: min of the interleaved rounds, ends compared."""
    source = longer(name, instructions + TRANSLATE_AFTER + 1)
    best = {label: (math.inf, math.inf) for label in ENGINES}
    runs: dict[str, Run] = {}
    for round_ in range(rounds):
        for label in sorted(ENGINES, reverse=bool(round_ % 2)):
            runs[label] = run = timed_run(source, ENGINES[label])
            best[label] = (min(best[label][0], run.whole), min(best[label][1], run.rest))
    if runs["tiered"][2:] != runs["-t0"][2:]:
        sys.exit(f"{name}: the tiered run and the -t0 run ended differently")
    steps = runs["tiered"].steps
    mips = {label: steps / rest / 1e6 for label, (_, rest) in best.items()}
    ratio, whole = mips["tiered"] / mips["-t0"], best["-t0"][0] / best["tiered"][0]
    return f"| {name} | {steps:,} | {mips['tiered']:.1f} | {mips['-t0']:.1f} | {ratio:.3f} | {whole:.3f} |"


def counted_row(name: str, instructions: int, target: int, folder: Path) -> str:
    """The program's row of machine instructions (cachegrind, whole processes): run a third
    as long and as long as asked, their difference over the LC-3 instructions between is
    what one costs once running (the switch and the translations cancel out); a whole run
    of `target` instructions is projected from the two, a straight line."""
    costs: dict[str, list[tuple[int, int]]] = {label: [] for label in ENGINES}
    for length in (instructions // 3, instructions):
        path = folder / f"{name}-{length}.asm"
        path.write_text(longer(name, length + TRANSLATE_AFTER))
        simulator = Simulator(source=path.read_text())  # its LC-3 instructions, quickly
        simulator.run(check=False)
        for label, after in ENGINES.items():
            counted = instructions_of([sys.executable, "-c", ONE_RUN, str(path), str(after)], folder)
            costs[label].append((simulator.machine.icount, counted))
    each = {label: (b[1] - a[1]) / (b[0] - a[0]) for label, (a, b) in costs.items()}
    whole = {label: b[1] + each[label] * (target - b[0]) for label, (_, b) in costs.items()}
    return (
        f"| {name} | {each['tiered']:.1f} | {each['-t0']:.1f} | {each['-t0'] / each['tiered']:.4f} "
        f"| {whole['-t0'] / whole['tiered']:.4f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--instructions",
        type=int,
        default=20_000_000,
        help="about how many instructions each program runs after the switch (the target's: 10^8)",
    )
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the minimum counts")
    parser.add_argument(
        "--count", action="store_true", help="machine instructions (valgrind) instead of CPU time"
    )
    parser.add_argument("programs", nargs="*", default=list(PROGRAMS), help="bench programs by name")
    arguments = parser.parse_args()
    if arguments.instructions < 1_000_000:
        parser.error("--instructions: at least 1,000,000 (a shorter run measures noise)")
    if unknown := set(arguments.programs) - PROGRAMS.keys():
        parser.error(f"no bench program {', '.join(sorted(unknown))}; choose from {', '.join(PROGRAMS)}")
    if arguments.count and shutil.which("valgrind") is None:
        parser.error("--count needs valgrind (cachegrind) on the PATH")
    print(f"Python {platform.python_version()}, switch after {TRANSLATE_AFTER:,} instructions")
    if arguments.count:
        print("| program | tiered: machine instr. / LC-3 instr. | -t0 | tiered / -t0 | whole run of 10^8 |")
        print("|---|---:|---:|---:|---:|")
        os.environ["PYTHONHASHSEED"] = "0"  # the same dicts in every counted process: the same count
        with tempfile.TemporaryDirectory() as folder:
            for name in arguments.programs:
                print(counted_row(name, arguments.instructions, 10**8, Path(folder)), flush=True)
        return
    print("| program | instructions after the switch | tiered MIPS | -t0 MIPS | tiered / -t0 | whole run |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in arguments.programs:
        print(cpu_row(name, arguments.instructions, arguments.rounds), flush=True)


if __name__ == "__main__":
    main()
