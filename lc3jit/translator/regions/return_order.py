"""The order a RET or RTI compares its return points in: the calls made in a loop first.

A return is a chain of compares, one per return point, and a routine shared by many
calls (an OS's GETC and OUT end in the one TRAP_RETURN word) pays one compare for each
point before the one it returns to. The calls made once (a prompt's PUTS before the
loop) are passed by the calls made every time round it (each key's GETC and OUT): a call
sits in a loop when its return point leads back to it without returning, the routines
it calls stepped over as the call itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from lc3jit.translator.regions.graph import RegionGraph
from lc3jit.translator.regions.select import CALLS


def loops_first(graph: RegionGraph) -> Mapping[int, tuple[int, ...]]:
    """graph.returns, each block's return points reordered: those of calls in a loop first,
    in their order otherwise (a recursion's own calls lead)."""
    points = {p for ps in graph.returns.values() for p in ps}
    site_of: dict[int, int] = {}
    steps: dict[int, list[int]] = {}  # the graph without returns, a call going on after it
    for b in graph.blocks:
        returned = b.start in graph.returns
        steps[b.start] = [t for t in graph.edges[b.start] if not (returned and t in points)]
        if b.exit in CALLS and (following := b.last.next_pc) in points:
            site_of[following] = b.start
            steps[b.start].append(following)

    def in_loop(point: int) -> bool:
        site, seen, todo = site_of.get(point), {point}, [point]
        while todo:
            for target in steps[todo.pop()]:
                if target == site:
                    return True
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return False

    looping = {p for p in points if in_loop(p)}
    return {start: tuple(sorted(ps, key=lambda p: p not in looping)) for start, ps in graph.returns.items()}
