"""Reverse execution with the keyboard in play: random programs that read keys by GETC, IN
and KBSR polls, turn keyboard interrupts on and off through trap routines of their own and
take them in a handler, with and without the OS, until their input is used up. Every
move back (and forward again) lands on the state a fresh run forward to the same count
reaches, on every engine: registers, PSR, saved stack pointers, memory, device
registers and latches, output, and how many keys have been read."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lc3jit.api import Simulator
from lc3jit.debugging.debugger import Debugger
from lc3jit.debugging.reverse import RecordedConsole
from lc3jit.session import ENGINES
from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.loader import Image

#: A run's instructions at most: with the input used up, an OS's GETC polls 10,000 times.
STEPS = 40_000
#: The routines at fixed addresses: TRAP x30 turns keyboard interrupts on, TRAP x31 off,
#: and the handler (its vector at x0180) reads KBDR and, if `echo`, writes the key.
LAYOUT = """
        .ORIG x3000
        BRnzp MAIN
ENABLE  ST R1, SAVE1
        LD R1, IE
        STI R1, KBSRA
        LD R1, SAVE1
        {back}
DISABLE ST R1, SAVE1
        AND R1, R1, #0
        STI R1, KBSRA
        LD R1, SAVE1
        {back}
HANDLER ST R0, SAVE0
        ST R7, SAVE7
        LDI R0, KBDRA
        {echo}
        LD R0, SAVE0
        LD R7, SAVE7
        RTI
MAIN    LD R6, STACK
{body}
        {end}
SUB     ADD R4, R4, #1
        RET
IE      .FILL x4000
KBSRA   .FILL xFE00
KBDRA   .FILL xFE02
STACK   .FILL x3F00
CHAR    .FILL x0041
SAVE0   .BLKW 1
SAVE1   .BLKW 1
SAVE7   .BLKW 1
        .END
"""
VECTORS = (Image(0x0030, (0x3001, 0x3006)), Image(0x0180, (0x300B,)))
SNIPPETS = (
    "GETC",
    "IN",
    "LD R0, CHAR\nOUT",
    "TRAP x30",
    "TRAP x31",
    "P{n} LDI R2, KBSRA\nBRzp P{n}\nLDI R0, KBDRA",
    "AND R3, R3, #0\nADD R3, R3, #{k}\nL{n} ADD R3, R3, #-1\nBRp L{n}",
    "JSR SUB",
)


@st.composite
def keyboard_program(draw: st.DrawFn) -> tuple[str, bytes, int, bool]:
    """A program's source, its keys, its edition and whether it runs under the OS."""
    edition, under_os = draw(st.sampled_from([3, 2])), draw(st.booleans())
    picks = draw(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=10))
    body = "\n".join(s.format(n=n, k=n % 5 + 1) for n, s in enumerate(picks))
    source = LAYOUT.format(
        back="RTI" if edition == 3 else "RET",
        echo="OUT" if draw(st.booleans()) else "ADD R0, R0, #0",
        body=body,
        end=draw(st.sampled_from(["HALT", "BRnzp MAIN"])),
    )
    return source, draw(st.binary(max_size=8)), edition, under_os


class CountingConsole(CapturedConsole):
    """A scripted console that counts the keys it has given."""

    taken = 0

    def next_key(self, wait: float | None = 0.0) -> int | None:
        key = super().next_key(wait)
        self.taken += key is not None
        return key


def make(
    case: tuple[str, bytes, int, bool], engine: str, console: CapturedConsole | None = None
) -> Simulator:
    source, keys, edition, under_os = case
    return Simulator(
        *VECTORS,
        source=source,
        engine=engine,
        edition=edition,
        os=under_os,
        pc=0x3000,
        keys=keys,
        console=console,
    )


def keys_taken(console: RecordedConsole) -> int:
    """How many keys the program has read by the point the debugger stands at."""
    given = console.answers[: console.cursor - console.answers_base]
    return sum(answer.key is not None for answer in given)


def state(sim: Simulator, output: bytes, taken: int) -> tuple[object, ...]:
    m = sim.machine
    devices = (m.kbsr_ie, m.kbd_latch, m.kbdr, m.mcr, m.empty_polls, m.written_at_poll)
    return (sim.state(), list(m.mem), output, devices, taken)


