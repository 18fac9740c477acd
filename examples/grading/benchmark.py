"""What grading costs: one test in one process with each observation, a thousand tests of
one program through pytest, and a whole class.

    python examples/grading/benchmark.py tests     # per-test cost, with and without observations
    python examples/grading/benchmark.py cases     # pytest examples/grading --cases 1000: cases per CPU s
    python examples/grading/benchmark.py class [--no-coverage]   # 300 submissions x 25 tests
    python examples/grading/benchmark.py mix [--no-coverage]     # 150 submissions x 111 tests

A benchmark, not a test: it prints what it measured on this machine, with the load average.

`tests` times what the pytest plugin does per test (a fresh Simulator of a program already
assembled, an ARRAY_MAX call on 20 random words, the result checked, the Simulator closed) under each
observation: CPU time, the minimum of 5 interleaved rounds of 200 tests, and the ratio to
the plugin's plain test.

`cases` runs `pytest examples/grading --lc3-program solution.asm --cases 1000` (1,010 tests)
in a process of its own and divides the tests by its CPU time (start-up included): with
pytest and lc3jit alone, as a course installs them, and with every pytest plugin this
environment has (their imports alone take about a second), 3 interleaved rounds after one
that writes the bytecode caches.

`class` makes 300 submissions of ARRAY_MAX in a temporary folder (most right, some with the
buggy compare, some that do not assemble, loop forever or flood their output; each one
different, as a class's are: a word of its own after the code) and grades them with
examples/grading's tests at 25 tests a submission (`--cases 15`), on 2 workers, with
coverage (as `lc3jit grade` does by default).

`mix` grades a class as a course has one: 150 submissions (60% right, 30% with the buggy
compare, 10% that do not assemble), each with all 111 tests of examples/grading (its
default 100 random arrays), on 2 workers; it prints the CPU time of the whole run
(the workers and the reports included) per submission, after an untimed class of two
that writes the bytecode caches.
"""

from __future__ import annotations

import gc
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.grader.grade import grade_class
from lc3jit.grader.pytest_plugin import COLLECT_EVERY, keep_freed_memory
from lc3jit.session import load_images
from lc3jit.tiered import TRANSLATE_AFTER
from lc3jit.translator.regions import engine as regions
from lc3jit.translator.shared import SharedTranslations
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import recycle_memory

HERE = Path(__file__).parent
ARRAY = 0x4000


def one_test(images: list[Image], options: dict[str, object], prepare: Prepare, rng: random.Random) -> None:
    with Simulator(*images, max_steps=1_000_000, **options) as sim:  # type: ignore[arg-type]
        prepare(sim)
        values = [rng.randint(-32768, 32767) for _ in range(20)]
        sim.memory[ARRAY] = values
        sim.call_subroutine("ARRAY_MAX", ARRAY, len(values)).check_value(max(values))


Prepare = Callable[[Simulator], object]
SHARED = SharedTranslations()
PLUGIN = {"translate_after": TRANSLATE_AFTER, "time_limit": 10.0, "max_output": 1 << 16}
MODES: dict[str, tuple[dict[str, object], Prepare]] = {
    "plain, tiered (what the plugin runs)": (PLUGIN, lambda sim: None),
    "coverage=True, tiered (--lc3-coverage)": ({**PLUGIN, "coverage": True}, lambda sim: None),
    "plain, interp": ({"engine": "interp"}, lambda sim: None),
    "plain, regions built ahead, not shared": ({}, lambda sim: None),
    "plain, regions built ahead, shared": ({"translations": SHARED}, lambda sim: None),
    "watch_calls() (regions, shared)": ({"translations": SHARED}, lambda sim: sim.watch_calls("ARRAY_MAX")),
    "watch_writes(...) (regions, shared)": (
        {"translations": SHARED},
        lambda sim: sim.watch_writes(lambda *_: None),
    ),
    "watch_memory() (interpreter, stepped)": ({}, lambda sim: sim.watch_memory()),
    "strict=True (interpreter, stepped)": ({"strict": True}, lambda sim: None),
    "seed=1 (random fill, tiered)": ({**PLUGIN, "seed": 1}, lambda sim: None),
}


def load() -> str:
    return "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def per_test() -> None:
    regions.shared_code = {}  # as the pytest plugin shares compiled code between tests
    gc.set_threshold(COLLECT_EVERY)  # and tunes the collector and the allocator
    keep_freed_memory()
    recycle_memory(True)  # and recycles a closed machine's memory
    images = load_images([HERE / "solution.asm"])
    print(f"Python {sys.version.split()[0]}: ARRAY_MAX on 20 words, a fresh Simulator per test; {load()}")
    best = dict.fromkeys(MODES, float("inf"))
    for options, prepare in MODES.values():
        one_test(images, options, prepare, random.Random(0))  # translate once, as a process's first test
    for _ in range(5):  # interleaved rounds: the load changes alike for every mode
        for name, (options, prepare) in MODES.items():
            rng = random.Random(1)
            start = time.process_time()
            for _ in range(200):
                one_test(images, options, prepare, rng)
            best[name] = min(best[name], (time.process_time() - start) / 200)
    base = best[next(iter(MODES))]
    print(f"{'observation':<44} {'us CPU per test':>16} {'ratio':>6}")
    for name, seconds in best.items():
        print(f"{name:<44} {seconds * 1e6:>16,.0f} {seconds / base:>6.2f}")
    print(f"after: {load()}")


