"""The region compiler: a region's blocks in one code object, from the facts the analyses found.

It emits what the analyses decided (graph, analyses) and keeps only what emission
itself tracks: the bounds of the registers and where the codes are on each jump into a
block emitted so far, the slow paths not yet placed, the tables the code indexes. Its
slow paths leave for the dispatcher (codegen.LEAVE), which interprets the instruction
they stopped at: device registers, stores into code and unwrapped addresses are rare,
and sending them to the interpreter keeps each region's code small.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import CodeType

from lc3jit.translator.blocks import Block
from lc3jit.translator.bounds import EMPTY, FULL, LOOSE
from lc3jit.translator.codegen import LEAVE, BlockCompiler, load_registers
from lc3jit.translator.dataflow import ALL_REGISTERS, REGISTER_ONLY
from lc3jit.translator.emitter import ENDS, BinaryOp, Compare, Emitter, Instr, Label
from lc3jit.translator.regions.analyses import RegionFacts, analyse, wanted_after
from lc3jit.translator.regions.graph import RegionGraph, region_graph
from lc3jit.translator.regions.known import CODES, dirty_at_entry, supervised
from lc3jit.translator.regions.learning import HINT_AFTER, MAX_HINTS
from lc3jit.translator.regions.os_calls import SP, inline_rti, inline_trap
from lc3jit.translator.regions.select import NO_HINTS, Hints, hinted_site, region_entries
from lc3jit_runtime import contract
from lc3jit_runtime.dispatch import INTERPRET_AT
from lc3jit_runtime.isa import WORD_MASK, Instruction
from lc3jit_runtime.machine import DDR, DISPLAY_STATUS, DSR, user_address

#: Where a slow path was left for later: block, instruction index, line, the register
#: standing for the codes, the bounds of the registers' locals, the registers (and CODES)
#: not written back since they changed.
Where = tuple[Block, int, int, int | None, dict[int, tuple[int, int]], frozenset[int]]


class RegionCompiler(BlockCompiler):
    """Compiles a region's blocks, rooted at the first, into a function(budget, entry) -> next PC."""

    def __init__(
        self,
        graph: RegionGraph,
        facts: RegionFacts,
        edition: int,
        access_control: bool = False,
        hints: Hints = NO_HINTS,
    ) -> None:
        root = graph.root
        super().__init__(root, edition, access_control, LEAVE)
        self.graph, self.facts, self.hints = graph, facts, hints
        self.e = Emitter(f"region_x{root.start:04X}", root.start)
        self.labels = {b.start: Label() for b in graph.blocks}
        self.order = {b.start: index for index, b in enumerate(graph.blocks)}  # as laid out
        self.written = set(facts.written)
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
        self.current = root
        self.tables: set[str] = set()  # of TABLES, those the code indexes
        self.unwrapped_out: set[int] = set()  # registers some way to `way_out` may leave unwrapped
        self.dirty_in = dirty_at_entry(graph, edition, access_control)
        self.dirty: set[int] = set()  # registers (and CODES) whose locals may differ from R here
        self.supervised = supervised(graph, access_control)

    # Registers: every register the region names is a local from entry to exit.
    def reg(self, r: int) -> str:
        return f"r{r}"

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

    def supervisor_at(self, index: int) -> bool:
        return index == 0 and self.current.start in self.supervised

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
        where = (
            self.current,
            self.index,
            self.e.line,
            self.cc_alias,
            dict(self.ranges),
            frozenset(self.dirty),
        )
        self.cold.append((slow, where, emit))

    def access_path(self, slow: Label, emit: Callable[[], None], rejoins: bool) -> None:
        """Out of line like any slow path. One that `rejoins` (codegen.slow_load: LDI
        and STI, the device registers' idiom, and ST to a device or a system word) calls
        the runtime and comes back, so that a loop polling a device (`LDI R0, KBSR_PTR;
        BRzp`) and an OS routine saving registers run inside the region; the rest leave
        for the interpreter (rare: stores into code, addresses not wrapped yet)."""
        if not rejoins:
            self.slow_path(slow, emit)
            return
        back = Label()
        self.e.place(back)

        def rejoin() -> None:
            emit()
            self.e.jump(back)

        self.slow_path(slow, rejoin)

    def slow_load(self, push_address: Callable[[], None], at: int, rejoins: bool) -> None:
        """Leave for the interpreter, or (`rejoins`) call the runtime. A load that cannot
        take an access-control exception, which would change R6 and push the codes,
        reads first (READ) and writes the registers back only when the read was stopped."""
        if not rejoins:
            self.bail(at)
        elif self.checked_loads:
            super().slow_load(push_address, at, rejoins)
        else:
            e, stopped, read, device = self.e, Label(), Label(), Label()
            push_address()  # DSR reads the same always: no call
            e.const(DSR)
            e.compare(Compare.NE)
            e.jump_if_true(device)
            e.const(DISPLAY_STATUS)
            e.jump(read)
            e.place(device)
            self.call(contract.READ, self.wrapped(push_address), at)
            e.dup()
            e.const(0)
            e.compare(Compare.LT)
            e.jump_if_true(stopped)
            e.place(read)
            self.slow_path(stopped, lambda: self.reread(push_address, at, read))

    def reread(self, push_address: Callable[[], None], at: int, read: Label) -> None:
        """READ returned -1 (on the stack): the registers back, then REREAD, which raises
        what stopped the read or reads what READ could not; the word goes on at `read`."""
        self.e.pop()
        self.sync()
        self.call(contract.REREAD, self.wrapped(push_address), at)
        self.e.jump(read)

    def slow_store(
        self,
        push_address: Callable[[], None],
        push_value: Callable[[], None],
        at: int,
        rejoins: bool,
    ) -> None:
        if not rejoins:
            self.bail(at)
        elif self.access_control and user_address(at):  # may be user mode: STORE checks
            super().slow_store(push_address, push_value, at, rejoins)
        else:
            self.write_display(push_address, push_value, at)

    def write_display(
        self, push_address: Callable[[], None], push_value: Callable[[], None], at: int
    ) -> None:
        """A store that cannot take an exception, to DDR (every OS's OUT, a program writing
        the display itself): DISPLAY, which raises nothing, so nothing is written back
        first; when the run is to end after it, the region leaves at the next instruction.
        Another device or a watched word: STORE, the registers written back."""
        e, other, written = self.e, Label(), Label()
        push_address()
        e.const(DDR)
        e.compare(Compare.NE)
        e.jump_if_true(other)
        self.call(contract.DISPLAY, push_value)
        e.jump_if_false(written, is_bool=False)
        alias = self.cc_alias
        e.const((at + 1) & WORD_MASK)
        self.leave(self.unpaid() - 1)
        self.cc_alias = alias  # the way out settled the codes on its own path only
        e.place(other)
        super().slow_store(push_address, push_value, at, True)
        e.place(written)

    # Exits: inside the region they become jumps.
    def exit_to(self, pc: int) -> None:
        if pc in self.labels:
            if self.codes_seen_at(pc):
                self.settle_cc()
            self.refund(pc)
            self.go_to(pc)
        else:
            self.e.const(pc)
            self.leave(self.facts.ahead[self.current.start])
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
        return [*self.graph.returns.get(self.current.start, ()), *(t for t in hinted if t in self.labels)]

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
        """Where the helper goes on inside the region, the region goes on there: a host
        TRAP comes back to the next word; under an OS a TRAP goes to its routine and the
        routine's RTI to the word after a TRAP that called it (regions.system). The
        helper may have changed any register (a host GETC, R6 and R7 entering or leaving
        the supervisor) and the codes (RTI): they are read again."""
        e, block = self.e, self.current
        if helper is contract.TRAP and self.edition == 2:
            for routine in self.hints.get(block.end, ()):
                if routine in self.labels:
                    self.call_routine(args[0], routine, block.last.next_pc)
        if self.access_control:
            self.inline_os_call(helper, args)
        self.sync()
        self.call(helper, *args)
        targets = {
            contract.TRAP: [*self.hints.get(block.end, ()), block.last.next_pc],  # under an OS, the routine
            contract.RTI: self.graph.returns.get(block.start, ()),
        }.get(helper, ())
        inside = [target for target in dict.fromkeys(targets) if target in self.labels]
        if inside:
            self.reload(contract.CHANGED[helper.name])
            self.dirty = set()  # the helper's write-back and the reload put R and the locals in step
            for target in inside:
                self.jump_if_top_is(target)
        self.count(self.facts.ahead[block.start])
        e.return_top()
        self.exited = True

    def inline_os_call(self, helper: contract.Helper, args: tuple[int, ...]) -> None:
        """Under an OS (3rd edition), a TRAP into a routine the region holds and an RTI in
        system space (so in supervisor mode) go on inline in their common case
        (regions.os_calls); the helper's way, emitted next, takes the rest."""
        block = self.current
        inside = [target for target in self.hints.get(block.end, ()) if target in self.labels]
        returns = [target for target in self.graph.returns.get(block.start, ()) if target in self.labels]
        if helper is contract.TRAP and inside:
            fast = lambda: inline_trap(self, args[0], inside[0], block.last.next_pc)  # noqa: E731
        elif helper is contract.RTI and not user_address(block.last.address):
            fast = lambda: inline_rti(self, returns, self.facts.ahead[block.start])  # noqa: E731
        else:
            return
        if not self.is_word(SP):
            self.wrap_register(SP)
        self.settle_cc()
        ranges, alias, dirty = dict(self.ranges), self.cc_alias, set(self.dirty)
        slow = fast()
        self.ranges, self.cc_alias, self.dirty = ranges, alias, dirty
        self.e.place(slow)

    def call_routine(self, vector: int, routine: int, following: int) -> None:
        """A 2nd-edition TRAP under an OS is `R7 = PC; PC = M[vector]`: while the vector
        table still names the routine the region holds, a JSR to it, with no helper
        (it changes neither the privilege nor the priority); otherwise the way on."""
        e, other = self.e, Label()
        self.settle_cc()  # the routine's one way in (this TRAP) arrives with the codes in `cc` both ways
        ranges = dict(self.ranges)
        self.push_table(contract.MEMORY)
        e.const(vector)
        e.subscript()
        e.const(routine)
        e.compare(Compare.EQ)
        e.jump_if_false(other)
        for r in sorted(self.used):  # words, as if read again after a helper (see reload)
            if not self.is_word(r):
                self.wrap_register(r)
        e.const(following)
        self.result(7, False, (following, following))
        self.exit_to(routine)
        e.place(other)
        self.ranges, self.exited = ranges, False

    def wanted_after(self, block: Block) -> Iterable[int]:
        """The registers a block of the region goes on to read: their locals hold words."""
        return wanted_after(self.graph, self.facts.live, block.start)

    def exact_results(self, block: Block) -> list[bool]:
        return self.facts.exact[block.start]

    def go_to(self, pc: int, jump: Callable[[Label], None] | None = None) -> None:
        """Jump (with `jump`, conditionally) to the region's block at pc, telling it the
        bounds of the registers' locals on this way in."""
        if not self.dirty <= self.dirty_in[pc]:  # known.dirty_at_entry missed a way in
            raise RuntimeError(f"block x{pc:04X} entered with {sorted(self.dirty)} not written back")
        self.arriving[pc].append((dict(self.ranges), self.cc_alias))
        (jump or self.e.jump)(self.labels[pc])

    def entry_ranges(self, block: Block) -> dict[int, tuple[int, int]]:
        """The bounds of the registers where the block starts: what every way in told it
        (see go_to), when all of them were emitted before it and none is entered from the
        dispatcher; otherwise words, but for the registers that may hold sums not wrapped."""
        start = block.start
        if not (self.arriving[start] and self.ways_in_before(start)):
            return {r: (-LOOSE + 1, LOOSE - 1) for r in self.facts.unwrapped[start]}
        first, *others = [ranges for ranges, _ in self.arriving[start]]
        joined = {}
        for r in ALL_REGISTERS:  # plain loops: this runs for every block of every region
            lo, hi = first.get(r, FULL)
            for way in others:
                way_lo, way_hi = way.get(r, FULL)
                lo, hi = min(lo, way_lo), max(hi, way_hi)
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
        return len(self.graph.ways_in[start]) == 1 and self.ways_in_before(start)

    def ways_in_before(self, start: int) -> bool:
        """Is every way into the block at start emitted (or, out of line, announced) before
        it, and is it never entered from the dispatcher?"""
        return start not in self.facts.entries and all(
            self.order[p] < self.order[start] for p in self.graph.ways_in[start]
        )

    def unpaid(self) -> int:
        """Instructions counted but not run, at the current instruction (not yet run)."""
        return self.current.length - self.index + self.facts.ahead[self.current.start]

    def codes_seen_at(self, pc: int) -> bool:
        """Must the codes be in `cc` where the region's block at pc starts? Not if it checks
        no budget (whose way out keeps them) and its first instruction sets them, nor if it
        has one way in, which tells it where they are (entry_alias)."""
        first = self.graph.by_start[pc].instructions[0]
        sets_first = first.form.name in REGISTER_ONLY and first.sets_cc(self.edition)
        if pc in self.facts.budget.checks or self.access_control:
            return True
        return not sets_first and not self.one_way_in(pc)

    def off_chain(self, pc: int) -> bool:
        """Does going to pc leave blocks the current block's count paid for unrun?"""
        return self.facts.paid_by.get(pc) != self.current.start and self.facts.ahead[self.current.start] > 0

    def refund(self, pc: int) -> None:
        """Before going to pc off the chain: give back the count of the chain not run."""
        if self.off_chain(pc):
            self.e.load("n")
            self.e.const(self.facts.ahead[self.current.start])
            self.e.binary(BinaryOp.ADD)
            self.e.store("n")

    def emit_region_block(self, block: Block, next_block: Block | None) -> None:
        """The block's label, its count, its budget check if it has one, its instructions;
        then the cold paths so far, if the block does not run on into the next one."""
        e = self.e
        # The codes are in `cc` here, unless the block sets them before anything sees them.
        self.current, self.index = block, 0
        self.ranges, self.cc_alias = self.entry_ranges(block), self.entry_alias(block)
        self.dirty = set(self.dirty_in[block.start])
        e.line = block.start
        e.place(self.labels[block.start])
        counted = block.length + self.facts.ahead[block.start]
        if block.start not in self.facts.paid_by:
            e.load("n")
            e.const(counted)
            e.binary(BinaryOp.SUBTRACT)
            e.store("n")
        if block.start in self.facts.budget.checks:  # counting first, then checking, is the cheaper order
            out_of_budget = Label()
            e.load("n")
            e.const(self.facts.budget.checks[block.start] - counted)
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
        for the longest way from there to a check; then, at a block that skips the check
        of its fetch, the privilege (enter_supervised)."""
        if entry in self.supervised:
            self.enter_supervised(entry)
        if entry not in self.facts.budget.entry_rooms:
            return
        e, room = self.e, Label()
        e.load("n")
        e.const(self.facts.budget.entry_rooms[entry])
        e.compare(Compare.LT)
        e.jump_if_false(room)
        e.const(entry)
        self.leave(0)
        e.place(room)

    def enter_supervised(self, entry: int) -> None:
        """Entered from the dispatcher at a block in system space that skips the check of
        its fetch (known.supervised): in user mode, leave with nothing run, for the
        interpreter to fetch it and take the access-control violation."""

        def leave_for_the_interpreter() -> None:
            self.e.const(entry | INTERPRET_AT)
            self.leave(0)

        self.in_user_mode(leave_for_the_interpreter)

    def leave_before(self, block: Block) -> None:
        """Out of budget: leave at the block's start, its count given back."""
        self.e.const(block.start)
        self.leave(block.length + self.facts.ahead[block.start])

    def emit_cold(self) -> None:
        """The slow paths of the blocks emitted so far, near them (short jumps)."""
        e = self.e
        for slow, (block, index, line, alias, ranges, dirty), emit in self.cold:
            self.current, self.index, e.line, self.cc_alias, self.ranges = block, index, line, alias, ranges
            self.dirty = set(dirty)
            e.place(slow)
            emit()
        self.cold = []

    def compile(self) -> CodeType:
        e = self.e
        self.reload()
        e.load("budget")
        e.store("n")
        for entry in self.facts.entries[1:]:  # the root is the first block: no test for it
            e.load("entry")
            e.const(entry)
            e.compare(Compare.EQ)
            if entry in self.facts.budget.entry_rooms or entry in self.supervised:
                other = Label()
                e.jump_if_false(other)
                self.check_entry(entry)
                e.jump(self.labels[entry])
                e.place(other)
            else:
                e.jump_if_true(self.labels[entry])
        self.check_entry(self.block.start)
        for block, next_block in zip(self.graph.blocks, [*self.graph.blocks[1:], None], strict=True):
            self.emit_region_block(block, next_block)
        self.emit_cold()
        e.line = self.block.start
        e.place(self.way_out)  # stack: next PC, instructions of the current block not run
        self.cc_alias = None  # every way here settled the codes
        self.ranges = {r: (-LOOSE + 1, LOOSE - 1) for r in self.unwrapped_out}
        self.dirty = {*ALL_REGISTERS, CODES}  # from any way out
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


def region_compiler(
    blocks: Sequence[Block],
    edition: int,
    access_control: bool = False,
    hints: Hints = NO_HINTS,
    more_entries: Sequence[int] = (),
) -> RegionCompiler:
    """The compiler of a region's blocks (laid out, the root first), the analyses run;
    entered at the root, the return points and `more_entries` (starts of its blocks)."""
    entries = list(dict.fromkeys([*region_entries(blocks, hints), *more_entries]))
    graph = region_graph(blocks, entries, hints)
    return RegionCompiler(graph, analyse(graph, access_control), edition, access_control, hints)
