"""Every instruction form on every engine, in both editions, as Appendix A states it.

Each test runs a few words ending in HALT (which leaves R0-R6 and the codes alone in both
editions; the 2nd edition's TRAP sets R7) and checks registers, memory, codes and where
the PC went.
"""

from __future__ import annotations

import pytest

from lc3jit.session import ENGINES

from .machine_code import HALT, ORIGIN, execute, op

N, Z, P = 0b100, 0b010, 0b001

edition = pytest.mark.parametrize("edition", [2, 3])


@edition
@pytest.mark.parametrize(
    ("word", "regs", "result", "cond"),
    [
        (op("ADD", dr=2, sr1=0, sr2=1), {0: 1, 1: 2}, 3, P),
        (op("ADD", dr=2, sr1=0, sr2=1), {0: 0x7FFF, 1: 1}, 0x8000, N),
        (op("ADD", dr=2, sr1=0, sr2=1), {0: 0xFFFF, 1: 1}, 0, Z),  # modulo 2^16
        (op("ADD", dr=2, sr1=0, sr2=0), {0: 0x8000}, 0, Z),
        (op("ADDI", dr=2, sr1=0, imm5=-16), {0: 0}, 0xFFF0, N),
        (op("ADDI", dr=2, sr1=0, imm5=15), {0: 0xFFF0}, 0xFFFF, N),
        (op("ADDI", dr=2, sr1=0, imm5=-1), {0: 1}, 0, Z),
        (op("AND", dr=2, sr1=0, sr2=1), {0: 0xF0F0, 1: 0x0FF0}, 0x00F0, P),
        (op("AND", dr=2, sr1=0, sr2=1), {0: 0x8001, 1: 0xFFFE}, 0x8000, N),
        (op("ANDI", dr=2, sr1=0, imm5=-1), {0: 0xABCD}, 0xABCD, N),  # imm5 = -1 is xFFFF
        (op("ANDI", dr=2, sr1=0, imm5=-16), {0: 0x001F}, 0x0010, P),  # -16 is xFFF0
        (op("ANDI", dr=2, sr1=0, imm5=0), {0: 0xFFFF}, 0, Z),
        (op("NOT", dr=2, sr=0), {0: 0}, 0xFFFF, N),
        (op("NOT", dr=2, sr=0), {0: 0xFFFF}, 0, Z),
        (op("NOT", dr=2, sr=0), {0: 0x8000}, 0x7FFF, P),
    ],
)
def test_operate_instructions_compute_and_set_codes(
    engine: str, edition: int, word: int, regs: dict[int, int], result: int, cond: int
) -> None:
    run = execute(engine, [word, HALT], regs=regs, edition=edition)
    assert run.machine.reg[2] == result
    assert run.machine.cond == cond
    assert run.outcome.reason == "halt"


@edition
def test_destination_may_be_a_source(engine: str, edition: int) -> None:
    run = execute(
        engine,
        [op("ADD", dr=1, sr1=1, sr2=1), op("NOT", dr=3, sr=3), HALT],
        regs={1: 21, 3: 5},
        edition=edition,
    )
    assert run.machine.reg[1] == 42
    assert run.machine.reg[3] == 0xFFFA


@edition
def test_initial_codes_are_z(engine: str, edition: int) -> None:
    run = execute(engine, [HALT], edition=edition)
    assert run.machine.cond == Z
    assert run.machine.psr == 0x0002  # host-trap mode: supervisor, priority 0, Z


#: Instructions that leave the codes as they are: for each, ones that set them before.
SET_CODES = {
    N: op("ADDI", dr=0, sr1=0, imm5=-1),
    Z: op("ANDI", dr=0, sr1=0, imm5=0),
    P: op("ADDI", dr=0, sr1=0, imm5=1),
}
#: Codes other than the ones an instruction should set, to set before it.
OTHER = {N: P, Z: N, P: N}


@edition
@pytest.mark.parametrize("nzp", range(8))
@pytest.mark.parametrize("cond", [N, Z, P])
def test_br_is_taken_exactly_when_a_named_code_is_set(engine: str, edition: int, nzp: int, cond: int) -> None:
    """BR with nzp = 000 never branches; BRnzp always does."""
    skipped = op("ST", sr=5, pcoffset9=1)  # marks the fall-through in memory and sets no codes
    words = [SET_CODES[cond], op("BR", nzp=nzp, pcoffset9=1), skipped, HALT]
    run = execute(engine, words, regs={5: 0x1234}, edition=edition)
    taken = bool(nzp & cond)
    assert run.machine.mem[ORIGIN + 4] == (0 if taken else 0x1234)
    assert run.machine.cond == cond  # BR itself sets nothing


