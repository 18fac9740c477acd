"""A region's jumps through a register (JMP, RET, JSRR): compared with the targets
predicted inside the region (a RET's return points, a JMP's or JSRR's targets seen or
guessed), the rest leave; a site that may still learn a target tells the translator
where it went now and then (learning.HINT_AFTER).
"""

from __future__ import annotations

from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Label
from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks
from lc3jit.translator.regions.learning import HINT_AFTER, MAX_HINTS
from lc3jit.translator.regions.select import hinted_site
from lc3jit_runtime import contract
from lc3jit_runtime.isa import Instruction


class IndirectExits:
    """JMP, RET and JSRR in a region."""

    def __init__(self, state: AcrossBlocks) -> None:
        self.state = state

    def predicted(self, ins: Instruction) -> list[int]:
        """Where a jump through a register may go inside the region: a RET to the return
        points of the calls to its subroutine, a JMP or JSRR to the targets it was seen
        (or guessed) going to."""
        s = self.state
        hinted = s.hints.get(ins.address, ()) if hinted_site(s.current) else ()
        return [*s.returns.get(s.current.start, ()), *(t for t in hinted if t in s.labels)]

    def exit_with_top(self, ins: Instruction) -> None:
        """Compared with the targets predicted, the rest leave (JSRR: its target is on the
        stack, read before R7 changed). A JMP or JSRR that may still learn a target tells
        the translator where it went (see HINT_AFTER)."""
        s = self.state
        s.settle_cc()
        for target in self.predicted(ins):
            s.jump_if_top_is(target)
        self.leave_through(ins)

    def exit_to_register(self, ins: Instruction) -> None:
        """JMP and RET: the register itself is compared with the targets predicted, with
        nothing on the stack to copy and drop for each."""
        s = self.state
        e, local = s.e, s.reg(ins.baser)
        s.settle_cc()
        for target in self.predicted(ins):
            e.load(local)
            e.const(target)
            e.compare(Compare.EQ)
            s.go_to(target, e.jump_if_true)
        s.push_reg(ins.baser)
        self.leave_through(ins)

    def leave_through(self, ins: Instruction) -> None:
        """Leave for the target on the stack, counted if the site may still learn."""
        s = self.state
        if hinted_site(s.current) and len(s.hints.get(ins.address, ())) < MAX_HINTS:
            self.count_exit(ins.address)
        s.leave(0)
        s.exited = True

    def count_exit(self, site: int) -> None:
        """EXITS[site] += 1, and every HINT_AFTER-th time, tell the translator where the
        jump (its target on the stack) went: a sample, for a few bytecodes an exit."""
        s = self.state
        e, skip = s.e, Label()
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
        s.call(contract.INDIRECT, site, "target")
        e.pop()
        e.place(skip)
