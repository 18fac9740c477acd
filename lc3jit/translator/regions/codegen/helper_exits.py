"""A region's ways through a runtime helper (TRAP, RTI, the exceptions): where the helper
goes on inside the region, the region goes on there. Under an OS a TRAP into a routine
the region holds and an RTI back go on inline in their common case (os_calls); a
2nd-edition TRAP is a plain call while the vector names the routine.
"""

from __future__ import annotations

from lc3jit.translator.codegen.emitter import Compare, Label
from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks
from lc3jit.translator.regions.codegen.os_calls import SP, inline_rti, inline_trap
from lc3jit_runtime import contract
from lc3jit_runtime.machine import user_address


class HelperExits:
    """TRAP, RTI and the exceptions in a region."""

    def __init__(self, state: AcrossBlocks) -> None:
        self.state = state

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        """Where the helper goes on inside the region, the region goes on there: a host
        TRAP comes back to the next word; under an OS a TRAP goes to its routine and the
        routine's RTI to the word after a TRAP that called it (regions.system). The
        helper may have changed any register (a host GETC, R6 and R7 entering or leaving
        the supervisor) and the codes (RTI): they are read again."""
        s = self.state
        e, block = s.e, s.current
        if helper is contract.TRAP and s.edition == 2:
            for routine in s.hints.get(block.end, ()):
                if routine in s.labels:
                    self.call_routine(args[0], routine, block.last.next_pc)
        if s.access_control:
            self.inline_os_call(helper, args)
        s.sync()
        s.call(helper, *args)
        targets = {
            contract.TRAP: [*s.hints.get(block.end, ()), block.last.next_pc],  # under an OS, the routine
            contract.RTI: s.returns.get(block.start, ()),
        }.get(helper, ())
        inside = [target for target in dict.fromkeys(targets) if target in s.labels]
        if inside:
            s.reload(contract.CHANGED[helper.name])
            s.dirty = set()  # the helper's write-back and the reload put R and the locals in step
            for target in inside:
                s.jump_if_top_is(target)
        s.count(s.facts.ahead[block.start])
        e.return_top()
        s.exited = True

    def inline_os_call(self, helper: contract.Helper, args: tuple[int, ...]) -> None:
        """Under an OS (3rd edition), a TRAP into a routine the region holds and an RTI in
        system space (so in supervisor mode) go on inline in their common case
        (os_calls); the helper's way, emitted next, takes the rest."""
        s = self.state
        block = s.current
        inside = [target for target in s.hints.get(block.end, ()) if target in s.labels]
        returns = [target for target in s.returns.get(block.start, ()) if target in s.labels]
        if helper is contract.TRAP and inside:
            fast = lambda: inline_trap(s, args[0], inside[0], block.last.next_pc)  # noqa: E731
        elif helper is contract.RTI and not user_address(block.last.address):
            fast = lambda: inline_rti(s, returns, s.facts.ahead[block.start])  # noqa: E731
        else:
            return
        if not s.is_word(SP):
            s.wrap_register(SP)
        s.settle_cc()
        ranges, alias, dirty = dict(s.ranges), s.cc_alias, set(s.dirty)
        slow = fast()
        s.ranges, s.cc_alias, s.dirty = ranges, alias, dirty
        s.e.place(slow)

    def call_routine(self, vector: int, routine: int, following: int) -> None:
        """A 2nd-edition TRAP under an OS is `R7 = PC; PC = M[vector]`: while the vector
        table still names the routine the region holds, a JSR to it, with no helper
        (it changes neither the privilege nor the priority); otherwise the way on."""
        s = self.state
        e, other = s.e, Label()
        s.settle_cc()  # the routine's one way in (this TRAP) arrives with the codes in `cc` both ways
        ranges = dict(s.ranges)
        s.push_table(contract.MEMORY)
        e.const(vector)
        e.subscript()
        e.const(routine)
        e.compare(Compare.EQ)
        e.jump_if_false(other)
        for r in sorted(s.used):  # words, as if read again after a helper (see reload)
            if not s.is_word(r):
                s.wrap_register(r)
        e.const(following)
        s.result(7, False, (following, following))
        s.exits.exit_to(routine)
        e.place(other)
        s.ranges, s.exited = ranges, False
