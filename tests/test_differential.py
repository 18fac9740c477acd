"""Every engine against the interpreter: same registers, PSR, memory, output, count, stop.

Random programs come from hypothesis, built through the ISA table: straight-line code,
loops, calls, indirect jumps through registers, loads and stores anywhere (into the
running block, into other blocks, into device registers), traps with scripted keys.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from lc3jit.session import ENGINES, boot, load_images, os_images
from lc3jit.translator.regions import MAX_HINTS, learning, region_engine
from lc3jit_runtime import dispatch
from lc3jit_runtime.console import Console
from lc3jit_runtime.isa import FORMS_BY_NAME, MEMORY_WORDS, WORD_MASK, form_of
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import (
    DSR,
    EXCEPTION_TABLE,
    ILLEGAL_OPCODE,
    KBDR,
    KBSR,
    MCR,
    Machine,
    unwritten_write_map,
)

from .conftest import Run, make_machine, recycling, run_on

ORIGIN = 0x3000
OTHER_ENGINES = sorted(set(ENGINES) - {"interp"})
EXAMPLES = Path(__file__).parent.parent / "examples"

#: Random programs per engine and edition: several hundred in every run, more with --slow.
MANY = settings(max_examples=max(300, settings.default.max_examples))


def field_values(name: str, size: int) -> st.SearchStrategy[int]:
    """Operands that make programs do interesting things, most of the time."""
    match name:
        case "dr" | "sr" | "sr1" | "sr2" | "baser" | "nzp":
            return st.integers(0, 7)
        case "imm5":
            return st.integers(-16, 15)
        case "offset6":
            return st.integers(-32, 31)
        case "pcoffset9":  # mostly inside the program, sometimes anywhere in range
            return st.one_of(st.integers(-size - 1, size), st.integers(-256, 255))
        case "pcoffset11":
            return st.one_of(st.integers(-size - 1, size), st.integers(-1024, 1023))
        case "trapvect8":
            return st.sampled_from([0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x00])
    raise AssertionError(name)


WEIGHTED_FORMS = [
    *["ADD", "ADDI", "ADDI", "AND", "ANDI", "NOT"] * 3,
    *["BR", "BR", "BR", "LD", "LDI", "LDR", "LDR", "LEA", "LEA", "ST", "STI", "STR", "STR"] * 2,
    "JMP",
    "JSR",
    "JSR",
    "JSRR",
    "TRAP",
    "RTI",
    "RESERVED",
]


@st.composite
def instruction(draw: st.DrawFn, size: int) -> int:
    if draw(st.integers(0, 40)) == 0:
        return draw(st.integers(0, WORD_MASK))  # any word at all, "should be" bits included
    form = FORMS_BY_NAME[draw(st.sampled_from(WEIGHTED_FORMS))]
    return form.encode(**{f.name: draw(field_values(f.name, size)) for f in form.fields})


# Register values: small numbers, addresses in and around the program, device registers.
REGISTER_VALUES = st.one_of(
    st.integers(0, 20),
    st.integers(ORIGIN - 40, ORIGIN + 80),
    st.sampled_from([KBSR, KBDR, DSR, MCR - 1, 0xFFFF, 0x7FFF, 0x8000, 0xFFE0]),
    st.integers(0, WORD_MASK),
)


@st.composite
def program(draw: st.DrawFn) -> tuple[list[int], list[int], bytes]:
    size = draw(st.integers(1, 48))
    words = draw(st.lists(instruction(size), min_size=size, max_size=size))
    registers = draw(st.lists(REGISTER_VALUES, min_size=8, max_size=8))
    keys = draw(st.binary(max_size=6))
    return words, registers, keys


def run_program(engine: str, words: list[int], registers: list[int], keys: bytes, edition: int) -> Run:
    machine, display = make_machine(words, ORIGIN, keys, edition)
    machine.reg[:] = registers
    # A pointer table for LDI/STI into device registers, and a word at the top of memory.
    machine.load_words(ORIGIN - 8, [KBSR, KBDR, DSR, ORIGIN + 3, ORIGIN, 0xFFFF, ORIGIN + 40, 0])
    return run_on(engine, machine, display, max_steps=3000)


def assert_same(expected: Run, actual: Run) -> None:
    e, a = expected.machine, actual.machine
    assert (actual.outcome, actual.output) == (expected.outcome, expected.output)
    assert a.icount == e.icount
    assert a.snapshot() == e.snapshot()
    assert a.mem == e.mem
    assert (a.kbsr_ie, a.kbd_latch, a.kbdr, a.mcr) == (e.kbsr_ie, e.kbd_latch, e.kbdr, e.mcr)


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize("edition", [3, 2])
@MANY
@given(case=program())
def test_random_programs_agree(engine: str, edition: int, case: tuple[list[int], list[int], bytes]) -> None:
    words, registers, keys = case
    assert_same(run_program("interp", *case, edition), run_program(engine, words, registers, keys, edition))


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@MANY
@given(case=program(), budget=st.integers(0, 200))
def test_max_steps_is_exact(engine: str, case: tuple[list[int], list[int], bytes], budget: int) -> None:
    """Stopping after any number of instructions leaves both engines in the same state."""
    runs = []
    for name in ("interp", engine):
        machine, display = make_machine(case[0], ORIGIN, case[2])
        machine.reg[:] = case[1]
        runs.append(run_on(name, machine, display, max_steps=budget))
    assert_same(*runs)
    assert runs[1].machine.icount <= budget


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize("edition", [3, 2])
@given(case=program())
def test_random_programs_agree_in_user_mode_under_the_os(
    engine: str, edition: int, case: tuple[list[int], list[int], bytes]
) -> None:
    """Full-system mode: lc3os enters the program in user mode; its traps, exceptions, access
    control (3rd edition) and the keyboard interrupt a program may enable (2nd) all run."""
    words, _, keys = case
    runs = []
    for name in ("interp", engine):
        display = io.BytesIO()
        console = Console(io.BytesIO(keys), display)
        machine = boot([Image(ORIGIN, tuple(words))], console, edition, None, os_images(edition))
        runs.append(run_on(name, machine, display, max_steps=5000))
    assert_same(*runs)


#: A trap routine and an illegal-opcode handler placed inside the program, entered by
#: TRAP x40 and opcode 1101 with PSR and PC pushed on a stack (R6) aimed at the code.
PUSH_VECTOR = 0x40


@st.composite
def pushing_program(draw: st.DrawFn) -> tuple[list[int], list[int], bytes, int, int]:
    words, registers, keys = draw(program())
    size = len(words)
    for at in draw(st.lists(st.integers(0, size - 1), max_size=3)):
        words[at] = FORMS_BY_NAME["TRAP"].encode(trapvect8=PUSH_VECTOR)
    registers[6] = ORIGIN + draw(st.integers(0, size + 2))
    return words, registers, keys, ORIGIN + draw(st.integers(0, size)), ORIGIN + draw(st.integers(0, size))


def run_pushing(engine: str, case: tuple[list[int], list[int], bytes, int, int]) -> Run:
    words, registers, keys, routine, handler = case
    machine, display = make_machine(words, ORIGIN, keys, 3)
    machine.reg[:] = registers
    machine.load_words(PUSH_VECTOR, [routine])
    machine.load_words(EXCEPTION_TABLE + ILLEGAL_OPCODE, [handler])
    return run_on(engine, machine, display, max_steps=3000)


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@MANY
@given(case=pushing_program())
def test_pushes_onto_a_stack_aimed_at_the_code_agree(
    engine: str, case: tuple[list[int], list[int], bytes, int, int]
) -> None:
    """3rd-edition TRAP, exceptions and RTI move R6 and write through it: PSR and PC pushed
    onto the program's own words must be run as the new words they are, by every engine."""
    assert_same(run_pushing("interp", case), run_pushing(engine, case))


