"""The garbage collector and what lives until a run ends: engines, translations, loaded code.

Apart from `runtime.compiled` (which loads saved code with it) so that every run, even
one on the interpreter, can use `long_lived` without importing what loading saved code
needs.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

from .machine import Machine

TYPE_CHECKING = False  # as typing's, which a plain run does not import (issue 20)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


def long_lived(build: Callable[[Machine], T]) -> Callable[[Machine], T]:
    """The engine builder, with what lives until the run ends moved out of the garbage
    collector's sight (gc.freeze): what was alive before (the modules, the machine) and what
    the builder made (the translations, the dispatcher's tables of 65,536 entries). Collecting
    among those finds nothing and costs milliseconds each time. The collector stays paused
    until what the builder made is frozen: the first collection after a pause looks at
    everything made during it (on Python 3.11, 1.2 ms of a run that loaded its translations
    from the cache, issue 20). A builder's garbage is bounded by its translation budget, as
    when the region translator pauses the collector itself. Whoever runs the engine calls
    gc.unfreeze() when the run is over."""

    def build_long_lived(machine: Machine) -> T:
        gc.freeze()
        with collector_paused():
            engine = build(machine)
            gc.freeze()
        return engine

    return build_long_lived


@contextlib.contextmanager
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
