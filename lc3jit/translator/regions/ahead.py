"""Which regions the region engine translates before the run: the policy, which depends on
when and why the engine is built (before a run, at a tiered switch, for `lc3jit compile`),
and the selection of the regions it allows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lc3jit.translator.blocks import Block, find_blocks
from lc3jit.translator.regions.closing import Closing
from lc3jit.translator.regions.learning import guessed
from lc3jit.translator.regions.select import (
    LOCAL,
    Hints,
    copied_in,
    region_blocks,
    region_roots,
)
from lc3jit.translator.translate import entry_points
from lc3jit_runtime.machine import Machine

#: Ahead of the run, the regions copy the code found at most this many times over in all.
#: Every call target roots a region of up to MAX_REGION_BLOCKS blocks of the code it
#: reaches, so code where everything reaches everything (random words: a call every 16
#: words) would cost regions x blocks, quadratic: 50 s for 5.8 KB. Real programs copy it
#: about twice (2048 2.1, rogue 1.9); roots past the bound are translated when they get hot.
AHEAD_COPIES = 3
#: At a tiered run's switch, the words looked at from the entry points, and translated,
#: copies counted, at most: about 0.1-0.3 s of translating. A bigger program gets the rest
#: translated where it gets hot, within the dispatcher's share of the run
#: (Dispatcher.translate), so that its translation is paid by what it runs.
AHEAD_WORDS = 4096


@dataclass(frozen=True, slots=True)
class AheadPolicy:
    """How far translation goes before the run.

    Given `entries` (`lc3jit compile` finds more than the entry points), the whole program:
    every call target it reaches roots a region. Otherwise the regions begin at the entry
    points, at the call targets too big to be copied into their callers, and where a
    region too big for one code object leaves; built mid-run (a tiered switch: the run may
    end soon), only the `limit` words nearest to the entry points are looked at and
    translated. Nor are more words looked at than the translation budget may translate:
    the search costs what the budget allows, and nothing at `--translation-budget 0`."""

    entries: Sequence[int]
    whole: bool
    limit: int

    @classmethod
    def of(cls, machine: Machine, entries: Sequence[int] | None) -> AheadPolicy:
        whole = entries is not None
        budget = max(machine.translation_budget, 0)
        limit = min(AHEAD_WORDS, budget) if machine.start_pc is not None and not whole else budget
        return cls(entry_points(machine) if entries is None else entries, whole, limit)

    def copies(self, blocks: Mapping[int, Block]) -> int:
        """The words all the regions may hold, copies counted."""
        return min(AHEAD_COPIES * sum(block.length for block in blocks.values()), self.limit)

    def left_to_callers(
        self, root: int, blocks: Mapping[int, Block], inside: set[int], small: set[int]
    ) -> bool:
        """Is a region at root left out: a call target inside a region already, or small
        enough to be copied into its callers (unless it is rooted after all: `small`)?"""
        if self.whole or root in self.entries:
            return False
        return root in inside or (root not in small and copied_in(blocks, root))


def found_code(machine: Machine, policy: AheadPolicy, hints: Hints) -> tuple[dict[int, Block], Hints]:
    """The blocks reached from the entry points and the jump targets known (`hints`) or
    guessed from jump tables; the hints with the guesses."""
    targets = [target for seen in hints.values() for target in seen]
    blocks = find_blocks(machine.mem, [*policy.entries, *targets], machine.labels, policy.limit)
    if guesses := guessed(machine, blocks, hints):  # the targets' code is found, and inside
        hints = {**guesses, **hints}
        guessed_targets = [target for seen in guesses.values() for target in seen]
        targets += guessed_targets
        if not blocks.keys() >= set(guessed_targets):  # one search more only for code not found
            blocks = find_blocks(machine.mem, [*policy.entries, *targets], machine.labels, policy.limit)
    return blocks, hints


class AheadSelection:
    """The regions a policy allows, in the order found, within the copies it allows and
    the machine's translation budget (which they spend)."""

    def __init__(
        self, machine: Machine, blocks: Mapping[int, Block], hints: Hints, policy: AheadPolicy
    ) -> None:
        self.machine, self.blocks, self.hints, self.policy = machine, blocks, hints, policy
        self.copies = policy.copies(blocks)
        #: Words of the regions refused as too big, at most: choosing them costs about what
        #: translating them would, so choosing is bounded by the budget, as translating is.
        self.refusals = machine.translation_budget
        self.inside: set[int] = set()
        self.small: dict[int, bool] = {}  # callees known small or not (region_blocks)
        self.regions: list[list[Block]] = []
        self.closing = Closing(blocks, hints)

    def select(self) -> list[list[Block]]:
        entries = self.policy.entries
        roots = sorted(region_roots(self.blocks, entries), key=lambda root: root not in entries)
        queued, small = set(roots), set()  # small: callees rooted after all
        while roots:
            left = self.grow(roots, queued, small)
            # A small callee no region copied in (its call was the last block a region had room
            # for) roots a region of its own: left out, it was interpreted and then translated at
            # run time, after a search of REGION_SEARCH words for its few (48k words: 9 such, 5 ms
            # each, a thirtieth of translating).
            roots = [root for root in left if root not in self.inside]
            small.update(roots)
        return self.regions

    def grow(self, roots: list[int], queued: set[int], small: set[int]) -> list[int]:
        """A region at each root that fits, `roots` growing: where a region too big for one
        leaves, the next begins. Returns the small callees left to their callers."""
        left: list[int] = []
        for root in roots:
            if self.policy.left_to_callers(root, self.blocks, self.inside, small):
                if root not in self.inside:
                    left.append(root)
                continue
            if self.done():
                return []
            region = region_blocks(self.blocks, root, self.hints, self.small)
            if not self.policy.whole and root not in self.policy.entries:
                region = self.closing.closing_copies(region, self.inside)
            if self.take(region) and not self.policy.whole:
                more = self.following(region, queued)
                queued.update(more)
                # Lowest first: a region from there holds most of the others (the chain goes on
                # forward), which it then skips; in the order found, a branch's target 3 words on
                # rooted a region of 160 blocks, and the fall-through before it another of the same
                # blocks (16k words: 19,086 words translated, 16,256 so).
                roots += sorted(more)
        return left

    def take(self, region: list[Block]) -> bool:
        """Add the region if it fits the copies and the budget left (a smaller one may)."""
        size = sum(block.length for block in region)
        if size > min(self.copies, self.machine.translation_budget):
            self.refusals -= size
            return False
        self.copies -= size
        self.machine.translation_budget -= size
        self.regions.append(region)
        self.inside.update(block.start for block in region)
        return True

    def done(self) -> bool:
        """Nothing more fits, or the regions refused add up to the budget, or the run was
        asked to stop (a signal): no more regions are chosen."""
        room = min(self.copies, self.machine.translation_budget)
        return room <= 0 or self.refusals < 0 or self.machine.ending is not None

    def following(self, region: list[Block], queued: set[int]) -> list[int]:
        """Where the region leaves to code found and in no region or queue yet."""
        following = (s.address for b in region for s in b.successors if s.kind in LOCAL)
        return [a for a in following if a in self.blocks and a not in self.inside and a not in queued]
