"""The limits a grader puts on a submission's run besides the step limit: wall-clock time and
output. Either ends the run exactly, before the next instruction, through the machine's
own way of ending a run from outside (`Machine.request_stop`, as Ctrl-C does), so the
state and the place are reported as for any other ending."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from lc3jit.session import Engine
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import UNLIMITED, Outcome


def time_limit(seconds: float) -> Outcome:
    return Outcome(Ending.TIME_LIMIT, f"the time limit ({seconds:g} s) ran out")


@contextlib.contextmanager
def deadline(machine: Machine, seconds: float | None, limit: float) -> Iterator[None]:
    """End the run when `seconds` have passed (None: no limit); `limit` is the whole limit,
    for the message. A timer thread asks for the stop; an ending it asked for after the run
    ended anyway is taken back, so the next run does not inherit it."""
    if seconds is None:
        yield
        return
    ending = time_limit(limit)
    timer = threading.Timer(max(seconds, 0.0), machine.request_stop, (ending,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()
        if machine.ending is ending:
            machine.take_ending()


#: Instructions a limited run gives its engine at a time: translated code looks at a
#: requested stop only when it comes back to its dispatcher, and a region may loop for a
#: million instructions before it does; a slice this short bounds how long a flood of
#: output or an expired time limit goes on (about a millisecond of translated code).
SLICE = 50_000


class Sliced:
    """Runs a runnable in slices of SLICE instructions, so a stop requested from outside
    (time limit, output limit) is taken within a slice on every engine."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.machine = inner.machine
        self.name = inner.name
        self.stops = inner.stops

    def set_stop(self, pc: int, on: bool) -> None:
        self.inner.set_stop(pc, on)

    def run(self, max_steps: int | None = None) -> Outcome:
        left = UNLIMITED if max_steps is None else max_steps
        while True:
            step = min(SLICE, left)
            outcome = self.inner.run(step)
            left -= step
            if outcome.ending is not Ending.STEP_LIMIT or left <= 0:
                return outcome
            if self.machine.ending is not None:
                return self.machine.take_ending() or outcome
