"""Block dumps: what the translator made of a program, as records first, then text or JSON.

`inspect_program` builds an engine (and with `run`, runs it with per-block run counts) and
reads its translations back as `BlockDump` records: the LC-3 words of each block as the
disassembler lists them, its exit and successors, and the Python bytecode of its code
object as `dis` sees it, whose line numbers are LC-3 addresses. `dump_text.write_text` and
`dump_json.to_json` only lay those records out.

Blocks are read from the translator (`BlockTranslator.compiled`), not from the dispatcher's
table, so a block translated at run time (an indirect target) or dropped by a store into
its words (self-modifying code) still shows, marked as such.

A region's code opens with a prologue (the machine's registers and tables loaded into
locals, the test of which entry the dispatcher came in at) and closes with its way out (the
locals written back); both carry the root's address as their line, so `prologue` and
`epilogue` of the root block hold them apart from its instructions' own bytecode (both
are empty for every other block, and for the block engine, whose loads and stores sit with
the instructions that need them).

A new engine becomes dumpable by adding a `Dumpable` to `DUMPABLE`: how to build it with
run counts and how to read back, per translated unit, the LC-3 block and its code
object. With the region engine (`--engine regions`) a block's bytecode is the part of its
region's code object whose lines are the block's addresses, and `regions` lists each
region: its blocks, its entries (root and return points), its exits, and how many times
the dispatcher entered it (`runs` of a block then counts entries at that block only);
`regions` is empty for the block engine.
"""

from __future__ import annotations

import dis
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import CodeType

from lc3jit.toolchain.disasm import ListingLine, iter_listing, labels_by_address
from lc3jit.toolchain.numbers import format_address
from lc3jit.translator.blocks import Block
from lc3jit.translator.codegen.compiler import compile_block
from lc3jit.translator.regions import Region, region_engine
from lc3jit.translator.translate import block_engine, translator_of
from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.isa import MEMORY_WORDS
from lc3jit_runtime.loader import Image, SourceLine
from lc3jit_runtime.machine import IO_BASE, Machine


@dataclass(frozen=True, slots=True)
class BytecodeLine:
    """One bytecode instruction of a block's code object, as `dis` shows it."""

    offset: int
    address: int | None  # its line number: the LC-3 address it was generated for
    opname: str
    arg: int | None
    argrepr: str
    jump_target: bool


@dataclass(frozen=True, slots=True)
class BlockDump:
    """One translated block: its words, where it goes, its bytecode, how it fared in a run."""

    block: Block
    label: str | None
    listing: tuple[ListingLine, ...]
    bytecode: tuple[BytecodeLine, ...]
    translated_at_run_time: bool
    installed: bool  # still in the dispatcher's table at the end (not dropped by a store)
    runs: int | None  # None when the program was not run
    invalidations: int
    prologue: tuple[BytecodeLine, ...] = ()  # a region's root: its code's way in
    epilogue: tuple[BytecodeLine, ...] = ()  # a region's root: its code's way out
    code: CodeType | None = None  # the code object it is in: its own, or its region's

    @property
    def start(self) -> int:
        return self.block.start

    @property
    def end(self) -> int:
        return self.block.end

    @property
    def dropped(self) -> bool:
        """Dropped by stores into its words: the dispatcher's table no longer has it (a block
        inside a region, not one of its entries, was never in the table)."""
        return not self.installed and self.invalidations > 0


@dataclass(frozen=True, slots=True)
class RunReport:
    """How the run before the dump ended, and what the program printed."""

    stop_reason: str
    exit_code: int
    message: str
    instructions: int
    seconds: float
    output: bytes


@dataclass(frozen=True, slots=True)
class RegionDump:
    """One region: its blocks in one code object, where it is entered, where it leaves."""

    region: Region
    label: str | None
    runs: int | None  # times the dispatcher entered it, at any entry
    installed: bool

    @property
    def root(self) -> int:
        return self.region.root


@dataclass(frozen=True, slots=True)
class Dump:
    program: str
    edition: int
    engine: str
    blocks: tuple[BlockDump, ...]  # every block the translator made, by start address
    data_words: int
    translation_seconds: float  # building the engine: the ahead-of-time translation
    run: RunReport | None
    regions: tuple[RegionDump, ...] = ()  # with the region engine: its code objects
    loaded: tuple[range, ...] = ()  # the addresses of the images loaded
    source: Mapping[int, SourceLine] = field(default_factory=dict)  # .asm lines by address
    predicted: Mapping[int, Sequence[int]] = field(
        default_factory=dict
    )  # JMP/JSRR/RET -> targets learnt or guessed

    @property
    def instructions(self) -> int:
        return sum(b.block.length for b in self.blocks)

    def selected(self, start: int = 0, stop: int = MEMORY_WORDS) -> list[BlockDump]:
        """Blocks with a word in [start, stop): by address, or hottest first after a run."""
        chosen = [b for b in self.blocks if b.start < stop and b.end >= start]
        if self.run is not None:
            chosen.sort(key=lambda b: -(b.runs or 0))
        return chosen


