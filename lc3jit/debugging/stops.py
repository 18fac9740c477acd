"""What a debugger command comes back with: how the run stopped, the errors a command
gives, and what a call and a return are; shared by the session (session.py), its way back
(backward.py) and its fronts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lc3jit_runtime.endings import Ending
from lc3jit_runtime.isa import Flow, Instruction
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

ARRIVED = Outcome(Ending.ARRIVED)  # a temporary stop reached: next, finish, until done
BREAKPOINT = Outcome(Ending.BREAKPOINT)
STEPPED = STEP_LIMIT  # a count of instructions run, as asked
#: Endings after which the program cannot go on: `run` starts it again.
ENDED = (Ending.HALT, Ending.FAULT, Ending.INPUT_EXHAUSTED)


def done(outcome: Outcome) -> Outcome:
    """A temporary stop reached is the command done, as a step is: STEPPED."""
    return STEPPED if outcome is ARRIVED else outcome


@dataclass(frozen=True)
class Stop:
    """A command's stop as a front reports it (an editor's `stopped` or `exited` event, the
    prompt's lines): why, in one word, the Outcome itself, where, and the watched words a
    push by TRAP, an exception or an interrupt wrote since the last stop (a push cannot
    stop the run in the middle of entering the supervisor).

    reason: "step" (a step, next, finish, until or a way back done), "breakpoint",
    "watch", "pause" (stopped from outside: a pause, Ctrl-C), "limit" (--max-steps
    reached) or "ended" (HALT, a fault, the input used up: the program cannot go on)."""

    reason: str
    outcome: Outcome
    pc: int
    pushes: tuple[str, ...] = ()


def reason(outcome: Outcome) -> str:
    """The Stop's reason for an outcome."""
    ending = outcome.ending
    if ending in ENDED:
        return "ended"
    if ending is Ending.STEP_LIMIT and outcome is not STEPPED:
        return "limit"
    if ending is Ending.BREAKPOINT:
        return "breakpoint"
    if ending is Ending.WATCH:
        return "watch"
    if ending is Ending.PAUSED or ending.by_signal:
        return "pause"
    return "step"


class CommandError(Exception):
    """A command that cannot be done as typed: one line for the user, then the prompt."""


def calls(ins: Instruction) -> bool:
    """JSR, JSRR or TRAP: what `next` steps over."""
    return ins.form.flow in (Flow.CALL, Flow.TRAP)


def returns(ins: Instruction) -> bool:
    return ins.form.flow is Flow.RTI or ins.is_return


class Body:
    """A command's work as a Runnable, so that run_engine runs it in one console session."""

    name = "debugger"

    def __init__(self, machine: Machine, body: Callable[[int | None], Outcome]) -> None:
        self.machine = machine
        self.body = body

    def run(self, max_steps: int | None = None) -> Outcome:
        return self.body(None if max_steps is None else self.machine.icount + max_steps)
