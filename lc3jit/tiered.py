"""A tiered start: the interpreter first, translation once the run shows it is worth it.

Translating pays only after it is paid for: importing the translator,
looking up the translation cache and translating ahead of time cost 20-40 ms of CPU, what
the interpreter needs for a few hundred thousand instructions, and most student programs
(and every program that halts at once, or forgets its HALT and runs off its end) run
fewer than that. So `lc3jit run` starts a translated engine on the interpreter without
importing any of it, and builds the engine only once TRANSLATE_AFTER instructions have
run: a short run costs what the interpreter costs, a long one pays for translation about
as much as it had run before (at most about twice the better of the two, the classic
bound for deciding without knowing the future), and then runs translated. Every choice
is exact: the interpreter and the translated engines end every program in the same state,
and the switch happens between two instructions, counted like any other.
"""

from __future__ import annotations

import time

from lc3jit.session import UntranslatableError
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import STEP_LIMIT, Outcome

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable

    from lc3jit.session import Engine

#: Instructions run on the interpreter before a translated engine is built: about 15-20 ms
#: of interpretation, about what building it costs (see the module's docstring).
TRANSLATE_AFTER = 1 << 18


class TieredEngine:
    """An engine that runs its first `after` instructions on the interpreter, then builds the
    engine it stands for (`build`, which translates) and runs that from there on.

    A Python whose bytecode the translator does not know keeps the interpreter, with one
    warning line (see session.UntranslatableError), when the switch comes.
    """

    def __init__(
        self,
        machine: Machine,
        name: str,
        build: Callable[[Machine], Engine],
        after: int = TRANSLATE_AFTER,
        warn: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.machine = machine
        self.name = name  # the engine it stands for; "interp" if the translator cannot run here
        self.build = build
        self.after = after
        self.left = after  # instructions still to run on the interpreter
        self.warn = warn
        self.interpreter = Interpreter(machine)
        self.engine: Engine | Interpreter | None = None  # the engine built at the switch
        self.stops: set[int] = set()
        self.translated_at: int | None = None  # the instruction count at the switch
        self.translation_seconds = 0.0  # building the engine at the switch
        if machine.start_pc is None:  # the engine built at the switch translates from here
            machine.start_pc = machine.pc

    def set_stop(self, pc: int, on: bool) -> None:
        (self.engine or self.interpreter).set_stop(pc, on)
        if on:
            self.stops.add(pc)
        else:
            self.stops.discard(pc)

    def run(self, max_steps: int | None = None) -> Outcome:
        """Interpret what is left of the first `after` instructions, then switch and go on."""
        if self.engine is None and self.left:
            budget = self.left if max_steps is None else min(self.left, max_steps)
            before = self.machine.icount
            outcome = self.interpreter.run(budget)
            ran = self.machine.icount - before
            self.left -= ran
            if outcome is not STEP_LIMIT or self.left or ran == max_steps:
                return outcome
            max_steps = None if max_steps is None else max_steps - ran
        if self.engine is None:
            self.switch()
            if self.machine.ending is not None:  # asked to stop while the engine was built
                return self.machine.ending
        return self.engine.run(max_steps)

    def switch(self) -> None:
        """Build the translated engine, its breakpoints set; or stay on the interpreter.

        Whether the translator can run here is asked only if the build must translate (see
        session.UntranslatableError): code loaded from the translation cache was translated by
        this lc3jit on this Python, and loads without importing the translator.
        """
        began = time.process_time()
        try:
            engine = self.build(self.machine)
        except UntranslatableError as reason:
            self.warn(f"lc3jit: {reason}; running on the interpreter")
            self.name, self.engine = "interp", self.interpreter
            return
        adopt = getattr(engine, "adopt", None)  # a dispatcher interprets on this interpreter
        if adopt is None or not adopt(self.interpreter):
            self.interpreter.detach()  # the engine has an interpreter of its own
        self.translated_at = self.machine.icount
        for pc in self.stops:
            engine.set_stop(pc, True)
        self.translation_seconds = time.process_time() - began
        self.engine = engine

    def take_translation_seconds(self) -> float:
        """The CPU time the switch took, once (a run's report moves it from running to
        translating: both are CPU time, so the run's is never less)."""
        seconds, self.translation_seconds = self.translation_seconds, 0.0
        return seconds