@edition
@pytest.mark.parametrize("offset", [-256, -1, 1, 255])
def test_br_offset_is_sign_extended_pcoffset9(engine: str, edition: int, offset: int) -> None:
    origin = 0x4000
    target = origin + 1 + offset
    run = execute(
        engine, [op("BR", nzp=0b111, pcoffset9=offset)], origin=origin, data={target: [HALT]}, edition=edition
    )
    assert run.outcome.reason == "halt"
    assert run.machine.pc == target + 1


@edition
def test_jmp_and_ret_go_to_the_base_register(engine: str, edition: int) -> None:
    jmp = op("JMP", baser=3)
    ret = op("JMP", baser=7)
    run = execute(
        engine, [jmp], regs={3: 0x5000, 7: 0x6000}, data={0x5000: [ret], 0x6000: [HALT]}, edition=edition
    )
    assert run.machine.pc == 0x6001
    assert run.machine.icount == 3


#: A subroutine that keeps R7 in R6 before HALT, which sets R7 in the 2nd edition.
KEEP_R7 = [op("ADDI", dr=6, sr1=7, imm5=0), HALT]


@edition
@pytest.mark.parametrize("offset", [-1024, -3, 0, 1023])
def test_jsr_saves_the_return_address_and_sign_extends_pcoffset11(
    engine: str, edition: int, offset: int
) -> None:
    origin = 0x8000
    target = origin + 1 + offset
    run = execute(
        engine, [op("JSR", pcoffset11=offset)], origin=origin, data={target: KEEP_R7}, edition=edition
    )
    assert run.machine.pc == target + 2
    assert run.machine.reg[6] == origin + 1


@edition
def test_jsrr_jumps_to_the_base_register_and_saves_the_return_address(engine: str, edition: int) -> None:
    run = execute(engine, [op("JSRR", baser=2)], regs={2: 0x5000}, data={0x5000: KEEP_R7}, edition=edition)
    assert run.machine.pc == 0x5002
    assert run.machine.reg[6] == ORIGIN + 1


@edition
def test_jsrr_r7_jumps_to_the_old_r7(engine: str, edition: int) -> None:
    run = execute(engine, [op("JSRR", baser=7)], regs={7: 0x5000}, data={0x5000: KEEP_R7}, edition=edition)
    assert run.machine.pc == 0x5002
    assert run.machine.reg[6] == ORIGIN + 1


@edition
@pytest.mark.parametrize(("value", "cond"), [(0x8000, N), (0, Z), (0x1234, P)])
@pytest.mark.parametrize("offset", [-256, 255])
def test_ld_loads_from_pc_plus_pcoffset9_and_sets_codes(
    engine: str, edition: int, value: int, cond: int, offset: int
) -> None:
    origin = 0x4000
    run = execute(
        engine,
        [SET_CODES[OTHER[cond]], op("LD", dr=4, pcoffset9=offset), HALT],
        origin=origin,
        data={origin + 2 + offset: [value]},
        edition=edition,
    )
    assert run.machine.reg[4] == value
    assert run.machine.cond == cond


@edition
@pytest.mark.parametrize(("value", "cond"), [(0x8000, N), (0, Z), (0x1234, P)])
def test_ldi_loads_through_a_pointer_and_sets_codes(engine: str, edition: int, value: int, cond: int) -> None:
    run = execute(
        engine,
        [SET_CODES[OTHER[cond]], op("LDI", dr=4, pcoffset9=1), HALT, 0x5000],
        data={0x5000: [value]},
        edition=edition,
    )
    assert run.machine.reg[4] == value
    assert run.machine.cond == cond


@edition
@pytest.mark.parametrize("offset", [-32, -1, 0, 31])
def test_ldr_sign_extends_offset6(engine: str, edition: int, offset: int) -> None:
    run = execute(
        engine,
        [op("LDR", dr=4, baser=1, offset6=offset), HALT],
        regs={1: 0x5000},
        data={0x5000 + offset: [0x8765]},
        edition=edition,
    )
    assert run.machine.reg[4] == 0x8765
    assert run.machine.cond == N


