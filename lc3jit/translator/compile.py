"""`lc3jit compile`: a program translated ahead of time, as far as it can be, into a .pyc.

`lc3jit run` translates what the block finder reaches from the start PC (and, under an
OS, from the trap and interrupt vectors) and leaves the rest to run time. A compiled
file has no translator at run time when lc3jit is not installed, so the compiler looks
further for code that is plausibly reachable:
- labels (from a .sym file or the assembler) on words no flow reached: a subroutine
  called only through JSRR, a handler installed at run time;
- the targets of tables of addresses: a loaded word whose value is an address of the
  loaded program (a `.FILL SUB` that JSRR or JMP goes through).
A label or a table is as often data as code, and translating data costs time and
turns stores into it into slow paths. So a candidate counts only when the flow from it
looks like code: every word it reaches lies in the loaded images, decodes to a real
instruction (not the reserved opcode), and never runs into a x0000 word (.FILL 0,
.BLKW, a string's end: where the block finder stops). A table target that points into
code already reached counts when it starts a block there. Under an OS, the program's own
start (which the OS enters by RTI, from R0) is an entry too. Code that is only found at
run time (a target computed in a register) is translated then when lc3jit is installed,
and interpreted when not; either way the results are the same.

Both engines' translations are saved (regions, which `python FILE.pyc` and `lc3jit run`
use, and blocks, for `lc3jit run --engine blocks`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from lc3jit import __version__
from lc3jit.toolchain.numbers import format_address
from lc3jit.translator.blocks import UNLIKELY_CODE, Block, Exit, find_blocks
from lc3jit.translator.regions import region_engine
from lc3jit.translator.saved import pyc_bytes, saved_engine
from lc3jit.translator.translate import block_engine, entry_points, translator_of
from lc3jit_runtime.boot import boot
from lc3jit_runtime.compiled import Compiled, Report, write_atomically
from lc3jit_runtime.console import Console
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import Machine

#: The engines whose translations a compiled file holds, the one `python FILE.pyc` runs first.
SAVED_ENGINES = {"regions": region_engine, "blocks": block_engine}
#: Jumps listed by address in a report at most; the rest are counted.
LISTED = 8


def covered(blocks: Iterable[Block]) -> set[int]:
    return {ins.address for block in blocks for ins in block.instructions}


def plausible_code(mem: Sequence[int], start: int, loaded: set[int]) -> dict[int, Block] | None:
    """The blocks reached from start if they look like code (see the module doc), else None."""
    blocks = find_blocks(mem, [start])
    if start not in blocks:
        return None
    for block in blocks.values():
        if block.exit is Exit.INVALID or not covered([block]) <= loaded:
            return None
        if any(s.address is not None and mem[s.address] == UNLIKELY_CODE for s in block.successors):
            return None
    return blocks


def loaded_words(images: Iterable[Image]) -> set[int]:
    return {address for image in images for address in range(image.origin, image.end)}


def find_entries(machine: Machine, images: Sequence[Image], system: Sequence[Image] = ()) -> Report:
    """Where translation ahead of time begins, and the candidates judged to be data."""
    mem = machine.mem
    known = entry_points(machine)
    entries = [(known[0], "start"), *((address, "vector") for address in known[1:])]
    if system:  # the OS enters the program, at the address it finds in R0, by RTI
        entries.append((machine.reg[0], "program"))
        known.append(machine.reg[0])
    reached = find_blocks(mem, known, machine.labels)
    code, leaders = covered(reached.values()), set(reached)
    loaded = loaded_words((*system, *images))
    candidates = [(address, "label") for address in sorted(machine.labels)]
    for image in (*system, *images):
        for offset, value in enumerate(image.words):
            if image.origin + offset not in code and value in loaded:
                candidates.append((value, "table"))
    rejected = []
    chosen = {address for address, _ in entries}
    for address, why in dict.fromkeys(candidates):
        if address in chosen:
            continue
        if address in code:  # a table pointing at a block already found: an indirect target
            if why == "table" and address in leaders:
                entries.append((address, why))
                chosen.add(address)
            continue
        found = plausible_code(mem, address, loaded)
        if found is None:
            rejected.append((address, why))
            continue
        entries.append((address, why))
        chosen.add(address)
        code |= covered(found.values())
        leaders |= set(found)
    return Report(tuple(entries), tuple(rejected))


def indirect_jumps(blocks: Iterable[Block]) -> tuple[int, ...]:
    """The jumps whose targets are known only at run time (RET excepted: its return points
    are entries of the code after each call)."""
    return tuple(
        sorted(
            b.end
            for b in blocks
            if b.exit in (Exit.JUMP, Exit.RTI) or (b.exit is Exit.CALL and b.last.form.name == "JSRR")
        )
    )


def quiet_machine(images: Sequence[Image], edition: int, pc: int | None, system: Sequence[Image]) -> Machine:
    """The machine as `lc3jit run` boots it, with a console nothing is ever typed on."""
    return boot(images, Console(None, io.BytesIO()), edition, pc, system)


def compile_program(
    program: str,
    images: Sequence[Image],
    edition: int = 3,
    pc: int | None = None,
    system: Sequence[Image] = (),
) -> Compiled:
    """Translate everything plausibly reachable, with each saved engine."""
    report = find_entries(quiet_machine(images, edition, pc, system), images, system)
    entries = [address for address, _ in report.entries]
    engines = {}
    blocks: dict[int, Block] = {}
    for name, build in SAVED_ENGINES.items():
        dispatcher = build(quiet_machine(images, edition, pc, system), entries=entries)
        engines[name] = saved_engine(dispatcher)
        blocks.update(translator_of(dispatcher).compiled)
    report = Report(report.entries, report.rejected, indirect_jumps(blocks.values()))
    return Compiled(program, __version__, edition, pc, tuple(images), tuple(system), engines, report)


def write_compiled(compiled: Compiled, path: Path) -> int:
    """Write the .pyc (atomically, with the usual permissions); its size in bytes."""
    data = pyc_bytes(compiled)
    umask = os.umask(0)
    os.umask(umask)
    write_atomically(path, data, 0o666 & ~umask)
    return len(data)


def _addresses(addresses: Sequence[int]) -> str:
    shown = " ".join(format_address(a) for a in addresses[:LISTED])
    return shown + (f" and {len(addresses) - LISTED} more" if len(addresses) > LISTED else "")


def describe(compiled: Compiled) -> list[str]:
    """What a compiled file holds: what was translated ahead of time and what was left."""
    report = compiled.report
    images = ", ".join(f"{i.name} x{i.origin:04X}-x{i.end - 1:04X}" for i in compiled.images)
    system = f", under the OS {', '.join(i.name for i in compiled.system)}" if compiled.system else ""
    lines = [
        f"program: {images}; edition {compiled.edition}{system}; start "
        + (format_address(compiled.pc) if compiled.pc is not None else "at the first origin")
    ]
    for name, saved in compiled.engines.items():
        instructions = sum(b.length for b in saved.blocks) + len({a for r in saved.regions for a in r.words})
        units = (
            f"{len(saved.regions)} regions ({sum(len(r.entries) for r in saved.regions)} entries)"
            if saved.regions
            else f"{len(saved.blocks)} blocks"
        )
        lines.append(f"engine {name}: {units}, {instructions} instructions translated ahead of time")
    by_why: dict[str, list[int]] = {}
    for address, why in report.entries:
        by_why.setdefault(why, []).append(address)
    lines.append("translated from: " + "; ".join(f"{why} {_addresses(a)}" for why, a in by_why.items()))
    rejected: dict[str, list[int]] = {}
    for address, why in report.rejected:
        rejected.setdefault(why, []).append(address)
    left = [f"{len(a)} {why} targets that look like data ({_addresses(a)})" for why, a in rejected.items()]
    if report.indirect:
        left.append(f"the targets of {len(report.indirect)} indirect jumps at {_addresses(report.indirect)}")
    lines.append("left to run time: " + ("; ".join(left) if left else "nothing found"))
    return lines
