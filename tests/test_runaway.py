"""`lc3jit run` says where a program that does not HALT is, and what it keeps doing."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from lc3jit.cli import app

from .conftest import engine_options


def run(tmp_path: Path, source: str, *options: str) -> tuple[int, str, str]:
    program = tmp_path / "p.asm"
    program.write_text(source)
    result = CliRunner().invoke(app, ["run", str(program), *options])
    return result.exit_code, result.stdout, result.stderr.replace(str(program), "p.asm")


def test_a_loop_that_never_ends_is_named_at_the_step_limit(tmp_path: Path, engine: str) -> None:
    source = ".ORIG x3000\nAND R1, R1, #0\nLOOP ADD R1, R1, #1 ; count\nBRnzp LOOP\nHALT\n.END\n"
    code, _, errors = run(tmp_path, source, "--max-steps", "1001", *engine_options(engine))
    assert code == 4
    assert errors.splitlines() == [
        "lc3jit: p.asm: step limit reached",
        "  at x3001 <LOOP> (p.asm:3: LOOP ADD R1, R1, #1 ; count)",
        "  it is looping between x3001 <LOOP> and x3002 <LOOP+1> (lines 3-4): 2 instructions,"
        " none of them left in the next 20,000",
    ]


def test_running_off_the_end_is_one_warning_naming_the_last_instruction(tmp_path: Path, engine: str) -> None:
    source = '.ORIG x3000\nLEA R0, TEXT\nPUTS\nTEXT .STRINGZ "Hi"\nDATA .FILL #7\n.END\n'
    code, out, errors = run(tmp_path, source, "--max-steps", "200000", *engine_options(engine))
    assert code == 4 and out.startswith("HiHi")
    assert errors.splitlines()[0] == (
        "lc3jit: p.asm: warning: the PC left your program at x3006 and runs on through memory that holds"
        " no code; the last instruction before it is x3001 (p.asm:3: PUTS): is a HALT missing after it?"
    )
    assert errors.count("warning") == 1
    assert errors.splitlines()[-1] == (
        "  it is running through memory that holds no code (a HALT missing, or a jump gone wrong)"
    )


def test_a_fault_names_the_pc_in_its_one_line(tmp_path: Path) -> None:
    code, _, errors = run(tmp_path, ".ORIG x3000\nADD R1, R1, #1\nBAD .FILL xD000\n.END\n")
    assert (code, errors) == (3, "lc3jit: p.asm: illegal opcode xD000 at x3001\n")


def test_input_that_ended_says_where_the_program_waited(tmp_path: Path) -> None:
    code, _, errors = run(tmp_path, ".ORIG x3000\nAND R0, R0, #0\nASK GETC\nHALT\n.END\n")
    assert code == 5
    assert errors.splitlines()[-1] == "  at x3001 <ASK> (p.asm:3: ASK GETC)"


def test_a_program_that_halts_hears_nothing(tmp_path: Path) -> None:
    code, out, errors = run(tmp_path, ".ORIG x3000\nHALT\n.END\n")
    assert (code, out, errors) == (0, "HALT\n", "")
