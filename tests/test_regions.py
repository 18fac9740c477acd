"""Regions: the blocks chosen, the graph, each analysis on small graphs built by hand,
and what the compiler makes of them (the run-time learning in test_differential)."""

from __future__ import annotations

import dis
import itertools
import sys
from collections import Counter
from collections.abc import Callable
from types import CodeType, FrameType

import pytest

from lc3jit.session import ENGINES
from lc3jit.toolchain.asm import assemble
from lc3jit.translator.blocks import Block, Exit, find_blocks
from lc3jit.translator.codegen.dataflow import registers_of
from lc3jit.translator.codegen.emitter import TABLED_BUDGET_STEPS
from lc3jit.translator.regions import engine as regions_engine
from lc3jit.translator.regions import region_blocks, region_compiler
from lc3jit.translator.regions.analyses import (
    analyse,
    budget_checks,
    chains,
    live_masks,
    prepaid,
    region_exact_results,
    unwrapped_registers,
    wanted_after,
)
from lc3jit.translator.regions.codegen import across_blocks
from lc3jit.translator.regions.codegen.across_blocks import FactsDisagreeError
from lc3jit.translator.regions.codegen.budget import STEP_TABLE_BOUND, step_table
from lc3jit.translator.regions.engine import STRICT_REGIONS
from lc3jit.translator.regions.graph import build_graph, region_graph
from lc3jit.translator.regions.return_order import loops_first
from lc3jit.translator.regions.select import layout
from lc3jit_runtime.isa import WORD_MASK, decode
from lc3jit_runtime.machine import IO_BASE

from .conftest import make_machine, run_on
from .machine_code import HALT, op
from .test_differential import LOADS_FROM_ONE_BASE, ORIGIN, PUSHES, assert_same

TRANSLATORS = sorted(set(ENGINES) - {"interp"})
INCREMENT = op("ADDI", dr=0, sr1=0, imm5=1)


def assembled(source: str) -> list[int]:
    return list(assemble(source).images[0].words)


def plain(start: int, length: int) -> Block:
    """A block of `length` increments: for analyses that read only lengths and edges."""
    return Block(start, tuple(decode(INCREMENT, start + i) for i in range(length)), Exit.FALLTHROUGH)


def block_of(start: int, *words: int) -> Block:
    return Block(start, tuple(decode(w, start + i) for i, w in enumerate(words)), Exit.FALLTHROUGH)


def found(words: list[int]) -> list[Block]:
    """The blocks of words at x3000, laid out as a region rooted there."""
    memory = [0] * 0x10000
    memory[ORIGIN : ORIGIN + len(words)] = words
    return layout(list(find_blocks(memory, [ORIGIN]).values()))


def test_a_loop_head_checks_for_the_longest_way_to_the_next_check() -> None:
    a, b, c = plain(0x10, 2), plain(0x20, 3), plain(0x30, 4)
    graph = build_graph([a, b, c], [a.start], {a.start: [b.start], b.start: [a.start, c.start], c.start: []})
    budget = budget_checks(graph)
    assert budget.checks == {a.start: 2 + 3 + 4}
    assert budget.entry_rooms == {}


def test_an_entry_that_heads_no_loop_is_checked_on_entry() -> None:
    a, b = plain(0x10, 2), plain(0x20, 5)
    graph = build_graph([a, b], [a.start, b.start], {a.start: [b.start], b.start: []})
    budget = budget_checks(graph)
    assert budget.checks == {}
    assert budget.entry_rooms == {a.start: 7, b.start: 5}


def test_a_loop_whose_every_cycle_passes_an_inner_check_checks_nothing_itself() -> None:
    """The inner loop's check bounds every way round the outer loop too: the outer head,
    a back edge's target, only counts (the fewer checks, the less a key costs under an OS)."""
    a, b = plain(0x10, 2), plain(0x20, 3)
    graph = build_graph([a, b], [a.start], {a.start: [b.start], b.start: [b.start, a.start]})
    budget = budget_checks(graph)
    assert budget.checks == {b.start: 3 + 2}
    assert budget.entry_rooms == {a.start: 2}


