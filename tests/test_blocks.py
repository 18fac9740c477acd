"""The block finder: what is code, and where blocks begin and end."""

from __future__ import annotations

from lc3jit.toolchain.asm import assemble
from lc3jit.translator.blocks import Exit, find_blocks

from .test_differential import ORIGIN


def assembled(source: str) -> list[int]:
    return list(assemble(source).images[0].words)


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
