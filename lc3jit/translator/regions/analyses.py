"""What the region compiler must know before it emits a word: functions of a RegionGraph.

- budget_checks: which blocks check the instruction budget (every loop has one), and
  how much room each check must find;
- prepaid and chains: which blocks are counted, in advance, by the block before them;
- live_masks and wanted_after: what each block's successors may read before writing it;
- exact_results and unwrapped_registers: which results must be wrapped to 16 bits at
  once, and which registers may hold sums not wrapped yet where a block starts.
`analyse` runs them all, in the order they depend on each other, into RegionFacts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import attrgetter

from lc3jit.translator.blocks import EXIT_CALL, EXIT_RETURN, EXIT_TRAP, Block, Exit
from lc3jit.translator.codegen.dataflow import (
    MASKS,
    REGISTER_ONLY,
    exact_results,
    made_words,
    register_masks,
    registers_of,
)
from lc3jit.translator.regions.graph import RegionGraph
from lc3jit.translator.regions.loop_cuts import needed_cuts, off_returns
from lc3jit.translator.regions.select import straight_on
from lc3jit_runtime.isa import REGISTER_FIELDS

#: Blocks that end where a later block's count can be paid in advance.
STRAIGHT_EXITS = frozenset({Exit.FALLTHROUGH, Exit.LIMIT, Exit.BRANCH})


@dataclass(frozen=True, slots=True)
class Budget:
    """`checks`: the blocks that check the budget (loop heads), each with the most
    instructions that can run from its start before the next check or a way out;
    `entry_rooms`: the same room for the entries that head no loop, checked as the
    dispatcher enters there."""

    checks: dict[int, int]
    entry_rooms: dict[int, int]


def budget_checks(graph: RegionGraph) -> Budget:
    """Where the budget is checked: the targets of the back edges of a depth-first walk
    from the entries, which cut every cycle, so the other blocks only count; a block that
    checks for room for the longest path ahead never lets the count pass the budget. An
    entry that heads no loop (a return point, say) is checked as the dispatcher enters
    there, not each time the region's own code comes by."""
    edges = graph.edges
    checks: set[int] = set()
    state: dict[int, bool] = {}  # start -> still on the walk's path
    for entry in graph.entries:
        stack = [(entry, iter(edges[entry]))]
        state.setdefault(entry, True)
        while stack:
            start, successors = stack[-1]
            for target in successors:
                if state.get(target):
                    checks.add(target)  # a back edge: target heads a loop
                elif target not in state:
                    state[target] = True
                    stack.append((target, iter(edges[target])))
                    break
            else:
                state[start] = False
                stack.pop()
    returns = {b.start for b in graph.blocks if b.exit is EXIT_RETURN}
    checks = off_returns(edges, graph.ways_in, returns, needed_cuts(edges, checks))
    lengths = {b.start: b.length for b in graph.blocks}
    longest: dict[int, int] = {}

    def longest_from(start: int) -> int:  # the graph without the checks is acyclic
        if start not in longest:
            rest = [longest_from(t) for t in edges[start] if t not in checks]
            longest[start] = lengths[start] + max(rest, default=0)
        return longest[start]

    def room(start: int) -> int:
        return lengths[start] + max((longest_from(t) for t in edges[start] if t not in checks), default=0)

    return Budget(
        {start: room(start) for start in checks},
        {entry: room(entry) for entry in graph.entries if entry not in checks},
    )


def prepaid(graph: RegionGraph, checks: Mapping[int, int]) -> dict[int, int]:
    """The blocks whose count their predecessor adds to its own (start -> that predecessor):
    each has that one predecessor, which runs straight on into it after a branch or a
    plain end, and neither checks the budget nor is an entry. One count then serves a
    chain of blocks; a branch off the chain gives back what it did not run."""
    paid = {}
    for block in graph.blocks:
        into = graph.ways_in[block.start]
        if block.start in checks or block.start in graph.entries or len(into) != 1:
            continue
        before = graph.by_start[into[0]]
        if before.exit in STRAIGHT_EXITS and straight_on(before, graph.by_start) == block.start:
            paid[block.start] = before.start
    return paid


def chains(graph: RegionGraph, paid_by: Mapping[int, int]) -> dict[int, int]:
    """For each block, the instructions of the blocks after it that its count paid for."""
    paid = {payer: start for start, payer in paid_by.items()}  # one each: straight on
    lengths = {b.start: b.length for b in graph.blocks}
    ahead: dict[int, int] = {}
    for block in graph.blocks:
        walk: list[int] = []
        at: int | None = block.start
        while at is not None and at not in ahead:
            # Provisional: a chain that comes back to itself is code no entry reaches (a
            # return point whose RET is outside the region), never run; it ends there.
            ahead[at] = 0
            walk.append(at)
            at = paid.get(at)
        for start in reversed(walk):
            after = paid.get(start)
            ahead[start] = 0 if after is None else lengths[after] + ahead[after]
    return {b.start: ahead[b.start] for b in graph.blocks}


#: For each block, as bit masks: the registers it reads before writing them, and those it writes.
BlockMasks = tuple[dict[int, int], dict[int, int]]


def block_masks(graph: RegionGraph) -> BlockMasks:
    """For each block, as bit masks (dataflow.MASKS): the registers it reads before
    writing them, and those it writes."""
    reads: dict[int, int] = {}
    writes: dict[int, int] = {}
    get = MASKS.get
    for block in graph.blocks:
        read = written = 0
        for ins in block.instructions:
            r, w = get(ins.word) or register_masks(ins)
            read |= r & ~written
            written |= w
        reads[block.start], writes[block.start] = read, written
    return reads, writes


