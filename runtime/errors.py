"""Errors that end a load or a run, each with the exit code the CLI gives it."""

from __future__ import annotations

from .endings import Ending


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

    ending: Ending

    def __init__(self, at: int, completed: bool, message: str = "") -> None:
        super().__init__(message or self.ending.reason)
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
    ending = Ending.HALT


class MachineFault(Stop):
    """Illegal opcode or unknown trap vector with no OS to handle it."""

    ending = Ending.FAULT


class InputExhausted(Stop):
    """The program waits for a key and the scripted input has none left."""

    ending = Ending.INPUT_EXHAUSTED


class StopRequested(Exception):  # noqa: N818 - control flow, not an error
    """Raised where an engine looks for its next instruction, after something outside the
    program (a signal, an output that cannot be written) asked the run to end: nothing of
    that instruction has run, so the engine's state is exact. `Machine.ending` says why."""


class Ended(Stop):
    """A requested ending taken inside an instruction that waited for a key: the
    instruction did not complete, so the run could go on from it."""

    def __init__(self, at: int, ending: Ending, message: str) -> None:
        self.ending = ending
        super().__init__(at, False, message)


class Breakpoint(Stop):
    """A debugger's stop before the instruction at `at` (not executed): a breakpoint, or the
    return point of a call made through the API."""

    ending = Ending.BREAKPOINT


class Watched(Stop):
    """A store instruction at `at` (executed) wrote a word a debugger watches."""

    ending = Ending.WATCH
