"""Which blocks make a region, and in what order they are laid out.

A region is grown from a root block along the edges known at translation time: taken
and fall-through branches, JSR into a small subroutine and the return point after it,
and the targets a JMP or JSRR was seen (or guessed) going to. Blocks are laid out so
that the branch not taken runs straight on.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence

from lc3jit.translator.blocks import (
    EXIT_CALL,
    EXIT_JUMP,
    EXIT_TRAP,
    KIND_CALL,
    KIND_FALLTHROUGH,
    Block,
    Exit,
    Kind,
    Successor,
)

#: Blocks in one region at most, nearest to the root first.
MAX_REGION_BLOCKS = 160
#: A callee is copied into its callers' regions when it has at most this many blocks.
INLINE_BLOCKS = 12

#: Successor kinds that stay in the function: targets known now, calls excepted.
LOCAL = frozenset({Kind.TAKEN, Kind.FALLTHROUGH, Kind.RETURN})

#: Exits that call: JSR, JSRR, and a TRAP whose routine is known (regions.system).
CALLS = frozenset({Exit.CALL, Exit.TRAP})
#: Exits that return to a call's return point: RET, and the RTI of a trap routine.
RETURNS = frozenset({Exit.RETURN, Exit.RTI})

#: Targets a JMP or JSRR (by its address) was seen leaving a region for, at run time, or
#: guessed from a jump table (see learning).
Hints = Mapping[int, Sequence[int]]
NO_HINTS: Hints = {}


def hinted_site(block: Block) -> bool:
    """Does the block end in a jump through a register that hints may predict (JMP, JSRR)?
    RET is left out: it is matched against the return points of its calls."""
    return block.exit is EXIT_JUMP or (block.exit is EXIT_CALL and block.last.form.name == "JSRR")


def successors_of(block: Block, hints: Hints) -> tuple[Successor, ...]:
    """The block's successors, with the targets its JMP or JSRR was seen going to: a
    JSRR's are calls, a JMP's are jumps inside the function; a TRAP's routine under an OS
    (regions.system) is a call too."""
    seen = hints.get(block.end, ())  # first: asked for every block many times, few have any
    if not seen or not (hinted_site(block) or block.exit is EXIT_TRAP):
        return block.successors
    kind = Kind.CALL if block.exit in CALLS else Kind.TAKEN
    known = tuple(s for s in block.successors if s.address is not None)
    return known + tuple(Successor(kind, target) for target in seen)


def reach(
    blocks: Mapping[int, Block],
    root: int,
    follow_call: Callable[[int], bool],
    hints: Hints = NO_HINTS,
    limit: int = MAX_REGION_BLOCKS,
) -> list[int]:
    """Block starts reachable from root, breadth first, calls followed where allowed: the
    first `limit` of them."""
    order, seen = [root], {root}
    for start in order:
        block = blocks[start]
        # Without hints (a subroutine's body, a callee's size) a block's own successors serve.
        for successor in successors_of(block, hints) if hints else block.successors:
            target = successor.address
            if target in seen or target not in blocks:
                continue
            if successor.kind in LOCAL or (successor.kind is KIND_CALL and follow_call(target)):
                if len(order) == limit:
                    return order
                seen.add(target)
                order.append(target)
    return order


def copied_in(blocks: Mapping[int, Block], callee: int) -> bool:
    """Is the subroutine at callee small enough to be copied into the regions that call it?
    (Its first INLINE_BLOCKS + 1 blocks say: a large one is not walked whole, once for
    every region that calls it.)"""
    return len(reach(blocks, callee, lambda _: False, limit=INLINE_BLOCKS + 1)) <= INLINE_BLOCKS


def region_blocks(
    blocks: Mapping[int, Block], root: int, hints: Hints = NO_HINTS, small: dict[int, bool] | None = None
) -> list[Block]:
    """The function at root: its own blocks, and the blocks of the small subroutines it calls
    (with JSR, or with JSRR to a target it was seen calling).

    Copying a small callee in makes its call and RET direct jumps; a large one stays a
    region of its own, entered through the dispatcher. `small`: whether each callee is
    small (copied_in), as far as known, for the regions of the same blocks to share.
    """
    known: dict[int, bool] = {} if small is None else small

    def is_small(callee: int) -> bool:
        if callee not in known:
            known[callee] = copied_in(blocks, callee)
        return known[callee]

    return layout([blocks[s] for s in reach(blocks, root, is_small, hints)])


def layout(region: list[Block]) -> list[Block]:
    """The order to emit a region's blocks in: each block's straight-on successor (the
    branch not taken, or the only place it goes) right after it where it is still free,
    so that the hot path runs on without a jump. The root stays first."""
    by_start = {b.start: b for b in region}
    free = dict(by_start)  # the blocks not placed yet: each is taken out once
    order: list[Block] = []
    for block in region:
        next_block = free.pop(block.start, None)
        while next_block is not None:
            order.append(next_block)
            next_block = free.pop(straight_on(next_block, by_start), None)  # type: ignore[arg-type]
    return order


def straight_on(block: Block, inside: Container[int]) -> int | None:
    """Where the block goes without a jump, if it stays inside: the branch not taken, or
    its only successor there."""
    found, inside_count = None, 0
    for successor in block.successors:  # at most two
        address = successor.address  # None where known only at run time: never inside
        if address in inside:
            if successor.kind is KIND_FALLTHROUGH:
                return address
            found, inside_count = address, inside_count + 1
    return found if inside_count == 1 else None


def return_points(region: Sequence[Block], hints: Hints = NO_HINTS) -> dict[int, list[int]]:
    """For each block of the region that ends in RET: the words after the region's calls
    (JSR, and JSRR to the targets it was seen calling) to a subroutine whose body holds
    that block. A subroutine's calls to itself come first: in a recursion they are the
    ones that return most."""
    by_start = {b.start: b for b in region}
    return returns_of(by_start, copied_subroutines(by_start, hints))


#: A subroutine inside a region: the blocks that call it, and its body's block starts.
Subroutine = tuple[list[Block], list[int]]


def copied_subroutines(by_start: Mapping[int, Block], hints: Hints) -> list[Subroutine]:
    """The subroutines the region holds and calls with a return point inside, in the order
    of their first call."""
    calls: dict[int, list[Block]] = {}  # callee -> the blocks that call it
    for b in by_start.values():
        if b.exit in CALLS and b.last.next_pc in by_start:
            for successor in successors_of(b, hints):
                if successor.kind is KIND_CALL and successor.address in by_start:
                    calls.setdefault(successor.address, []).append(b)  # type: ignore[arg-type]
    return [(callers, reach(by_start, callee, lambda _: False)) for callee, callers in calls.items()]


def returns_of(by_start: Mapping[int, Block], subroutines: list[Subroutine]) -> dict[int, list[int]]:
    """return_points of the region's subroutines."""
    returns: dict[int, list[int]] = {}
    for callers, body in subroutines:
        inside = set(body)
        points = [c.last.next_pc for c in sorted(callers, key=lambda c: c.start not in inside)]
        for start in body:
            if by_start[start].exit in RETURNS:
                returns[start] = list(dict.fromkeys(returns.get(start, []) + points))
    return returns


def region_entries(region: Sequence[Block], hints: Hints = NO_HINTS) -> list[int]:
    """Where the dispatcher may enter: the root, and the return points of calls that leave
    (a TRAP whose routine is known among them: its routine may be too large to copy in)."""
    starts = {b.start for b in region}
    calls = [b for b in region if b.exit is EXIT_CALL or (b.exit is EXIT_TRAP and b.end in hints)]
    points = [b.last.next_pc for b in calls if b.last.next_pc in starts]
    return [region[0].start, *dict.fromkeys(p for p in points if p != region[0].start)]


def region_roots(blocks: Mapping[int, Block], entries: Iterable[int]) -> list[int]:
    """Where functions begin: the entry points and every call target."""
    roots = set(entries)
    for block in blocks.values():
        if block.exit is EXIT_CALL and block.last.form.name == "JSR":
            roots.add(block.last.target)
    return sorted(roots & set(blocks))
