"""Golden `dis` listings: a few canonical blocks and one region, as the running Python's
bytecode, kept per Python version as CPython's test_dis.py keeps its expected listings.

They show the shapes the code generator's docstrings describe (registers in locals, lazy
codes, the wrap by compare, the write map's check, a helper call, a region's budget and
its back edge), and fail when the generated code changes: a change meant to change it
regenerates them, with each Python (3.11 to 3.15) in turn:

    python -m tests.test_golden      # writes tests/golden/NAME.pyX.Y.txt for this Python

docs/internals.md walks through one of them.
"""

from __future__ import annotations

import dis
import io
import re
import sys
from pathlib import Path
from types import CodeType

import pytest

from lc3jit.toolchain.asm import assemble
from lc3jit.toolchain.disasm import instruction_text, labels_by_address
from lc3jit.translator.blocks import Block, find_blocks
from lc3jit.translator.codegen.compiler import compile_block
from lc3jit.translator.regions import region_blocks, region_compiler

GOLDEN = Path(__file__).parent / "golden"
LONGEST_LINE = 100  # characters of a listing's line, its newline included
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"

#: One program; each case is a block of it (block tier) or the region rooted at its start.
PROGRAM = """
        .ORIG x3000
START   AND R1, R1, #0
        LD R2, COUNT
LOOP    ADD R1, R1, R2          ; the sum: a register-to-register add
        ADD R2, R2, #-1         ; the counter: its codes decide the branch
        BRp LOOP
        LEA R3, BUFFER
COPY    LDR R4, R3, #0          ; a load and a store through a register
        STR R4, R3, #1
        ADD R3, R3, #1
        ADD R1, R1, #-1
        BRzp COPY
        LEA R0, DONE
        PUTS                    ; a helper call: TRAP x22
        HALT
COUNT   .FILL #4
DONE    .STRINGZ "done"
BUFFER  .BLKW 16
        .END
"""

#: name -> the label of the block, or None for the region rooted at START.
CASES = {"loop-block": "LOOP", "copy-block": "COPY", "trap-block": "COPY", "region": None}


def _program() -> tuple[dict[int, Block], dict[str, int]]:
    (image,) = assemble(PROGRAM).images
    memory = [0] * 0x10000
    memory[image.origin : image.end] = image.words
    symbols = dict(image.symbols)
    return find_blocks(memory, [symbols["START"]], symbols.values()), symbols


def case_code(name: str) -> tuple[list[Block], CodeType]:
    blocks, symbols = _program()
    label = CASES[name]
    if label is None:
        region = region_blocks(blocks, symbols["START"])
        return region, region_compiler(region, 3).compile()
    block = blocks[symbols[label]]
    if name == "trap-block":  # the block after COPY's: LEA, PUTS
        block = blocks[block.last.next_pc]
    return [block], compile_block(block, 3)


def listing(name: str) -> str:
    """The LC-3 words of the case, then `dis` of its code (line numbers: LC-3 addresses)."""
    blocks, code = case_code(name)
    _, symbols = _program()
    labels = labels_by_address(symbols)
    out = io.StringIO()
    out.write(f"# {name} on Python {PYTHON}: the LC-3 code, then its bytecode (`dis`)\n")
    for block in blocks:
        for ins in block.instructions:
            label = labels.get(ins.address, "")
            out.write(f"# x{ins.address:04X} ({ins.address}) {label:<6} {instruction_text(ins, labels)}\n")
    out.write("\n")
    listed = io.StringIO()
    dis.dis(code, file=listed)
    for line in listed.getvalue().splitlines(keepends=True):  # a budget step's table: cut short
        out.write(
            line if len(line) <= LONGEST_LINE else f"{line[: LONGEST_LINE - 6].rsplit(', ', 1)[0]}, ...)\n"
        )
    return out.getvalue()


def golden_path(name: str, python: str = PYTHON) -> Path:
    return GOLDEN / f"{name}.py{python}.txt"


@pytest.mark.parametrize("name", sorted(CASES))
def test_listing_matches_its_golden(name: str) -> None:
    path = golden_path(name)
    if not path.exists():
        pytest.skip(f"no golden listing for Python {PYTHON}: python -m tests.test_golden writes it")
    assert listing(name) == path.read_text(), f"{name}: regenerate with `python -m tests.test_golden`"


def test_every_python_spoken_has_its_listings() -> None:
    from lc3jit.translator.codegen.emitter import SPOKEN

    for major, minor in SPOKEN:
        for name in CASES:
            assert golden_path(name, f"{major}.{minor}").exists(), (name, major, minor)


def test_the_listings_in_the_docs_are_golden() -> None:
    """Each listing in docs/internals.md marked `<!-- golden: NAME.pyX.Y -->` is a run of
    lines of that golden file, so the annotated listing is the code the translator makes."""
    document = (Path(__file__).parent.parent / "docs" / "internals.md").read_text()
    marked = re.findall(r"<!-- golden: ([\w.-]+) -->\n```text\n(.*?)```", document, re.S)
    assert marked
    for name, excerpt in marked:
        assert excerpt in (GOLDEN / f"{name}.txt").read_text(), name


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for case in CASES:
        golden_path(case).write_text(listing(case))
        print(f"wrote {golden_path(case)}")
