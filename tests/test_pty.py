"""`lc3jit run` in a real pseudo-terminal: raw keys, a live game, Ctrl-C, the terminal restored."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lc3jit.cli import app

from .conftest import engine_options
from .processes import signals_as_at_a_shell
from .test_games import boards

EXAMPLES = Path(__file__).parent.parent / "examples"
TIMEOUT = 30.0


@dataclass
class Terminal:
    """A child `lc3jit run` whose stdin, stdout and stderr are one pseudo-terminal."""

    process: subprocess.Popen[bytes]
    master: int
    slave: int
    cooked: list[object]  # the terminal's settings before the program started: what it restores
    seen: str = ""

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def read_until(self, text: str, count: int = 1) -> str:
        """Read the screen (newlines as the program wrote them) until text shows count times."""
        deadline = time.monotonic() + TIMEOUT
        while self.seen.count(text) < count:
            left = deadline - time.monotonic()
            ready = select.select([self.master], [], [], max(left, 0))[0]
            if not ready:
                raise AssertionError(
                    f"no {text!r} x{count} within {TIMEOUT} s; the screen so far:\n{self.seen}"
                )
            try:
                data = os.read(self.master, 4096)
            except OSError:  # EIO: the child has closed the terminal
                data = b""
            if not data:
                raise AssertionError(f"the terminal closed before {text!r}; the screen:\n{self.seen}")
            self.seen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.seen

    def wait(self) -> int:
        return self.process.wait(timeout=TIMEOUT)


def _controlling_terminal() -> None:
    """In the child, after setsid: make stdin (the pty) its controlling terminal, so that
    Ctrl-C typed there is a SIGINT to it, as in a shell (SIGINT and SIGHUP as at a shell
    first: see tests/processes.py)."""
    signals_as_at_a_shell()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.fixture
def start() -> Iterator[Callable[..., Terminal]]:
    """Start `lc3jit run ARGS` under a pty: start(*args), or `python ARGS` with command=();
    never leave it running."""
    started: list[Terminal] = []

    def spawn(*args: object, command: tuple[str, ...] = ("-m", "lc3jit", "run")) -> Terminal:
        master, slave = os.openpty()
        cooked = termios.tcgetattr(slave)  # before the child: by the time it runs it may be raw
        process = subprocess.Popen(
            [sys.executable, *command, *map(str, args)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=_controlling_terminal,
        )
        started.append(Terminal(process, master, slave, cooked))
        return started[-1]

    yield spawn
    for terminal in started:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait(timeout=TIMEOUT)
        os.close(terminal.master)
        os.close(terminal.slave)


def can_slide_right(board: list[list[int]]) -> bool:
    """Whether a move right changes a 2048 board: a tile with a gap or its twin to its right."""
    return any(row[i] and row[i + 1] in (0, row[i]) for row in board for i in range(3))


def raw(terminal: Terminal) -> bool:
    """The program's raw mode: no echo, no lines, the input flags as they were. readline at
    a prompt also turns echo and lines off, but clears ICRNL too: a key typed then would
    come back echoed once readline gives the terminal back, before the program reads it."""
    settings = termios.tcgetattr(terminal.slave)
    return not settings[3] & (termios.ECHO | termios.ICANON) and settings[0] == terminal.cooked[0]


@pytest.mark.parametrize("compiled", [False, True], ids=["lc3jit-run", "python-2048.pyc"])
def test_2048_is_playable_and_ctrl_c_restores_the_terminal(
    start: Callable[..., Terminal], tmp_path: Path, compiled: bool
) -> None:
    """`lc3jit run 2048.obj`, and `python 2048.pyc` after `lc3jit compile 2048.obj`."""
    if compiled:
        out = tmp_path / "2048.pyc"
        assert CliRunner().invoke(app, ["compile", str(EXAMPLES / "2048.obj"), "-o", str(out)]).exit_code == 0
        terminal = start(out, command=())
    else:
        terminal = start(EXAMPLES / "2048.obj")
    terminal.read_until("Are you on an ANSI terminal (y/n)? ")
    assert raw(terminal)
    terminal.type(b"n")  # one key, no Enter: the terminal is raw
    screen = terminal.read_until("+\n", count=2)
    assert "(y/n)? n\n+-----" in screen  # echoed by the program itself, not by the terminal
    # The first tiles are random (they depend on how long the key took): slide right, or
    # left where every tile is already packed to the right (2048 redraws only after a move).
    [first] = boards(screen)
    key, edge = (b"d", 3) if can_slide_right(first) else (b"a", 0)
    terminal.type(key)
    screen = terminal.read_until("+\n", count=4)
    first, second = boards(screen)
    assert sum(map(sum, second)) - sum(map(sum, first)) in (2, 4)
    assert all(after[edge] for before, after in zip(first, second, strict=True) if any(before))  # slid
    terminal.type(b"\x03")  # Ctrl-C
    assert terminal.wait() == 130
    assert "interrupted" in terminal.read_until("interrupted")
    assert termios.tcgetattr(terminal.slave) == terminal.cooked


def test_a_program_that_halts_restores_the_terminal(start: Callable[..., Terminal]) -> None:
    terminal = start(EXAMPLES / "add.hex")
    terminal.type(b"3")
    terminal.read_until("3+")
    terminal.type(b"4")
    assert terminal.read_until("HALT\n").endswith("3+4=7\nHALT\n")
    assert terminal.wait() == 0
    assert termios.tcgetattr(terminal.slave) == terminal.cooked


def test_a_message_after_output_starts_its_own_line(start: Callable[..., Terminal], tmp_path: Path) -> None:
    """Output that stops mid-line, then the end of scripted input: on one terminal, the
    message goes below the output, not after it."""
    program = tmp_path / "ask.asm"
    program.write_text('.ORIG x3000\nLEA R0, ASK\nPUTS\nGETC\nHALT\nASK .STRINGZ "name? "\n.END\n')
    (tmp_path / "none").write_bytes(b"")
    terminal = start(program, "--input", tmp_path / "none")
    assert terminal.wait() == 5
    screen = terminal.read_until("\n", count=2)
    assert screen.startswith(f"name? \nlc3jit: {program}: ")


ASK = '.ORIG x3000\nLEA R0, ASK\nPUTS\nGETC\nOUT\nHALT\nASK .STRINGZ "key? "\n.END\n'
#: Prints without a newline, then counts forever.
COUNTING = '.ORIG x3000\nLEA R0, SAY\nPUTS\nLOOP ADD R1, R1, #1\nBRnzp LOOP\nSAY .STRINGZ "working"\n.END\n'


def cpu_seconds(pid: int) -> float:
    """User + system time the process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("engine", ["regions", "blocks", "interp"])