def test_a_trap_that_pushes_onto_the_words_after_it_runs_the_pushed_words(engine: str) -> None:
    """TRAP x40 with its routine at the next word and R6 two words further: the pushed PC
    (x3003, ST R0 #3) and PSR (x0001: codes P, a BR that never branches) replace the ADDs."""
    words = [
        FORMS_BY_NAME["LEA"].encode(dr=6, pcoffset9=4),  # x3000: R6 = x3005
        FORMS_BY_NAME["ADDI"].encode(dr=0, sr1=0, imm5=7),  # x3001
        FORMS_BY_NAME["TRAP"].encode(trapvect8=PUSH_VECTOR),  # x3002
        FORMS_BY_NAME["ADDI"].encode(dr=1, sr1=1, imm5=1),  # x3003, then x3003: ST R0, #3
        FORMS_BY_NAME["ADDI"].encode(dr=2, sr1=2, imm5=1),  # x3004, then x0001
        FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25),  # x3005: HALT
    ]
    case = (words, [0] * 8, b"", ORIGIN + 3, ORIGIN)
    expected, actual = run_pushing("interp", case), run_pushing(engine, case)
    assert_same(expected, actual)
    assert actual.machine.mem[ORIGIN + 3 : ORIGIN + 5] == [ORIGIN + 3, 0x0001]
    assert (actual.machine.reg[1], actual.machine.reg[2], actual.machine.mem[ORIGIN + 7]) == (0, 0, 7)


