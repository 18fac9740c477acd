"""The pytest plugin: an `lc3` fixture that makes a grader's test a few lines, and the rest of
a grader (points, soft checks, limits, readable failures, Gradescope's results.json).

Installed with lc3jit, it is registered through the `pytest11` entry point, so any pytest
run has it (`-p no:lc3jit` turns it off); without installing, a conftest.py can load it
with `pytest_plugins = ["lc3jit.grader.pytest_plugin"]`.

    @pytest.mark.points(2)
    def test_multiply(lc3, verify):
        sim = lc3()                                   # the program named by --lc3-program
        verify(sim.call("MULTIPLY", 6, 7) == 42, "6 x 7", points=1)   # a soft check
        verify.equal(sim.call("MULTIPLY", 0, 7), 0, "0 x 7", points=1)

    pytest tests/ --lc3-program student.asm --lc3-gradescope results.json

Each call of `lc3(...)` is a fresh `lc3jit.api.Simulator` with the test's limits: the step
limit of each run, a wall-clock limit and an output cap for the whole test (a program
that loops or floods fails its test saying where it was). The program is read and
assembled once per process: if it does not assemble, the assembler's first messages are
shown once for the submission, and every test is marked as not run. Failures of the program (a RunError)
are reported as their one-line message, without Python's traceback; lc3jit's own frames
are hidden from the tracebacks of failed assertions.

Every option is also an ini option (`lc3_program`, `lc3_engine`, ...), so a course's
pytest.ini can hold them; the command line wins.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
from collections.abc import Callable, Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pytest

from lc3jit.api import RunError, Simulator
from lc3jit.grading import explain, report
from lc3jit.grading.report import TestRecord
from lc3jit.session import ENGINES, load_images
from lc3jit.tiered import TRANSLATE_AFTER
from lc3jit.translator.regions import engine as regions
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import recycle_memory

if TYPE_CHECKING:
    from lc3jit.translator.shared import SharedTranslations

DEFAULT_MAX_STEPS = 1_000_000
DEFAULT_TIME_LIMIT = 10.0
DEFAULT_MAX_OUTPUT = 1 << 16

#: option name -> (ini type, default, help)
OPTIONS: dict[str, tuple[str, object, str]] = {
    "engine": ("string", "regions", "regions (default), blocks or interp"),
    "max_steps": (
        "string",
        DEFAULT_MAX_STEPS,
        f"step limit of each run and call (default {DEFAULT_MAX_STEPS:,})",
    ),
    "time_limit": (
        "string",
        DEFAULT_TIME_LIMIT,
        f"wall-clock seconds per test (default {DEFAULT_TIME_LIMIT:g})",
    ),
    "max_output": (
        "string",
        DEFAULT_MAX_OUTPUT,
        f"bytes of output per test (default {DEFAULT_MAX_OUTPUT:,})",
    ),
    "gradescope": ("string", "", "write Gradescope's results.json to FILE"),
    "report": ("string", "", "write a JSON report to FILE and an HTML page beside it"),
    "coverage": ("bool", False, "name the lines a failing test never ran"),
    "visibility": ("string", "visible", "Gradescope visibility of tests without a visibility mark"),
    "relative_to": ("string", "", "name the program's files relative to DIR in the reports"),
}

Loaded = tuple[tuple[Image, ...], str]  # the images, or the load error's text
PROGRAM = pytest.StashKey[Loaded | None]()
RECORDS = pytest.StashKey[dict[str, report.TestRecord]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lc3jit", "LC-3 programs under test (lc3jit)")
    group.addoption(
        "--lc3-program",
        action="append",
        default=[],
        metavar="FILE",
        help="the LC-3 program under test (.asm, .obj, .hex, .bin); repeat for several files",
    )
    parser.addini("lc3_program", "the LC-3 program(s) under test", type="args", default=[])
    for name, (kind, default, text) in OPTIONS.items():
        flag = "--lc3-" + name.replace("_", "-")
        if kind == "bool":
            group.addoption(flag, action="store_true", default=None, help=text)
            parser.addini("lc3_" + name, text, type="bool", default=default)
        else:
            group.addoption(flag, default=None, metavar=name.split("_")[-1].upper(), help=text)
            parser.addini("lc3_" + name, text, type="string", default=default)


def option(config: pytest.Config, name: str) -> object:
    """The command line's value, else the ini file's."""
    value = config.getoption("lc3_" + name)
    return config.getini("lc3_" + name) if value is None else value


def _number(config: pytest.Config, name: str, whole: bool = False) -> float:
    raw = str(option(config, name))
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise pytest.UsageError(f"--lc3-{name.replace('_', '-')}: not a number: {raw!r}") from None
    if value <= 0:
        raise pytest.UsageError(f"--lc3-{name.replace('_', '-')}: must be above 0, not {raw}")
    return value


class Settings:
    """The options, read and checked once: a bad one stops pytest before any test runs."""

    def __init__(self, config: pytest.Config) -> None:
        self.engine = str(option(config, "engine"))
        if self.engine not in ENGINES:
            raise pytest.UsageError(
                f"--lc3-engine: no engine {self.engine!r}; choose from {', '.join(ENGINES)}"
            )
        self.max_steps = int(_number(config, "max_steps", whole=True))
        self.time_limit = _number(config, "time_limit")
        self.max_output = int(_number(config, "max_output", whole=True))
        self.coverage = bool(option(config, "coverage"))
        self.visibility = str(option(config, "visibility"))
        if self.visibility not in report.VISIBILITIES:
            raise pytest.UsageError(f"--lc3-visibility: one of {', '.join(report.VISIBILITIES)}")
        self.program = [Path(p) for p in config.getoption("lc3_program") or config.getini("lc3_program")]


SETTINGS = pytest.StashKey[Settings]()


def pytest_configure(config: pytest.Config) -> None:
    """Check the options; load the program; share translations between the tests."""
    config.addinivalue_line("markers", "points(n): the points a test is worth (default 1)")
    config.addinivalue_line("markers", "visibility(v): Gradescope visibility: hidden, after_due_date, ...")
    config.stash[SETTINGS] = settings = Settings(config)
    config.stash[RECORDS] = {}
    config.pluginmanager.register(Collector(config.stash[RECORDS]), "lc3jit-records")
    config.pluginmanager.register(Fixtures(config), "lc3jit-fixtures")
    config.stash[PROGRAM] = load(absolute(settings.program)) if settings.program else None
    if regions.shared_code is None:  # compiled again after a stop (watch_calls): shared too
        regions.shared_code = {}


@functools.cache
def shared_translations() -> SharedTranslations:
    """One program's translations for every test of this process, and through the translation
    cache (unless LC3JIT_NO_CACHE is set) for the other workers of pytest-xdist or
    `lc3jit grade` that test the same program."""
    from lc3jit.translator.cache import TranslationCache, cache_directory, disabled_by_environment
    from lc3jit.translator.shared import SharedTranslations

    cache = None if disabled_by_environment() else TranslationCache(cache_directory(), lambda _: None)
    return SharedTranslations(cache)


@functools.cache
def load(paths: tuple[Path, ...]) -> tuple[tuple[Image, ...], str]:
    """The images of the files, or the load error's text (the assembler's messages): read
    and assembled once a process, whichever it is (every test of a submission asks)."""
    try:
        return tuple(load_images(list(paths))), ""
    except LC3Error as error:
        return (), str(error)


def absolute(files: Iterable[str | Path], cwd: str = "") -> tuple[Path, ...]:
    """The files' absolute paths, links not followed: messages name the file as given, never
    what a link points to."""
    return tuple(Path(os.path.abspath(os.path.join(cwd, f))) for f in files)


@functools.cache
def resolved(files: tuple[str | Path, ...], cwd: str) -> tuple[Path, ...]:
    """The files' absolute paths, once per working directory (every test asks)."""
    return absolute(files, cwd)


