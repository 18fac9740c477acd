"""Region translation: a loop nest or a subroutine, many blocks in ONE code object.

A region is grown from a root block (the start PC, a call target, a return point, or
a PC found hot at run time) along the edges known at translation time: taken and
fall-through branches, JSR into a subroutine and the return point after it. Inside
it, registers stay in fast locals for the whole region, blocks jump to each other
directly (back edges included, which Python source cannot express), the condition
codes stay lazy across blocks, a RET is compared against the return points of the
calls to its subroutine, and a host TRAP that comes back to the next word goes on
inside. Only the exits — indirect jumps not predicted, targets outside, RTI, faults —
go back to the dispatcher. Blocks are laid out so that the branch not taken runs
straight on, and slow paths sit out of line after them.

The dispatcher calls a region with the instruction budget it may use. A block subtracts
its length on entry — with the lengths of the blocks that only it leads straight into,
given back by a branch off that chain — and a block that heads a loop leaves at its own
start, its count given back, when the budget cannot cover the longest way to the next
check; an entry that heads no loop checks the same as the dispatcher enters there.
Every way out stores the number of instructions run in `N[0]`, before any helper that
may stop the machine too, so counts stay exact.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from types import CodeType

from lc3jit.translator.blocks import Block, Exit, Kind, Successor, find_blocks
from lc3jit.translator.codegen import (
    ALL_REGISTERS,
    EMPTY,
    FULL,
    LOOSE,
    REGISTER_ONLY,
    BlockCompiler,
    load_registers,
    make_function,
    register_reads,
    register_writes,
)
from lc3jit.translator.emitter import ENDS, BinaryOp, Compare, Emitter, Instr, Label
from lc3jit.translator.jump_tables import guess_targets
from lc3jit.translator.translate import BlockTranslator, Region, entry_points
from lc3jit_runtime import contract
from lc3jit_runtime.dispatch import INTERPRET_AT, Dispatcher, Translation
from lc3jit_runtime.isa import REGISTER_FIELDS, Instruction
from lc3jit_runtime.machine import Machine

#: Code objects by the words, entries and options they were compiled from, shared by every
#: engine in the process once a caller that translates the same program again and again
#: turns it on (the pytest plugin: a fresh Simulator per test). Off by default, so that
#: translation times (bench, --stats) stay true.
shared_code: dict[tuple[object, ...], CodeType] | None = None

#: Blocks in one region at most, nearest to the root first.
MAX_REGION_BLOCKS = 160
#: A callee is copied into its callers' regions when it has at most this many blocks.
INLINE_BLOCKS = 12

#: Successor kinds that stay in the function: targets known now, calls excepted.
LOCAL = frozenset({Kind.TAKEN, Kind.FALLTHROUGH, Kind.RETURN})
#: Blocks that end where a later block's count can be paid in advance.
STRAIGHT_EXITS = frozenset({Exit.FALLTHROUGH, Exit.LIMIT, Exit.BRANCH})


#: Where a slow path was left for later: block, instruction index, line, the register
#: standing for the codes, the bounds of the registers' locals.
Where = tuple[Block, int, int, int | None, dict[int, tuple[int, int]]]

#: Targets a JMP or JSRR (by its address) was seen leaving a region for, at run time.
Hints = Mapping[int, Sequence[int]]
NO_HINTS: Hints = {}
#: Every HINT_AFTER-th exit of a JMP or JSRR from its region tells the translator its
#: target (a sample); every SAMPLES-th sample, the targets sampled often enough are learnt
#: and the regions holding the site translated again with their code inside, reached by
#: a compare. A site learns at most MAX_HINTS targets.
HINT_AFTER = 64
SAMPLES = 4
MAX_HINTS = 4
#: What an exit through the dispatcher and back costs, about (seconds); learning targets
#: is worth it when a site's exits took this share of the run or more.
EXIT_SECONDS = 5e-7
WORTH_LEARNING = 0.1


def hinted_site(block: Block) -> bool:
    """Does the block end in a jump through a register that hints may predict (JMP, JSRR)?
    RET is left out: it is matched against the return points of its calls."""
    return block.exit is Exit.JUMP or (block.exit is Exit.CALL and block.last.form.name == "JSRR")


def guessed(machine: Machine, blocks: Mapping[int, Block], known: Hints) -> dict[int, list[int]]:
    """Targets guessed from the jump tables the code points at (jump_tables) for the blocks'
    JMP and JSRR sites that know none yet."""
    sites = [b for b in blocks.values() if hinted_site(b) and b.end not in known]
    return guess_targets(machine.mem, sites, blocks, machine.labels, MAX_HINTS)


def successors_of(block: Block, hints: Hints) -> tuple[Successor, ...]:
    """The block's successors, with the targets its JMP or JSRR was seen going to: a
    JSRR's are calls, a JMP's are jumps inside the function."""
    seen = hints.get(block.end, ()) if hinted_site(block) else ()
    if not seen:
        return block.successors
    kind = Kind.CALL if block.exit is Exit.CALL else Kind.TAKEN
    known = tuple(s for s in block.successors if s.address is not None)
    return known + tuple(Successor(kind, target) for target in seen)


def _reach(
    blocks: Mapping[int, Block], root: int, follow_call: Callable[[int], bool], hints: Hints = NO_HINTS
) -> list[int]:
    """Block starts reachable from root, breadth first, calls followed where allowed."""
    order, seen = [root], {root}
    for start in order:
        for successor in successors_of(blocks[start], hints):
            target = successor.address
            if target not in blocks or target in seen:
                continue
            if successor.kind in LOCAL or (successor.kind is Kind.CALL and follow_call(target)):
                if len(order) == MAX_REGION_BLOCKS:
                    return order
                seen.add(target)
                order.append(target)
    return order


def region_blocks(blocks: Mapping[int, Block], root: int, hints: Hints = NO_HINTS) -> list[Block]:
    """The function at root: its own blocks, and the blocks of the small subroutines it calls
    (with JSR, or with JSRR to a target it was seen calling).

    Copying a small callee in makes its call and RET direct jumps; a large one stays a
    region of its own, entered through the dispatcher.
    """
    small: dict[int, bool] = {}

    def is_small(callee: int) -> bool:
        if callee not in small:
            small[callee] = len(_reach(blocks, callee, lambda _: False)) <= INLINE_BLOCKS
        return small[callee]

    return layout([blocks[s] for s in _reach(blocks, root, is_small, hints)])


def layout(region: list[Block]) -> list[Block]:
    """The order to emit a region's blocks in: each block's straight-on successor (the
    branch not taken, or the only place it goes) right after it where it is still free,
    so that the hot path runs on without a jump. The root stays first."""
    by_start = {b.start: b for b in region}
    order: list[Block] = []
    placed: set[int] = set()
    for block in region:
        next_block: Block | None = block
        while next_block is not None and next_block.start not in placed:
            placed.add(next_block.start)
            order.append(next_block)
            next_block = by_start.get(straight_on(next_block, by_start))
    return order


def straight_on(block: Block, inside: Container[int]) -> int | None:
    targets = [s for s in block.successors if s.address in inside and s.kind in LOCAL | {Kind.CALL}]
    for successor in targets:
        if successor.kind is Kind.FALLTHROUGH:
            return successor.address
    return targets[0].address if len(targets) == 1 else None


def return_points(region: list[Block], hints: Hints = NO_HINTS) -> dict[int, list[int]]:
    """For each block of the region that ends in RET: the words after the region's calls
    (JSR, and JSRR to the targets it was seen calling) to a subroutine whose body holds
    that block. A subroutine's calls to itself come first: in a recursion they are the
    ones that return most."""
    by_start = {b.start: b for b in region}
    calls: dict[int, list[Block]] = {}  # callee -> the blocks that call it
    for b in region:
        if b.exit is Exit.CALL and b.last.next_pc in by_start:
            for successor in successors_of(b, hints):
                if successor.kind is Kind.CALL:
                    calls.setdefault(successor.address, []).append(b)  # type: ignore[arg-type]
    returns: dict[int, list[int]] = {}
    for callee, callers in calls.items():
        if callee not in by_start:
            continue
        body = set(_reach(by_start, callee, lambda _: False))
        points = [c.last.next_pc for c in sorted(callers, key=lambda c: c.start not in body)]
        for start in body:
            if by_start[start].exit is Exit.RETURN:
                returns[start] = list(dict.fromkeys(returns.get(start, []) + points))
    return returns


def region_entries(region: list[Block]) -> list[int]:
    """Where the dispatcher may enter: the root, and the return points of calls that leave."""
    starts = {b.start for b in region}
    points = [b.last.next_pc for b in region if b.exit is Exit.CALL and b.last.next_pc in starts]
    return [region[0].start, *dict.fromkeys(p for p in points if p != region[0].start)]


class RegionCompiler(BlockCompiler):
    """Compiles blocks rooted at the first one into a function(budget) -> next PC."""

    SLOW_PATHS_LEAVE = True

    def __init__(
        self,
        blocks: list[Block],
        entries: list[int],
        edition: int,
        access_control: bool = False,
        hints: Hints = NO_HINTS,
    ) -> None:
        super().__init__(blocks[0], edition, access_control)
        self.hints = hints
        self.e = Emitter(f"region_x{blocks[0].start:04X}", blocks[0].start)
        self.blocks = blocks
        self.entries = entries
        self.labels = {b.start: Label() for b in blocks}
        self.by_start = {b.start: b for b in blocks}
        instructions = [ins for b in blocks for ins in b.instructions]
        self.used = {r for ins in instructions for f in REGISTER_FIELDS if (r := getattr(ins, f)) is not None}
        calls = [b for b in blocks if b.exit is Exit.CALL]
        if calls:
            self.used.add(7)
        self.written = {ins.dr for ins in instructions if ins.dr is not None} | ({7} if calls else set())
        self.returns = return_points(blocks, hints)  # RET block start -> where it may return
        self.cc_local = True  # `cc` is loaded at entry: one local for the whole region
        #: Slow paths not yet emitted, with where they were (see `slow_path`).
        self.cold: list[tuple[Label, Where, Callable[[], None]]] = []
        inside = self.labels.keys()
        self.edges = {  # start -> the blocks of the region control may go to next
            b.start: [s.address for s in successors_of(b, hints) if s.address in inside]
            + self.returns.get(b.start, [])
            for b in blocks
        }
        self.ways_in: dict[int, list[int]] = {b.start: [] for b in blocks}  # start -> blocks going there
        for start, targets in self.edges.items():
            for target in targets:
                self.ways_in[target].append(start)
        for b in blocks:  # a TRAP goes on inside when its routine comes back (see exit_through)
            if (
                b.exit is Exit.TRAP
                and b.last.next_pc in self.labels
                and b.last.next_pc not in self.edges[b.start]
            ):
                self.ways_in[b.last.next_pc].append(b.start)
        self.checks, self.entry_rooms = self.budget_checks()  # start -> room checked for there
        # Out of budget, the region leaves at a block that checks (a loop head): entered
        # there again, it runs on in this code, not in a region translated from there.
        self.entries = [*entries, *sorted(self.checks.keys() - set(entries))]
        self.paid_by = self.prepaid()  # block start -> the block that counts it
        self.ahead = self.chains()  # block start -> instructions after it that its count paid
        self.writes = {  # block start -> registers whose locals it sets
            b.start: set().union(*(register_writes(ins) for ins in b.instructions)) for b in blocks
        }
        self.live = self.live_registers()  # block start -> registers it may read before writing
        self.order = {b.start: index for index, b in enumerate(blocks)}  # as laid out
        #: start -> the bounds of the registers, and the register standing for the codes,
        #: on each jump there emitted so far
        self.arriving: dict[int, list[tuple[dict[int, tuple[int, int]], int | None]]] = {
            b.start: [] for b in blocks
        }
        self.unwrapped = self.unwrapped_registers()  # block start -> registers maybe not words there
        self.way_out = Label()
        self.current = blocks[0]
        self.tables: set[str] = set()  # of TABLES, those the code indexes
        self.unwrapped_out: set[int] = set()  # registers some way to `way_out` may leave unwrapped

    # Registers: every register the region names is a local from entry to exit.
    def reg(self, r: int) -> str:
        return f"r{r}"

    def push_table(self, name: str) -> None:
        """A fast local, loaded at entry (only those the region uses): cheaper than a
        global in a loop."""
        self.tables.add(name)
        self.e.load(name)

    def reload(self) -> None:
        """Registers and codes from the machine: at entry, and after a host routine."""
        e = self.e
        load_registers(e, self.used)
        e.global_(contract.MACHINE)
        e.load_attr(contract.CODES)
        e.store("cc")
        self.cc_alias = None
        self.ranges = {}

    def count(self, pending: int) -> None:
        """N[0] = instructions run so far, less `pending` of the current block."""
        e = self.e
        e.load("budget")
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
        self.unwrapped_out |= {r for r in self.written if not self.is_word(r)}
        self.e.const(pending)
        self.e.jump(self.way_out)

    def bail(self, at: int) -> None:
        """Leave before the instruction at `at`, for the dispatcher to interpret it.

        Device registers, stores into code and unwrapped addresses are rare: sending
        them to the interpreter keeps each region's code small.
        """
        self.e.const(at | INTERPRET_AT)
        self.leave(self.unpaid())

    def slow_path(self, slow: Label, emit: Callable[[], None]) -> None:
        """Out of line, after every block: a slow path here leaves, so the fast path needs
        no jump over it."""
        where = (self.current, self.index, self.e.line, self.cc_alias, dict(self.ranges))
        self.cold.append((slow, where, emit))

    def slow_load(self, push_address: Callable[[], None], at: int) -> None:
        self.bail(at)

    def slow_store(self, push_address: Callable[[], None], push_value: Callable[[], None], at: int) -> None:
        self.bail(at)

    # Exits: inside the region they become jumps.
    def exit_to(self, pc: int) -> None:
        if pc in self.labels:
            if self.codes_seen_at(pc):
                self.settle_cc()
            self.refund(pc)
            self.go_to(pc)
        else:
            self.e.const(pc)
            self.leave(self.ahead[self.current.start])
        self.exited = True

    def exit_if(
        self, pc: int, when: bool = True, is_bool: bool = True, facts: Mapping[int, tuple[int, int]] = EMPTY
    ) -> None:
        if pc not in self.labels:
            super().exit_if(pc, when, is_bool)
            return
        ranges = self.ranges
        self.ranges = {**ranges, **facts}  # on the way there
        self.jump_inside_if(pc, when, is_bool)
        self.ranges = ranges

    def jump_inside_if(self, pc: int, when: bool, is_bool: bool) -> None:
        if self.off_chain(pc):  # the refund (and the codes) out of line
            refund = Label()
            self.e.jump_if(refund, when, is_bool)
            alias = None if self.codes_seen_at(pc) else self.cc_alias  # as exit_to will leave it
            self.arriving[pc].append((dict(self.ranges), alias))  # what the way out of line tells
            self.slow_path(refund, lambda: self.exit_to(pc))
        else:
            if self.codes_seen_at(pc):
                self.settle_cc()
            self.go_to(pc, lambda label: self.e.jump_if(label, when, is_bool))

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

    def predicted(self, ins: Instruction) -> list[int]:
        """Where a jump through a register may go inside the region: a RET to the return
        points of the calls to its subroutine, a JMP or JSRR to the targets it was seen
        (or guessed) going to."""
        hinted = self.hints.get(ins.address, ()) if hinted_site(self.current) else ()
        return self.returns.get(self.current.start, []) + [t for t in hinted if t in self.labels]

    def exit_with_top(self, ins: Instruction) -> None:
        """Compared with the targets predicted, the rest leave (JSRR: its target is on the
        stack, read before R7 changed). A JMP or JSRR that may still learn a target tells
        the translator where it went (see HINT_AFTER)."""
        self.settle_cc()
        for target in self.predicted(ins):
            self.jump_if_top_is(target)
        self.leave_through(ins)

    def exit_to_register(self, ins: Instruction) -> None:
        """JMP and RET: the register itself is compared with the targets predicted, with
        nothing on the stack to copy and drop for each."""
        e, local = self.e, self.reg(ins.baser)
        self.settle_cc()
        for target in self.predicted(ins):
            e.load(local)
            e.const(target)
            e.compare(Compare.EQ)
            self.go_to(target, e.jump_if_true)
        self.push_reg(ins.baser)
        self.leave_through(ins)

    def leave_through(self, ins: Instruction) -> None:
        """Leave for the target on the stack, counted if the site may still learn."""
        if hinted_site(self.current) and len(self.hints.get(ins.address, ())) < MAX_HINTS:
            self.count_exit(ins.address)
        self.leave(0)
        self.exited = True

    def count_exit(self, site: int) -> None:
        """EXITS[site] += 1, and every HINT_AFTER-th time, tell the translator where the
        jump (its target on the stack) went: a sample, for a few bytecodes an exit."""
        e, skip = self.e, Label()
        e.global_(contract.EXIT_COUNTS)
        e.const(site)
        e.subscript()
        e.const(1)
        e.binary(BinaryOp.ADD)
        e.dup()
        e.global_(contract.EXIT_COUNTS)
        e.const(site)
        e.store_subscript()
        e.const(HINT_AFTER - 1)
        e.binary(BinaryOp.AND)
        e.jump_if_true(skip, is_bool=False)
        e.dup()
        e.store("target")
        self.call(contract.INDIRECT, site, "target")
        e.pop()
        e.place(skip)

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        """A TRAP that comes back to the next word goes on inside the region."""
        e = self.e
        self.sync()
        self.call(helper, *args)
        following = self.current.last.next_pc
        if helper is contract.TRAP and following in self.labels:
            self.reload()
            self.jump_if_top_is(following)
        self.count(self.ahead[self.current.start])
        e.return_top()
        self.exited = True

    def budget_checks(self) -> tuple[dict[int, int], dict[int, int]]:
        """The blocks that check the budget, each with the most instructions that can run
        from its start before the next check or a way out; and the same room for the
        entries that do not head a loop, which is checked as the dispatcher enters there,
        not each time the region's own code comes by (a return point, say).

        Every loop has a check (the targets of the back edges of a depth-first walk from
        the entries cut every cycle), so the other blocks only count: a block that checks
        for room for the longest path ahead never lets the count pass the budget.
        """
        edges = self.edges
        checks: set[int] = set()
        state: dict[int, bool] = {}  # start -> still on the walk's path
        for entry in self.entries:
            stack = [(entry, iter(edges[entry]))]
            state.setdefault(entry, True)
            while stack:
                start, successors = stack[-1]
                for target in successors:
                    if state.get(target):
                        checks.add(target)  # a back edge: target heads a loop
                    elif target not in state:
                        state[target] = True
                        stack.append((target, iter(edges[target])))
                        break
                else:
                    state[start] = False
                    stack.pop()
        lengths = {b.start: b.length for b in self.blocks}
        longest: dict[int, int] = {}

        def longest_from(start: int) -> int:  # the graph without the checks is acyclic
            if start not in longest:
                rest = [longest_from(t) for t in edges[start] if t not in checks]
                longest[start] = lengths[start] + max(rest, default=0)
            return longest[start]

        def room(start: int) -> int:
            return lengths[start] + max((longest_from(t) for t in edges[start] if t not in checks), default=0)

        return {start: room(start) for start in checks}, {
            entry: room(entry) for entry in self.entries if entry not in checks
        }

    def prepaid(self) -> dict[int, int]:
        """The blocks whose count their predecessor adds to its own: each has that one
        predecessor, which runs straight on into it after a branch or a plain end, and
        neither checks the budget nor is an entry. One count then serves a chain of
        blocks; a branch off the chain gives back what it did not run."""
        into = self.ways_in
        paid = {}
        for block in self.blocks:
            if block.start in self.checks or block.start in self.entries or len(into[block.start]) != 1:
                continue
            before = self.by_start[into[block.start][0]]
            if before.exit in STRAIGHT_EXITS and straight_on(before, self.by_start) == block.start:
                paid[block.start] = before.start
        return paid

    def chains(self) -> dict[int, int]:
        """For each block, the instructions of the blocks after it that its count paid for."""
        paid = {payer: start for start, payer in self.paid_by.items()}  # one each: straight on
        lengths = {b.start: b.length for b in self.blocks}
        ahead: dict[int, int] = {}

        def of(start: int) -> int:
            if start not in ahead:
                after = paid.get(start)
                ahead[start] = 0 if after is None else lengths[after] + of(after)
            return ahead[start]

        return {b.start: of(b.start) for b in self.blocks}

    def live_registers(self) -> dict[int, set[int]]:
        """For each block: the registers the region may read before writing them, from its
        start on (a way out is no read: it wraps what it writes back, see `leave`).

        A sum that sets a register dead after its block (a difference computed only for
        the branch that follows, the usual compare) then stays unwrapped: the branch
        tests it with a table, and nothing else reads it before it is written again.
        """
        reads: dict[int, set[int]] = {}
        for block in self.blocks:
            read, written = set(), set()
            for ins in block.instructions:
                read |= register_reads(ins) - written
                written |= register_writes(ins)
            reads[block.start] = read
        live = {start: set(read) for start, read in reads.items()}
        changed = True
        while changed:
            changed = False
            for block in reversed(self.blocks):
                after = set().union(*(live[t] for t in self.edges[block.start]))
                now = reads[block.start] | (after - self.writes[block.start])
                if now != live[block.start]:
                    live[block.start], changed = now, True
        return live

    def wanted_after(self, block: Block) -> set[int]:
        """The registers a block of the region goes on to read: their locals hold words."""
        return set().union(*(self.live[t] for t in self.edges[block.start]))

    def unwrapped_registers(self) -> dict[int, set[int]]:
        """For each block: the registers whose locals may hold sums not wrapped yet where it
        starts (dead there, see live_registers: only a way out reads them, and wraps)."""
        left: dict[int, set[int]] = {}  # block -> registers its own last write leaves unwrapped
        for block in self.blocks:
            last: dict[int, bool] = {}
            for ins, exact in zip(block.instructions, self.exact_results(block), strict=True):
                for r in register_writes(ins):
                    last[r] = exact or ins.form.name not in REGISTER_ONLY
            left[block.start] = {r for r, exact in last.items() if not exact}
        into: dict[int, set[int]] = {b.start: set() for b in self.blocks}
        changed = True
        while changed:
            changed = False
            for block in self.blocks:
                out = (into[block.start] - self.writes[block.start]) | left[block.start]
                for target in self.edges[block.start]:
                    if not out <= into[target]:
                        into[target] |= out
                        changed = True
        return into

    def go_to(self, pc: int, jump: Callable[[Label], None] | None = None) -> None:
        """Jump (with `jump`, conditionally) to the region's block at pc, telling it the
        bounds of the registers' locals on this way in."""
        self.arriving[pc].append((dict(self.ranges), self.cc_alias))
        (jump or self.e.jump)(self.labels[pc])

    def entry_ranges(self, block: Block) -> dict[int, tuple[int, int]]:
        """The bounds of the registers where the block starts: what every way in told it
        (see go_to), when all of them were emitted before it and none is entered from the
        dispatcher; otherwise words, but for the registers that may hold sums not wrapped."""
        start = block.start
        if not (self.arriving[start] and self.ways_in_before(start)):
            return {r: (-LOOSE + 1, LOOSE - 1) for r in self.unwrapped[start]}
        ways = [ranges for ranges, _ in self.arriving[start]]
        joined = {}
        for r in ALL_REGISTERS:
            bounds = [way.get(r, FULL) for way in ways]
            lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
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
            raise RuntimeError(f"block x{block.start:04X} entered {len(aliases)} ways, not one")
        return aliases.pop()

    def one_way_in(self, start: int) -> bool:
        return len(self.ways_in[start]) == 1 and self.ways_in_before(start)

    def ways_in_before(self, start: int) -> bool:
        """Is every way into the block at start emitted (or, out of line, announced) before
        it, and is it never entered from the dispatcher?"""
        return start not in self.entries and all(
            self.order[p] < self.order[start] for p in self.ways_in[start]
        )

    def unpaid(self) -> int:
        """Instructions counted but not run, at the current instruction (not yet run)."""
        return self.current.length - self.index + self.ahead[self.current.start]

    def codes_seen_at(self, pc: int) -> bool:
        """Must the codes be in `cc` where the region's block at pc starts? Not if it checks
        no budget (whose way out keeps them) and its first instruction sets them, nor if it
        has one way in, which tells it where they are (entry_alias)."""
        first = self.by_start[pc].instructions[0]
        sets_first = first.form.name in REGISTER_ONLY and first.sets_cc(self.edition)
        if pc in self.checks or self.access_control:
            return True
        return not sets_first and not self.one_way_in(pc)

    def off_chain(self, pc: int) -> bool:
        """Does going to pc leave blocks the current block's count paid for unrun?"""
        return self.paid_by.get(pc) != self.current.start and self.ahead[self.current.start] > 0

    def refund(self, pc: int) -> None:
        """Before going to pc off the chain: give back the count of the chain not run."""
        if self.off_chain(pc):
            self.e.load("n")
            self.e.const(self.ahead[self.current.start])
            self.e.binary(BinaryOp.ADD)
            self.e.store("n")

    def emit_region_block(self, block: Block, next_block: Block | None) -> None:
        """The block's label, its count, its budget check if it has one, its instructions;
        then the cold paths so far, if the block does not run on into the next one."""
        e = self.e
        # The codes are in `cc` here, unless the block sets them before anything sees them.
        self.current, self.index = block, 0
        self.ranges, self.cc_alias = self.entry_ranges(block), self.entry_alias(block)
        e.line = block.start
        e.place(self.labels[block.start])
        counted = block.length + self.ahead[block.start]
        if block.start not in self.paid_by:
            e.load("n")
            e.const(counted)
            e.binary(BinaryOp.SUBTRACT)
            e.store("n")
        if block.start in self.checks:  # counting first, then checking, is the cheaper order
            out_of_budget = Label()
            e.load("n")
            e.const(self.checks[block.start] - counted)
            e.compare(Compare.LT)
            e.jump_if_true(out_of_budget)
            self.slow_path(out_of_budget, lambda: self.leave_before(block))
        self.emit_block(block)
        last = e.code[-1]
        ends = isinstance(last, Instr) and last.name in ENDS
        if ends and (next_block is None or last.arg is not self.labels[next_block.start]):
            self.emit_cold()

    def check_entry(self, entry: int) -> None:
        """Entered at an entry that heads no loop: leave at once if the budget has no room
        for the longest way from there to a check."""
        e, room = self.e, Label()
        e.load("n")
        e.const(self.entry_rooms[entry])
        e.compare(Compare.LT)
        e.jump_if_false(room)
        e.const(entry)
        self.leave(0)
        e.place(room)

    def leave_before(self, block: Block) -> None:
        """Out of budget: leave at the block's start, its count given back."""
        self.e.const(block.start)
        self.leave(block.length + self.ahead[block.start])

    def emit_cold(self) -> None:
        """The slow paths of the blocks emitted so far, near them (short jumps)."""
        e = self.e
        for slow, (block, index, line, alias, ranges), emit in self.cold:
            self.current, self.index, e.line, self.cc_alias, self.ranges = block, index, line, alias, ranges
            e.place(slow)
            emit()
        self.cold = []

    def compile(self) -> CodeType:
        e = self.e
        self.reload()
        e.load("budget")
        e.store("n")
        for entry in self.entries[1:]:  # the root is the first block: no test for it
            e.load("entry")
            e.const(entry)
            e.compare(Compare.EQ)
            if entry in self.entry_rooms:
                other = Label()
                e.jump_if_false(other)
                self.check_entry(entry)
                e.jump(self.labels[entry])
                e.place(other)
            else:
                e.jump_if_true(self.labels[entry])
        if self.block.start in self.entry_rooms:
            self.check_entry(self.block.start)
        for block, next_block in zip(self.blocks, [*self.blocks[1:], None], strict=True):
            self.emit_region_block(block, next_block)
        self.emit_cold()
        e.line = self.block.start
        e.place(self.way_out)  # stack: next PC, instructions of the current block not run
        self.cc_alias = None  # every way here settled the codes
        self.ranges = {r: (-LOOSE + 1, LOOSE - 1) for r in self.unwrapped_out}
        e.load("budget")
        e.load("n")
        e.binary(BinaryOp.SUBTRACT)
        e.swap()
        e.binary(BinaryOp.SUBTRACT)
        e.global_(contract.REGION_COUNT)
        e.const(0)
        e.store_subscript()
        self.write_back()
        e.return_top()
        tables = Emitter("tables", self.block.start)
        for table in sorted(self.tables):
            tables.global_(table)
            tables.store(table)
        e.code[1:1] = tables.code[1:]  # after RESUME
        return e.to_code(("budget", "entry"))


