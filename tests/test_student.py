"""A student's session at a real terminal: a program that never halts is stopped with its
diagnosis, then the debugger lists the source, stops on a conditional breakpoint, steps
back three instructions and forward again to the state a run to the same count has."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import engine_options
from .test_pty import TIMEOUT, Terminal
from .test_pty import start as pty_start  # noqa: F401 - a fixture

FOREVER = """\
        .ORIG x3000
        LEA R0, HELLO
        PUTS            ; print it... and then?
HELLO   .STRINGZ "Hello"
        .END
"""

COUNT = """\
        .ORIG x3000
        LD R2, COUNT        ; R2 counts down
        AND R1, R1, #0      ; R1 is the sum
LOOP    ADD R1, R1, R2      ; add this one
        ADD R2, R2, #-1
        BRzp LOOP
        HALT
COUNT   .FILL #5
        .END
"""


def registers(screen: str) -> tuple[list[int], int]:
    """R0-R7 and the instruction count of the last `regs` on the screen."""
    block = screen.rsplit("(lc3) regs", 1)[1]
    values = [int(v, 16) for v in re.findall(r"R\d=x([0-9A-F]{4})", block)[:8]]
    return values, int(re.search(r"instructions=(\d+)", block)[1])  # type: ignore[index]


def test_a_runaway_program_is_stopped_with_its_diagnosis(
    tmp_path: Path,
    pty_start: Callable[..., Terminal],  # noqa: F811 - the fixture
) -> None:
    program = tmp_path / "hello.asm"
    program.write_text(FOREVER)
    terminal = pty_start(program)
    terminal.read_until("is a HALT missing after it?")
    assert "the PC left your program at x3008" in terminal.seen
    assert "the last instruction before it is x3001 (hello.asm:3: PUTS" in terminal.seen
    terminal.read_until("Hello", count=3)  # it goes on, as it would without lc3jit
    terminal.type(b"\x03")
    screen = terminal.read_until("it is running through memory that holds no code")
    assert re.search(r"lc3jit: \S*hello.asm: interrupted\n  at x[0-9A-F]{4}", screen)
    assert terminal.wait() == 130


@pytest.mark.parametrize("engine", ["interp", "blocks", "regions"])
def test_a_debugging_session_goes_back_three_instructions_and_forward_again(
    tmp_path: Path,
    pty_start: Callable[..., Terminal],  # noqa: F811 - the fixture
    engine: str,
) -> None:
    program = tmp_path / "count.asm"
    program.write_text(COUNT)
    terminal = pty_start(program, "--engine", engine, command=("-m", "lc3jit", "debug"))
    terminal.read_until("(lc3) ")
    terminal.type(b"list\n")
    screen = terminal.read_until("(lc3) ", count=2)
    assert "=>    2  x3000          LD R2, COUNT        ; R2 counts down" in screen
    terminal.type(b"break LOOP if R2 == 0\n")
    terminal.read_until("Breakpoint at x3002 <LOOP> if R2 == 0")
    terminal.type(b"continue\n")
    terminal.read_until("=> x3002 <LOOP>  count.asm:4  LOOP    ADD R1, R1, R2      ; add this one")
    terminal.type(b"regs\n")
    stopped, count = registers(terminal.read_until("instructions=", count=1))
    assert stopped[2] == 0 and count == 17
    terminal.type(b"back 3\n")
    screen = terminal.read_until("(lc3) ", count=6)
    assert screen.endswith(
        "(lc3) back 3\n=> x3002 <LOOP>  count.asm:4  LOOP    ADD R1, R1, R2      ; add this one\n(lc3) "
    )
    terminal.type(b"regs\n")
    back, back_count = registers(terminal.read_until("instructions=", count=2))
    assert (back[2], back_count) == (1, 14)
    terminal.type(b"step 3\n")
    terminal.read_until("(lc3) ", count=8)
    terminal.type(b"regs\n")
    again, again_count = registers(terminal.read_until("instructions=", count=3))
    terminal.type(b"quit\n")
    assert terminal.wait() == 0
    state = tmp_path / "state.json"
    command = [sys.executable, "-m", "lc3jit", "run", str(program), "--max-steps", "17", "--state-json"]
    subprocess.run([*command, str(state), *engine_options(engine)], timeout=TIMEOUT, capture_output=True)
    assert (again, again_count) == (stopped, count) == (json.loads(state.read_text())["registers"], 17)
