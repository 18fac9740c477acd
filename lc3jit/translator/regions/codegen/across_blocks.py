"""What a region compiler keeps across its blocks, and the ways between them and out.

Every register the region names is a local from entry to exit; a jump between blocks
carries the bounds of those locals, where the codes are, and which registers are not
written back yet (known.dirty_at_entry says which may be, at each block); every way out
goes through one shared exit that writes back what changed and the count. Slow paths
are placed out of line, after the blocks emitted so far (near them: short jumps), and
leave, so the fast path needs no jump over them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lc3jit.translator.blocks import Block
from lc3jit.translator.codegen.bounds import FULL, LOOSE
from lc3jit.translator.codegen.dataflow import ALL_REGISTERS, REGISTER_ONLY
from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Emitter, Label
from lc3jit.translator.codegen.state import LOCALS, BlockState, load_registers
from lc3jit.translator.regions.analyses import RegionFacts
from lc3jit.translator.regions.codegen.os_calls import SP
from lc3jit.translator.regions.graph import RegionGraph
from lc3jit.translator.regions.known import CODES, dirty_at_entry, supervised
from lc3jit.translator.regions.return_order import loops_first
from lc3jit.translator.regions.select import NO_HINTS, Hints
from lc3jit_runtime import contract
from lc3jit_runtime.dispatch import INTERPRET_AT
from lc3jit_runtime.isa import WORD_MASK

#: Where a slow path was left for later: block, instruction index, line, the register
#: standing for the codes, the bounds of the registers' locals, the registers (and CODES)
#: not written back since they changed.
Where = tuple[Block, int, int, int | None, dict[int, tuple[int, int]], frozenset[int]]


class FactsDisagreeError(Exception):
    """What emission met contradicts a fact the analyses gave: a way into a block that
    known.dirty_at_entry or graph.ways_in missed. A compiler bug, never the program's: the
    region is refused (engine.translate_region) and its code runs on the interpreter."""


class AcrossBlocks(BlockState):
    """A region's state across its blocks, the jumps between them and its way out: the
    value the region compiler's parts share."""

    def __init__(
        self,
        graph: RegionGraph,
        facts: RegionFacts,
        edition: int,
        access_control: bool = False,
        hints: Hints = NO_HINTS,
    ) -> None:
        root = graph.root
        super().__init__(root, edition, access_control)
        self.graph, self.facts, self.hints = graph, facts, hints
        self.e = Emitter(f"region_x{root.start:04X}", root.start)
        self.labels = {b.start: Label() for b in graph.blocks}
        self.order = {b.start: index for index, b in enumerate(graph.blocks)}  # as laid out
        self.before: dict[int, bool] = {}  # start -> ways_in_before(start)
        self.written = set(facts.written)
        #: for each block ending in RET or RTI, its return points in the order compared
        self.returns = loops_first(graph)
        #: The registers the region names, loaded at entry: R6 too where an OS call may be inlined.
        self.used = facts.used | ({SP} if access_control else set())
        self.cc_local = True  # `cc` is loaded at entry: one local for the whole region
        #: Slow paths not yet emitted, with where they were (see `slow_path`).
        self.cold: list[tuple[Label, Where, Callable[[], None]]] = []
        #: start -> the bounds of the registers, and the register standing for the codes,
        #: on each jump there emitted so far
        self.arriving: dict[int, list[tuple[dict[int, tuple[int, int]], int | None]]] = {
            b.start: [] for b in graph.blocks
        }
        self.way_out = Label()
        #: for each loop head, the label past its count and budget check (checks_on_the_way)
        self.checked = {start: Label() for start in facts.budget.checks}
        #: for blocks jumped to past their own count (Budget.go_counted), the label there
        self.counted: dict[int, Label] = {}
        self.emitted: set[int] = set()  # the blocks emitted so far
        self.current = root
        self.tables: set[str] = set()  # of TABLES, those the code indexes
        self.unwrapped_out: set[int] = set()  # registers some way to `way_out` may leave unwrapped
        self.dirty_in = dirty_at_entry(graph, edition, access_control)
        self.dirty: set[int] = set()  # registers (and CODES) whose locals may differ from R here
        self.supervised = supervised(graph, access_control)

    def current_block(self) -> Block:
        return self.current

    # Registers: every register the region names is a local from entry to exit.
    def reg(self, r: int) -> str:
        return LOCALS[r]

    def push_reg(self, r: int) -> None:
        """`reg`'s local, without the call to it: the commonest instruction written."""
        self.e.load(LOCALS[r])

    def push_table(self, name: str) -> None:
        """A fast local, loaded at entry (only those the region uses): cheaper than a
        global in a loop."""
        self.tables.add(name)
        self.e.load(name)

    def set_reg(self, r: int, sets_cc: bool) -> None:
        super().set_reg(r, sets_cc)
        self.dirty.add(r)
        if sets_cc:
            self.dirty.add(CODES)

    def write_back(self) -> None:
        """Only what changed since R and the machine were last in step (known.dirty_at_entry):
        the rest are there already."""
        self.write_registers(self.written & self.dirty, CODES in self.dirty)

    def reload(self, changed: Iterable[int] = ALL_REGISTERS) -> None:
        """Registers and codes from the machine: at entry, and after a helper that may
        change them (contract.CHANGED: a host GETC, TRAP and RTI entering and leaving the
        supervisor). The registers it leaves alone keep their locals, as words, as if
        read again: the ways on assume words after a helper."""
        e = self.e
        kept = self.used - set(changed)
        for r in sorted(kept):
            if not self.is_word(r):
                self.wrap_register(r)
        load_registers(e, self.used - kept)
        e.global_(contract.MACHINE)
        e.load_attr(contract.CODES)
        e.store("cc")
        self.cc_alias = None
        self.ranges = {r: bounds for r, bounds in self.ranges.items() if r in kept}

    def count(self, pending: int) -> None:
        """N[0] = instructions run so far, less `pending` of the current block."""
        e = self.e
        e.load("granted")
        e.load("n")
        e.binary(BinaryOp.SUBTRACT)
        if pending:
            e.const(pending)
            e.binary(BinaryOp.SUBTRACT)
        e.global_(contract.REGION_COUNT)
        e.const(0)
        e.store_subscript()

    def sync(self) -> None:
        self.write_back()
        self.count(self.unpaid())

    def leave(self, pending: int) -> None:
        """Go to the shared way out with (next PC on the stack, instructions not run). The
        registers whose locals may not hold words here are wrapped there, with those of
        every other way out (one `&` each: less code than a wrap on every way)."""
        self.settle_cc()
        out, written = self.unwrapped_out, self.written
        for r, (lo, hi) in self.ranges.items():  # a register with no bounds holds a word
            if (lo < 0 or hi > WORD_MASK) and r in written:
                out.add(r)
        self.e.const(pending)
        self.e.jump(self.way_out)

    def bail(self, at: int) -> None:
        """Leave before the instruction at `at`, for the dispatcher to interpret it.

        Device registers, stores into code and unwrapped addresses are rare: sending
        them to the interpreter keeps each region's code small.
        """
        self.e.const(at | INTERPRET_AT)
        self.leave(self.unpaid())

    def unpaid(self) -> int:
        """Instructions counted but not run, at the current instruction (not yet run)."""
        return self.current.length - self.index + self.facts.ahead[self.current.start]

    def slow_path(self, slow: Label, emit: Callable[[], None]) -> None:
        """Out of line, after every block: a slow path here leaves, so the fast path needs
        no jump over it."""
        where = (
            self.current,
            self.index,
            self.e.line,
            self.cc_alias,
            dict(self.ranges),
            frozenset(self.dirty),
        )
        self.cold.append((slow, where, emit))

    def emit_cold(self) -> None:
        """The slow paths of the blocks emitted so far, near them (short jumps)."""
        e = self.e
        for slow, (block, index, line, alias, ranges, dirty), emit in self.cold:
            self.current, self.index, e.line, self.cc_alias, self.ranges = block, index, line, alias, ranges
            self.dirty = set(dirty)
            e.place(slow)
            emit()
        self.cold = []

    def jump_if_top_is(self, pc: int) -> None:
        """If the PC on the stack is pc (a block of the region), pop it and go there."""
        e, other = self.e, Label()
        e.dup()
        e.const(pc)
        e.compare(Compare.EQ)
        e.jump_if_false(other)
        e.pop()
        self.go_to(pc)
        e.place(other)

    def go_to(
        self,
        pc: int,
        jump: Callable[[Label], None] | None = None,
        checked: bool = False,
        counted: bool = False,
    ) -> None:
        """Jump (with `jump`, conditionally) to the region's block at pc (`checked`: past
        its count and budget check, done on the way; `counted`: past its count only),
        telling it the bounds of the registers' locals on this way in."""
        if not self.dirty <= self.dirty_in[pc]:  # known.dirty_at_entry missed a way in
            raise FactsDisagreeError(f"block x{pc:04X} entered with {sorted(self.dirty)} not written back")
        self.arriving[pc].append((dict(self.ranges), self.cc_alias))
        label = self.checked[pc] if checked else self.counted[pc] if counted else self.labels[pc]
        (jump or self.e.jump)(label)

    def past_count(self, pc: int) -> bool:
        """Can a jump to the block at pc go past its own count (counting it on the way)?
        Where the block counts itself (no chain before it pays for it), and the label past
        its count is placed there when the block is emitted, or was for an earlier jump."""
        if pc in self.facts.paid_by:
            return False
        if pc in self.emitted:
            return pc in self.counted  # placed there, for a jump before it
        self.counted.setdefault(pc, Label())
        return True

    def entry_ranges(self, block: Block) -> dict[int, tuple[int, int]]:
        """The bounds of the registers where the block starts: what every way in told it
        (see go_to), when all of them were emitted before it and none is entered from the
        dispatcher; otherwise words, but for the registers that may hold sums not wrapped."""
        start = block.start
        if not (self.arriving[start] and self.ways_in_before(start)):
            return {r: (-LOOSE + 1, LOOSE - 1) for r in self.facts.unwrapped[start]}
        first, *others = [ranges for ranges, _ in self.arriving[start]]
        if not others:  # one way in (most blocks): what it told
            return {r: bounds for r, bounds in first.items() if bounds != FULL}
        joined = {}
        # Plain loops and compares, not min and max, over the registers some way bounds (a
        # word on all the others): this runs for every block of every region.
        for r in sorted(set(first).union(*others)):
            lo, hi = first.get(r, FULL)
            for way in others:
                way_lo, way_hi = way.get(r, FULL)
                if way_lo < lo:
                    lo = way_lo
                if way_hi > hi:
                    hi = way_hi
            if (lo, hi) != FULL:
                joined[r] = (lo, hi)
        return joined

    def entry_alias(self, block: Block) -> int | None:
        """A block with one way in starts with the codes where that way left them: in a
        register (a compare's difference, maybe unwrapped) rather than copied to `cc`."""
        if not self.one_way_in(block.start):
            return None
        aliases = {alias for _, alias in self.arriving[block.start]}
        if len(aliases) != 1:  # the one way in, emitted before, told where its codes are
            raise FactsDisagreeError(f"block x{block.start:04X} entered {len(aliases)} ways, not one")
        return aliases.pop()

    def one_way_in(self, start: int) -> bool:
        return len(self.graph.ways_in[start]) == 1 and self.ways_in_before(start)

    def ways_in_before(self, start: int) -> bool:
        """Is every way into the block at start emitted (or, out of line, announced) before
        it, and is it never entered from the dispatcher? (Asked for every block and every
        jump to one: worked out once each.)"""
        found = self.before.get(start)
        if found is None:
            order = self.order
            found = self.before[start] = start not in self.facts.entries and all(
                order[p] < order[start] for p in self.graph.ways_in[start]
            )
        return found

    def codes_seen_at(self, pc: int, checked: bool = False) -> bool:
        """Must the codes be in `cc` where the region's block at pc starts (`checked`: past
        its budget check, done on the way there)? Not if its first instruction sets them and
        it checks no budget there (whose way out keeps them), nor if it has one way in,
        which tells it where they are (entry_alias)."""
        first = self.graph.by_start[pc].instructions[0]
        sets_first = first.form.name in REGISTER_ONLY and first.sets_cc(self.edition)
        if (pc in self.facts.budget.checks and not checked) or self.access_control:
            return True
        return not sets_first and not self.one_way_in(pc)

    def checks_on_the_way(self, pc: int) -> bool:
        """Going back to a loop head at pc (laid out before, or the block itself: the loop
        runs this way each time, not the way into it): count it and check the budget on
        the way, then jump past its own count and check? Where the chain's count would be
        given back first (one `n -= k` instead of two), or where the codes would be copied
        to `cc` only for the check's way out (that way out copies them on its own path)."""
        if pc not in self.facts.budget.checks or self.order[pc] > self.order[self.current.start]:
            return False
        return self.off_chain(pc) or (self.cc_alias is not None and not self.codes_seen_at(pc, True))

    def off_chain(self, pc: int) -> bool:
        """Does going to pc leave blocks the current block's count paid for unrun?"""
        return self.facts.paid_by.get(pc) != self.current.start and self.facts.ahead[self.current.start] > 0

    def given_back(self, pc: int) -> int:
        """Going to pc: the count of the chain not run (off_chain), or none."""
        return self.facts.ahead[self.current.start] if self.off_chain(pc) else 0