def uses_default_program(item: pytest.Item) -> bool:
    """Does the test take the program from --lc3-program (not a module's own lc3_program)?"""
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.get("lc3_program") if info is not None else None
    if not definitions:
        return False
    return definitions[-1].baseid == ""  # type: ignore[no-any-return]  # a plugin's fixture: ours


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.stash[PROGRAM] is None and any(uses_default_program(item) for item in items):
        raise pytest.UsageError(
            "no program to test: give --lc3-program FILE (or lc3_program in the ini file)"
        )


class Fixtures:
    """The fixtures that read the session's settings, as methods of an object registered
    when pytest is configured: they reach the settings through it, not through pytest's
    `request` (for each fixture that asks for `request`, pytest builds a fixture definition
    at every test, twice, reading the signature of a function: some 5% of a class's CPU)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.fixture
    def lc3_program(self) -> list[Path]:
        """The files of --lc3-program; a test module may override this fixture to name its own."""
        return list(self.config.stash[SETTINGS].program)

    @pytest.fixture
    def lc3(self, lc3_program: list[Path]) -> Generator[Factory, None, None]:
        """A factory of Simulators: lc3() loads the program under test; lc3(*files, source=...,
        keys=..., edition=..., os=..., seed=..., strict=...) takes the Simulator's own
        arguments. All of a test's Simulators share its wall-clock limit.

        The test's Simulators are closed when it ends (its report, made before, has what it
        needs of them): their memory goes back at once (see Simulator.close)."""
        config = self.config
        settings = config.stash[SETTINGS]
        deadline = time.monotonic() + settings.time_limit

        def make(*programs: str | Path, **options: object) -> Simulator:
            __tracebackhide__ = True
            options.setdefault("engine", settings.engine)
            options.setdefault("coverage", settings.coverage)
            options.setdefault("translations", shared_translations())
            options.setdefault("max_steps", settings.max_steps)
            options.setdefault("time_limit", settings.time_limit)
            options.setdefault("deadline", deadline)
            options.setdefault("max_output", settings.max_output)
            options.setdefault("translate_after", TRANSLATE_AFTER)
            files = programs or (() if "source" in options else tuple(lc3_program))
            # the working directory only for a relative path (asking is a system call a test)
            cwd = "" if all(os.path.isabs(f) for f in files) else os.getcwd()
            images, problem = load(resolved(files, cwd))
            if problem:
                factory.not_run = True
                pytest.fail(f"not run: {report.not_loaded(problem)}", pytrace=False)
            many_machines_ahead(config)
            sim = Simulator(*images, **options)  # type: ignore[arg-type]  # the Simulator checks them
            factory.sims.append(sim)
            return sim

        factory = Factory(make, f"lc3({', '.join(p.name for p in lc3_program)})")
        yield factory
        for sim in factory.sims:
            sim.close()
        factory.sims.clear()

    @pytest.fixture
    def verify(self) -> Verify:
        """Soft checks with points: `verify(condition, message, points=1)`, `verify.equal(...)`."""
        return Verify()


#: The garbage collector's first threshold while a session makes Simulators (CPython's is
#: 700 allocations): a test allocates a few thousand objects, and each collection of the
#: young generation walks what the test holds. 5,000 spreads the same work over fewer
#: walks (2-12% less CPU for `pytest examples/grading --cases 1000`, interleaved runs).
COLLECT_EVERY = 5000
COLLECTOR = pytest.StashKey[tuple[int, int, int]]()
#: A block the size of a few machines, allocated and freed once: see keep_freed_memory.
ALLOCATOR_HINT = 16 << 20


def many_machines_ahead(config: pytest.Config) -> None:
    """From the first Simulator of the session to its end (a session that makes none, or
    any other project's, keeps the collector, the allocator and machines as they were):
    a closed machine's memory serves the next (lc3jit_runtime.machine.recycle_memory)."""
    if COLLECTOR not in config.stash:
        config.stash[COLLECTOR] = thresholds = gc.get_threshold()
        gc.set_threshold(max(COLLECT_EVERY, thresholds[0]), *thresholds[1:])
        keep_freed_memory()
        recycle_memory(True)


def keep_freed_memory() -> None:
    """Let the C allocator keep the memory a test's closed machine gives back for the next
    test's machine, instead of returning it to the system and faulting it in afresh.

    glibc's malloc returns the free memory at the top of its heap once it exceeds twice its
    mmap threshold, which starts at 128 KB and rises to the size of the largest block it
    mapped and then freed (up to 32 MB): about one machine (2 MB: memory, write map, the
    interpreter's table), so every test's machine went back to the system at its end and
    the next one was faulted in page by page, 0.7 ms a test, more than its run. A 16 MB
    block freed at once raises the threshold to keep 32 MB. bytes() takes it zeroed from
    calloc, which touches none of its pages; other allocators ignore it."""
    bytes(ALLOCATOR_HINT)


def pytest_unconfigure(config: pytest.Config) -> None:
    if COLLECTOR in config.stash:
        gc.set_threshold(*config.stash[COLLECTOR])
        recycle_memory(False)


class Factory:
    """The lc3 fixture: makes Simulators; its repr is what pytest's assertion messages show.
    It keeps the test's Simulators and whether the program could not be loaded, for the
    test's report."""

    def __init__(self, make: Callable[..., Simulator], name: str) -> None:
        self.make = make
        self.name = name
        self.sims: list[Simulator] = []
        self.not_run = False

    def __call__(self, *programs: str | Path, **options: object) -> Simulator:
        __tracebackhide__ = True
        return self.make(*programs, **options)

    def __repr__(self) -> str:
        return self.name


class Verify:
    """Soft checks: each is reported, none stops the test; points for those that hold
    (LC3Tools' `verify(label, condition, points)`)."""

    def __init__(self) -> None:
        self.checks: list[report.Check] = []

    def __call__(self, condition: object, message: str, points: float = 1) -> bool:
        self.checks.append(report.Check(message, points, bool(condition)))
        return bool(condition)

    def equal(self, got: object, expected: object, message: str, points: float = 1) -> bool:
        """Holds when got == expected; the report says both."""
        text = message if got == expected else f"{message}: expected {expected!r}, got {got!r}"
        return self(got == expected, text, points)

    def output(
        self, sim: Simulator, expected: str, message: str = "output", points: float = 1, **how: bool
    ) -> bool:
        """The program's output is expected (contains=True: contains it; ignore_case, ignore_whitespace)."""
        contains = how.pop("contains", False)
        test = sim.output_contains if contains else sim.output_is
        ok = test(expected, **how)
        return self(ok, message if ok else f"{message}: expected {expected!r}, got {sim.output!r}", points)

    @property
    def failed(self) -> list[report.Check]:
        return [c for c in self.checks if not c.passed]


class Marks(NamedTuple):
    """What a test's fixtures and marks say about its grading."""

    graded: bool  # a grader's test: it uses the lc3 fixture or soft checks, or is worth points
    points: float | None  # its points mark's
    visibility: str | None  # its visibility mark's


MARKS = pytest.StashKey[Marks]()


def marks(item: pytest.Item) -> Marks:
    """The test's Marks, read once (a class's worker reports each test once a submission)."""
    if (known := item.stash.get(MARKS, None)) is not None:
        return known
    names = getattr(item, "fixturenames", ())
    points = item.get_closest_marker("points")
    visibility = item.get_closest_marker("visibility")
    known = item.stash[MARKS] = Marks(
        "lc3" in names or "verify" in names or points is not None,
        float(points.args[0]) if points is not None and points.args else None,
        str(visibility.args[0]) if visibility is not None else None,
    )
    return known


def fixture_value(item: pytest.Item, name: str) -> object:
    """The value of a fixture the test uses (None if it does not), while it is reported."""
    return (getattr(item, "funcargs", None) or {}).get(name)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """One line for a failure of the program; soft checks; the score, the explanation and the
    lines that never ran, carried in user_properties (so they cross pytest-xdist too)."""
    rep: pytest.TestReport = yield
    if call.when != "call" and not (call.when == "setup" and rep.failed):
        return rep
    known = marks(item)
    if not known.graded:
        return rep
    excinfo = call.excinfo
    message = ""
    factory = fixture_value(item, "lc3")
    sims = factory.sims if isinstance(factory, Factory) else []
    ran = not (isinstance(factory, Factory) and factory.not_run)
    if not ran:
        message = str(excinfo.value) if excinfo is not None else ""
    elif excinfo is not None and isinstance(excinfo.value, RunError | LC3Error):
        message = f"{type(excinfo.value).__name__}: {excinfo.value}"
        rep.longrepr = message
    elif rep.failed:
        message = _failure_text(excinfo, rep)
    checks = fixture_value(item, "verify")
    checks = checks if isinstance(checks, Verify) else None
    soft = checks.checks if checks is not None else []
    if checks is not None and checks.failed and rep.passed:
        rep.outcome = "failed"
        rep.longrepr = "\n".join(f"check failed ({c.points:g} pt): {c.message}" for c in checks.failed)
        message = str(rep.longrepr)
    marked = known.points
    total = sum(c.points for c in soft)
    maximum = marked if marked is not None else (total or 1.0)
    if soft:
        earned = sum(c.points for c in soft if c.passed)
        score = maximum * earned / total if total else 0.0
    else:
        score = maximum if rep.passed else 0.0
    kind = type(excinfo.value).__name__ if excinfo is not None else ""
    settings = item.config.stash[SETTINGS]
    unran: list[tuple[int, str]] = []
    if rep.failed and ran and settings.coverage:
        source = {a: line for sim in sims for image in sim.images for a, line in image.source.items()}
        unran = explain.unran([sim.machine for sim in sims], source)
    record = report.TestRecord(
        name=item.nodeid.split("::", 1)[-1],
        passed=not rep.failed,
        score=round(score, 6),
        max_score=maximum,
        message=message,
        explanation=explain.explain(kind, message) if rep.failed and ran else "",
        unran=unran,
        checks=soft,
        visibility=settings.visibility if known.visibility is None else known.visibility,
        ran=ran,
    )
    rep.user_properties.append(("lc3_record", json.dumps(record.as_dict())))
    return rep


def short_failure(excinfo: pytest.ExceptionInfo[BaseException], style: str | None = None) -> str:
    """A failure as its exception's one line, no traceback drawn (what `lc3jit grade`'s workers
    report: the records take their text from the exception, not from the drawing)."""
    return excinfo.exconly()


def _failure_text(excinfo: pytest.ExceptionInfo[BaseException] | None, rep: pytest.TestReport) -> str:
    if excinfo is None:
        return str(rep.longrepr)
    if isinstance(excinfo.value, AssertionError) and str(excinfo.value):
        return str(excinfo.value).split("\nassert ")[0]
    return excinfo.exconly()


class Collector:
    """Collects the tests' records where the reports arrive (the controller under pytest-xdist)."""

    def __init__(self, records: dict[str, report.TestRecord]) -> None:
        self.records = records

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == "lc3_record":
                self.records[report.nodeid] = TestRecord.from_dict(json.loads(str(value)))


def submission(config: pytest.Config, seconds: float = 0.0) -> report.SubmissionRecord:
    """What this session found, as one submission's record."""
    settings = config.stash[SETTINGS]
    program = config.stash.get(PROGRAM, None)
    problem = program[1] if program is not None else ""
    name = ", ".join(str(p) for p in settings.program)
    return report.SubmissionRecord(name, list(config.stash[RECORDS].values()), problem, seconds)


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[STARTED] = time.monotonic()


STARTED = pytest.StashKey[float]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The assembler's messages once, the scores, and the files asked for."""
    if hasattr(config, "workerinput"):
        return
    record = submission(config, time.monotonic() - config.stash.get(STARTED, time.monotonic()))
    if folder := str(option(config, "relative_to")):
        record = record.relative_to(os.path.abspath(folder))
    if record.problem:
        terminalreporter.section("the program could not be loaded: no test ran it")
        terminalreporter.write_line(report.first_errors(record.problem))
    if record.tests:
        terminalreporter.section("LC-3 score")
        for line in report.score_lines(record):
            terminalreporter.write_line(line)
    settings = config.stash[SETTINGS]
    if gradescope := str(option(config, "gradescope")):
        Path(gradescope).write_text(
            json.dumps(report.gradescope(record, settings.visibility), indent=1) + "\n"
        )
        terminalreporter.write_line(f"Gradescope results: {gradescope}")
    if json_path := str(option(config, "report")):
        page = report.write_reports([record], Path(json_path))
        terminalreporter.write_line(f"report: {json_path}, {page}")