def run_case(engine: str, case: tuple[list[int], list[int], bytes], edition: int, under_os: bool) -> Run:
    words, registers, keys = case
    if not under_os:
        return run_program(engine, words, registers, keys, edition)
    display = io.BytesIO()
    console = Console(io.BytesIO(keys), display)
    machine = boot([Image(ORIGIN, tuple(words))], console, edition, None, os_images(edition))
    return run_on(engine, machine, display, max_steps=5000)


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize(("edition", "under_os"), [(3, False), (2, False), (3, True), (2, True)])
@given(first=program(), second=program())
def test_a_recycled_memory_holds_nothing_of_the_machine_before_it(
    engine: str,
    edition: int,
    under_os: bool,
    first: tuple[list[int], list[int], bytes],
    second: tuple[list[int], list[int], bytes],
) -> None:
    """A grader's machine takes the memory of the machine closed before it (recycle_memory):
    wherever the first program stored (devices, code, the OS's words, its own), on any
    engine, the second runs as on a new machine, and the machine after finds memory and
    write map as new."""
    expected = run_case("interp", second, edition, under_os)
    with recycling():
        before = run_case(engine, first, edition, under_os).machine
        memory = before.mem
        before.close()
        run = run_case(engine, second, edition, under_os)
        recycled = run.machine.mem is memory  # (not when written in more than MAX_SPANS places)
        assert_same(expected, run)
        run.machine.close()
        after = Machine(Console(io.BytesIO(), io.BytesIO()), edition, full_system=under_os)
        assert after.mem == [0] * MEMORY_WORDS
        assert after.watch == unwritten_write_map(edition, after.access_control)
    event("memory recycled" if recycled else "memory made anew")


REAL_PROGRAMS = [
    (["2048.obj"], b"n" + b"wasd" * 60 + b"n"),
    (["2048.obj"], b"y" + b"dsaw" * 30),
    (["rogue.obj"], b"x" + b"wasd" * 40),
    (["hello.obj"], b""),
    (["echo.obj"], b"echo me\n"),
    (["add.hex"], b"79"),
    (["fib.obj"], b""),
    (["sieve.obj"], b""),
    (["strings.obj"], b""),
    (["subroutines.obj", "subroutines-1.obj"], b""),
]


