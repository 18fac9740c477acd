"""A region's ways out: to a block of the region they become jumps (counted, and checked
against the budget where they go back round a loop); elsewhere they leave through the
shared way out. Jumps through a register and through a runtime helper are parts of
their own (indirect_exits, helper_exits), which this one hands them to."""

from __future__ import annotations

from collections.abc import Mapping

from lc3jit.translator.codegen.bounds import EMPTY
from lc3jit.translator.codegen.emitter import Label
from lc3jit.translator.codegen.exits import BlockExits
from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks
from lc3jit.translator.regions.codegen.budget import Budget
from lc3jit.translator.regions.codegen.helper_exits import HelperExits
from lc3jit.translator.regions.codegen.indirect_exits import IndirectExits
from lc3jit_runtime import contract
from lc3jit_runtime.isa import Instruction


class RegionExits(BlockExits):
    """The exits of a region's blocks (the Exits protocol)."""

    state: AcrossBlocks

    def __init__(self, state: AcrossBlocks, budget: Budget) -> None:
        super().__init__(state)
        self.budget = budget
        self.indirect = IndirectExits(state)
        self.helpers = HelperExits(state)

    def exit_to(self, pc: int) -> None:
        s = self.state
        if pc in s.labels:
            checked = s.checks_on_the_way(pc)
            if s.codes_seen_at(pc, checked):
                s.settle_cc()
            if checked:
                self.budget.check_on_the_way(pc)
            else:
                self.budget.go_counted(pc)
        else:
            s.e.const(pc)
            s.leave(s.facts.ahead[s.current.start])
        s.exited = True

    def exit_if(
        self, pc: int, when: bool = True, is_bool: bool = True, facts: Mapping[int, tuple[int, int]] = EMPTY
    ) -> None:
        s = self.state
        if pc not in s.labels:
            super().exit_if(pc, when, is_bool)
            return
        ranges = s.ranges
        s.ranges = {**ranges, **facts}  # on the way there
        self.jump_inside_if(pc, when, is_bool)
        s.ranges = ranges

    def jump_inside_if(self, pc: int, when: bool, is_bool: bool) -> None:
        s = self.state
        if s.checks_on_the_way(pc):  # the way back round a loop: on at once, the refill after
            on = Label()
            s.e.jump_if(on, not when, is_bool)
            alias = s.cc_alias
            self.exit_to(pc)
            s.cc_alias, s.exited = alias, False  # the way back settled the codes on its own path
            s.e.place(on)
        elif s.off_chain(pc):  # the refund (and the codes) out of line
            refund = Label()
            s.e.jump_if(refund, when, is_bool)
            alias = None if s.codes_seen_at(pc) else s.cc_alias  # as exit_to will leave it
            s.arriving[pc].append((dict(s.ranges), alias))  # what the way out of line tells
            s.past_count(pc)  # asked now: the way out of line may be emitted after the block
            s.slow_path(refund, lambda: self.exit_to(pc))
        else:
            if s.codes_seen_at(pc):
                s.settle_cc()
            s.go_to(pc, lambda label: s.e.jump_if(label, when, is_bool))

    def exit_with_top(self, ins: Instruction) -> None:
        self.indirect.exit_with_top(ins)

    def exit_to_register(self, ins: Instruction) -> None:
        self.indirect.exit_to_register(ins)

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        self.helpers.exit_through(helper, *args)
