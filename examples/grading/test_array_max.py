"""Tests for ARRAY_MAX (assignment.md), for any solution:

pytest examples/grading --lc3-program STUDENT.asm
"""

from __future__ import annotations

import random

import pytest

from lc3jit.api import CallResult, Simulator
from lc3jit.grader.pytest_plugin import Factory

ARRAY = 0x4000  # where the tests put their arrays: clear of the program at x3000


def array_max(sim: Simulator, values: list[int]) -> CallResult:
    sim.memory[ARRAY] = values
    return sim.call_subroutine("ARRAY_MAX", ARRAY, len(values))  # R0, R1 = ARRAY, length; R0 back


def test_main_program_halts_with_the_sample_maximum(lc3: Factory) -> None:
    sim = lc3()
    sim.run()
    sim.check_output("HALT\n")
    assert sim.registers[0] == 12, f"R0 = {sim.registers[0]} after the main program, expected 12"


@pytest.mark.parametrize(
    "values",
    [[5], [3, -7, 12, 5], [-3, -9, -1], [0, 0], [32767, -32768], [-32768, 32767], [-32768], [1, 2, 3, 4]],
)
def test_known_arrays(lc3: Factory, values: list[int]) -> None:
    array_max(lc3(), values).check_value(max(values))


@pytest.mark.points(2)
def test_other_registers_are_kept(lc3: Factory) -> None:
    sim = lc3(seed=21)  # R0-R7 and memory the program does not load: random words
    array_max(sim, [4, -2, 9]).check_preserved([1, 2, 3, 4, 5, 6])


def test_random_array(lc3: Factory, case: int) -> None:
    rng = random.Random(case)
    values = [rng.randint(-32768, 32767) for _ in range(rng.randint(1, 20))]
    array_max(lc3(), values).check_value(max(values))
