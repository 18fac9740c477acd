"""Targets of indirect jumps guessed before the run, from the jump tables the code points at.

A JMP or JSRR whose register was just loaded from memory most often goes through a table
of code addresses: `.FILL HANDLER` words that the program reaches with LEA (a dispatch
table, a table of operations), or one such word read by LD (a routine's address). The
region translator learns a site's targets at run time (regions.learning.HINT_AFTER), but it
translates the regions holding the site again to use them, which costs a short program
more than it saves. Guessed here, from the words the code names, the targets are in the
region from its first translation. A wrong guess costs only a compare: the jump still
goes wherever its register says, and a target not guessed still leaves and can be learnt.

Only labels count as code addresses (the program's symbols: an `.asm` source, or a `.sym`
beside an `.obj`), so text and numbers in memory are never taken for targets.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence

from lc3jit.translator.blocks import Block
from lc3jit_runtime.isa import WORD_MASK


def code_tables(
    mem: Sequence[int], blocks: Iterable[Block], labels: Container[int], longest: int
) -> list[int]:
    """The words of the tables the code's LEAs point at: runs of label addresses, each of at
    most `longest` words (a longer table guesses nothing), in order, each target once."""
    targets: dict[int, None] = {}
    for block in blocks:
        for ins in block.instructions:
            if ins.form.name != "LEA":
                continue
            address, table = ins.target, []
            while mem[address] in labels and len(table) <= longest:  # type: ignore[index]
                table.append(mem[address])  # type: ignore[index]
                address = (address + 1) & WORD_MASK  # type: ignore[operator]
            if len(table) <= longest:
                targets.update(dict.fromkeys(table))
    return list(targets)


def guess_targets(
    mem: Sequence[int], sites: Iterable[Block], blocks: Mapping[int, Block], labels: Container[int], most: int
) -> dict[int, list[int]]:
    """For each site (a block ending in JMP or JSRR) whose register was loaded in its block, by
    its address: the label read by an LD, or the targets of the code's tables for an LDR
    (when there are at most `most` of them)."""
    tables: list[int] | None = None
    guesses = {}
    for site in sites:
        register = site.last.baser
        loader = next((ins for ins in reversed(site.instructions[:-1]) if ins.dr == register), None)
        if loader is None:
            continue
        if loader.form.name == "LD":
            targets = [word] if (word := mem[loader.target]) in labels else []  # type: ignore[index]
        elif loader.form.name == "LDR":
            if tables is None:
                tables = code_tables(mem, blocks.values(), labels, most)
            targets = tables
        else:
            continue
        if 0 < len(targets) <= most:
            guesses[site.end] = list(targets)
    return guesses
