"""A region's cycles: which blocks lie on one, and which of the blocks that cut them must
check the budget.

The blocks on a cycle, a loop's or a recursion's (its calls and returns are edges too):
what runs there runs many times, so code that costs a table to build once a process
(codegen.across_blocks: the words' table) goes there only.

Fewer budget checks: of the blocks that cut a region's cycles, those that still must.
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


def on_cycles(ways_in: Mapping[int, Sequence[int]]) -> frozenset[int]:
    """The blocks on a cycle of the graph whose edges `ways_in` gives backwards (the same
    cycles as forwards): those of a strongly connected component of two blocks or more,
    or of one with an edge to itself. Tarjan's algorithm, iterative (a region may have
    thousands of blocks)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    cyclic: set[int] = set()
    for root in ways_in:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        walk = [(root, iter(ways_in[root]))]
        while walk:
            node, following = walk[-1]
            for other in following:
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other)
                    on_stack.add(other)
                    walk.append((other, iter(ways_in[other])))
                    break
                if other in on_stack:
                    low[node] = min(low[node], index[other])
            else:
                walk.pop()
                if walk:
                    parent = walk[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in ways_in[node]:
                        cyclic.update(component)
    return frozenset(cyclic)
