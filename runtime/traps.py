"""TRAP: the six service routines done by the host, and the way through the vector table.

The host routines write exactly what the classic C VM writes (its IN prompt, its HALT
line), so that output can be compared byte for byte with it.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import Halted, MachineFault
from .isa import WORD_MASK
from .machine import TRAP_TABLE, Machine

IN_PROMPT = b"Enter a character: "
HALT_TEXT = b"HALT\n"


def getc(m: Machine, at: int) -> None:
    """x20: read one character, no echo; R0 = its code."""
    m.reg[0] = m.read_key(at)
    if m.edition == 2:
        m.ccv = m.reg[0]


def out(m: Machine, at: int) -> None:
    """x21: write R0[7:0]."""
    m.console.write(bytes((m.reg[0] & 0xFF,)))


def puts(m: Machine, at: int) -> None:
    """x22: one character per word from M[R0] until a x0000 word."""
    mem, address, text = m.mem, m.reg[0], bytearray()
    while word := mem[address]:
        text.append(word & 0xFF)
        address = (address + 1) & WORD_MASK
    m.console.write(text)


def in_(m: Machine, at: int) -> None:
    """x23: prompt, read one character, echo it; R0 = its code."""
    m.console.write(IN_PROMPT)
    key = m.read_key(at)
    m.console.write(bytes((key,)))
    m.reg[0] = key
    if m.edition == 2:
        m.ccv = key


def putsp(m: Machine, at: int) -> None:
    """x24: two characters per word, low byte first, until a x0000 word."""
    mem, address, text = m.mem, m.reg[0], bytearray()
    while word := mem[address]:
        text.append(word & 0xFF)
        if word >> 8:
            text.append(word >> 8)
        address = (address + 1) & WORD_MASK
    m.console.write(text)


def halt(m: Machine, at: int) -> None:
    """x25: write HALT and a newline, flush, stop."""
    m.console.write(HALT_TEXT)
    m.console.flush()
    raise Halted(at, True)


HostTrap = Callable[[Machine, int], None]

HOST_TRAPS: dict[int, HostTrap] = {0x20: getc, 0x21: out, 0x22: puts, 0x23: in_, 0x24: putsp, 0x25: halt}


def trap(m: Machine, vector: int, at: int) -> int:
    """Execute TRAP vector at address `at`; return the next PC."""
    next_pc = (at + 1) & WORD_MASK
    routine = HOST_TRAPS.get(vector) if m.host_traps else None
    if routine is not None:
        if m.edition == 2:
            m.reg[7] = next_pc
        routine(m, at)
        return next_pc
    if m.mem[TRAP_TABLE + vector] == 0:  # no routine: not a run through zeroed memory to x0000
        what = "unknown trap vector" if m.host_traps else "undefined trap"  # as the textbook's OS says
        raise MachineFault(at, False, f"{what} x{vector:02X} at x{at:04X}")
    if m.edition == 2:
        m.reg[7] = next_pc
        return m.mem[TRAP_TABLE + vector]
    return m.enter_supervisor(TRAP_TABLE + vector, next_pc, at)
