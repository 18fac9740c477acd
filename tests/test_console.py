"""The console: scripted keys run deterministically; a terminal goes raw and comes back."""

from __future__ import annotations

import io
import os
import termios
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.console import Console


def test_scripted_keys_come_one_a_poll_until_the_input_ends() -> None:
    console = Console(io.BytesIO(b"ab"), io.BytesIO())
    assert console.next_key() == ord("a")
    assert console.next_key(None) == ord("b")
    assert not console.exhausted
    assert console.next_key() is None
    assert console.exhausted
    assert console.next_key(None) is None


def test_no_keyboard_at_all_is_exhausted_from_the_start() -> None:
    console = Console(None, io.BytesIO())
    assert console.exhausted
    assert console.next_key() is None


def test_keys_read_ahead_from_a_file_go_back_to_it_when_the_run_ends(tmp_path: Path) -> None:
    """`(lc3jit run a.obj; cat) < keys`: what the program did not read is the next reader's."""
    path = tmp_path / "keys"
    path.write_bytes(b"abc" * 5000)  # more than one read ahead
    with open(path, "rb", buffering=0) as file:
        console = Console(file, io.BytesIO())
        with console.raw_mode():
            assert [console.next_key() for _ in range(5)] == list(b"abcab")
        assert os.lseek(file.fileno(), 0, os.SEEK_CUR) == 5
        with console.raw_mode():  # a run after a debugger's stop goes on from there
            assert console.next_key(None) == ord("c")
        assert file.read() == b"abc" * 4998


def test_a_key_fed_after_the_input_ended_comes_next() -> None:
    """The API's Simulator feeds keys to a console that has read ahead, and to one that
    found the input's end."""
    console = CapturedConsole(b"ab")
    assert console.next_key() == ord("a")
    console.feed(b"c")
    assert [console.next_key(), console.next_key(), console.next_key()] == [ord("b"), ord("c"), None]
    console.feed(b"d")
    assert console.next_key() == ord("d")


def test_output_waits_for_a_flush_or_for_the_program_to_wait_for_a_key() -> None:
    """A prompt must be on the screen before the program waits for the answer from a pipe."""
    read_end, write_end = os.pipe()
    display = io.BytesIO()
    with open(read_end, "rb", buffering=0) as keyboard:
        console = Console(keyboard, display)
        console.write(b"Continue? ")
        assert display.getvalue() == b""
        os.write(write_end, b"y")
        os.close(write_end)
        assert console.next_key(None) == ord("y")
        assert display.getvalue() == b"Continue? "
        console.write(b"y\n")
        console.flush()
        assert display.getvalue() == b"Continue? y\n"


@pytest.mark.parametrize("keys_from", ["memory", "file"])
def test_keys_that_come_at_once_do_not_flush_the_output(keys_from: str, tmp_path: Path) -> None:
    """Keys from memory or a regular file never keep the program waiting: reading one
    writes nothing out (a write(2) a key), and the output goes out as it would otherwise."""
    path = tmp_path / "keys"
    path.write_bytes(b"y")
    display = io.BytesIO()
    with open(path, "rb", buffering=0) as file:
        console = Console(io.BytesIO(b"y") if keys_from == "memory" else file, display)
        console.write(b"Continue? ")
        assert console.next_key(None) == ord("y")
        assert display.getvalue() == b""
        console.flush()
        assert display.getvalue() == b"Continue? "


def test_raw_mode_off_a_terminal_still_flushes_on_the_way_out() -> None:
    display = io.BytesIO()
    console = Console(io.BytesIO(), display)
    with pytest.raises(RuntimeError), console.raw_mode():
        console.write(b"last words")
        raise RuntimeError
    assert display.getvalue() == b"last words"


def test_input_from_a_file(tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_bytes(b"w")
    console = Console.for_process(str(keys))
    assert console.next_key(None) == ord("w")
    assert console.next_key(None) is None


class Pty(NamedTuple):
    """A console on the slave side of a pseudo-terminal, and the master to type into."""

    console: Console
    display: io.BytesIO
    master: int
    slave: int


@pytest.fixture
def terminal() -> Iterator[Pty]:
    master, slave = os.openpty()
    display = io.BytesIO()
    with os.fdopen(slave, "rb", buffering=0) as keyboard:
        yield Pty(Console(keyboard, display, interactive=True), display, master, slave)
    os.close(master)


def test_raw_mode_turns_off_echo_and_line_buffering_and_restores_them(terminal: Pty) -> None:
    console, fd = terminal.console, terminal.slave
    before = termios.tcgetattr(fd)
    assert before[3] & termios.ECHO and before[3] & termios.ICANON
    with pytest.raises(KeyboardInterrupt), console.raw_mode():
        inside = termios.tcgetattr(fd)
        assert not inside[3] & (termios.ECHO | termios.ICANON)
        assert inside[6][termios.VMIN] == 1
        raise KeyboardInterrupt
    assert termios.tcgetattr(fd) == before


def test_a_terminal_poll_shows_the_screen_does_not_wait_and_needs_no_enter(terminal: Pty) -> None:
    console = terminal.console
    with console.raw_mode():
        console.write(b"Press a key")
        assert console.next_key() is None
        assert terminal.display.getvalue() == b"Press a key"  # the user sees what they answer
        os.write(terminal.master, b"d")
        assert console.next_key(None) == ord("d")  # no newline needed in raw mode
        assert console.next_key() is None
