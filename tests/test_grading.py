"""The grading example through pytest itself, as a grader runs it: the reference solution
passes, the buggy one fails the tests it should, alone and spread over two workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GRADING = Path(__file__).parent.parent / "examples" / "grading"


def grade(solution: str, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(GRADING),
            "--lc3-program",
            str(GRADING / solution),
            "-p",
            "no:cacheprovider",
            "-rf",
            "--cases",
            "40",
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=GRADING,
    )


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["alone", "xdist"])
def test_reference_solution_passes(workers: tuple[str, ...]) -> None:
    result = grade("solution.asm", *workers)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "50 passed" in result.stdout


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["alone", "xdist"])
def test_buggy_solution_fails_where_signs_differ(workers: tuple[str, ...]) -> None:
    result = grade("buggy.asm", *workers)
    assert result.returncode == 1, result.stdout + result.stderr
    failed = {
        line.split()[1].split("::")[1] for line in result.stdout.splitlines() if line.startswith("FAILED")
    }
    # [32767, -32768] and [-32768, 32767]; the sample, the small arrays and the registers pass
    assert {"test_known_arrays[values4]", "test_known_arrays[values5]"} <= failed
    assert not failed & {"test_main_program_halts_with_the_sample_maximum", "test_other_registers_are_kept"}
    assert all(
        name.startswith(("test_known_arrays[values4]", "test_known_arrays[values5]", "test_random_array"))
        for name in failed
    )


def test_a_program_that_never_returns_fails_its_test_without_hanging(tmp_path: Path) -> None:
    looping = tmp_path / "loop.asm"
    looping.write_text(".ORIG x3000\nHALT\nARRAY_MAX BR ARRAY_MAX\n.END\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(GRADING / "test_array_max.py"),
            "--lc3-program",
            str(looping),
            "-p",
            "no:cacheprovider",
            "--cases",
            "1",
            "--lc3-max-steps",
            "10000",
            "-k",
            "known_arrays and values0",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=GRADING,
    )
    assert result.returncode == 1
    assert "StepLimitError: step limit reached" in result.stdout
