"""Command-line manners a student meets first: -h, --version, plain help, clear sentences."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import lc3jit.session
from lc3jit.api import Simulator
from lc3jit.cli import app
from lc3jit.debugging.debugger import Debugger
from lc3jit.runner import mips
from lc3jit_runtime.outcome import Outcome

EXAMPLES = Path(__file__).parent.parent / "examples"
COMMANDS = ["run", "debug", "asm", "disasm", "dump", "bench", "compile", "version"]


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)], ids=["lc3jit", *COMMANDS])
def test_dash_h_is_help_everywhere(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "-h"])
    assert result.exit_code == 0 and result.stdout.startswith("Usage:")


def test_version_is_an_option_too() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("lc3jit ")


def test_run_help_lists_the_choices_plain_metavars_and_compiled_programs() -> None:
    shown = " ".join(CliRunner().invoke(app, ["run", "--help"]).stdout.split())
    for text in ("--engine regions|blocks|interp", "--edition 3|2", "--pc ADDR", "--max-steps N", ".pyc"):
        assert text in shown
    assert "--input FILE" in shown and "--trace-range START:STOP" in shown and "<str>" not in shown


def test_mips_has_the_digits_a_short_run_needs() -> None:
    assert (mips(0.000471), mips(0.0000473), mips(0.0), mips(25.3)) == (
        "0.000471",
        "0.0000473",
        "0.00",
        "25.30",
    )


def test_a_directory_is_said_to_be_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr == f"lc3jit: {tmp_path}: is a directory, not a program file\n"


def test_an_empty_source_is_a_sentence_not_a_caret(tmp_path: Path) -> None:
    empty = tmp_path / "empty.asm"
    empty.write_text("\n\n")
    for command in ("run", "asm"):
        result = CliRunner().invoke(app, [command, str(empty)])
        assert result.exit_code == 1
        assert result.stderr == (
            f"lc3jit: {empty}: an empty file: nothing to assemble (a program starts with .ORIG x3000)\n"
        )


def test_trace_range_takes_labels_and_trace_lines_name_them(tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    args = ["run", str(EXAMPLES / "fib.asm"), "--trace", str(trace), "--trace-range", "PRINT_DEC:PRINT_DEC+2"]
    assert CliRunner().invoke(app, args).exit_code == 0
    lines = trace.read_text().splitlines()
    assert lines[0].startswith("x3010 <PRINT_DEC>  322E  ST R1, SAVE_R1")
    assert {line.split()[1] for line in lines} == {"<PRINT_DEC>", "<PRINT_DEC+1>"}
    bad = CliRunner().invoke(app, [*args[:-1], "NOPE:x3002"])
    assert bad.exit_code == 2 and "nor a label of the program" in bad.stderr


def script(tmp_path: Path, commands: str, *options: str) -> tuple[int, str]:
    path = tmp_path / "commands.txt"
    path.write_text(commands)
    result = CliRunner().invoke(app, ["debug", str(EXAMPLES / "fib.asm"), "--commands", str(path), *options])
    return result.exit_code, result.stdout


def test_commands_stop_at_the_first_failed_one_as_gdb_batch_does(tmp_path: Path) -> None:
    code, transcript = script(tmp_path, "break NOPE\nregs\n")
    assert code == 1 and "(lc3) regs" not in transcript
    code, transcript = script(tmp_path, "bogus\nregs\n", "--keep-going")
    assert code == 1 and "instructions=0" in transcript
    assert script(tmp_path, "break NEXT\nregs\n")[0] == 0


def test_mem_alone_shows_the_pc_then_goes_on(tmp_path: Path) -> None:
    _, transcript = script(tmp_path, "mem\nmem\nmem x300E 2\nmem\n")
    shown = [line.split()[0] for line in transcript.splitlines() if line.startswith("x30")]
    assert shown == ["x3000", "x3001", "x300E", "x300F", "x3010"]


def test_finish_runs_in_one_console_session_not_one_per_instruction(monkeypatch: pytest.MonkeyPatch) -> None:
    """finish outside a call it saw stepped each instruction with the console started again
    (an output thread each time, about 2 ms): now a command is one session."""
    sessions = []
    session = lc3jit.session.run_to_ending  # a run with the console running: one session

    def counted(*args: Any) -> tuple[Outcome, float]:
        sessions.append(1)
        return session(*args)

    monkeypatch.setattr(lc3jit.session, "run_to_ending", counted)
    debugger = Debugger(lambda: Simulator(EXAMPLES / "fib.asm"), io.StringIO())
    debugger.execute("break x3013")
    debugger.cont()  # in PRINT_DEC, its call not seen
    sessions.clear()
    debugger.finish()
    assert debugger.sim.pc == 0x3006 and len(sessions) == 1
