"""The dispatcher's side of the translator: the Translator protocol and what generated code
reports through the contract's names."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from types import FunctionType

import pytest

from lc3jit.session import ENGINES, boot
from lc3jit_runtime import contract, interp
from lc3jit_runtime.code_helpers import code_table
from lc3jit_runtime.console import Console
from lc3jit_runtime.dispatch import Dispatcher, Translation
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.loader import Image
from lc3jit_runtime.outcome import Outcome


class Listening:
    """A translator that translates nothing and records what it is told."""

    def __init__(self) -> None:
        self.told: list[tuple[int, int]] = []

    def __call__(self, dispatcher: Dispatcher, pc: int) -> Sequence[Translation]:
        return ()

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        self.told.append((site, target))


def generated(namespace: dict[str, object], body: str) -> Callable[[int], int]:
    """A function of one argument bound to the namespace as generated code is, running `body`."""
    scratch: dict[str, object] = {}
    exec(f"def region(_):\n    {body}", scratch)
    return FunctionType(scratch["region"].__code__, namespace)  # type: ignore[attr-defined, return-value]


def test_a_sample_from_generated_code_reaches_the_translator_and_exits_are_counted() -> None:
    translator = Listening()
    dispatcher = Dispatcher(boot([], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000), translator)
    namespace = dispatcher.globals
    counting = generated(namespace, f"{contract.EXIT_COUNTS}[0x3010] += 3\n    return 0x3011")
    assert dispatcher.exits_through(0x3010) == 0  # before any code that counts
    dispatcher.install(Translation(0x3010, 0, counting, (0x3010,)))
    assert dispatcher.table[0x3010][0](1000) == 0x3011  # as the loop enters a region's code
    namespace[contract.INDIRECT.name](0x3010, 0x4000)  # type: ignore[operator]
    assert translator.told == [(0x3010, 0x4000)]
    assert dispatcher.exits_through(0x3010) == 3
    assert dispatcher.exits_through(0x3011) == 0


def test_the_big_tables_are_made_when_code_that_names_them_first_runs() -> None:
    """Each branch table is a megabyte to build: bound when code that indexes it is entered,
    not when it is installed (a cache entry's code that never runs never builds them)."""
    dispatcher = Dispatcher(boot([], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000))
    namespace, tables = dispatcher.globals, (contract.POSITIVE, contract.NEGATIVE, contract.ZERO)
    branching = generated(namespace, f"return {contract.POSITIVE}[0x1FFFF] and {contract.ZERO}[0x10000]")
    dispatcher.install(Translation(0x3000, 1, branching))
    assert all(namespace[name] == () for name in tables) and dispatcher.exit_counts == []
    assert dispatcher.table[0x3000][0](0x3000) is False and dispatcher.table[0x3000][0] is branching
    assert namespace[contract.POSITIVE] == code_table(contract.POSITIVE)
    assert namespace[contract.ZERO] == code_table(contract.ZERO)
    assert namespace[contract.NEGATIVE] == () and dispatcher.exit_counts == []
    dispatcher.install(Translation(0x3001, 1, lambda pc: pc + 1))  # not generated code: gets them all
    assert dispatcher.table[0x3001][0](0x3001) == 0x3002 and len(dispatcher.exit_counts) == 0x10000
    assert namespace[contract.NEGATIVE] == code_table(contract.NEGATIVE)


def test_without_a_translator_samples_are_dropped() -> None:
    dispatcher = Dispatcher(boot([], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000))
    dispatcher.left_through(0x3010, 0x4000)  # nothing to tell, nothing raised
    assert dispatcher.translate(0x3000) is False


#: LD R2, PTR / ADD R2, R2, #1 / JMP R2 / PTR .FILL x300F, then at x3010: LOOP BRnzp LOOP. The
#: loop is found only by running (no block search sees through the ADD): it is decoded and
#: translated at run time.
FOREVER = [0x2402, 0x14A1, 0xC080, 0x300F] + [0] * 12 + [0x0FFF]
LOOP = 0x3010
PAUSED = Outcome(Ending.PAUSED)


@pytest.mark.parametrize(
    ("engine", "during"),
    [
        ("interp", "decoding"),
        ("blocks", "decoding"),
        ("regions", "decoding"),
        ("blocks", "translating"),
        ("regions", "translating"),
    ],
)
def test_a_stop_requested_while_the_engine_stores_code_it_made_stops_the_run(
    engine: str, during: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pause from the debug adapter's thread (or a signal) can land while the running
    thread decodes a word or translates a loop: the step or translation it keeps then must
    not replace the stopper, or the loop runs on for ever (the DAP's breakpoint
    set while running, lost on 3.14 and 3.15 under load)."""
    machine = boot([Image(0x3000, tuple(FOREVER))], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000)
    runner = ENGINES[engine](machine)
    asked = []

    def request_at(pc: int) -> None:
        if pc == LOOP and not asked:
            asked.append(machine.icount)
            machine.request_stop(PAUSED)

    if during == "decoding":
        decode = interp.decode
        monkeypatch.setattr(interp, "decode", lambda word, pc: (request_at(pc), decode(word, pc))[1])
    else:
        assert isinstance(runner, Dispatcher) and runner.translator is not None
        translator = runner.translator
        monkeypatch.setattr(runner, "translator", lambda d, pc: (request_at(pc), translator(d, pc))[1])
    assert runner.run(100_000) is PAUSED
    assert asked and machine.icount < 100 and machine.pc == LOOP
    assert machine.take_ending() is PAUSED
    assert runner.run(10).ending is Ending.STEP_LIMIT and machine.pc == LOOP


def test_an_interpreter_made_while_a_stop_is_requested_stops_at_once() -> None:
    """The dispatcher makes its interpreter when a word with no code first needs it (a run
    translated all from the cache never does): made while a stop is requested, it stops
    before its first instruction, as one made with the dispatcher would have."""
    machine = boot([Image(0x3000, tuple(FOREVER))], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000)
    dispatcher = Dispatcher(machine)
    machine.request_stop(PAUSED)
    assert dispatcher.interpreter.run(10) is PAUSED and (machine.icount, machine.pc) == (0, 0x3000)
    assert machine.take_ending() is PAUSED
    assert dispatcher.run(3).ending is Ending.STEP_LIMIT and (machine.icount, machine.pc) == (3, LOOP)


def test_breakpoints_set_before_the_interpreter_is_made_hold_for_it() -> None:
    """`lc3jit run` stops at the ends of a program (a run off its end is said where) before
    it runs: that must not make the interpreter a run from the cache never needs, and the
    stops must hold when a word with no code needs it after all."""
    machine = boot([Image(0x3000, tuple(FOREVER))], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000)
    dispatcher = Dispatcher(machine)
    dispatcher.set_stop(LOOP, True)
    assert "interpreter" not in vars(dispatcher)
    assert dispatcher.run(100).ending is Ending.BREAKPOINT and (machine.pc, machine.icount) == (LOOP, 3)
    dispatcher.set_stop(LOOP, False)
    assert dispatcher.run(3).ending is Ending.STEP_LIMIT and (machine.pc, machine.icount) == (LOOP, 6)
