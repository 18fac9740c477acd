"""The assembler writes, from the emitter's instructions, the code object `bytecode` writes.

`bytecode` (the reference: it checks every instruction) and lc3jit's own assembler (fast,
on the translation path) are given the same instructions for every block and region of
the games, a big synthetic program and random programs; their code objects must be equal,
byte for byte and field by field, far jumps split as the running Python wants (reference.py
splits on `bytecode`'s own layout; CI runs this on 3.11 to 3.15).
"""

from __future__ import annotations

import dis
import io
import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

import pytest
from hypothesis import given, settings

from lc3jit.inspection.check import code_differences
from lc3jit.toolchain.asm import assemble as assemble_source
from lc3jit.translator.blocks import find_blocks
from lc3jit.translator.codegen import emitter
from lc3jit.translator.codegen.assembler import Label
from lc3jit.translator.codegen.assembler import assemble as assemble_instructions
from lc3jit.translator.codegen.compiler import BlockCompiler
from lc3jit.translator.codegen.reference import assemble_with_bytecode
from lc3jit.translator.regions import region_blocks, region_compiler, region_roots
from lc3jit_runtime.loader import parse_obj

from .test_differential import ORIGIN, program
from .test_emitter import branch_events

EXAMPLES = Path(__file__).parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES / "bench"))
from synthetic import synthetic  # type: ignore[import-not-found]  # noqa: E402


def check_every_assembly(patch: pytest.MonkeyPatch) -> list[str]:
    """Every code object the emitter assembles is assembled by `bytecode` too, far jumps
    split as the Python wants, and compared field by field; returns their names."""
    names: list[str] = []

    def both(*args: Any) -> CodeType:
        code = assemble_instructions(*args)
        assert code_differences(code, assemble_with_bytecode(*args)) == [], args[2]
        names.append(args[2])
        return code

    patch.setattr(emitter, "chosen_assemble", lambda: both)
    return names


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return check_every_assembly(monkeypatch)


def compile_all(words: Sequence[int]) -> None:
    """Every block and every region rooted at a function of a program at x3000."""
    memory = [0] * 0x10000
    memory[ORIGIN : ORIGIN + len(words)] = words
    blocks = find_blocks(memory, [ORIGIN])
    for block in blocks.values():
        BlockCompiler(block, 3).compile()
    for root in region_roots(blocks, [ORIGIN]):
        region_compiler(region_blocks(blocks, root), 3).compile()


@pytest.mark.parametrize("game", ["2048.obj", "rogue.obj"])
def test_the_games_assemble_as_bytecode_assembles_them(game: str, compared: list[str]) -> None:
    compile_all(list(parse_obj(EXAMPLES / game).words))
    assert any(name.startswith("region_") for name in compared)


def test_a_big_program_assembles_as_bytecode_assembles_it(compared: list[str]) -> None:
    """Regions of 160 blocks: jumps long enough to need EXTENDED_ARG, long line tables."""
    compile_all(list(assemble_source(synthetic(1500)).images[0].words))
    assert len(compared) > 100


