"""A region's instruction budget: counted where a chain of blocks starts, checked where a
loop starts, and granted to the counter `n` a few hundred at a time (an `n` above 256
would be a new int object at each count: Budget.grant).

Where a count and a check come together (a loop head, the way back round a loop), they
are one step (TABLED_BUDGET_STEPS), in regions whose rooms are a few
hundred instructions at most (STEP_TABLE_BOUND): `n = T[n]`, with T a constant
tuple holding `n - k` where that leaves the room the check asks for and None where it
does not, tested for None. A subscript and a test for None run for fewer machine
instructions than a subtraction and a compare; None sends the step to the plain
subtraction and compare, and the refill, out of the fast path.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property, lru_cache

from lc3jit.translator.blocks import Block
from lc3jit.translator.codegen.assembler import Item
from lc3jit.translator.codegen.emitter import TABLED_BUDGET_STEPS, BinaryOp, Compare, Label, recorded
from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks

SMALL_INTS = 256  # the largest int CPython keeps one object of
MIN_GRANT = 64  # a region with a room near SMALL_INTS still refills only now and then
#: The most entries before a budget step's table's Nones (Budget.bound): past it a region
#: counts and checks with a subtraction and a compare, and no table grows with its rooms.
STEP_TABLE_BOUND = 2 * SMALL_INTS + 1


#: The straight-line parts of every refill (see Budget.refill), made once: what is
#: left of the budget, then the grant on the stack added to `granted` and to `n`.
_LEFT = recorded(("load", "budget"), ("load", "granted"), ("binary", BinaryOp.SUBTRACT))
_GRANTED = recorded(
    ("dup",),
    ("load", "granted"),
    ("binary", BinaryOp.ADD),
    ("store", "granted"),
    ("load", "n"),
    ("binary", BinaryOp.ADD),
    ("store", "n"),
)


@lru_cache(maxsize=1024)
def _added_to_count(k: int) -> tuple[Item, ...]:
    """`n += k` (Budget.add_to_count), made once for each k: a program has a few
    dozen, each counted on hundreds of ways."""
    step = BinaryOp.ADD if k > 0 else BinaryOp.SUBTRACT
    return recorded(("load", "n"), ("const", abs(k)), ("binary", step), ("store", "n"))


@lru_cache(maxsize=256)
def step_table(added: int, room: int, bound: int) -> tuple[int | None, ...]:
    """The table of one count and check (Budget.step): for each n from 0 below `bound`,
    `n + added` where that is at least `room` (and below `bound`, so that the next step
    indexes a table of the same size), else None; then `bound` Nones, which negative n
    index: every n whose step is not in the table takes the plain way."""
    return tuple(n + added if room <= n + added < bound else None for n in range(bound)) + (None,) * bound


class Budget:
    """The counts and budget checks of a region's blocks, on the region's state."""

    def __init__(self, state: AcrossBlocks) -> None:
        self.state = state

    def go_counted(self, pc: int) -> None:
        """Go to the block at pc, giving back the count of the chain not run (off the
        chain): where pc counts itself, as one `n -= k` with its count, past its own."""
        s = self.state
        given_back = s.given_back(pc)
        if given_back and s.past_count(pc):
            self.count_in(s.graph.by_start[pc], given_back)
            s.go_to(pc, counted=True)
        else:
            self.add_to_count(given_back)
            s.go_to(pc)

    def add_to_count(self, k: int) -> None:
        """`n += k`, as `n -= -k` where k is negative: nothing where it is 0."""
        if k:
            self.state.e.extend(_added_to_count(k))

    def count_in(self, block: Block, given_back: int = 0) -> None:
        """Count the block and the chain it pays for (less `given_back`, what the way
        here had counted and not run)."""
        self.add_to_count(self.counted(block, given_back))

    def counted(self, block: Block, given_back: int = 0) -> int:
        """What counting the block and the chain it pays for adds to `n` (a negative number),
        less `given_back`."""
        return given_back - block.length - self.state.facts.ahead[block.start]

    def check_room(self, block: Block) -> None:
        """At a loop head: leave at its start, its count given back, when `n` cannot cover
        the longest way from it to the next check."""
        self.check_budget(self.room_after_count(block), lambda: self.leave_before(block))

    def count_and_check_room(self, block: Block) -> None:
        """At a loop head no jump goes past the count of: count it and check its room in
        one step where that is cheaper (Budget.tabled), the rest out of line; else
        count_in and check_room."""
        s = self.state
        added = self.counted(block)
        if not self.tabled:
            self.add_to_count(added)
            self.check_room(block)
            return
        room, short, on = self.room_after_count(block), Label(), s.checked[block.start]

        def not_stepped() -> None:
            s.e.pop()
            self.add_to_count(added)
            check = self.room_test(room)
            s.e.jump_if_false(on)
            self.refill(check, lambda: self.leave_before(block))

        self.step(added, room, short)
        s.slow_path(short, not_stepped)

    def check_on_the_way(self, pc: int) -> None:
        """Go to the loop head at pc past its count and check, counting and checking here
        (checks_on_the_way): in one step where that is cheaper (Budget.tabled); else
        on 3.11 the check's jump is the back edge itself. The refill follows, on this way's
        own state."""
        s = self.state
        block = s.graph.by_start[pc]
        added = self.counted(block, s.given_back(pc))
        room = self.room_after_count(block)
        if self.tabled:
            short = Label()
            self.step(added, room, short)
            s.go_to(pc, checked=True)
            s.e.place(short)
            s.e.pop()
        self.add_to_count(added)
        check = self.room_test(room)
        s.go_to(pc, lambda label: s.e.jump_if(label, False), checked=True)
        self.refill(check, lambda: self.leave_before(block))

    def step(self, added: int, room: int, short: Label) -> None:
        """`n += added` where `n` then has `room` (step_table); else on to `short`, with
        None on the stack and `n` as it was."""
        e = self.state.e
        e.const(step_table(added, room, self.bound))
        e.load("n")
        e.subscript()
        e.dup()
        e.jump_if_none(short)
        e.store("n")

    @cached_property
    def tabled(self) -> bool:
        """Are the region's counts and checks table steps? Where the Python runs them for
        fewer machine instructions, and the tables stay small (STEP_TABLE_BOUND)."""
        return TABLED_BUDGET_STEPS and self.bound <= STEP_TABLE_BOUND

    @cached_property
    def bound(self) -> int:
        """More than `n` ever holds: it starts at a grant at most, and a refill adds a
        grant at most to an `n` short of a room."""
        s = self.state
        rooms = [*s.facts.budget.checks.values(), *s.facts.budget.entry_rooms.values()]
        return self.grant + max(rooms, default=0) + 1

    def room_after_count(self, block: Block) -> int:
        """What `n` must cover at a loop head, its count (and its chain's) taken already."""
        return self.state.facts.budget.checks[block.start] + self.counted(block)

    def room_test(self, room: int) -> Label:
        """Push `n < room`, from a label placed here (returned: the refill checks again there)."""
        e, check = self.state.e, Label()
        e.place(check)
        e.load("n")
        e.const(room)
        e.compare(Compare.LT)
        return check

    def check_budget(self, room: int, out_of_budget: Callable[[], None]) -> None:
        """On if `n` has `room`; else, out of line, more of the budget granted (refill) and
        checked again, or `out_of_budget` once none is left."""
        s = self.state
        check, short = self.room_test(room), Label()
        s.e.jump_if_true(short)

        def refill() -> None:
            self.refill(check, out_of_budget)

        s.slow_path(short, refill)

    def refill(self, check: Label, out_of_budget: Callable[[], None]) -> None:
        """Grant the next instructions of the budget (a grant, or what is left) to `n` and
        `granted`, and check again; none left: `out_of_budget`."""
        e, spent = self.state.e, Label()
        e.extend(_LEFT)
        self.at_most_a_grant()
        e.dup()
        e.jump_if_false(spent, is_bool=False)
        e.extend(_GRANTED)
        e.jump(check)
        e.place(spent)
        e.pop()
        out_of_budget()

    @cached_property
    def grant(self) -> int:
        """How much of the budget `n` is granted at a time: what keeps it a small int
        (CPython caches those up to 256; any other result of `n -= k` is a new object,
        some 10% of an OS call's time) after the largest room is checked, or MIN_GRANT."""
        s = self.state
        rooms = [*s.facts.budget.checks.values(), *s.facts.budget.entry_rooms.values()]
        return max(SMALL_INTS - max(rooms, default=0), MIN_GRANT)

    def at_most_a_grant(self) -> None:
        """The number on the stack, or a grant if that is less."""
        e, within = self.state.e, Label()
        more_than_a_grant, a_grant = self.grant_parts
        e.extend(more_than_a_grant)
        e.jump_if_false(within)
        e.extend(a_grant)
        e.place(within)

    @cached_property
    def grant_parts(self) -> tuple[tuple[Item, ...], tuple[Item, ...]]:
        """The straight-line parts of at_most_a_grant (every refill's), made once a region:
        is the number on the stack more than a grant; a grant instead."""
        return (
            recorded(("dup",), ("const", self.grant), ("compare", Compare.GT)),
            recorded(("pop",), ("const", self.grant)),
        )

    def leave_before(self, block: Block) -> None:
        """Out of budget: leave at the block's start, its count given back."""
        s = self.state
        s.e.const(block.start)
        s.leave(block.length + s.facts.ahead[block.start])
