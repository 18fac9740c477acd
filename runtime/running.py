"""One run as a user sees it: the console running, the ending signals stopping it exactly,
and one line on stderr about how it ended. `lc3jit run`, the API (so the debugger and the
grader) and `python PROGRAM.pyc` all run through here."""

from __future__ import annotations

import sys
import time

from .console import Console
from .machine import Machine
from .outcome import Outcome
from .signals import stop_on_signals

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable


def run_to_ending(machine: Machine, run: Callable[[], Outcome]) -> tuple[Outcome, float]:
    """Run with the console running (raw keys, output streamed) and the ending signals
    stopping it exactly: how it ended, and the seconds of CPU the process spent on it
    (time waiting for keys is not the program's).

    An ending requested from outside (a signal, a display that cannot be written) is the
    run's outcome, even when the program stopped on its own meanwhile: its output is
    incomplete. It is then cleared, so that the machine may run on (a debugger after Ctrl-C).
    """
    with stop_on_signals(machine):
        start = time.process_time()
        with machine.console.running():
            outcome = machine.ending or run()
        seconds = time.process_time() - start
    return machine.take_ending() or outcome, seconds


def start_message_line(console: Console) -> None:
    """A message after the program's output starts a line of its own on a terminal."""
    if console.mid_line and console.on_terminal and sys.stderr.isatty():
        sys.stderr.write("\n")
        console.mid_line = False


def report_ending(outcome: Outcome, console: Console, prefix: str) -> int:
    """One line on stderr for an ending that says something (a reader that went away ends
    quietly, as Unix tools do), after `prefix`: the exit code."""
    if outcome.exit_code and outcome.message:
        start_message_line(console)
        sys.stderr.write(f"{prefix}: {outcome.message}\n")
        sys.stderr.flush()
    return outcome.exit_code
