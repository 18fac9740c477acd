"""What the registers and memory look like as lines of text: the text debugger's `regs` and
`mem`, and the same commands typed at an editor's debug console."""

from __future__ import annotations

from collections.abc import Callable

from lc3jit.api import Simulator
from lc3jit_runtime.isa import WORD_MASK, to_signed


def register_lines(sim: Simulator, where: Callable[[int], str]) -> list[str]:
    """R0-R7 (hex and signed), then the PC (where: its label), PSR, codes and count."""
    lines = [
        "  ".join(f"R{r}=x{sim.registers[r]:04X} {to_signed(sim.registers[r]):>6}" for r in row)
        for row in (range(4), range(4, 8))
    ]
    lines.append(f"PC={where(sim.pc)}  PSR=x{sim.psr:04X}  CC={sim.cond}  instructions={sim.instructions}")
    return lines


def memory_lines(sim: Simulator, labels: dict[int, str], start: int, count: int) -> list[str]:
    """count words from start (not past xFFFF): address, label, hex, signed, character."""
    lines = []
    for address in range(start, min(start + count, WORD_MASK + 1)):
        word = sim.machine.mem[address]
        char = repr(chr(word)) if 32 <= word < 127 else ""
        label = labels.get(address, "")
        lines.append(f"x{address:04X}  {label:<12} x{word:04X} {to_signed(word):>6} {char}".rstrip())
    return lines