def real_runs(engine: str, files: list[str], keys: bytes, edition: int) -> list[Run]:
    """The programs `files` (of examples/) loaded together, run on the interpreter, then on `engine`."""
    runs = []
    for name in ("interp", engine):
        images = load_images([EXAMPLES / f for f in files])
        machine, display = make_machine(images[0].words, images[0].origin, keys, edition)
        for image in images[1:]:
            machine.load_words(image.origin, list(image.words))
        runs.append(run_on(name, machine, display, max_steps=3_000_000))
    return runs


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize(("files", "keys"), REAL_PROGRAMS, ids=lambda v: str(v)[:24])
@pytest.mark.parametrize("edition", [3, 2])
def test_real_programs_agree(engine: str, files: list[str], keys: bytes, edition: int) -> None:
    """The examples and both games, with scripted keys, end identically on every engine."""
    runs = real_runs(engine, files, keys, edition)
    assert_same(*runs)
    assert runs[0].outcome.reason in {"halt", "input-exhausted"}


class HumanConsole(Console):
    """Scripted keys that arrive as a person types them: each one only after a random
    number of KBSR polls (seeded), so a game that seeds its random numbers by counting
    polls takes other paths than with keys that are always waiting."""

    def __init__(self, keys: bytes, display: io.BytesIO, seed: int) -> None:
        super().__init__(io.BytesIO(keys), display)
        self.pace = random.Random(seed)
        self.polls_left = self.pace.randrange(400)

    def next_key(self, wait: float | None = 0.0) -> int | None:
        if wait is not None and self.polls_left > 0 and not self.exhausted:
            self.polls_left -= 1
            return None
        self.polls_left = self.pace.randrange(400)
        return super().next_key(wait)


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize("seed", range(5))
def test_2048_agrees_with_keys_typed_at_a_human_pace(engine: str, seed: int) -> None:
    """2048 counts polls for its random tiles (rogue reads keys with GETC: no polls)."""
    moves = random.Random(seed)
    keys = b"n" + bytes(moves.choice(b"wasd") for _ in range(60))
    image = load_images([EXAMPLES / "2048.obj"])[0]
    runs = []
    for name in ("interp", engine):
        display = io.BytesIO()
        machine = Machine(HumanConsole(keys, display, seed))
        machine.load_words(image.origin, list(image.words))
        machine.pc = image.origin
        runs.append(run_on(name, machine, display, max_steps=5_000_000))
    assert_same(*runs)
    assert runs[0].outcome.reason == "input-exhausted"


# Runaway programs: no HALT, so they run on into empty memory, text or data.
ADD_R0 = FORMS_BY_NAME["ADDI"].encode(dr=0, sr1=0, imm5=1)
TEXT = [ord(c) for c in "Forgot the HALT\n"]  # words below x0200: BR that never branches


