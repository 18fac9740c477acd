"""One emitter per ISA form, registered in EMITTERS under the table's name (see codegen),
and the tests branches make on the value that set the codes. Each emitter drives the
compiler's state (state.BlockState) and the parts it holds: `memory` for loads and
stores, `exits` for the ways out."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lc3jit.translator.codegen.bounds import FULL, SIGN, WRAP
from lc3jit.translator.codegen.emitter import BinaryOp, Compare
from lc3jit_runtime import contract
from lc3jit_runtime.code_helpers import CODE_TABLE_RANGE
from lc3jit_runtime.isa import WORD_MASK, Instruction

if TYPE_CHECKING:
    from lc3jit.translator.codegen.state import BlockState

#: A branch test on the value v that set the codes: a comparison, the name of a global
#: table of bools to index with v (runtime.code_helpers: right for v not wrapped yet too), or
#: None for v's own truth.
Test = tuple[Compare, int] | str | None

#: For each nzp mask of BR: its test on a word and the truth that takes the branch, then
#: the same with a table, for a value not wrapped to 16 bits. BRnzp and BR with nzp = 000
#: need no test.
BRANCH_TESTS: dict[int, tuple[Test, bool, str, bool]] = {
    0b100: ((Compare.GE, SIGN), True, contract.NEGATIVE, True),  # n: bit 15 set
    0b011: ((Compare.GE, SIGN), False, contract.NEGATIVE, False),  # zp: not n
    0b010: (None, False, contract.ZERO, True),  # z: v is 0
    0b101: (None, True, contract.ZERO, False),  # np: not z
    0b001: (contract.POSITIVE, True, contract.POSITIVE, True),  # p: 0 < v < x8000
    0b110: (contract.POSITIVE, False, contract.POSITIVE, False),  # nz: not p
}

#: The same on a value between -x8000 and x7FFF, whose codes are its sign's.
SIGNED_TESTS: dict[int, tuple[Test, bool]] = {
    0b100: ((Compare.LT, 0), True),
    0b011: ((Compare.LT, 0), False),
    0b001: ((Compare.GT, 0), True),
    0b110: ((Compare.GT, 0), False),
}

#: The words that set codes each nzp mask takes, where they make one interval: a branch
#: on a word tells the ways out of it these bounds.
CODES_INTERVAL = {
    0b100: (SIGN, WORD_MASK),
    0b010: (0, 0),
    0b001: (1, SIGN - 1),
    0b011: (0, SIGN - 1),
    0b101: (1, WORD_MASK),
}


Emit = Callable[["BlockState", Instruction], None]
EMITTERS: dict[str, Emit] = {}


def emitter(name: str) -> Callable[[Emit], Emit]:
    def register(function: Emit) -> Emit:
        EMITTERS[name] = function
        return function

    return register


@emitter("ADD")
def emit_add(c: BlockState, ins: Instruction) -> None:
    (lo1, hi1), (lo2, hi2) = c.range_of(ins.sr1), c.range_of(ins.sr2)
    c.push_reg(ins.sr1)
    c.push_reg(ins.sr2)
    c.e.binary(BinaryOp.ADD)
    c.result(ins.dr, True, (lo1 + lo2, hi1 + hi2))


@emitter("ADDI")
def emit_addi(c: BlockState, ins: Instruction) -> None:
    """A difference that only a branch reads, and that could fall below 0, is computed as
    a sum with 2^16 - k: the same modulo 2^16, and never negative, so the branch tests it
    through a table without a wrap (see branch_test). One read as a number subtracts k:
    its wrap then rarely adds."""
    lo, hi = c.range_of(ins.sr1)
    imm = ins.imm5
    if imm < 0 <= lo < -imm and c.unread[c.index] and not c.exact[c.index]:
        imm += WRAP
    c.push_reg(ins.sr1)
    if imm:
        c.e.const(abs(imm))
        c.e.binary(BinaryOp.ADD if imm > 0 else BinaryOp.SUBTRACT)
    c.result(ins.dr, True, (lo + imm, hi + imm))
    if ins.dr != ins.sr1 and c.range_of(ins.dr) == (lo + imm, hi + imm):  # not wrapped
        c.last_sum = (ins.address, ins.dr, ins.sr1, imm)


@emitter("AND")
def emit_and(c: BlockState, ins: Instruction) -> None:
    """A word and anything is a word (`&` keeps the low 16 bits of a negative int too)."""
    if not c.is_word(ins.sr1) and not c.is_word(ins.sr2):
        c.wrap_register(ins.sr1)
    c.push_reg(ins.sr1)
    c.push_reg(ins.sr2)
    c.e.binary(BinaryOp.AND)
    c.result(ins.dr, True)


@emitter("ANDI")
def emit_andi(c: BlockState, ins: Instruction) -> None:
    mask = ins.imm5 & WORD_MASK
    if mask == 0:  # AND R, R, #0: the usual way to clear a register
        c.e.const(0)
        c.result(ins.dr, True, (0, 0))
    elif mask == WORD_MASK:  # AND R, R, #-1 copies
        c.push_reg(ins.sr1)
        c.result(ins.dr, True, c.range_of(ins.sr1))
    else:
        c.push_reg(ins.sr1)
        c.e.const(mask)
        c.e.binary(BinaryOp.AND)
        c.result(ins.dr, True, (0, mask))


@emitter("NOT")
def emit_not(c: BlockState, ins: Instruction) -> None:
    """NOT v is xFFFF - v modulo 2^16: from xFFFF plus as many 2^16 as keep it non-negative."""
    lo, hi = c.range_of(ins.sr)
    ones = WORD_MASK + WRAP * max(0, -(-(hi - WORD_MASK) // WRAP))
    c.e.const(ones)
    c.push_reg(ins.sr)
    c.e.binary(BinaryOp.SUBTRACT)
    c.result(ins.dr, True, (ones - hi, ones - lo))


@emitter("BR")
def emit_br(c: BlockState, ins: Instruction) -> None:
    if ins.nzp == 0b111:
        c.exits.exit_to(ins.target)
    elif ins.nzp == 0:
        c.exits.exit_to(ins.next_pc)
    else:
        test, when = branch_test(ins.nzp, c.cc_range())
        if test == "wrap":  # a long chain of sums, beyond the tables
            c.wrap_register(c.cc_alias)  # type: ignore[arg-type]
            test, when = branch_test(ins.nzp, c.cc_range())
        if isinstance(test, str):
            c.push_table(test)
            c.push_cc()
            c.e.subscript()
        else:
            c.push_cc()
            if test is not None:
                c.e.const(test[1])
                c.e.compare(test[0])
        ways = branch_ways(c, ins)
        c.exits.exit_if(ins.target, when, test is not None, ways[0])
        c.ranges.update(ways[1])
        c.exits.exit_to(ins.next_pc)


def branch_ways(c: BlockState, ins: Instruction) -> tuple[dict[int, tuple[int, int]], ...]:
    """What each way out of BR (taken, then not) tells of the registers' bounds: of the
    one that set the codes, and of the one an ADD right before made it from, with a
    constant (`ADD R1, R0, #-2; BRn`: past it R0 is at least 2, and `ADD R0, R0, #-1`
    needs no wrap)."""
    alias = c.cc_alias
    if alias is None:
        return {}, {}
    bounds = c.range_of(alias)
    ways = []
    for way in branch_bounds(ins.nzp, bounds):
        told = {} if way is None else {alias: way}
        if c.last_sum is not None and way is not None and c.index:
            address, dr, sr, k = c.last_sum
            if address == ins.address - 1 and dr == alias:
                (lo, hi), (sr_lo, sr_hi) = way, c.range_of(sr)
                if max(lo - k, sr_lo) <= min(hi - k, sr_hi):
                    told[sr] = (max(lo - k, sr_lo), min(hi - k, sr_hi))
        ways.append(told)
    return tuple(ways)


def branch_bounds(nzp: int, bounds: tuple[int, int]) -> tuple[tuple[int, int] | None, ...]:
    """The bounds of the value that set the codes on each way out of BR (nzp): taken, then
    not; None where the way tells nothing. A value not wrapped yet is bounded by the
    first and last of its values whose word lies in the way's interval (where it spans
    a few 2^16 at most)."""
    lo, hi = bounds
    if hi - lo >= 3 * WRAP:
        return None, None

    def within(mask: int) -> tuple[int, int] | None:
        if mask not in CODES_INTERVAL:
            return None
        first, last = CODES_INTERVAL[mask]
        low = high = None
        for base in range(lo - lo % WRAP, hi + 1, WRAP):  # each 2^16 the value may span
            if max(lo, base + first) <= min(hi, base + last):
                low = max(lo, base + first) if low is None else low
                high = min(hi, base + last)
        return None if low is None or high is None else (low, high)

    return within(nzp), within(~nzp & 0b111)


def branch_test(nzp: int, bounds: tuple[int, int]) -> tuple[Test, bool]:
    """The test of BR (nzp) on a value within bounds, and the truth that takes the branch:
    on a word, a comparison or its truth; on a sum not wrapped yet, a table, or its truth
    for BRz and BRnp where it cannot reach +-2^16 (there it is 0 only where the word is
    0), or its compare with 2^16 where that is the one multiple of 2^16 it can reach (a
    key less 10, as `x + 2^16 - 10`: no table of a megabyte built for a process's one
    BRnp); "wrap" where neither will do (the value must be wrapped first)."""
    word_test, word_when, table, table_when = BRANCH_TESTS[nzp]
    lo, hi = bounds
    if (lo >= 0 and hi <= WORD_MASK) or (word_test is None and lo > -WRAP and hi < WRAP):
        return word_test, word_when
    if lo >= -SIGN and hi < SIGN:
        return SIGNED_TESTS[nzp]
    if word_test is None and lo > 0 and hi < 2 * WRAP:  # BRz, BRnp: 2^16 is the one zero within
        return (Compare.EQ, WRAP), table_when
    if CODE_TABLE_RANGE[0] <= lo and hi <= CODE_TABLE_RANGE[1]:
        return table, table_when
    return "wrap", False


@emitter("JMP")
def emit_jmp(c: BlockState, ins: Instruction) -> None:
    c.exits.exit_to_register(ins)


@emitter("JSR")
def emit_jsr(c: BlockState, ins: Instruction) -> None:
    c.e.const(ins.next_pc)
    c.result(7, False, (ins.next_pc, ins.next_pc))
    c.exits.exit_to(ins.target)


@emitter("JSRR")
def emit_jsrr(c: BlockState, ins: Instruction) -> None:
    c.push_reg(ins.baser)  # read before R7 changes: JSRR R7 jumps to the old R7
    c.e.const(ins.next_pc)
    c.result(7, False, (ins.next_pc, ins.next_pc))
    c.exits.exit_with_top(ins)


@emitter("LD")
def emit_ld(c: BlockState, ins: Instruction) -> None:
    c.memory.load_const_address(ins.target, ins.address)
    c.result(ins.dr, True)


@emitter("LDI")
def emit_ldi(c: BlockState, ins: Instruction) -> None:
    c.memory.load_const_address(ins.target, ins.address)
    c.e.store("a")
    c.memory.load_computed_address("a", FULL, ins.address, rejoins=True)
    c.result(ins.dr, True)


@emitter("LDR")
def emit_ldr(c: BlockState, ins: Instruction) -> None:
    c.memory.load_base_plus_offset(ins.baser, ins.offset6, ins.address)
    c.result(ins.dr, True)


@emitter("LEA")
def emit_lea(c: BlockState, ins: Instruction) -> None:
    c.e.const(ins.target)
    c.result(ins.dr, ins.sets_cc(c.edition), (ins.target, ins.target))


@emitter("ST")
def emit_st(c: BlockState, ins: Instruction) -> None:
    c.memory.store(
        ins.target, lambda: c.push_reg(ins.sr), ins.address, rejoins=c.memory.watched_for_good(ins.target)
    )


@emitter("STI")
def emit_sti(c: BlockState, ins: Instruction) -> None:
    c.memory.load_const_address(ins.target, ins.address)
    c.e.store("a")
    c.memory.store("a", lambda: c.push_reg(ins.sr), ins.address, rejoins=True)


@emitter("STR")
def emit_str(c: BlockState, ins: Instruction) -> None:
    address, bounds = c.memory.base_plus_offset(ins.baser, ins.offset6)
    c.memory.store(address, lambda: c.push_reg(ins.sr), ins.address, bounds)
    c.memory.address_checked(ins.baser, ins.offset6)


@emitter("TRAP")
def emit_trap(c: BlockState, ins: Instruction) -> None:
    c.exits.exit_through(contract.TRAP, ins.trapvect8, ins.address)


@emitter("RTI")
def emit_rti(c: BlockState, ins: Instruction) -> None:
    c.exits.exit_through(contract.RTI, ins.address)


@emitter("RESERVED")
def emit_reserved(c: BlockState, ins: Instruction) -> None:
    c.exits.exit_through(contract.ILLEGAL, ins.word, ins.address)
