"""Closing a region's copies: of the blocks an earlier region holds, a region grown ahead of
the run keeps only those that lead back into its own code."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lc3jit.toolchain.asm import assemble
from lc3jit.translator.blocks import Block, Kind, find_blocks
from lc3jit.translator.regions import engine as regions_engine
from lc3jit.translator.regions import region_blocks
from lc3jit.translator.regions.closing import Closing
from lc3jit.translator.regions.select import INLINE_BLOCKS, RETURNS, reach

from .conftest import make_machine
from .machine_code import ORIGIN, branchy


def closed(source: str, copied: list[str]) -> list[str]:
    """The labels of the blocks kept of the region rooted at ORIGIN, the blocks at the
    labels `copied` held by an earlier region, in the order laid out."""
    image = assemble(source).images[0]
    memory = [0] * 0x10000
    memory[ORIGIN : ORIGIN + len(image.words)] = image.words
    labels = {address: name for name, address in image.symbols.items()}
    blocks = find_blocks(memory, [ORIGIN], labels)
    translated = {address for address, name in labels.items() if name in copied}
    kept = Closing(blocks, {}).closing_copies(region_blocks(blocks, ORIGIN), translated)
    return [labels.get(block.start, f"x{block.start:04X}") for block in kept]


def test_a_copy_that_leads_nowhere_new_is_left_out() -> None:
    """A branch into an earlier region's code leaves there: the copy is not kept."""
    source = """.ORIG x3000
ROOT    ADD R0, R0, #-1
        BRz ELSE
STAY    HALT
ELSE    ADD R0, R0, #2
        HALT
.END"""
    assert closed(source, ["ELSE"]) == ["ROOT", "STAY"]


def test_a_small_callee_copied_returns_into_the_region() -> None:
    """The copy of a callee an earlier region holds stays: its RET comes back inside."""
    source = """.ORIG x3000
ROOT    ADD R0, R0, #1
        JSR SUB
BACK    ADD R1, R1, #1
        HALT
SUB     ADD R2, R2, #1
        RET
.END"""
    assert closed(source, ["SUB"]) == ["ROOT", "SUB", "BACK"]


LOOP = """.ORIG x3000
HEAD    ADD R0, R0, #-1
        BRz DONE
BODY    {body}
        BRnzp HEAD
DONE     HALT
.END"""


def test_a_loop_closing_through_a_short_copy_keeps_it() -> None:
    """A loop back to the region's own code through a copy no longer than that code stays."""
    assert closed(LOOP.format(body="ADD R1, R1, #1"), ["BODY"]) == ["HEAD", "BODY", "DONE"]


def test_a_loop_closing_through_a_long_copy_leaves_it() -> None:
    """A copy longer than the region's own code is left out, loop or not: the region
    leaves for the earlier region's code there."""
    body = "\n        ".join(["ADD R1, R1, #1"] * 6)
    assert closed(LOOP.format(body=body), ["BODY"]) == ["HEAD", "DONE"]


def by_definition(region: list[Block], translated: set[int]) -> set[int]:
    """The starts closing_copies keeps, worked out on the whole grown region: its own blocks
    and those that lead to them (a RET to the return points of the calls to a subroutine
    whose body holds it), or, where the copies among those outweigh its own words, only
    through small subroutines' bodies."""
    inside = {block.start: block for block in region}
    ways_in: dict[int, set[int]] = {start: set() for start in inside}
    small: set[int] = set()
    for block in region:
        for successor in block.successors:
            if successor.address in inside:
                ways_in[successor.address].add(block.start)  # type: ignore[index]
            if successor.kind is Kind.CALL and successor.address in inside and block.last.next_pc in inside:
                body = set(reach(inside, successor.address, lambda _: False))
                ways_in[block.last.next_pc] |= {start for start in body if inside[start].exit in RETURNS}
                small |= body if len(body) <= INLINE_BLOCKS else set()

    def back(may: Callable[[int], bool]) -> set[int]:
        keep = {start for start in inside if start not in translated}
        while more := {way for start in keep for way in ways_in[start] if may(way)} - keep:
            keep |= more
        return keep

    keep = back(lambda _: True)
    own = sum(inside[start].length for start in inside if start not in translated)
    if sum(inside[start].length for start in keep if start in translated and start not in small) > own:
        return back(lambda start: start in small or start not in translated)
    return keep


@pytest.mark.parametrize("seed", [7, 1, 2])
def test_the_copies_kept_of_random_code_are_those_by_definition(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Random code, where everything leads back to everything and most of each region grown
    is copies: the walk back from the region's own blocks keeps what the definition does,
    worked out on every block grown."""
    chosen: list[tuple[list[Block], set[int], list[Block]]] = []
    closing = Closing.closing_copies

    def recorded(self: Closing, region: list[Block], translated: set[int]) -> list[Block]:
        kept = closing(self, region, translated)
        chosen.append((region, set(translated), kept))
        return kept

    monkeypatch.setattr(Closing, "closing_copies", recorded)
    machine, _ = make_machine(branchy(2000, seed))
    regions_engine.region_engine(machine)
    assert sum(len(kept) < len(region) for region, _, kept in chosen) > len(chosen) / 2
    for region, translated, kept in chosen:
        assert {block.start for block in kept} == by_definition(region, translated)
