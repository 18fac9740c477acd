"""The garbage collector and what lives until a run ends: the machine, engines, translations,
loaded code.

A collection traverses every young container, and a machine is made of lists of 65,536
entries (its memory and write map; an engine's tables by address): a collection that finds
them young costs 1-1.6 ms and finds nothing to free, where a whole short run takes 20.
Whether one falls on them was a lottery of allocation counts: the same program paid it or
not with another command line. So what lives until a run ends is made
`long_lived` (out of the collector's sight, `gc.freeze`), and a run (`running`) keeps it
there until the run ends. Every way to run here goes through these: `lc3jit run`, the API's
Simulator, `session.run_machine` and a compiled program.

Apart from `runtime.compiled` (which loads saved code with it) so that every run, even
one on the interpreter, can use it without importing what loading saved code needs.
"""

from __future__ import annotations

import gc

from .lean import contextmanager
from .machine import Machine

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import TypeVar

    T = TypeVar("T")


class _Freezes:
    """Whether something was frozen here since the last run ended (to be unfrozen when the
    last run ends), and how many runs are under way (a run inside another: a tool's, a
    debugger's)."""

    ours = False
    runs = 0


def _freeze() -> None:
    """gc.freeze, noted. Not asking gc.get_freeze_count whether a program froze something
    itself: it counts the frozen objects one by one, and once anything stayed frozen every
    freeze walked all of it (a single-process test suite stalled in it on 3.12). So what a
    program froze itself is unfrozen with ours when the last run ends."""
    _Freezes.ours = True
    gc.freeze()


@contextmanager
def made_long_lived() -> Iterator[None]:
    """What the block makes (a booted machine, an engine) lives until the run ends: it is
    frozen, with what was alive before (the modules), until the run ends (`running`). The
    collector stays paused until it is: the first collection after a pause looks at
    everything made during it (on Python 3.11, 1.2 ms of a run that loaded its translations
    from the cache). A block's garbage is bounded by what it loads or translates (its
    translation budget), as when the region translator pauses the collector itself."""
    _freeze()
    with collector_paused():
        yield
        gc.freeze()


def long_lived(build: Callable[[Machine], T]) -> Callable[[Machine], T]:
    """The engine builder, building under `made_long_lived`."""

    def build_long_lived(machine: Machine) -> T:
        with made_long_lived():
            return build(machine)

    return build_long_lived


@contextmanager
def running() -> Iterator[None]:
    """A run: what lives until it ends stays out of the collector's sight until then, and
    the last run to end unfreezes what runs froze (a process that goes on, a grader's, gets
    it collected as usual once it is garbage)."""
    _freeze()
    _Freezes.runs += 1
    try:
        yield
    finally:
        _Freezes.runs -= 1
        if not _Freezes.runs and _Freezes.ours:
            _Freezes.ours = False
            gc.unfreeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Loading saved code makes thousands of containers (code objects, functions, the sets
    of the dispatcher's covering map), all of them kept: collecting garbage among them,
    which their number would trigger several times, finds none and costs milliseconds."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
