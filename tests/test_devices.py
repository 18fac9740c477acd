"""The device registers as loads and stores see them: KBSR, KBDR, DSR, DDR, MCR, PSR."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator

import pytest

from lc3jit.toolchain.asm import assemble
from lc3jit_runtime.console import Console
from lc3jit_runtime.machine import DDR, DSR, KBDR, KBSR, MCR, PSR_ADDR, WAITING_POLLS, Machine

from .conftest import Run, run_on
from .machine_code import HALT, execute, op

edition = pytest.mark.parametrize("edition", [2, 3])


def load_from(address: int, dr: int) -> list[int]:
    """LDI through a pointer placed after the code: the way programs read devices."""
    return [op("LDI", dr=dr, pcoffset9=1), op("BR", nzp=0b111, pcoffset9=1), address]


def store_to(address: int, sr: int) -> list[int]:
    return [op("STI", sr=sr, pcoffset9=1), op("BR", nzp=0b111, pcoffset9=1), address]


@edition
def test_a_kbsr_poll_sees_a_scripted_key_and_kbdr_reads_it(engine: str, edition: int) -> None:
    words = [*load_from(KBSR, 1), *load_from(KBDR, 2), *load_from(KBDR, 3), HALT]
    run = execute(engine, words, keys=b"q", edition=edition)
    m = run.machine
    assert m.reg[1] == 0x8000
    assert m.reg[2] == m.reg[3] == ord("q")  # KBDR keeps the last key


def run_source(engine: str, source: str, keys: bytes, max_steps: int = 1_000_000) -> Run:
    image = assemble(f".ORIG x3000\n{source}\n.END\n").images[0]
    display = io.BytesIO()
    machine = Machine(Console(io.BytesIO(keys), display))
    machine.load_words(image.origin, list(image.words))
    machine.pc = image.origin
    return run_on(engine, machine, display, max_steps)


ECHO_UNTIL_DOT = """
POLL    LDI R1, KBSR_P
        BRzp POLL
        LDI R0, KBDR_P
        OUT
        LD R2, MINUS_DOT
        ADD R2, R0, R2
        BRnp POLL
        LDI R1, KBSR_P      ; anything left? reads 0: nothing
        LEA R0, LAST
        PUTS
        HALT
