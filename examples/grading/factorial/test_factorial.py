"""Tests for FACT and MULT under the stack convention (assignment.md), for any solution:

pytest examples/grading/factorial --lc3-program STUDENT.asm
"""

from __future__ import annotations

import math

import pytest

from lc3jit.api import Simulator
from lc3jit.grader.pytest_plugin import Factory


@pytest.fixture
def sim(lc3: Factory) -> Simulator:
    sim = lc3()
    sim.declare("FACT", ["n"], stack=True)
    sim.declare("MULT", ["a", "b"], stack=True)
    return sim


@pytest.mark.parametrize("n", range(8))
def test_fact(sim: Simulator, n: int) -> None:
    sim.call_subroutine("FACT", n).check_value(math.factorial(n))


@pytest.mark.parametrize(("a", "b"), [(0, 5), (7, 0), (6, 7), (-3, 4)])
def test_mult(sim: Simulator, a: int, b: int) -> None:
    sim.call_subroutine("MULT", a, b).check_value(a * b)


@pytest.mark.points(2)
def test_fact_keeps_the_convention(sim: Simulator) -> None:
    call = sim.call_subroutine("FACT", 4)
    call.check_preserved()  # R0-R5 and R7 as they were
    call.check_stack()  # R6 on the return value, R5 restored


@pytest.mark.points(2)
def test_fact_recurses_and_multiplies(sim: Simulator) -> None:
    calls = sim.watch_calls("FACT", "MULT")
    sim.call_subroutine("FACT", 3).check_returned()
    made = [(c.name, c.args, c.depth) for c in calls]
    assert made == [
        ("FACT", (3,), 0),
        ("FACT", (2,), 1),
        ("FACT", (1,), 2),
        ("FACT", (0,), 3),
        ("MULT", (1, 1), 3),
        ("MULT", (2, 1), 2),
        ("MULT", (3, 2), 1),
    ], "the calls FACT(3) should make, in order, with their depth"


def test_main_program_computes_5_factorial(lc3: Factory) -> None:
    sim = lc3()
    sim.run()
    assert sim.registers[0] == 120, f"R0 = {sim.registers[0]} after the main program, expected 120"