def runaway_runs(engine: str, words: list[int], max_steps: int, os: bool = False, **regs: int) -> list[Run]:
    runs = []
    for name in ("interp", engine):
        display = io.BytesIO()
        console = Console(io.BytesIO(b""), display)
        machine = boot([Image(ORIGIN, tuple(words))], console, 3, None, os_images(3) if os else [])
        for number, value in regs.items():
            machine.reg[int(number[1:])] = value
        runs.append(run_on(name, machine, display, max_steps=max_steps))
    return runs


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize("budget", [0, 1, 2, 17, 4096, 4097, 52_000, 65_536 * 3 + 5])
def test_a_runaway_into_text_and_empty_memory_agrees_at_any_budget(engine: str, budget: int) -> None:
    """Through its own text, x3000-xFDFF, the device page, x0000 and around again."""
    expected, actual = runaway_runs(engine, [ADD_R0, ADD_R0, *TEXT, ADD_R0], budget)
    assert_same(expected, actual)
    assert actual.outcome.reason == "step-limit" and actual.machine.icount == budget


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_a_store_into_empty_memory_already_run_through_is_seen(engine: str) -> None:
    """The second time round, the program writes a HALT into words it ran as no-ops."""
    words = [
        ADD_R0,
        FORMS_BY_NAME["ADDI"].encode(dr=1, sr1=0, imm5=-2),
        FORMS_BY_NAME["BR"].encode(nzp=0b100, pcoffset9=1),  # first time round: skip the store
        FORMS_BY_NAME["ST"].encode(sr=3, pcoffset9=0x1C),  # x3020
    ]
    expected, actual = runaway_runs(engine, words, 300_000, r3=FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25))
    assert_same(expected, actual)
    assert actual.outcome.reason == "halt" and actual.machine.pc == 0x3021
    assert 0x10000 < actual.machine.icount < 2 * 0x10000


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_a_runaway_under_the_os_meets_access_control(engine: str) -> None:
    """In user mode, fetching xFE00 is an access-control violation the OS handles."""
    expected, actual = runaway_runs(engine, [ADD_R0, *TEXT], 200_000, os=True)
    assert_same(expected, actual)
    assert actual.machine.icount > 0xFE00 - ORIGIN


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize("seed", range(4))
def test_a_wild_jump_into_random_data_agrees(engine: str, seed: int) -> None:
    """Data that decodes as loops, loads and stores (into itself too): translated or not,
    counted the same."""
    rng = random.Random(seed)
    forms = ["ADD", "ADDI", "AND", "NOT", "LEA", "BR", "LDR", "STR", "LD", "ST"]
    data = [
        FORMS_BY_NAME[name].encode(
            **{
                f.name: rng.randrange(1 << f.width) + (-(1 << (f.width - 1)) if f.signed else 0)
                for f in FORMS_BY_NAME[name].fields
            }
        )
        for name in (rng.choice(forms) for _ in range(0x800))
    ]
    jump = [FORMS_BY_NAME["LD"].encode(dr=1, pcoffset9=1), FORMS_BY_NAME["JMP"].encode(baser=1), ORIGIN + 3]
    expected, actual = runaway_runs(engine, jump + data, 50_000)
    assert_same(expected, actual)


#: The words at the edges of the codes' intervals: 0, 1, the largest positive, the sign's, xFFFF.
CODES_EDGES = (0, 1, 0x7FFF, 0x8000, WORD_MASK)


def branches_on_sums() -> tuple[list[int], list[int]]:
    """Every BR after ADD R1, R0, #k (k of -16, -2, -1, 1, 15), each way adding j (k - 1,
    k or k + 1) to R0 and storing it, each case run with R0 at and next to every edge of
    the codes' intervals less k: the words of a program, and of its table of R0's values
    (which it overwrites with the results)."""
    add, br, ldr, stri = (FORMS_BY_NAME[name] for name in ("ADDI", "BR", "LDR", "STR"))
    code: list[int] = []
    values: list[int] = []
    for nzp in range(1, 7):
        for k in (-16, -2, -1, 1, 15):
            for j in (max(-16, k - 1), k, min(15, k + 1)):
                cases = [(edge - k + d) & WORD_MASK for edge in CODES_EDGES for d in (-1, 0, 1)]
                values += cases
                code += [
                    FORMS_BY_NAME["ANDI"].encode(dr=5, sr1=5, imm5=0),
                    add.encode(dr=5, sr1=5, imm5=len(cases)),
                    ldr.encode(dr=0, baser=6, offset6=0),  # each value in turn
                    add.encode(dr=1, sr1=0, imm5=k),
                    br.encode(nzp=nzp, pcoffset9=3),
                    add.encode(dr=0, sr1=0, imm5=j),
                    stri.encode(sr=0, baser=6, offset6=0),
                    br.encode(nzp=0b111, pcoffset9=2),
                    add.encode(dr=0, sr1=0, imm5=j),
                    stri.encode(sr=0, baser=6, offset6=0),
                    add.encode(dr=6, sr1=6, imm5=1),
                    add.encode(dr=5, sr1=5, imm5=-1),
                    br.encode(nzp=0b001, pcoffset9=-11),
                ]
    return [*code, FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25)], values


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_bounds_a_branch_tells_of_the_register_a_sum_came_from_agree(engine: str) -> None:
    """A branch on ADD R1, R0, #k bounds R0 on each way (an ADD to R0 there may then need
    no wrap): at every edge, every engine stores what the interpreter stores."""
    code, values = branches_on_sums()
    table = 0x5000
    runs = []
    for name in ("interp", engine):
        machine, display = make_machine(code, ORIGIN)
        machine.load_words(table, values)
        machine.reg[6] = table
        runs.append(run_on(name, machine, display, max_steps=None))
    assert_same(*runs)
    assert runs[1].outcome.reason == "halt"
    assert runs[1].machine.mem[table : table + 3] == [WORD_MASK, 0, 1]  # BRp, k -16, j -16: 15, 16, 17


