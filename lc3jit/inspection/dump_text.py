"""A block dump for people (`lc3jit dump`): coloured on a terminal, plain in a pipe.

The text shows, with the region engine, each region's heading before its blocks, and an
integer constant that is an address (in a loaded image, or a device register) in hex. Each LC-3
instruction is followed by the bytecode generated for it, in the columns `dis` uses.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable, Mapping, Sequence
from typing import TextIO

from rich.console import Console as RichConsole
from rich.text import Text

from lc3jit.inspection.dump import BlockDump, BytecodeLine, Dump, RegionDump, bytecode_text
from lc3jit.toolchain.disasm import format_line
from lc3jit.toolchain.numbers import format_address
from lc3jit.translator.blocks import Successor


def _successor_text(successor: Successor, labels: Mapping[int, str]) -> str:
    if successor.address is None:
        return f"{successor.kind} (at run time)"
    name = labels.get(successor.address)
    return f"{successor.kind} {format_address(successor.address)}" + (f" {name}" if name else "")


def _block_heading(b: BlockDump, labels: Mapping[int, str]) -> Text:
    heading = Text()
    heading.append(f"block {format_address(b.start)}-{format_address(b.end)}", style="bold cyan")
    if b.label:
        heading.append(f" {b.label}", style="bold yellow")
    words = "word" if b.block.length == 1 else "words"
    heading.append(f"  {b.block.length} {words}, exit {b.block.exit.value}")
    if b.block.successors:
        heading.append(" -> " + ", ".join(_successor_text(s, labels) for s in b.block.successors))
    notes = []
    if b.runs is not None:
        notes.append((f"ran {b.runs}", "bold green" if b.runs else "dim"))
    if b.invalidations:
        notes.append((f"invalidated {b.invalidations}x by stores", "bold red"))
    if b.dropped:
        notes.append(("dropped", "red"))
    if b.translated_at_run_time:
        notes.append(("translated at run time", "magenta"))
    for note, style in notes:
        heading.append("  ")
        heading.append(f"[{note}]", style=style)
    return heading


def _region_heading(r: RegionDump, labels: Mapping[int, str]) -> Text:
    """One line a region: root, blocks, entries, exits, runs."""
    region = r.region
    text = Text()
    text.append(f"region {format_address(r.root)}", style="bold cyan")
    if r.label:
        text.append(f" {r.label}", style="bold yellow")
    count = len(region.blocks)
    text.append(f"  {count} block{'s' if count != 1 else ''} in one code object")
    text.append(f"; entries {' '.join(format_address(e) for e in region.entries)}")
    text.append(f"; blocks {' '.join(format_address(b.start) for b in region.blocks)}")
    if region.exits:
        text.append("; exits -> " + ", ".join(_successor_text(s, labels) for s in region.exits))
    if r.runs is not None:
        text.append("  ")
        text.append(f"[entered {r.runs}]", style="bold green" if r.runs else "dim")
    if not r.installed:
        text.append("  ")
        text.append("[dropped]", style="red")
    return text


def _bytecode_text(line: BytecodeLine, loaded: Sequence[range]) -> Text:
    """The same, for a terminal: the offset dim, the name in blue."""
    text = Text("      " + bytecode_text(line, loaded))
    name = 6 + 8
    text.stylize("dim", 0, name)
    text.stylize("blue", name, name + len(line.opname))
    return text


def _block_lines(b: BlockDump, loaded: Sequence[range]) -> Iterable[Text]:
    """Each LC-3 instruction, then the bytecode generated for it (its line number), as dis
    shows it; a region's prologue before the first, its way out after the last."""
    by_address: dict[int | None, list[BytecodeLine]] = {}
    for line in b.bytecode:
        by_address.setdefault(line.address, []).append(line)
    if b.prologue:
        yield Text("  prologue: the region's locals loaded, its entry chosen", style="italic magenta")
        yield from (_bytecode_text(line, loaded) for line in b.prologue)
    for listing in b.listing:
        yield Text("  " + format_line(listing), style="bold")
        yield from (_bytecode_text(line, loaded) for line in by_address.get(listing.address, ()))
    if b.epilogue:
        yield Text("  epilogue: the region's way out, its locals written back", style="italic magenta")
        yield from (_bytecode_text(line, loaded) for line in b.epilogue)


def in_text_order(dump: Dump, blocks: Iterable[BlockDump]) -> list[tuple[RegionDump | None, list[BlockDump]]]:
    """The blocks to show under their region's heading (regions in the order of their first
    block shown), or all under none for the block engine."""
    chosen = list(blocks)
    if not dump.regions:
        return [(None, chosen)]
    by_root = {r.root: r for r in dump.regions}
    owner = {}  # a block copied into several regions is shown with the first, as its bytecode is
    for r in dump.regions:
        for block in r.region.blocks:
            owner.setdefault(block.start, r.root)
    grouped: dict[int, list[BlockDump]] = {}
    for b in chosen:
        grouped.setdefault(owner[b.start], []).append(b)
    return [(by_root[root], members) for root, members in grouped.items()]


def write_text(dump: Dump, blocks: Iterable[BlockDump], file: TextIO, color: bool | None = None) -> None:
    """The dump for people: coloured on a terminal, plain text in a pipe (or as `color` says)."""
    out = RichConsole(
        file=file, force_terminal=color, no_color=color is False, highlight=False, soft_wrap=True
    )
    labels = {b.start: b.label for b in dump.blocks if b.label}
    for region, members in in_text_order(dump, blocks):
        if region is not None:
            out.print(_region_heading(region, labels))
            out.print()
        for b in members:
            out.print(_block_heading(b, labels))
            for line in _block_lines(b, dump.loaded):
                out.print(line)
            out.print()
    summary = Text("summary: ", style="bold")
    summary.append(
        f"{len(dump.blocks)} blocks, {dump.instructions} instructions translated, "
        f"{dump.data_words} words left as data, translated in {dump.translation_seconds * 1000:.1f} ms "
        f"(engine {dump.engine}, edition {dump.edition}, Python {platform.python_version()})"
    )
    late = sum(b.translated_at_run_time for b in dump.blocks)
    if late:
        summary.append(f"; {late} blocks translated at run time")
    out.print(summary)
    if dump.run is not None:
        run = dump.run
        invalidated = [b for b in dump.blocks if b.invalidations]
        out.print(
            Text(
                f"run: {run.stop_reason} after {run.instructions} instructions in {run.seconds * 1000:.1f} ms"
                + (f" ({run.message})" if run.message else ""),
                style="bold",
            )
        )
        if invalidated:
            out.print(
                Text(
                    "invalidated by self-modifying stores: "
                    + ", ".join(f"{format_address(b.start)} ({b.invalidations}x)" for b in invalidated),
                    style="red",
                )
            )
        out.print(Text("program output:", style="bold"))
        out.print(Text(run.output.decode("latin-1")), end="")
