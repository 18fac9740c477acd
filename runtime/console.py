"""The keyboard and display the machine talks to: a raw terminal, or scripted streams.

On a terminal, keys arrive when the user presses them and KBSR polls without blocking,
as the classic C VM does with select(). From a pipe or a file the same program must run
the same way every time, so a poll waits for the next byte: a key is "waiting" exactly
when input remains. At the end of scripted input a poll finds no key (`exhausted`).

Output goes out as the program makes it, never piling up: on a terminal at every write
(as the C VM flushes after every trap), into a pipe or a file at a newline (at most once
a LINE_GAP), every 64 KiB, and whatever is held within FLUSH_INTERVAL (a thread flushes
it while `running()`). A write that fails (a reader gone, a full disk, a closed descriptor) is
reported once, through `when_lost`, and later output is dropped: the machine ends the
run at its next instruction.
"""

from __future__ import annotations

import _thread  # threading's lock and thread without threading (see Console.running)
import errno
import os
import stat
import sys
from time import monotonic

from .errors import StopRequested
from .lean import contextmanager, suppress

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import ModuleType
    from typing import BinaryIO


#: Seconds an unfinished line waits at most before it is written to a pipe or a file.
FLUSH_INTERVAL = 0.05
#: Bytes held at most before they are written, whatever the program prints.
FLUSH_SIZE = 1 << 16
#: A newline into a pipe or a file writes the output unless the last write was this
#: recent (seconds): a program printing many lines pays one write(2) a millisecond, not one
#: a line (which made 30,000 short lines into a pipe 1.5x slower); the lines held are
#: written by the flusher within FLUSH_INTERVAL.
LINE_GAP = 0.001
#: Seconds a wait for a key sleeps in select() between looks at whether the run must end.
WAIT_SLICE = 0.05
#: Bytes read at a time from a keyboard whose keys come at once (memory, a regular file).
READ_AHEAD = 4096


def _regular_file(fd: int) -> bool:
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


class ClosedDisplay:
    """The display when the process has no stdout (`>&-`): every write fails as write(2) would."""

    def write(self, data: bytes) -> int:
        raise OSError(errno.EBADF, "stdout is closed")

    def flush(self) -> None:
        """Nothing is held."""

    def isatty(self) -> bool:
        return False


