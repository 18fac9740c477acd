"""The region compiler: a region's blocks in one code object, from the facts the analyses found.

It emits what the analyses decided (graph, analyses) and keeps only what emission
itself tracks: the bounds of the registers and where the codes are on each jump into a
block emitted so far, the slow paths not yet placed, the tables the code indexes. Its
slow paths leave for the dispatcher (block_state.LEAVE), which interprets the instruction
they stopped at: device registers, stores into code and unwrapped addresses are rare,
and sending them to the interpreter keeps each region's code small.

The compiler is in parts, each a module: across_blocks (the state kept across blocks,
the jumps between them, the way out, the slow paths' placement), device_access (loads
and stores off the fast path), indirect_exits (JMP, RET, JSRR), helper_exits (TRAP, RTI,
the exceptions) and this one, which lays out the blocks and the entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import CodeType

from lc3jit.translator.blocks import Block
from lc3jit.translator.bounds import LOOSE
from lc3jit.translator.dataflow import ALL_REGISTERS
from lc3jit.translator.emitter import ENDS, BinaryOp, Compare, Emitter, Instr, Label
from lc3jit.translator.regions.analyses import analyse
from lc3jit.translator.regions.device_access import DeviceAccess
from lc3jit.translator.regions.graph import region_graph
from lc3jit.translator.regions.helper_exits import HelperExits
from lc3jit.translator.regions.indirect_exits import IndirectExits
from lc3jit.translator.regions.known import CODES
from lc3jit.translator.regions.select import NO_HINTS, Hints, region_entries
from lc3jit_runtime import contract
from lc3jit_runtime.dispatch import INTERPRET_AT


class RegionCompiler(HelperExits, IndirectExits, DeviceAccess):
    """Compiles a region's blocks, rooted at the first, into a function(budget, entry) -> next PC."""

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
        if block.start not in self.facts.paid_by:
            self.count_in(block)
        if block.start in self.facts.budget.checks:  # counting first, then checking, is the cheaper order
            self.check_room(block)
            e.place(self.checked[block.start])
        self.emit_block(block)
        last = e.last
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

        def leave_unrun() -> None:
            self.e.const(entry)
            self.leave(0)

        self.check_budget(self.facts.budget.entry_rooms[entry], leave_unrun)

    def enter_supervised(self, entry: int) -> None:
        """Entered from the dispatcher at a block in system space that skips the check of
        its fetch (known.supervised): in user mode, leave with nothing run, for the
        interpreter to fetch it and take the access-control violation."""

        def leave_for_the_interpreter() -> None:
            self.e.const(entry | INTERPRET_AT)
            self.leave(0)

        self.in_user_mode(leave_for_the_interpreter)

    def compile(self) -> CodeType:
        e = self.e
        self.reload()
        e.load("budget")
        self.at_most_a_grant()
        e.dup()
        e.store("granted")
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
        e.load("granted")
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
