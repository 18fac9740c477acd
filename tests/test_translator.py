"""The translator's own promises: what it translates, how the code looks, how it copes."""

from __future__ import annotations

import dis
import io
import random
from pathlib import Path

import pytest
from bytecode import Bytecode
from hypothesis import given, settings
from hypothesis import strategies as st

from lc3jit.session import ENGINES, boot, os_images
from lc3jit.toolchain.asm import assemble
from lc3jit.translator.blocks import Exit, find_blocks
from lc3jit.translator.codegen import EMITTERS, BlockCompiler
from lc3jit.translator.emitter import STACK_BOUND
from lc3jit.translator.regions import region_blocks, region_compiler, region_roots
from lc3jit.translator.translate import MAX_AHEAD
from lc3jit_runtime.console import Console
from lc3jit_runtime.isa import FORMS, FORMS_BY_NAME, WORD_MASK
from lc3jit_runtime.loader import Image, parse_obj

from .conftest import make_machine, run_on
from .test_differential import ORIGIN, assert_same, program

TRANSLATORS = sorted(set(ENGINES) - {"interp"})
HALT_WORD = FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25)


def assembled(source: str) -> list[int]:
    return list(assemble(source).images[0].words)


def test_every_form_has_an_emitter() -> None:
    assert set(EMITTERS) == {form.name for form in FORMS}


def test_block_finder_never_translates_data() -> None:
    words = assembled(
        """
        .ORIG x3000
        LEA R0, MSG
        PUTS
        LD R1, COUNT
        BRz DONE
        ADD R1, R1, #-1
        ST R1, COUNT
DONE    HALT
MSG     .STRINGZ "hi"
COUNT   .FILL 3
        .END
        """
    )
    memory = [0] * 0x10000
    memory[ORIGIN : ORIGIN + len(words)] = words
    blocks = find_blocks(memory, [ORIGIN], labels=[ORIGIN + 7])
    code = {ins.address for block in blocks.values() for ins in block.instructions}
    assert code == set(range(ORIGIN, ORIGIN + 7))
    assert sorted(blocks) == [ORIGIN, ORIGIN + 2, ORIGIN + 4, ORIGIN + 6]
    assert [blocks[a].exit for a in sorted(blocks)] == [Exit.TRAP, Exit.BRANCH, Exit.FALLTHROUGH, Exit.TRAP]


def test_line_numbers_are_lc3_addresses() -> None:
    words = assembled(".ORIG x3000\nADD R1, R1, #1\nAND R2, R2, #0\nBRp #-3\n.END")
    memory = [0] * 0x10000
    memory[ORIGIN : ORIGIN + 3] = words
    block = find_blocks(memory, [ORIGIN])[ORIGIN]
    code = BlockCompiler(block, 3).compile()
    lines = {i.positions.lineno for i in dis.get_instructions(code) if i.positions and i.opname != "RESUME"}
    assert lines == {ORIGIN, ORIGIN + 1, ORIGIN + 2}


def _all_code(words: list[int]) -> list:
    """Block and region code objects for a program at x3000, as bytecode.Bytecode."""
    memory = [0] * 0x10000
    memory[ORIGIN : ORIGIN + len(words)] = words
    blocks = find_blocks(memory, [ORIGIN])
    compilers = [BlockCompiler(b, 3) for b in blocks.values()]
    for root in region_roots(blocks, [ORIGIN]):
        region = region_blocks(blocks, root)
        compilers.append(region_compiler(region, 3))
    return [Bytecode.from_code(c.compile()) for c in compilers]


@given(case=program())
def test_stack_never_exceeds_the_declared_bound(case: tuple[list[int], list[int], bytes]) -> None:
    for code in _all_code(case[0]):
        assert code.compute_stacksize() <= STACK_BOUND


def test_stack_bound_holds_on_the_games(game_words: list[list[int]]) -> None:
    for words in game_words:
        for code in _all_code(words):
            assert code.compute_stacksize() <= STACK_BOUND


@pytest.fixture
def game_words() -> list[list[int]]:
    examples = Path(__file__).parent.parent / "examples"
    return [list(parse_obj(examples / name).words) for name in ("2048.obj", "rogue.obj")]


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
