"""Calling a subroutine as a grader does, under either calling convention, and what came of it.

Two conventions, declared once per subroutine (`Simulator.declare`):
- registers: the arguments in the registers named (R0, R1, ... by default), the result in
  one register (R0 by default), every other register of R0-R7 kept;
- stack (Patt & Patel's, as lc3-ensemble-test calls it): the caller pushes the arguments
  on the R6 stack, the first argument on top (at the lowest address), and calls; the
  subroutine leaves its return value on top of the stack, just above the arguments, so
  R6 on return is R6 before the pushes minus (arguments + 1); R5 (the frame pointer) and
  R0-R4 are as before the call, and R7 holds the return address again.

A call's result says what a grader checks (returned? the value? registers kept? the stack
and frame as they should be?) and, each as a method, fails with what was expected, what
came back, and where the program was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from lc3jit.grading.observe import Subroutine
from lc3jit.session import RunResult
from lc3jit_runtime.endings import Ending

#: R6 at a stack-convention call unless the test gives one: far from the usual program
#: (x3000) and data (x4000), below the API's return point xFDFF.
STACK_TOP = 0xF000


def word_text(value: int) -> str:
    """-1 (xFFFF): a word as signed decimal and hex, the two ways a student reads one."""
    signed = value - 0x10000 if value & 0x8000 else value
    return f"{signed} (x{value:04X})"


def argument_text(value: int) -> str:
    """An argument as a test most likely wrote it: an address in hex, a number in decimal."""
    return f"x{value:04X}" if 0x1000 <= value < 0xF000 else word_text(value).split()[0]


@dataclass
class CallResult:
    """What a call through `Simulator.call_subroutine` came to."""

    subroutine: Subroutine
    args: tuple[int, ...]
    returned: bool
    value: int | None  # the result by the convention; None if it did not return
    before: tuple[int, ...]  # R0-R7 as the subroutine got them
    after: tuple[int, ...]  # R0-R7 when it stopped
    sp: int  # R6 before the arguments were pushed (stack convention), or at the call
    run: RunResult
    last_run: int  # the address of the last instruction the program ran
    return_address: int
    #: Names an address as a student reads it (Simulator.where).
    describe: Callable[[int], str] = field(repr=False)
    diagnosis: str = ""  # past a limit: "; it is looping between ..." (what it keeps doing)

    @cached_property
    def where(self) -> str:
        """The last instruction the program ran, named: x3012 (NEXT+3, sol.asm line 22: BRnz NEXT).
        Named when a message asks: most calls of a class's tests pass, and naming an address
        looks up the program's labels and source lines."""
        return self.describe(self.last_run)

    @property
    def text(self) -> str:
        """FACT(5): how the call reads in a message."""
        return f"{self.subroutine.name}({', '.join(map(argument_text, self.args))})"

    @property
    def kept(self) -> tuple[int, ...]:
        """The registers the convention says the call keeps."""
        if self.subroutine.stack:
            return (0, 1, 2, 3, 4, 5, 7)
        return tuple(r for r in range(8) if r != self.subroutine.result)

    def changed(self, registers: Iterable[int] | None = None) -> dict[int, tuple[int, int]]:
        """Registers (of those given, or those kept) that differ after the call: (before, after)."""
        return {
            r: (self.before[r], self.after[r])
            for r in (self.kept if registers is None else registers)
            if self.before[r] != self.after[r]
        }

    @property
    def expected_sp(self) -> int:
        """R6 on return: below the return value (stack convention), or as at the call."""
        return (self.sp - len(self.args) - 1) & 0xFFFF if self.subroutine.stack else self.sp

    @property
    def stack_balanced(self) -> bool:
        return self.after[6] == self.expected_sp

    @property
    def preserved(self) -> bool:
        return not self.changed()

    @property
    def ok(self) -> bool:
        """Returned, with the registers, the frame and the stack as the convention wants."""
        return self.returned and self.preserved and self.stack_balanced

    def problems(self) -> list[str]:
        """Each way the call broke its convention, in plain words (empty when it did not)."""
        if not self.returned:
            return [self.not_returned()]
        found = [
            f"{self.text} changed R{r}: {word_text(b)} before the call, {word_text(a)} after"
            for r, (b, a) in self.changed().items()
        ]
        if not self.stack_balanced:
            found.append(self.stack_message())
        return found

    def not_returned(self) -> str:
        """How the call ended instead of returning, where, and (past a limit) what it kept doing."""
        outcome = self.run.outcome
        if outcome.ending is Ending.HALT:
            return f"{self.text} did not return: it halted at {self.where}, instead of RET"
        if outcome.ending is Ending.STEP_LIMIT:
            how = f"it was still running after {self.run.machine.icount:,} instructions"
        elif outcome.ending is Ending.BREAKPOINT:
            how = "it stopped at a breakpoint"
        else:
            how = outcome.message or outcome.reason
        return f"{self.text} did not return: {how}, at {self.where}{self.diagnosis}"

    def stack_message(self) -> str:
        got, want = self.after[6], self.expected_sp
        if self.subroutine.stack:
            slots = want - got
            what = f"{abs(slots)} word{'s' if abs(slots) != 1 else ''} {'more' if slots > 0 else 'fewer'}"
            return (
                f"{self.text} left R6 = x{got:04X}, expected x{want:04X} (its return value on top of "
                f"the {len(self.args)} argument{'s' if len(self.args) != 1 else ''}): {what} on the stack"
            )
        return f"{self.text} left R6 = x{got:04X}; it was x{want:04X} at the call"

    # Checks that fail a test with a readable message (lc3-ensemble-test's assertions).
    def check_returned(self) -> None:
        __tracebackhide__ = True
        if not self.returned:
            raise AssertionError(self.not_returned())

    def check_value(self, expected: int) -> None:
        __tracebackhide__ = True
        self.check_returned()
        expected &= 0xFFFF
        if self.value != expected:
            raise AssertionError(
                f"{self.text} returned {word_text(self.value or 0)}, expected {word_text(expected)}"
            )

    def check_preserved(self, registers: Iterable[int] | None = None) -> None:
        __tracebackhide__ = True
        self.check_returned()
        changed = self.changed(registers)
        if changed:
            raise AssertionError(
                "; ".join(
                    f"{self.text} changed R{r}: {word_text(b)} before the call, {word_text(a)} after"
                    for r, (b, a) in changed.items()
                )
            )

    def check_stack(self) -> None:
        """R6 where the convention leaves it and, under the stack convention, R5 restored."""
        __tracebackhide__ = True
        self.check_returned()
        if not self.stack_balanced:
            raise AssertionError(self.stack_message())
        if self.subroutine.stack and self.before[5] != self.after[5]:
            raise AssertionError(
                f"{self.text} did not restore R5 (the frame pointer): "
                f"x{self.before[5]:04X} before the call, x{self.after[5]:04X} after"
            )

    def check(self, expected: int | None = None) -> None:
        """Everything at once: returned, the value (if given), registers kept, stack balanced."""
        __tracebackhide__ = True
        self.check_returned()
        if expected is not None:
            self.check_value(expected)
        self.check_preserved()
        self.check_stack()
