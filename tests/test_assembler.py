"""The assembler writes, from the emitter's instructions, the code object `bytecode` writes.

`bytecode` (the reference: it checks every instruction) and lc3jit's own assembler (fast,
on the translation path) are given the same instructions for every block and region of
the games, a big synthetic program and random programs; their code objects must be equal,
byte for byte and field by field, on the running Python (CI runs this on 3.11 to 3.15).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import CodeType

import bytecode
import pytest
from hypothesis import given, settings

from lc3jit.toolchain.asm import assemble as assemble_source
from lc3jit.translator import emitter
from lc3jit.translator.assembler import CONSTANT_OPS, Instr, Label
from lc3jit.translator.blocks import find_blocks
from lc3jit.translator.codegen import BlockCompiler
from lc3jit.translator.regions import region_blocks, region_compiler, region_roots
from lc3jit_runtime.loader import parse_obj

from .test_differential import ORIGIN, program

EXAMPLES = Path(__file__).parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES / "bench"))
from synthetic import synthetic  # type: ignore[import-not-found]  # noqa: E402

#: COMPARE_OP's argument as the emitter encodes it -> bytecode's operator.
COMPARES = {emitter._compare_arg(op): bytecode.Compare[op.name] for op in emitter.Compare}


def by_bytecode(
    items: Sequence[Instr | Label], argnames: Sequence[str], name: str, first_line: int, stacksize: int
) -> CodeType:
    """The same instructions assembled by `bytecode`."""
    labels: dict[Label, bytecode.Label] = {}
    code = bytecode.Bytecode()
    code.name, code.first_lineno = name, first_line
    code.argcount, code.argnames = len(argnames), list(argnames)
    for item in items:
        if isinstance(item, Label):
            code.append(labels.setdefault(item, bytecode.Label()))
            continue
        arg = item.arg
        if isinstance(arg, Label):
            arg = labels.setdefault(arg, bytecode.Label())
        elif item.name == "COMPARE_OP":
            arg = COMPARES[arg]  # type: ignore[index]
        elif item.name == "BINARY_OP":
            arg = bytecode.BinaryOp(arg)
        if arg is None and item.name not in CONSTANT_OPS:
            code.append(bytecode.Instr(item.name, lineno=item.lineno))
        else:
            code.append(bytecode.Instr(item.name, arg, lineno=item.lineno))
    return code.to_code(stacksize=stacksize, compute_exception_stack_depths=False)


def check_every_assembly(patch: pytest.MonkeyPatch) -> list[str]:
    """Every code object the emitter assembles is compared with bytecode's; returns their names."""
    names: list[str] = []
    ours = emitter.assemble

    def both(items, argnames, name, first_line, stacksize, paired_first):  # type: ignore[no-untyped-def]
        reference = by_bytecode(items, argnames, name, first_line, stacksize)
        code = ours(items, argnames, name, first_line, stacksize, paired_first)
        for field in ("co_code", "co_linetable", "co_consts", "co_names", "co_varnames", "co_nlocals"):
            assert getattr(code, field) == getattr(reference, field), (name, field)
        assert code == reference, name
        names.append(name)
        return code

    patch.setattr(emitter, "assemble", both)
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