#: LDRs from one base, R6: the first one's test clears the two after it at offsets 1 and 3
#: (not the one at -1); after R6 moves on by 2, a load at it needs no test at all.
LOADS_FROM_ONE_BASE = [
    FORMS_BY_NAME["LDR"].encode(dr=1, baser=6, offset6=0),
    FORMS_BY_NAME["ADD"].encode(dr=0, sr1=0, sr2=1),
    FORMS_BY_NAME["LDR"].encode(dr=7, baser=6, offset6=1),
    FORMS_BY_NAME["LDR"].encode(dr=2, baser=6, offset6=3),
    FORMS_BY_NAME["LDR"].encode(dr=3, baser=6, offset6=-1),
    FORMS_BY_NAME["ADDI"].encode(dr=6, sr1=6, imm5=2),
    FORMS_BY_NAME["LDR"].encode(dr=4, baser=6, offset6=0),
    FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25),
]
#: Bases whose loads reach the device registers (KBSR at xFE00, KBDR at xFE02) or wrap.
DEVICE_EDGES = (0xFDF9, 0xFDFB, 0xFDFC, 0xFDFD, 0xFDFE, 0xFDFF, KBSR, KBDR, WORD_MASK - 1, WORD_MASK, 0)


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@given(
    base=st.sampled_from(DEVICE_EDGES) | st.integers(0, WORD_MASK),
    budget=st.none() | st.integers(0, len(LOADS_FROM_ONE_BASE)),
)
def test_loads_from_one_base_tested_once_agree_at_the_device_registers(
    engine: str, base: int, budget: int | None
) -> None:
    """Loads that one wider test cleared, or that R6's bounds clear, still read the device
    registers as devices (a key typed: KBSR's ready bit, KBDR's key) and wrap past xFFFF,
    whatever the load the run stops before."""
    runs = []
    for name in ("interp", engine):
        machine, display = make_machine(LOADS_FROM_ONE_BASE, ORIGIN, b"k")
        machine.reg[6] = base
        runs.append(run_on(name, machine, display, max_steps=budget))
    assert_same(*runs)


