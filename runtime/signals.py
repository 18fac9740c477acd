"""SIGINT, SIGTERM and SIGHUP end a run the way Ctrl-C does: exactly, at an instruction.

Python's own SIGINT raises KeyboardInterrupt wherever the process happens to be: in the
middle of translated code whose registers live in fast locals (a region holds them for
its whole run), so they are lost with its frame. Here a signal only asks the machine to
stop (`Machine.request_stop`): every engine takes that before its next instruction,
with its state written back, and the run ends with exit 128 + the signal's number.
"""

from __future__ import annotations

import _signal  # `signal` without the enums it makes of numbers and handlers

from .lean import contextmanager
from .machine import Machine
from .outcome import interrupted

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

ENDING_SIGNALS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)


@contextmanager
def stop_on_signals(machine: Machine) -> Iterator[None]:
    """While inside, the ending signals stop the machine; their handlers restored after.

    Outside the main thread Python cannot install handlers: the signals keep theirs. A
    signal a parent left ignored (a background job's SIGINT, nohup's SIGHUP) stays ignored.
    """

    def stop(signum: int, frame: FrameType | None) -> None:
        machine.request_stop(interrupted(signum))

    saved = {}
    try:
        for signum in ENDING_SIGNALS:
            if _signal.getsignal(signum) != _signal.SIG_IGN:
                saved[signum] = _signal.signal(signum, stop)
    except ValueError:  # not the main thread
        pass
    try:
        yield
    finally:
        for signum, handler in saved.items():
            _signal.signal(signum, handler)
