"""Learning where jumps through registers go, at run time (and guessing it before).

A JMP or JSRR whose target is not predicted leaves its region for the dispatcher. Every
HINT_AFTER-th exit there tells the translator its target (a sample: the region's code
counts the exits in the contract's EXIT_COUNTS and calls INDIRECT); every SAMPLES-th
sample, the targets sampled often enough are learnt and the regions holding the site are
translated again with their code inside, reached by a compare. A site learns at most
MAX_HINTS targets. Before the run, the targets of jump tables the code points at are
guessed instead (jump_tables).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from lc3jit.translator.blocks import Block
from lc3jit.translator.jump_tables import guess_targets
from lc3jit.translator.regions.select import Hints, hinted_site
from lc3jit.translator.regions.system import trap_routines
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.machine import Machine

HINT_AFTER = 64
SAMPLES = 4
MAX_HINTS = 4
#: What an exit through the dispatcher and back costs, about (seconds); learning targets
#: is worth it when a site's exits took this share of the run or more.
EXIT_SECONDS = 5e-7
WORTH_LEARNING = 0.1


def guessed(machine: Machine, blocks: Mapping[int, Block], known: Hints) -> dict[int, list[int]]:
    """Targets guessed from the jump tables the code points at (jump_tables) for the blocks'
    JMP and JSRR sites that know none yet, and under an OS the routines of their TRAPs
    (system)."""
    sites = [b for b in blocks.values() if hinted_site(b) and b.end not in known]
    tables = guess_targets(machine.mem, sites, blocks, machine.labels, MAX_HINTS)
    return {**tables, **trap_routines(machine, blocks, known)}


class Learner:
    """The targets each JMP or JSRR site learnt, and what it takes to learn more."""

    def __init__(self) -> None:
        self.hints: dict[int, list[int]] = {}  # site -> targets learnt or guessed
        self.samples: dict[int, dict[int, int]] = {}  # site -> target -> samples
        self.sites: dict[int, set[int]] = {}  # site -> roots of the regions holding it

    def held(self, site: int, root: int) -> None:
        """The region rooted at root holds the site: translated again when it learns."""
        self.sites.setdefault(site, set()).add(root)

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        """A region left through the JMP or JSRR at site for target (Dispatcher.left_through).

        Called every HINT_AFTER-th exit there, with the target of that one. Every
        SAMPLES-th sample, if the site's exits took a good share of the run so far (a
        JSRR to a long routine leaves rarely for the work done: translating again would
        not pay), it learns the targets not learnt yet that got an eighth of its samples
        or more (the most sampled first), and every region that holds the site is
        translated again, those targets' code inside, if the dispatcher has time to
        translate (see Dispatcher.translate).
        """
        seen = self.samples.setdefault(site, {})
        seen[target] = seen.get(target, 0) + 1
        total = sum(seen.values())
        hints = self.hints.setdefault(site, [])
        if total % SAMPLES or len(hints) >= MAX_HINTS or not dispatcher.may_translate():
            return
        exits_took = dispatcher.exits_through(site) * EXIT_SECONDS
        if exits_took < WORTH_LEARNING * (time.perf_counter() - dispatcher.started):
            return
        frequent = [t for t, n in seen.items() if n * 8 >= total and t not in hints]
        if frequent:
            hints += sorted(frequent, key=seen.__getitem__, reverse=True)[: MAX_HINTS - len(hints)]
            for root in self.sites.get(site, ()):
                dispatcher.translate(root)
