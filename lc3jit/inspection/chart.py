"""The bench chart: every program x engine as times faster than the interpreter, on one SVG.

Speed is drawn on a log scale, where 2x and 20x are as far apart as 1x and 10x: the
interpreter is the line at 1x, and a program's floor (hand-written Python, `--floor`) a
dashed line across its rows, the speed no exact translation reaches. The time to translate
sits apart, in its own column on its own scale, with the run's time beside it, so that a
short run whose translation costs more than the run itself shows as such.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from lc3jit.inspection.bench import FLOOR, EngineTimes, ProgramBench

ROW = 22.0
GROUP_GAP = 16.0
LABEL = 150.0  # engine names, left of the bars
SPEED = 430.0  # the speed panel
GAP = 60.0
TRANSLATION = 260.0  # the translation panel
TOP = 54.0
COLOURS = {"interp": "#9e9e9e", "blocks": "#4e79a7", "regions": "#f28e2b", FLOOR: "#59a14f"}
OTHER = ("#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")


def _colour(engine: str, order: list[str]) -> str:
    base = engine.split("@")[0]
    if base in COLOURS and "@" not in engine:
        return COLOURS[base]
    if engine not in order:
        order.append(engine)
    return OTHER[order.index(engine) % len(OTHER)]


def translated(t: EngineTimes) -> bool:
    """An engine with a translation to show (the interpreter's setup translates nothing)."""
    return t.translation is not None and t.engine != "interp"


def baseline(bench: ProgramBench) -> tuple[str, float]:
    """What 1x is: the interpreter, or without it the slowest engine run."""
    interp = bench.median_of("interp")
    if interp:
        return "interp", interp
    slowest = max((t for t in bench.times if t.engine != FLOOR), key=lambda t: t.median)
    return slowest.engine, slowest.median


@dataclass(frozen=True, slots=True)
class Scales:
    """Where a speed (log) and a time in ms (linear, in the translation column) are drawn."""

    low: float  # the slowest speed on the axis
    high: float
    top_ms: float
    t_left: float  # the translation column's left edge

    def x(self, speed: float) -> float:
        span = math.log10(self.high) - math.log10(self.low)
        return LABEL + SPEED * (math.log10(speed) - math.log10(self.low)) / span

    def width(self, ms: float) -> float:
        return max(TRANSLATION * ms / self.top_ms, 1.0)


def chart_svg(benches: Sequence[ProgramBench], title: str = "lc3jit bench") -> str:
    """The chart as a standalone SVG document."""
    rows = [(b, t) for b in benches for t in b.times if t.engine != FLOOR]
    speeds = [baseline(b)[1] / t.median for b, t in rows if t.median]
    floors = [baseline(b)[1] / f for b in benches if (f := b.median_of(FLOOR))]
    timed = [v * 1000 for _, t in rows if translated(t) for v in (t.translation or 0.0, t.median)]
    scales = Scales(
        min([*speeds, 1.0]) / 1.5,
        max([*speeds, *floors, 2.0]) * 1.25,
        max([*timed, 1.0]) * 1.1,
        LABEL + SPEED + GAP,
    )
    height = TOP + len(rows) * ROW + len(benches) * (GROUP_GAP + ROW) + 40
    width = scales.t_left + TRANSLATION + 190
    against = "the interpreter" if all(b.median_of("interp") for b in benches) else "the slowest engine"
    out = [
        f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
        f'<text x="10" y="20" font-size="15" font-weight="bold">{html.escape(title)}</text>',
        f'<text x="{LABEL}" y="42" font-weight="bold">times faster than {against} (log scale)</text>',
        f'<text x="{scales.t_left}" y="42" font-weight="bold">translation (hatched) and run, ms</text>',
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="3" height="6" fill="#555"/></pattern></defs>',
    ]
    bottom = height - 30
    for v in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        if scales.low <= v <= scales.high:
            x = scales.x(v)
            out.append(
                f'<line x1="{x:.1f}" y1="{TOP - 6}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="#e4e4e4"/>'
                f'<text x="{x:.1f}" y="{height - 16:.1f}" text-anchor="middle" fill="#555">{v:g}x</text>'
            )
    one = scales.x(1.0)
    out.append(
        f'<line class="interp-line" x1="{one:.1f}" y1="{TOP - 6}" x2="{one:.1f}" y2="{bottom:.1f}" '
        'stroke="#333" stroke-width="1.5"/>'
    )
    y = TOP
    order: list[str] = []
    for b in benches:
        _, base = baseline(b)
        out.append(
            f'<text class="program" x="10" y="{y + 14:.1f}" font-weight="bold">{html.escape(b.program)}'
            f" ({b.instructions:,} instructions)</text>"
        )
        y += ROW
        first = y
        for t in b.times:
            if t.engine != FLOOR:
                out.append(_bar(b, t, base, y, scales, _colour(t.engine, order)))
                y += ROW
        if floor := b.median_of(FLOOR):
            out.append(_floor(b.program, base / floor, scales.x(base / floor), first, y))
        y += GROUP_GAP
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _floor(program: str, speed: float, x: float, top: float, bottom: float) -> str:
    """A program's floor: a dashed line across its rows."""
    return (
        f'<g class="floor" data-program="{html.escape(program)}">'
        f'<line x1="{x:.1f}" y1="{top - 2:.1f}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="{COLOURS[FLOOR]}" '
        'stroke-width="2" stroke-dasharray="5 3"/>'
        f'<text x="{x + 4:.1f}" y="{top - 5:.1f}" fill="{COLOURS[FLOOR]}">floor {speed:.1f}x</text></g>'
    )


def _bar(b: ProgramBench, t: EngineTimes, base: float, y: float, scales: Scales, colour: str) -> str:
    """One engine's row: its speed bar from 1x, and apart its translation and run times."""
    speed = base / t.median if t.median else 1.0
    x0, x1 = sorted((scales.x(1.0), scales.x(speed)))
    label = f"{speed:.1f}x" if speed >= 1 else f"{speed:.2f}x"
    took = "" if t.translation is None else f", translated in {t.translation * 1000:.1f} ms"
    parts = [
        f'<g class="bar" data-program="{html.escape(b.program)}" data-engine="{html.escape(t.engine)}" '
        f'data-speedup="{speed:.3f}">',
        f"<title>{html.escape(b.program)} {html.escape(t.engine)}: {label}, "
        f"{t.median * 1000:.1f} ms{took}</title>",
        f'<text x="{LABEL - 8}" y="{y + 15:.1f}" text-anchor="end">{html.escape(t.engine)}</text>',
        f'<rect x="{x0:.1f}" y="{y + 4:.1f}" width="{max(x1 - x0, 1.5):.1f}" height="{ROW - 8}" '
        f'fill="{colour}"/>',
        f'<text x="{x1 + 4:.1f}" y="{y + 15:.1f}">{label}</text>',
    ]
    if translated(t):
        run_ms, translate_ms = t.median * 1000, (t.translation or 0.0) * 1000
        half = (ROW - 8) / 2
        costly = ' fill="#b00020" font-weight="bold"' if t.translation > t.median else ""
        left = scales.t_left
        parts.append(
            f'<rect class="translation" x="{left:.1f}" y="{y + 3:.1f}" '
            f'width="{scales.width(translate_ms):.1f}" '
            f'height="{half:.1f}" fill="url(#hatch)" stroke="#555" stroke-width="0.5"/>'
            f'<rect class="run" x="{left:.1f}" y="{y + 3 + half:.1f}" width="{scales.width(run_ms):.1f}" '
            f'height="{half:.1f}" fill="{colour}"/>'
            f'<text x="{left + max(scales.width(translate_ms), scales.width(run_ms)) + 4:.1f}" '
            f'y="{y + 15:.1f}"{costly}>translate {translate_ms:.1f}, run {run_ms:.1f}'
            + (" translation &gt; run" if costly else "")
            + "</text>"
        )
    parts.append("</g>")
    return "".join(parts)