def test_under_the_os_a_wait_for_a_key_sleeps_instead_of_spinning(
    start: Callable[..., Terminal], tmp_path: Path, engine: str
) -> None:
    """lc3os's GETC polls KBSR; on a terminal each empty poll sleeps in select() for a key.
    A spinning wait would use most of a core for the second watched (it used 36-44 %)."""
    program = tmp_path / "ask.asm"
    program.write_text(ASK)
    terminal = start(program, "--os", *engine_options(engine))
    terminal.read_until("key? ")
    used = cpu_seconds(terminal.process.pid)
    time.sleep(1.0)
    assert cpu_seconds(terminal.process.pid) - used < 0.2
    terminal.type(b"k")  # a key ends the sleep at once
    assert terminal.read_until("HALT\n").endswith("key? kHALT\n")
    assert terminal.wait() == 0


@pytest.mark.parametrize("engine", ["regions", "blocks", "interp"])
def test_sigterm_on_a_terminal_shows_the_output_restores_the_terminal_and_exits_143(
    start: Callable[..., Terminal], tmp_path: Path, engine: str
) -> None:
    program = tmp_path / "count.asm"
    program.write_text(COUNTING)
    terminal = start(program, *engine_options(engine))
    terminal.read_until("working")  # at once, with no newline, while it counts
    terminal.process.send_signal(signal.SIGTERM)
    assert terminal.wait() == 143
    screen = terminal.read_until("(SIGTERM)\n  at x")  # then where it is (tests/test_runaway.py)
    assert f"working\nlc3jit: {program}: interrupted (SIGTERM)\n  at x" in screen
    assert termios.tcgetattr(terminal.slave) == terminal.cooked
