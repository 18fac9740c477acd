"""The pytest plugin: an `lc3` fixture that makes a grader's test a few lines.

Installed with lc3jit, it is registered through the `pytest11` entry point, so any pytest
run has it (`-p no:lc3jit` turns it off); without installing, a conftest.py can load it
with `pytest_plugins = ["lc3jit.tools.pytest_plugin"]`.

    def test_multiply(lc3):
        sim = lc3()                           # the program named by --lc3-program
        assert sim.call("MULTIPLY", 6, 7) == 42

    pytest tests/ --lc3-program student.asm   # grade one solution
    pytest tests/ --lc3-program student.asm -n auto   # test cases spread over the cores (pytest-xdist)

Each call of `lc3(...)` is a fresh `lc3jit.api.Simulator` (so tests share no state and run
in any order or process), with the step limit of --lc3-max-steps: a solution that loops
forever fails its test with StepLimitError instead of hanging the grader; and with the
output limit of --lc3-max-output: one that prints in a loop fails with OutputLimitError. The program's
files are read and assembled once per process, and their translation is shared by the
engines of all its tests (`lc3jit.translator.regions.shared_code`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest

from lc3jit.api import Simulator
from lc3jit.session import load_images
from lc3jit.translator import regions
from lc3jit_runtime.loader import Image

DEFAULT_MAX_STEPS = 1_000_000
#: A program printing in a loop would otherwise fill the grader's memory with its output.
DEFAULT_MAX_OUTPUT = 1 << 20


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lc3jit", "LC-3 programs under test (lc3jit)")
    group.addoption(
        "--lc3-program",
        action="append",
        default=[],
        metavar="FILE",
        help="the LC-3 program under test (.asm, .obj, .hex, .bin); repeat for several files",
    )
    group.addoption("--lc3-engine", default="regions", help="regions (default), blocks or interp")
    group.addoption(
        "--lc3-max-steps",
        type=int,
        default=DEFAULT_MAX_STEPS,
        help=f"step limit of each run and call (default {DEFAULT_MAX_STEPS:,})",
    )
    group.addoption(
        "--lc3-max-output",
        type=int,
        default=DEFAULT_MAX_OUTPUT,
        metavar="BYTES",
        help=f"the most bytes a program may write (default {DEFAULT_MAX_OUTPUT:,}): OutputLimitError past it",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Tests translate the same program again and again: share the code objects."""
    if regions.shared_code is None:
        regions.shared_code = {}


@pytest.fixture
def lc3_program(request: pytest.FixtureRequest) -> list[Path]:
    """The files of --lc3-program; a test module may override this fixture to name its own."""
    paths = [Path(p) for p in request.config.getoption("--lc3-program")]
    if not paths:
        pytest.fail("no program to test: give --lc3-program FILE", pytrace=False)
    return paths


@pytest.fixture
def lc3(request: pytest.FixtureRequest, lc3_program: list[Path]) -> Callable[..., Simulator]:
    """A factory of Simulators: lc3() loads the program under test; lc3(*files, source=...,
    keys=..., edition=..., os=...) takes the Simulator's own arguments."""
    config = request.config

    def make(*programs: str | Path, **options: object) -> Simulator:
        options.setdefault("engine", config.getoption("--lc3-engine"))
        options.setdefault("max_steps", config.getoption("--lc3-max-steps"))
        options.setdefault("max_output", config.getoption("--lc3-max-output"))
        files = programs or (() if "source" in options else tuple(lc3_program))
        return Simulator(*_loaded(tuple(Path(f).resolve() for f in files)), **options)  # type: ignore[arg-type]

    return make


@functools.cache
def _loaded(paths: tuple[Path, ...]) -> tuple[Image, ...]:
    """The images of the files, read (and assembled) once per process: an error is raised
    again by every test that loads them, as it is not cached."""
    return tuple(load_images(list(paths)))
