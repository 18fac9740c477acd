"""A region as a graph: its blocks as laid out, the edges between them, the ways into each.

Built once from the blocks chosen (select) and never changed: the analyses are functions
of it, and a test builds one by hand from a few blocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from lc3jit.translator.blocks import EXIT_TRAP, Block
from lc3jit.translator.regions.select import NO_HINTS, Hints, return_points, successors_of


@dataclass(frozen=True, slots=True)
class RegionGraph:
    """`blocks` in the order they are emitted, the root first; `entries` where the dispatcher
    may enter, the root first; `edges`: for each block, the blocks control may go to next
    (return points included, for a RET); `returns`: for each block that ends in RET, where
    it may return inside; `ways_in`: for each block, the blocks that go there, a TRAP whose
    routine comes back to the next word included."""

    blocks: tuple[Block, ...]
    entries: tuple[int, ...]
    edges: Mapping[int, tuple[int, ...]]
    returns: Mapping[int, tuple[int, ...]]
    ways_in: Mapping[int, tuple[int, ...]]
    by_start: Mapping[int, Block]

    @property
    def root(self) -> Block:
        return self.blocks[0]


def build_graph(
    blocks: Sequence[Block],
    entries: Sequence[int],
    edges: Mapping[int, Sequence[int]],
    returns: Mapping[int, Sequence[int]] | None = None,
) -> RegionGraph:
    """The graph of blocks with these edges (a test's, or region_graph's)."""
    inside = {b.start for b in blocks}
    ways_in: dict[int, list[int]] = {b.start: [] for b in blocks}
    for start, targets in edges.items():
        for target in targets:
            ways_in[target].append(start)
    for b in blocks:  # a TRAP goes on inside when its routine comes back (see HelperExits)
        if b.exit is EXIT_TRAP:
            following = b.last.next_pc
            if following in inside and following not in edges[b.start]:
                ways_in[following].append(b.start)
    return RegionGraph(
        tuple(blocks),
        tuple(entries),
        MappingProxyType({start: tuple(targets) for start, targets in edges.items()}),
        MappingProxyType({start: tuple(points) for start, points in (returns or {}).items()}),
        MappingProxyType({start: tuple(ways) for start, ways in ways_in.items()}),
        MappingProxyType({b.start: b for b in blocks}),
    )


def region_graph(blocks: Sequence[Block], entries: Sequence[int], hints: Hints = NO_HINTS) -> RegionGraph:
    """The graph of a region's blocks (laid out, see select.layout), with the targets its
    JMP and JSRR sites were seen or guessed going to."""
    inside = {b.start for b in blocks}
    returns = return_points(blocks, hints)
    edges = {
        b.start: [s.address for s in successors_of(b, hints) if s.address in inside]
        + returns.get(b.start, [])
        for b in blocks
    }
    return build_graph(blocks, entries, edges, returns)  # type: ignore[arg-type]
