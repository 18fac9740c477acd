"""What the Debug Adapter knows of a program beyond its words: source lines and calls.

An editor speaks in source lines, the machine in addresses. `Program` loads the files as
`lc3jit run` does, keeping what the assembler knows: which words are instructions and the
line each came from (an `.obj` with an `.asm` of the same name beside it, which assembles
to the same words, borrows that file's lines). A breakpoint on a line goes to the first
instruction at or after it, as debuggers move breakpoints on blank lines and comments.

The call stack is read from the machine: LC-3 has no frame pointer, so `call_chain`
takes the return points of the calls the debugger saw being made (stepping), and
otherwise those that R7 and the words on the stack (from R6) point back to, each the
address after a JSR or JSRR that reaches the routine of the frame inside it.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lc3jit.session import load_images
from lc3jit.toolchain.asm import assemble_file
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.isa import WORD_MASK, Flow, decode
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import IO_BASE, Machine

#: Words above R6 looked at for return addresses.
STACK_REACH = 64
#: Frames shown at most.
MAX_FRAMES = 32


def canonical(path: str | Path) -> str:
    """One spelling per file, so that the editor's path and the assembler's compare equal."""
    return os.path.normcase(os.path.realpath(path))


@dataclass
class Program:
    """The images of the files, with the source line of each word where a source is known."""

    images: list[Image]
    code: set[int] = field(default_factory=set)  # addresses of instructions (known from a source)
    lines: dict[int, tuple[str, int]] = field(default_factory=dict)  # address -> (canonical path, line)
    by_line: dict[str, dict[int, int]] = field(default_factory=dict)  # path -> line -> first address

    @classmethod
    def load(cls, paths: Sequence[Path], warn: Callable[[str], None]) -> Program:
        """Load as `lc3jit run` does; LC3Error for a file that cannot be loaded."""
        program = cls([])
        for path in paths:
            if path.suffix.lower() == ".asm":
                assembly = assemble_file(path)
                for warning in assembly.warnings:
                    warn(str(warning))
                program.add(list(assembly.images), assembly.code)
            else:
                images = load_images([path], warn)
                program.add(images, _twin_code(path, images))
        return program

    def add(self, images: list[Image], code: frozenset[int] | set[int]) -> None:
        self.images += images
        for image in images:
            for address, where in image.source.items():
                if address not in code:
                    continue
                self.code.add(address)
                path = canonical(where.path)
                self.lines[address] = (path, where.line)
                self.by_line.setdefault(path, {}).setdefault(where.line, address)

    @property
    def symbols(self) -> dict[str, int]:
        return {name: address for image in self.images for name, address in image.symbols.items()}

    def address_of_line(self, path: str, line: int) -> tuple[int, int] | None:
        """The instruction a breakpoint on `line` stops at, and its line: the first at or
        after it in that file (None when the file has no instruction there or after)."""
        lines = self.by_line.get(canonical(path), {})
        after = [n for n in lines if n >= line]
        if not after:
            return None
        moved = min(after)
        return lines[moved], moved

    def is_return_point(self, mem: list[int], address: int) -> bool:
        """Does a call (JSR, JSRR) end just before `address`?"""
        call = (address - 1) & WORD_MASK
        return (not self.code or call in self.code) and decode(mem[call], call).form.flow is Flow.CALL


def _twin_code(path: Path, images: list[Image]) -> frozenset[int]:
    """An `.asm` beside an `.obj` lends it its source lines when it assembles to the same words;
    the images are given them in place. Any problem with the twin: no lines, silently."""
    twin = path.with_suffix(".asm")
    if len(images) != 1 or not twin.is_file():
        return frozenset()
    try:
        assembly = assemble_file(twin)
    except LC3Error:
        return frozenset()
    for candidate in assembly.images:
        if candidate.origin == images[0].origin and candidate.words == images[0].words:
            images[0] = Image(
                candidate.origin, candidate.words, images[0].name, images[0].symbols, candidate.source
            )
            return assembly.code
    return frozenset()


def routine_entries(program: Program, mem: list[int], labels: dict[int, str]) -> list[int]:
    """Addresses that start a routine: the targets of the program's JSRs, and its labels."""
    entries = set(labels)
    for image in program.images:
        for address in range(image.origin, image.end):
            if program.code and address not in program.code:
                continue
            ins = decode(mem[address], address)
            if ins.form.name == "JSR" and ins.target is not None:
                entries.add(ins.target)
    return sorted(entries)


def call_chain(
    machine: Machine, program: Program, entries: list[int], seen: list[tuple[int, int]]
) -> list[int]:
    """Return points of the calls the PC is inside, innermost first.

    `seen` holds the (return PC, R6) of calls the debugger saw being made, outermost
    first; when it has none, the chain is read from R7 and the stack (see the module's doc).
    """
    if seen:
        return [ret for ret, _ in reversed(seen)][:MAX_FRAMES]
    mem, chain = machine.mem, []
    inner = machine.pc
    candidates = [machine.reg[7]]
    sp = machine.reg[6]
    if 0 < sp < IO_BASE:
        candidates += mem[sp : min(sp + STACK_REACH, IO_BASE)]
    for ret in candidates:
        if len(chain) >= MAX_FRAMES:
            break
        if ret in chain or not program.is_return_point(mem, ret):
            continue
        call = decode(mem[(ret - 1) & WORD_MASK], (ret - 1) & WORD_MASK)
        entry = _entry(entries, inner)
        reaches = call.target == entry if call.form.name == "JSR" else entry != _entry(entries, ret)
        if reaches:
            chain.append(ret)
            inner = ret
    return chain


def _entry(entries: list[int], address: int) -> int | None:
    """The routine an address is in: the last entry at or before it."""
    index = bisect.bisect_right(entries, address) - 1
    return entries[index] if index >= 0 else None
