"""The translator's own promises: what it translates, how the code looks, how it copes."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lc3jit.session import ENGINES, boot, os_images
from lc3jit.toolchain.asm import assemble
from lc3jit.translator.translate import MAX_AHEAD
from lc3jit_runtime.console import Console
from lc3jit_runtime.isa import FORMS_BY_NAME, WORD_MASK
from lc3jit_runtime.loader import Image, parse_obj

from .conftest import make_machine, run_on
from .test_differential import ORIGIN, assert_same

TRANSLATORS = sorted(set(ENGINES) - {"interp"})
HALT_WORD = FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25)


def assembled(source: str) -> list[int]:
    return list(assemble(source).images[0].words)


ODD_IMAGES = {
    "zeros": [0] * 300,
    "ones": [WORD_MASK] * 300,
    "random": [random.Random(7).randrange(0x10000) for _ in range(2000)],
    "reserved": [0xD000 | i for i in range(200)],
    "jump into data": assembled(
        ".ORIG x3000\nLEA R1, DATA\nADD R1, R1, #1\nJMP R1\nDATA .FILL x1234\n.FILL x5678\n.END"
    ),
}


@pytest.mark.parametrize("engine", TRANSLATORS)
@pytest.mark.parametrize("name", sorted(ODD_IMAGES))
def test_odd_images_run_like_the_interpreter(engine: str, name: str) -> None:
    """Whatever the words, translated code ends as the interpreter does and never crashes."""
    runs = []
    for which in ("interp", engine):
        machine, display = make_machine(ODD_IMAGES[name], ORIGIN)
        runs.append(run_on(which, machine, display, max_steps=20_000))
    assert_same(*runs)


@settings(max_examples=max(20, settings.default.max_examples // 4))  # each run translates 2048
@given(st.integers(0, 2000))
def test_max_steps_on_the_game(budget: int) -> None:
    """2048 stopped after any number of steps: regions and interpreter agree."""
    image = parse_obj(Path(__file__).parent.parent / "examples" / "2048.obj")
    runs = []
    for which in ("interp", "regions"):
        machine, display = make_machine(image.words, image.origin, keys=b"nwasd")
        runs.append(run_on(which, machine, display, max_steps=budget * 37))
    assert_same(*runs)


@pytest.mark.parametrize("engine", TRANSLATORS)
def test_os_routines_are_translated_ahead_of_time(engine: str) -> None:
    """Under an OS, what the trap and interrupt vectors point to is code from the start."""
    program = Image(ORIGIN, tuple(assembled(".ORIG x3000\nHALT\n.END")))
    machine = boot([program], Console(io.BytesIO(), io.BytesIO()), 3, None, os_images(3))
    dispatcher = ENGINES[engine](machine)
    routines = {machine.mem[vector] for vector in range(0x20, 0x26)}
    handlers = {machine.mem[0x100 + vector] for vector in (0, 1, 2)}
    assert routines | handlers <= set(dispatcher.blocks)


def test_labels_start_blocks() -> None:
    """A label in straight-line code (a possible JMP target) starts a block of its own."""

    source = ".ORIG x3000\nAND R0, R0, #0\nMIDDLE ADD R0, R0, #1\nHALT\n.END"
    machine = boot(assemble(source).images, Console(io.BytesIO(), io.BytesIO()))
    assert sorted(ENGINES["blocks"](machine).blocks) == [ORIGIN, ORIGIN + 1]


def test_translation_ahead_of_time_is_bounded() -> None:
    """An image with more blocks than MAX_AHEAD translates that many first, the rest when hot."""
    words = [FORMS_BY_NAME["BR"].encode(nzp=0b010, pcoffset9=1)] * (MAX_AHEAD + 500) + [HALT_WORD]
    machine, _ = make_machine(words, ORIGIN)
    assert len(ENGINES["blocks"](machine).blocks) == MAX_AHEAD
    runs = [run_on(engine, *make_machine(words, ORIGIN)) for engine in ("interp", "blocks")]
    assert_same(*runs)
    assert runs[1].outcome.reason == "halt"
