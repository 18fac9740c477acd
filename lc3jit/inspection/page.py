"""The translation as one page: `lc3jit dump --html`, a self-contained file that works offline.

The page holds the control-flow graph (blocks as nodes, exits as edges of their kind,
regions as clusters, blocks coloured by their runs after `--run`) drawn as SVG here in
Python from a `layout.Layout`, the dump's records as JSON, and a small script: a click on
a block shows its LC-3 source (the `.asm` lines when the program was assembled from
source, else the disassembly) beside its Python bytecode, each bytecode line tied to the
LC-3 address it was generated for, so hovering on either side lights up the other. No
external script, style sheet or font: the file is the whole page.

The same frame serves `lc3jit bench --html`, around the bench chart of `chart.py`.
"""

from __future__ import annotations

import dis
import html
import io
import json
import math
import platform
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lc3jit.inspection.dump import BlockDump, BytecodeLine, Dump, RegionDump, bytecode_text
from lc3jit.inspection.layout import NODE_HEIGHT, NODE_WIDTH, Edge, Layout, Node, lay_out
from lc3jit.toolchain.disasm import ListingLine
from lc3jit.toolchain.numbers import format_address
from lc3jit.translator.blocks import HALT_VECTOR, Exit, Successor

if TYPE_CHECKING:
    from lc3jit.inspection.bench import ProgramBench

MARGIN = 12.0

#: Why a block ends where it ends, by its exit.
WHY = {
    Exit.FALLTHROUGH: "the next word begins another block (an entry, a label or a jump's target)",
    Exit.LIMIT: "the longest block the translator makes (64 instructions): it goes on in the next",
    Exit.BRANCH: "a branch",
    Exit.CALL: "a call",
    Exit.JUMP: "a jump to an address in a register, known at run time",
    Exit.RETURN: "a return (JMP R7), to an address known at run time",
    Exit.TRAP: "a TRAP: a service routine, then the next word",
    Exit.RTI: "a return from interrupt",
    Exit.INVALID: "a word that is no instruction (the reserved opcode)",
}


@dataclass(frozen=True, slots=True)
class GraphEdge:
    tail: int
    head: int
    kind: str  # taken, fallthrough, call, return, trap, indirect


def graph_edges(dump: Dump) -> list[GraphEdge]:
    """Every exit with a known target, each once; an indirect exit (JMP, JSRR, RET) to the
    targets the region translator learnt or guessed for it."""
    found: dict[tuple[int, int, str], None] = {}
    for b in dump.blocks:
        trap = b.block.exit is Exit.TRAP
        for successor in b.block.successors:
            if successor.address is not None:
                kind = "trap" if trap else successor.kind
                found[(b.start, successor.address, kind)] = None
        for target in dump.predicted.get(b.end, ()):
            found[(b.start, target, "indirect")] = None
    return [GraphEdge(tail, head, kind) for tail, head, kind in found]


def _name(address: int) -> str:
    return format_address(address)


def _exit_text(successor: Successor) -> str:
    where = "(at run time)" if successor.address is None else _name(successor.address)
    return f"{successor.kind} {where}"


def _heat(runs: int | None, hottest: int) -> str:
    """A block's fill: pale blue without a run, grey if it never ran, pale yellow to red by runs."""
    if runs is None:
        return "#e8f0fb"
    if runs == 0 or hottest == 0:
        return "#eeeeee"
    t = math.log1p(runs) / math.log1p(hottest)
    return f"hsl({60 - 60 * t:.0f}, 90%, {90 - 32 * t:.0f}%)"


def _source_lines(dump: Dump, b: BlockDump) -> list[dict[str, object]]:
    """The block's LC-3 side: its .asm lines where known, else its disassembly."""
    lines: list[dict[str, object]] = []
    for listing in b.listing:
        source = dump.source.get(listing.address)
        text = f"{source.line:>5}  {source.text.rstrip()}" if source else _disassembly(listing)
        lines.append({"addr": _name(listing.address), "text": text})
    return lines


