"""`lc3jit run --trace`: a line per instruction, what it wrote, the same on every engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from lc3jit.cli import app

EXAMPLES = Path(__file__).parent.parent / "examples"

SMALL = """
        .ORIG x3000
        LD R1, COUNT
        JSR STORE
        LEA R0, TEXT
        PUTS
        HALT
STORE   ST R1, SLOT
        ADD R1, R1, #-3
        RET
COUNT   .FILL #2
SLOT    .BLKW 1
TEXT    .STRINGZ "ok"
        .END
"""


def lc3jit(*args: object) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args], input=b"", catch_exceptions=False)


def test_each_instruction_and_what_it_wrote(tmp_path: Path) -> None:
    program = tmp_path / "small.asm"
    program.write_text(SMALL)
    trace = tmp_path / "trace.txt"
    result = lc3jit("run", program, "--trace", trace)
    assert result.stdout == "okHALT\n"  # the program's output is not touched
    assert trace.read_text() == (
        "x3000  2207  LD R1, COUNT             R1=x0002 cc=P\n"
        "x3001  4803  JSR STORE                R7=x3002\n"
        "x3005 <STORE>  3203  ST R1, SLOT              M[x3009]=x0002\n"
        "x3006 <STORE+1>  127D  ADD R1, R1, #-3          R1=xFFFF cc=N\n"
        "x3007 <STORE+2>  C1C0  RET\n"
        "x3002  E007  LEA R0, TEXT             R0=x300A\n"
        "x3003  F022  PUTS\n"
        "x3004  F025  HALT\n"
    )


def test_traps_under_the_os_show_the_pushes_and_the_psr(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    lc3jit("run", EXAMPLES / "hello.asm", "--os", "--trace", trace, "--trace-range", "x3000:x3002")
    assert trace.read_text().splitlines() == [
        "x3000  E002  LEA R0, GREETING         R0=x3003",
        "x3001  F022  PUTS                     R6=x2FFE PSR=x0002 M[x2FFF]=x8002 M[x2FFE]=x3002",
    ]


@pytest.mark.parametrize("program", ["strings.asm", "subroutines.asm", "sieve.asm"])
def test_the_same_trace_on_every_engine(tmp_path: Path, program: str) -> None:
    traces = []
    for engine in ("interp", "blocks", "regions"):
        trace = tmp_path / f"{engine}.txt"
        result = lc3jit("run", EXAMPLES / program, "--engine", engine, "--trace", trace)
        assert result.exit_code == 0
        traces.append(trace.read_text())
    assert traces[0] == traces[1] == traces[2]
    assert traces[0].count("\n") > 100


def test_range_limits_the_lines_not_the_run(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    result = lc3jit("run", EXAMPLES / "fib.asm", "--trace", trace, "--trace-range", "x3004:x3006", "--stats")
    assert result.stdout.endswith("4181\nHALT\n")
    assert "engine regions (traced: interpreter)" in result.stderr
    lines = trace.read_text().splitlines()
    assert len(lines) == 40  # NEXT and its JSR, twenty times
    assert {line.split()[0] for line in lines} == {"x3004", "x3005"}


def test_trace_to_stderr_and_bad_options(tmp_path: Path) -> None:
    result = lc3jit("run", EXAMPLES / "hello.asm", "--trace", "-")
    assert result.stderr.splitlines()[0] == "x3000  E002  LEA R0, GREETING         R0=x3003"
    assert result.stdout == "Hello, World!\nHALT\n"
    assert lc3jit("run", EXAMPLES / "hello.asm", "--trace-range", "x3000:x3001").exit_code == 2
    unwritable = tmp_path / "no" / "trace.txt"
    failed = lc3jit("run", EXAMPLES / "hello.asm", "--trace", unwritable)
    assert failed.exit_code == 1
    assert failed.stderr == f"lc3jit: {unwritable}: No such file or directory\n"