def test_a_check_at_a_return_moves_to_the_one_block_that_runs_into_it() -> None:
    """The returns of a routine with two calls go round RET -> SECOND -> RET: the check
    that cuts that cycle is at SECOND (run when a return comes back there), not at the RET
    (run on every return); the routine's entry keeps its own."""
    words = assembled(REGION_PROGRAMS["two calls"])
    graph = region_graph(found(words), [ORIGIN])
    second, ret, fib = ORIGIN + 17, ORIGIN + 21, ORIGIN + 5
    assert graph.edges[second] == (ret,)
    assert set(budget_checks(graph).checks) == {fib, second}
    machine, display = make_machine(words, ORIGIN)
    run = run_on("regions", machine, display, max_steps=None)
    assert (run.outcome.reason, machine.reg[0], machine.reg[6]) == ("halt", 34, 0x4000)


def test_a_return_compares_the_call_made_in_a_loop_first() -> None:
    words = assembled(
        """        .ORIG x3000
        JSR SUB
LOOP    JSR SUB
        ADD R0, R0, #-1
        BRp LOOP
        HALT
SUB     ADD R1, R1, #1
        RET
        .END"""
    )
    graph = region_graph(found(words), [ORIGIN])
    assert graph.returns[0x3005] == (0x3001, 0x3002)
    assert loops_first(graph)[0x3005] == (0x3002, 0x3001)


def test_a_block_run_into_straight_from_its_one_way_in_is_prepaid() -> None:
    """x3000 ADD; BRz x3004 | x3002 ADD; ADD | x3004 HALT: the branch not taken runs on into
    x3002, counted with x3000; x3004 has two ways in and counts itself."""
    blocks = found([INCREMENT, op("BR", nzp=0b010, pcoffset9=2), INCREMENT, INCREMENT, HALT])
    graph = region_graph(blocks, [ORIGIN])
    paid_by = prepaid(graph, budget_checks(graph).checks)
    assert paid_by == {ORIGIN + 2: ORIGIN}
    assert chains(graph, paid_by) == {ORIGIN: 2, ORIGIN + 2: 0, ORIGIN + 4: 0}


def test_a_loop_no_entry_reaches_is_analysed() -> None:
    """x3000 RET | x3001 ADD -> x3002 BRnz x3001, its x3003 outside: the loop is no entry's (a return point
    whose RET lies outside the region is such code): each block is the other's one way in,
    run straight on into, and the chain they pay for each other stops where it comes round."""
    loop = Block(ORIGIN + 2, (decode(op("BR", nzp=0b110, pcoffset9=-2), ORIGIN + 2),), Exit.BRANCH)
    blocks = [found([op("JMP", baser=7)])[0], block_of(ORIGIN + 1, INCREMENT), loop]
    graph = build_graph(blocks, [ORIGIN], {ORIGIN: [], ORIGIN + 1: [ORIGIN + 2], ORIGIN + 2: [ORIGIN + 1]})
    facts = analyse(graph, access_control=False)
    assert facts.paid_by == {ORIGIN + 1: ORIGIN + 2, ORIGIN + 2: ORIGIN + 1}
    assert facts.ahead == {ORIGIN: 0, ORIGIN + 1: 2, ORIGIN + 2: 1}


def test_liveness_goes_round_loops() -> None:
    """A: ADD R1, R2, R3 -> B: ADD R4, R1, #0 -> A: B reads R1, which A writes; A reads R2, R3."""
    a = block_of(0x10, op("ADD", dr=1, sr1=2, sr2=3))
    b = block_of(0x20, op("ADDI", dr=4, sr1=1, imm5=0))
    graph = build_graph([a, b], [a.start], {a.start: [b.start], b.start: [a.start]})
    live = {start: registers_of(mask) for start, mask in live_masks(graph).items()}
    assert live == {a.start: {2, 3}, b.start: {1, 2, 3}}


