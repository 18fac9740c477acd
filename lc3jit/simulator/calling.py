"""Calling a subroutine as a grader does: by its declared convention (registers, or the stack
convention of Patt & Patel), with a result that tells what came of the call (lc3-ensemble-
test's callSubroutine and its assertions; see lc3jit.grading.calls)."""

from __future__ import annotations

from collections.abc import Sequence

from lc3jit.grading.calls import STACK_TOP, CallResult
from lc3jit.grading.observe import Call, Subroutine
from lc3jit.simulator.base import SimulatorBase
from lc3jit.simulator.errors import CallError
from lc3jit.simulator.views import Address
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.isa import WORD_MASK, decode

#: Where a subroutine called through the API returns to: R7 holds it, and the engine
#: stops before running it. The word below the device registers, where no program's
#: code lives (its stack, if it grows down from xFE00, is data: only running it matters).
RETURN_ADDRESS = 0xFDFF


class Calling(SimulatorBase):
    """declare, call_subroutine and call."""

    def declare(
        self,
        subroutine: Address,
        params: Sequence[str] | dict[int, str] | int = (),
        *,
        stack: bool = False,
        result: int | None = 0,
    ) -> Subroutine:
        """Say how a subroutine is called, once: `stack=True` for the stack convention
        (params: the arguments' names, pushed first-on-top), else the registers the
        arguments go in (params: {register: name}, or a count for R0, R1, ...) and the
        register of the result (None: none). See lc3jit.grading.calls."""
        address = self.address(subroutine)
        if isinstance(params, int):
            params = [f"arg{i}" for i in range(params)]
        if isinstance(params, dict):
            registers, names = tuple(params), tuple(params.values())
        else:
            names = tuple(params)
            registers = () if stack else tuple(range(len(names)))
        if not stack and not all(0 <= r <= 6 for r in registers):
            raise ValueError("arguments go in R0-R6: R7 holds the return address")
        name = subroutine if isinstance(subroutine, str) else f"x{address:04X}"
        declared = Subroutine(name, address, stack, names, registers, None if stack else result)
        self.subroutines[address] = declared
        if self._watched is not None and address in self._watched:
            self._watched[address] = declared
        return declared

    def _subroutine(self, subroutine: Address, args: int) -> Subroutine:
        address = self.address(subroutine)
        if address in self.subroutines:
            return self.subroutines[address]
        if args > 7:
            raise ValueError("at most 7 arguments (R0-R6): R7 holds the return address")
        name = subroutine if isinstance(subroutine, str) else f"x{address:04X}"
        return Subroutine(name, address, False, tuple(f"R{i}" for i in range(args)), tuple(range(args)))

    def call_subroutine(
        self, subroutine: Address, *args: int, max_steps: int | None = None, sp: int | None = None
    ) -> CallResult:
        """Call a subroutine by its declared convention (registers R0, R1, ... and R0 back if
        undeclared) and tell what came of it: returned?, its value, the registers before
        and after, the stack. sp: R6 at the call (the stack convention pushes the arguments
        below it; default STACK_TOP). R7 holds RETURN_ADDRESS, where the run stops. Never
        raises for what the subroutine did: the result's checks do (see CallResult)."""
        __tracebackhide__ = True
        declared = self._subroutine(subroutine, len(args))
        if len(args) != len(declared.params):
            raise ValueError(f"{declared.name} takes {len(declared.params)} arguments, not {len(args)}")
        reg = self.machine.reg
        if declared.stack:
            top = STACK_TOP if sp is None else sp & WORD_MASK
            self.memory[top - len(args)] = list(args)
            reg[6] = (top - len(args)) & WORD_MASK
        else:
            top = reg[6] if sp is None else sp & WORD_MASK
            reg[6] = top
            for register, value in zip(declared.registers, args, strict=True):
                reg[register] = value & WORD_MASK
        runner = self.runner
        if RETURN_ADDRESS not in runner.stops:
            runner.set_stop(RETURN_ADDRESS, True)
        reg[7] = RETURN_ADDRESS
        self.machine.pc = declared.address
        before = tuple(reg)
        if self.written is not None:
            self.written.add(RETURN_ADDRESS)
        result = self.run(max_steps, check=False)
        returned = result.outcome.ending is Ending.BREAKPOINT and self.machine.pc == RETURN_ADDRESS
        return CallResult(
            declared,
            tuple(a & WORD_MASK for a in args),
            returned,
            declared.value(self.machine) if returned else None,
            before,
            tuple(reg),
            top,
            result,
            self.last_run(),
            RETURN_ADDRESS,
            self.where,
            "" if returned else self.diagnosis(result.outcome.ending),
        )

    def call(self, subroutine: Address, *args: int, max_steps: int | None = None) -> int:
        """Call a subroutine as JSR would, with args in R0, R1, ... (or as declared); its
        result (R0, or as declared) when it returns.

        R7 holds RETURN_ADDRESS, where the run stops; registers, memory and output are left
        as the subroutine left them. A subroutine that halts, faults or runs out of steps
        before returning raises its RunError.
        """
        __tracebackhide__ = True
        call = self.call_subroutine(subroutine, *args, max_steps=max_steps)
        if not call.returned:
            self._check(call.run)
            raise CallError(call.run, call.not_returned())
        return call.value if call.value is not None else self.machine.reg[0]

    def watch_calls(self, *subroutines: Address) -> list[Call]:
        """Record every call of these subroutines (default: the declared ones and every label
        a JSR names) from now on in `calls`: arguments by the declared convention, caller,
        depth, value returned. Runs at translated speed, stopping only at their entries
        and the return points of the calls under way."""
        addresses = [self.address(s) for s in subroutines] or [*self.subroutines, *self._jsr_targets()]
        watched = self._watched or {}
        for address in addresses:
            name = self.places.labels.get(address, f"x{address:04X}")
            watched[address] = self.subroutines.get(address) or Subroutine(name, address, result=None)
        self._watched = watched
        self._runner = None
        return self.calls

    def _jsr_targets(self) -> set[int]:
        """Labels that a JSR of the program's names (a subroutine's entry, as written)."""
        labels, targets = set(self.symbols.values()), set()
        for image in self.images:
            for offset, word in enumerate(image.words):
                if word >> 11 == 0b01001:  # JSR with a PC offset
                    target = decode(word, image.origin + offset).target
                    if target in labels:
                        targets.add(target)
        return targets
