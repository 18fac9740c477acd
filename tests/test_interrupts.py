"""Keyboard interrupts: taken through x0180 at priority 4, with or without an OS."""

from __future__ import annotations

import io

import pytest

from lc3jit.session import boot, load_images
from lc3jit.translator.regions import region_engine
from lc3jit_runtime.console import Console

from .machine_code import HALT, execute, op
from .test_os import PROGRAMS, run_program

INTERRUPTS = PROGRAMS / "interrupts.asm"
edition = pytest.mark.parametrize("edition", [3, 2])


@edition
def test_a_handler_echoes_keys_as_they_arrive_while_the_program_loops(engine: str, edition: int) -> None:
    run = run_program(engine, INTERRUPTS, under_os=False, edition=edition, keys=b"abc")
    assert (run.outcome.reason, run.output) == ("halt", b"a.b.c...HALT\n")
    m = run.machine
    assert (m.saved_ssp, m.reg[6], m.kbsr_ie, m.user_mode) == (
        0x2F00,
        0x4000,
        0x4000,
        True,
    )  # the last rounds found no key


def test_interrupt_entry_leaves_the_interpreters_state_at_every_step(engine: str) -> None:
    """Stopped after any number of instructions, every engine is where the interpreter is."""
    full = run_program("interp", INTERRUPTS, under_os=False, keys=b"ab").machine.icount
    for budget in range(0, full + 1, 7):
        runs = [
            run_program(e, INTERRUPTS, under_os=False, keys=b"ab", max_steps=budget)
            for e in ("interp", engine)
        ]
        expected, actual = (run.machine for run in runs)
        assert actual.snapshot() == expected.snapshot(), budget
        assert (actual.icount, actual.mem, runs[1].output) == (expected.icount, expected.mem, runs[0].output)


def test_the_interrupt_pushes_psr_and_pc_and_enters_at_priority_4(engine: str) -> None:
    enable = [op("LD", dr=1, pcoffset9=2), op("STI", sr=1, pcoffset9=2), op("BR", nzp=7, pcoffset9=2)]
    words = [*enable, 0x4000, 0xFE00, op("ADDI", dr=2, sr1=2, imm5=1), HALT]
    run = execute(engine, words, regs={6: 0x5000}, data={0x0180: [0x4000]}, keys=b"k", max_steps=3)
    m = run.machine
    assert (m.pc, m.psr & 0x8700, m.reg[6]) == (0x4001, 0x0400, 0x4FFE)  # one handler word run
    assert m.mem[0x4FFE:0x5000] == [0x3002, 0x0001]  # the next PC, then the PSR (codes P from the LD)
    assert m.reg[2] == 0 and m.kbd_latch == ord("k")


def test_an_interrupt_with_no_handler_is_a_fault(engine: str) -> None:
    words = [op("LD", dr=1, pcoffset9=2), op("STI", sr=1, pcoffset9=2), HALT, 0x4000, 0xFE00]
    run = execute(engine, words, keys=b"k")
    assert (run.outcome.reason, run.outcome.message) == (
        "fault",
        "keyboard interrupt with no handler at x0180, at x3002",
    )


def test_no_interrupt_without_a_key(engine: str) -> None:
    words = [op("LD", dr=1, pcoffset9=2), op("STI", sr=1, pcoffset9=2), HALT, 0x4000, 0xFE00]
    run = execute(engine, words)
    assert (run.outcome.reason, run.output) == ("halt", b"HALT\n")


def test_the_os_default_handler_returns_at_once(engine: str) -> None:
    """Under an OS in the 2nd edition a user program may enable interrupts; lc3os just returns."""
    words = [op("LD", dr=1, pcoffset9=2), op("STI", sr=1, pcoffset9=2), HALT, 0x4000, 0xFE00]
    run = run_program(engine, words, edition=2, keys=b"k", max_steps=100)
    assert run.outcome.reason == "step-limit"  # the key is never read: the interrupt comes again
    assert run.machine.kbd_latch == ord("k") and run.machine.pc in (0x3002, *range(0x0200, 0x0400))


def test_translated_code_keeps_running_while_interrupts_are_enabled() -> None:
    """The delay loop, run with interrupts enabled in every round, becomes a region entered
    once a round, instead of the interpreter taking the whole run over."""
    display = io.BytesIO()
    images = load_images([INTERRUPTS])
    machine = boot(images, Console(io.BytesIO(b"abc"), display), 3)
    engine = region_engine(machine, profile=True)
    assert engine.run(200_000).reason == "halt"
    machine.console.flush()
    assert display.getvalue() == b"a.b.c...HALT\n"
    assert engine.runs == {**engine.runs, images[0].symbols["WAIT"]: 5}
