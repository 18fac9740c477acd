"""TRAP: the six service routines done by the host, and the way through the vector table.

The host routines write exactly what the classic C VM writes (its IN prompt, its HALT
line), so that output can be compared byte for byte with it.
"""

from __future__ import annotations

from .errors import Halted, Leave, MachineFault
from .isa import WORD_MASK
from .machine import Machine

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable

    HostTrap = Callable[[Machine, int], None]

IN_PROMPT = b"Enter a character: "
HALT_TEXT = b"HALT\n"


def getc(m: Machine, at: int) -> None:
    """x20: read one character, no echo; R0 = its code."""
    m.reg[0] = m.read_key(at)
    if m.edition == 2:
        m.ccv = m.reg[0]


def out(m: Machine, at: int) -> None:
    """x21: write R0[7:0]."""
    m.console.put(m.reg[0])


def puts(m: Machine, at: int) -> None:
    """x22: one character per word from M[R0] until a x0000 word."""
    m.console.write(bytes(word & 0xFF for word in string_words(m, at, "PUTS")))


def string_words(m: Machine, at: int, name: str) -> list[int]:
    """The words of the string at M[R0], up to its x0000 word, read at most once around
    memory (found at C speed, not word by word).

    With no x0000 word anywhere (memory filled on purpose) the trap would never end, and
    nothing could stop it: it is one instruction, and a signal, the step limit or the
    output limit are taken between instructions. So it is a fault that does not complete
    (the PC stays on the TRAP, nothing is written), as an unknown trap vector is.
    """
    mem, start = m.mem, m.reg[0]
    try:
        return mem[start : mem.index(0, start)]
    except ValueError:
        pass
    try:
        return mem[start:] + mem[: mem.index(0, 0, start)]
    except ValueError:
        raise MachineFault(
            at, False, f"{name} at x{at:04X}: no x0000 word ends the string at x{start:04X} (all memory read)"
        ) from None


def in_(m: Machine, at: int) -> None:
    """x23: prompt, read one character, echo it; R0 = its code."""
    m.console.write(IN_PROMPT)
    key = m.read_key(at)
    m.console.put(key)
    m.reg[0] = key
    if m.edition == 2:
        m.ccv = key


def putsp(m: Machine, at: int) -> None:
    """x24: two characters per word, low byte first, until a x0000 word."""
    text = bytearray()
    for word in string_words(m, at, "PUTSP"):
        text.append(word & 0xFF)
        if word >> 8:
            text.append(word >> 8)
    m.console.write(text)


def halt(m: Machine, at: int) -> None:
    """x25: write HALT and a newline, flush, stop."""
    m.console.write(HALT_TEXT)
    m.console.flush()
    raise Halted(at, True)


HOST_TRAPS: dict[int, HostTrap] = {0x20: getc, 0x21: out, 0x22: puts, 0x23: in_, 0x24: putsp, 0x25: halt}


def trap(m: Machine, vector: int, at: int) -> int:
    """Execute TRAP vector at address `at`; return the next PC."""
    next_pc = (at + 1) & WORD_MASK
    routine = HOST_TRAPS.get(vector) if m.host_traps else None
    if routine is not None:
        if m.edition == 2:
            m.reg[7] = next_pc
        routine(m, at)
        if m.ending is not None:
            # An ending asked for meanwhile (a signal, the output limit) is taken at the
            # next instruction: leave translated code, which would go on after a host
            # routine (a loop of PUTS in one region) without looking.
            raise Leave(at, next_pc)
        return next_pc
    return m.trap_through_table(vector, at)