@pytest.mark.parametrize(
    ("then", "unwrapped"),
    [(op("BR", nzp=0b011, pcoffset9=0), {3}), (op("STR", sr=3, baser=6, offset6=0), set())],
)
def test_a_sum_only_branched_on_stays_unwrapped_into_the_next_block(then: int, unwrapped: set[int]) -> None:
    """A: ADD R3, R2, R4 -> B: a branch (R3 dead: a sum not wrapped yet there) or a store of
    R3 (read as a word: wrapped where it is made)."""
    a = block_of(0x10, op("ADD", dr=3, sr1=2, sr2=4))
    b = block_of(0x20, then)
    graph = build_graph([a, b], [a.start], {a.start: [b.start], b.start: []})
    exact = region_exact_results(graph, wanted_after(graph, live_masks(graph)), access_control=False)
    assert exact[a.start] == [not unwrapped]
    assert unwrapped_registers(graph, exact)[b.start] == unwrapped
    facts = analyse(graph, access_control=False)
    assert facts.unwrapped == unwrapped_registers(graph, exact)
    assert facts.entries == (a.start,)


def test_under_access_control_every_result_is_exact() -> None:
    a = block_of(0x10, op("ADD", dr=3, sr1=2, sr2=4))
    b = block_of(0x20, op("BR", nzp=0b011, pcoffset9=0))
    graph = build_graph([a, b], [a.start], {a.start: [b.start], b.start: []})
    assert analyse(graph, access_control=True).unwrapped == {a.start: set(), b.start: set()}


