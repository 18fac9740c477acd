"""Addresses as a student reads them: x3005 <LOOP+2>, and the line of the .asm they came from.

The one place an address is named: the debugger, the debug adapter, the runaway diagnosis
of `lc3jit run`, traces and the grader's failures all say where the PC is this way.
Source lines come with an `.asm` (the assembler keeps them); for an `.obj` they come from
an `.asm` of the same name beside it, when it assembles to the very same words.
"""

from __future__ import annotations

import os

from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.lean import cached_property
from lc3jit_runtime.loader import Image, SourceLine, extension, loaded_at, with_extension

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Sequence

#: How far from a label an address is still shown as LABEL+n.
LABEL_REACH = 0x100


#: Labels by address and their addresses in order, by symbol table: each Simulator of a
#: program names places with the same labels (a grader's test each, and every call's
#: result says where it ended), and the assembler's rules that pick them cost more than
#: the rest of making a Simulator. At most KEPT_LABELS tables (a class's submissions).
_LABELS: dict[tuple[tuple[str, int], ...], tuple[dict[int, str], list[int]]] = {}
KEPT_LABELS = 64


def _labels(symbols: dict[str, int]) -> tuple[dict[int, str], list[int]]:
    key = tuple(symbols.items())
    known = _LABELS.get(key)
    if known is None:
        from lc3jit.toolchain.disasm import labels_by_address

        if len(_LABELS) >= KEPT_LABELS:
            _LABELS.clear()
        labels = labels_by_address(symbols)
        known = _LABELS[key] = (labels, sorted(labels))
    return known


def source_lines(images: Sequence[Image]) -> dict[int, SourceLine]:
    """The source line of each address the images load, where known (later images win)."""
    lines: dict[int, SourceLine] = {}
    for image in images:
        source = image.source or _beside(image)
        for address in range(image.origin, image.end):
            if address in source:
                lines[address] = source[address]
            else:
                lines.pop(address, None)
    return lines


def _beside(image: Image) -> dict[int, SourceLine]:
    """The source lines of an .obj from the .asm beside it, if that assembles to its words."""
    if extension(image.name).lower() == ".asm":
        return {}
    source = with_extension(image.name, ".asm")
    if not os.path.isfile(source):
        return {}
    from lc3jit.toolchain.asm import assemble_file  # only where such a file is there

    try:
        assembly = assemble_file(source)
    except LC3Error:
        return {}
    for candidate in assembly.images:
        if candidate.origin == image.origin and candidate.words == image.words:
            return candidate.source
    return {}


def nearest_label(
    labels: dict[int, str], addresses: list[int], address: int, reach: int = LABEL_REACH
) -> str | None:
    """LOOP+2: the nearest of the labels (their addresses sorted) at or before the address,
    if within reach."""
    import bisect  # only when a message names a place: not on a plain run's way

    index = bisect.bisect_right(addresses, address) - 1
    if index < 0 or address - addresses[index] > reach:
        return None
    base = addresses[index]
    return labels[base] + (f"+{address - base}" if address != base else "")


class Places:
    """Labels and source lines of the loaded program, to name addresses with."""

    def __init__(self, symbols: dict[str, int], images: Sequence[Image]) -> None:
        self.images = images
        self.symbols = symbols

    @cached_property
    def labels(self) -> dict[int, str]:
        """Labels by address (shared: never changed): looked for only when a message names
        one (the disassembler's rules, and the assembler behind them, are not on a plain
        run's way)."""
        return _labels(self.symbols)[0]

    @cached_property
    def label_addresses(self) -> list[int]:
        return _labels(self.symbols)[1]

    @cached_property
    def lines(self) -> dict[int, SourceLine]:
        """Source lines by address: looked for only when a message needs one."""
        return source_lines(self.images)

    def label(self, address: int) -> str | None:
        """LOOP+2: the nearest label at or before the address, if close."""
        return nearest_label(self.labels, self.label_addresses, address)

    def where(self, address: int) -> str:
        """x3005 <LOOP+2>: the address, and the label it is near."""
        label = self.label(address)
        return f"x{address:04X}" + (f" <{label}>" if label else "")

    def line(self, address: int) -> SourceLine | None:
        return self.lines.get(address)

    def line_text(self, address: int) -> str | None:
        """hello.asm:7: BRnzp LOOP ; again: the file's name, the line number, the line.

        An LC3Tools .obj names the file but not the line (line 0): then the file alone."""
        line = self.lines.get(address)
        if line is None:
            return None
        number = f":{line.line}" if line.line else ""
        return f"{os.path.basename(line.path)}{number}: {line.text.strip()}"

    def describe(self, address: int) -> str:
        """x3005 <LOOP+2> (hello.asm:7: BRnzp LOOP): where, and the line when known."""
        text = self.line_text(address)
        return self.where(address) + (f" ({text})" if text else "")

    def inside(self, address: int) -> bool:
        """Is the address in a loaded image?"""
        return loaded_at(self.images, address)
