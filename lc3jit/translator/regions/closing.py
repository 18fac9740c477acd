"""Which blocks of a region grown ahead of the run stay: its own, and the copies of earlier
regions' blocks that lead back into them.

A region rooted where an earlier one stopped growing (160 blocks) follows the code on,
and a loop as long as the program (a JMP back to its start) led it back into the earlier
region's code, copying 99 of its blocks: 440 words of 970 translated again for a 1k-word
program. Leaving there for the earlier region's entry costs one exit, as leaving the copy
at its end did. Where everything leads back to everything (random code), the loops'
copies were most of every region: 3.9 words translated for each word of code found, each
of the many regions made mostly of the others.

The blocks kept are found walking back from the region's own blocks, along the ways in
of all the code found (worked out once for every region), so that only the kept blocks
and their ways in are looked at, not every block grown (branchy 4k: 2,385 kept of 15,045
grown); the bodies of the region's subroutines are walked only where one of their return
points is kept, and only as far as it takes to tell a small one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

from lc3jit.translator.blocks import KIND_CALL, Block
from lc3jit.translator.regions.select import (
    CALLS,
    INLINE_BLOCKS,
    LOCAL,
    RETURNS,
    Hints,
    layout,
    reach,
    successors_of,
)


class Closing:
    """The ways into each block of the code found, and the calls returning to each word:
    what closing_copies walks back along, for every region chosen from that code."""

    def __init__(self, blocks: Mapping[int, Block], hints: Hints) -> None:
        self.blocks = blocks
        #: For each block, the blocks that go there (successors_of: hinted targets too).
        self.ways_in: dict[int, list[int]] = {start: [] for start in blocks}
        #: For each word after a call (JSR, JSRR, a TRAP whose routine is known), the
        #: calls that return there: each call's block and its callee.
        self.calls_back: dict[int, list[tuple[int, int]]] = {}
        self.firsts: dict[int, set[int]] = {}  # first_blocks of each callee asked
        ways_in = self.ways_in
        for start, block in blocks.items():
            successors = successors_of(block, hints) if hints else block.successors
            for successor in successors:
                if (target := successor.address) in ways_in:
                    ways_in[target].append(start)  # type: ignore[index]
            if block.exit in CALLS:
                calls = self.calls_back.setdefault(block.last.next_pc, [])
                calls += ((start, s.address) for s in successors if s.kind is KIND_CALL)

    def first_blocks(self, callee: int) -> set[int]:
        """The first INLINE_BLOCKS + 1 blocks of the callee's body in all the code found (as
        copied_in walks it): all of it if it is small."""
        if (first := self.firsts.get(callee)) is None:
            first = self.firsts[callee] = set(
                reach(self.blocks, callee, lambda _: False, limit=INLINE_BLOCKS + 1)
            )
        return first

    def closing_copies(self, region: list[Block], translated: set[int]) -> list[Block]:
        """The region without the copies that lead nowhere new:
        of the blocks an earlier region holds (`translated`), only those from which the
        region's own code is reached again stay: a small callee returning into it, and a
        loop closing through them while the loop's copies are no more words than the
        region's own code."""
        grown = {block.start for block in region}
        own = grown - translated
        if len(own) == len(region):  # nothing copied: every block is the region's own
            return region
        walk = Walk(self, grown, translated, own)
        keep = walk.leading_back(room=sum(self.blocks[start].length for start in own))
        if keep is None:  # the loops' copies outweigh the region's own code: only small callees'
            small = walk.small_bodies
            keep = walk.leading_back(lambda start: start in small or start not in translated)
        return region if len(keep) == len(region) else layout([b for b in region if b.start in keep])


class Walk:
    """One region's walk back from its own blocks, and the bodies of its subroutines: a
    subroutine is a callee whose call and return point are in the region, its body the
    blocks its entry reaches there (LOCAL successors, calls left out)."""

    def __init__(self, closing: Closing, grown: set[int], translated: set[int], own: set[int]) -> None:
        self.closing, self.grown, self.translated, self.own = closing, grown, translated, own
        self.bodies: dict[int, set[int]] = {}  # each callee's body, once walked whole
        self.returns: dict[int, list[int]] = {}  # the blocks of each body that return

    def callees(self, point: int) -> list[int]:
        """The subroutines that return to `point` (inside) from a call inside."""
        grown, calls = self.grown, self.closing.calls_back.get(point, ())
        return [callee for call, callee in calls if call in grown and callee in grown]

    def body(self, callee: int, limit: int | None = None) -> set[int]:
        """The callee's body; with `limit`, as soon as it has more blocks than that, what it
        has so far (not kept: a part)."""
        blocks, grown, bodies = self.closing.blocks, self.grown, self.bodies
        body, walk = {callee}, [callee]
        for start in walk:
            for successor in blocks[start].successors:
                target = successor.address
                if target in body or target not in grown or successor.kind not in LOCAL:
                    continue
                if (whole := bodies.get(target)) is not None:  # walked: nothing in it to walk again
                    body |= whole
                else:
                    body.add(target)  # type: ignore[arg-type]
                    walk.append(target)  # type: ignore[arg-type]
            if limit is not None and len(body) > limit:
                return body
        bodies[callee] = body
        return body

    def returning(self, callee: int) -> list[int]:
        """The blocks of the callee's body that return (RET, RTI)."""
        if (found := self.returns.get(callee)) is None:
            blocks = self.closing.blocks
            found = self.returns[callee] = [s for s in self.body(callee) if blocks[s].exit in RETURNS]
        return found

    @cached_property
    def small_bodies(self) -> set[int]:
        """The blocks of the bodies of INLINE_BLOCKS blocks at most."""
        small: set[int] = set()
        grown, calls_back = self.grown, self.closing.calls_back
        for point in calls_back.keys() & grown:
            for call, callee in calls_back[point]:
                if call not in grown or callee not in grown:
                    continue
                if (body := self.bodies.get(callee)) is None:
                    # The first blocks of its body in all the code found, all of them grown,
                    # are the start of its body here too: a walk only where some are not.
                    first = self.closing.first_blocks(callee)
                    body = first if grown >= first else self.body(callee, INLINE_BLOCKS)
                if len(body) <= INLINE_BLOCKS:
                    small |= body
        return small

    def leading_back(
        self, may: Callable[[int], bool] | None = None, room: int | None = None
    ) -> set[int] | None:
        """The region's own blocks and those that lead to them, through blocks `may` allows
        (all without it; a return point is led to by the returns of its callees' bodies).
        With `room`, None as soon as the copies among them (small callees' bodies left out)
        add up to more words than that."""
        blocks, ways_in, calls_back = self.closing.blocks, self.closing.ways_in, self.closing.calls_back
        grown, translated = self.grown, self.translated
        small = self.small_bodies if room is not None else set()
        kept, keep = list(self.own), set(self.own)
        for start in kept:
            ways = ways_in[start]
            if start in calls_back:
                ways = [*ways, *(way for callee in self.callees(start) for way in self.returning(callee))]
            for way in ways:
                if way in keep or way not in grown or (may is not None and not may(way)):
                    continue
                keep.add(way)
                kept.append(way)
                if room is not None and way in translated and way not in small:
                    room -= blocks[way].length
                    if room < 0:
                        return None
        return keep