def _disassembly(line: ListingLine) -> str:
    """A disassembled word, narrower than the listing's columns: address, label, instruction."""
    target = f"  -> {line.target_label}" if line.target_label else ""
    label = line.label or ""
    return f"{_name(line.address)}  {label:<10} {line.mnemonic:<6} {line.operands}{target}".rstrip()


def _bytecode(lines: Iterable[BytecodeLine], part: str, loaded: Sequence[range]) -> list[dict[str, object]]:
    """Bytecode lines for the page; only a block's own carry their LC-3 address (the link)."""
    return [
        {
            "addr": None if line.address is None or part else _name(line.address),
            "text": bytecode_text(line, loaded),
            "part": part,
        }
        for line in lines
    ]


def _why(b: BlockDump) -> str:
    last = b.listing[-1]
    reason = WHY[b.block.exit]
    if b.block.exit is Exit.TRAP and b.block.last.trapvect8 == HALT_VECTOR:
        reason = "HALT: the program ends here"
    return (
        f"{b.block.exit.value} at {_name(last.address)} ({last.mnemonic} {last.operands}".rstrip()
        + f"): {reason}"
    )


def _block_record(dump: Dump, b: BlockDump, region: int | None, ran: int) -> dict[str, object]:
    share = None
    if b.runs is not None and ran:
        share = b.runs * b.block.length / ran
    notes = []
    if b.translated_at_run_time:
        notes.append("translated at run time")
    if b.invalidations:
        notes.append(f"invalidated {b.invalidations}x by stores into its words")
    if b.dropped:
        notes.append("dropped: interpreted from then on")
    return {
        "id": _name(b.start),
        "label": b.label,
        "range": f"{_name(b.start)}-{_name(b.end)}",
        "instructions": b.block.length,
        "bytecode_ops": len(b.bytecode) + len(b.prologue) + len(b.epilogue),
        "runs": b.runs,
        "share": share,
        "why": _why(b),
        "exits": [_exit_text(s) for s in b.block.successors],
        "region": None if region is None else _name(region),
        "notes": notes,
        "source": _source_lines(dump, b),
        "bytecode": _bytecode(b.prologue, "prologue", dump.loaded)
        + _bytecode(b.bytecode, "", dump.loaded)
        + _bytecode(b.epilogue, "epilogue", dump.loaded),
    }


def _region_record(r: RegionDump, entered: int) -> dict[str, object]:
    region = r.region
    return {
        "id": _name(r.root),
        "label": r.label,
        "blocks": [_name(b.start) for b in region.blocks],
        "instructions": sum(b.length for b in region.blocks),
        "bytecode_ops": sum(1 for _ in dis.get_instructions(region.code)),
        "entries": [_name(e) for e in region.entries],
        "exits": [_exit_text(s) for s in region.exits],
        "runs": r.runs,
        "share": None if r.runs is None or not entered else r.runs / entered,
        "installed": r.installed,
    }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _summary(dump: Dump, layout: Layout) -> list[tuple[str, str]]:
    rows = [
        ("program", dump.program),
        ("engine", dump.engine),
        ("Python", platform.python_version()),
        ("edition", str(dump.edition)),
        ("translation", f"{dump.translation_seconds * 1000:.1f} ms, ahead of the run"),
        ("blocks", f"{len(dump.blocks)} ({dump.instructions} instructions)"),
    ]
    if dump.regions:
        rows.append(("regions", f"{len(dump.regions)} (each one code object)"))
    interpreted = [f"{dump.data_words} loaded words never reached as code stay data"]
    late = sum(b.translated_at_run_time for b in dump.blocks)
    if late:
        found = _count(late, "block")
        interpreted.append(f"{found} found only at run time (indirect targets), translated then")
    dropped = [b for b in dump.blocks if b.dropped]
    if dropped:
        interpreted.append(
            f"{_count(len(dropped), 'block')} interpreted after stores into their own words: "
            + ", ".join(_name(b.start) for b in dropped)
        )
    run = dump.run
    if run is not None:
        rows.append(
            (
                "run",
                f"{run.stop_reason} after {run.instructions:,} instructions in {run.seconds * 1000:.1f} ms",
            )
        )
        if dump.engine == "blocks":
            in_blocks = sum((b.runs or 0) * b.block.length for b in dump.blocks)
            interpreted.append(
                f"{max(run.instructions - in_blocks, 0):,} of {run.instructions:,} instructions interpreted "
                "(before their block was translated, or after it was dropped)"
            )
    rows.append(("interpreted", "; ".join(interpreted)))
    rows.append(("layout", "Graphviz dot" if layout.engine == "dot" else "built-in (Graphviz not installed)"))
    return rows