@edition
@pytest.mark.parametrize(("base", "offset", "address"), [(0xFFFF, 2, 0x0001), (0x0000, -1, 0xFFFF)])
def test_base_plus_offset_wraps_at_xffff(
    engine: str, edition: int, base: int, offset: int, address: int
) -> None:
    """LDR and STR both compute BaseR + SEXT(offset6) modulo 2^16."""
    run = execute(
        engine,
        [op("LDR", dr=4, baser=1, offset6=offset), op("STR", sr=5, baser=1, offset6=offset), HALT],
        regs={1: base, 5: 0x0BAD},
        data={address: [0x1111]},
        edition=edition,
    )
    assert run.machine.reg[4] == 0x1111
    assert run.machine.mem[address] == 0x0BAD


@pytest.mark.parametrize(("edition", "cond"), [(2, P), (3, N)])
def test_lea_sets_codes_in_the_2nd_edition_only(engine: str, edition: int, cond: int) -> None:
    run = execute(engine, [SET_CODES[N], op("LEA", dr=3, pcoffset9=-2), HALT], edition=edition)
    assert run.machine.reg[3] == ORIGIN
    assert run.machine.cond == cond


def test_lea_of_a_high_address_sets_n_in_the_2nd_edition(engine: str) -> None:
    run = execute(engine, [SET_CODES[P], op("LEA", dr=3, pcoffset9=5), HALT], origin=0xC000, edition=2)
    assert run.machine.reg[3] == 0xC007
    assert run.machine.cond == N


@edition
def test_pc_relative_addresses_wrap_at_xffff(engine: str, edition: int) -> None:
    run = execute(
        engine,
        [op("LEA", dr=1, pcoffset9=-2), op("LD", dr=2, pcoffset9=-3), HALT],
        origin=0x0000,
        data={0xFFFF: [0x4242]},
        edition=edition,
    )
    assert run.machine.reg[1] == 0xFFFF
    assert run.machine.reg[2] == 0x4242


@edition
def test_the_pc_wraps_from_xffff_to_x0000(engine: str, edition: int) -> None:
    run = execute(
        engine, [op("ADDI", dr=1, sr1=1, imm5=1)], origin=0xFFFF, data={0x0000: [HALT]}, edition=edition
    )
    assert run.machine.reg[1] == 1
    assert run.machine.pc == 0x0001
    assert run.machine.icount == 2


@edition
@pytest.mark.parametrize(
    ("word", "address"),
    [
        (op("ST", sr=5, pcoffset9=2), ORIGIN + 4),
        (op("STI", sr=5, pcoffset9=1), 0x5000),
        (op("STR", sr=5, baser=1, offset6=-3), 0x5000 - 3),
    ],
)
@pytest.mark.parametrize("cond", [N, Z, P])
def test_stores_write_memory_and_leave_the_codes(
    engine: str, edition: int, word: int, address: int, cond: int
) -> None:
    run = execute(engine, [SET_CODES[cond], word, HALT, 0x5000], regs={1: 0x5000, 5: 0xBEEF}, edition=edition)
    assert run.machine.mem[address] == 0xBEEF
    assert run.machine.cond == cond


@edition
def test_a_store_into_code_already_run_is_seen_the_next_time(engine: str, edition: int) -> None:
    """Self-modifying code: the second pass runs the patched ADD (R1 = 1 + 2)."""
    words = [
        op("LD", dr=0, pcoffset9=6),  # R0 = the patch
        op("ADDI", dr=1, sr1=1, imm5=1),  # patched to ADD R1, R1, #2 after its first run
        op("ST", sr=0, pcoffset9=-2),
        op("ADDI", dr=2, sr1=2, imm5=1),
        op("ADDI", dr=3, sr1=2, imm5=-2),
        op("BR", nzp=N, pcoffset9=-5),
        HALT,
        op("ADDI", dr=1, sr1=1, imm5=2),
    ]
    run = execute(engine, words, edition=edition)
    assert run.machine.reg[1] == 3
    assert run.machine.mem[ORIGIN + 1] == words[-1]


@edition
def test_a_store_into_the_next_instruction_takes_effect_before_it_runs(engine: str, edition: int) -> None:
    words = [op("LD", dr=0, pcoffset9=3), op("ST", sr=0, pcoffset9=0), op("ADDI", dr=1, sr1=1, imm5=1), HALT]
    run = execute(engine, [*words, op("ADDI", dr=1, sr1=1, imm5=9)], edition=edition)
    assert run.machine.reg[1] == 9


