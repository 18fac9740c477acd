"""Translations shared by every engine a process builds for the same program: a grader
makes a fresh Simulator per test, and each would otherwise find the blocks, grow the
regions, run the analyses and compile again what the test before had just translated.

A program's translations are kept, as the translation cache saves them (a SavedEngine:
code objects, their entries and blocks), under a key made of everything translation
depends on: the engine, the edition, the start PC, and the images loaded (origin and
words of each, OS included, which also fix host traps, access control and the labels).
An engine built later for the same key installs the same code objects (functions bound
to its own machine: its memory, registers and write map), with a translator of its own
for what gets hot later, as an engine loaded from the cache does.

Code is shared only where it is the code of this machine's memory: the saved
translations remember the words they were translated from, and a machine whose memory
holds other words at any of them (a test that patched an instruction before the run, a
tiered run that rewrote its code before the switch, random fill under code the flow
reached) gets its own translation, which is not kept. Each engine keeps its own write
map, so self-modifying code drops only that machine's code.

With a TranslationCache (`cache`), a translation made in this process is also saved
there and one saved by another process is loaded: xdist workers and `lc3jit grade`'s
workers testing the same program translate it once between them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lc3jit.translator.cache import TranslationCache, restored
from lc3jit.translator.saved import covered_words, saved_engine, unchanged
from lc3jit_runtime.compiled import SavedEngine
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.machine import Machine

#: Programs kept at most (the least recently used go first): a class of 300 submissions
#: graded by two workers keeps each worker's recent ones, a few KB of code each.
CAPACITY = 64

Key = tuple[object, ...]  # a program_key
Booted = tuple[Sequence[int], int]  # memory and start PC at boot


@dataclass(frozen=True)
class Shared:
    """One program's translations and the words they were translated from."""

    saved: SavedEngine
    words: tuple[tuple[int, int], ...]  # (address, word) of every word the code covers

    def fits(self, mem: Sequence[int]) -> bool:
        return all(mem[address] == word for address, word in self.words)


class SharedTranslations:
    """Translations by program, for every engine built in this process (see the module doc)."""

    def __init__(self, cache: TranslationCache | None = None, capacity: int = CAPACITY) -> None:
        self.cache = cache
        self.capacity = capacity
        self.programs: OrderedDict[Key, Shared] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def ready(self, key: Key, machine: Machine) -> bool:
        """Are translations kept for this program that fit this machine's memory?"""
        shared = self.programs.get(key)
        return shared is not None and shared.fits(machine.mem)

    def build(
        self,
        machine: Machine,
        engine: str,
        key: Key,
        translate: Callable[[Machine], Dispatcher],
        booted: Callable[[], Booted],
    ) -> Dispatcher:
        """The engine for machine: the program's translations if kept and they fit, else
        translated by `translate` (or loaded from the cache) and kept when they are the
        code of the program as booted (`booted`: its memory and start PC)."""
        shared = self.programs.get(key)
        if shared is not None and shared.fits(machine.mem):
            self.hits += 1
            self.programs.move_to_end(key)
            return restored(machine, shared.saved, engine)
        self.misses += 1
        boot = booted()
        made: SavedEngine | None
        if self.cache is None:
            dispatcher = translate(machine)
            made = saved_engine(dispatcher)
        else:
            dispatcher = self.cache.build(machine, engine, translate, key, lambda: boot[0])
            # loaded: its translator keeps no records
            made = self.cache.loaded if self.cache.hit else saved_engine(dispatcher)
        if made is not None and unchanged(made, machine.mem, boot[0]):
            self.programs[key] = Shared(made, tuple((w, machine.mem[w]) for w in covered_words(made)))
            while len(self.programs) > self.capacity:
                self.programs.popitem(last=False)
        return dispatcher