def svg_graph(dump: Dump, edges: Sequence[GraphEdge], layout: Layout, owner: Mapping[int, int]) -> str:
    """The graph as SVG: clusters, then edges, then nodes (drawn over the edges' ends)."""
    hottest = max((b.runs or 0 for b in dump.blocks), default=0)
    known = {b.start: b for b in dump.blocks}
    parts = [
        f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" width="{layout.width + 2 * MARGIN:.0f}" '
        f'height="{layout.height + 2 * MARGIN:.0f}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" '
        'markerUnits="userSpaceOnUse" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>',
        f'<g transform="translate({MARGIN},{MARGIN})">',
    ]
    regions = {_name(r.root): r for r in dump.regions}
    for name, (x, y, w, h) in layout.clusters.items():
        r = regions[name]
        title = (
            f"region {name}" + (f" {r.label}" if r.label else "") + (f" · entered {r.runs}" if r.runs else "")
        )
        parts.append(
            f'<g class="cluster" data-region="{name}"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}" rx="8"/><text x="{x + 8:.1f}" y="{y + 14:.1f}">{html.escape(title)}</text></g>'
        )
    for edge, path in zip(edges, layout.paths, strict=True):
        parts.append(
            f'<path class="edge {edge.kind}" data-from="{_name(edge.tail)}" data-to="{_name(edge.head)}" '
            f'data-kind="{edge.kind}" d="{path}" marker-end="url(#arrow)"><title>{edge.kind} '
            f"{_name(edge.tail)} → {_name(edge.head)}</title></path>"
        )
    for name, (cx, cy) in layout.centres.items():
        x, y = cx - NODE_WIDTH / 2, cy - NODE_HEIGHT / 2
        address = int(name[1:], 16)
        b = known.get(address)
        if b is None:  # a target outside every block: not translated
            parts.append(
                f'<g class="ghost" data-address="{name}"><rect x="{x:.1f}" y="{y:.1f}" width="{NODE_WIDTH}" '
                f'height="{NODE_HEIGHT}" rx="4"/><text x="{cx:.1f}" y="{cy + 4:.1f}">{name} not translated'
                "</text></g>"
            )
            continue
        first = f"{name}-{_name(b.end)}"
        second = (b.label or "") + (f"  ran {b.runs:,}" if b.runs is not None else "")
        region = owner.get(address)
        parts.append(
            f'<g class="node" data-block="{name}" data-region="{"" if region is None else _name(region)}">'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{NODE_WIDTH}" height="{NODE_HEIGHT}" rx="4" '
            f'fill="{_heat(b.runs, hottest)}"/>'
            f'<text x="{cx:.1f}" y="{cy - 4:.1f}" class="range">{first}</text>'
            f'<text x="{cx:.1f}" y="{cy + 13:.1f}" class="sub">{html.escape(second.strip())}</text>'
            f"<title>{html.escape(_why(b))}</title></g>"
        )
    parts.append("</g></svg>")
    return "".join(parts)