#: How `cases` starts pytest: as a course's grading environment has it (pytest and lc3jit
#: alone), and with every plugin this environment installs (lc3jit's test extra: hypothesis,
#: pytest-xdist, pytest-lsp and its pytest-asyncio), whose imports cost a second of start-up.
PLUGINS = {
    "pytest and lc3jit only": (
        {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        ["-p", "lc3jit.grader.pytest_plugin"],
    ),
    "every plugin installed here": ({}, []),
}


def cases(count: int = 1000, rounds: int = 3) -> None:
    """pytest on examples/grading with `count` random arrays, in a process of its own, with
    and without the other plugins installed: the least CPU time of `rounds` interleaved runs."""
    command = [sys.executable, "-m", "pytest", str(HERE), "--lc3-program", str(HERE / "solution.asm")]
    command += ["--cases", str(count), "-q", "-p", "no:cacheprovider"]
    tests = count + 10
    print(f"Python {sys.version.split()[0]}: examples/grading, --cases {count} ({tests} tests); {load()}")
    # Bytecode caches written, as a grading machine has them (this project's environment
    # sets PYTHONDONTWRITEBYTECODE): the first, untimed run writes them.
    cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = dict.fromkeys(PLUGINS, (float("inf"), 0.0))
    for first in [True] + [False] * rounds:
        for name, (environment, options) in PLUGINS.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            settings = {**cached, **environment}
            subprocess.run(command + options, check=True, stdout=subprocess.DEVNULL, env=settings)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            if not first:
                best[name] = min(best[name], (cpu, wall))
    for name, (cpu, wall) in best.items():
        print(f"{name:<28} {cpu:.2f} s CPU, {wall:.2f} s wall: {tests / cpu:.0f} cases per CPU second")
    print(f"after: {load()}")


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
        source = kinds[number % len(kinds)]  # a word of its own: no two submissions translate alike
        path.write_text(source.replace("        .END", f"STUDENT .FILL #{number}\n        .END"))
        paths.append(path)
    return paths


def make_mix(folder: Path, count: int = 150) -> list[Path]:
    """60% right, 30% buggy, 10% not assembling, each with a word of its own."""
    solution = (HERE / "solution.asm").read_text()
    broken = solution.replace("ADD R2, R0, #0", "ADD R2, R9, #0")
    kinds = [solution] * 6 + [(HERE / "buggy.asm").read_text()] * 3 + [broken]
    paths = []
    for number in range(count):
        path = folder / f"student{number:03d}.asm"
        path.write_text(kinds[number % 10].replace("        .END", f"STUDENT .FILL #{number}\n        .END"))
        paths.append(path)
    return paths


def mix(coverage: bool = True, jobs: int = 2) -> None:
    # Bytecode caches written, as a grading machine has them (see `cases`): the workers
    # inherit the environment, and an untimed class of two writes the caches first.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        submissions = make_mix(folder)
        grade_class(HERE / "test_array_max.py", submissions[:2], folder / "warm", 1)
        print(f"Python {sys.version.split()[0]}; before: {load()}")
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        mine = resource.getrusage(resource.RUSAGE_SELF)
        options = ["--lc3-coverage"] if coverage else []
        records = grade_class(HERE / "test_array_max.py", submissions, folder / "out", jobs, options)
        wall = time.perf_counter() - start
        after, self_after = (
            resource.getrusage(resource.RUSAGE_CHILDREN),
            resource.getrusage(resource.RUSAGE_SELF),
        )
        cpu = sum(
            b.ru_utime - a.ru_utime + b.ru_stime - a.ru_stime
            for a, b in ((before, after), (mine, self_after))
        )
        tests = sum(len(r.tests) for r in records)
        print(
            f"{len(records)} submissions, {tests} tests, {jobs} workers, "
            f"coverage {'on' if coverage else 'off'}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
            f"{cpu / len(records):.3f} s CPU a submission"
        )
        print(f"after: {load()}")


def whole_class(coverage: bool = True, jobs: int = 2) -> None:
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        submissions = make_class(folder)
        options = ["--cases", "15", "--lc3-max-steps", "100000", *(["--lc3-coverage"] if coverage else [])]
        print(f"before: {load()}")
        start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        records = grade_class(HERE / "test_array_max.py", submissions, folder / "out", jobs, options)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        tests = sum(len(r.tests) for r in records)
        full = sum(r.score == r.max_score for r in records)
        print(
            f"{len(records)} submissions, {tests} tests, {jobs} workers, "
            f"coverage {'on' if coverage else 'off'}: {wall:.1f} s wall, {cpu:.1f} s CPU in the workers "
            f"({full} with full marks)"
        )
        print(f"after: {load()}")


if __name__ == "__main__":
    if sys.argv[1:] == ["tests"]:
        per_test()
    elif sys.argv[1:] == ["cases"]:
        cases()
    elif sys.argv[1:2] == ["class"] and set(sys.argv[2:]) <= {"--no-coverage"}:
        whole_class(coverage="--no-coverage" not in sys.argv)
    elif sys.argv[1:2] == ["mix"] and set(sys.argv[2:]) <= {"--no-coverage"}:
        mix(coverage="--no-coverage" not in sys.argv)
    else:
        sys.exit("usage: benchmark.py tests|cases|class|mix [--no-coverage]")