#: Pushes in a loop (R5 times round): `ADD R6, R6, #-1` then a store at R6, the sum left
#: unwrapped for the store's fast path to make a word; a pop by LDR at R6 after a move.
PUSHES = [
    FORMS_BY_NAME["ADDI"].encode(dr=6, sr1=6, imm5=-1),
    FORMS_BY_NAME["STR"].encode(sr=7, baser=6, offset6=0),
    FORMS_BY_NAME["ADDI"].encode(dr=6, sr1=6, imm5=-1),
    FORMS_BY_NAME["STR"].encode(sr=5, baser=6, offset6=0),
    FORMS_BY_NAME["ADDI"].encode(dr=6, sr1=6, imm5=1),
    FORMS_BY_NAME["LDR"].encode(dr=1, baser=6, offset6=0),
    FORMS_BY_NAME["ADDI"].encode(dr=5, sr1=5, imm5=-1),
    FORMS_BY_NAME["BR"].encode(nzp=0b001, pcoffset9=-8),
    FORMS_BY_NAME["TRAP"].encode(trapvect8=0x25),
]


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@given(
    base=st.sampled_from((0, 1, 2, 3, 0x3004, 0x300A, KBSR + 2, KBDR + 3, MCR + 1, WORD_MASK))
    | st.integers(0, WORD_MASK),
    budget=st.just(10_000) | st.integers(0, 40),
)
def test_pushes_whose_sums_a_store_makes_words_agree(engine: str, base: int, budget: int) -> None:
    """A push's decrement is not wrapped before its store: past x0000, into the device
    registers (MCR too) or into the loop's own code, every engine does what the
    interpreter does, wherever the run stops."""
    runs = []
    for name in ("interp", engine):
        machine, display = make_machine(PUSHES, ORIGIN, b"k")
        machine.reg[5:8] = [4, base, 0x1234]
        runs.append(run_on(name, machine, display, max_steps=budget))
    assert_same(*runs)


# Indirect jumps that learnt their targets: JMP and JSRR compare with them and go on inside.
@pytest.mark.parametrize("edition", [3, 2])
@MANY
@given(case=program(), data=st.data())
def test_regions_agree_whatever_targets_jumps_learnt(
    edition: int, case: tuple[list[int], list[int], bytes], data: st.DataObject
) -> None:
    """Any targets at all, right or wrong, for each JMP and JSRR: same results."""
    words, registers, keys = case
    addresses = st.integers(ORIGIN - 2, ORIGIN + len(words) + 1)
    hints = {
        ORIGIN + i: data.draw(st.lists(addresses, max_size=MAX_HINTS, unique=True))
        for i, word in enumerate(words)
        if form_of(word).name in ("JMP", "JSRR")
    }
    expected = run_program("interp", words, registers, keys, edition)
    machine, display = make_machine(words, ORIGIN, keys, edition)
    machine.reg[:] = registers
    machine.load_words(ORIGIN - 8, [KBSR, KBDR, DSR, ORIGIN + 3, ORIGIN, 0xFFFF, ORIGIN + 40, 0])
    outcome = region_engine(machine, hints=hints).run(3000)
    machine.console.flush()
    assert_same(expected, Run(machine, outcome, display.getvalue()))


DISPATCH = EXAMPLES / "bench" / "dispatch.asm"


@pytest.mark.parametrize("budget", [None, 1, 5_000, 100_003, 400_000])
def test_a_jump_table_program_learns_its_targets_and_agrees(
    monkeypatch: pytest.MonkeyPatch, budget: int | None
) -> None:
    """Retranslation with what the run taught, at any budget (time to translate granted).
    Without its labels (an .obj without .sym) nothing is guessed: the targets are learnt."""
    monkeypatch.setattr(dispatch, "TRANSLATION_SHARE", 1e9)
    monkeypatch.setattr(learning, "WORTH_LEARNING", 0)
    runs = []
    for name in ("interp", "regions"):
        console = Console(io.BytesIO(b""), io.BytesIO())
        machine = boot(
            [
                Image(image.origin, image.words, image.name, {}, image.source)
                for image in load_images([DISPATCH])
            ],
            console,
        )
        engine = ENGINES[name](machine)
        runs.append(Run(machine, engine.run(budget), console._display.getvalue()))  # type: ignore[attr-defined]
    assert_same(*runs)
    if budget is None or budget > 100_000:
        assert len(next(iter(engine.translator.hints.values()))) == 4  # type: ignore[attr-defined]


