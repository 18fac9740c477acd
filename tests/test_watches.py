"""Watches on registers and on memory reads (gdb's `watch $r2`, `rwatch`, `awatch`): the run
stops after the instruction that changed the register or read the word, with the values,
on every engine at the same count as the interpreter, going forward and going back."""

from __future__ import annotations

import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lc3jit.api import Simulator
from lc3jit.debugging.debugger import Debugger
from lc3jit.debugging.watches import words_read
from lc3jit_runtime.isa import decode
from lc3jit_runtime.machine import Machine

from .test_differential import program
from .test_reverse import STEPS, forward, simulator, state

SOURCE = """\
        .ORIG x3000
        AND R2, R2, #0      ; x3000
        LD  R1, COUNT       ; x3001 reads COUNT
LOOP    ADD R2, R2, #1      ; x3002
        ADD R1, R1, #-1     ; x3003
        BRp LOOP            ; x3004
        LEA R3, PTR         ; x3005
        LDR R4, R3, #0      ; x3006 reads PTR
        LDI R5, PTR         ; x3007 reads PTR, then COUNT
        ST  R2, COUNT       ; x3008 stores into COUNT
        HALT
COUNT   .FILL #3
PTR     .FILL COUNT
        .END
"""


def debugger(tmp_path: Path, engine: str) -> Debugger:
    path = tmp_path / "count.asm"
    path.write_text(SOURCE)
    return Debugger(lambda: Simulator(path, engine=engine), io.StringIO(), every=4)


def stops(dbg: Debugger) -> list[tuple[int, int, str]]:
    """Continue to the end: (instructions run, PC, message) at each watch hit."""
    seen = []
    while (outcome := dbg.cont()).reason == "watch":
        seen.append((dbg.sim.machine.icount, dbg.sim.pc, outcome.message))
    assert outcome.reason == "halt"
    return seen


def test_a_register_watch_stops_after_each_change(tmp_path: Path, engine: str) -> None:
    dbg = debugger(tmp_path, engine)
    dbg.execute("watch R2")
    dbg.execute("set R2 x7")  # a change by hand is not a hit
    assert stops(dbg) == [
        (1, 0x3001, "watch R2: x0007 -> x0000, by x3000"),
        (3, 0x3003, "watch R2: x0000 -> x0001, by x3002"),
        (6, 0x3003, "watch R2: x0001 -> x0002, by x3002"),
        (9, 0x3003, "watch R2: x0002 -> x0003, by x3002"),
    ]


def test_read_and_access_watches_stop_after_the_loads(tmp_path: Path, engine: str) -> None:
    dbg = debugger(tmp_path, engine)
    dbg.execute("rwatch PTR")
    dbg.execute("awatch COUNT")
    assert stops(dbg) == [
        (2, 0x3002, "access watch x300A <COUNT>: read x0003, by x3001"),
        (13, 0x3007, "read watch x300B <PTR>: read x300A, by x3006"),
        (
            14,
            0x3008,
            "read watch x300B <PTR>: read x300A, by x3007; "
            + "access watch x300A <COUNT>: read x0003, by x3007",
        ),
        (15, 0x3009, "access watch x300A <COUNT>: x0003 -> x0003, by x3008"),
    ]


def test_watches_are_listed_deleted_and_refused_where_they_cannot_be(tmp_path: Path) -> None:
    dbg = debugger(tmp_path, "regions")
    for command in ("watch r2", "watch $R5", "rwatch PTR", "awatch COUNT", "info watchpoints"):
        dbg.execute(command)
    shown = dbg.out.getvalue().splitlines()  # type: ignore[attr-defined]
    assert shown[-1] == (
        "Watches: R2 = x0000, R5 = x0000, x300A <COUNT> = x0003 (access), x300B <PTR> = x300A (read)"
    )
    assert dbg.runner is dbg.watcher  # a register or a read: checked instruction by instruction
    for command in ("delete R2", "delete R5", "delete PTR", "delete COUNT"):
        dbg.execute(command)
    assert dbg.runner is dbg.sim.engine  # a watch on stores alone: the engine, translated
    dbg.execute("rwatch R1")
    assert dbg.last_error == "a register is watched for changes: watch R1"
    dbg.execute("delete R3")
    assert dbg.last_error == "no watch on R3"
    dbg.execute("awatch xFE00")
    assert dbg.last_error == "device registers cannot be watched"