def live_masks(graph: RegionGraph, masks: BlockMasks | None = None) -> dict[int, int]:
    """For each block: the registers the region may read before writing them, from its
    start on, as a bit mask (a way out is no read: it wraps what it writes back).

    A sum that sets a register dead after its block (a difference computed only for
    the branch that follows, the usual compare) then stays unwrapped: the branch
    tests it with a table, and nothing else reads it before it is written again.
    `masks`: block_masks, where worked out already.
    """
    reads, writes = block_masks(graph) if masks is None else masks
    live, edges = dict(reads), graph.edges
    changed = True
    while changed:
        changed = False
        for block in reversed(graph.blocks):
            start = block.start
            after = 0
            for target in edges[start]:
                after |= live[target]
            now = reads[start] | (after & ~writes[start])
            if now != live[start]:
                live[start], changed = now, True
    return live


def wanted_after(graph: RegionGraph, live: Mapping[int, int]) -> dict[int, int]:
    """For each block: the registers the blocks after it go on to read (live_masks), as a
    bit mask: their locals hold words."""
    wanted = {}
    for block in graph.blocks:
        mask = 0
        for target in graph.edges[block.start]:
            mask |= live[target]
        wanted[block.start] = mask
    return wanted


def region_exact_results(
    graph: RegionGraph, wanted: Mapping[int, int], access_control: bool
) -> dict[int, list[bool]]:
    """For each block, dataflow.exact_results with what the region reads after it
    (wanted_after); a base address may be a sum not wrapped yet (a region's slow paths
    leave: codegen.device_access.DeviceAccess)."""
    return {
        b.start: exact_results(b, wanted[b.start], access_control, unwrapped_bases=True) for b in graph.blocks
    }


def unwrapped_registers(
    graph: RegionGraph, exact: Mapping[int, list[bool]], writes: Mapping[int, int] | None = None
) -> dict[int, set[int]]:
    """For each block: the registers whose locals may hold sums not wrapped yet where it
    starts (dead there, see live_registers: only a way out reads them, and wraps);
    `writes`: each block's written registers as a mask (block_masks), where worked out."""
    if writes is None:
        writes = block_masks(graph)[1]
    left: dict[int, int] = {}  # block -> registers its own last write leaves unwrapped
    get = MASKS.get
    for block in graph.blocks:
        unwrapped = 0
        for ins, is_exact in zip(block.instructions, exact[block.start], strict=True):
            written = (get(ins.word) or register_masks(ins))[1]
            if is_exact or ins.form.name not in REGISTER_ONLY:
                unwrapped &= ~(written | made_words(ins))
            else:
                unwrapped |= written
        left[block.start] = unwrapped
    into = dict.fromkeys(left, 0)
    edges = graph.edges
    changed = True
    while changed:
        changed = False
        for block in graph.blocks:
            start = block.start
            out = (into[start] & ~writes[start]) | left[start]
            for target in edges[start]:
                if out & ~into[target]:
                    into[target] |= out
                    changed = True
    return {start: set(registers_of(mask)) for start, mask in into.items()}


@dataclass(frozen=True, slots=True)
class RegionFacts:
    """Everything the analyses found, by block start where it is per block.

    `entries`: the graph's, then the blocks that check the budget (out of budget, the
    region leaves at one; entered there again, it runs on in this code, not in a region
    translated from there). `used`: the registers the region names (loaded at entry);
    `written`: those it may write (written back at every way out)."""

    entries: tuple[int, ...]
    budget: Budget
    paid_by: dict[int, int]
    ahead: dict[int, int]
    wanted: dict[int, int]
    exact: dict[int, list[bool]]
    unwrapped: dict[int, set[int]]
    used: frozenset[int]
    written: frozenset[int]


def calls_routine(graph: RegionGraph, block: Block) -> bool:
    """Does the block end in a TRAP that goes on into its routine inside the region (an
    OS's: regions.system)? In the 2nd edition that sets R7, as JSR does."""
    return block.exit is EXIT_TRAP and any(t != block.last.next_pc for t in graph.edges[block.start])


#: An instruction's register fields, and its destination (None where it has none).
_REGISTERS_NAMED, _DESTINATION = attrgetter(*REGISTER_FIELDS), attrgetter("dr")


def analyse(graph: RegionGraph, access_control: bool) -> RegionFacts:
    budget = budget_checks(graph)
    paid_by = prepaid(graph, budget.checks)
    masks = block_masks(graph)
    live = live_masks(graph, masks)
    wanted = wanted_after(graph, live)
    exact = region_exact_results(graph, wanted, access_control)
    instructions = [ins for b in graph.blocks for ins in b.instructions]
    calls = {7} if any(b.exit is EXIT_CALL or calls_routine(graph, b) for b in graph.blocks) else set()
    named = set().union(*map(_REGISTERS_NAMED, instructions)) - {None}
    return RegionFacts(
        entries=(*graph.entries, *sorted(budget.checks.keys() - set(graph.entries))),
        budget=budget,
        paid_by=paid_by,
        ahead=chains(graph, paid_by),
        wanted=wanted,
        exact=exact,
        unwrapped=unwrapped_registers(graph, exact, masks[1]),
        used=frozenset(named | calls),
        written=frozenset((set(map(_DESTINATION, instructions)) - {None}) | calls),
    )
