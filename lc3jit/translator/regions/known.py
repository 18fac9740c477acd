"""What a region knows where each of its blocks starts, for the code at its OS calls.

Under an OS a region runs the OS's routines between its TRAPs and RTIs: every call
writes the registers back to R before the helper and passes a privilege check at each
routine's first words. Both are mostly known when the region is translated:

- `dirty_at_entry`: the registers (and the codes, CODES) whose locals may differ from R
  where a block starts. R holds every register after a helper that wrote the registers
  back and read them again (TRAP, RTI) and at the region's entry; only what a block sets
  since must be written back before the next helper. An OS call echoing a key writes back
  one or two registers instead of every one the region writes.
- `supervised`: the blocks in system space that every way into them inside the region
  reaches in supervisor mode (after a TRAP, or from a block in system space, which ran
  in supervisor mode or not at all); their fetch needs no check of the privilege. Entered
  from the dispatcher, the region checks it once at the entry (RegionCompiler.compile).
"""

from __future__ import annotations

from lc3jit.translator.blocks import EXIT_RTI, EXIT_TRAP, Block
from lc3jit.translator.codegen.dataflow import MASKS, register_masks, registers_of
from lc3jit.translator.regions.graph import RegionGraph
from lc3jit_runtime.isa import FORMS_BY_NAME
from lc3jit_runtime.machine import user_address

#: Stands for the condition codes in a set of registers: like a register, written back
#: (to m.ccv) only where they may have changed since R and the machine were last in step.
CODES = 8
_CODES, _R6, _R7 = 1 << CODES, 1 << 6, 1 << 7
_TRAP = FORMS_BY_NAME["TRAP"]


def dirty_at_entry(graph: RegionGraph, edition: int, inline_os_calls: bool) -> dict[int, frozenset[int]]:
    """For each block start: the registers, and CODES, that may have changed since the
    last write-back on some way there (a forward analysis to a fixed point, on bit masks:
    dataflow.MASKS)."""
    dirty = {b.start: 0 for b in graph.blocks}
    # once, not every round
    steps = {b.start: dirty_after(b, changed_by(b, edition), edition, inline_os_calls) for b in graph.blocks}
    edges = graph.edges
    changed = True
    while changed:
        changed = False
        for block in graph.blocks:
            keeps, adds = steps[block.start]
            after = (dirty[block.start] if keeps else 0) | adds
            for target in edges[block.start]:
                if after & ~dirty[target]:
                    dirty[target] |= after
                    changed = True
            if block.exit is EXIT_TRAP:  # its way back (see build_graph's ways_in)
                following = block.last.next_pc
                if following in dirty and after & ~dirty[following]:
                    dirty[following] |= after
                    changed = True
    return {start: registers_of(mask) for start, mask in dirty.items()}


def changed_by(block: Block, edition: int) -> int:
    """The registers, and CODES, the block's own instructions set (a TRAP: R7 at most),
    as a bit mask."""
    written = 0
    get = MASKS.get
    for ins in block.instructions:
        written |= _R7 if ins.form is _TRAP else (get(ins.word) or register_masks(ins))[1]
        if edition in ins.form.sets_cc:  # Instruction.sets_cc, without a call a word
            written |= _CODES
    return written


def dirty_after(block: Block, changes: int, edition: int, inline_os_calls: bool) -> tuple[bool, int]:
    """What may be dirty where the block goes on: whether what was dirty before it still
    may be, and what it adds (bit masks), `changes` its own (changed_by): nothing after
    TRAP and RTI, whose helper writes everything back and reads what it changed again;
    but the 2nd edition's TRAP may go to its routine as JSR does, setting R7
    (HelperExits.call_routine), and an OS call inlined (codegen.os_calls) writes
    nothing back and changes R6 (RTI the codes)."""
    if inline_os_calls and (block.exit is EXIT_TRAP or block.exit is EXIT_RTI):
        return True, changes | (_R6 | _CODES if block.exit is EXIT_RTI else _R6)
    if block.exit is EXIT_RTI or (block.exit is EXIT_TRAP and edition == 3):
        return False, 0
    return True, changes


def supervised(graph: RegionGraph, access_control: bool) -> frozenset[int]:
    """Starts of the blocks in system space that run in supervisor mode however control
    comes to them inside the region (none without access control: no check to save)."""
    if not access_control:
        return frozenset()

    def leaves_supervisor(start: int) -> bool:
        block = graph.by_start[start]
        if block.exit is EXIT_TRAP:  # under access control every TRAP enters the supervisor
            return True
        return block.exit is not EXIT_RTI and not (
            user_address(block.start) and user_address(block.last.address)
        )

    return frozenset(
        b.start
        for b in graph.blocks
        if not user_address(b.start) and all(leaves_supervisor(p) for p in graph.ways_in[b.start])
    )
