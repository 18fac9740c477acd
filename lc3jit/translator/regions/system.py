"""Full-system mode inside regions: a TRAP whose routine is known goes on into it.

Under an OS every TRAP goes through the vector table to a routine of the OS, which comes
back with RTI (3rd edition) or RET (2nd) to the word after the TRAP. A region treats such
a TRAP as a call: the routine the vector table holds when the region is translated is
the call's target (a hint, like a JMP's learnt target), copied into the region when it is
small, and the routine's RTI or RET is compared with the return points of the TRAPs that
call it. At run time the TRAP helper still does the work (stack switch, pushes, R7) and
returns where the vector table says now; the region goes on inside only where that is
the routine it holds, so a vector rewritten since only costs a way out.
"""

from __future__ import annotations

from collections.abc import Mapping

from lc3jit.translator.blocks import HALT_VECTOR, Block, Exit
from lc3jit_runtime.machine import TRAP_TABLE, Machine


def trap_site(block: Block) -> bool:
    """Does the block end in a TRAP that may come back (not HALT)?"""
    return block.exit is Exit.TRAP and block.last.trapvect8 != HALT_VECTOR


def trap_routines(
    machine: Machine, blocks: Mapping[int, Block], known: Mapping[int, object]
) -> dict[int, list[int]]:
    """For each TRAP site among the blocks (by its address) that knows no routine yet, the
    routine its vector points at now: under an OS only (host traps come back at once)."""
    if machine.host_traps:
        return {}
    sites = [block for block in blocks.values() if trap_site(block) and block.end not in known]
    routines = {block.end: machine.mem[TRAP_TABLE + block.last.trapvect8] for block in sites}
    return {site: [routine] for site, routine in routines.items() if routine}
