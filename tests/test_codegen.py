"""The code generator: every form has an emitter, the code speaks in LC-3 addresses, and its
value stack stays within the bound the emitter declares (the listings themselves:
test_golden)."""

from __future__ import annotations

import dis
from pathlib import Path

import pytest
from bytecode import Bytecode
from hypothesis import given

from lc3jit.toolchain.asm import assemble
from lc3jit.translator.blocks import find_blocks
from lc3jit.translator.codegen.compiler import EMITTERS, BlockCompiler
from lc3jit.translator.codegen.emitter import STACK_BOUND
from lc3jit.translator.regions import region_blocks, region_compiler, region_roots
from lc3jit_runtime import contract
from lc3jit_runtime.isa import FORMS
from lc3jit_runtime.loader import parse_obj

from .test_differential import ORIGIN, program


def assembled(source: str) -> list[int]:
    return list(assemble(source).images[0].words)


def test_every_form_has_an_emitter() -> None:
    assert set(EMITTERS) == {form.name for form in FORMS}


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


def test_a_helper_called_with_the_wrong_arity_is_refused_at_translation_time() -> None:
    block = find_blocks([0xF025] * 0x10000, [ORIGIN])[ORIGIN]  # HALT
    with pytest.raises(ValueError, match="TRAP takes 2 arguments, not 1"):
        BlockCompiler(block, 3).state.call(contract.TRAP, 0x25)
