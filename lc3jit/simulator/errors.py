"""How a run that did not end by HALT is reported to a Python caller: one RunError subclass
per ending, each holding the run's result (state, outcome, exit code) and a message that
says where the program was."""

from __future__ import annotations

from lc3jit.session import RunResult
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import LC3Error


class RunError(LC3Error):
    """A run that ended other than by HALT; `result` holds the state and how it ended."""

    def __init__(self, result: RunResult, message: str) -> None:
        super().__init__(message)
        self.result = result
        self.outcome = result.outcome
        self.exit_code = result.outcome.exit_code


class StepLimitError(RunError):
    """The step limit ran out first (a loop that never ends, or a limit too small)."""


class MachineFaultError(RunError):
    """A machine fault: an illegal opcode, an unknown trap vector, RTI in user mode."""


class InputEndedError(RunError):
    """The program waited for a key and the keys given were used up."""


class CallError(RunError):
    """A called subroutine stopped (HALT, a breakpoint) without returning."""


class TimeLimitError(RunError):
    """The wall-clock limit ran out first (see `Simulator(time_limit=...)`)."""


class OutputLimitError(RunError):
    """The program printed more than the output limit (see `Simulator(max_output=...)`)."""


class StrictError(RunError):
    """Strict mode: the program read a word that nothing wrote (see `Simulator(strict=True)`)."""


RUN_ERRORS: dict[Ending, type[RunError]] = {
    Ending.STEP_LIMIT: StepLimitError,
    Ending.FAULT: MachineFaultError,
    Ending.INPUT_EXHAUSTED: InputEndedError,
    Ending.TIME_LIMIT: TimeLimitError,
    Ending.OUTPUT_LIMIT: OutputLimitError,
    Ending.STRICT: StrictError,
}


def raise_for(result: RunResult, where: str) -> None:
    """Raise the RunError of an ending other than HALT or a debugger's stop, naming where
    the program was; KeyboardInterrupt for an ending by a signal."""
    __tracebackhide__ = True
    outcome = result.outcome
    if outcome.ending.by_signal:
        raise KeyboardInterrupt
    error = RUN_ERRORS.get(outcome.ending)
    if error is not None:
        by = "by" if outcome.ending is Ending.STRICT else "at"
        raise error(result, f"{outcome.message} {by} {where}")
