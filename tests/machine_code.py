"""Instruction words for tests, built through the ISA table rather than written as hex."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from lc3jit_runtime.isa import FORMS_BY_NAME

from .conftest import Run, make_machine, run_on

ORIGIN = 0x3000


def op(name: str, **fields: int) -> int:
    """The word of form `name` (a row of the ISA table) with the given fields."""
    return FORMS_BY_NAME[name].encode(**fields)


def trap(vector: int) -> int:
    return op("TRAP", trapvect8=vector)


GETC, OUT, PUTS, IN, PUTSP, HALT = (trap(vector) for vector in range(0x20, 0x26))


def branchy(words: int, seed: int = 7) -> list[int]:
    """Code as a fuzzer or a corrupt image gives it: many branches, calls and returns, each
    call target a root of its own, and most regions too big to fit a small budget."""
    rng = random.Random(seed)
    program = []
    for _ in range(words):
        kind = rng.random()
        if kind < 0.30:
            program.append(op("BR", nzp=rng.randint(1, 7), pcoffset9=rng.randint(-200, 200)))
        elif kind < 0.45:
            program.append(op("JSR", pcoffset11=rng.randint(-1000, 1000)))
        elif kind < 0.50:
            program.append(op("JMP", baser=7))
        else:
            program.append(op("ADDI", dr=rng.randint(0, 7), sr1=rng.randint(0, 7), imm5=rng.randint(-16, 15)))
    return [*program, HALT]


def execute(
    engine: str,
    words: Sequence[int],
    *,
    regs: Mapping[int, int] | None = None,
    data: Mapping[int, Sequence[int]] | None = None,
    psr: int | None = None,
    origin: int = ORIGIN,
    keys: bytes = b"",
    edition: int = 3,
    max_steps: int | None = 100_000,
) -> Run:
    """Run words from origin on engine, with registers, PSR and other memory set first."""
    machine, display = make_machine(words, origin, keys, edition)
    for number, value in (regs or {}).items():
        machine.reg[number] = value
    for address, block in (data or {}).items():
        machine.load_words(address, list(block))
    if psr is not None:
        machine.psr = psr
    return run_on(engine, machine, display, max_steps)


def write_hex(path: Path, words: Sequence[int], origin: int = ORIGIN) -> Path:
    """A `.hex` file (lc3convert format): the origin, then one word a line."""
    path.write_text("".join(f"{word:04X}\n" for word in (origin, *words)))
    return path
