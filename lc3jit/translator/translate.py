"""The block engine: the runtime's dispatcher with this package's translator plugged in."""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from types import CodeType

from lc3jit.translator.blocks import Block, Successor, block_at, find_blocks
from lc3jit.translator.codegen.compiler import compile_block, make_function
from lc3jit_runtime.dispatch import Dispatcher, Translation
from lc3jit_runtime.machine import EXCEPTION_TABLE, TRAP_TABLE, VECTORS, Machine


@dataclass(frozen=True, slots=True)
class Region:
    """A translated region, as `lc3jit dump` shows it."""

    blocks: tuple[Block, ...]  # the root first
    entries: tuple[int, ...]
    code: CodeType

    @property
    def root(self) -> int:
        return self.blocks[0].start

    @property
    def exits(self) -> tuple[Successor, ...]:
        """Where control leaves the region: targets outside it, and those known at run time."""
        inside = {b.start for b in self.blocks}
        found = (s for b in self.blocks for s in b.successors if s.address not in inside)
        return tuple(dict.fromkeys(found))


class BlockTranslator:
    """The callback the dispatcher calls for a PC it has no code for."""

    def __init__(
        self, edition: int, leaders: Container[int] = frozenset(), access_control: bool = False
    ) -> None:
        self.edition = edition
        self.access_control = access_control  # the machine's: decides the code generated
        self.leaders = leaders
        self.compiled: dict[int, Block] = {}  # by start: the last block compiled there, for dumps
        self.regions: dict[int, Region] = {}  # by root: the last region translated there (regions)

    def translate(self, dispatcher: Dispatcher, block: Block) -> Translation:
        code = compile_block(block, self.edition, self.access_control)
        self.compiled[block.start] = block
        return Translation(block.start, block.length, make_function(code, dispatcher.globals))

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        """Blocks leave through every jump: nothing to learn."""

    def __call__(self, dispatcher: Dispatcher, pc: int) -> list[Translation]:
        leaders = {*self.leaders, *dispatcher.stops} if dispatcher.stops else self.leaders
        return [self.translate(dispatcher, block_at(dispatcher.machine.mem, pc, leaders))]


#: Blocks translated before the run at most (about a second's work); an image with more
#: code than that (or a wild one) gets the rest translated as it becomes hot.
MAX_AHEAD = 2000


def entry_points(machine: Machine) -> list[int]:
    """Where translation ahead of time starts: the start PC and, under an OS, the user
    program's first address and every entry of the trap and interrupt vector tables that
    points somewhere (its routines and handlers).

    The start PC is where the run began (`Machine.start_pc`) when the engine is built after
    it began (a tiered start): functions are rooted where they begin, so the region of a
    loop the run is in holds the whole loop, whichever of its words the run reached.
    """
    vectors = [] if machine.host_traps else machine.mem[TRAP_TABLE : EXCEPTION_TABLE + VECTORS]
    start = machine.pc if machine.start_pc is None else machine.start_pc
    program = [] if machine.program_entry is None else [machine.program_entry]
    return [start, *program, *(address for address in vectors if address)]


def block_engine(machine: Machine, profile: bool = False, entries: Sequence[int] | None = None) -> Dispatcher:
    """A dispatcher with every block reachable from the entry points translated ahead of time.

    With `profile`, each block counts its runs in `dispatcher.runs` (slower: for dumps).
    `entries` replaces the entry points (`lc3jit compile` finds more).
    """
    entries = entry_points(machine) if entries is None else entries
    # The PC reached starts one; no more words are looked at than the budget may translate.
    budget = max(machine.translation_budget, 0)
    blocks = find_blocks(machine.mem, [*entries, machine.pc], machine.labels, budget)
    translator = BlockTranslator(machine.edition, frozenset(blocks), machine.access_control)
    dispatcher = Dispatcher(machine, translator, profile)
    for block in list(blocks.values())[:MAX_AHEAD]:
        if block.length > machine.translation_budget or machine.ending is not None:
            break
        machine.translation_budget -= block.length
        dispatcher.install(translator.translate(dispatcher, block))
    return dispatcher


def translator_of(dispatcher: Dispatcher) -> BlockTranslator:
    """The translator of a block or region engine, whose records say what it translated
    (for dumps and saving)."""
    translator = dispatcher.translator
    if not isinstance(translator, BlockTranslator):
        raise TypeError(f"not an engine of this translator: {translator!r}")
    return translator
