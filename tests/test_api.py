"""The Python API, on every engine: what a grader or a script sees."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from lc3jit.api import (
    RETURN_ADDRESS,
    CallError,
    InputEndedError,
    MachineFaultError,
    Simulator,
    StepLimitError,
)
from lc3jit.toolchain.asm import AssemblyError
from lc3jit_runtime.errors import LoadError

EXAMPLES = Path(__file__).parent.parent / "examples"
HELLO_OUTPUT = "Hello, World!\nHALT\n"

MULTIPLY = """
        .ORIG x3000
        LEA R0, HELLO
        PUTS
        HALT
; R0 = R0 * R1 (R1 >= 0), by repeated addition; R2 saved
MULTIPLY ST R2, SAVE2
        AND R2, R2, #0
        ADD R1, R1, #0
TIMES   BRz DONE
        ADD R2, R2, R0
        ADD R1, R1, #-1
        BR TIMES
DONE    ADD R0, R2, #0
        LD R2, SAVE2
        RET
SAVE2   .BLKW 1
HELLO   .STRINGZ "hi\\n"
RESULT  .FILL x1234
        .END
"""


def test_run_to_halt_reads_output_and_state(engine: str) -> None:
    sim = Simulator(EXAMPLES / "add.asm", engine=engine, keys="34")
    result = sim.run(max_steps=1000)
    assert result.outcome.reason == "halt"
    assert sim.output == "Enter a character: 3Enter a character: 4\nThe sum is 7\nHALT\n"
    assert sim.instructions == result.machine.icount > 0
    assert sim.state()["instructions"] == sim.instructions


def test_call_returns_r0_and_keeps_registers(engine: str) -> None:
    sim = Simulator(source=MULTIPLY, engine=engine)
    sim.registers[2] = 99
    assert [sim.call("MULTIPLY", a, b) for a, b in ((6, 7), (0, 5), (3, 0), (-2, 3))] == [42, 0, 0, 0xFFFA]
    assert sim.registers[2] == 99  # saved and restored by the subroutine
    assert sim.pc == RETURN_ADDRESS
    assert sim.output == ""  # the main program never ran


def test_labels_any_case_and_memory(engine: str) -> None:
    sim = Simulator(source=MULTIPLY, engine=engine)
    assert sim.memory["result"] == 0x1234
    assert sim.read_string("HELLO") == "hi\n"
    sim.write_string("HELLO", "yo\n")
    sim.run()
    assert sim.output == "yo\nHALT\n"
    sim.memory["RESULT"] = -1
    assert sim.memory[sim.address("RESULT")] == 0xFFFF
    assert sim.memory[0x3001:0x3003] == [0xF022, 0xF025]  # PUTS, HALT


def test_store_through_memory_replaces_translated_code(engine: str) -> None:
    """After a run has translated MULTIPLY, patching its ADD makes later calls subtract."""
    sim = Simulator(source=MULTIPLY, engine=engine)
    assert sim.call("MULTIPLY", 3, 4) == 12
    assert sim.call("MULTIPLY", 3, 4) == 12
    add_at = sim.address("TIMES") + 1
    assert sim.memory[add_at] == 0x1480  # ADD R2, R2, R0
    sim.memory[add_at] = 0x5480  # AND R2, R2, R0: R2 stays 0
    assert sim.call("MULTIPLY", 3, 4) == 0


def test_registers_wrap_and_pc_takes_labels(engine: str) -> None:
    sim = Simulator(source=MULTIPLY, engine=engine)
    sim.registers[0] = -1
    sim.registers[1] = 0x1_0003
    assert list(sim.registers) == [0xFFFF, 3, 0, 0, 0, 0, 0, 0]
    sim.pc = "multiply"
    assert sim.pc == sim.address("MULTIPLY")


def test_give_keys_after_the_input_ran_out(engine: str) -> None:
    sim = Simulator(EXAMPLES / "echo.asm", engine=engine, keys="ab")
    with pytest.raises(InputEndedError) as ended:
        sim.run(max_steps=10_000)
    assert ended.value.exit_code == 5
    assert sim.output_bytes == b"Type a line: ab"
    sim.clear_output()
    sim.give_keys("c\n")
    assert sim.run(max_steps=10_000).outcome.reason == "halt"
    assert sim.output == "c\nHALT\n"


def test_step_limit_is_exact_and_raises(engine: str) -> None:
    sim = Simulator(source=".ORIG x3000\nLOOP ADD R1, R1, #1\nBR LOOP\n.END", engine=engine)
    with pytest.raises(StepLimitError) as limit:
        sim.run(max_steps=1001)
    assert limit.value.outcome.reason == "step-limit"
    assert sim.instructions == 1001
    assert sim.registers[1] == 501
    assert sim.run(max_steps=10, check=False).outcome.reason == "step-limit"
    assert sim.instructions == 1011


def test_fault_raises(engine: str) -> None:
    sim = Simulator(source=".ORIG x3000\n.FILL xD000\n.END", engine=engine)
    with pytest.raises(MachineFaultError, match="illegal opcode xD000"):
        sim.run()


def test_call_that_halts_raises(engine: str) -> None:
    sim = Simulator(source=MULTIPLY, engine=engine)
    with pytest.raises(CallError, match="did not return"):
        sim.call(0x3000)
    with pytest.raises(StepLimitError):
        sim.call("MULTIPLY", 1, 30_000, max_steps=1000)


def test_os_mode_and_second_edition(engine: str) -> None:
    under_os = Simulator(EXAMPLES / "hello.asm", engine=engine, os=True)
    under_os.run(max_steps=100_000)
    second = Simulator(EXAMPLES / "hello.asm", engine=engine, edition=2)
    second.run()
    assert under_os.output == second.output == HELLO_OUTPUT
    assert under_os.instructions > second.instructions  # the OS started it, and did the traps


def test_trace_goes_to_a_file_and_limits_to_a_range(engine: str) -> None:
    sim = Simulator(source=MULTIPLY, engine=engine)
    trace = io.StringIO()
    sim.call("MULTIPLY", 2, 1)
    sim.pc = "MULTIPLY"
    sim.registers[0], sim.registers[1] = 2, 1
    start = sim.address("TIMES")
    sim.run(trace=trace, trace_range=(start, start + 4), max_steps=8, check=False)
    assert [line.split()[0] for line in trace.getvalue().splitlines()] == [
        f"x{a:04X}" for a in (start, start + 1, start + 2, start + 3, start)
    ]


def test_load_errors_are_exceptions(tmp_path: Path) -> None:
    with pytest.raises(AssemblyError, match="<source>:2"):
        Simulator(source=".ORIG x3000\nBOGUS R1\n.END")
    with pytest.raises(LoadError, match="No such file"):
        Simulator(tmp_path / "missing.obj")
    with pytest.raises(ValueError, match="engine"):
        Simulator(source=MULTIPLY, engine="fast")
    with pytest.raises(KeyError, match="NOPE"):
        Simulator(source=MULTIPLY).call("NOPE")
