"""Reverse execution: every state the debugger goes back to is the state a run forward to
the same count reaches, on every engine, for random programs (the differential tests'
generator) and real ones; memory, registers, output, count, devices alike."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lc3jit.api import Simulator
from lc3jit.debugging.debugger import Debugger
from lc3jit.debugging.reverse import History, RecordedConsole
from lc3jit_runtime.isa import Flow, decode
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import DSR, KBDR, KBSR

from .test_differential import ORIGIN, program

EXAMPLES = Path(__file__).parent.parent / "examples"
STEPS = 3000  # as the differential tests run their random programs


def simulator(engine: str, words: list[int], registers: list[int], keys: bytes) -> Simulator:
    """The differential tests' machine for a random program, as a Simulator."""
    sim = Simulator(Image(ORIGIN, tuple(words)), engine=engine, keys=keys)
    sim.machine.reg[:] = registers
    sim.machine.load_words(ORIGIN - 8, [KBSR, KBDR, DSR, ORIGIN + 3, ORIGIN, 0xFFFF, ORIGIN + 40, 0])
    return sim


def state(sim: Simulator, output: bytes) -> tuple[object, ...]:
    m = sim.machine
    return (sim.state(), list(m.mem), output, m.kbsr_ie, m.kbd_latch, m.kbdr, m.mcr, m.empty_polls)


def forward(engine: str, case: tuple[list[int], list[int], bytes], count: int) -> tuple[object, ...]:
    sim = simulator(engine, *case)
    sim.run(max_steps=count, check=False)
    return state(sim, sim.output_bytes)


def debugger_for(engine: str, case: tuple[list[int], list[int], bytes], every: int) -> Debugger:
    return Debugger(lambda: simulator(engine, *case), io.StringIO(), max_steps=STEPS, every=every)


@settings(max_examples=40)
@example(  # an interrupt's check latches the key, then its entry faults (no handler)
    case=([0] * 10 + [0xB5ED, 0, 0, 0], [0, 0, 0xFE00, 0, 0, 0, 0, 0], b"\x00"),
    every=50,
    targets=[1.0],
    engine="interp",
)
@given(
    case=program(),
    every=st.integers(50, 400),
    targets=st.lists(st.floats(0, 1), min_size=1, max_size=4),
    engine=st.sampled_from(["interp", "blocks", "regions"]),
)
def test_going_back_to_any_count_gives_the_state_a_forward_run_reaches(
    case: tuple[list[int], list[int], bytes], every: int, targets: list[float], engine: str
) -> None:
    debugger = debugger_for(engine, case, every)
    ending = debugger.cont().ending
    end = debugger.sim.machine.icount
    final = state(debugger.sim, debugger.recorded.output)
    for fraction in targets:
        target = int(end * fraction)
        debugger.goto(target)
        assert state(debugger.sim, debugger.recorded.output) == forward(engine, case, target)
    debugger.goto(end)  # and forward again to where it was
    assert state(debugger.sim, debugger.recorded.output) == forward(engine, case, end)
    # Going on from there ends the run as it ended, in the state it ended in: an ending can
    # leave what no count covers (an IN's prompt before the input ended, the key an
    # interrupt's check latched before its entry faulted), so it is reached again by running.
    if debugger.ended is None:
        assert debugger.cont().ending is ending
    assert state(debugger.sim, debugger.recorded.output) == final


@settings(max_examples=30)
@given(case=program(), back=st.integers(1, 5), engine=st.sampled_from(["interp", "blocks", "regions"]))
def test_stepping_back_and_forward_again_is_exact(
    case: tuple[list[int], list[int], bytes], back: int, engine: str
) -> None:
    debugger = debugger_for(engine, case, 8)
    debugger.step(40)
    now = debugger.sim.machine.icount
    if now < back or debugger.ended is not None:
        return
    debugger.reverse_step(back)
    assert debugger.sim.machine.icount == now - back
    assert state(debugger.sim, debugger.recorded.output) == forward(engine, case, now - back)
    debugger.step(back)
    assert state(debugger.sim, debugger.recorded.output) == forward(engine, case, now)


def fib_debugger(engine: str, **options: int) -> Debugger:
    return Debugger(lambda: Simulator(EXAMPLES / "fib.asm", engine=engine), io.StringIO(), **options)


def test_reverse_continue_goes_to_the_previous_hit_of_a_conditional_breakpoint(engine: str) -> None:
    debugger = fib_debugger(engine, every=64)
    debugger.execute("break PRINT_DEC if R0 > #100")
    hits = []
    while debugger.cont().reason == "breakpoint":
        hits.append((debugger.sim.machine.icount, debugger.sim.registers[0]))
    assert [r0 for _, r0 in hits] == [144, 233, 377, 610, 987, 1597, 2584, 4181]
    for icount, r0 in reversed(hits):
        assert debugger.reverse_continue().reason == "breakpoint"
        assert (debugger.sim.machine.icount, debugger.sim.registers[0]) == (icount, r0)
    assert debugger.reverse_continue().message.startswith("the history begins here")
    assert debugger.sim.machine.icount == 0


