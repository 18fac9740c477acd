"""What grading costs: one test in one process with each observation, and a whole class.

    python examples/grading/benchmark.py tests     # per-test cost, with and without observations
    python examples/grading/benchmark.py class     # 300 submissions x 25 tests, `lc3jit grade`

A benchmark, not a test: it prints what it measured on this machine, once.

`tests` times what the pytest plugin does per test (a fresh Simulator of a program already
assembled and translated, an ARRAY_MAX call on 20 random words, the result checked) under
each observation, median of 5 rounds of 200 tests.

`class` makes 300 submissions of ARRAY_MAX in a temporary folder (most right, some with the
buggy compare, some that do not assemble, loop forever or flood their output) and grades
them with examples/grading's tests at 25 tests a submission (`--cases 15`), on 2 workers.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.session import load_images
from lc3jit.tiered import TRANSLATE_AFTER
from lc3jit.tools.grade import grade_class
from lc3jit.translator.regions import engine as regions
from lc3jit_runtime.loader import Image

HERE = Path(__file__).parent
ARRAY = 0x4000


def one_test(images: list[Image], options: dict[str, object], prepare: Prepare, rng: random.Random) -> None:
    sim = Simulator(*images, max_steps=1_000_000, **options)  # type: ignore[arg-type]
    prepare(sim)
    values = [rng.randint(-32768, 32767) for _ in range(20)]
    sim.memory[ARRAY] = values
    sim.call_subroutine("ARRAY_MAX", ARRAY, len(values)).check_value(max(values))


Prepare = Callable[[Simulator], object]
MODES: dict[str, tuple[dict[str, object], Prepare]] = {
    "plain (regions)": ({}, lambda sim: None),
    "plain (regions, tiered: what the plugin runs)": ({"translate_after": TRANSLATE_AFTER}, lambda sim: None),
    "plain (interp: what --lc3-coverage runs)": ({"engine": "interp"}, lambda sim: None),
    "watch_calls() (regions)": ({}, lambda sim: sim.watch_calls("ARRAY_MAX")),
    "watch_writes(...) (regions)": ({}, lambda sim: sim.watch_writes(lambda *_: None)),
    "watch_memory() (interpreter, stepped)": ({}, lambda sim: sim.watch_memory()),
    "strict=True (interpreter, stepped)": ({"strict": True}, lambda sim: None),
    "seed=1 (random fill, regions)": ({"seed": 1}, lambda sim: None),
}


def per_test() -> None:
    regions.shared_code = {}  # as the pytest plugin shares translations between tests
    images = load_images([HERE / "solution.asm"])
    print(f"Python {sys.version.split()[0]}: ARRAY_MAX on 20 words, a fresh Simulator per test")
    print(f"{'observation':<44} {'us per test':>12}")
    for name, (options, prepare) in MODES.items():
        rng = random.Random(1)
        one_test(images, options, prepare, rng)  # translate once, as the first test of a process does
        rounds = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(200):
                one_test(images, options, prepare, rng)
            rounds.append((time.perf_counter() - start) / 200)
        print(f"{name:<44} {statistics.median(rounds) * 1e6:>12,.0f}")


def make_class(folder: Path, count: int = 300) -> list[Path]:
    solution = (HERE / "solution.asm").read_text()
    buggy = (HERE / "buggy.asm").read_text()
    broken = solution.replace("ADD R2, R0, #0", "ADD R2, R9, #0")
    looping = solution.replace("NEXT    ADD R1, R1, #-1", "NEXT    ADD R1, R1, #0")
    flooding = solution.replace(
        "DONE    LD R1, SAVE_R1", "DONE    OUT\n        BR DONE\n        LD R1, SAVE_R1"
    )
    kinds = [solution] * 210 + [buggy] * 60 + [broken] * 10 + [looping] * 10 + [flooding] * 10
    paths = []
    for number in range(count):
        path = folder / f"student{number:03d}.asm"
        path.write_text(kinds[number % len(kinds)])
        paths.append(path)
    return paths


def whole_class(jobs: int = 2) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        submissions = make_class(folder)
        for coverage in (False, True):
            options = [
                "--cases",
                "15",
                "--lc3-max-steps",
                "100000",
                *(["--lc3-coverage"] if coverage else []),
            ]
            start = time.perf_counter()
            records = grade_class(HERE / "test_array_max.py", submissions, folder / "out", jobs, options)
            wall = time.perf_counter() - start
            tests = sum(len(r.tests) for r in records)
            full = sum(r.score == r.max_score for r in records)
            print(
                f"{len(records)} submissions, {tests} tests, {jobs} workers, "
                f"coverage {'on' if coverage else 'off'}: {wall:.1f} s wall ({full} with full marks)"
            )


if __name__ == "__main__":
    if sys.argv[1:] == ["tests"]:
        per_test()
    elif sys.argv[1:] == ["class"]:
        whole_class()
    else:
        sys.exit("usage: benchmark.py tests|class")
