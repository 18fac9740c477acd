"""Fewer budget checks: of the blocks that cut a region's cycles, those that still must.

A depth-first walk's back edges name a block on every cycle (analyses.budget_checks), but
not the fewest: under an OS, where a RET or RTI edge runs to every return point, the walk
finds a "loop" at each return point and routine, and echo's key paid six checks where
three cut every cycle (GETC's and OUT's polling loops, and one on the way round the
user's loop through TRAP's helper, taken when a vector is rewritten). A check is dropped
when no cycle passes it but through another check: each cycle still passes one, which is
all the budget's exactness asks (a check finds room for the longest way to the next one).

A check at a RET runs on every return. Where one block leads to the RET and nowhere else
(the rest of a routine after its last call) and a check there cuts the same cycles, the
check moves there: recursion's returns pass it only where they return into that block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def needed_cuts(edges: Mapping[int, Sequence[int]], cuts: set[int]) -> set[int]:
    """`cuts` (every cycle of `edges` passes one) less those that other cuts make needless,
    tried in address order."""
    kept = set(cuts)
    for cut in sorted(cuts):
        kept.discard(cut)
        if on_open_cycle(edges, cut, kept):
            kept.add(cut)
    return kept


def on_open_cycle(edges: Mapping[int, Sequence[int]], start: int, closed: set[int]) -> bool:
    """Does a cycle through `start` pass none of `closed`?"""
    seen, todo = {start}, [start]
    while todo:
        for target in edges[todo.pop()]:
            if target == start:
                return True
            if target not in seen and target not in closed:
                seen.add(target)
                todo.append(target)
    return False


def off_returns(
    edges: Mapping[int, Sequence[int]],
    ways_in: Mapping[int, Sequence[int]],
    returns: set[int],
    cuts: set[int],
) -> set[int]:
    """`cuts` with each cut at a block of `returns` (those ending in RET) moved to the one
    block that leads there and nowhere else, where every cycle still passes a cut."""
    kept = set(cuts)
    for cut in sorted(cuts & returns):
        before = [start for start in ways_in[cut] if tuple(edges[start]) == (cut,)]
        if len(before) == 1 and before[0] not in kept:
            moved = (kept - {cut}) | {before[0]}
            if not on_open_cycle(edges, cut, moved):
                kept = moved
    return kept
