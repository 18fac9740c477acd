"""Tests for UPCASE (assignment.md), key by key, for any solution:

pytest examples/grading/interactive --lc3-program STUDENT.asm
"""

from __future__ import annotations

import pytest

from lc3jit.grader.pytest_plugin import Factory, Verify

KEYS = [("a", "A"), ("z", "Z"), ("Q", "Q"), ("7", "7"), (" ", " "), ("{", "{")]


def test_prompt_comes_first(lc3: Factory) -> None:
    sim = lc3()
    sim.run_until_input()
    sim.check_output("> ")


@pytest.mark.points(3)
def test_each_key_is_echoed_in_capitals(lc3: Factory, verify: Verify) -> None:
    sim = lc3()
    sim.run_until_input()
    for key, echo in KEYS:
        sim.clear_output()
        sim.give_keys(key)
        sim.run_until_input()
        verify.equal(sim.output, echo, f"key {key!r}", points=0.5)


@pytest.mark.points(2)
def test_enter_ends_the_program(lc3: Factory) -> None:
    sim = lc3(keys="hi\n")
    sim.run()
    sim.check_output("> HI\nHALT\n")
