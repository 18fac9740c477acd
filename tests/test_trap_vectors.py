"""A TRAP through a vector with no routine, and through one a program installed itself.

Under an OS, an unused vector (x0000 in the table) used to run through zeroed memory into an
access-control violation at x0000 (3rd edition) or a privilege-mode violation (2nd); it is
an undefined trap, as LC3Tools and the textbook's OS call it (docs/semantics.md). Without an
OS, a 3rd-edition TRAP through a program's own routine pushes PSR and PC at R6, which is
x0000 unless the program set a stack: the return address landed on MCR, stopped the clock
and ended the run as if it had halted, silently. That is now a fault that says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.api import MachineFaultError, Simulator
from lc3jit.cli import app

from .conftest import engine_options

UNUSED = '.ORIG x3000\nLEA R0, HELLO\nPUTS\nTRAP x27\nHALT\nHELLO .STRINGZ "hi\\n"\n.END\n'


def own_routine(stack: bool, edition: int) -> str:
    """A program that installs a routine at x26 and calls it, with a stack or without."""
    back = "RTI" if edition == 3 else "RET"
    return f"""
        .ORIG x3000
        {"LD R6, STACK" if stack else ""}
        LEA R0, ROUTINE
        STI R0, VECTOR
        TRAP x26
        LEA R0, BACK
        PUTS
        HALT
ROUTINE LEA R0, INSIDE
        ST R7, SAVE_R7
        PUTS
        LD R7, SAVE_R7
        {back}
SAVE_R7 .BLKW 1
VECTOR  .FILL x26
STACK   .FILL x5000
INSIDE  .STRINGZ "in the routine\\n"
BACK    .STRINGZ "back\\n"
        .END
"""


@pytest.mark.parametrize("edition", [3, 2])
def test_an_unused_vector_under_the_os_is_an_undefined_trap(engine: str, edition: int) -> None:
    sim = Simulator(source=UNUSED, engine=engine, edition=edition, os=True)
    with pytest.raises(MachineFaultError) as info:
        sim.run(max_steps=100_000)
    assert info.value.outcome.message == "undefined trap x27 at x3002"
    assert info.value.exit_code == 3
    assert sim.output == "hi\n"  # the OS's PUTS ran; nothing ran through zeroed memory
    assert sim.pc == 0x3002


@pytest.mark.parametrize("edition", ["3", "2"])
def test_the_cli_says_undefined_trap_with_exit_code_3(tmp_path: Path, engine: str, edition: str) -> None:
    path = tmp_path / "unused.asm"
    path.write_text(UNUSED)
    result = CliRunner().invoke(
        app, ["run", str(path), "--os", "--edition", edition, *engine_options(engine)]
    )
    assert (result.exit_code, result.stdout) == (3, "hi\n")
    assert result.stderr == f"lc3jit: {path}: undefined trap x27 at x3002\n"


def test_without_an_os_an_unknown_vector_is_still_a_fault(engine: str) -> None:
    sim = Simulator(source=UNUSED, engine=engine)
    with pytest.raises(MachineFaultError) as info:
        sim.run(max_steps=100_000)
    assert info.value.outcome.message == "unknown trap vector x27 at x3002"


@pytest.mark.parametrize("edition", [3, 2])
def test_a_routine_the_program_installed_runs_and_returns(engine: str, edition: int) -> None:
    sim = Simulator(source=own_routine(stack=True, edition=edition), engine=engine, edition=edition)
    sim.run(max_steps=100_000)
    assert sim.output == "in the routine\nback\nHALT\n"


def test_a_3rd_edition_trap_with_no_stack_is_a_fault_not_a_silent_stop(engine: str) -> None:
    sim = Simulator(source=own_routine(stack=False, edition=3), engine=engine)
    with pytest.raises(MachineFaultError) as info:
        sim.run(max_steps=100_000)
    assert info.value.outcome.message == (
        "TRAP x26 at x3002 would push PSR and PC onto the device register at xFFFE "
        "(the supervisor stack pointer is x0000): set R6 to a stack first"
    )
    # Nothing of the TRAP happened: R6, the PSR and the words below x0000 are as they were.
    assert (sim.pc, sim.registers[6], sim.psr, sim.memory[0xFFFF]) == (0x3002, 0, 0x0002, 0)
    assert sim.output == ""


def test_a_2nd_edition_trap_pushes_nothing_so_it_needs_no_stack(engine: str) -> None:
    sim = Simulator(source=own_routine(stack=False, edition=2), engine=engine, edition=2)
    sim.run(max_steps=100_000)
    assert sim.output == "in the routine\nback\nHALT\n"


def test_a_keyboard_interrupt_with_no_stack_is_a_fault_too(engine: str) -> None:
    source = """
        .ORIG x3000
        LEA R0, HANDLER
        STI R0, VECTOR
        LD R0, ENABLE
        STI R0, KBSR
LOOP    BRnzp LOOP
HANDLER RTI
VECTOR  .FILL x0180
ENABLE  .FILL x4000
KBSR    .FILL xFE00
        .END
    """
    sim = Simulator(source=source, engine=engine, keys="k")
    with pytest.raises(MachineFaultError, match=r"^the keyboard interrupt at x3004 would push PSR and PC"):
        sim.run(max_steps=100_000)
