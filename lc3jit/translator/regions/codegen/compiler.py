"""The region compiler: a region's blocks in one code object, from the facts the analyses found.

It emits what the analyses decided (graph, analyses) and keeps only what emission
itself tracks: the bounds of the registers and where the codes are on each jump into a
block emitted so far, the slow paths not yet placed, the tables the code indexes. Its
slow paths leave for the dispatcher (device_access.DeviceAccess), which interprets the instruction
they stopped at: device registers, stores into code and unwrapped addresses are rare,
and sending them to the interpreter keeps each region's code small.

The compiler is parts, each an object of its own module, which RegionCompiler assembles
as BlockCompiler does its own (translator.codegen): across_blocks (the state, kept
across blocks: the jumps between them, the way out, the slow paths' placement), budget
(the counts and budget checks), codegen.memory with device_access (loads and stores off the fast path),
exits (jumps inside, the way out elsewhere) with indirect_exits (JMP, RET, JSRR) and
helper_exits (TRAP, RTI, the exceptions); this one lays out the blocks and the entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import CodeType

from lc3jit.translator.blocks import Block
from lc3jit.translator.codegen.bounds import LOOSE
from lc3jit.translator.codegen.compiler import emit_block, in_user_mode
from lc3jit.translator.codegen.dataflow import ALL_REGISTERS, unread_results
from lc3jit.translator.codegen.emitter import ENDS, BinaryOp, Compare, Emitter, Instr, Label
from lc3jit.translator.codegen.memory import MemoryAccess
from lc3jit.translator.regions.analyses import analyse
from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks
from lc3jit.translator.regions.codegen.budget import Budget
from lc3jit.translator.regions.codegen.device_access import DeviceAccess
from lc3jit.translator.regions.codegen.exits import RegionExits
from lc3jit.translator.regions.graph import region_graph
from lc3jit.translator.regions.known import CODES
from lc3jit.translator.regions.select import NO_HINTS, Hints, region_entries
from lc3jit_runtime import contract
from lc3jit_runtime.dispatch import INTERPRET_AT


class RegionCompiler:
    """Compiles a region's blocks, rooted at the first, into a function(budget, entry) -> next PC:
    the state across blocks, and the parts that emit from it (loads and stores, their slow
    paths, which leave, and the ways out), which the emit_* functions of forms drive."""

    def __init__(self, state: AcrossBlocks) -> None:
        self.graph, self.facts, self.state = state.graph, state.facts, state
        self.budget = Budget(state)
        state.memory = MemoryAccess(state, DeviceAccess(state))
        state.exits = RegionExits(state, self.budget)

    def supervisor_at(self, block: Block, index: int) -> bool:
        return index == 0 and block.start in self.state.supervised

    def unread_results(self, block: Block) -> list[bool]:
        """The registers a block of the region goes on to read: their locals hold words."""
        return unread_results(block, self.facts.wanted[block.start])

    def exact_results(self, block: Block) -> list[bool]:
        return self.facts.exact[block.start]

    def emit_region_block(self, block: Block, next_block: Block | None) -> None:
        """The block's label, its count, its budget check if it has one, its instructions;
        then the cold paths so far, if the block does not run on into the next one."""
        s = self.state
        e = s.e
        # The codes are in `cc` here, unless the block sets them before anything sees them.
        s.current, s.index = block, 0
        s.ranges, s.cc_alias = s.entry_ranges(block), s.entry_alias(block)
        s.dirty = set(s.dirty_in[block.start])
        e.line = block.start
        e.place(s.labels[block.start])
        s.emitted.add(block.start)
        # Counting first, then checking, is the cheaper order; a loop head counts itself (no
        # chain pays for it), in one step with its check unless a jump goes past its count.
        checks = block.start in self.facts.budget.checks
        if checks and block.start not in s.counted:
            self.budget.count_and_check_room(block)
            e.place(s.checked[block.start])
        else:
            if block.start not in self.facts.paid_by:
                self.budget.count_in(block)
                if block.start in s.counted:
                    e.place(s.counted[block.start])
            if checks:
                self.budget.check_room(block)
                e.place(s.checked[block.start])
        emit_block(self.state, self, block)
        last = e.last
        ends = isinstance(last, Instr) and last.name in ENDS
        if ends and (next_block is None or last.arg is not s.labels[next_block.start]):
            s.emit_cold()

    def check_entry(self, entry: int) -> None:
        """Entered at an entry that heads no loop: leave at once if the budget has no room
        for the longest way from there to a check; then, at a block that skips the check
        of its fetch, the privilege (enter_supervised)."""
        s = self.state
        if entry in s.supervised:
            self.enter_supervised(entry)
        if entry not in self.facts.budget.entry_rooms:
            return

        def leave_unrun() -> None:
            s.e.const(entry)
            s.leave(0)

        self.budget.check_budget(self.facts.budget.entry_rooms[entry], leave_unrun)

    def enter_supervised(self, entry: int) -> None:
        """Entered from the dispatcher at a block in system space that skips the check of
        its fetch (known.supervised): in user mode, leave with nothing run, for the
        interpreter to fetch it and take the access-control violation."""
        s = self.state

        def leave_for_the_interpreter() -> None:
            s.e.const(entry | INTERPRET_AT)
            s.leave(0)

        in_user_mode(s.e, leave_for_the_interpreter)

    def compile(self) -> CodeType:
        s = self.state
        e = s.e
        s.reload()
        e.load("budget")
        self.budget.at_most_a_grant()
        e.dup()
        e.store("granted")
        e.store("n")
        for entry in self.facts.entries[1:]:  # the root is the first block: no test for it
            e.load("entry")
            e.const(entry)
            e.compare(Compare.EQ)
            if entry in self.facts.budget.entry_rooms or entry in s.supervised:
                other = Label()
                e.jump_if_false(other)
                self.check_entry(entry)
                e.jump(s.labels[entry])
                e.place(other)
            else:
                e.jump_if_true(s.labels[entry])
        self.check_entry(s.block.start)
        for block, next_block in zip(self.graph.blocks, [*self.graph.blocks[1:], None], strict=True):
            self.emit_region_block(block, next_block)
        s.emit_cold()
        e.line = s.block.start
        e.place(s.way_out)  # stack: next PC, instructions of the current block not run
        s.cc_alias = None  # every way here settled the codes
        s.ranges = {r: (-LOOSE + 1, LOOSE - 1) for r in s.unwrapped_out}
        s.dirty = {*ALL_REGISTERS, CODES}  # from any way out
        e.load("granted")
        e.load("n")
        e.binary(BinaryOp.SUBTRACT)
        e.swap()
        e.binary(BinaryOp.SUBTRACT)
        e.global_(contract.REGION_COUNT)
        e.const(0)
        e.store_subscript()
        s.write_back()
        e.return_top()
        tables = Emitter("tables", s.block.start)
        for table in sorted(s.tables):
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
    return RegionCompiler(AcrossBlocks(graph, analyse(graph, access_control), edition, access_control, hints))