def test_reverse_continue_stops_at_the_previous_watch_hit(engine: str) -> None:
    debugger = fib_debugger(engine, every=50)
    debugger.execute("watch SAVE_R1")
    first = debugger.cont()
    at = debugger.sim.machine.icount
    second = debugger.cont()
    assert (first.reason, second.reason) == ("watch", "watch")
    back = debugger.reverse_continue()
    assert back.message == first.message and debugger.sim.machine.icount == at


def test_reverse_finish_and_reverse_next_go_back_over_calls(engine: str) -> None:
    debugger = fib_debugger(engine, every=16)
    debugger.execute("break PRINT_DEC")
    debugger.cont()
    debugger.cont()  # the second call: JSR PRINT_DEC at x3005 made it
    called_at = debugger.sim.machine.icount - 1
    debugger.step(12)
    assert debugger.reverse_finish().reason == "step-limit"
    assert (debugger.sim.pc, debugger.sim.machine.icount) == (0x3005, called_at)
    debugger.execute("delete")
    debugger.next()  # over the call: the next instruction after it
    assert debugger.sim.pc == 0x3006
    debugger.reverse_next()  # back over the whole call, to the JSR
    assert (debugger.sim.pc, debugger.sim.machine.icount) == (0x3005, called_at)


def test_output_already_shown_is_not_written_again_when_replayed() -> None:
    debugger = fib_debugger("regions")
    debugger.cont()
    shown = debugger.sim.output
    debugger.goto(100)
    assert debugger.recorded.output == shown.encode()[: debugger.recorded.position]
    debugger.cont()
    assert debugger.sim.output == shown  # nothing printed twice
    assert debugger.recorded.output == shown.encode()


def test_a_change_by_the_user_starts_the_history_again() -> None:
    debugger = fib_debugger("interp")
    debugger.step(30)
    debugger.execute("set R1 #7")
    assert debugger.history is not None and debugger.history.start == 30
    assert debugger.reverse_step(5).message.startswith("the history begins here")
    assert debugger.sim.registers[1] == 7


def test_the_history_keeps_its_limit_and_says_where_it_begins() -> None:
    debugger = fib_debugger("regions", history=500, every=100)
    debugger.cont()  # 3115 instructions
    history = debugger.history
    assert history is not None and 2500 <= history.start <= 2615
    assert debugger.reverse_step(3000).message.startswith("the history begins here")
    assert debugger.sim.machine.icount == history.start


def test_without_a_history_the_reverse_commands_say_so() -> None:
    out = io.StringIO()
    debugger = Debugger(lambda: Simulator(EXAMPLES / "fib.asm"), out, history=0)
    debugger.execute("reverse-step")
    assert out.getvalue().splitlines()[-1] == "error: no history is kept (--history 0)"


def test_keys_read_are_given_again_to_a_replay() -> None:
    debugger = Debugger(lambda: Simulator(EXAMPLES / "echo.asm", keys=b"hey\n"), io.StringIO(), every=3)
    debugger.cont()
    end = debugger.sim.state()
    debugger.goto(2)
    debugger.cont()
    assert debugger.sim.state() == end
    assert debugger.sim.output.count("hey") == 1


def test_history_memory_is_two_copies_of_memory_and_the_words_changed() -> None:
    sim = Simulator(source=".ORIG x3000\nHALT\n.END\n")
    history = History(sim.machine, RecordedConsole(sim.machine.console), every=10)
    assert history.memory_bytes() < 1_100_000


@settings(max_examples=30)
@given(
    case=program(),
    stop=st.integers(1, STEPS),
    every=st.integers(16, 400),
    engine=st.sampled_from(["interp", "blocks", "regions"]),
)
def test_reverse_finish_goes_back_to_the_call_a_stepped_run_has_open(
    case: tuple[list[int], list[int], bytes], stop: int, every: int, engine: str
) -> None:
    reference = simulator("interp", *case)
    open_calls: list[int] = []  # the counts of the calls made and not returned from
    while reference.machine.icount < stop:
        icount, ins = reference.machine.icount, decode(reference.machine.mem[reference.pc], reference.pc)
        if reference.run(max_steps=1, check=False).outcome.reason != "step-limit":
            break
        if ins.form.flow in (Flow.CALL, Flow.TRAP) and reference.pc != ins.next_pc:
            open_calls.append(icount)
        elif (ins.form.flow is Flow.RTI or ins.is_return) and open_calls:
            open_calls.pop()
    debugger = Debugger(lambda: simulator(engine, *case), io.StringIO(), max_steps=stop, every=every)
    debugger.cont()
    debugger.reverse_finish()
    expected = open_calls[-1] if open_calls else 0
    assert debugger.sim.machine.icount == expected
    assert state(debugger.sim, debugger.recorded.output) == forward(engine, case, expected)