@dataclass(frozen=True, slots=True)
class Dumpable:
    """An engine the dump can show: built with run counts, read back block by block."""

    build: Callable[[Machine, bool], Dispatcher]
    translations: Callable[[Dispatcher], Mapping[int, tuple[Block, CodeType]]]
    regions: Callable[[Dispatcher], Sequence[Region]] = lambda _: ()
    predicted: Callable[[Dispatcher], Mapping[int, Sequence[int]]] = lambda _: {}


def block_translations(dispatcher: Dispatcher) -> dict[int, tuple[Block, CodeType]]:
    """Every block the block translator compiled, with the code object that runs it.

    A block dropped by a store is compiled again for the dump: code generation is a pure
    function of the block, so this is the code that ran.
    """
    translator = translator_of(dispatcher)
    result = {}
    for start, block in translator.compiled.items():
        installed = dispatcher.blocks.get(start)
        code = installed.function.__code__ if installed else compile_block(block, translator.edition)  # type: ignore[attr-defined]
        result[start] = (block, code)
    return result


def _regions(dispatcher: Dispatcher) -> list[Region]:
    regions = translator_of(dispatcher).regions  # empty for the block engine
    return [regions[root] for root in sorted(regions)]


def region_translations(dispatcher: Dispatcher) -> dict[int, tuple[Block, CodeType]]:
    """Every block of every region, with its region's code object (the first region, by root,
    for a block copied into several)."""
    result: dict[int, tuple[Block, CodeType]] = {}
    for region in _regions(dispatcher):
        for block in region.blocks:
            result.setdefault(block.start, (block, region.code))
    return result


DUMPABLE: dict[str, Dumpable] = {
    "blocks": Dumpable(lambda machine, profile: block_engine(machine, profile=profile), block_translations),
    "regions": Dumpable(
        lambda machine, profile: region_engine(machine, profile=profile),
        region_translations,
        _regions,
        lambda dispatcher: dispatcher.translator.hints,  # type: ignore[attr-defined]
    ),
}


def bytecode_lines(code: CodeType) -> tuple[BytecodeLine, ...]:
    return tuple(
        BytecodeLine(
            i.offset,
            i.positions.lineno if i.positions else None,
            i.opname,
            i.arg,
            i.argrepr,
            i.is_jump_target,
        )
        for i in dis.get_instructions(code)
    )


def _locals_read(ins: dis.Instruction) -> tuple[str, ...]:
    """The locals a LOAD_FAST (or one of its 3.12+ variants and pairs) reads."""
    if not ins.opname.startswith("LOAD_FAST"):
        return ()
    return ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)


