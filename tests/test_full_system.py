"""Full-system mode translated: the OS's trap routines run inside the caller's region.

Under `--os` a TRAP goes to its routine and the routine's RTI (RET in the 2nd edition)
comes back, inside one region; the routines' device polling (`LDI R0, KBSR_PTR; BRzp`)
calls the runtime and stays there too. Every engine must still end as the interpreter
does, at every step limit, wherever the tiered switch falls, with keys arriving at any
pace, with interrupts enabled (taken at exactly the interpreter's instruction), with a
vector rewritten under the translated code, and with user code that jumps into the OS.
"""

from __future__ import annotations

import io
import os
import random
import signal
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lc3jit.session import ENGINES, boot, load_images, os_images
from lc3jit.tiered import TieredEngine
from lc3jit.toolchain.asm import assemble
from lc3jit.translator.regions import region_engine
from lc3jit_runtime import contract
from lc3jit_runtime.code_helpers import BRANCH_TABLES, UNBUILT
from lc3jit_runtime.console import Console
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import Ending, interrupted

from .conftest import Run
from .test_differential import HumanConsole, assert_same
from .test_tiered import run_in_slices

EXAMPLES = Path(__file__).parent.parent / "examples"
TRANSLATED = sorted(set(ENGINES) - {"interp"})
ECHO_KEYS = b"full system\n"


def os_machine(images: list[Image], keys: bytes, edition: int, console: Console | None = None) -> Machine:
    console = console or Console(io.BytesIO(keys), io.BytesIO())
    return boot(images, console, edition, None, os_images(edition))


def finish(machine: Machine, outcome: object) -> Run:
    machine.console.flush()
    return Run(machine, outcome, machine.console._display.getvalue())  # type: ignore[arg-type, attr-defined]


def run_os(engine: str, images: list[Image], keys: bytes, edition: int, max_steps: int | None = None) -> Run:
    machine = os_machine(images, keys, edition)
    return finish(machine, ENGINES[engine](machine).run(max_steps))


def images_of(source: str) -> list[Image]:
    return list(assemble(source).images)


ECHO = load_images([EXAMPLES / "echo.obj"])


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("edition", [3, 2])
def test_echo_through_the_os_agrees_and_stays_in_one_region(engine: str, edition: int) -> None:
    """Each key goes through GETC and OUT (TRAP, the routine's polling, RTI or RET): the
    region engine runs the whole loop in one region, entered a few times in all, not a
    few times a key; every engine ends as the interpreter does."""
    keys = b"x" * 300 + b"\n"
    expected = run_os("interp", ECHO, keys, edition)
    actual = run_os(engine, ECHO, keys, edition)
    assert_same(expected, actual)
    assert expected.output.endswith(b"x" * 300 + b"\nHALT\n") and expected.outcome.reason == "halt"
    machine = os_machine(ECHO, keys, edition)
    engine_run = region_engine(machine, profile=True)
    assert engine_run.run().reason == "halt"
    assert sum(engine_run.runs.values()) < 20  # 301 keys: 602 TRAPs and as many returns


def test_a_key_compared_with_a_newline_needs_no_branch_table() -> None:
    """Echo's `ADD R1, R0, #-10; BRnp LOOP` on a key, in the 2nd edition's region that holds
    GETC's routine: the sum (the key + 2^16 - 10) is 0 modulo 2^16 only at 2^16, so the
    branch compares with it, where it indexed a table of a megabyte that each whole
    process built for this one branch; every key echoed as the interpreter does."""
    assert_same(run_os("interp", ECHO, ECHO_KEYS, 2), run_os("regions", ECHO, ECHO_KEYS, 2))
    dispatcher = region_engine(os_machine(ECHO, ECHO_KEYS, 2))
    assert dispatcher.run().reason == "halt"
    assert contract.ZERO not in dispatcher.blocks[ECHO[0].origin].function.__code__.co_names
    assert all(dispatcher.globals[table] is UNBUILT for table in BRANCH_TABLES)  # none built


