"""How a run ended, the same record for every engine."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import INTERRUPTED_EXIT, STEP_LIMIT_EXIT, Stop


@dataclass(frozen=True, slots=True)
class Outcome:
    reason: str  # "halt", "fault", "step-limit", "input-exhausted", "interrupted"
    exit_code: int
    message: str = ""

    @classmethod
    def from_stop(cls, stop: Stop) -> Outcome:
        return cls(stop.reason, stop.exit_code, stop.message)


STEP_LIMIT = Outcome("step-limit", STEP_LIMIT_EXIT, "step limit reached")
INTERRUPTED = Outcome("interrupted", INTERRUPTED_EXIT, "interrupted")

#: A budget that no run reaches, for runs without --max-steps.
UNLIMITED = 1 << 62
