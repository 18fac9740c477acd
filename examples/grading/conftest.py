"""The grading examples' own option (how many random arrays ARRAY_MAX is tested on); the lc3
fixture comes from lc3jit's pytest plugin, installed with lc3jit.

Each assignment in a folder of its own (factorial/, interactive/) is graded on its own:
`pytest examples/grading --lc3-program ...` collects ARRAY_MAX's tests alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cases", type=int, default=100, help="random arrays to test ARRAY_MAX on")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", range(metafunc.config.getoption("--cases")))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Another assignment's folder, unless the command line names it."""
    if collection_path.is_dir() and collection_path.parent == HERE:
        named = (Path(arg.split("::")[0]).resolve() for arg in config.args)
        return not any(path.is_relative_to(collection_path) for path in named)
    return None
