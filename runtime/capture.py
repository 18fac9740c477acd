"""A console whose display is a buffer: tools that run a program show its output themselves.

`lc3jit dump --run` and `lc3jit bench` run programs while they print their own tables, so
the program's output is kept (to show beside the dump, or to compare engines) instead of
mixing with theirs. Keys come from a file or nowhere: a run that waits for a key ends as
"input-exhausted", the same way every time.
"""

from __future__ import annotations

import io

from lc3jit_runtime.console import Console
from lc3jit_runtime.lean import contextmanager

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Iterator

    from _typeshed import StrPath


class CapturedConsole(Console):
    """A scripted console that remembers everything the program wrote."""

    def __init__(self, keys: bytes = b"") -> None:
        self._buffer = io.BytesIO()
        self._keys = io.BytesIO(keys)
        super().__init__(self._keys, self._buffer)

    @classmethod
    def from_file(cls, path: StrPath | None) -> CapturedConsole:
        """Keys from --input, or none; OSError when the file cannot be read."""
        if path is None:
            return cls()
        with open(path, "rb") as keys:
            return cls(keys.read())

    @contextmanager
    def running(self) -> Iterator[None]:
        """A run: no thread that flushes open lines (a console on a pipe has one), since
        nobody watches this buffer fill: `output` flushes. A grader's Simulator runs a
        few hundred instructions a test, and starting and joining that thread cost more."""
        try:
            yield
        finally:
            self.flush()

    @property
    def output(self) -> bytes:
        self.flush()
        return self._buffer.getvalue()

    def clear(self) -> None:
        """Forget the output so far."""
        self.flush()
        self._buffer.seek(0)
        self._buffer.truncate()

    def feed(self, keys: bytes) -> None:
        """Keys after those given so far, even once the program has read them all."""
        read = self._keys.tell()
        self._keys.seek(0, io.SEEK_END)
        self._keys.write(keys)
        self._keys.seek(read)
        self.exhausted = self.exhausted and not keys
