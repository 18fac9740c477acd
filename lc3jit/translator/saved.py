"""Saved translations on lc3jit's side: taken from an engine just built, and read back as
the records a dump shows (runtime/compiled.py has the format and the loader). Putting
them back to run is lc3jit.translator.cache's (`restored`), the one module of the
translator's side a run from the cache imports.
"""

from __future__ import annotations

from collections.abc import Sequence

from lc3jit.translator.cache import LateTranslator, translator_for
from lc3jit_runtime.compiled import SavedBlock, SavedEngine, SavedRegion
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.isa import WORD_MASK, decode
from lc3jit_runtime.machine import Machine

#: LateTranslator is here too for the compiled files written before it moved (their code imports
#: it from this module).
__all__ = ["LateTranslator", "recording_translator", "saved_block", "saved_engine"]

TYPE_CHECKING = False  # typing's, not imported by a run that loads its translations (issue 20)
if TYPE_CHECKING:
    from lc3jit.translator.blocks import Block
    from lc3jit.translator.translate import BlockTranslator


def saved_engine(dispatcher: Dispatcher) -> SavedEngine:
    """What a block or region engine translated ahead of time, before it ran."""
    from lc3jit.translator.translate import translator_of

    translator = translator_of(dispatcher)
    return SavedEngine(
        frozenset(translator.leaders),  # type: ignore[arg-type]
        tuple(
            SavedRegion(r.code, r.entries, tuple((b.start, b.length, b.exit.value) for b in r.blocks))
            for r in translator.regions.values()
        ),
        tuple(
            SavedBlock(dispatcher.blocks[start].function.__code__, start, block.length, block.exit.value)  # type: ignore[attr-defined]
            for start, block in translator.compiled.items()
            if start in dispatcher.blocks
        ),
    )


def saved_block(mem: Sequence[int], start: int, length: int, exit: str) -> Block:
    """A saved block's record, decoded again from the memory it was translated from."""
    from lc3jit.translator.blocks import Block, Exit  # for dumps: not on the cache's way

    words = [(start + i) & WORD_MASK for i in range(length)]
    return Block(start, tuple(decode(mem[a], a) for a in words), Exit(exit))


def recording_translator(machine: Machine, engine: str, saved: SavedEngine) -> BlockTranslator:
    """The engine's translator with its records (what `lc3jit dump` reads) filled in from
    saved code, as if it had translated that code itself."""
    from lc3jit.translator.translate import Region

    translator = translator_for(engine, machine.edition, saved.leaders, machine.access_control)
    mem = machine.mem
    for block in saved.blocks:
        translator.compiled[block.start] = saved_block(mem, block.start, block.length, block.exit)
    for region in saved.regions:
        blocks = tuple(saved_block(mem, *b) for b in region.blocks)
        translator.regions[blocks[0].start] = Region(blocks, region.entries, region.code)
    return translator
