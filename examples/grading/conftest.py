"""The grading example's own option: how many random arrays to test (the lc3 fixture comes
from lc3jit's pytest plugin, installed with lc3jit)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cases", type=int, default=100, help="random arrays to test ARRAY_MAX on")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", range(metafunc.config.getoption("--cases")))
