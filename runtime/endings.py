"""How a run can end: each ending's name in JSON and the exit code it gives."""

from __future__ import annotations

import _signal  # signal's numbers, without the enums `signal` makes of them

from .record import Choice


class Ending(Choice):
    """`reason` is the ending's name in --state-json and every JSON report; `exit_code` what
    `lc3jit run` and `python PROGRAM.pyc` exit with. The three signals that end a run share
    the name "interrupted" and exit with 128 + the signal's number, as a shell reports a
    process killed by it; a reader that went away exits as one killed by SIGPIPE would.
    The last five are a debugger's stops, after which the run may go on."""

    HALT = "halt", 0
    FAULT = "fault", 3
    STEP_LIMIT = "step-limit", 4
    INPUT_EXHAUSTED = "input-exhausted", 5
    OUTPUT_LIMIT = "output-limit", 6  # the program wrote more than --max-output allows
    HUNG_UP = "interrupted", 128 + _signal.SIGHUP
    INTERRUPTED = "interrupted", 128 + _signal.SIGINT
    TERMINATED = "interrupted", 128 + _signal.SIGTERM
    BROKEN_PIPE = "broken-pipe", 128 + _signal.SIGPIPE
    OUTPUT_ERROR = "output-error", 1
    # A grader's limits and checks (lc3jit.grading), through the API only: exit codes of the
    # endings they are kin to (a limit reached, a fault).
    TIME_LIMIT = "time-limit", 4
    STRICT = "strict", 3  # a read of a word that nothing wrote
    BREAKPOINT = "breakpoint", 0
    WATCH = "watch", 0
    ARRIVED = "arrived", 0  # the debugger's temporary stop: a `next` or `finish` done
    PAUSED = "pause", 0  # a debug adapter's pause (lc3jit dap)
    RECONFIGURE = "reconfigure", 0  # a debug adapter's moment to apply breakpoints, then go on

    def __init__(self, reason: str, exit_code: int) -> None:
        self.reason = reason
        self.exit_code = exit_code

    @property
    def by_signal(self) -> bool:
        return self in BY_SIGNAL.values()


#: The endings of the signals that stop a run (runtime.signals), by signal.
BY_SIGNAL = {
    _signal.SIGHUP: Ending.HUNG_UP,
    _signal.SIGINT: Ending.INTERRUPTED,
    _signal.SIGTERM: Ending.TERMINATED,
}
#: Their names, as a message says them.
SIGNAL_NAMES = {_signal.SIGHUP: "SIGHUP", _signal.SIGINT: "SIGINT", _signal.SIGTERM: "SIGTERM"}
