"""An OS call's stack switch inlined in a region: TRAP into the supervisor, RTI back to user mode.

Under an OS in the 3rd edition every key echoed is two OS calls, each a TRAP and an RTI;
through the helpers each costs a write-back of the registers, a call into the machine
(Machine.enter_supervisor, Machine.return_from_interrupt, some 70-80 bytecodes each),
reading the registers again and a compare per return point. The common case is a few
dozen bytecodes of the region's own, with the registers in their locals:

- TRAP in user mode at priority 0, KBSR[14] clear, both stack words below the
  supervisor's stack pointer plain data or only closed to user mode (looked at once a
  call of the region for each Saved_SSP: check_stack), and the vector still naming the
  routine the region holds: save R6 as the user's stack pointer, push the PSR and the
  PC, R6 = the supervisor's stack, and go on at the routine.
- RTI in supervisor mode (an instruction in system space: its block checked the fetch
  or is known to run there), KBSR[14] clear, R6 below xFDFF, popping a PSR of user mode
  at priority 0: R6 back to the user's stack, the privilege and the codes from the PSR
  popped, and on at the return point the PC popped names.

Anything else (a TRAP from supervisor code, an RTI back into it, a watched stack word, a
vector rewritten, interrupts enabled) takes the helper's way, the code after the fast
path. Both change only R6, the machine's privilege, stack pointers and stack words, and
the codes (RTI), exactly as the machine does (see runtime.machine): R and m.ccv are not
written, so R6 and the codes are dirty after them (regions.known).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lc3jit.translator.bounds import FULL
from lc3jit.translator.emitter import BinaryOp, Compare, Label
from lc3jit.translator.regions.known import CODES
from lc3jit_runtime import contract
from lc3jit_runtime.machine import (
    IO_BASE,
    PSR_USER,
    TRAP_TABLE,
)

if TYPE_CHECKING:
    from lc3jit.translator.regions.compiler import RegionCompiler

SP = 6


def unless_interrupts(c: RegionCompiler, slow: Label) -> None:
    """To `slow` while KBSR[14] is set: the helpers leave then, for the dispatcher to look
    for the interrupt."""
    c.push_table(contract.MACHINE)  # a fast local (loaded at entry): cheaper than the global
    c.e.load_attr(contract.INTERRUPTS)
    c.e.jump_if_true(slow, is_bool=False)


def keep_if_user_mode(c: RegionCompiler, local: str, slow: Label) -> None:
    """Pop a PSR (or its privilege and priority) into `local`; to `slow` unless it is user mode's."""
    c.e.dup()
    c.e.store(local)
    c.e.const(PSR_USER)
    c.e.compare(Compare.LT)
    c.e.jump_if_true(slow)


def push_stack_word(c: RegionCompiler, above: int) -> None:
    """Push the address of the word pushed `above` words before the last (local `sp`:
    the supervisor's stack pointer after the two pushes)."""
    c.e.load("sp")
    if above:
        c.e.const(above)
        c.e.binary(BinaryOp.ADD)


def check_stack(c: RegionCompiler, back: Label, slow: Label) -> None:
    """Out of line, Saved_SSP on the stack, not the one checked last in this call: to
    `slow` while KBSR[14] is set or if either word below it may not take a plain push;
    else it becomes the one checked (STACK_CHECKED), and back.

    Once checked, a Saved_SSP needs no check again for the rest of the call (its words'
    write-map flags and KBSR[14] stay as they were until the region returns: code is
    decoded, translated or observed only between calls, and a store that sets KBSR[14]
    leaves), so an OS call's TRAP looks at the write map once a call, not twice a TRAP."""
    e = c.e
    e.store("sp")
    unless_interrupts(c, slow)
    for below in (1, 2):  # an index of -1 or -2 (a Saved_SSP below 2) reads a guard entry: never plain
        c.push_table(contract.SUPERVISOR_SLOW)  # the pushes are the supervisor's stores
        c.push_table(contract.WRITE_MAP)
        e.load("sp")
        e.const(below)
        e.binary(BinaryOp.SUBTRACT)
        e.subscript()
        e.subscript()
        e.jump_if_true(slow)
    e.load("sp")
    e.store(contract.STACK_CHECKED)
    e.load("sp")
    e.jump(back)