def test_a_jump_table_is_guessed_so_its_calls_never_leave_the_region() -> None:
    """dispatch.asm calls its handlers with JSRR through a table of `.FILL HANDLER` words that
    an LEA points at: the region holds the handlers from its first translation, so the call
    never goes back to the dispatcher, and the run ends as the interpreter's."""
    runs, engines = [], []
    for name in ("interp", "regions"):
        console = Console(io.BytesIO(b""), io.BytesIO())
        machine = boot(load_images([DISPATCH]), console)
        engines.append(engine := ENGINES[name](machine))
        runs.append(Run(machine, engine.run(), console._display.getvalue()))  # type: ignore[attr-defined]
    assert_same(*runs)
    symbols = load_images([DISPATCH])[0].symbols
    site = symbols["CALL"] + 2
    region = engines[1]
    assert region.exits_through(site) == 0  # type: ignore[attr-defined]
    handlers = {symbols[name] for name in ("OTHER", "DIGIT_C", "UPPER", "LOWER")}
    [holder] = [r for r in region.translator.regions.values() if site in {b.end for b in r.blocks}]  # type: ignore[attr-defined]
    assert handlers <= {b.start for b in holder.blocks}


#: Jumps through registers loaded from memory next to tables of labels that they do not use:
#: the JSRR reads a slot holding C + 1 (code no label names) while an LEA points at a table
#: of A and B; the JMP's LD reads a word that named A at load time and C + 1 when it runs.
#: Every guess is wrong; the runs must end as the interpreter's all the same.
WRONG_GUESSES = """
        .ORIG x3000
        LEA R2, C
        ADD R2, R2, #1
        ST R2, SLOT
        ST R2, POINTER
        LEA R4, TABLE
        LEA R3, SLOT
        AND R1, R1, #0
        ADD R1, R1, #6
LOOP    LDR R2, R3, #0
        JSRR R2
        ADD R1, R1, #-1
        BRp LOOP
        LEA R7, BACK
        LD R2, POINTER
        JMP R2
BACK    HALT
TABLE   .FILL A
        .FILL B
SLOT    .BLKW 1
POINTER .FILL A
A       ADD R5, R5, #3
        RET
B       ADD R5, R5, #5
        RET
C       ADD R5, R5, #7
        ADD R5, R5, #1
        ADD R6, R6, #1
        RET
        .END
"""


@pytest.mark.parametrize("engine", OTHER_ENGINES)
@pytest.mark.parametrize("budget", [None, 0, 1, 9, 10, 11, 30, 47])
def test_wrong_guesses_of_jump_tables_cost_nothing_but_a_compare(
    tmp_path: Path, engine: str, budget: int | None
) -> None:
    source = tmp_path / "wrong.asm"
    source.write_text(WRONG_GUESSES)
    runs = []
    for name in ("interp", engine):
        console = Console(io.BytesIO(b""), io.BytesIO())
        machine = boot(load_images([source]), console)
        runs.append(Run(machine, ENGINES[name](machine).run(budget), console._display.getvalue()))  # type: ignore[attr-defined]
    assert_same(*runs)
    if budget is None:
        assert runs[1].machine.reg[5:7] == [7, 7]  # six calls and the jump, all to C + 1


@given(budget=st.integers(0, 3000), entry_jump=st.booleans())
def test_a_loop_closed_by_a_learnt_jump_counts_exactly(budget: int, entry_jump: bool) -> None:
    """The learnt edge is a back edge: the loop it closes checks the budget."""
    jump = FORMS_BY_NAME["JSRR" if entry_jump else "JMP"].encode(baser=1)
    words = [FORMS_BY_NAME["LEA"].encode(dr=1, pcoffset9=0), ADD_R0, ADD_R0, jump]
    runs = []
    for hints in ({}, {ORIGIN + 3: [ORIGIN + 1]}):
        machine, display = make_machine(words)
        engine = region_engine(machine, hints=hints) if hints else ENGINES["interp"](machine)
        runs.append(Run(machine, engine.run(budget), display.getvalue()))
    assert_same(*runs)
    assert runs[1].machine.icount == budget
