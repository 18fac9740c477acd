"""The ways out of a block: a block returns the next PC to the dispatcher. Regions have
ways of their own (regions.exits), behind the same protocol, which the form emitters
call through the compiler's state (`BlockState.exits`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from lc3jit.translator.codegen.bounds import EMPTY
from lc3jit.translator.codegen.emitter import Label
from lc3jit.translator.codegen.state import BlockState
from lc3jit_runtime import contract
from lc3jit_runtime.isa import Instruction


class Exits(Protocol):
    """Where control goes at the end of a block, or on a branch taken."""

    def exit_to(self, pc: int) -> None:
        """Go to pc, known now."""

    def exit_if(
        self, pc: int, when: bool = True, is_bool: bool = True, facts: Mapping[int, tuple[int, int]] = EMPTY
    ) -> None:
        """Pop a value; when its truth is `when`, go to pc (where `facts` bound registers
        more tightly: regions use them). Code after it runs otherwise."""

    def exit_with_top(self, ins: Instruction) -> None:
        """Go to the address at the top of the stack (JMP, RET, JSRR)."""

    def exit_to_register(self, ins: Instruction) -> None:
        """Go to the address in BaseR (JMP, RET)."""

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        """Go where a runtime helper says (TRAP, RTI, exceptions); it may stop the machine."""


class BlockExits:
    """A block's ways out: each writes the registers back and returns the next PC."""

    def __init__(self, state: BlockState) -> None:
        self.state = state

    def exit_to(self, pc: int) -> None:
        s = self.state
        s.write_back()
        s.e.return_const(pc)
        s.exited = True

    def exit_if(
        self, pc: int, when: bool = True, is_bool: bool = True, facts: Mapping[int, tuple[int, int]] = EMPTY
    ) -> None:
        s, not_taken = self.state, Label()
        s.e.jump_if(not_taken, not when, is_bool)
        alias = s.cc_alias
        s.exits.exit_to(pc)
        s.cc_alias = alias  # the way out settled the codes on its own path only
        s.e.place(not_taken)
        s.exited = False

    def exit_with_top(self, ins: Instruction) -> None:
        s = self.state
        s.write_back()
        s.e.return_top()
        s.exited = True

    def exit_to_register(self, ins: Instruction) -> None:
        self.state.push_reg(ins.baser)
        self.exit_with_top(ins)

    def exit_through(self, helper: contract.Helper, *args: int) -> None:
        s = self.state
        s.sync()
        s.call(helper, *args)
        s.e.return_top()
        s.exited = True
