"""Coverage by test on translated engines (lc3jit.grading.coverage) against the interpreter's:
the same words ran, so the same source lines are reported as never run, whatever the
engine and wherever the tiered switch falls; and the run itself ends as on the interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lc3jit.api import Simulator
from lc3jit.grading import explain
from lc3jit.session import load_images
from lc3jit_runtime.isa import NOOP_WORDS
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import DSR, KBDR, KBSR

from .test_differential import ORIGIN, program

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"
TRANSLATED = ["regions", "blocks"]


def run(images: list[Image], keys: bytes, registers: list[int] | None = None, **options: object) -> Simulator:
    sim = Simulator(*images, keys=keys, **options)  # type: ignore[arg-type]
    for number, value in enumerate(registers or []):
        sim.registers[number] = value
    sim.run(max_steps=options.get("max_steps", 3000), check=False)  # type: ignore[arg-type]
    return sim


def instructions_run(sim: Simulator) -> set[int]:
    """The words that ran, but for no-op words: the interpreter marks a run of them all at
    once as it enters it, the coverage engine one at a time (a step limit inside one tells)."""
    return {a for a in sim.executed() if sim.memory[a] >= NOOP_WORDS}


def assert_same_coverage(expected: Simulator, actual: Simulator) -> None:
    assert instructions_run(actual) == instructions_run(expected)
    assert actual.state() == expected.state()
    assert actual.output_bytes == expected.output_bytes
    source = {a: line for image in expected.images for a, line in image.source.items()}
    assert explain.unran([actual.machine], source) == explain.unran([expected.machine], source)


REAL = [
    (["grading/solution.asm"], b""),
    (["grading/buggy.asm"], b""),
    (["grading/factorial/buggy.asm"], b""),
    (["sieve.asm"], b""),
    (["subroutines.asm"], b""),
    (["echo.asm"], b"echo me\n"),
]


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize(("files", "keys"), REAL, ids=lambda v: str(v)[:24])
@pytest.mark.parametrize("switch", [0, 1, 40, 5000])
def test_real_programs_cover_the_same_words_on_every_engine(
    engine: str, files: list[str], keys: bytes, switch: int
) -> None:
    images = load_images([EXAMPLES / f for f in files])
    expected = run(images, keys, engine="interp", max_steps=400_000)
    actual = run(images, keys, engine=engine, coverage=True, translate_after=switch, max_steps=400_000)
    assert_same_coverage(expected, actual)
    assert expected.executed(), "the program ran"


def test_a_game_is_covered_as_on_the_interpreter() -> None:
    images = load_images([EXAMPLES / "2048.obj"])
    keys = b"n" + b"wasd" * 3
    expected = run(images, keys, engine="interp", max_steps=150_000)
    assert_same_coverage(expected, run(images, keys, coverage=True, translate_after=40, max_steps=150_000))


def test_self_modifying_code_is_covered_as_on_the_interpreter() -> None:
    images = load_images([PROGRAMS / "selfmod.asm"])
    expected = run(images, b"", engine="interp")
    for switch in (0, 3, 7):
        assert_same_coverage(expected, run(images, b"", coverage=True, translate_after=switch))
    assert expected.output == "5HALT\n"


def test_a_loop_entered_after_the_switch_runs_translated() -> None:
    """Code first reached after the switch is interpreted once, then translated from there."""
    source = """
        .ORIG x3000
        AND R1, R1, #0
        LD R2, MANY
WAIT    ADD R2, R2, #-1
        BRp WAIT
        LD R2, MANY
LATER   ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp LATER
        HALT
MANY    .FILL #3000
        .END
    """
    expected = Simulator(source=source, engine="interp")
    expected.run()
    actual = Simulator(source=source, coverage=True, translate_after=100)
    actual.run()
    assert actual.state() == expected.state()
    assert actual.executed() == expected.executed()
    dispatcher = actual.engine.engine  # type: ignore[attr-defined]  # the tiered engine's, after the switch
    assert actual.address("LATER") in dispatcher.blocks, "translated once it ran"


POINTERS = Image(ORIGIN - 8, (KBSR, KBDR, DSR, ORIGIN + 3, ORIGIN, 0xFFFF, ORIGIN + 40, 0), "pointers")


@pytest.mark.parametrize("engine", TRANSLATED)
@settings(max_examples=max(50, settings.default.max_examples // 2))
@given(case=program(), switch=st.integers(0, 60))
def test_random_programs_cover_the_same_words(
    engine: str, case: tuple[list[int], list[int], bytes], switch: int
) -> None:
    words, registers, keys = case
    images = [Image(ORIGIN, tuple(words), "random"), POINTERS]
    expected = run(images, keys, registers, engine="interp")
    actual = run(images, keys, registers, engine=engine, coverage=True, translate_after=switch)
    assert_same_coverage(expected, actual)