@pytest.mark.parametrize("edition", [3, 2])
def test_the_program_is_translated_before_the_run_not_when_the_os_enters_it(edition: int) -> None:
    """The OS enters the program by RTI, so its first address is no vector and not where the
    machine starts: it is an entry point all the same, so that a run whose translations
    come from the cache translates nothing (importing the translator) when it gets there."""
    machine = os_machine(ECHO, ECHO_KEYS, edition)
    dispatcher = region_engine(machine)
    assert ECHO[0].origin in dispatcher.blocks
    assert dispatcher.run().reason == "halt"
    assert dispatcher.translating == 0.0


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("edition", [3, 2])
@settings(max_examples=12)
@given(budget=st.integers(0, 400))
def test_max_steps_inside_the_os_routines_is_exact(engine: str, edition: int, budget: int) -> None:
    """A step limit may fall anywhere: in the user's loop, in a routine, on its RTI."""
    runs = [run_os(name, ECHO, ECHO_KEYS, edition, budget) for name in ("interp", engine)]
    assert_same(*runs)


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("edition", [3, 2])
@settings(max_examples=8)
@given(after=st.integers(0, 250), slices=st.lists(st.integers(0, 120), min_size=1, max_size=3))
def test_the_tiered_switch_under_the_os_agrees_wherever_it_falls(
    engine: str, edition: int, after: int, slices: list[int]
) -> None:
    runs = []
    for build in (ENGINES["interp"], lambda m: TieredEngine(m, engine, ENGINES[engine], after)):
        machine = os_machine(ECHO, ECHO_KEYS, edition)
        runs.append(run_in_slices(build(machine), machine, machine.console._display, [*slices, None]))  # type: ignore[attr-defined]
    assert_same(*runs)
    assert runs[0].outcome.reason == "halt"


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("seed", range(3))
def test_keys_typed_at_a_human_pace_through_getc(engine: str, seed: int) -> None:
    """GETC's routine polls KBSR until a key comes: a random number of polls per key."""
    runs = []
    for name in ("interp", engine):
        console = HumanConsole(b"pace\n", io.BytesIO(), seed)
        machine = os_machine(ECHO, b"", 3, console)
        runs.append(finish(machine, ENGINES[name](machine).run(200_000)))
    assert_same(*runs)
    assert runs[0].output.endswith(b"pace\nHALT\n")


#: Host mode (no OS): the program installs a keyboard interrupt handler, enables
#: interrupts and then reads KBDR and KBSR in a loop, and uses GETC, while keys remain:
#: each read may make the next interrupt due, which must come at the very next instruction.
READS_WHILE_ENABLED = """
        .ORIG x3000
        LD R0, HANDLER_AT
        STI R0, VECTOR
        LD R6, STACK
        LD R0, ENABLE
        STI R0, KBSR_AT
        AND R3, R3, #0
        LD R4, ROUNDS
LOOP    LDI R1, KBDR_AT
        ADD R3, R3, R1
        LDI R2, KBSR_AT
        ADD R3, R3, R2
        GETC
        ADD R3, R3, R0
        ADD R4, R4, #-1
        BRp LOOP
        HALT
HANDLER ADD R5, R5, #1          ; counts interrupts; leaves the key waiting
        LDI R0, KBDR_AT         ; no: takes it, so the loop goes on
        RTI
HANDLER_AT .FILL HANDLER
VECTOR  .FILL x0180
STACK   .FILL x2F00
ENABLE  .FILL x4000
KBSR_AT .FILL xFE00
KBDR_AT .FILL xFE02
ROUNDS  .FILL #6
        .END
"""


@pytest.mark.parametrize("engine", TRANSLATED)
@settings(max_examples=20)
@given(keys=st.binary(min_size=0, max_size=12), budget=st.integers(0, 200))
def test_interrupts_come_at_the_interpreters_instruction_after_key_reads(
    engine: str, keys: bytes, budget: int
) -> None:
    images = images_of(READS_WHILE_ENABLED)
    runs = []
    for name in ("interp", engine):
        machine = boot(images, Console(io.BytesIO(keys), io.BytesIO()))
        runs.append(finish(machine, ENGINES[name](machine).run(budget)))
    assert_same(*runs)