def test_reverse_continue_goes_back_to_register_and_read_hits(tmp_path: Path, engine: str) -> None:
    dbg = debugger(tmp_path, engine)
    dbg.execute("watch R2")
    dbg.execute("rwatch PTR")
    hits = []
    while (outcome := dbg.cont()).reason == "watch":
        hits.append((dbg.sim.machine.icount, outcome.message, dbg.state()))
    for icount, message, registers in reversed(hits):
        outcome = dbg.reverse_continue()
        assert (dbg.sim.machine.icount, outcome.message, dbg.state()) == (icount, message, registers)
    assert dbg.reverse_continue().message.startswith("the history begins here")


def test_stepping_reports_a_register_watch_and_next_runs_over_calls_checked(tmp_path: Path) -> None:
    path = tmp_path / "call.asm"
    path.write_text(".ORIG x3000\nJSR SUB\nHALT\nSUB ADD R3, R3, #2\nRET\n.END\n")
    dbg = Debugger(lambda: Simulator(path), io.StringIO())
    dbg.execute("watch R3")
    outcome = dbg.next()  # over the call: the change inside it stops it
    assert (outcome.message, dbg.sim.pc) == ("watch R3: x0000 -> x0002, by x3002", 0x3003)
    assert dbg.step().reason == "step-limit" and dbg.sim.pc == 0x3001


@settings(max_examples=25)
@given(
    case=program(),
    register=st.integers(0, 7),
    engine=st.sampled_from(["interp", "blocks", "regions"]),
)
def test_register_watch_hits_are_every_change_a_single_stepped_run_sees(
    case: tuple[list[int], list[int], bytes], register: int, engine: str
) -> None:
    reference = simulator("interp", *case)
    expected = []
    for _ in range(STEPS):
        before = reference.machine.reg[register]
        if reference.run(max_steps=1, check=False).outcome.reason != "step-limit":
            break
        if reference.machine.reg[register] != before:
            expected.append(reference.machine.icount)
    dbg = Debugger(lambda: simulator(engine, *case), io.StringIO(), max_steps=STEPS, every=64)
    dbg.execute(f"watch R{register}")
    seen = []
    while dbg.cont().reason == "watch":
        seen.append(dbg.sim.machine.icount)
        assert state(dbg.sim, dbg.recorded.output) == forward("interp", case, seen[-1])
    assert seen == expected


def test_the_words_each_instruction_reads(tmp_path: Path) -> None:
    path = tmp_path / "reads.asm"
    path.write_text(
        '.ORIG x3000\nSTI R0, PTR\nRTI\nPUTS\nTRAP x26\nPTR .FILL x4000\nTEXT .STRINGZ "hi"\n.END\n'
    )
    sim = Simulator(path)
    machine: Machine = sim.machine
    machine.reg[0], machine.reg[6] = 0x3005, 0x2FFE

    def reads(address: int) -> list[int]:
        return list(words_read(decode(machine.mem[address], address), machine))

    assert reads(0x3000) == [0x3004]  # STI: its pointer (the word it stores into is written)
    assert reads(0x3001) == [0x2FFE, 0x2FFF]  # RTI, in supervisor mode: its two pops
    assert reads(0x3002) == [0x3005, 0x3006, 0x3007]  # PUTS run by the host: "hi" and its x0000
    assert reads(0x3003) == [0x0026]  # a TRAP no host routine runs: its vector
    machine.psr_mode |= 0x8000  # user mode: RTI takes the privilege exception, reading nothing
    assert reads(0x3001) == []
