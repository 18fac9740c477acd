"""The machine's state as a Python caller reads and writes it: registers that wrap to 16
bits, memory by address, label or slice, and addresses written as a student writes them."""

from __future__ import annotations

from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.isa import MEMORY_WORDS, WORD_MASK
from lc3jit_runtime.machine import Machine

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import overload

    from lc3jit.simulator.base import SimulatorBase

Address = int | str
#: A label with an offset. `re` (and the literals' module) are imported only to read one:
#: a plain `lc3jit run` never does, and `re` costs 5 ms of CPU to import on 3.15.
_OFFSET = r"(.+?)([+-])(\w+|#\d+)"


class LabelError(LC3Error, KeyError):
    """A label the program does not have: names it and the labels it has (a KeyError too)."""

    def __init__(self, label: str, labels: Sequence[str] = ()) -> None:
        have = f"; its labels are {', '.join(labels)}" if labels else "; it has no labels"
        super().__init__(f"no label {label} in the program{have}")
        self.label = label
        self.labels = tuple(labels)

    def __str__(self) -> str:  # a KeyError's str is its argument's repr, quotes and all
        return str(self.args[0])


def resolve(where: Address, by_upper: Mapping[str, int]) -> int:
    """An address from an int, a label (any case: `by_upper` holds the labels upper-cased), a
    literal such as "x3000" or "#12", or a label with an offset: "LOOP+2", "TABLE-1", "DATA+x10"."""
    if isinstance(where, int):
        if not 0 <= where <= WORD_MASK:
            raise ValueError(f"not an address in x0000-xFFFF: {where}")
        return where
    if where.upper() in by_upper:
        return by_upper[where.upper()]
    import re

    from lc3jit.toolchain.numbers import parse_number

    value = parse_number(where)
    if value is None and (match := re.fullmatch(_OFFSET, where)) and match[1].upper() in by_upper:
        offset = parse_number(match[3] if match[3][0] in "xX#" else "#" + match[3])
        if offset is not None:
            value = by_upper[match[1].upper()] + (offset if match[2] == "+" else -offset)
    if value is None or not 0 <= value <= WORD_MASK:
        raise LabelError(where)
    return value


class Registers:
    """R0-R7 as a sequence: `sim.registers[3] = -1` stores xFFFF (values wrap to 16 bits)."""

    def __init__(self, machine: Machine) -> None:
        self._reg = machine.reg

    def __getitem__(self, index: int) -> int:
        return self._reg[index]

    def __setitem__(self, index: int, value: int) -> None:
        self._reg[index] = value & WORD_MASK

    def __len__(self) -> int:
        return 8

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._reg))

    def __repr__(self) -> str:
        return " ".join(f"R{i}=x{v:04X}" for i, v in enumerate(self._reg))


class Memory:
    """The 65,536 words: `sim.memory[x3100]`, `sim.memory["RESULT"]`, slices of addresses.

    Reading is raw (a device register reads as the word stored there, with no side effect);
    writing wraps to 16 bits and drops translated code that covered the word.
    """

    def __init__(self, simulator: SimulatorBase) -> None:
        self._sim = simulator

    if TYPE_CHECKING:

        @overload
        def __getitem__(self, key: Address) -> int: ...
        @overload
        def __getitem__(self, key: slice) -> list[int]: ...

    def __getitem__(self, key: Address | slice) -> int | list[int]:
        mem, address = self._sim.machine.mem, self._sim.address
        if isinstance(key, slice):
            stop = MEMORY_WORDS if key.stop is None else address(key.stop)
            return mem[address(key.start or 0) : stop]
        return mem[address(key)]

    def __setitem__(self, key: Address, value: int | Sequence[int]) -> None:
        words = [value] if isinstance(value, int) else list(value)
        address = self._sim.address(key)
        if address + len(words) > MEMORY_WORDS:
            raise ValueError(f"{len(words)} words from x{address:04X} run past xFFFF")
        self._sim.machine.load_words(address, [w & WORD_MASK for w in words])
        if self._sim.written is not None:
            self._sim.written.update(range(address, address + len(words)))