REGION_PROGRAMS = {
    # A loop left from its middle when a counter runs out.
    "exit mid-loop": """
        .ORIG x3000
        AND R1, R1, #0
        ADD R2, R1, #15
LOOP    ADD R1, R1, #1
        ADD R3, R1, #-9
        BRz LEAVE
        ADD R2, R2, #-1
        BRp LOOP
LEAVE   HALT
        .END""",
    # The loop rewrites its own ADD immediate while it runs.
    "store into running loop": """
        .ORIG x3000
        AND R1, R1, #0
        LD R4, PATCH
        AND R2, R2, #0
        ADD R2, R2, #6
LOOP    ADD R1, R1, #1
        ST R4, LOOP
        ADD R2, R2, #-1
        BRp LOOP
        HALT
PATCH   ADD R1, R1, #3
        .END""",
    # Codes set by an ADD and seen only after a store (or a stop) that could leave, or
    # after their register changed; sums left unwrapped between register-to-register
    # instructions; values that wrap.
    "codes and sums": """
        .ORIG x3000
        LD R6, STACK
        LD R0, START
LOOP    ADD R6, R6, #-1
        STR R0, R6, #0
        ADD R1, R0, R0
        ADD R1, R1, R1
        ADD R1, R1, R0
        NOT R2, R1
        AND R2, R2, R1
        ADD R3, R3, R1
        ADD R0, R0, #-15
        ADD R4, R0, #0
        LEA R4, LOOP        ; sets no codes: BRp sees those of R4's old value
        BRp LOOP
        ADD R5, R3, R2
        HALT
STACK   .FILL x4000
START   .FILL x7FF0
        .END""",
    # A difference computed only for its branch (dead on both ways: left unwrapped, tested
    # with a table), wrapping past 2^16 halfway; codes of such a sum seen in the next
    # block; a NOT of a word added to a word, only branched on; ways out (HALT, the
    # budget) that write such registers back.
    "compares across blocks": """
        .ORIG x3000
        LD R4, MINUS
        LD R2, START
        AND R5, R5, #0
LOOP    ADD R3, R2, R4
        BRzp DONE
        ADD R2, R2, #3
        ADD R5, R5, #1
        BRnzp LOOP
DONE    ADD R2, R2, #0
        ADD R3, R2, R4
        BRnzp SEEN
SEEN    BRp POS
        ADD R6, R6, #1
POS     NOT R1, R2
        ADD R1, R1, R4
        BRnp LOOP2
LOOP2   ADD R3, R3, R4
        ADD R0, R0, #-1
        BRp LOOP2
        HALT
MINUS   .FILL xE000
START   .FILL x1FC0
        .END""",
    # Pointers that a load or a store just used (so known below xFE00, and stepped on
    # without a wrap), walked into the I/O page (stores there take the slow path, devices
    # or not), around past xFFFF, and down past x0000 (used before they are wrapped).
    "pointers past xFE00": """
        .ORIG x3000
        LD R1, HIGH
        LD R2, STEPS
        LD R3, VALUE
UP      LDR R0, R1, #0
        BRz SKIP
        ADD R4, R4, #1
SKIP    STR R3, R1, #2
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp UP
        LD R1, TOP
        LD R2, STEPS
AROUND  LDR R0, R1, #1
        ADD R5, R5, R0
        ADD R1, R1, #1
        ADD R2, R2, #-1
        BRp AROUND
        LD R1, LOW
        AND R2, R2, #0
        ADD R2, R2, #6
DOWN    ADD R1, R1, #-1
        STR R3, R1, #0
        LDR R0, R1, #0
        ADD R6, R6, R0
        ADD R2, R2, #-1
        BRp DOWN
        HALT
LOW     .FILL x0003
HIGH    .FILL xFDF4
STEPS   .FILL #40
VALUE   .FILL x8041
TOP     .FILL xFFF0
        .END""",
    # A loop whose branch back leaves a prepaid chain unrun each time round (it counts and
    # checks on its way back, its codes those of the counter, not of the codes seen on
    # the way in: a budget running out there must leave them right).
    "chain after a loop": """
        .ORIG x3000
        AND R1, R1, #0
        ADD R3, R1, #12
        ADD R6, R1, #-1
LOOP    ADD R1, R1, R3
        ADD R3, R3, #-1
        BRp LOOP
        ADD R4, R1, #-1
        NOT R5, R4
        HALT
        .END""",
    # Recursion 300 deep with a stack in R6 and R7 saved on it.
    "deep recursion": """
        .ORIG x3000
        LD R6, STACK
        LD R0, DEPTH
        JSR DOWN
        HALT
DOWN    ADD R6, R6, #-1
        STR R7, R6, #0
        ADD R0, R0, #-1
        BRz BOTTOM
        JSR DOWN
BOTTOM  ADD R1, R1, #1
        LDR R7, R6, #0
        ADD R6, R6, #1
        RET
STACK   .FILL x7000
DEPTH   .FILL #300
        .END""",
    # fib(9) by the naive recursion: the rest of FIB after its second call runs on into the
    # RET its base case branches to, so returns go round RET -> SECOND -> RET.
    "two calls": """
        .ORIG x3000
        LD R6, STACK
        AND R0, R0, #0
        ADD R0, R0, #9
        JSR FIB
        HALT
FIB     ADD R1, R0, #-2
        BRn BASE
        ADD R6, R6, #-1
        STR R7, R6, #0
        ADD R6, R6, #-1
        STR R0, R6, #0
        ADD R0, R0, #-1
        JSR FIB
        LDR R1, R6, #0
        STR R0, R6, #0
        ADD R0, R1, #-2
        JSR FIB
SECOND  LDR R1, R6, #0
        ADD R0, R0, R1
        LDR R7, R6, #1
        ADD R6, R6, #2
BASE    RET
STACK   .FILL x4000
        .END""",
    # A count down to a compare with 2 (ADD R1, R0, #-2 then BRn): past the branch R0 is
    # 2..x8001, so its decrement needs no wrap; from 6, from x8002 (negative at once), from
    # 1 and from 0 (whose decrement wraps to xFFFF).
    "bounds from a compare": """
        .ORIG x3000
        LD R6, STACK
        LD R0, FIRST
        JSR COUNT
        LD R0, SECOND
        JSR COUNT
        AND R0, R0, #0
        ADD R0, R0, #1
        JSR COUNT
        AND R0, R0, #0
        JSR COUNT
        HALT
COUNT   ADD R1, R0, #-2
        BRn LOW
        ADD R0, R0, #-1
        ADD R6, R6, #-1
        STR R0, R6, #0
        BRnzp COUNT
LOW     ADD R0, R0, #-1
        ADD R6, R6, #-1
        STR R0, R6, #0
        RET
STACK   .FILL x4000
FIRST   .FILL #6
SECOND  .FILL x8002
        .END""",
}


