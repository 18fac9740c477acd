"""The region engine: the runtime's dispatcher with regions translated ahead of time, and
more translated from PCs found hot at run time."""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Container, Sequence
from itertools import chain
from types import CodeType
from typing import ParamSpec, TypeVar

from lc3jit.translator.blocks import Block, block_words, cut_blocks, find_code
from lc3jit.translator.codegen.assembler import chosen_assembler
from lc3jit.translator.codegen.compiler import make_function
from lc3jit.translator.regions.ahead import AheadPolicy, AheadSelection, found_code
from lc3jit.translator.regions.codegen.across_blocks import FactsDisagreeError
from lc3jit.translator.regions.codegen.compiler import region_compiler
from lc3jit.translator.regions.learning import Learner, guessed
from lc3jit.translator.regions.select import (
    NO_HINTS,
    Hints,
    hinted_site,
    region_blocks,
    successors_of,
)
from lc3jit.translator.translate import BlockTranslator, Region
from lc3jit_runtime.dispatch import Dispatcher, Translation
from lc3jit_runtime.machine import Machine

#: Code objects by the words, entries and options they were compiled from, shared by every
#: engine in the process once a caller that translates the same program again and again
#: turns it on (the pytest plugin: a fresh Simulator per test). Off by default, so that
#: translation times (bench, --stats) stay true.
shared_code: dict[tuple[object, ...], CodeType] | None = None

#: The words a region translated at run time is looked for in (it takes at most
#: MAX_REGION_BLOCKS blocks of them): its cost stays that of a region, not of the code
#: the PC can reach.
REGION_SEARCH = 2048
#: Words searched that cost the translation budget one instruction: a search decodes a word
#: in a sixteenth of the time a region takes to translate one. A region of a few words whose
#: search went on through a big callee then pays for that search, so that the budget bounds
#: the time translating at run time takes, searches included.
SEARCHED_PER_INSTRUCTION = 16

#: The roots of the regions refused because the compiler's own checks failed
#: (FactsDisagreeError): their code ran on the interpreter. Never expected: the tests fail on
#: any, and with this variable set (the suite sets it, for the processes it starts too)
#: the check's error is raised instead, traceback and all.
STRICT_REGIONS = "LC3JIT_STRICT_REGIONS"
refused: list[int] = []


_P = ParamSpec("_P")
_R = TypeVar("_R")


