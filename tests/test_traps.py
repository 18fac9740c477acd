"""TRAP: the six host routines byte for byte, the registers each edition leaves, and the
vector table for any other vector."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from .machine_code import GETC, HALT, IN, ORIGIN, OUT, PUTS, PUTSP, execute, op, trap

N, Z, P = 0b100, 0b010, 0b001
SET_N = op("ADDI", dr=1, sr1=1, imm5=-1)
#: After the trap under test: keep R7 in memory (ST sets no codes), then stop.
KEEP_R7_THEN_HALT = [op("ST", sr=7, pcoffset9=1), HALT]
R7_KEPT_AT = ORIGIN + 4  # for programs of SET_N, the trap, then KEEP_R7_THEN_HALT
OLD_R7 = 0x1234


def run_trap(
    engine: str,
    word: int,
    edition: int,
    keys: bytes = b"",
    regs: Mapping[int, int] | None = None,
    data: Mapping[int, Sequence[int]] | None = None,
) -> tuple[int, int, int, bytes]:
    """Run SET_N, the trap, KEEP_R7_THEN_HALT: (R0, R7 after the trap, codes, output)."""
    regs = {7: OLD_R7, **(regs or {})}
    run = execute(engine, [SET_N, word, *KEEP_R7_THEN_HALT], regs=regs, data=data, keys=keys, edition=edition)
    assert run.outcome.reason == "halt", run.outcome
    m = run.machine
    return m.reg[0], m.mem[R7_KEPT_AT], m.cond, run.output.removesuffix(b"HALT\n")


@pytest.mark.parametrize(("edition", "r7", "cond"), [(2, ORIGIN + 2, P), (3, OLD_R7, N)])
def test_getc_reads_one_key_without_echo(engine: str, edition: int, r7: int, cond: int) -> None:
    """2nd edition: R7 = PC and codes from R0; 3rd: the trap returns with RTI, both kept."""
    assert run_trap(engine, GETC, edition, keys=b"Ab") == (ord("A"), r7, cond, b"")


@pytest.mark.parametrize(("edition", "cond"), [(2, Z), (3, N)])
def test_getc_of_a_nul_key(engine: str, edition: int, cond: int) -> None:
    assert run_trap(engine, GETC, edition, keys=b"\0")[2] == cond


@pytest.mark.parametrize("edition", [2, 3])
def test_getc_clears_bits_15_to_8(engine: str, edition: int) -> None:
    assert run_trap(engine, GETC, edition, keys=b"\xe9", regs={0: 0xFFFF})[0] == 0x00E9


@pytest.mark.parametrize(("edition", "r7", "cond"), [(2, ORIGIN + 2, P), (3, OLD_R7, N)])
def test_in_prompts_reads_and_echoes(engine: str, edition: int, r7: int, cond: int) -> None:
    assert run_trap(engine, IN, edition, keys=b"7") == (ord("7"), r7, cond, b"Enter a character: 7")


@pytest.mark.parametrize(("edition", "r7"), [(2, ORIGIN + 2), (3, OLD_R7)])
def test_out_writes_the_low_byte_of_r0(engine: str, edition: int, r7: int) -> None:
    assert run_trap(engine, OUT, edition, regs={0: 0x1241}) == (0x1241, r7, N, b"A")


#: "Hi!\n" one character a word; PUTS ignores each high byte.
PUTS_TEXT = [0x0048, 0xFF69, 0x0021, 0x000A, 0x0000, 0x0058]


@pytest.mark.parametrize(("edition", "r7"), [(2, ORIGIN + 2), (3, OLD_R7)])
def test_puts_writes_one_character_a_word_until_x0000(engine: str, edition: int, r7: int) -> None:
    result = run_trap(engine, PUTS, edition, regs={0: 0x4000}, data={0x4000: PUTS_TEXT})
    assert result == (0x4000, r7, N, b"Hi!\n")


#: "Hello": two characters a word, low byte first; the last word has only a low byte.
PUTSP_TEXT = [0x6548, 0x6C6C, 0x006F, 0x0000, 0x5858]


@pytest.mark.parametrize(("edition", "r7"), [(2, ORIGIN + 2), (3, OLD_R7)])
def test_putsp_writes_two_characters_a_word(engine: str, edition: int, r7: int) -> None:
    result = run_trap(engine, PUTSP, edition, regs={0: 0x4000}, data={0x4000: PUTSP_TEXT})
    assert result == (0x4000, r7, N, b"Hello")


@pytest.mark.parametrize("word", [PUTS, PUTSP])
def test_an_empty_string_writes_nothing(engine: str, word: int) -> None:
    assert run_trap(engine, word, 3, regs={0: 0x4000})[3] == b""


@pytest.mark.parametrize("edition", [2, 3])
def test_a_string_running_past_xffff_wraps_to_x0000(engine: str, edition: int) -> None:
    result = run_trap(
        engine, PUTS, edition, regs={0: 0xFFFF}, data={0xFFFF: [ord("a")], 0x0000: [ord("b"), 0]}
    )
    assert result[3] == b"ab"


@pytest.mark.parametrize(("edition", "r7"), [(2, ORIGIN + 1), (3, OLD_R7)])
def test_halt_prints_halt_and_stops_after_itself(engine: str, edition: int, r7: int) -> None:
    run = execute(engine, [HALT, HALT], regs={7: OLD_R7}, edition=edition)
    assert (run.outcome.reason, run.outcome.exit_code, run.output) == ("halt", 0, b"HALT\n")
    assert (run.machine.pc, run.machine.icount, run.machine.reg[7]) == (ORIGIN + 1, 1, r7)


@pytest.mark.parametrize("word", [GETC, IN])
@pytest.mark.parametrize("edition", [2, 3])
def test_waiting_for_a_key_after_the_input_ends_stops_the_run(engine: str, word: int, edition: int) -> None:
    run = execute(engine, [GETC, word, HALT], keys=b"x", edition=edition)
    assert (run.outcome.reason, run.outcome.exit_code) == ("input-exhausted", 5)
    assert "waits for a key" in run.outcome.message
    assert (run.machine.pc, run.machine.icount) == (ORIGIN + 1, 1)  # on the trap that waited
    assert run.output == (b"Enter a character: " if word == IN else b"")


@pytest.mark.parametrize("vector", [0x00, 0x26, 0xFF])
@pytest.mark.parametrize("edition", [2, 3])
def test_an_unknown_vector_with_no_routine_is_a_fault(engine: str, vector: int, edition: int) -> None:
    run = execute(engine, [SET_N, trap(vector), HALT], edition=edition)
    assert (run.outcome.reason, run.outcome.exit_code) == ("fault", 3)
    assert f"trap vector x{vector:02X} at x3001" in run.outcome.message
    assert (run.machine.pc, run.machine.icount) == (ORIGIN + 1, 1)


#: A routine for vector x26: R2 += 1 (setting P), then return as the edition returns.
def routine(edition: int) -> list[int]:
    return [op("ADDI", dr=2, sr1=2, imm5=1), op("JMP", baser=7) if edition == 2 else op("RTI")]


def test_an_installed_routine_runs_through_the_table_2nd_edition(engine: str) -> None:
    """R7 = PC; PC = M[x26]; the routine returns with RET and its codes stay."""
    _, r7, cond, _ = run_trap(engine, trap(0x26), 2, data={0x0026: [0x5000], 0x5000: routine(2)})
    assert (r7, cond) == (ORIGIN + 2, P)


def test_an_installed_routine_runs_through_the_table_3rd_edition(engine: str) -> None:
    """PSR and PC pushed on the supervisor stack; RTI restores both, so R7 and codes stay."""
    run = execute(
        engine,
        [SET_N, trap(0x26), HALT],
        regs={6: 0x6000, 7: OLD_R7},
        data={0x0026: [0x5000], 0x5000: routine(3)},
        edition=3,
    )
    m = run.machine
    assert run.outcome.reason == "halt"
    assert (m.reg[2], m.reg[6], m.reg[7], m.cond) == (1, 0x6000, OLD_R7, N)
    assert (m.mem[0x5FFF], m.mem[0x5FFE]) == (0x0004, ORIGIN + 2)  # PSR (N), then the return PC


def test_a_trap_from_user_mode_switches_to_the_supervisor_stack(engine: str) -> None:
    run = execute(
        engine,
        [trap(0x26), HALT],
        psr=0x8002,
        regs={6: 0x7000},
        data={0x0026: [0x5000], 0x5000: routine(3)},
        edition=3,
    )
    m = run.machine
    assert (m.reg[6], m.saved_ssp, m.psr) == (0x7000, 0x3000, 0x8002)
    assert (m.mem[0x2FFF], m.mem[0x2FFE]) == (0x8002, ORIGIN + 1)


@pytest.mark.parametrize("edition", [2, 3])
def test_host_routines_take_precedence_over_the_table(engine: str, edition: int) -> None:
    """With no OS loaded, x20-x25 are done by the host even when M[vector] is set."""
    run = execute(
        engine, [HALT], data={0x0025: [0x5000], 0x5000: [op("ADDI", dr=2, sr1=2, imm5=1)]}, edition=edition
    )
    assert (run.outcome.reason, run.output, run.machine.reg[2]) == ("halt", b"HALT\n", 0)