class FdDisplay:
    """A file descriptor written directly: an error shows at once, nothing is held back."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        return len(data)

    def flush(self) -> None:
        """Nothing is held."""

    def isatty(self) -> bool:
        return os.isatty(self.fd)


class Console:
    """Byte streams for the keyboard and the display."""

    def __init__(self, keyboard: BinaryIO | None, display: BinaryIO, interactive: bool = False) -> None:
        self._keyboard = keyboard
        self._keyboard_fd: int | None = None  # read unbuffered, so that select() sees what is left
        with suppress(AttributeError, OSError, ValueError):
            self._keyboard_fd = keyboard.fileno()  # type: ignore[union-attr]
        #: Keys from memory or a regular file (`--input`, `< keys`) come at once: a read
        #: neither waits nor needs the screen shown first (a write(2) and a select(2) a key).
        self._keys_at_once = self._keyboard_fd is None or _regular_file(self._keyboard_fd)
        self._display = display
        self._interactive = interactive
        #: The keys read ahead (see _read_byte) not taken yet: an iterator over them, which a
        #: `for` takes one from with no call (Devices.read_device: a poll a key an OS reads).
        self.ahead: Iterator[int] = iter(b"")
        #: This console where it takes keys read ahead as Console.next_key does: then a
        #: KBSR poll takes the next one itself (Devices.read_device), a call fewer a key an
        #: OS reads. None where next_key is another's (a subclass's, which must see every
        #: poll; whoever sets next_key on the object sets this to None), and never the
        #: reverse debugger's recording stand-in, which forwards this to the real console.
        self.plain = self if type(self).next_key is Console.next_key else None
        self._out = bytearray()  # only ever changed in place: the flusher thread holds it too
        self._flushing = _thread.allocate_lock()  # one writer at a time, in order
        self.exhausted = keyboard is None
        self.on_terminal = display.isatty()
        self._flushed = 0  # bytes passed to the display (or lost with it)
        self._line_ended = True  # did the last of them end a line (or is there none)?
        self._flushed_at = 0.0  # time.monotonic() of the last write to the display
        self.lost: OSError | None = None  # why the display could not be written
        self.when_lost: Callable[[OSError], None] | None = None
        self.stop_requested = False  # set by the machine: waits for a key give up
        self.max_output = None
        self.when_full: Callable[[int], None] | None = None

    @property
    def max_output(self) -> int | None:
        """The most bytes the program may write (None: no limit); past it, `when_full`."""
        return self._max_output

    @max_output.setter
    def max_output(self, limit: int | None) -> None:
        self._max_output = limit
        #: `put` holds a byte without `write` while the bytes held are fewer: never with a
        #: limit to count or a terminal to show (`on_terminal` is set once, before this).
        self._hold_below = FLUSH_SIZE - 1 if limit is None and not self.on_terminal else 0

    @classmethod
    def for_process(cls, input_path: str | None = None) -> Console:
        """stdin/stdout, or a file as the keyboard; interactive only on a terminal.

        Closed stdin reads as no input at all; closed stdout fails at the first write.
        """
        display: BinaryIO
        if sys.stdout is None:  # Python's stdout when descriptor 1 is closed
            display = ClosedDisplay()  # type: ignore[assignment]
        else:
            display = sys.stdout.buffer
            with suppress(AttributeError, OSError, ValueError):
                display.flush()
                display = FdDisplay(display.fileno())  # type: ignore[assignment]
        if input_path is not None:
            return cls(open(input_path, "rb"), display)  # the file lives as long as the run
        if sys.stdin is None:
            return cls(None, display)
        stdin = sys.stdin.buffer
        return cls(stdin, display, interactive=stdin.isatty())

    def write(self, data: bytes) -> None:
        limit = self._max_output
        if limit is not None and self.bytes_written + len(data) > limit:
            # Cut at the limit, and tell the machine, which ends the run at the next
            # instruction: memory (the API keeps the output) and disk stay bounded.
            data = data[: max(0, limit - self.bytes_written)]
            if self.when_full is not None:
                self.when_full(limit)
        out = self._out
        out += data  # in place: the flusher thread holds the same bytearray
        line_due = 0x0A in data and monotonic() - self._flushed_at >= LINE_GAP
        if self.on_terminal or line_due or len(out) >= FLUSH_SIZE:
            self.flush()

    def put(self, value: int) -> bool:
        """`write` of value's low byte (DDR and OUT: most of what an OS prints), held
        without making a bytes object unless a limit, a newline, a terminal or a full
        buffer needs `write`. True when the machine has been asked to stop (the output
        limit, a lost display, a signal): translated code calls it directly as DISPLAY
        (runtime.contract) and leaves at the next instruction then. A value that is a byte
        already (every character an OS prints) is held as it is; `&` (which 3.11 runs
        generically) only on `write`'s way."""
        out = self._out
        if value != 0x0A and value <= 0xFF and len(out) < self._hold_below:
            out.append(value)  # in place, as in `write`
        else:
            self.write(bytes((value & 0xFF,)))
        return self.stop_requested

    @property
    def mid_line(self) -> bool:
        """Did the output so far stop in the middle of a line?"""
        return bool(self._out) or not self._line_ended

    @mid_line.setter
    def mid_line(self, value: bool) -> None:
        """Someone else (a debugger sharing the terminal) ended the line, or opened one."""
        self.flush()
        self._line_ended = not value

    @property
    def bytes_written(self) -> int:
        """Bytes the program has written so far (held ones included, lost ones too)."""
        return self._flushed + len(self._out)

    def flush(self) -> None:
        with self._flushing:
            if self.lost is not None:
                self._flushed += len(self._out)
                self._out.clear()
                return
            try:
                if self._out:
                    data = bytes(self._out)
                    del self._out[: len(data)]
                    self._flushed += len(data)
                    self._line_ended = data[-1] == 0x0A
                    self._flushed_at = monotonic()
                    self._display.write(data)
                self._display.flush()
            except OSError as error:
                self.lost = error
            else:
                return
        if self.when_lost is not None:
            self.when_lost(self.lost)

    def next_key(self, wait: float | None = 0.0) -> int | None:
        """The next key, taken; None when none came or the input has ended.

        A terminal is looked at for up to `wait` seconds (None: until a key comes),
        returning as soon as a key comes; a script gives its next byte, waiting for a pipe's.
        One call a KBSR poll: every key an OS reads is one (tests and the reverse debugger's
        recording console override this one method)."""
        for key in self.ahead:  # read ahead: memory or a regular file
            return key
        if self.exhausted:
            return None
        if self._interactive and wait is not None:
            if self._out:  # a program polling for a key waits for the user, who must see the screen
                self.flush()
            if not self._select(wait):
                return None
        return self._read_byte()

    def _select(self, timeout: float) -> bool:
        """Can the keyboard be read within timeout (None: however long it takes)?

        Long waits go in slices, so that an ending requested meanwhile (a signal: Python
        retries select() after its handler) is seen within WAIT_SLICE: StopRequested.
        """
        if self._keyboard_fd is None:  # an in-memory script: always readable
            return True
        import select  # only for keys from a pipe or a terminal: a shared library on some builds

        while True:
            slice_ = WAIT_SLICE if timeout is None else min(timeout, WAIT_SLICE)
            if select.select([self._keyboard_fd], [], [], slice_)[0]:
                return True
            if self.stop_requested:
                raise StopRequested
            if timeout is not None:
                timeout -= slice_
                if timeout <= 0:
                    return False

    def _read_byte(self) -> int | None:
        """The next byte of the keyboard. Keys that come at once are read READ_AHEAD at a
        time (a regular file gets back what is left unread when the run ends: `raw_mode`);
        a pipe or a terminal one at a time, what it holds being the sender's until taken."""
        keyboard = self._keyboard
        assert keyboard is not None  # not exhausted, so there is a keyboard
        size = READ_AHEAD if self._keys_at_once else 1
        if not self._keys_at_once:  # the read may wait: whoever sends the keys sees the output first
            self.flush()
            self._select(None)
        try:
            fd = self._keyboard_fd
            data = keyboard.read(size) if fd is None else os.read(fd, size)
        except OSError:  # unreadable (a directory, a descriptor open for writing): no more keys
            data = b""
        if not data:
            self.exhausted = True
            return None
        self.ahead = ahead = iter(data)
        return next(ahead)

    def _give_back(self) -> None:
        """Keys read ahead and not taken go back to a regular file (its offset may be
        shared: `(lc3jit run a.obj; cat) < keys`), so the next reader, or a run after a
        debugger's stop, starts at the first key not taken."""
        fd = self._keyboard_fd
        if fd is None or not self._keys_at_once:  # memory keeps them; a pipe is read a key at a time
            return
        import operator  # only for keys from a regular file: not on a plain run's way

        unread = operator.length_hint(self.ahead)
        if unread:
            self.ahead = iter(b"")
            with suppress(OSError):
                os.lseek(fd, -unread, os.SEEK_CUR)

    @contextmanager
    def running(self) -> Iterator[None]:
        """The console for a run: raw keys on a terminal, and a line left open in a pipe
        or a file written within FLUSH_INTERVAL; everything written and restored after."""
        if self.on_terminal:
            with self.raw_mode():
                yield
            return
        # The flusher is a bare thread of `_thread`, with a lock held while the run lasts
        # and one it holds while it lasts: importing `threading` for its Event and join cost
        # a short run 4.7 M machine instructions, a seventh of what lc3jit adds to Python's
        # own start on 3.15.
        run_lasts, flusher_lasts = _thread.allocate_lock(), _thread.allocate_lock()
        run_lasts.acquire()
        flusher_lasts.acquire()

        def flush_open_lines() -> None:
            try:
                while not run_lasts.acquire(timeout=FLUSH_INTERVAL):
                    if self._out:
                        self.flush()
            finally:
                flusher_lasts.release()

        _thread.start_new_thread(flush_open_lines, ())
        try:
            with self.raw_mode():
                yield
        finally:
            run_lasts.release()
            flusher_lasts.acquire()  # the flusher has ended: nothing is written after the run

    @contextmanager
    def raw_mode(self) -> Iterator[None]:
        """No echo and no line buffering on a terminal, restored on every way out."""
        termios = _terminal_io() if self._interactive else None
        if termios is None:
            try:
                yield
            finally:
                self.flush()
                self._give_back()
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


def _terminal_io() -> ModuleType | None:
    """termios, for a terminal's raw mode; None where there is none (not POSIX). Imported
    only by a run that reads a terminal: a shared library, which a run from a file or a
    pipe loaded for nothing (0.7-1.0 M machine instructions and its mapping)."""
    try:
        import termios
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    return termios
