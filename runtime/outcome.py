"""How a run ended, the same record for every engine."""

from __future__ import annotations

import errno

from .endings import BY_SIGNAL, SIGNAL_NAMES, Ending
from .errors import Stop
from .record import Record


class Outcome(Record, fields=("ending", "message"), defaults={"message": ""}):
    ending: Ending
    message: str

    @property
    def reason(self) -> str:
        """The ending's name in JSON: "halt", "fault", "step-limit", ..."""
        return self.ending.reason

    @property
    def exit_code(self) -> int:
        return self.ending.exit_code

    @classmethod
    def from_stop(cls, stop: Stop) -> Outcome:
        return cls(stop.ending, stop.message)


STEP_LIMIT = Outcome(Ending.STEP_LIMIT, "step limit reached")


def interrupted(signum: int) -> Outcome:
    """Ended by SIGINT (Ctrl-C), SIGTERM or SIGHUP."""
    name = SIGNAL_NAMES[signum]
    return Outcome(BY_SIGNAL[signum], "interrupted" + ("" if name == "SIGINT" else f" ({name})"))


def output_limit(limit: int) -> Outcome:
    """The program wrote more than `limit` bytes: what it wrote is cut there, and the run
    ends after the instruction that went past it (see Console.write)."""
    return Outcome(Ending.OUTPUT_LIMIT, f"the output limit ({limit:,} bytes) was reached")


def output_lost(error: OSError) -> Outcome:
    """The display could not be written. A reader that went away (EPIPE, as in `| head`)
    ends the run quietly, as a Unix tool killed by SIGPIPE; anything else (a full disk, a
    closed descriptor) is one line and exit 1."""
    if error.errno == errno.EPIPE:
        return Outcome(Ending.BROKEN_PIPE)
    return Outcome(Ending.OUTPUT_ERROR, f"cannot write the output: {error.strerror or error}")


#: A budget that no run reaches, for runs without --max-steps.
UNLIMITED = 1 << 62