def forward(case: tuple[str, bytes, int, bool], engine: str, count: int, pc: int) -> tuple[object, ...]:
    """The state of a run forward to count; where the debugger stands at pc after an
    interrupt's entry (a breakpoint in the handler), which is no instruction, that entry too."""
    console = CountingConsole(case[1])
    sim = make(case, engine, console)
    sim.run(max_steps=count, check=False)
    m = sim.machine
    if m.pc != pc and m.icount == count and m.interrupt_pending():
        m.pc = m.take_interrupt(m.pc)
    return state(sim, console.output, console.taken)


def here(debugger: Debugger) -> tuple[object, ...]:
    recorded = debugger.recorded
    return state(debugger.sim, recorded.output, keys_taken(recorded))


def debugger_for(case: tuple[str, bytes, int, bool], engine: str, every: int) -> Debugger:
    return Debugger(lambda: make(case, engine), io.StringIO(), max_steps=STEPS, every=every)


#: The moves compared: each takes the debugger and a number drawn for it.
MOVES: dict[str, Callable[[Debugger, int], object]] = {
    "back": lambda d, n: d.reverse_step(n % 500 + 1),
    "step": lambda d, n: d.step(n % 50 + 1),
    "continue": lambda d, n: d.cont(),
    "reverse-continue": lambda d, n: d.reverse_continue(),
    "reverse-finish": lambda d, n: d.reverse_finish(),
    "reverse-next": lambda d, n: d.reverse_next(),
    "goto": lambda d, n: d.goto(n % (d.history.frontier + 1) if d.history else 0),
}


#: Six programs per engine in the default run (each runs up to 40,000 instructions a
#: few times over), hundreds with --slow.
FEW = settings(max_examples=max(6, settings.default.max_examples // 16))


@FEW
@given(
    case=keyboard_program(),
    every=st.sampled_from([50, 333, 1 << 18]),
    moves=st.lists(st.tuples(st.sampled_from(sorted(MOVES)), st.integers(0, 10**6)), min_size=1, max_size=6),
    breakpoint_at=st.sampled_from([None, "HANDLER", "MAIN", "SUB"]),
)
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_move_lands_where_a_forward_run_to_its_count_does(
    engine: str,
    case: tuple[str, bytes, int, bool],
    every: int,
    moves: list[tuple[str, int]],
    breakpoint_at: str | None,
) -> None:
    debugger = debugger_for(case, engine, every)
    if breakpoint_at is not None:
        debugger.execute(f"break {breakpoint_at}")
    debugger.cont()
    for name, number in moves:
        if debugger.ended is not None and name in ("step", "continue"):
            continue
        MOVES[name](debugger, number)
        # An ending can leave what no count covers (an IN's prompt before the input ended):
        # an ended run is compared with a run forward to its end.
        count = STEPS if debugger.ended is not None else debugger.sim.machine.icount
        assert here(debugger) == forward(case, engine, count, debugger.sim.pc), name


def test_a_key_an_interrupt_took_is_taken_again_at_its_count_going_back(engine: str) -> None:
    """The report's program: its own trap routine turns interrupts on, it waits in GETC,
    the handler echoes each key, until the input is used up."""
    case = (
        LAYOUT.format(back="RTI", echo="OUT", body="TRAP x30\nLOOP GETC\nBRnzp LOOP", end="HALT"),
        b"bbbcyx",
        3,
        True,
    )
    debugger = debugger_for(case, engine, 1 << 18)
    assert debugger.cont().reason == "input-exhausted"
    end = debugger.sim.machine.icount
    debugger.reverse_step(end - 123)
    assert here(debugger) == forward(case, engine, 123, debugger.sim.pc)
    assert all(type(value) is int for value in debugger.sim.registers)
    assert type(debugger.sim.machine.kbdr) is int
    for target in range(0, end, end // 40):
        debugger.goto(target)
        assert here(debugger) == forward(case, engine, target, debugger.sim.pc)


def test_reverse_continue_to_a_breakpoint_in_an_interrupt_handler_stands_in_the_handler(
    engine: str,
) -> None:
    case = (
        LAYOUT.format(back="RTI", echo="OUT", body="TRAP x30\nLOOP GETC\nBRnzp LOOP", end="HALT"),
        b"ab",
        3,
        True,
    )
    debugger = debugger_for(case, engine, 64)
    debugger.execute("break HANDLER")
    assert debugger.cont().reason == "breakpoint"
    first = here(debugger)
    assert debugger.cont().reason == "breakpoint"
    assert debugger.sim.pc == 0x300B
    assert debugger.reverse_continue().reason == "breakpoint"
    assert debugger.sim.pc == 0x300B and here(debugger) == first
