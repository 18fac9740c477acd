"""The blocks of a region that some cycle passes: a loop's, or a recursion's (its calls
and returns are edges too). What runs there runs many times, so code that costs a table
to build once a process (codegen.across_blocks: the words' table) goes there only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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