@settings(max_examples=30)
@given(case=program())
def test_random_programs_assemble_as_bytecode_does(case: tuple[list[int], list[int], bytes]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        check_every_assembly(patch)
        compile_all(case[0])


def _far_compares(backward: bool, when: bool) -> CodeType:
    """`x < 0` tested, then a conditional jump 600 code units away, forward (to return
    "far") or backward (a loop counting n up to x), assembled with the far compares split."""
    e = emitter.Emitter("far", 1)
    target = Label()
    if backward:
        e.const(0)
        e.store("n")
        e.place(target)
        e.load("n")
        e.const(1)
        e.binary(emitter.BinaryOp.ADD)
        e.store("n")
    else:
        e.load("x")
        e.const(0)
        e.compare(emitter.Compare.LT)
        e.jump_if(target, when)
    for _ in range(300):
        e.load("x")
        e.pop()
    if backward:
        e.load("n")
        e.load("x")
        e.compare(emitter.Compare.LT)
        e.jump_if(target, True)
        e.load("n")
        e.return_top()
    else:
        e.return_const("near")
        e.place(target)
        e.return_const("far")
    args = (e.code, ("x",), "far", 1, emitter.STACK_BOUND, (), True)
    code = assemble_instructions(*args)
    assert code_differences(code, assemble_with_bytecode(*args)) == []
    return code


@pytest.mark.parametrize("when", [True, False])
def test_a_far_jump_after_a_compare_goes_over_a_short_test_and_lands_as_it_would(when: bool) -> None:
    """3.11 specialises COMPARE_OP only if its conditional jump comes right after it: split,
    no EXTENDED_ARG comes between them, and each way still goes where the test says."""
    for code, runs in [
        (_far_compares(False, when), {-1: "far" if when else "near", 1: "near" if when else "far"}),
        (_far_compares(True, True), {5: 5, 300: 300}),
    ]:
        names = [i.opname for i in dis.get_instructions(code)]
        assert "COMPARE_OP" in names
        assert not any(a == "COMPARE_OP" and b == "EXTENDED_ARG" for a, b in pairwise(names))
        assert "EXTENDED_ARG" in names  # the far jump still needs one
        function = FunctionType(code, {})
        for x, expected in runs.items():
            assert function(x) == expected


def _far_branch(when: bool) -> CodeType:
    """A test of `x` (no compare before it) whose jump, when its truth is `when`, goes 600
    code units forward (to return "far"), else on (to return "near"): as the emitter
    writes and assembles it for the running Python."""
    e = emitter.Emitter("far", 1)
    target = Label()
    e.load("x")
    e.jump_if(target, when, is_bool=False)
    for _ in range(300):
        e.load("x")
        e.pop()
    e.return_const("near")
    e.place(target)
    e.return_const("far")
    return e.to_code(("x",))


CONDITIONAL = frozenset(name for name in dis.opmap if name.startswith("POP_JUMP") and "NONE" not in name)


@pytest.mark.skipif(not emitter.SPLITS_FAR_JUMPS, reason="far conditional jumps are split on 3.13+")
@pytest.mark.parametrize("when", [True, False])
def test_a_far_conditional_jump_is_a_short_test_over_a_far_jump(when: bool, compared: list[str]) -> None:
    """3.13+ run a conditional jump behind an EXTENDED_ARG for more than a short test and a
    far JUMP_FORWARD: no conditional jump is extended, the far one is, and each way still
    goes where the test says. From 3.14 a NOT_TAKEN follows each conditional jump and is
    nowhere else (not where the short test lands), as in CPython's compiler's own code."""
    code = _far_branch(when)
    instructions = list(dis.get_instructions(code))
    names = [i.opname for i in instructions]
    assert not any(a == "EXTENDED_ARG" and b in CONDITIONAL for a, b in pairwise(names))
    assert any(a == "EXTENDED_ARG" and b == "JUMP_FORWARD" for a, b in pairwise(names))
    assert sum(name in CONDITIONAL for name in names) == 1
    if emitter.HAS_NOT_TAKEN:
        assert [a in CONDITIONAL for a, b in pairwise(names) if b == "NOT_TAKEN"] == [True]
        assert all(b == "NOT_TAKEN" for a, b in pairwise(names) if a in CONDITIONAL)
        (test,) = [i for i in instructions if i.opname in CONDITIONAL]
        (far,) = [i for i in instructions if i.opname == "JUMP_FORWARD"]
        # the test's way on reaches the far jump (its EXTENDED_ARG); jumped, the way on before
        assert list(code.co_branches()) == [(test.offset, far.offset - 2, far.offset + 2)]
    dis.dis(code, file=io.StringIO())  # dis reads it whole
    function = FunctionType(code, {})
    for x in (True, False, 0, 7, "", "s"):
        assert function(x) == ("far" if bool(x) == when else "near")


@pytest.mark.skipif(not emitter.SPLITS_FAR_JUMPS, reason="far conditional jumps are split on 3.13+")
def test_a_split_far_jump_under_sys_monitoring() -> None:
    """Each run through the split test is one branch event, from the test, to where the
    code goes: sys.monitoring (coverage, debuggers) sees both ways out, once each."""
    function = FunctionType(_far_branch(True), {})
    results, seen = branch_events(function, 1, 0, 1)
    assert results == ["far", "near", "far"]
    assert len(seen) == 3 and seen[0] == seen[2] != seen[1] and seen[0][0] == seen[1][0]
    if hasattr(function.__code__, "co_branches"):
        ((test, on, jumped),) = function.__code__.co_branches()
        assert set(seen) == {(test, on), (test, jumped)}
    assert [function(x) for x in (1, 0)] == ["far", "near"]


def _crossing_branches(first: int, second: int) -> CodeType:
    """Two forward tests whose jumps cross: `x` jumps over `first` filler pairs and the test
    of `y` to return "A"; `y` jumps over `second` pairs, "near" and the way to "A", to "B"."""
    e = emitter.Emitter("crossing", 1)
    to_a, to_b = Label(), Label()
    e.load("x")
    e.jump_if(to_a, True, is_bool=False)
    for _ in range(first):
        e.load("x")
        e.pop()
    e.load("y")
    e.jump_if(to_b, True, is_bool=False)
    for _ in range(second):
        e.load("y")
        e.pop()
    e.return_const("near")
    e.place(to_a)
    for _ in range(second):
        e.load("x")
        e.pop()
    e.return_const("A")
    e.place(to_b)
    e.return_const("B")
    return e.to_code(("x", "y"))


@pytest.mark.parametrize("first", range(56, 72))
def test_jumps_that_grow_around_one_extended_arg_land_where_they_should(
    first: int, compared: list[str]
) -> None:
    """Offsets around 0x100 code units, two jumps crossing: one's EXTENDED_ARG (or split,
    with its NOT_TAKEN moved) moves the other's target, the resolution goes round until
    nothing moves, and every jump lands on an instruction, the one it should; `bytecode`,
    splitting on its own layout, writes the same bytes."""
    for second in range(56, 72, 3):
        code = _crossing_branches(first, second)
        instructions = list(dis.get_instructions(code))
        starts = {i.offset for i in instructions}
        returns = {i.argval: i.offset for i in instructions if i.opname in ("LOAD_CONST", "RETURN_CONST")}
        targets = {i.argval for i in instructions if i.opname in CONDITIONAL or i.opname == "JUMP_FORWARD"}
        assert targets <= starts
        assert {returns["A"] - 4 * second, returns["B"]} <= targets  # each way to its return
        function = FunctionType(code, {})
        runs = {(1, 0): "A", (1, 1): "A", (0, 1): "B", (0, 0): "near"}
        assert {xy: function(*xy) for xy in runs} == runs
    assert len(compared) == 6