@pytest.mark.parametrize("engine", TRANSLATORS)
@pytest.mark.parametrize("name", sorted(REGION_PROGRAMS))
@pytest.mark.parametrize("budget", [None, 1, 7, 23, 150, 601])
def test_region_cases_agree_at_any_budget(engine: str, name: str, budget: int | None) -> None:
    """Same state after any number of steps, the middle of a loop included."""
    words = assembled(REGION_PROGRAMS[name])
    runs = []
    for which in ("interp", engine):
        machine, display = make_machine(words, ORIGIN)
        runs.append(run_on(which, machine, display, max_steps=budget))
    assert_same(*runs)
    if budget is None:
        assert runs[1].outcome.reason == "halt"


@pytest.mark.parametrize("budget", range(1, 46))
def test_a_budget_running_out_on_the_way_back_to_a_loop_head_stops_as_the_interpreter(budget: int) -> None:
    """Every stop of the loop's 41 instructions and the 3 of the chain, the check on the
    way back included: the same PC, registers and codes as the interpreter."""
    words = assembled(REGION_PROGRAMS["chain after a loop"])
    runs = []
    for which in ("interp", "regions"):
        machine, display = make_machine(words, ORIGIN)
        runs.append(run_on(which, machine, display, max_steps=budget))
    assert_same(*runs)


@pytest.mark.parametrize(("added", "room", "bound"), [(-6, 0, 251), (-8, 5, 257), (2, 3, 40), (-1, 0, 2)])
def test_a_budget_step_table_holds_only_counts_that_leave_the_room(added: int, room: int, bound: int) -> None:
    """Every n from -bound below bound indexes the table: n + added where that leaves the
    room and stays below the bound (the next step's index), else None, the plain way."""
    table = step_table(added, room, bound)
    for n in range(-bound, bound):
        wanted = n + added if n >= 0 and room <= n + added < bound else None
        assert table[n] == wanted, n


@pytest.mark.parametrize("budget", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 500, 501, 502, 503, 504, 505, 10_000])
def test_a_loop_run_on_the_grants_edges_stops_as_the_interpreter(budget: int) -> None:
    """A loop of six instructions a time round, run with budgets either side of where a
    grant runs out: every budget step (its table or the plain way) stops where the
    interpreter does."""
    source = """
        .ORIG x3000
        AND R1, R1, #0
        LD R2, COUNT
LOOP    ADD R1, R1, R2
        ADD R3, R1, #-1
        ADD R4, R3, R3
        ADD R2, R2, #-1
        BRp LOOP
        HALT
COUNT   .FILL #1000
        .END"""
    runs = []
    for which in ("interp", "regions"):
        machine, display = make_machine(assembled(source), ORIGIN)
        runs.append(run_on(which, machine, display, max_steps=budget))
    assert_same(*runs)


def endless_loop(half: int) -> list[int]:
    """A loop of about 2 * half instructions that never ends: two runs of increments,
    each cut into blocks of 50 by a branch to the next word (a block ends at 64 words),
    the branch back through a word between them (BR reaches 256 words)."""
    runs = [["        ADD R1, R1, #1"] * min(50, half - i) + ["        BRnzp #0"] for i in range(0, half, 50)]
    increments = "\n".join(line for run in runs for line in run)
    source = f"""
        .ORIG x3000
        AND R1, R1, #0
A{increments}
        BRnzp B
T       BRnzp A
B{increments}
        BRnzp T
        .END"""
    return assembled(source)


