"""An OS call's stack switch inlined in a region: TRAP into the supervisor, RTI back to user mode.

Under an OS in the 3rd edition every key echoed is two OS calls, each a TRAP and an RTI;
through the helpers each costs a write-back of the registers, a call into the machine
(Machine.enter_supervisor, Machine.return_from_interrupt, some 70-80 bytecodes each),
reading the registers again and a compare per return point. The common case is a few
dozen bytecodes of the region's own, with the registers in their locals:

- TRAP in user mode at priority 0, KBSR[14] clear, both stack words below the
  supervisor's stack pointer plain data or only closed to user mode, and the vector
  still naming the routine the region holds: save R6 as the user's stack pointer, push
  the PSR and the PC, R6 = the supervisor's stack, and go on at the routine.
- RTI in supervisor mode (an instruction in system space: its block checked the fetch
  or is known to run there) with R6 where such a TRAP of this call pushed the PC, popping
  a PSR of user mode at priority 0: R6 back to the user's stack, the privilege and the
  codes from the PSR popped, and on at the return point the PC popped names.

The stack words and KBSR[14] are looked at once a call of the region for each Saved_SSP
(check_stack), which leaves three locals: the Saved_SSP checked (SSP_CHECKED) and the
addresses of the PSR and the PC pushed below it (PSR_SLOT, PC_SLOT; all None at entry,
see runtime.contract). What was checked stays true until the region returns: write-map
flags are added only between calls (code decoded, translated or observed), and a store
that sets KBSR[14] leaves. So a TRAP whose Saved_SSP is the one checked pushes at the
slots with no look at the write map and no arithmetic, and an RTI with R6 at PC_SLOT pops
two memory words, KBSR[14] clear, and leaves Saved_SSP = SSP_CHECKED.

Anything else (a TRAP from supervisor code, an RTI back into it or from elsewhere on the
stack, a watched stack word, a vector rewritten, interrupts enabled) takes the helper's
way, the code after the fast path. Both change only R6, the machine's privilege, stack
pointers and stack words, and the codes (RTI), exactly as the machine does (see
runtime.machine): R and m.ccv are not written, so R6 and the codes are dirty after them
(regions.known).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lc3jit.translator.codegen.bounds import FULL
from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Label
from lc3jit.translator.regions.known import CODES
from lc3jit_runtime import contract
from lc3jit_runtime.isa import COND, SIGN_BIT
from lc3jit_runtime.machine import (
    IO_BASE,
    PSR_USER,
    TRAP_TABLE,
)

if TYPE_CHECKING:
    from lc3jit.translator.regions.codegen.across_blocks import AcrossBlocks

SP = 6


def push_machine(c: AcrossBlocks) -> None:
    """The Machine, as a fast local (loaded at entry with the tables): cheaper than the
    global at the half dozen reads and writes of an OS call."""
    c.push_table(contract.MACHINE)


def check_stack(c: AcrossBlocks, back: Label, slow: Label) -> None:
    """Out of line, Saved_SSP not the one checked in this call: to `slow` while KBSR[14]
    is set or if either word below it may not take a plain push; else it becomes the one
    checked, with its slots (see the module's docstring), and back."""
    e = c.e
    push_machine(c)
    e.load_attr(contract.INTERRUPTS)
    e.jump_if_true(slow, is_bool=False)
    push_machine(c)
    e.load_attr(contract.SAVED_SSP)
    e.store("sp")
    slots = ((1, contract.PSR_SLOT), (2, contract.PC_SLOT))
    for below, _ in slots:  # -1 or -2 (a Saved_SSP below 2) reads a guard entry: never plain
        c.push_table(contract.SUPERVISOR_SLOW)  # the pushes are the supervisor's stores
        c.push_table(contract.WRITE_MAP)
        e.load("sp")
        e.const(below)
        e.binary(BinaryOp.SUBTRACT)
        e.subscript()
        e.subscript()
        e.jump_if_true(slow)
    for below, slot in slots:  # all checked: the slots only now, as RTI trusts PC_SLOT
        e.load("sp")
        e.const(below)
        e.binary(BinaryOp.SUBTRACT)
        e.store(slot)
    e.load("sp")
    e.store(contract.SSP_CHECKED)
    e.jump(back)


def push_user_psr(c: AcrossBlocks) -> None:
    """Push the PSR of user mode at priority 0 with the codes (in `cc`): by two compares,
    cheaper on 3.11 than PSR_USER plus the codes' bits from isa.COND, a bytes (whose
    indexing is not specialised), which made a new int each TRAP."""
    e, zero, negative, done = c.e, Label(), Label(), Label()
    c.push_cc()
    e.jump_if_false(zero, is_bool=False)
    c.push_cc()
    e.const(SIGN_BIT)
    e.compare(Compare.LT)
    e.jump_if_false(negative)
    e.const(PSR_USER | COND[1])
    e.jump(done)
    e.place(zero)
    e.const(PSR_USER | COND[0])
    e.jump(done)
    e.place(negative)
    e.const(PSR_USER | COND[SIGN_BIT])
    e.place(done)


def inline_trap(c: AcrossBlocks, vector: int, routine: int, following: int) -> Label:
    """TRAP's fast path, ending in a jump to the routine's block; returns the label where
    the helper's way (emitted next by the caller) begins. The codes are in `cc`.

    From user mode at priority 0 (the mode word, Machine.psr_mode, is PSR_USER) it leaves
    supervisor mode at priority 0 and pushes the PSR of user mode with the codes (push_user_psr).
    """
    e, slow, back, unchecked = c.e, Label(), Label(), Label()
    push_machine(c)
    e.load_attr(contract.PRIVILEGE)
    e.const(PSR_USER)
    e.compare(Compare.NE)
    e.jump_if_true(slow)
    push_machine(c)
    e.load_attr(contract.SAVED_SSP)
    c.push_table(contract.SSP_CHECKED)
    e.compare(Compare.NE)
    e.jump_if_true(unchecked)
    c.slow_path(unchecked, lambda: check_stack(c, back, slow))
    e.place(back)
    c.push_table(contract.MEMORY)
    e.const(TRAP_TABLE + vector)
    e.subscript()
    e.const(routine)
    e.compare(Compare.NE)
    e.jump_if_true(slow)
    c.push_reg(SP)  # a word (the caller wrapped it)
    push_machine(c)
    e.store_attr(contract.SAVED_USP)
    e.const(0)  # supervisor mode, priority 0
    push_machine(c)
    e.store_attr(contract.PRIVILEGE)
    push_user_psr(c)
    c.push_table(contract.MEMORY)
    c.push_table(contract.PSR_SLOT)
    e.store_subscript()
    e.const(following)
    c.push_table(contract.MEMORY)
    c.push_table(contract.PC_SLOT)
    e.store_subscript()
    c.push_table(contract.PC_SLOT)
    c.set_reg(SP, False)
    c.ranges[SP] = (0, IO_BASE - 1)  # a slot checked: below xFE00 (every word there is watched)
    c.go_to(routine)
    return slow


def inline_rti(c: AcrossBlocks, returns: list[int], pending: int) -> Label:
    """RTI's fast path: compared with the return points inside, else a way out (`pending`
    instructions counted but not run); returns the label of the helper's way.

    R6 is PC_SLOT (so KBSR[14] is clear and both words are memory) and the PSR popped is
    user mode's at priority 0 (as a user program runs), x8000-x8007: its privilege is
    PSR_USER and its codes RTI_CODES[psr], one lookup where `&` (a generic operation on
    3.11, two an RTI) took them apart; any other PSR takes the helper's way."""
    e, slow = c.e, Label()
    c.push_reg(SP)  # a word (the caller wrapped it)
    c.push_table(contract.PC_SLOT)
    e.compare(Compare.NE)
    e.jump_if_true(slow)
    c.push_table(contract.RTI_CODES)
    c.push_table(contract.MEMORY)
    c.push_table(contract.PSR_SLOT)
    e.subscript()
    e.subscript()
    e.dup()
    e.store("codes")
    e.const(0)
    e.compare(Compare.LT)
    e.jump_if_true(slow)  # not user mode at priority 0 (or a bit no PSR has): the helper's way
    c.push_table(contract.MEMORY)
    c.push_table(contract.PC_SLOT)
    e.subscript()  # the PC popped, on the stack from here on
    c.push_table(contract.SSP_CHECKED)  # PC_SLOT + 2
    push_machine(c)
    e.store_attr(contract.SAVED_SSP)
    push_machine(c)
    e.load_attr(contract.SAVED_USP)
    c.set_reg(SP, False)
    c.ranges[SP] = FULL
    e.const(PSR_USER)  # `psr & (PSR_USER | PSR_PRIORITY)`, priority 0
    push_machine(c)
    e.store_attr(contract.PRIVILEGE)
    e.load("codes")
    e.store("cc")
    c.cc_alias = None
    c.dirty.add(CODES)
    for target in returns:
        c.jump_if_top_is(target)
    c.leave(pending)
    return slow
