"""Errors that end a load or a run, each with the exit code the CLI gives it."""

from __future__ import annotations


class LC3Error(Exception):
    """Base of the errors lc3jit reports as one line, never as a traceback."""

    exit_code = 1


class LoadError(LC3Error):
    """A file that cannot be loaded: names the file and the problem."""

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class Stop(Exception):  # noqa: N818 - a stop is not an error: HALT is a Stop too
    """Raised inside the machine to end a run by the instruction at `at`.

    `completed` says whether that instruction counts as executed: HALT does, and leaves
    the PC after it; an illegal opcode or a GETC with no input left does not, and leaves
    the PC on it, so the run could go on from there. Engines use `at` to count exactly
    how far into a translated block the run got.
    """

    reason = "stop"
    exit_code = 0

    def __init__(self, at: int, completed: bool, message: str = "") -> None:
        super().__init__(message or self.reason)
        self.at = at
        self.resume_pc = (at + 1) & 0xFFFF if completed else at
        self.completed = completed
        self.message = message


class Leave(Exception):  # noqa: N818 - control flow, not an error
    """Raised by an instruction at `at` that completed, to make the engine look again
    before going on at `resume_pc`: translated code after a store into itself, a fast
    loop after interrupts were enabled, an exception taken in the middle of a load or a
    store (the handler's address is where the run goes on)."""

    def __init__(self, at: int, resume_pc: int) -> None:
        super().__init__(at, resume_pc)
        self.at = at
        self.resume_pc = resume_pc


class Halted(Stop):
    reason = "halt"
    exit_code = 0


class MachineFault(Stop):
    """Illegal opcode or unknown trap vector with no OS to handle it."""

    reason = "fault"
    exit_code = 3


class InputExhausted(Stop):
    """The program waits for a key and the scripted input has none left."""

    reason = "input-exhausted"
    exit_code = 5


class StopRequested(Exception):  # noqa: N818 - control flow, not an error
    """Raised where an engine looks for its next instruction, after something outside the
    program (a signal, an output that cannot be written) asked the run to end: nothing of
    that instruction has run, so the engine's state is exact. `Machine.ending` says why."""


class Ended(Stop):
    """A requested ending taken inside an instruction that waited for a key: the
    instruction did not complete, so the run could go on from it."""

    def __init__(self, at: int, reason: str, exit_code: int, message: str) -> None:
        super().__init__(at, False, message)
        self.reason = reason
        self.exit_code = exit_code


class Breakpoint(Stop):
    """A debugger's stop before the instruction at `at` (not executed): a breakpoint, or the
    return point of a call made through the API."""

    reason = "breakpoint"
    exit_code = 0


class Watched(Stop):
    """A store instruction at `at` (executed) wrote a word a debugger watches."""

    reason = "watch"
    exit_code = 0


#: Exit codes of reasons that are not exceptions raised inside the machine.
STEP_LIMIT_EXIT = 4
#: Ended by a signal: 128 + its number, as a shell reports a process killed by it.
SIGNAL_EXIT_BASE = 128
#: The output could not be written (a full disk, a closed descriptor): as Unix tools do.
OUTPUT_ERROR_EXIT = 1
#: The program wrote more than the output limit (--max-output) allows.
OUTPUT_LIMIT_EXIT = 6
