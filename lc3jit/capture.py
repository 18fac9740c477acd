"""A console whose display is a buffer: tools that run a program show its output themselves.

`lc3jit dump --run` and `lc3jit bench` run programs while they print their own tables, so
the program's output is kept (to show beside the dump, or to compare engines) instead of
mixing with theirs. Keys come from a file or nowhere: a run that waits for a key ends as
"input-exhausted", the same way every time.
"""

from __future__ import annotations

import io
from pathlib import Path

from runtime.console import Console


class CapturedConsole(Console):
    """A scripted console that remembers everything the program wrote."""

    def __init__(self, keys: bytes = b"") -> None:
        self._buffer = io.BytesIO()
        super().__init__(io.BytesIO(keys), self._buffer)

    @classmethod
    def from_file(cls, path: Path | None) -> CapturedConsole:
        """Keys from --input, or none; OSError when the file cannot be read."""
        return cls(path.read_bytes() if path is not None else b"")

    @property
    def output(self) -> bytes:
        self.flush()
        return self._buffer.getvalue()
