"""Translation's cost per word of code: CPU time translating, before a run and during it.

    python examples/bench/translation_cost.py [--rounds 3] [--budgets default,0,4096]
                                              [--profile NAME | --phases NAME]

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
with the most time of their own in translating that program before its run instead;
`--phases NAME` the CPU time of each phase of that translation (finding the code,
choosing the regions, their graphs and analyses, emitting, assembling, the rest), the
fastest of the rounds; `--count NAME` the machine instructions (cachegrind, valgrind on
the PATH) of translating it ahead of its run per word reached: a process that boots the
program and translates it less the same process without translating, both with
PYTHONHASHSEED=0. The count moves by a fraction of a percent from run to run where CPU
time on a shared machine moves by a third.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from big_programs import translation_work  # type: ignore[import-not-found]
from command_startup import instructions  # type: ignore[import-not-found]

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the checkout: tests/machine_code.py writes the random code

from lc3jit.session import boot, load_images  # noqa: E402
from lc3jit.translator.regions import region_engine  # noqa: E402
from lc3jit_runtime.console import Console  # noqa: E402
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


#: The phases of translating ahead of a run, each the function (module, attribute path) whose
#: CPU time it is; the ones nested in another are taken out of that one's.
PHASES = {
    "finding code": ("lc3jit.translator.regions.engine", "found_code"),
    "choosing regions": ("lc3jit.translator.regions.ahead", "AheadSelection.select"),
    "graph and analyses": ("lc3jit.translator.regions.engine", "region_compiler"),
    "emitting": ("lc3jit.translator.regions.codegen.compiler", "RegionCompiler.compile"),
    "assembling": ("lc3jit.translator.codegen.emitter", "Emitter.to_code"),
}
#: Phases inside another: emitting's time is the compiler's less assembling.
NESTED = {"assembling": "emitting"}


def timed_phases(spent: dict[str, float]) -> None:
    """Wrap each phase's function so that its CPU time adds up in `spent`."""
    for phase, (module_name, path) in PHASES.items():
        owner: object = importlib.import_module(module_name)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        setattr(owner, name, _timing(getattr(owner, name), phase, spent))


def _timing(function: Callable[..., object], phase: str, spent: dict[str, float]) -> Callable[..., object]:
    @functools.wraps(function)
    def timing(*args: object, **kwargs: object) -> object:
        began = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[phase] += time.process_time() - began

    return timing


def phase_split(program: Path) -> dict[str, float]:
    """CPU ms of each phase of translating the program ahead of its run, and of the rest
    ("total" all of it), in this process."""
    spent = dict.fromkeys(PHASES, 0.0)
    timed_phases(spent)
    work = translation_work(program, None, 0)
    for inner, outer in NESTED.items():
        spent[outer] -= spent[inner]
    split = {phase: seconds * 1000 for phase, seconds in spent.items()}
    split["the rest"] = work["ahead_ms"] - sum(split.values())
    return {**split, "total": work["ahead_ms"], "reached": work["reached"]}


def phases(program: Path, rounds: int) -> None:
    """The phase split of the round (a fresh process each) that translated fastest."""
    command = [sys.executable, __file__, "--split", str(program)]
    runs = [
        json.loads(subprocess.run(command, capture_output=True, check=True).stdout) for _ in range(rounds)
    ]
    split = min(runs, key=lambda run: run["total"])
    reached = split.pop("reached")
    print(
        f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}, {reached:,} words reached"
    )
    print("| phase | CPU ms | us per word reached |")
    print("|---|---:|---:|")
    for phase, ms in split.items():
        print(f"| {phase} | {ms:.0f} | {ms / reached * 1000:.1f} |")


def booted(program: Path, translate: bool) -> None:
    """Boot the program and, with `translate`, translate it ahead of its run (the region
    engine), printing the words reached: what `count` counts, the region engine imported
    either way."""
    machine = boot(load_images([program]), Console(None, io.BytesIO()), 3)
    if translate:
        regions = region_engine(machine).translator.regions.values()
        print(len({ins.address for r in regions for b in r.blocks for ins in b.instructions}))


def count(program: Path) -> None:
    """Machine instructions of translating the program ahead of its run, per word reached."""
    script = [sys.executable, __file__, "--booted", str(program)]
    translating = instructions([*script, "--translate"], HERE)
    reached = int(subprocess.run([*script, "--translate"], capture_output=True, check=True).stdout)
    spent = translating - instructions(script, HERE)
    print(f"Python {sys.version.split()[0]}: {spent:,} machine instructions, {reached:,} words reached,")
    print(f"{spent / reached / 1000:.1f}k a word")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budgets", default="default", help="comma-separated: default or a number")
    parser.add_argument("--profile", metavar="NAME", help="profile translating this program instead")
    parser.add_argument(
        "--phases", metavar="NAME", help="the CPU time of each phase of translating it instead"
    )
    parser.add_argument("--count", metavar="NAME", help="count the machine instructions of translating it")
    parser.add_argument("--booted", type=Path, help="(a counted process) boot this program only")
    parser.add_argument("--translate", action="store_true", help="(with --booted) and translate it")
    parser.add_argument("--split", type=Path, help="(a round's own process) print phase_split's as JSON")
    parser.add_argument("--work", type=Path, help="(a round's own process) print translation_work's as JSON")
    parser.add_argument("--budget", type=int, help="(with --work) the translation budget")
    args = parser.parse_args()
    if args.work:
        print(json.dumps(translation_work(args.work, args.budget, MAX_STEPS)))
        return
    if args.split:
        print(json.dumps(phase_split(args.split)))
        return
    if args.booted:
        booted(args.booted, args.translate)
        return
    budgets = [None if b == "default" else int(b) for b in args.budgets.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        table = programs(Path(folder))
        if name := args.profile or args.phases or args.count:
            if name not in table:
                parser.error(f"no program {name!r}: one of {', '.join(table)}")
            if args.profile:
                profile(table[name][0])
            elif args.phases:
                phases(table[name][0], args.rounds)
            else:
                count(table[name][0])
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