def render(dump: Dump, symbolic: Sequence[tuple[str, Sequence[str]]] = ()) -> str:
    """The whole page for a dump; with `symbolic` (each code object's name and listing as
    `bytecode` prints it: `dump --symbolic`), those listings under the summary."""
    owner: dict[int, int] = {}  # each block with the first region that holds it, as its bytecode is
    for r in dump.regions:
        for block in r.region.blocks:
            owner.setdefault(block.start, r.root)
    edges = graph_edges(dump)
    starts = {b.start for b in dump.blocks}
    outside = sorted({e.head for e in edges} - starts)
    nodes = [Node(_name(b.start), _name(owner[b.start]) if b.start in owner else None) for b in dump.blocks]
    nodes += [Node(_name(address)) for address in outside]
    clusters = [
        _name(r.root) for r in dump.regions if any(owner.get(b.start) == r.root for b in r.region.blocks)
    ]
    layout = lay_out(nodes, [Edge(_name(e.tail), _name(e.head)) for e in edges], clusters)
    ran = dump.run.instructions if dump.run is not None and dump.engine == "blocks" else 0
    entered = sum(r.runs or 0 for r in dump.regions)
    data = {
        "blocks": {_name(b.start): _block_record(dump, b, owner.get(b.start), ran) for b in dump.blocks},
        "regions": {_name(r.root): _region_record(r, entered) for r in dump.regions},
        "shareOf": "instructions run" if ran else "entries from the dispatcher",
        "first": _name(max(dump.blocks, key=lambda b: b.runs or 0).start) if dump.blocks else None,
    }
    summary = "".join(
        f"<tr><th>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>"
        for key, value in _summary(dump, layout)
    )
    output = ""
    if dump.run is not None:
        output = (
            "<details><summary>program output</summary><pre>"
            + html.escape(dump.run.output.decode("latin-1"))
            + "</pre></details>"
        )
    for name, lines in symbolic:
        output += (
            f"<details class='symbolic'><summary>{html.escape(name)} as the bytecode library lists it"
            "</summary><pre>" + html.escape("\n".join(lines)) + "</pre></details>"
        )
    body = (
        f"<header><h1>lc3jit dump: {html.escape(dump.program)}</h1><table class='summary'>{summary}</table>"
        f"{output}</header>"
        f"<main><section id='graph-pane'>{_legend()}{svg_graph(dump, edges, layout, owner)}</section>"
        "<section id='detail'><p class='hint'>Click a block in the graph.</p></section></main>"
    )
    return page("lc3jit dump: " + dump.program, body, data, PAGE_SCRIPT)


def bench_page(benches: Sequence[ProgramBench]) -> str:
    """`lc3jit bench --html`: the chart, and the table as text beneath it."""
    from lc3jit.inspection.bench import write_table  # (rich, typer's: not in the web page)
    from lc3jit.inspection.chart import chart_svg

    table = io.StringIO()
    write_table(benches, table, color=False)
    body = (
        f"<header><h1>lc3jit bench, Python {html.escape(platform.python_version())}</h1></header>"
        f"<section id='chart-pane'>{chart_svg(benches)}</section>"
        f"<pre id='table'>{html.escape(table.getvalue())}</pre>"
    )
    return page("lc3jit bench", body, {}, "document.body.dataset.ready = 'yes';")


def _legend() -> str:
    kinds = ("taken", "fallthrough", "call", "return", "trap", "indirect")
    items = "".join(
        f'<span class="key"><svg width="26" height="8"><path class="edge {k}" d="M1,4 L25,4"/></svg>'
        f"{k}</span>"
        for k in kinds
    )
    zoom = "<button data-zoom='0.8' title='smaller'>&minus;</button>"
    zoom += "<button data-zoom='1.25' title='larger'>+</button>"
    return f"<div class='legend'>{items}{zoom}</div>"


def page(title: str, body: str, data: object, script: str) -> str:
    """A self-contained HTML document: style, body, the data as JSON, the script."""
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>{body}"
        f"<script type='application/json' id='data'>{payload}</script>"
        f"<script>{script}</script></body></html>\n"
    )