#: 2nd edition, under the OS: OUT once, then the program points the OUT vector at a
#: routine of its own (no access control in the 2nd edition), calls OUT again, and puts
#: the vector back.
REWRITES_A_VECTOR = """
        .ORIG x3000
        LD R0, LETTER
        OUT
        LDI R2, OUT_VECTOR
        LEA R1, MINE
        STI R1, OUT_VECTOR
        OUT
        STI R2, OUT_VECTOR      ; the OS's own again: its HALT prints with OUT
        HALT
MINE    LD R0, OTHER
        STI R0, DDR_AT
        RET
LETTER  .FILL x61
OTHER   .FILL x62
OUT_VECTOR .FILL x0021
DDR_AT  .FILL xFE06
        .END
"""


@pytest.mark.parametrize("engine", TRANSLATED)
def test_a_trap_vector_rewritten_under_the_region_goes_to_the_new_routine(engine: str) -> None:
    images = images_of(REWRITES_A_VECTOR)
    expected, actual = (run_os(name, images, b"", 2) for name in ("interp", engine))
    assert_same(expected, actual)
    assert expected.output == b"abHALT\n"


#: Registers set once, then OUT in a loop: the OS's OUT changes no register (the 2nd
#: edition's TRAP sets R7), so each keeps its value across the calls, and the codes are
#: the loop's own. Regions write back only what changed since the last OS call.
KEEPS_REGISTERS = """
        .ORIG x3000
        AND R1, R1, #0
        ADD R2, R1, #3
        LD R3, BIG
        LEA R4, CHAR
        NOT R5, R1
        AND R6, R6, #0          ; the user's R6: the OS switches stacks, R6 comes back
        ADD R6, R6, #9
LOOP    LD R0, CHAR
        OUT
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp LOOP
        ADD R0, R3, R3
        TRAP x26                ; no routine: the run ends here, the registers as they are
CHAR    .FILL x2A
BIG     .FILL x8000
        .END
"""


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("edition", [3, 2])
def test_registers_an_os_call_leaves_alone_keep_their_values(engine: str, edition: int) -> None:
    images = images_of(KEEPS_REGISTERS)
    expected = run_os("interp", images, b"", edition)
    char = images[0].origin + 14
    assert expected.machine.reg[:7] == [0, 3, 0, 0x8000, char, 0xFFFF, 9]
    assert expected.output == b"***" and expected.machine.cond == 0b010
    total = expected.machine.icount
    for budget in (*range(0, total, 3), total):  # a step limit anywhere: in the loop, in OUT, on RTI
        assert_same(*(run_os(name, images, b"", edition, budget) for name in ("interp", engine)))


#: Where the 3rd edition's OS keeps the PSR it starts the user program with (lc3os.sym).
USER_PSR = 0x0210


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("priority", [0, 2, 7])
def test_a_user_program_at_a_priority_above_0_keeps_it_across_os_calls(engine: str, priority: int) -> None:
    """A region's RTI goes on inline only for a PSR of user mode at priority 0: at any
    other the helper's way, with the same priority and codes restored as the interpreter."""
    runs = []
    for name in ("interp", engine):
        machine = os_machine(images_of(KEEPS_REGISTERS), b"", 3)
        assert machine.mem[USER_PSR] == 0x8002
        machine.mem[USER_PSR] = 0x8002 | priority << 8
        runs.append(finish(machine, ENGINES[name](machine).run()))
    assert_same(*runs)
    assert runs[1].output == b"***" and runs[1].machine.psr_mode == 0x8000 | priority << 8


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("edition", [3, 2])
@pytest.mark.parametrize("limit", [0, 1, 13, 15, 20])
def test_the_output_limit_ends_an_os_run_after_the_same_store(engine: str, edition: int, limit: int) -> None:
    """OUT's store into DDR goes past the limit: the run ends after that store, the rest
    of the routine not run, on every engine (a region calls the display and leaves)."""
    runs = []
    for name in ("interp", engine):
        machine = os_machine(ECHO, ECHO_KEYS, edition)
        machine.console.max_output = limit
        runs.append(finish(machine, ENGINES[name](machine).run()))
    assert_same(*runs)
    assert runs[0].outcome.ending is Ending.OUTPUT_LIMIT and len(runs[0].output) == limit