@pytest.mark.parametrize(("half", "tabled"), [(2, TABLED_BUDGET_STEPS), (245, False)])
def test_a_loop_counts_by_a_table_only_where_the_tables_stay_small(half: int, tabled: bool) -> None:
    """A loop of 9 instructions counts and checks by a table step where this Python runs
    one for less (TABLED_BUDGET_STEPS); a loop of 503, whose room would make each table
    hundreds of entries longer, by the subtraction and the compare, on every Python."""
    code = region_compiler(found(endless_loop(half)), 3).compile()
    tables = [c for c in code.co_consts if isinstance(c, tuple)]
    assert bool(tables) == tabled
    assert all(len(table) <= 2 * STEP_TABLE_BOUND for table in tables)


@pytest.mark.parametrize("budget", [1, 502, 503, 504, 1006, 1007, 5000])
def test_a_long_loop_counted_without_tables_stops_as_the_interpreter(budget: int) -> None:
    runs = []
    for which in ("interp", "regions"):
        machine, display = make_machine(endless_loop(245), ORIGIN)
        runs.append(run_on(which, machine, display, max_steps=budget))
    assert_same(*runs)


def locals_stored(name: str, run: Callable[[], object]) -> Counter[str]:
    """How many times each local of the code objects called `name` was stored while `run`
    ran: by sys.monitoring's INSTRUCTION events where Python has them (3.12+; 3.12's
    `sys.settrace` sends no opcode events into these code objects at all), else by opcode
    tracing (3.11)."""
    stored: Counter[str] = Counter()
    writes: dict[CodeType, dict[int, tuple[str, ...]]] = {}

    def stores(code: CodeType) -> dict[int, tuple[str, ...]]:
        if code not in writes:
            writes[code] = {
                ins.offset: ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
                for ins in dis.get_instructions(code)
                if ins.opname.startswith("STORE_FAST")
            }
        return writes[code]

    if hasattr(sys, "monitoring"):
        mon = sys.monitoring
        tool = mon.DEBUGGER_ID

        def instruction(code: CodeType, offset: int) -> object:
            if code.co_name != name:
                return mon.DISABLE
            stored.update(stores(code).get(offset, ()))
            return None

        mon.use_tool_id(tool, "lc3jit-test")
        try:
            mon.register_callback(tool, mon.events.INSTRUCTION, instruction)
            mon.set_events(tool, mon.events.INSTRUCTION)
            run()
        finally:
            mon.set_events(tool, 0)
            mon.register_callback(tool, mon.events.INSTRUCTION, None)
            mon.free_tool_id(tool)
        return stored

    def opcode(frame: FrameType, event: str, _: object) -> object:
        if event == "opcode":
            stored.update(stores(frame.f_code).get(frame.f_lasti, ()))
        return opcode

    def call(frame: FrameType, event: str, _: object) -> object:
        if frame.f_code.co_name != name:
            return None
        frame.f_trace_opcodes = True
        return opcode

    sys.settrace(call)
    try:
        run()
    finally:
        sys.settrace(None)
    return stored


def test_the_way_back_to_a_loop_head_counts_once_and_leaves_the_codes_in_their_register() -> None:
    """Each time round, the branch back counts the loop (less the chain it gives back) in
    one store to `n`, and never copies the codes to `cc`: the loop's first ADD sets them
    (giving back the chain's count, then counting the loop, copying the codes to `cc` for
    the loop head's check: 25 stores to `n` and 13 to `cc`)."""
    machine, _ = make_machine(assembled(REGION_PROGRAMS["chain after a loop"]), ORIGIN)
    engine = ENGINES["regions"](machine)
    stored = locals_stored(f"region_x{ORIGIN:04X}", lambda: engine.run(None))
    assert (machine.reg[1], machine.reg[5]) == (78, 0xFFB2)  # 12 + 11 + ... + 1, NOT (78 - 1)
    assert stored["cc"] <= 2, stored  # at entry and on the way in, never round the loop
    assert 12 <= stored["n"] <= 12 + 2, stored  # the grant, the first count, one a time round