STYLE = """
body { font: 13px/1.35 system-ui, sans-serif; margin: 0; color: #222; background: #fff; }
header { padding: 8px 14px; border-bottom: 1px solid #ccc; background: #f7f7f4; }
h1 { font-size: 16px; margin: 0 0 6px; }
table.summary th { text-align: left; padding-right: 10px; font-weight: 600; vertical-align: top; }
main { display: flex; height: calc(100vh - 190px); min-height: 420px; }
#chart-pane { padding: 8px; overflow: auto; }
#table { padding: 0 14px; font: 12px/1.3 ui-monospace, monospace; }
#graph-pane { flex: 1 1 50%; overflow: auto; border-right: 1px solid #ccc; }
#detail { flex: 1 1 50%; overflow: auto; padding: 8px 12px; }
.legend button { font: inherit; padding: 0 6px; margin-left: 4px; }
.legend { padding: 4px 8px; position: sticky; top: 0; left: 0; background: rgba(255,255,255,.9); }
.key { margin-right: 12px; white-space: nowrap; }
.cluster rect { fill: #f3f6ff; stroke: #8a9cc9; stroke-dasharray: 4 3; }
.cluster text { font-size: 11px; fill: #3a4f8a; font-weight: 600; }
.node rect { stroke: #555; stroke-width: 1; }
.node { cursor: pointer; }
.node text, .ghost text { text-anchor: middle; font: 11px ui-monospace, monospace; pointer-events: none; }
.node .range { font-weight: 700; }
.node.selected rect { stroke: #0057d8; stroke-width: 3; }
.ghost rect { fill: #fff; stroke: #aaa; stroke-dasharray: 3 3; }
.edge { fill: none; stroke-width: 1.4; }
.edge.taken { stroke: #1b7f3b; }
.edge.fallthrough { stroke: #555; }
.edge.call { stroke: #7b3fb8; }
.edge.return { stroke: #b86a00; }
.edge.trap { stroke: #b00020; stroke-dasharray: 2 3; }
.edge.indirect { stroke: #0070c0; stroke-dasharray: 6 3; }
.edge.lit { stroke-width: 3.5; }
.stats th { text-align: left; padding-right: 10px; font-weight: 600; vertical-align: top; }
.columns { display: flex; gap: 12px; margin-top: 8px; }
.columns > div { flex: 1 1 50%; min-width: 0; overflow-x: auto; }
#bytecode { flex-basis: 55%; }
.columns h3 { font-size: 13px; margin: 4px 0; }
.src, .bc { font: 11.5px/1.3 ui-monospace, monospace; white-space: pre; padding: 0 4px; cursor: default; }
.bc.prologue, .bc.epilogue { color: #8a3ca0; }
.part { font-style: italic; color: #8a3ca0; margin-top: 4px; }
.hl { background: #ffe36e; }
.hint { color: #777; }
"""