#: An OS whose routines move the supervisor's stack between calls: MOVE returns from a
#: frame copied two words down (Saved_SSP two lower after its RTI), ONTO_CODE from one
#: copied onto the user program's own loop, so the next TRAP pushes onto translated code.
#: A region checks the words under a Saved_SSP once a call: each new one is checked again.
MOVING_STACK_OS = """
        .ORIG x0026
        .FILL PLAIN             ; x26
        .FILL MOVE              ; x27
        .FILL ONTO_CODE         ; x28
        .END
        .ORIG x0200
        LD R6, STACK
        LD R1, START_PSR
        ADD R6, R6, #-2
        STR R1, R6, #1
        STR R0, R6, #0
        RTI
STACK   .FILL x2F00
START_PSR .FILL x8002
CODE    .FILL x3002             ; the user program's LOOP
PLAIN   RTI
MOVE    LDR R1, R6, #0
        LDR R2, R6, #1
        ADD R6, R6, #-2
        STR R1, R6, #0
        STR R2, R6, #1
        RTI
ONTO_CODE LDR R1, R6, #0
        LDR R2, R6, #1
        LD R6, CODE
        STR R1, R6, #0
        STR R2, R6, #1
        RTI
        .END
"""
MOVING_STACK_USER = """
        .ORIG x3000
        AND R3, R3, #0
        ADD R3, R3, #5
LOOP    TRAP x26
        TRAP x27
        TRAP x26
        ADD R3, R3, #-1
        BRp LOOP
        TRAP x28
        TRAP x26
        TRAP x26
        TRAP x30                ; no routine: the run ends
        .END
"""


@pytest.mark.parametrize("engine", TRANSLATED)
def test_a_supervisor_stack_moved_between_os_calls_is_pushed_where_it_is_now(engine: str) -> None:
    """Every TRAP pushes below the Saved_SSP of its moment, and every RTI pops at R6,
    however the routines moved the stack, onto code too, at any step limit."""
    system, images = images_of(MOVING_STACK_OS), images_of(MOVING_STACK_USER)

    def run(name: str, limit: int | None) -> Run:
        machine = boot(images, Console(io.BytesIO(), io.BytesIO()), 3, None, system)
        return finish(machine, ENGINES[name](machine).run(limit))

    expected = run("interp", None)
    assert expected.machine.saved_ssp == 0x3004 and expected.outcome.reason == "fault"
    assert expected.machine.mem[0x3002:0x3004] == [0x300A, 0x8002]  # x3009's push, onto LOOP
    for limit in (*range(0, expected.machine.icount, 7), None):
        assert_same(run("interp", limit), run(engine, limit))


#: What a user program may do around its OS calls: move its own R6 anywhere (the OS
#: switches to its stack and back, inline in a region), set the codes, call the traps.
USER_STEPS = (
    "ADD R6, R6, #-7",
    "ADD R6, R6, #15",
    "NOT R6, R6",
    "ADD R1, R6, #0",
    "LD R0, CHAR",
    "ADD R0, R0, #1",
    "OUT",
    "GETC",
    "LEA R0, TEXT",
    "PUTS",
)


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize("edition", [3, 2])
@settings(max_examples=10)
@given(
    steps=st.lists(st.sampled_from(USER_STEPS), min_size=1, max_size=10),
    keys=st.binary(max_size=4),
    budget=st.integers(0, 1500),
)
def test_os_calls_among_random_user_code_agree_at_any_step_limit(
    engine: str, edition: int, steps: list[str], keys: bytes, budget: int
) -> None:
    body = "\n".join(f"        {step}" for step in steps)
    source = f"""
        .ORIG x3000
        AND R2, R2, #0
        ADD R2, R2, #3
LOOP
{body}
        ADD R2, R2, #-1
        BRp LOOP
        HALT
CHAR    .FILL x41
TEXT    .STRINGZ "ab"
        .END
"""
    images = images_of(source)
    for limit in (budget, None):
        assert_same(*(run_os(name, images, keys, edition, limit) for name in ("interp", engine)))