@edition
@pytest.mark.parametrize(
    ("popped_psr", "r6"),
    [(0x0001, 0x3000), (0x8004, 0x0000)],  # back to user mode: R6 = Saved_USP, never set here
    ids=["to-supervisor", "to-user"],
)
def test_rti_in_supervisor_mode_pops_pc_then_psr(engine: str, edition: int, popped_psr: int, r6: int) -> None:
    run = execute(
        engine,
        [op("RTI")],
        regs={6: 0x2FFE},
        data={0x2FFE: [0x5000, popped_psr], 0x5000: [HALT]},
        edition=edition,
    )
    m = run.machine
    assert (m.pc, m.psr, m.reg[6]) == (0x5001, popped_psr, r6)  # the codes too come from the PSR
    assert m.saved_ssp == 0x3000


@edition
def test_rti_in_user_mode_without_a_handler_is_a_fault(engine: str, edition: int) -> None:
    run = execute(engine, [op("RTI")], psr=0x8002, edition=edition)
    assert (run.outcome.reason, run.outcome.exit_code) == ("fault", 3)
    assert run.machine.pc == ORIGIN
    assert run.machine.icount == 0


@edition
def test_rti_in_user_mode_takes_the_privilege_exception(engine: str, edition: int) -> None:
    run = execute(
        engine,
        [op("RTI")],
        psr=0x8001,
        regs={6: 0x7000},
        data={0x0100: [0x5000], 0x5000: [HALT]},
        edition=edition,
    )
    m = run.machine
    assert m.pc == 0x5001
    assert not m.user_mode
    assert m.saved_usp == 0x7000
    assert m.reg[6] == 0x3000 - 2  # the supervisor stack holds PSR, then PC
    assert m.mem[0x2FFF] == 0x8001
    assert m.mem[0x2FFE] == ORIGIN + 1


@edition
def test_the_reserved_opcode_without_a_handler_is_a_fault(engine: str, edition: int) -> None:
    run = execute(engine, [op("ADDI", dr=1, sr1=1, imm5=1), 0xD000, HALT], edition=edition)
    assert (run.outcome.reason, run.outcome.exit_code) == ("fault", 3)
    assert "illegal opcode xD000" in run.outcome.message
    assert run.machine.pc == ORIGIN + 1  # left on the illegal word, which did not execute
    assert run.machine.icount == 1


@edition
def test_the_reserved_opcode_runs_the_handler_installed_at_x0101(engine: str, edition: int) -> None:
    """The handler sees PSR and the incremented PC on the stack, and RTI returns past the word."""
    run = execute(
        engine,
        [0xDFFF, op("ADDI", dr=1, sr1=1, imm5=7), HALT],
        regs={6: 0x6000},
        data={0x0101: [0x5000], 0x5000: [op("ADDI", dr=2, sr1=2, imm5=1), op("RTI")]},
        edition=edition,
    )
    m = run.machine
    assert run.outcome.reason == "halt"
    assert (m.reg[1], m.reg[2], m.reg[6]) == (7, 1, 0x6000)
    assert (m.mem[0x5FFF], m.mem[0x5FFE]) == (0x0002, ORIGIN + 1)
    assert m.icount == 5


#: Counting down from 10: one ADD, ten times ADD and BRp, then HALT: 22 instructions.
COUNTDOWN = [
    op("ADDI", dr=1, sr1=1, imm5=10),
    op("ADDI", dr=1, sr1=1, imm5=-1),
    op("BR", nzp=P, pcoffset9=-2),
    HALT,
]


@pytest.mark.parametrize(
    ("max_steps", "reason", "icount", "pc"),
    [
        (0, "step-limit", 0, ORIGIN),
        (1, "step-limit", 1, ORIGIN + 1),
        (2, "step-limit", 2, ORIGIN + 2),
        (3, "step-limit", 3, ORIGIN + 1),
        (21, "step-limit", 21, ORIGIN + 3),
        (22, "halt", 22, ORIGIN + 4),
        (23, "halt", 22, ORIGIN + 4),
        (None, "halt", 22, ORIGIN + 4),
    ],
)
def test_instruction_count_and_step_limit_are_exact(
    engine: str, max_steps: int | None, reason: str, icount: int, pc: int
) -> None:
    run = execute(engine, COUNTDOWN, max_steps=max_steps)
    assert (run.outcome.reason, run.machine.icount, run.machine.pc) == (reason, icount, pc)
    assert run.outcome.exit_code == {"halt": 0, "step-limit": 4}[reason]


def test_a_run_resumes_where_a_step_limit_left_it(engine: str) -> None:
    first = execute(engine, COUNTDOWN, max_steps=7)
    rest = ENGINES[engine](first.machine).run(None)
    assert rest.reason == "halt"
    assert first.machine.icount == 22
    assert first.machine.reg[1] == 0
