"""The reference interpreter (runtime/interp.py), the oracle every translation is checked
against, checked in its turn against Appendix A: one instruction at a time from random
states, compared with the semantics table written out independently below; and what its
pre-decoding must not change (a store into a decoded word, a run of no-op words, a
breakpoint, a stop request: each exact to the instruction).
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import lc3jit_runtime.interp as interp_module
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import CC_VALUE
from lc3jit_runtime.machine import IO_BASE, MAX_NOOP_RUN, WATCH_OBSERVED, Machine
from lc3jit_runtime.outcome import Outcome

from .machine_code import HALT, ORIGIN, op

MASK = 0xFFFF
N, Z, P = 0b100, 0b010, 0b001


def sext(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def codes_of(value: int) -> int:
    return N if value & 0x8000 else Z if value == 0 else P


def appendix_a(
    word: int, pc: int, reg: list[int], cond: int, mem: Callable[[int], int], edition: int
) -> tuple[list[int], int, int, dict[int, int], list[int]]:
    """One instruction as the semantics table states it, from the bits of the word: the
    registers, the next PC, the codes, the stores, and the addresses loaded from."""
    opcode, dr, sr1 = word >> 12, (word >> 9) & 7, (word >> 6) & 7
    reg, npc, stores, loads = list(reg), (pc + 1) & MASK, {}, []

    def load(address: int) -> int:
        loads.append(address)
        return mem(address)

    if opcode in (0b0001, 0b0101):  # ADD, AND: SR2 or imm5
        operand = sext(word, 5) & MASK if word & 0x20 else reg[word & 7]
        reg[dr] = (reg[sr1] + operand) & MASK if opcode == 0b0001 else reg[sr1] & operand
        cond = codes_of(reg[dr])
    elif opcode == 0b1001:  # NOT
        reg[dr] = ~reg[sr1] & MASK
        cond = codes_of(reg[dr])
    elif opcode == 0b0000:  # BR: nzp = 000 never branches
        if (word >> 9) & 7 & cond:
            npc = (npc + sext(word, 9)) & MASK
    elif opcode == 0b1100:  # JMP, RET
        npc = reg[sr1]
    elif opcode == 0b0100:  # JSR, JSRR: R7 written after the target is read
        target = (npc + sext(word, 11)) & MASK if word & 0x800 else reg[sr1]
        reg[7], npc = npc, target
    elif opcode == 0b0010:  # LD
        reg[dr] = load((npc + sext(word, 9)) & MASK)
        cond = codes_of(reg[dr])
    elif opcode == 0b1010:  # LDI
        reg[dr] = load(load((npc + sext(word, 9)) & MASK))
        cond = codes_of(reg[dr])
    elif opcode == 0b0110:  # LDR
        reg[dr] = load((reg[sr1] + sext(word, 6)) & MASK)
        cond = codes_of(reg[dr])
    elif opcode == 0b1110:  # LEA: codes in the 2nd edition only
        reg[dr] = (npc + sext(word, 9)) & MASK
        cond = codes_of(reg[dr]) if edition == 2 else cond
    elif opcode == 0b0011:  # ST
        stores[(npc + sext(word, 9)) & MASK] = reg[dr]
    elif opcode == 0b1011:  # STI
        stores[load((npc + sext(word, 9)) & MASK)] = reg[dr]
    elif opcode == 0b0111:  # STR
        stores[(reg[sr1] + sext(word, 6)) & MASK] = reg[dr]
    return reg, npc, cond, stores, loads


def machine(words: list[int], origin: int = ORIGIN, edition: int = 3, keys: bytes = b"") -> Machine:
    m = Machine(Console(io.BytesIO(keys), io.BytesIO()), edition)
    m.load_words(origin, words)
    m.pc = origin
    return m


#: Every opcode but RTI, the reserved one and TRAP (test_machine, test_traps, test_os).
OPCODES = [code for code in range(16) if code not in (0b1000, 0b1101, 0b1111)]


def contents(seed: int, word: int, pc: int) -> Callable[[int], int]:
    """What memory holds before the instruction: the word at pc, a different word elsewhere."""
    return lambda address: word if address == pc else (address * 40503 + seed) & MASK


@pytest.mark.parametrize("opcode", OPCODES, ids=[f"{code:04b}" for code in OPCODES])
@given(
    operands=st.integers(0, 0xFFF),
    pc=st.integers(0, IO_BASE - 1),
    reg=st.lists(st.integers(0, MASK), min_size=8, max_size=8),
    cond=st.sampled_from([N, Z, P]),
    edition=st.sampled_from([2, 3]),
    seed=st.integers(0, MASK),
)
def test_one_instruction_does_what_appendix_a_says(
    opcode: int, operands: int, pc: int, reg: list[int], cond: int, edition: int, seed: int
) -> None:
    word = opcode << 12 | operands
    memory = contents(seed, word, pc)
    regs, npc, codes, stores, loads = appendix_a(word, pc, reg, cond, memory, edition)
    assume(all(address < IO_BASE for address in (*stores, *loads)))  # devices: test_devices, test_machine
    m = Machine(Console(io.BytesIO(), io.BytesIO()), edition)
    for address in loads:
        m.mem[address] = memory(address)
    m.mem[pc], m.reg[:], m.ccv, m.pc = word, reg, CC_VALUE[cond], pc
    expected = list(m.mem)
    for address, value in stores.items():
        expected[address] = value

    outcome = Interpreter(m).run(1)

    assert outcome.ending is Ending.STEP_LIMIT and m.icount == 1
    assert (m.reg, m.pc, m.cond) == (regs, npc, codes)
    assert m.mem == expected


def test_a_store_into_a_run_of_no_op_words_ahead_is_run() -> None:
    """Words below x0200 are BRs that never branch, run many at a time; a store that puts
    an instruction into such a run ahead of the PC is the instruction that runs there."""
    m = machine([op("LEA", dr=1, pcoffset9=2), op("STR", sr=2, baser=1, offset6=0), 0, 0, 0, 0, HALT])
    interp = Interpreter(m)
    assert interp.run(2).ending is Ending.STEP_LIMIT  # the run of zeros at x3002 decoded as one
    m.reg[2] = op("ADDI", dr=3, sr1=3, imm5=7)  # stored at x3002 by a second pass: jump back
    m.pc = ORIGIN + 1
    assert interp.run().ending is Ending.HALT
    assert m.reg[3] == 7 and m.icount == 2 + 1 + 4 + 1


def test_long_runs_of_no_op_words_count_every_word_and_stop_exactly() -> None:
    words = [0] * (MAX_NOOP_RUN + 1000) + [HALT]
    m = machine(words)
    interp = Interpreter(m)
    assert interp.run(MAX_NOOP_RUN + 10).ending is Ending.STEP_LIMIT
    assert m.pc == ORIGIN + MAX_NOOP_RUN + 10
    assert interp.run().ending is Ending.HALT
    assert m.icount == len(words)


def test_a_breakpoint_stops_before_its_instruction_even_inside_a_run_of_no_ops() -> None:
    m = machine([0] * 10 + [op("ADDI", dr=1, sr1=1, imm5=1), HALT])
    interp = Interpreter(m)
    interp.set_stop(ORIGIN + 5, True)
    interp.set_stop(ORIGIN + 10, True)
    assert interp.run().ending is Ending.BREAKPOINT
    assert (m.pc, m.icount) == (ORIGIN + 5, 5)
    interp.set_stop(ORIGIN + 5, False)
    assert interp.run().ending is Ending.BREAKPOINT
    assert (m.pc, m.icount, m.reg[1]) == (ORIGIN + 10, 10, 0)  # the ADD has not run


def test_a_breakpoint_survives_a_store_into_its_word() -> None:
    add = op("ADDI", dr=1, sr1=1, imm5=1)
    m = machine([op("ST", sr=2, pcoffset9=0), add, HALT])
    m.reg[2] = op("ADDI", dr=1, sr1=1, imm5=5)
    interp = Interpreter(m)
    interp.set_stop(ORIGIN + 1, True)
    assert interp.run().ending is Ending.BREAKPOINT
    interp.set_stop(ORIGIN + 1, False)
    assert interp.run().ending is Ending.HALT
    assert m.reg[1] == 5  # the word stored, not the one decoded before


def test_a_stop_requested_by_a_store_ends_the_run_after_it_exactly_and_the_run_goes_on() -> None:
    counting = [op("ADDI", dr=1, sr1=1, imm5=1)] * 3
    m = machine([*counting, op("ST", sr=1, pcoffset9=4), *counting, HALT])
    m.watch[ORIGIN + 8] |= WATCH_OBSERVED
    m.observer = lambda address, value, at, pushed: m.request_stop(Outcome(Ending.INTERRUPTED, "stopped"))
    interp = Interpreter(m)
    assert interp.run().ending is Ending.INTERRUPTED
    assert (m.icount, m.pc, m.mem[ORIGIN + 8], m.reg[1]) == (4, ORIGIN + 4, 3, 3)
    assert m.take_ending() == Outcome(Ending.INTERRUPTED, "stopped")  # as a debugger takes it, to go on
    m.observer = None
    assert interp.run().ending is Ending.HALT
    assert (m.icount, m.reg[1]) == (8, 6)


def test_user_mode_fetching_from_system_space_takes_the_access_violation() -> None:
    """Under an OS (3rd edition) an instruction fetched in user mode from x0000-x2FFF is an
    access-control violation, taken through x0102 on the supervisor stack."""
    m = Machine(Console(io.BytesIO(), io.BytesIO()), 3, full_system=True)
    m.load_words(ORIGIN, [op("JMP", baser=1)])
    m.load_words(0x0102, [0x0500])
    m.load_words(0x0500, [HALT])  # no OS here: stop at the handler's first instruction
    m.load_words(0x2000, [op("ADDI", dr=2, sr1=2, imm5=1)])
    m.pc, m.psr, m.reg[1], m.reg[6] = ORIGIN, 0x8002, 0x2000, 0xFD00
    outcome = Interpreter(m).run(2)
    assert outcome.ending is Ending.STEP_LIMIT
    assert (m.pc, m.user_mode, m.reg[2]) == (0x0500, False, 0)  # the ADD did not run
    assert (m.reg[6], m.saved_usp) == (0x3000 - 2, 0xFD00)
    assert m.mem[0x3000 - 2 + 1] == 0x8002  # the user's PSR under the return address


def test_supervisor_mode_may_fetch_from_system_space() -> None:
    m = Machine(Console(io.BytesIO(), io.BytesIO()), 3, full_system=True)
    m.load_words(0x2000, [op("ADDI", dr=2, sr1=2, imm5=1)])
    m.pc, m.psr = 0x2000, 0x0002
    assert Interpreter(m).run(1).ending is Ending.STEP_LIMIT
    assert (m.reg[2], m.pc) == (1, 0x2001)


def test_a_stop_at_the_first_key_wait_keeps_what_ran() -> None:
    m = machine([op("ADDI", dr=1, sr1=1, imm5=1), op("TRAP", trapvect8=0x20)], keys=b"")
    outcome = Interpreter(m).run()
    assert outcome.ending is Ending.INPUT_EXHAUSTED
    assert (m.icount, m.pc, m.reg[1]) == (1, ORIGIN + 1, 1)


@pytest.mark.parametrize("breakpoints", [2, 300])  # 300: more spans than the table keeps
def test_a_closed_interpreters_table_serves_the_next_one_as_new(
    breakpoints: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grader makes a machine per test, and a closed interpreter's table (as long as
    memory) goes to the next one made: whatever the closed one cached there (decoded words,
    breakpoints, the stopper of a stop requested, a word stored over), the next one decodes
    its own program afresh."""
    monkeypatch.setattr(interp_module, "_SPARE_TABLES", [])
    add = op("ADDI", dr=1, sr1=1, imm5=1)
    first = machine([op("ST", sr=2, pcoffset9=0), add, add, HALT])
    first.reg[2] = op("ADDI", dr=1, sr1=1, imm5=5)
    interp = Interpreter(first)
    for pc in [ORIGIN + 2, *range(0xFDFF, 0xFDFF - breakpoints + 1, -1)]:
        interp.set_stop(pc, True)
    assert interp.run().ending is Ending.BREAKPOINT and first.reg[1] == 5
    first.request_stop(Outcome(Ending.INTERRUPTED, "stopped"))
    assert interp.run().ending is Ending.INTERRUPTED
    table = interp.steps
    interp.close()

    second = machine([op("NOT", dr=1, sr=1), add, add, HALT])
    again = Interpreter(second)
    assert again.steps is table
    assert all(step is again._miss for step in table)
    assert again.run().ending is Ending.HALT
    assert (second.reg[1], second.icount, second.pc) == (0xFFFF + 2 & MASK, 4, ORIGIN + 4)