def region_parts(code: CodeType) -> tuple[int, int]:
    """Where a region's prologue ends and its way out begins (bytecode offsets).

    Read from the code itself, as the region compiler lays it out: the prologue loads the
    locals and, for a region with several entries, tests `entry` one entry after another,
    the root coming last (where the last test's false branch or fall-through goes); the
    way out is the only code after the prologue that reads `budget` (the count of
    instructions run), and everything after it.
    """
    code_ops = list(dis.get_instructions(code))
    tests = [i for i, ins in enumerate(code_ops) if "entry" in _locals_read(ins)]
    if tests:
        jump = next(ins for ins in code_ops[tests[-1] :] if "JUMP" in ins.opname)
        after = code_ops[code_ops.index(jump) + 1].offset
        prologue_end = jump.argval if "FALSE" in jump.opname else after
    else:
        stored = next(
            i
            for i, ins in enumerate(code_ops)
            if ins.opname.startswith("STORE_FAST")
            and "n" in (ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
        )
        prologue_end = code_ops[stored + 1].offset
    way_out = max(ins.offset for ins in code_ops if "budget" in _locals_read(ins))
    return prologue_end, max(way_out, prologue_end)


def block_listing(block: Block, symbols: dict[str, int]) -> tuple[ListingLine, ...]:
    """The block's words as they were when translated (a store may have changed memory since)."""
    image = Image(block.start, tuple(ins.word for ins in block.instructions), symbols=symbols)
    return tuple(iter_listing(image))


def inspect_program(
    machine: Machine,
    images: Sequence[Image],
    program: str,
    engine: str = "blocks",
    run: bool = False,
    max_steps: int | None = None,
    build: Callable[[Machine, bool], Dispatcher] | None = None,
) -> Dump:
    """Translate a booted machine's program (and run it, counting block runs) and read it back.

    A run needs the machine's console to be a `CapturedConsole`, whose output it reports.
    `build` builds the engine instead (from a compiled file), its translator's records filled.
    """
    dumpable = DUMPABLE[engine]
    began = time.perf_counter()
    dispatcher = (build or dumpable.build)(machine, run)
    translation_seconds = time.perf_counter() - began
    ahead = set(dumpable.translations(dispatcher))
    report = _run(machine, dispatcher, max_steps) if run else None
    symbols = {name: address for image in images for name, address in image.symbols.items()}
    labels = labels_by_address(symbols)
    runs = dispatcher.runs or {}
    roots = {id(region.code): region.root for region in dumpable.regions(dispatcher)}
    blocks = []
    read = functools.cache(bytecode_lines)
    for start, (block, code) in sorted(dumpable.translations(dispatcher).items()):
        own, prologue, epilogue = block_bytecode(block, code, roots.get(id(code)) == start, read)
        blocks.append(
            BlockDump(
                block,
                labels.get(start),
                block_listing(block, symbols),
                own,
                start not in ahead,
                start in dispatcher.blocks,
                runs.get(start, 0) if run else None,
                dispatcher.invalidations.get(start, 0),
                prologue,
                epilogue,
                code,
            )
        )
    covered = {ins.address for b in blocks for ins in b.block.instructions}
    data_words = sum(
        1 for image in images for address in range(image.origin, image.end) if address not in covered
    )
    regions = tuple(
        RegionDump(
            region,
            labels.get(region.root),
            sum(runs.get(entry, 0) for entry in region.entries) if run else None,
            region.root in dispatcher.blocks,
        )
        for region in dumpable.regions(dispatcher)
    )
    loaded = tuple(range(image.origin, image.end) for image in images)
    source = {address: line for image in images for address, line in image.source.items()}
    return Dump(
        program,
        machine.edition,
        engine,
        tuple(blocks),
        data_words,
        translation_seconds,
        report,
        regions,
        loaded,
        source,
        {site: tuple(targets) for site, targets in dumpable.predicted(dispatcher).items()},
    )


Lines = tuple[BytecodeLine, ...]


def block_bytecode(
    block: Block, code: CodeType, root: bool, read: Callable[[CodeType], Lines] = bytecode_lines
) -> tuple[Lines, Lines, Lines]:
    """A block's part of its code object, and for a region's root the prologue and way out
    apart: the block's own bytecode, the prologue, the epilogue. `read` disassembles (a
    region's code, shared by its blocks, once)."""
    words = block_words(block)
    lines = tuple(line for line in read(code) if line.address in words)
    if not root:
        return lines, (), ()
    prologue_end, way_out = region_parts(code)
    return (
        tuple(line for line in lines if prologue_end <= line.offset < way_out),
        tuple(line for line in lines if line.offset < prologue_end),
        tuple(line for line in lines if line.offset >= way_out),
    )


def block_words(block: Block) -> set[int]:
    """The addresses of a block: the lines of a region's code that belong to it."""
    return {ins.address for ins in block.instructions}


def _run(machine: Machine, dispatcher: Dispatcher, max_steps: int | None) -> RunReport:
    console = machine.console
    assert isinstance(console, CapturedConsole)
    began = time.perf_counter()
    outcome = dispatcher.run(max_steps)
    seconds = time.perf_counter() - began
    return RunReport(
        outcome.reason, outcome.exit_code, outcome.message, machine.icount, seconds, console.output
    )


OPNAME_WIDTH = 24  # as dis lays out its columns
CONSTANT_OPS = frozenset({"LOAD_CONST", "RETURN_CONST", "LOAD_SMALL_INT"})
DEVICE_REGISTERS = range(IO_BASE, MEMORY_WORDS)
LONGEST_CONSTANT = 60  # characters of a constant shown


def shown_argrepr(line: BytecodeLine, loaded: Sequence[range]) -> str:
    """What `dis` shows for the argument, with an integer that is an address in hex (x3010)
    and a long constant (a budget step's table) cut short."""
    text = line.argrepr
    if len(text) > LONGEST_CONSTANT and line.opname in CONSTANT_OPS:
        return f"{text[: LONGEST_CONSTANT - 5].rsplit(', ', 1)[0]}, ...)"
    if line.opname in CONSTANT_OPS and text.isdigit():
        value = int(text)
        if value in DEVICE_REGISTERS or any(value in words for words in loaded):
            return format_address(value)
    return text


def bytecode_text(line: BytecodeLine, loaded: Sequence[range]) -> str:
    """One bytecode instruction in the columns `dis` uses (jump target mark, offset, name, argument)."""
    marker = ">>" if line.jump_target else "  "
    arg = "" if line.arg is None else str(line.arg)
    argrepr = shown_argrepr(line, loaded)
    argrepr = f"({argrepr})" if argrepr else ""
    padding = " " * max(1, OPNAME_WIDTH - len(line.opname))
    return f"{marker}{line.offset:>5} {line.opname}{padding}{arg:>4} {argrepr}".rstrip()