class RegionTranslator(BlockTranslator):
    """Translates a region from a PC found hot at run time."""

    def __init__(
        self, edition: int, leaders: Container[int] = frozenset(), access_control: bool = False
    ) -> None:
        super().__init__(edition, leaders, access_control)
        self.hints: dict[int, list[int]] = {}  # JMP/JSRR address -> targets learnt (see HINT_AFTER)
        self.samples: dict[int, dict[int, int]] = {}  # JMP/JSRR address -> target -> samples
        self.sites: dict[int, set[int]] = {}  # JMP/JSRR address -> roots of the regions holding it

    def __call__(self, dispatcher: Dispatcher, pc: int) -> list[Translation]:
        stops = dispatcher.stops  # breakpoints: blocks end before them, and the region leaves there
        machine = dispatcher.machine
        targets = {target for seen in self.hints.values() for target in seen}
        found = find_blocks(machine.mem, [pc, *targets], stops)
        if guesses := guessed(machine, found, self.hints):
            self.hints.update(guesses)
            found = find_blocks(
                machine.mem, [pc, *targets, *(t for seen in guesses.values() for t in seen)], stops
            )
        blocks = {start: block for start, block in found.items() if start not in stops}
        if pc not in blocks:  # x0000 at pc: not followed statically; a plain block will do
            return super().__call__(dispatcher, pc)
        return self.translate_region(dispatcher, region_blocks(blocks, pc, self.hints))

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        """A region left through the JMP or JSRR at site for target (Dispatcher.left_through).

        Called every HINT_AFTER-th exit there, with the target of that one. Every
        SAMPLES-th sample, if the site's exits took a good share of the run so far (a
        JSRR to a long routine leaves rarely for the work done: translating again would
        not pay), it learns the targets not learnt yet that got an eighth of its samples
        or more (the most sampled first), and every region that holds the site is
        translated again, those targets' code inside, if the dispatcher has time to
        translate (see Dispatcher.translate).
        """
        seen = self.samples.setdefault(site, {})
        seen[target] = seen.get(target, 0) + 1
        total = sum(seen.values())
        hints = self.hints.setdefault(site, [])
        if total % SAMPLES or len(hints) >= MAX_HINTS or not dispatcher.may_translate():
            return
        exits_took = dispatcher.exits_through(site) * EXIT_SECONDS
        if exits_took < WORTH_LEARNING * (time.perf_counter() - dispatcher.started):
            return
        frequent = [t for t, n in seen.items() if n * 8 >= total and t not in hints]
        if frequent:
            hints += sorted(frequent, key=seen.__getitem__, reverse=True)[: MAX_HINTS - len(hints)]
            for root in self.sites.get(site, ()):
                dispatcher.translate(root)

    def translate_region(self, dispatcher: Dispatcher, blocks: list[Block]) -> list[Translation]:
        """One code object; a function for each entry, told apart by its default `entry`."""
        entries = region_entries(blocks)
        compiler = RegionCompiler(blocks, entries, self.edition, self.access_control, self.hints)
        entries = compiler.entries
        sites = {b.end for b in blocks if hinted_site(b)}
        key = (tuple((b.start, *(i.word for i in b.instructions)) for b in blocks), *entries)
        learnt = ((site, *self.hints[site]) for site in sorted(sites & self.hints.keys()))
        key += (self.edition, self.access_control, *learnt)  # code differs with what jumps learnt
        code = shared_code.get(key) if shared_code is not None else None
        if code is None:
            code = compiler.compile()
            if shared_code is not None:
                shared_code[key] = code
        root = blocks[0].start
        self.regions[root] = Region(tuple(blocks), tuple(entries), code)
        for site in sites:
            self.sites.setdefault(site, set()).add(root)
        words = tuple(sorted({ins.address for b in blocks for ins in b.instructions}))
        return [
            Translation(entry, 0, make_function(code, dispatcher.globals, (entry,)), words)
            for entry in entries
        ]