def collector_paused(translating: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run `translating` with Python's cycle collector paused (unless it already was).

    Translating allocates hundreds of thousands of small objects (an instruction object per
    bytecode, each freed by its reference count), and every 700 allocations the collector
    looked for cycles, now and then through every object the program's analysis keeps: 30%
    of translating 16k-48k words (16k: 48 -> 31 ms per 1,000 words, load 9). The work is
    bounded by the translation budget, so the garbage it leaves is too; the collector runs
    again as soon as translating is done."""

    @functools.wraps(translating)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return translating(*args, **kwargs)
        gc.disable()
        try:
            return translating(*args, **kwargs)
        finally:
            gc.enable()

    return paused


class RegionTranslator(BlockTranslator):
    """Translates a region from a PC found hot at run time, and learns where its jumps go."""

    def __init__(
        self, edition: int, leaders: Container[int] = frozenset(), access_control: bool = False
    ) -> None:
        super().__init__(edition, leaders, access_control)
        self.learner = Learner()
        self.hints = self.learner.hints  # JMP/JSRR address -> targets learnt or guessed

    @collector_paused
    def __call__(self, dispatcher: Dispatcher, pc: int) -> list[Translation]:
        stops = dispatcher.stops  # breakpoints: blocks end before them, and the region leaves there
        machine = dispatcher.machine
        targets = {target for seen in self.hints.values() for target in seen}
        leaders = {*stops, *self.leaders} if stops else self.leaders  # all the blocks: no copy
        found, searched = search(machine.mem, [pc, *targets], leaders)
        if guesses := guessed(machine, found, self.hints):
            self.hints.update(guesses)
            more = {t for seen in guesses.values() for t in seen}
            if not found.keys() >= more:
                found, again = search(machine.mem, [pc, *targets, *more], leaders)
                searched += again
        blocks = {start: block for start, block in found.items() if start not in stops}
        if pc not in blocks:  # x0000 at pc: not followed statically; a plain block will do
            translations = super().__call__(dispatcher, pc)
        else:
            translations = self.translate_region(dispatcher, region_blocks(blocks, pc, self.hints))
        # The dispatcher takes the words translated from the budget; the search's beyond them here.
        translated = len(tuple(translations[0].covered())) if translations else 0
        machine.translation_budget -= max(0, searched // SEARCHED_PER_INSTRUCTION - translated)
        return translations

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        self.learner.left_through(dispatcher, site, target)

    def translate_region(
        self, dispatcher: Dispatcher, blocks: list[Block], more_entries: Sequence[int] = ()
    ) -> list[Translation]:
        """One code object; a function for each entry (`more_entries` besides the root and
        the return points), told apart by its default `entry`. Nothing where the compiler's
        own checks failed (see `refused`)."""
        compiler = region_compiler(blocks, self.edition, self.access_control, self.hints, more_entries)
        entries = compiler.facts.entries
        sites = {b.end for b in blocks if hinted_site(b)}
        code: CodeType | None = None
        key: tuple[object, ...] = ()
        if shared_code is not None:  # the key, every word of the region, only where code is shared
            key = (tuple((b.start, *(i.word for i in b.instructions)) for b in blocks), *entries)
            learnt = ((site, *self.hints[site]) for site in sorted(sites & self.hints.keys()))
            key += (self.edition, self.access_control, *learnt)  # code differs with what jumps learnt
            key += (chosen_assembler(),)  # `bytecode` makes its own, never takes the other's
            code = shared_code.get(key)
        if code is None:
            try:
                code = compiler.compile()
            except FactsDisagreeError:
                if os.environ.get(STRICT_REGIONS):
                    raise
                refused.append(blocks[0].start)
                return []
            if shared_code is not None:
                shared_code[key] = code
        root = blocks[0].start
        self.regions[root] = Region(tuple(blocks), tuple(entries), code)
        for site in sites:
            self.learner.held(site, root)
        words = tuple(sorted(set(chain.from_iterable(map(block_words, blocks)))))
        return [
            Translation(entry, 0, make_function(code, dispatcher.globals, (entry,)), words)
            for entry in entries
        ]


def search(
    mem: Sequence[int], entries: Sequence[int], leaders: Container[int]
) -> tuple[dict[int, Block], int]:
    """The blocks of the first REGION_SEARCH or so words reached from the entries, and how
    many words were looked at."""
    code, starts = find_code(mem, entries, REGION_SEARCH)
    return cut_blocks(mem, code, starts, leaders), len(code)


@collector_paused
def region_engine(
    machine: Machine, profile: bool = False, entries: Sequence[int] | None = None, hints: Hints = NO_HINTS
) -> Dispatcher:
    """A region for every function the entry points reach, translated ahead of time; other PCs
    when they get hot.

    How far it goes ahead of time is the policy's (ahead.AheadPolicy: `entries`, which
    `lc3jit compile` gives, replace the entry points and take the whole program; a tiered
    switch, after a few hundred thousand instructions, looks at AHEAD_WORDS words), and which
    regions the selection's (ahead.AheadSelection), within the machine's translation budget.
    `hints` are targets of JMP and JSRR sites known before the run (the differential tests
    give any at all: a wrong one only costs a compare); sites without are guessed from their
    jump tables. Built after the run began (a tiered start), the regions are rooted where
    functions begin, as before a run: from the PC reached, the dispatcher interprets up to
    the next entry (in a loop, its head: every loop head is one), a few instructions.
    """
    policy = AheadPolicy.of(machine, entries)
    blocks, hints = found_code(machine, policy, hints)
    translator = RegionTranslator(machine.edition, frozenset(blocks), machine.access_control)
    translator.hints.update((site, list(seen)) for site, seen in hints.items())
    dispatcher = Dispatcher(machine, translator, profile)
    regions = AheadSelection(machine, blocks, hints, policy).select()
    for region, more in zip(regions, entries_for_ways_out(regions, hints), strict=True):
        if machine.ending is not None:  # asked to stop: what is translated so far serves
            break
        if translations := translator.translate_region(dispatcher, region, more):
            dispatcher.install_entries(translations)
    return dispatcher


def entries_for_ways_out(regions: Sequence[Sequence[Block]], hints: Hints) -> list[list[int]]:
    """For each region, the starts of its blocks where another region leaves (and that are
    not its entries already): entered there from the dispatcher, the way out goes on in
    translated code.

    Regions overlap where they copy the same code, and one that stops growing (160 blocks)
    leaves where the code goes on, which may be inside a region translated before it but
    no entry of it: the dispatcher interpreted from there, and, once the word was hot,
    translated yet another region from it (a 1k-word program: 1,400 words translated
    again at run time, 60 ms). Each such word becomes an entry of the first region that
    holds it: a few compares more where that region is entered.
    """
    roots = {region[0].start for region in regions}
    holder: dict[int, int] = {}
    for index, region in enumerate(regions):
        for block in region:
            holder.setdefault(block.start, index)
    more: list[list[int]] = [[] for _ in regions]
    for region in regions:
        starts = {block.start for block in region}
        for block in region:
            for successor in successors_of(block, hints):
                target = successor.address
                if target is None or target in starts or target in roots or target not in holder:
                    continue
                if target not in more[holder[target]]:
                    more[holder[target]].append(target)
    return more