def test_a_branch_off_the_chain_gives_back_and_counts_its_target_in_one_store() -> None:
    """A branch taken off a prepaid chain, into a block with two ways in (which counts
    itself), gives back the chain's count not run and counts the block as one `n -= k`,
    going past the block's own count: two stores to `n` a time round (that one and the
    way back's), not three; the count stays exact."""
    source = """
        .ORIG x3000
        AND R1, R1, #0
        ADD R2, R1, #10
LOOP    ADD R1, R1, #1
        ADD R3, R1, #-16
        BRn SKIP
        ADD R4, R4, #1
        ADD R4, R4, #2
SKIP    ADD R2, R2, #-1
        BRp LOOP
        HALT
        .END"""
    machine, _ = make_machine(assembled(source), ORIGIN)
    engine = ENGINES["regions"](machine)
    stored = locals_stored(f"region_x{ORIGIN:04X}", lambda: engine.run(None))
    assert machine.icount == 2 + 10 * 5 + 1  # each time round: LOOP to BRn, then SKIP's two
    assert (machine.reg[1], machine.reg[2], machine.reg[4]) == (10, 0, 0)
    assert 2 * 10 <= stored["n"] <= 2 * 10 + 3, stored  # the grant, the first count, two a time round


def test_a_difference_only_branched_on_is_not_wrapped() -> None:
    """The usual compare (ADD R3, R2, R4 then BRzp, R3 written again before anything
    reads it) costs no wrap in a region: only the sums the loop goes on to use do."""
    words = assembled(REGION_PROGRAMS["compares across blocks"])
    machine, _ = make_machine(words, ORIGIN)
    blocks = find_blocks(machine.mem, [ORIGIN])
    region = region_blocks(blocks, ORIGIN)
    code = region_compiler(region, machine.edition).compile()
    compared = {ORIGIN + 3: "ADD R3, R2, R4", ORIGIN + 5: "ADD R2, R2, #3"}
    wraps = {at: 0 for at in compared}  # compares with xFFFF (ways out wrap with `&`, aside)
    listing = list(dis.get_instructions(code))
    for constant, compare in itertools.pairwise(listing):
        line = compare.positions.lineno if compare.positions else None
        if line in wraps and constant.argval == WORD_MASK and compare.opname == "COMPARE_OP":
            wraps[line] += 1
    assert wraps == {ORIGIN + 3: 0, ORIGIN + 5: 1}, compared


def test_a_compare_bounds_the_register_it_was_made_from() -> None:
    """ADD R1, R0, #-2 then BRn: on the way on, R0 is 2..x8001, and the decrement of R0
    there costs no wrap; the one past the taken way (R0 may be 0) keeps its wrap."""
    words = assembled(REGION_PROGRAMS["bounds from a compare"])
    machine, display = make_machine(words, ORIGIN)
    code = region_compiler(
        region_blocks(find_blocks(machine.mem, [ORIGIN]), ORIGIN), machine.edition
    ).compile()
    decrements = {ORIGIN + 13: 0, ORIGIN + 17: 0}  # the way on, the way taken: compares there
    for ins in dis.get_instructions(code):
        line = ins.positions.lineno if ins.positions else None
        if line in decrements and ins.opname == "COMPARE_OP":
            decrements[line] += 1
    assert decrements == {ORIGIN + 13: 0, ORIGIN + 17: 1}
    run = run_on("regions", machine, display, max_steps=None)
    assert (run.outcome.reason, machine.reg[0]) == ("halt", WORD_MASK)
    pushed = [5, 4, 3, 2, 1, 0, 0x8001, 0, WORD_MASK]  # from 6, x8002, 1 and 0
    assert machine.mem[0x4000 - len(pushed) : 0x4000] == pushed[::-1]