PAGE_SCRIPT = """
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const detail = document.getElementById("detail");
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function pct(x) { return x === null ? "" : (100 * x).toFixed(1) + "%"; }
function stats(rows) {
  const t = el("table", {class: "stats"});
  for (const [k, v] of rows) {
    if (v === null || v === undefined || v === "") continue;
    const tr = el("tr"); tr.append(el("th", {}, k), el("td", {}, String(v))); t.append(tr);
  }
  return t;
}
const graph = document.getElementById("graph");
const size = [graph.width.baseVal.value, graph.height.baseVal.value];
let scale = 1;
document.querySelectorAll("[data-zoom]").forEach(b => b.addEventListener("click", () => {
  scale *= Number(b.dataset.zoom);
  graph.setAttribute("viewBox", "0 0 " + size[0] + " " + size[1]);
  graph.setAttribute("width", size[0] * scale);
  graph.setAttribute("height", size[1] * scale);
}));
function select(id, reveal) {
  const b = data.blocks[id];
  if (!b) return;
  document.querySelectorAll(".node.selected").forEach(n => n.classList.remove("selected"));
  const node = document.querySelector('.node[data-block="' + id + '"]');
  if (node) node.classList.add("selected");
  if (node && reveal) {  // the graph's pane scrolls to the node; the page itself stays put
    const pane = document.getElementById("graph-pane");
    const at = node.getBoundingClientRect(), view = pane.getBoundingClientRect();
    pane.scrollLeft += at.left - view.left - (view.width - at.width) / 2;
    pane.scrollTop += at.top - view.top - (view.height - at.height) / 2;
  }
  document.querySelectorAll(".edge.lit").forEach(e => e.classList.remove("lit"));
  document.querySelectorAll('.edge[data-from="' + id + '"]').forEach(e => e.classList.add("lit"));
  detail.replaceChildren();
  detail.append(el("h2", {}, "block " + b.range + (b.label ? " " + b.label : "")));
  detail.append(stats([
    ["instructions", b.instructions], ["bytecode", b.bytecode_ops + " instructions"],
    ["runs", b.runs], ["share of " + data.shareOf, b.share === null ? "" : pct(b.share)],
    ["ends", b.why], ["exits", b.exits.join(", ")], ["notes", b.notes.join("; ")],
  ]));
  if (b.region) {
    const r = data.regions[b.region];
    detail.append(el("h3", {}, "region " + r.id + (r.label ? " " + r.label : "")));
    detail.append(stats([
      ["blocks", r.blocks.join(" ")], ["instructions", r.instructions],
      ["bytecode", r.bytecode_ops + " instructions in one code object"], ["entries", r.entries.join(" ")],
      ["exits", r.exits.join(", ")], ["entered", r.runs],
      ["share of entries", r.share === null ? "" : pct(r.share)],
      ["installed", r.installed ? "" : "no (dropped)"],
    ]));
  }
  const cols = el("div", {class: "columns"});
  const src = el("div", {id: "source"}), bc = el("div", {id: "bytecode"});
  src.append(el("h3", {}, "LC-3"));
  bc.append(el("h3", {}, "Python bytecode"));
  for (const line of b.source) src.append(el("div", {class: "src", "data-addr": line.addr}, line.text));
  let part = null;
  for (const line of b.bytecode) {
    if (line.part !== part) {
      part = line.part;
      if (part) bc.append(el("div", {class: "part"}, part === "prologue"
        ? "prologue: the region's locals loaded, its entry chosen"
        : "epilogue: the region's way out, its locals written back"));
    }
    const attrs = {class: "bc" + (line.part ? " " + line.part : "")};
    if (line.addr) attrs["data-addr"] = line.addr;
    bc.append(el("div", attrs, line.text));
  }
  cols.append(src, bc);
  detail.append(cols);
}
function light(addr) {
  detail.querySelectorAll(".hl").forEach(e => e.classList.remove("hl"));
  if (addr) detail.querySelectorAll('[data-addr="' + addr + '"]').forEach(e => e.classList.add("hl"));
}
detail.addEventListener("mouseover", ev => {
  const line = ev.target.closest("[data-addr]");
  light(line ? line.dataset.addr : null);
});
detail.addEventListener("mouseleave", () => light(null));
document.getElementById("graph").addEventListener("click", ev => {
  const node = ev.target.closest(".node");
  if (node) select(node.dataset.block);
});
if (data.first) select(data.first, true);
document.body.dataset.ready = "yes";
"""


def program_page(paths: Sequence[str], engine: str = "regions", edition: int = 3, os: bool = False) -> str:
    """`lc3jit dump --html` of program files, as `dump` loads them: the web page's view of
    the translation (engine: as translated for it; the interpreter's programs are shown as
    regions translates them)."""
    from pathlib import Path

    from lc3jit.inspection.dump import inspect_program
    from lc3jit.session import boot, load_images, os_images
    from lc3jit_runtime.capture import CapturedConsole

    images = load_images([Path(p) for p in paths])
    system = os_images(edition, None) if os else []
    machine = boot(images, CapturedConsole(), edition, system=system)
    shown = engine if engine in ("regions", "blocks") else "regions"
    return render(inspect_program(machine, [*system, *images], Path(paths[0]).name, shown))
