"""`lc3jit debug`: every command through --commands, breakpoints exact on every engine,
and a session at a real terminal."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.api import Simulator
from lc3jit.cli import app
from lc3jit.debugging.debugger import CommandError, Debugger

from .conftest import engine_options
from .test_pty import TIMEOUT, Terminal, _controlling_terminal, raw

EXAMPLES = Path(__file__).parent.parent / "examples"
FIB = EXAMPLES / "fib.asm"  # prints 20 Fibonacci numbers through PRINT_DEC
RECURSIVE = EXAMPLES / "bench" / "fib.asm"  # fib(25), recursive, a stack in R6


def debug(tmp_path: Path, program: Path, commands: str, *options: object, engine: str = "regions") -> str:
    """The transcript of `lc3jit debug PROGRAM --commands FILE --engine ENGINE OPTIONS`."""
    script = tmp_path / "commands.txt"
    script.write_text(commands)
    args = ["debug", str(program), "--commands", str(script), "--engine", engine, *map(str, options)]
    result = CliRunner().invoke(app, args, input=b"", catch_exceptions=False)
    assert result.exit_code == (1 if "error: " in result.stdout else 0), result.output
    return result.stdout


def after(transcript: str, command: str) -> list[str]:
    """The lines a command printed, up to the next prompt."""
    blocks = transcript.split("(lc3) ")
    block = next(b for b in blocks if b.startswith(command + "\n"))
    return block.splitlines()[1:]


def test_scripted_session_stops_steps_shows_and_ends_as_run_does(tmp_path: Path, engine: str) -> None:
    transcript = debug(
        tmp_path,
        FIB,
        "break PRINT_DEC\nrun\nstep\nregs\nmem COUNT 2\ndelete PRINT_DEC\ncontinue\nregs\n",
        engine=engine,
    )
    assert after(transcript, "break PRINT_DEC") == ["Breakpoint at x3010 <PRINT_DEC>"]
    assert after(transcript, "run") == [
        "Breakpoint at x3010 <PRINT_DEC>",
        "=> x3010 <PRINT_DEC>  fib.asm:22  ST R1, SAVE_R1",
    ]
    assert after(transcript, "step") == ["=> x3011 <PRINT_DEC+1>  fib.asm:23  ST R2, SAVE_R2"]
    assert after(transcript, "mem COUNT 2") == [
        "x300E  COUNT        x0014     20",
        "x300F  NEWLINE      x000A     10",
    ]
    end = after(transcript, "continue")
    assert end[-1] == "The program halted after 3115 instructions."
    state = tmp_path / "state.json"
    run = CliRunner().invoke(app, ["run", str(FIB), "--state-json", str(state), *engine_options(engine)])
    assert "\n".join(end[:-1]) + "\n" == run.stdout  # the program's output, as `run` prints it
    registers = json.loads(state.read_text())["registers"]
    shown = " ".join(transcript.split("(lc3) regs\n")[-1].splitlines()[:2])
    assert [int(w.split("=x")[1], 16) for w in shown.split() if "=x" in w] == registers


def test_break_lists_and_delete_removes(tmp_path: Path) -> None:
    transcript = debug(
        tmp_path,
        FIB,
        "b NEXT\nbreak x3010\nwatch SAVE_R1\nbreak\ndelete NEXT\nbreak\ndelete\nbreak\ndelete NEXT\n",
    )
    assert after(transcript, "break") == [
        "Breakpoints: x3004 <NEXT>, x3010 <PRINT_DEC>",
        "Watches: x303F <SAVE_R1> = x0000",
    ]
    assert "Breakpoints: x3010 <PRINT_DEC>" in transcript
    assert transcript.rstrip().endswith(
        "(lc3) delete NEXT\nerror: no breakpoint or watch at x3004 <NEXT>\n"
        "Stopped at the first failed command (--keep-going goes on)."
    )
    assert "Breakpoints: none\nWatches: none" in transcript


def test_watch_stops_after_the_store(tmp_path: Path, engine: str) -> None:
    transcript = debug(tmp_path, FIB, "watch SAVE_R3\ncontinue\nregs\ncontinue\n", engine=engine)
    assert after(transcript, "continue")[-2:] == [
        "Watch x3041 <SAVE_R3>: x0000 -> x0014, by x3012",
        "=> x3013 <PRINT_DEC+3>  fib.asm:25  ST R4, SAVE_R4",
    ]
    assert "instructions=9" in after(transcript, "regs")[-1]


def test_next_steps_over_calls_and_traps(tmp_path: Path, engine: str) -> None:
    transcript = debug(tmp_path, FIB, "break NEXT+1\nrun\nnext\nnext\nnext\n", engine=engine)
    lines = transcript.split("(lc3) next\n")[1:]
    assert lines[0].splitlines() == ["0", "=> x3006 <NEXT+2>  fib.asm:9  LD R0, NEWLINE"]
    assert lines[1].splitlines() == ["=> x3007 <NEXT+3>  fib.asm:10  OUT"]
    assert lines[2].splitlines() == ["", "=> x3008 <NEXT+4>  fib.asm:11  ADD R4, R1, R2"]


def test_next_over_a_recursive_call_stops_in_the_same_frame(tmp_path: Path, engine: str) -> None:
    """fib(25) calls fib(24) at x300C; deeper calls return to x300D first, with another R6."""
    transcript = debug(tmp_path, RECURSIVE, "break FIB\nrun\ndelete FIB\nstep 7\nnext\nregs\n", engine=engine)
    assert after(transcript, "step 7") == [
        "=> x300C <FIB+7>  fib.asm:18  JSR FIB                 ; fib(n - 1)"
    ]
    assert after(transcript, "next") == ["=> x300D <FIB+8>  fib.asm:19  LDR R1, R6, #0          ; n"]
    assert after(transcript, "regs")[0].startswith("R0=xB520 -19168")  # fib(24) = 46368


def test_finish_returns_from_the_current_subroutine(tmp_path: Path, engine: str) -> None:
    seen = debug(tmp_path, RECURSIVE, "break x3002\nrun\nstep\nfinish\nregs\n", engine=engine)
    assert after(seen, "step") == ["=> x3005 <FIB>  fib.asm:11  FIB     ADD R1, R0, #-2"]
    assert after(seen, "finish") == ["=> x3003  fib.asm:7  ADD R1, R0, #0"]
    assert after(seen, "regs")[0].startswith("R0=x2511")  # fib(25) mod 2^16
    unseen = debug(tmp_path, FIB, "break x3013\nrun\nfinish\n", engine=engine)  # stopped mid-routine
    assert after(unseen, "finish") == ["0", "=> x3006 <NEXT+2>  fib.asm:9  LD R0, NEWLINE"]


def test_list_shows_the_source_lines_with_comments_the_pc_and_breakpoints(tmp_path: Path) -> None:
    transcript = debug(tmp_path, FIB, "break NEXT\nlist x3003\n")
    assert after(transcript, "list x3003") == [
        "      1         ; fib.asm: the first 20 Fibonacci numbers, one a line, in decimal.",
        "      2                 .ORIG x3000",
        "=>    3  x3000          AND R1, R1, #0          ; F(n)",
        "      4  x3001          AND R2, R2, #0",
        "      5  x3002          ADD R2, R2, #1          ; F(n+1)",
        "      6  x3003          LD R3, COUNT",
        " *    7  x3004  NEXT    ADD R0, R1, #0",
        "      8  x3005          JSR PRINT_DEC",
        "      9  x3006          LD R0, NEWLINE",
        "     10  x3007          OUT",
        "     11  x3008          ADD R4, R1, R2",
    ]


def test_list_without_source_shows_instructions_labels_the_pc_and_breakpoints(tmp_path: Path) -> None:
    bare = tmp_path / "fib.obj"  # no fib.asm beside it
    bare.write_bytes((EXAMPLES / "fib.obj").read_bytes())
    transcript = debug(tmp_path, bare, "break x3004\nlist x3003\n")
    assert after(transcript, "list x3003")[:4] == [
        "   x2FFE  0000               .FILL x0000",
        "   x2FFF  0000               .FILL x0000",
        "=> x3000  5260               AND R1, R1, #0",
        "   x3001  54A0               AND R2, R2, #0",
    ]
    assert " * x3004  1060               ADD R0, R1, #0" in after(transcript, "list x3003")


def test_set_registers_pc_and_memory(tmp_path: Path, engine: str) -> None:
    transcript = debug(
        tmp_path, FIB, "set COUNT #2\nset R5 x-1\nset PC x3001\nregs\ncontinue\nmem COUNT\n", engine=engine
    )
    assert after(transcript, "set R5 x-1") == ["R5 = xFFFF"]
    assert "R5=xFFFF" in after(transcript, "regs")[1]
    assert after(transcript, "regs")[2].startswith("PC=x3001")
    assert after(transcript, "continue")[:2] == ["0", "1"]  # two numbers: COUNT was 2
    assert after(transcript, "mem COUNT") == ["x300E  COUNT        x0002      2"]


def test_run_restarts_and_restart_stops_at_the_start(tmp_path: Path) -> None:
    transcript = debug(
        tmp_path, FIB, "break PRINT_DEC\nrun\ncontinue\nrun\nregs\nrestart\nregs\nquit\nregs\n"
    )
    assert transcript.count("Breakpoint at x3010 <PRINT_DEC>\n=> x3010") == 3
    assert "instructions=6" in transcript.split("(lc3) regs\n")[1]  # the first call again, not the third
    assert after(transcript, "restart") == ["=> x3000  fib.asm:3  AND R1, R1, #0          ; F(n)"]
    assert "instructions=0" in transcript.split("(lc3) regs\n")[2]
    assert transcript.rstrip().endswith("(lc3) quit")  # nothing after quit runs


def test_run_stops_at_a_breakpoint_on_the_first_instruction(tmp_path: Path) -> None:
    transcript = debug(tmp_path, FIB, "break x3000\nrun\ncontinue\n")
    assert after(transcript, "run") == [
        "Breakpoint at x3000",
        "=> x3000  fib.asm:3  AND R1, R1, #0          ; F(n)",
    ]
    assert after(transcript, "continue")[-1] == "The program halted after 3115 instructions."


def test_errors_are_one_line_and_the_session_goes_on(tmp_path: Path) -> None:
    commands = "frobnicate\nbreak NOWHERE\nmem 1 2 3\nset R9 1\nstep 0\nwatch xFE00\nbreak x3000 if\nhelp\n"
    transcript = debug(tmp_path, FIB, commands, "--keep-going")
    assert after(transcript, "frobnicate") == ["error: unknown command 'frobnicate' (help lists them)"]
    assert after(transcript, "break NOWHERE") == ["error: no label or address 'NOWHERE'"]
    assert after(transcript, "mem 1 2 3") == ["error: mem takes an address and, if you like, a count"]
    assert after(transcript, "set R9 1") == ["error: no register R9: the registers are R0-R7"]
    assert after(transcript, "step 0") == ["error: not a count: '0'"]
    assert after(transcript, "watch xFE00") == ["error: device registers cannot be watched"]
    assert after(transcript, "break x3000 if") == [
        "error: break LOC, or break LOC if CONDITION (e.g. break LOOP if R2 == 0)"
    ]
    assert len(after(transcript, "help")) == 26


def test_max_steps_and_input_apply_in_the_debugger(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_bytes(b"hi\n")
    transcript = debug(tmp_path, EXAMPLES / "echo.asm", "continue\n", "--input", keys)
    assert after(transcript, "continue") == [
        "Type a line: hi",
        "HALT",
        "The program halted after 15 instructions.",
    ]
    limited = debug(tmp_path, FIB, "continue\nstep\n", "--max-steps", "50")
    assert "Stopped: the step limit (--max-steps 50) is reached" in after(limited, "continue")
    assert after(limited, "step")[0] == "Stopped: the step limit (--max-steps 50) is reached"


def test_a_load_error_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text(".ORIG x3000\nADD R1\n.END\n")
    result = CliRunner().invoke(app, ["debug", str(bad)], input="")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"lc3jit: {bad}: 1 error\n{bad}:2:")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("program", ["fib.asm", "sieve.asm", "strings.asm", "subroutines.asm"])
def test_breakpoints_stop_at_the_same_instruction_on_every_engine(program: str) -> None:
    """Every label on code a breakpoint, then continue to each stop, deleting one breakpoint
    now and then: every engine stops at the same PCs, counts and registers."""

    def stops(engine: str) -> list[tuple[int, ...]]:
        debugger = Debugger(lambda: Simulator(EXAMPLES / program, engine=engine), io.StringIO())
        code = {a for a in debugger.labels if debugger.sim.machine.mem[a] and a < 0x4100}
        for address in sorted(code):
            debugger.execute(f"break x{address:04X}")
        seen = []
        for count in range(300):
            debugger.execute("continue")
            sim = debugger.sim
            seen.append((sim.pc, sim.instructions, *sim.registers))
            if debugger.ended is not None:
                break
            if count % 7 == 6 and sim.pc in debugger.breakpoints:
                debugger.execute(f"delete x{sim.pc:04X}")
        return seen

    reference = stops("interp")
    assert len(reference) > 5
    assert stops("blocks") == reference
    assert stops("regions") == reference


def wait_until_raw(terminal: Terminal) -> None:
    """The program runs (the terminal raw) before a key is typed for it, not at the prompt."""
    deadline = time.monotonic() + TIMEOUT
    while not raw(terminal):
        assert time.monotonic() < deadline, "the terminal never went raw"
        time.sleep(0.01)


def test_a_session_at_a_real_terminal(tmp_path: Path) -> None:
    """The prompt, a breakpoint, a key typed while the program runs (raw), then quit: the
    terminal is left as it was."""
    master, slave = os.openpty()
    cooked = termios.tcgetattr(slave)  # before the child: by the time it runs it may be raw
    process = subprocess.Popen(
        [sys.executable, "-m", "lc3jit", "debug", str(EXAMPLES / "echo.asm")],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
        preexec_fn=_controlling_terminal,
        env={**os.environ, "HOME": str(tmp_path)},  # where readline keeps the history
    )
    terminal = Terminal(process, master, slave, cooked)
    try:
        terminal.read_until("(lc3) ")
        terminal.type(b"break LOOP\n")
        terminal.read_until("Breakpoint at x3002 <LOOP>")
        terminal.type(b"continue\n")
        terminal.read_until("=> x3002 <LOOP>")
        terminal.type(b"next\n")
        terminal.read_until("(lc3) next")
        wait_until_raw(terminal)
        terminal.type(b"a")  # GETC: one key, no Enter
        screen = terminal.read_until("=> x3003")
        assert "next\n=> x3003 <LOOP+1>  echo.asm:6  OUT" in screen  # the key was not echoed
        terminal.type(b"delete\n")
        terminal.read_until("Deleted")
        terminal.type(b"continue\n")
        terminal.read_until("(lc3) continue")
        wait_until_raw(terminal)
        terminal.type(b"b\n")
        screen = terminal.read_until("The program halted")
        assert "ab\nHALT\n" in screen
        terminal.read_until("(lc3) ", count=6)
        terminal.type(b"quit\n")
        assert process.wait(timeout=TIMEOUT) == 0
        assert termios.tcgetattr(slave) == terminal.cooked
        assert (tmp_path / ".lc3jit_history").read_text().split()[-2:] == ["continue", "quit"]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=TIMEOUT)
        os.close(master)
        os.close(slave)


def test_a_watched_word_written_by_a_trap_push_is_reported_at_the_next_stop(
    tmp_path: Path, engine: str
) -> None:
    transcript = debug(
        tmp_path, EXAMPLES / "hello.asm", "watch x2FFF\ncontinue\ncontinue\n", "--os", engine=engine
    )
    stops = transcript.split("(lc3) continue\n")
    assert stops[1].splitlines()[0] == "Watch x2FFF: x0000 -> x8002, by x0203"  # the OS's own STR
    assert stops[2].splitlines()[-3:] == [
        "Watch x2FFF: x8002 -> x8002, by x3001 (a push)",  # PUTS
        "Watch x2FFF: x8002 -> x8002, by x3002 (a push)",  # HALT
        "The program halted after 273 instructions.",
    ]


def test_commands_piped_into_stdin_read_like_a_script() -> None:
    result = CliRunner().invoke(app, ["debug", str(FIB)], input="break NEXT\nrun\n", catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1:5] == [
        "(lc3) break NEXT",
        "Breakpoint at x3004 <NEXT>",
        "(lc3) run",
        "Breakpoint at x3004 <NEXT>",
    ]


@pytest.mark.parametrize("under_os", [False, True])
def test_a_run_that_halted_stays_ended(under_os: bool) -> None:
    """continue and step after HALT say so and run nothing: the HALT is not passed."""
    debugger = Debugger(lambda: Simulator(EXAMPLES / "hello.asm", os=under_os), io.StringIO())
    assert debugger.cont().reason == "halt"
    ended = (debugger.sim.state(), debugger.sim.output)
    for command in (debugger.cont, debugger.step, debugger.next, debugger.finish):
        with pytest.raises(CommandError, match=r"^the program has halted; `run` starts it again$"):
            command()
        assert (debugger.sim.state(), debugger.sim.output) == ended
    assert debugger.sim.output.count("HALT") <= 1


def test_continue_after_the_end_says_the_program_has_ended(tmp_path: Path) -> None:
    transcript = debug(tmp_path, FIB, "continue\ncontinue\nstep\nregs\n", "--keep-going")
    assert after(transcript, "continue")[-1] == "The program halted after 3115 instructions."
    blocks = transcript.split("(lc3) ")
    assert blocks[2:4] == [
        "continue\nerror: the program has halted; `run` starts it again\n",
        "step\nerror: the program has halted; `run` starts it again\n",
    ]
    assert "instructions=3115" in blocks[4]


def test_break_takes_source_lines_and_addresses_as_gdb_does(tmp_path: Path) -> None:
    commands = ["break 12", "run", "break fib.asm:19", "break *x3003", "break x000C", "break nofile.asm:3"]
    transcript = debug(tmp_path, FIB, "\n".join([*commands, "break 999"]) + "\n", "--keep-going")
    assert after(transcript, "break 12") == ["Breakpoint at x3009 <NEXT+5>"]
    assert after(transcript, "run")[-1] == "=> x3009 <NEXT+5>  fib.asm:12  ADD R1, R2, #0"
    # a blank line moves to the next line with a word, as gdb moves a breakpoint
    assert after(transcript, "break fib.asm:19") == ["Breakpoint at x3010 <PRINT_DEC>"]
    assert after(transcript, "break *x3003") == ["Breakpoint at x3003"]
    assert after(transcript, "break x000C") == [
        "warning: x000C is outside every loaded program: it may never be hit",
        "Breakpoint at x000C",
    ]
    assert after(transcript, "break nofile.asm:3") == ["error: no source file 'nofile.asm' in the program"]
    assert after(transcript, "break 999") == ["error: no instruction at or after line 999 of fib.asm"]


def test_print_shows_a_value_and_finish_at_top_level_says_there_is_no_caller(tmp_path: Path) -> None:
    commands = "p M[COUNT]\nprint R0 == #0\nprint R9\nfinish\nbreak PRINT_DEC\ncontinue\nfinish\n"
    transcript = debug(tmp_path, FIB, commands, "--keep-going")
    assert after(transcript, "p M[COUNT]") == ["x0014 (20)"]
    assert after(transcript, "print R0 == #0") == ["true"]
    assert after(transcript, "print R9")[0].startswith("error: ")
    assert after(transcript, "finish") == [
        'error: "finish" not meaningful in the outermost frame: no routine called this one'
    ]
    blocks = transcript.split("(lc3) ")
    finished = next(b for b in blocks[7:] if b.startswith("finish\n"))
    assert finished.splitlines()[1:] == ["0", "=> x3006 <NEXT+2>  fib.asm:9  LD R0, NEWLINE"]
