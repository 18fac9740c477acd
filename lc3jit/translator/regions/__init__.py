"""Region translation: a loop nest or a subroutine, many blocks in ONE code object.

A region is grown from a root block (the start PC, a call target, a return point, or
a PC found hot at run time) along the edges known at translation time: taken and
fall-through branches, JSR into a subroutine and the return point after it. Inside
it, registers stay in fast locals for the whole region, blocks jump to each other
directly (back edges included, which Python source cannot express), the condition
codes stay lazy across blocks, a RET is compared against the return points of the
calls to its subroutine, and a host TRAP that comes back to the next word goes on
inside. Only the exits — indirect jumps not predicted, targets outside, RTI, faults —
go back to the dispatcher. Blocks are laid out so that the branch not taken runs
straight on, and slow paths sit out of line after them.

The dispatcher calls a region with the instruction budget it may use, which the region
hands to its counter `n` a few hundred at a time (an `n` above 256 would be a new int
object at each count: codegen.budget.Budget.grant). A block subtracts
its length on entry — with the lengths of the blocks that only it leads straight into,
given back by a branch off that chain — and a block that heads a loop leaves at its own
start, its count given back, when the budget cannot cover the longest way to the next
check (a jump back to it counts and checks on its way, then goes on past both); an
entry that heads no loop checks the same as the dispatcher enters there.
Every way out stores the number of instructions run in `N[0]`, before any helper that
may stop the machine too, so counts stay exact.

The parts, each importing only those above it:
    select     which blocks make a region, and their layout
    closing    which copies of earlier regions' blocks a region grown ahead keeps
    graph      the region as a frozen graph: blocks, edges, ways in
    analyses   functions of the graph: budget checks, prepaid chains, liveness,
               exact results and registers left unwrapped (RegionFacts)
    learning   the targets of jumps through registers, guessed and learnt at run time
    codegen/   RegionCompiler: emits the graph as the facts say, from the block
               compiler's parts (translator.codegen) and its own
    ahead      which regions are translated before the run: the policy, the selection
    engine     RegionTranslator and region_engine: the dispatcher's side
"""

from lc3jit.translator.regions.codegen.compiler import RegionCompiler, region_compiler
from lc3jit.translator.regions.engine import RegionTranslator, region_engine
from lc3jit.translator.regions.learning import MAX_HINTS
from lc3jit.translator.regions.select import region_blocks, region_entries, region_roots
from lc3jit.translator.translate import Region

__all__ = [
    "MAX_HINTS",
    "Region",
    "RegionCompiler",
    "RegionTranslator",
    "region_blocks",
    "region_compiler",
    "region_engine",
    "region_entries",
    "region_roots",
]
