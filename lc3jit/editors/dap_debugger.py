"""The console the Debug Adapter gives the program: a display that is the debug console, a
keyboard that is what the user types there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import BinaryIO

from lc3jit.editors.dap_wire import Channel
from lc3jit_runtime.console import Console


class EventDisplay:
    """The display of the program: each write becomes an `output` event on the debug console."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    def write(self, data: bytes) -> int:
        self.channel.event("output", {"category": "stdout", "output": data.decode("latin-1")})
        return len(data)

    def flush(self) -> None:
        """Nothing is held."""

    def isatty(self) -> bool:
        return False


class ConsoleKeyboard(Console):
    """Keys typed at the debug console, through a pipe: a KBSR poll finds none waiting
    rather than waiting for one, as at a terminal, and a GETC waits (pause still stops it)."""

    def __init__(self, keyboard: BinaryIO, display: EventDisplay) -> None:
        super().__init__(keyboard, display, interactive=True)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def raw_mode(self) -> Iterator[None]:
        """A pipe has no terminal modes to set."""
        try:
            yield
        finally:
            self.flush()
