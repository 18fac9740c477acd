"""Translation's cost per word of code: CPU time translating, before a run and during it.

    python examples/bench/translation_cost.py [--rounds 3] [--budgets default,0,4096] [--profile NAME]

The programs: random branchy code (`branchy` of tests/machine_code.py: 30% BR, 15% JSR, 5%
RET, every call target a root) of 4,000, 30,000 and 52,736 words (all that fits from x3000
to xF000), the examples' `.obj` files taken together, 2048 and rogue. For each, at each
translation budget (`default`: the machine's own), in a fresh process a round (every
cache as cold as a user's first run has it), the round that translated fastest kept:
big_programs.translation_work, the region engine of `--translate-after 0` and a run of at
most 2 million instructions. It prints the words translated (copies counted), the words
reached (each word translated counted once), the CPU ms translating before the run and
during it, and the CPU us of translating per word reached.

`--profile NAME` (a program's name as the table shows it) prints cProfile's 25 functions
with the most time of their own in translating that program before its run instead.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

from big_programs import translation_work  # type: ignore[import-not-found]

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the checkout: tests/machine_code.py writes the random code

from tests.machine_code import branchy, write_hex  # noqa: E402

#: Sizes of the random branchy programs, in words.
BRANCHY = (4_000, 30_000, 52_736)
#: The run after the translation ahead of it, in instructions at most.
MAX_STEPS = 2_000_000
GAMES = ("2048", "rogue")


def programs(folder: Path) -> dict[str, list[Path]]:
    """Each program of the table by name: its files (the examples are one row)."""
    examples = HERE.parent
    found = {
        f"branchy {words // 1000}k": [write_hex(folder / f"branchy{words}.hex", branchy(words))]
        for words in BRANCHY
    }
    found["examples"] = sorted(path for path in examples.glob("*.obj") if path.stem not in GAMES)
    found.update((game, [examples / f"{game}.obj"]) for game in GAMES)
    return found


def fresh_work(program: Path, budget: int | None) -> dict[str, float]:
    """translation_work in a fresh process."""
    command = [sys.executable, __file__, "--work", str(program)]
    if budget is not None:
        command += ["--budget", str(budget)]
    done = subprocess.run(command, capture_output=True, check=True)
    return json.loads(done.stdout)


def fastest(files: list[Path], budget: int | None, rounds: int) -> dict[str, float]:
    """The files' work added up, each file's fastest round of translating."""
    total: dict[str, float] = {}
    for program in files:
        work = min(
            (fresh_work(program, budget) for _ in range(rounds)), key=lambda w: w["ahead_ms"] + w["late_ms"]
        )
        for key, value in work.items():
            total[key] = total.get(key, 0) + value
    return total


def profile(program: Path) -> None:
    """cProfile of translating the program ahead of its run."""
    profiler = cProfile.Profile()
    profiler.runcall(translation_work, program, None, 0)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budgets", default="default", help="comma-separated: default or a number")
    parser.add_argument("--profile", metavar="NAME", help="profile translating this program instead")
    parser.add_argument("--work", type=Path, help="(a round's own process) print translation_work's as JSON")
    parser.add_argument("--budget", type=int, help="(with --work) the translation budget")
    args = parser.parse_args()
    if args.work:
        print(json.dumps(translation_work(args.work, args.budget, MAX_STEPS)))
        return
    budgets = [None if b == "default" else int(b) for b in args.budgets.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        table = programs(Path(folder))
        if args.profile:
            if args.profile not in table:
                parser.error(f"no program {args.profile!r}: one of {', '.join(table)}")
            profile(table[args.profile][0])
            return
        print(f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
        print("| program | budget | translated | reached | ahead ms | run-time ms | us per word reached |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, files in table.items():
            for budget in budgets:
                work = fastest(files, budget, args.rounds)
                ms = work["ahead_ms"] + work["late_ms"]
                per_word = f"{ms / work['reached'] * 1000:.0f}" if work["reached"] else "-"
                print(
                    f"| {name} | {'default' if budget is None else f'{budget:,}'} |"
                    f" {work['ahead_words'] + work['late_words']:,.0f} | {work['reached']:,.0f} |"
                    f" {work['ahead_ms']:.0f} | {work['late_ms']:.0f} | {per_word} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