def inline_trap(c: RegionCompiler, vector: int, routine: int, following: int) -> Label:
    """TRAP's fast path, ending in a jump to the routine's block; returns the label where
    the helper's way (emitted next by the caller) begins. The codes are in `cc`.

    The fast path is a TRAP from user mode at priority 0 (as a user program runs: the mode
    word, Machine.psr_mode, is PSR_USER then), which leaves priority 0 in supervisor mode
    and pushes the PSR `PSR_USER | codes`, here `PSR_USER + codes` (NZP holds only
    PSR[2:0]): 3.11 specialises `+` for ints, and runs `|` generically.
    """
    e, slow, back, unchecked = c.e, Label(), Label(), Label()
    c.push_table(contract.MACHINE)
    e.load_attr(contract.PRIVILEGE)
    e.const(PSR_USER)
    e.compare(Compare.NE)
    e.jump_if_true(slow)
    c.push_table(contract.MACHINE)
    e.load_attr(contract.SAVED_SSP)
    e.dup()
    c.push_table(contract.STACK_CHECKED)
    e.compare(Compare.NE)
    e.jump_if_true(unchecked)
    c.slow_path(unchecked, lambda: check_stack(c, back, slow))
    e.place(back)
    e.const(2)
    e.binary(BinaryOp.SUBTRACT)
    e.store("sp")
    c.push_table(contract.MEMORY)
    e.const(TRAP_TABLE + vector)
    e.subscript()
    e.const(routine)
    e.compare(Compare.NE)
    e.jump_if_true(slow)
    c.push_reg(SP)  # a word (the caller wrapped it)
    c.push_table(contract.MACHINE)
    e.store_attr(contract.SAVED_USP)
    e.const(0)  # supervisor mode, priority 0
    c.push_table(contract.MACHINE)
    e.store_attr(contract.PRIVILEGE)
    c.push_table(contract.NZP)
    c.push_cc()
    e.subscript()
    e.const(PSR_USER)
    e.binary(BinaryOp.ADD)  # `PSR_USER | codes`: see above
    c.push_table(contract.MEMORY)
    push_stack_word(c, 1)
    e.store_subscript()
    e.const(following)
    c.push_table(contract.MEMORY)
    push_stack_word(c, 0)
    e.store_subscript()
    push_stack_word(c, 0)
    c.set_reg(SP, False)
    c.ranges[SP] = FULL  # Saved_SSP - 2 for a Saved_SSP of 2 or more: the guard entries saw to that
    c.go_to(routine)
    return slow


def inline_rti(c: RegionCompiler, returns: list[int], pending: int) -> Label:
    """RTI's fast path: compared with the return points inside, else a way out (`pending`
    instructions counted but not run); returns the label of the helper's way.

    The PSR popped is user mode's at priority 0 (as a user program runs), x8000-x8007:
    its privilege is PSR_USER and its codes `psr - PSR_USER`, where `&` (a generic
    operation on 3.11, two an RTI) took them apart; any other takes the helper's way."""
    e, slow, back, unknown = c.e, Label(), Label(), Label()
    c.push_table(contract.STACK_CHECKED)  # a Saved_SSP checked in this call: KBSR[14] is clear
    e.const(0)
    e.compare(Compare.LT)
    e.jump_if_true(unknown)

    def look() -> None:
        unless_interrupts(c, slow)
        e.jump(back)

    c.slow_path(unknown, look)
    e.place(back)
    c.push_reg(SP)  # a word (the caller wrapped it)
    e.const(IO_BASE - 1)
    e.compare(Compare.GE)
    e.jump_if_true(slow)
    c.push_table(contract.MEMORY)
    c.push_reg(SP)
    e.const(1)
    e.binary(BinaryOp.ADD)
    e.subscript()
    keep_if_user_mode(c, "psr", slow)
    e.load("psr")
    e.const(PSR_USER | 0b111)
    e.compare(Compare.GT)
    e.jump_if_true(slow)  # a priority above 0 (or a bit no PSR has): the helper's way
    c.push_table(contract.MEMORY)
    c.push_reg(SP)
    e.subscript()  # the PC popped, on the stack from here on
    c.push_reg(SP)
    e.const(2)
    e.binary(BinaryOp.ADD)
    c.push_table(contract.MACHINE)
    e.store_attr(contract.SAVED_SSP)
    c.push_table(contract.MACHINE)
    e.load_attr(contract.SAVED_USP)
    c.set_reg(SP, False)
    c.ranges[SP] = FULL
    e.const(PSR_USER)  # `psr & (PSR_USER | PSR_PRIORITY)`, priority 0
    c.push_table(contract.MACHINE)
    e.store_attr(contract.PRIVILEGE)
    c.push_table(contract.PSR_CODES)
    e.load("psr")
    e.const(PSR_USER)
    e.binary(BinaryOp.SUBTRACT)  # `psr & 0b111`
    e.subscript()
    e.store("cc")
    c.cc_alias = None
    c.dirty.add(CODES)
    for target in returns:
        c.jump_if_top_is(target)
    c.leave(pending)
    return slow
