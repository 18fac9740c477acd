"""Booting a machine from program images: where the run starts, with or without an OS.

Here, in the runtime, because a compiled program (`python PROGRAM.pyc`) boots itself
with nothing but this package; `lc3jit run` boots through the same function.
"""

from __future__ import annotations

from .console import Console
from .loader import Image
from .machine import Machine

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Sequence

#: Where the machine starts under an OS: the start-up code of lc3os and of the classic lc3os.obj.
OS_ENTRY = 0x0200


def boot(
    images: Sequence[Image],
    console: Console,
    edition: int = 3,
    pc: int | None = None,
    system: Sequence[Image] = (),
) -> Machine:
    """A machine with the images in memory and the PC at --pc or the first image's origin.

    With an OS (`system`, loaded first) the machine runs in full-system mode: it starts
    at x0200 in supervisor mode, and the OS gets the program's first address in R0.
    """
    machine = Machine(console, edition, full_system=bool(system))
    for image in (*system, *images):
        machine.load_words(image.origin, image.words)
    machine.labels = frozenset(a for image in (*system, *images) for a in image.symbols.values())
    start = images[0].origin if pc is None else pc
    if system:
        machine.pc, machine.reg[0] = OS_ENTRY, start
        machine.program_entry = start
    else:
        machine.pc = start
    return machine
