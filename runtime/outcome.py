"""How a run ended, the same record for every engine."""

from __future__ import annotations

import errno
import signal
from dataclasses import dataclass

from .errors import OUTPUT_ERROR_EXIT, OUTPUT_LIMIT_EXIT, SIGNAL_EXIT_BASE, STEP_LIMIT_EXIT, Stop


@dataclass(frozen=True, slots=True)
class Outcome:
    #: "halt", "fault", "step-limit", "output-limit", "input-exhausted", "interrupted"
    #: (a signal), "broken-pipe" or "output-error"
    reason: str
    exit_code: int
    message: str = ""

    @classmethod
    def from_stop(cls, stop: Stop) -> Outcome:
        return cls(stop.reason, stop.exit_code, stop.message)


STEP_LIMIT = Outcome("step-limit", STEP_LIMIT_EXIT, "step limit reached")


def interrupted(signum: int) -> Outcome:
    """Ended by SIGINT (Ctrl-C), SIGTERM or SIGHUP: exit 128 + the signal's number."""
    name = signal.Signals(signum).name
    return Outcome(
        "interrupted", SIGNAL_EXIT_BASE + signum, "interrupted" + ("" if name == "SIGINT" else f" ({name})")
    )


def output_limit(limit: int) -> Outcome:
    """The program wrote more than `limit` bytes: what it wrote is cut there, and the run
    ends after the instruction that went past it (see Console.write)."""
    return Outcome("output-limit", OUTPUT_LIMIT_EXIT, f"output limit reached ({limit:,} bytes)")


def output_lost(error: OSError) -> Outcome:
    """The display could not be written. A reader that went away (EPIPE, as in `| head`)
    ends the run quietly with 128 + SIGPIPE, as a Unix tool killed by SIGPIPE; anything
    else (a full disk, a closed descriptor) is one line and exit 1."""
    if error.errno == errno.EPIPE:
        return Outcome("broken-pipe", SIGNAL_EXIT_BASE + signal.SIGPIPE)
    return Outcome("output-error", OUTPUT_ERROR_EXIT, f"cannot write the output: {error.strerror or error}")


#: A budget that no run reaches, for runs without --max-steps.
UNLIMITED = 1 << 62
