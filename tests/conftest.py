"""Shared fixtures: machines with scripted consoles, and every engine to run them on."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import lc3jit.translator.blocks as blocks_module
import lc3jit_runtime.machine as machine_module
from lc3jit.session import ENGINES
from lc3jit.translator.regions.engine import STRICT_REGIONS
from lc3jit_runtime.console import Console
from lc3jit_runtime.machine import Machine, recycle_memory
from lc3jit_runtime.outcome import Outcome

settings.register_profile(
    "default", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="long fuzzing runs (thousands of examples more)")


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("slow" if config.getoption("--slow") else "default")


@pytest.fixture(autouse=True)
def translation_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty translation cache (XDG_CACHE_HOME, inherited by the
    processes it starts): the suite never touches the user's, and no test loads code that
    another translated, which would hide a translation bug. Returns the cache directory."""
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("LC3JIT_NO_CACHE", raising=False)
    return home / "lc3jit"


@pytest.fixture(autouse=True)
def strict_regions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A region the compiler's own checks refuse (regions.engine.refused: a user's run
    would go on, on the interpreter) fails the test where it happens, with the check's
    error, in this process and in the processes it starts."""
    monkeypatch.setenv(STRICT_REGIONS, "1")


@dataclass
class Run:
    """A finished run: the machine, how it ended, and what it printed."""

    machine: Machine
    outcome: Outcome
    output: bytes


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the words the block finder decodes."""
    count = [0]
    decode = blocks_module.decode

    def counting(word: int, address: int = 0):  # type: ignore[no-untyped-def]
        count[0] += 1
        return decode(word, address)

    monkeypatch.setattr(blocks_module, "decode", counting)
    yield count


def make_machine(
    words: Sequence[int], origin: int = 0x3000, keys: bytes = b"", edition: int = 3
) -> tuple[Machine, io.BytesIO]:
    """A machine with words at origin, PC there, and keys as scripted keyboard input."""
    display = io.BytesIO()
    machine = Machine(Console(io.BytesIO(keys), display), edition)
    machine.load_words(origin, list(words))
    machine.pc = origin
    return machine, display


@contextmanager
def recycling() -> Iterator[None]:
    """Closed machines' memories serve the next machines inside (as a grader's do), as
    before after."""
    kept = machine_module._SPARE_MEMORIES
    recycle_memory(True)
    try:
        yield
    finally:
        machine_module._SPARE_MEMORIES = kept


def run_on(engine: str, machine: Machine, display: io.BytesIO, max_steps: int | None = 100_000) -> Run:
    outcome = ENGINES[engine](machine).run(max_steps)
    machine.console.flush()
    return Run(machine, outcome, display.getvalue())


def engine_options(engine: str) -> list[str]:
    """The options of `lc3jit run` for `engine` as the tests mean it: translating from the
    first instruction (a tiered start would interpret a short test program whole)."""
    return ["--engine", engine, "--translate-after", "0"]


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    """Each engine by name: tests that take it run once per engine."""
    return request.param


@pytest.fixture
def run_words(engine: str) -> Callable[..., Run]:
    """Run words on the engine under test: run_words(words, origin=, keys=, edition=, max_steps=)."""

    def run(words: Sequence[int], max_steps: int | None = 100_000, **kwargs: object) -> Run:
        machine, display = make_machine(words, **kwargs)  # type: ignore[arg-type]
        return run_on(engine, machine, display, max_steps)

    return run
