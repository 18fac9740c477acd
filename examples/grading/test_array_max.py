"""Tests for ARRAY_MAX (assignment.md), for any solution:

pytest examples/grading --lc3-program STUDENT.asm
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from lc3jit.api import Simulator

ARRAY = 0x4000  # where the tests put their arrays: clear of the program at x3000


def signed(word: int) -> int:
    return word - 0x10000 if word & 0x8000 else word


def array_max(sim: Simulator, values: list[int]) -> int:
    sim.memory[ARRAY] = values
    return signed(sim.call("ARRAY_MAX", ARRAY, len(values)))


def test_main_program_halts_with_the_sample_maximum(lc3: Callable[..., Simulator]) -> None:
    sim = lc3()
    sim.run()
    assert sim.output == "HALT\n"
    assert signed(sim.registers[0]) == 12


@pytest.mark.parametrize(
    "values",
    [[5], [3, -7, 12, 5], [-3, -9, -1], [0, 0], [32767, -32768], [-32768, 32767], [-32768], [1, 2, 3, 4]],
)
def test_known_arrays(lc3: Callable[..., Simulator], values: list[int]) -> None:
    assert array_max(lc3(), values) == max(values)


def test_other_registers_are_kept(lc3: Callable[..., Simulator]) -> None:
    sim = lc3()
    for r, value in zip(range(2, 7), (0x1111, 0x2222, 0x3333, 0x4444, 0x5555), strict=True):
        sim.registers[r] = value
    array_max(sim, [4, -2, 9])
    assert list(sim.registers)[1:7] == [3, 0x1111, 0x2222, 0x3333, 0x4444, 0x5555]


def test_random_array(lc3: Callable[..., Simulator], case: int) -> None:
    rng = random.Random(case)
    values = [rng.randint(-32768, 32767) for _ in range(rng.randint(1, 20))]
    assert array_max(lc3(), values) == max(values)
