"""The limits a grader puts on a submission's run besides the step limit: wall-clock time and
output. Either ends the run exactly, between two instructions, so the state and the place
are reported as for any other ending.

The run is given to its engine in slices of SLICE instructions, and the clock is read
between two slices: no timer thread per run (starting one and joining it cost a test
more than its run on a loaded machine), and a run ends within a slice (about a
millisecond translated, some 20 ms interpreted) of its deadline. The output limit is the
console's: past it the machine asks for its run to end (`Machine.request_stop`), which
translated code sees only when it comes back to its dispatcher; a slice bounds that too.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from lc3jit_runtime.endings import Ending
from lc3jit_runtime.outcome import UNLIMITED, Outcome

if TYPE_CHECKING:
    from lc3jit.session import Engine


def time_limit(seconds: float) -> Outcome:
    return Outcome(Ending.TIME_LIMIT, f"the time limit ({seconds:g} s) ran out")


#: Instructions a limited run gives its engine at a time: translated code looks at a
#: requested stop only when it comes back to its dispatcher, and a region may loop for a
#: million instructions before it does; a slice this short bounds how long a flood of
#: output or an expired time limit goes on.
SLICE = 50_000


class Sliced:
    """Runs a runnable in slices of SLICE instructions until `deadline` (a time.monotonic(),
    or None), so the time limit and a stop requested from outside (the output limit) are
    taken within a slice on every engine. `limit` is the whole limit, for the message."""

    def __init__(self, inner: Engine, deadline: float | None = None, limit: float = 0.0) -> None:
        self.inner = inner
        self.machine = inner.machine
        self.name = inner.name
        self.stops = inner.stops
        self.deadline = deadline
        self.limit = limit

    def set_stop(self, pc: int, on: bool) -> None:
        self.inner.set_stop(pc, on)

    def run(self, max_steps: int | None = None) -> Outcome:
        left = UNLIMITED if max_steps is None else max_steps
        deadline = self.deadline
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                return time_limit(self.limit)
            step = min(SLICE, left)
            outcome = self.inner.run(step)
            left -= step
            if outcome.ending is not Ending.STEP_LIMIT or left <= 0:
                return outcome
            if self.machine.ending is not None:
                return self.machine.take_ending() or outcome