KBSR_P  .FILL xFE00
KBDR_P  .FILL xFE02
MINUS_DOT .FILL #-46
LAST    .STRINGZ "\\nbye\\n"
"""


def test_a_kbsr_read_with_no_input_left_reads_0_and_the_program_goes_on(engine: str) -> None:
    run = run_source(engine, ECHO_UNTIL_DOT, b"hi.")
    assert (run.outcome.reason, run.output) == ("halt", b"hi.\nbye\nHALT\n")
    assert run.machine.reg[1] == 0  # KBSR[15] clear


def test_kbsr_polled_again_and_again_with_no_input_left_ends_the_run_exactly(engine: str) -> None:
    """The WAITING_POLLS-th empty poll in a row, with nothing printed since, does not run."""
    run = run_source(engine, "LOOP ADD R3, R3, #1\nLDI R1, KBSR_P\nBRzp LOOP\nHALT\nKBSR_P .FILL xFE00", b"")
    assert (run.outcome.reason, run.outcome.exit_code) == ("input-exhausted", 5)
    assert "polls KBSR" in run.outcome.message
    assert run.machine.reg[3] == WAITING_POLLS
    assert run.machine.icount == 3 * (WAITING_POLLS - 1) + 1
    assert run.machine.pc == 0x3001


def test_a_program_that_prints_between_empty_polls_is_not_waiting(engine: str) -> None:
    source = "LOOP LDI R1, KBSR_P\nLD R0, STAR\nOUT\nBRnzp LOOP\nKBSR_P .FILL xFE00\nSTAR .FILL x2A"
    run = run_source(engine, source, b"", max_steps=4 * 3 * WAITING_POLLS)
    assert run.outcome.reason == "step-limit"
    assert run.output == b"*" * (3 * WAITING_POLLS)


def test_a_key_read_resets_the_count_of_empty_polls(engine: str) -> None:
    """Polls that find a key are not empty: only the ones after the last key count."""
    run = run_source(
        engine,
        "LOOP LDI R1, KBSR_P\nBRzp LOOP\nLDI R0, KBDR_P\nBRnzp LOOP\nKBSR_P .FILL xFE00\nKBDR_P .FILL xFE02",
        b"ab",
    )
    assert run.outcome.reason == "input-exhausted"
    assert run.machine.icount == 2 * 4 + 2 * (WAITING_POLLS - 1)
    assert run.machine.reg[0] == ord("b")


@edition
def test_ldr_and_ld_reach_the_device_registers_too(engine: str, edition: int) -> None:
    words = [op("LDR", dr=1, baser=5, offset6=0), op("LDR", dr=2, baser=5, offset6=2), HALT]
    run = execute(engine, words, regs={5: KBSR}, keys=b"k", edition=edition)
    assert (run.machine.reg[1], run.machine.reg[2]) == (0x8000, ord("k"))


@edition
def test_a_key_seen_by_a_poll_is_the_one_getc_reads(engine: str, edition: int) -> None:
    run = execute(
        engine, [*load_from(KBSR, 1), op("TRAP", trapvect8=0x20), HALT], keys=b"ab", edition=edition
    )
    assert run.machine.reg[0] == ord("a")


@pytest.fixture
def terminal(engine: str) -> Iterator[tuple[Callable[[list[int]], Run], int]]:
    """Run words with the keyboard a terminal nobody types on (polls find nothing waiting),
    and the descriptor to type into it."""
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as keyboard:
        display = io.BytesIO()
        machine = Machine(Console(keyboard, display, interactive=True))

        def run(words: list[int]) -> Run:
            machine.load_words(0x3000, words)
            return run_on(engine, machine, display)

        yield run, write_end
    os.close(write_end)


def test_reading_kbdr_clears_the_ready_bit(terminal: tuple[Callable[[list[int]], Run], int]) -> None:
    run, typing = terminal
    os.write(typing, b"z")
    words = [*load_from(KBSR, 1), *load_from(KBSR, 2), *load_from(KBDR, 3), *load_from(KBSR, 4), HALT]
    m = run(words).machine
    assert (m.reg[1], m.reg[2], m.reg[3], m.reg[4]) == (0x8000, 0x8000, ord("z"), 0x0000)


def test_a_poll_on_a_quiet_terminal_does_not_wait(terminal: tuple[Callable[[list[int]], Run], int]) -> None:
    run = terminal[0]([*load_from(KBSR, 1), HALT])
    assert run.outcome.reason == "halt"
    assert run.machine.reg[1] == 0


@edition
def test_the_kbsr_interrupt_enable_bit_is_writable_and_read_back(engine: str, edition: int) -> None:
    words = [*store_to(KBSR, 1), *load_from(KBSR, 2), *store_to(KBSR, 3), *load_from(KBSR, 4), HALT]
    # at priority 7, so that the enabled interrupt is not taken
    run = execute(engine, words, regs={1: 0xFFFF, 3: 0}, psr=0x0702, keys=b"x", edition=edition)
    assert run.machine.reg[2] == 0xC000  # a key waiting, interrupts enabled; bit 15 is not writable
    assert run.machine.reg[4] == 0x8000
    assert run.machine.kbsr_ie == 0


@edition
def test_dsr_is_always_ready_and_ddr_writes_the_low_byte(engine: str, edition: int) -> None:
    words = [*load_from(DSR, 1), *store_to(DDR, 2), *store_to(DDR, 3), HALT]
    run = execute(engine, words, regs={2: 0x4148, 3: 0x0A69}, edition=edition)
    assert run.machine.reg[1] == 0x8000
    assert run.output == b"Hi" + b"HALT\n"


@edition
def test_kbdr_and_dsr_ignore_stores(engine: str, edition: int) -> None:
    words = [*store_to(KBDR, 1), *store_to(DSR, 1), *load_from(KBDR, 2), *load_from(DSR, 3), HALT]
    run = execute(engine, words, regs={1: 0x1234}, edition=edition)
    assert (run.machine.reg[2], run.machine.reg[3]) == (0, 0x8000)


@edition
def test_mcr_reads_with_the_clock_running(engine: str, edition: int) -> None:
    run = execute(engine, [*load_from(MCR, 1), HALT], edition=edition)
    assert run.machine.reg[1] == 0x8000


@edition
def test_clearing_mcr_bit_15_halts_the_machine(engine: str, edition: int) -> None:
    words = [op("ADDI", dr=1, sr1=1, imm5=1), *store_to(MCR, 0), op("ADDI", dr=1, sr1=1, imm5=1), HALT]
    run = execute(engine, words, edition=edition)
    assert (run.outcome.reason, run.outcome.exit_code) == ("halt", 0)
    assert run.machine.reg[1] == 1
    assert run.machine.icount == 2
    assert run.machine.pc == 0x3002  # after the store, like the PC after HALT
    assert run.output == b""  # not the HALT trap: nothing is printed


@edition
def test_mcr_keeps_running_while_bit_15_stays_set(engine: str, edition: int) -> None:
    run = execute(engine, [*store_to(MCR, 1), *load_from(MCR, 2), HALT], regs={1: 0xFFFF}, edition=edition)
    assert run.outcome.reason == "halt"
    assert run.machine.reg[2] == 0xFFFF
    assert run.output == b"HALT\n"


def test_psr_is_a_device_register_in_the_3rd_edition(engine: str) -> None:
    words = [op("ADDI", dr=0, sr1=0, imm5=-1), *load_from(PSR_ADDR, 1), *store_to(PSR_ADDR, 2), HALT]
    run = execute(engine, words, regs={2: 0x0001}, edition=3)
    assert run.machine.reg[1] == 0x0004  # supervisor, priority 0, N
    assert run.machine.cond == 0b001  # written through xFFFC
    assert run.machine.mem[PSR_ADDR] == 0


def test_xfffc_is_plain_memory_in_the_2nd_edition(engine: str) -> None:
    words = [*store_to(PSR_ADDR, 2), *load_from(PSR_ADDR, 1), HALT]
    run = execute(engine, words, regs={2: 0x0004}, edition=2)
    assert run.machine.reg[1] == 0x0004
    assert run.machine.cond == 0b001  # P from the LDI: a PSR write would have set N
    assert run.machine.mem[PSR_ADDR] == 0x0004


@edition
def test_other_words_above_xfe00_are_memory(engine: str, edition: int) -> None:
    words = [*store_to(0xFE08, 2), *load_from(0xFE08, 1), HALT]
    run = execute(engine, words, regs={2: 0x5555}, edition=edition)
    assert run.machine.reg[1] == 0x5555