def test_loads_from_one_base_test_it_once() -> None:
    """A frame popped with LDRs from R6 at offsets 0, 1 and 3 tests R6 once, against
    xFE00 less 3; the load at -1 keeps its own tests, and after R6 moves on by 2 a load
    at it needs none. The values are those of memory."""
    words = LOADS_FROM_ONE_BASE
    machine, display = make_machine(words, ORIGIN)
    code = region_compiler(
        region_blocks(find_blocks(machine.mem, [ORIGIN]), ORIGIN), machine.edition
    ).compile()
    tests: dict[int, list[int]] = {ORIGIN + k: [] for k in (0, 2, 3, 4, 6)}
    for constant, compare in itertools.pairwise(dis.get_instructions(code)):
        line = compare.positions.lineno if compare.positions else None
        limit = constant.argval
        if line in tests and compare.opname == "COMPARE_OP" and isinstance(limit, int) and limit > 0xFD00:
            tests[line].append(limit)  # a test below the device registers (not the budget's)
    assert tests == {
        ORIGIN: [IO_BASE - 3],
        ORIGIN + 2: [],
        ORIGIN + 3: [],
        ORIGIN + 4: [IO_BASE],
        ORIGIN + 6: [],
    }
    machine.load_words(0x4000 - 1, [11, 12, 13, 14, 15, 16])
    machine.reg[6] = 0x4000
    run = run_on("regions", machine, display, max_steps=None)
    assert run.outcome.reason == "halt"
    assert [machine.reg[r] for r in (1, 7, 2, 3, 4)] == [12, 13, 15, 11, 14]


def test_a_push_is_not_wrapped_before_its_store() -> None:
    """`ADD R6, R6, #-1` then `STR R5, R6, #0`: the store's fast path takes only words,
    so the decrement has no wrap (no compare on its line), though R6 is read after."""
    machine, display = make_machine(PUSHES, ORIGIN)
    code = region_compiler(
        region_blocks(find_blocks(machine.mem, [ORIGIN]), ORIGIN), machine.edition
    ).compile()
    lines = [
        ins.positions.lineno
        for ins in dis.get_instructions(code)
        if ins.opname == "COMPARE_OP" and ins.positions
    ]
    assert ORIGIN + 2 not in lines
    machine.reg[5:8] = [2, 0x4000, 0x1234]
    run = run_on("regions", machine, display, max_steps=None)
    assert (run.outcome.reason, machine.reg[6]) == ("halt", 0x4000 - 2)
    assert machine.mem[0x4000 - 3 : 0x4000] == [1, 0x1234, 0x1234]  # R5 at 2, then R7 over it


def test_recursion_result() -> None:
    machine, display = make_machine(assembled(REGION_PROGRAMS["deep recursion"]), ORIGIN)
    run = run_on("regions", machine, display, max_steps=None)
    assert (run.outcome.reason, machine.reg[1], machine.reg[6]) == ("halt", 300, 0x7000)


def test_self_modifying_loop_result() -> None:
    """One pass adds 1, the patched passes add 3: 1 + 5 * 3."""
    machine, display = make_machine(assembled(REGION_PROGRAMS["store into running loop"]), ORIGIN)
    run = run_on("regions", machine, display, max_steps=None)
    assert (run.outcome.reason, machine.reg[1]) == ("halt", 16)


def test_a_region_the_compilers_own_checks_refuse_runs_on_the_interpreter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """known.dirty_at_entry made to miss every way in (as a bug in it would): the check
    at each jump fails, the region is refused and counted, not a traceback, and the run
    ends as the interpreter's; with STRICT_REGIONS (the suite's) the check's error is raised."""
    words = assembled(
        """
        .ORIG x3000
        AND R1, R1, #0
        ADD R2, R1, #10
LOOP    ADD R1, R1, R2
        ADD R2, R2, #-1
        BRp LOOP
        HALT
        .END
        """
    )
    missed = lambda graph, *_: {b.start: set() for b in graph.blocks}  # noqa: E731
    monkeypatch.setattr(across_blocks, "dirty_at_entry", missed)
    with pytest.raises(FactsDisagreeError, match="not written back"):
        run_on("regions", *make_machine(words))
    monkeypatch.delenv(STRICT_REGIONS)
    monkeypatch.setattr(regions_engine, "refused", [])
    expected = run_on("interp", *make_machine(words))
    actual = run_on("regions", *make_machine(words))
    assert_same(expected, actual)
    assert actual.machine.reg[1] == 55
    assert ORIGIN in regions_engine.refused
