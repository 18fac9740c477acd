"""The keyboard and display the machine talks to: a raw terminal, or scripted streams.

On a terminal, keys arrive when the user presses them and KBSR polls without blocking,
as the classic C VM does with select(). From a pipe or a file the same program must run
the same way every time, so a poll waits for the next byte: a key is "waiting" exactly
when input remains. At the end of scripted input a poll says so (`exhausted`) and the
machine ends the run instead of spinning forever.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Iterator
from typing import BinaryIO

try:
    import termios
except ImportError:  # pragma: no cover - not on POSIX
    termios = None  # type: ignore[assignment]


class Console:
    """Byte streams for the keyboard and the display, with output buffered until input."""

    def __init__(self, keyboard: BinaryIO | None, display: BinaryIO, interactive: bool = False) -> None:
        self._keyboard = keyboard
        self._display = display
        self._interactive = interactive
        self._pending: int | None = None  # a byte read ahead by a scripted poll
        self._out = bytearray()
        self.exhausted = keyboard is None
        # On a terminal, a program that prints while it computes shows each line at once.
        self.on_terminal = display.isatty()
        self.mid_line = False  # did the output so far stop in the middle of a line?

    @classmethod
    def for_process(cls, input_path: str | None = None) -> Console:
        """stdin/stdout, or a file as the keyboard; interactive only on a terminal."""
        display = sys.stdout.buffer
        if input_path is not None:
            return cls(open(input_path, "rb"), display)  # the file lives as long as the run
        stdin = sys.stdin.buffer
        return cls(stdin, display, interactive=stdin.isatty())

    def write(self, data: bytes) -> None:
        self._out += data
        if data:
            self.mid_line = not data.endswith(b"\n")
        if self.on_terminal and b"\n" in data:
            self.flush()

    def flush(self) -> None:
        if self._out:
            self._display.write(self._out)
            self._out.clear()
        self._display.flush()

    def key_ready(self) -> bool:
        """Is a key waiting? Never blocks on a terminal; waits for the next byte of a script."""
        if self._pending is None and not self.exhausted:
            if self._interactive and not select.select([self._keyboard], [], [], 0)[0]:
                if self._out:  # a program polling for a key waits for the user, who must see the screen
                    self.flush()
                return False
            self._pending = self._read_byte()
        return self._pending is not None

    def read_key(self) -> int | None:
        """The next key, waiting for it; None once the input has ended."""
        if self._pending is not None:
            key, self._pending = self._pending, None
            return key
        return None if self.exhausted else self._read_byte()

    def _read_byte(self) -> int | None:
        self.flush()
        keyboard = self._keyboard
        assert keyboard is not None  # not exhausted, so there is a keyboard
        # On a terminal, read the fd unbuffered: what select() saw is what we read.
        data = os.read(keyboard.fileno(), 1) if self._interactive else keyboard.read(1)
        if not data:
            self.exhausted = True
            return None
        return data[0]

    @contextlib.contextmanager
    def raw_mode(self) -> Iterator[None]:
        """No echo and no line buffering on a terminal, restored on every way out."""
        if not self._interactive or termios is None:
            try:
                yield
            finally:
                self.flush()
            return
        fd = self._keyboard.fileno()  # type: ignore[union-attr]
        saved = termios.tcgetattr(fd)
        raw = termios.tcgetattr(fd)
        raw[3] &= ~(termios.ICANON | termios.ECHO)
        raw[6][termios.VMIN] = 1
        raw[6][termios.VTIME] = 0
        try:
            termios.tcsetattr(fd, termios.TCSANOW, raw)
            yield
        finally:
            try:
                self.flush()
            finally:
                termios.tcsetattr(fd, termios.TCSAFLUSH, saved)