def region_roots(blocks: Mapping[int, Block], entries: Iterable[int]) -> list[int]:
    """Where functions begin: the entry points and every call target."""
    roots = set(entries)
    for block in blocks.values():
        if block.exit is Exit.CALL and block.last.form.name == "JSR":
            roots.add(block.last.target)
    return sorted(roots & set(blocks))


def region_engine(
    machine: Machine, profile: bool = False, entries: Sequence[int] | None = None, hints: Hints = NO_HINTS
) -> Dispatcher:
    """A region for every function, translated ahead of time; other PCs when they get hot.

    `entries` replaces the entry points (`lc3jit compile` finds more). `hints` are targets
    of JMP and JSRR sites known before the run (the differential tests give any at all: a
    wrong one only costs a compare); sites without are guessed from their jump tables.
    """
    entries = entry_points(machine) if entries is None else entries
    targets = [target for seen in hints.values() for target in seen]
    blocks = find_blocks(machine.mem, [*entries, *targets], machine.labels)
    if guesses := guessed(machine, blocks, hints):  # the targets' code is found, and inside
        hints = {**guesses, **hints}
        targets += [target for seen in guesses.values() for target in seen]
        blocks = find_blocks(machine.mem, [*entries, *targets], machine.labels)
    translator = RegionTranslator(machine.edition, frozenset(blocks), machine.access_control)
    translator.hints.update((site, list(seen)) for site, seen in hints.items())
    dispatcher = Dispatcher(machine, translator, profile)
    for root in region_roots(blocks, entries):
        for translation in translator.translate_region(dispatcher, region_blocks(blocks, root, hints)):
            dispatcher.install(translation)
    return dispatcher