#: 3rd edition, under the OS: user code jumps into the OS's GETC routine (which a region
#: of its own, or the caller's, holds): fetching it in user mode is an access-control
#: violation, reported by the OS; and an RTI in user mode is a privilege violation.
JUMPS_INTO_THE_OS = """
        .ORIG x3000
        GETC
        LD R1, ROUTINE
        ADD R0, R0, #-10
        BRz SKIP
        JMP R1
SKIP    RTI
ROUTINE .FILL x0000
        .END
"""


@pytest.mark.parametrize("engine", TRANSLATED)
@pytest.mark.parametrize(("keys", "report"), [(b"j", b"access-control"), (b"\n", b"privilege-mode")])
def test_user_code_that_reaches_into_the_os_is_stopped_by_it(engine: str, keys: bytes, report: bytes) -> None:
    images = images_of(JUMPS_INTO_THE_OS)
    getc = os_images(3)[0].words[0x20]  # the routine the OS's vector table names
    words = list(images[0].words)
    words[-1] = getc
    images = [Image(images[0].origin, tuple(words))]
    expected, actual = (run_os(name, images, keys, 3) for name in ("interp", engine))
    assert_same(expected, actual)
    assert report in expected.output and expected.outcome.reason == "halt"


ECHO_ALL = images_of(
    """
        .ORIG x3000
LOOP    GETC
        OUT
        BRnzp LOOP
        .END
"""
)


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("edition", [3, 2])
@settings(max_examples=5)
@given(slices=st.lists(st.integers(0, 400), min_size=1, max_size=6))
def test_keys_from_a_file_run_in_pieces_as_in_one_run(engine: str, edition: int, slices: list[int]) -> None:
    """A run stopped at step limits and run on (a debugger's stops) takes its keys from a
    regular file as one run does: the keys read ahead and not taken go back to the file
    whenever the console stops running, and are read again after (each once: the program
    echoes every key until the input ends)."""
    keys = bytes(random.Random(len(slices)).choices(b"ab\n", k=300))
    whole = run_os("interp", ECHO_ALL, keys, edition)
    with tempfile.TemporaryFile() as keyboard:  # a regular file (not tmp_path: hypothesis runs it again)
        keyboard.write(keys)
        keyboard.seek(0)
        machine = os_machine(ECHO_ALL, b"", edition, Console(keyboard, io.BytesIO()))
        built = ENGINES[engine](machine)
        outcome = None
        for budget in [*slices, None]:
            with machine.console.running():
                outcome = built.run(budget)
            if outcome.reason != "step-limit":
                break
        assert_same(whole, finish(machine, outcome))


def test_a_stop_request_is_taken_while_the_getc_routine_polls() -> None:
    """No key ever comes (a pipe left open): GETC's routine polls inside the region; a
    SIGTERM-style stop request ends the run soon, at an exact instruction."""
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", buffering=0) as keyboard:
            machine = os_machine(ECHO, b"", 3, Console(keyboard, io.BytesIO()))
            engine = region_engine(machine)
            polling = threading.Event()
            real_next_key = machine.console.next_key

            def next_key(wait: float | None = 0.0) -> int | None:
                polling.set()
                return real_next_key(wait)

            machine.console.next_key = next_key  # type: ignore[method-assign]
            machine.console.plain = None  # every poll calls it
            threading.Thread(
                target=lambda: polling.wait(60) and machine.request_stop(interrupted(signal.SIGTERM)),
                daemon=True,
            ).start()
            outcome = engine.run(random.randrange(10**8, 10**9))
    finally:
        os.close(write_end)
    assert outcome == interrupted(signal.SIGTERM)
    assert machine.pc in range(0x0200, 0x0400) and machine.icount > 0


def test_a_machine_that_ran_under_an_os_holds_at_most_30_attributes() -> None:
    """CPython shares the keys of an instance's dict only up to 30 (3.11-3.13): past
    them every attribute translated code names (`m.kbsr_ie`, `m.psr_mode`, ...) is a dict
    lookup, 13% more machine instructions a key echoed. A run's own additions count."""
    machine = os_machine(ECHO, ECHO_KEYS, 3)
    assert ENGINES["regions"](machine).run().reason == "halt"
    assert len(vars(machine)) <= 30
