"""Fewer budget checks: of the blocks that cut a region's cycles, those that still must.

A depth-first walk's back edges name a block on every cycle (analyses.budget_checks), but
not the fewest: under an OS, where a RET or RTI edge runs to every return point, the walk
finds a "loop" at each return point and routine, and echo's key paid six checks where
three cut every cycle (GETC's and OUT's polling loops, and one on the way round the
user's loop through TRAP's helper, taken when a vector is rewritten). A check is dropped
when no cycle passes it but through another check: each cycle still passes one, which is
all the budget's exactness asks (a check finds room for the longest way to the next one).
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
