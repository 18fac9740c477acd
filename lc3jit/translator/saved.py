"""Saved translations on lc3jit's side: taken from an engine just built, and the translator
that goes on where saved code ends (runtime/compiled.py has the format and the loader).

This module is imported by every compiled file that finds lc3jit installed, so it imports
the translator only when code must be translated after all.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from lc3jit_runtime.compiled import SavedBlock, SavedEngine, SavedRegion, saved_dispatcher
from lc3jit_runtime.dispatch import Dispatcher, Translation
from lc3jit_runtime.isa import WORD_MASK, decode
from lc3jit_runtime.machine import Machine

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


def translator_for(
    engine: str, edition: int, leaders: Container[int], access_control: bool
) -> BlockTranslator:
    """The translator of engine `engine` (blocks or regions), as its engine builds it."""
    from lc3jit.translator.regions import RegionTranslator
    from lc3jit.translator.translate import BlockTranslator

    kind = RegionTranslator if engine == "regions" else BlockTranslator
    return kind(edition, leaders, access_control)


class LateTranslator:
    """Translates at run time what was not saved: the dispatcher's callback, which builds
    the engine's translator at its first call."""

    def __init__(self, engine: str, edition: int, leaders: frozenset[int], access_control: bool) -> None:
        self.arguments = (engine, edition, leaders, access_control)
        self.translator: BlockTranslator | None = None

    def __call__(self, dispatcher: Dispatcher, pc: int) -> Sequence[Translation]:
        return self.built()(dispatcher, pc)

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        self.built().left_through(dispatcher, site, target)

    def built(self) -> BlockTranslator:
        if self.translator is None:
            self.translator = translator_for(*self.arguments)
        return self.translator


def restored(machine: Machine, saved: SavedEngine, engine: str, profile: bool = False) -> Dispatcher:
    """The engine from saved code, translating the rest when it gets hot, as the engine would."""
    late = LateTranslator(engine, machine.edition, saved.leaders, machine.access_control)
    return saved_dispatcher(machine, saved, late, profile)


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
