"""One table of docs/benchmarks.md (one Python), from `lc3jit bench --json` on stdin.

    lc3jit bench examples/bench/*.asm --engines interp,blocks,regions --floor --repeat 3 --json \\
        | python examples/bench/benchmarks_table.py

Each engine's time is shown in nanoseconds per LC-3 instruction with the interpreter's
time over it (`x interp`, measured in the same run); the geometric means of those ratios
and of regions / floor close the table. Engines or a floor that did not run are left out.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable

ENGINES = ("blocks", "regions", "python")  # python: the floor, as `bench --floor` names it
HEADINGS = {"blocks": "blocks", "regions": "regions", "python": "floor"}


def geomean(values: Iterable[float]) -> float:
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


def table(document: dict) -> str:
    programs = document["programs"]
    present = [e for e in ENGINES if all(e in _by_engine(p) for p in programs)]
    floor = "python" in present and "regions" in present
    heading = ["program", "instructions", "interp ns/instr"]
    heading += [f"{HEADINGS[e]} ns/instr (x interp)" for e in present]
    heading += ["regions / floor"] * floor + ["regions translation ms"] * ("regions" in present)
    rows = ["| " + " | ".join(heading) + " |", "|---|" + "---:|" * (len(heading) - 1)]
    for p in programs:
        engines, n = _by_engine(p), p["instructions"]
        cells = [p["program"].rsplit("/", 1)[-1], f"{n:,}", f"{_ns(engines['interp'], n):.0f}"]
        cells += [
            f"{_ns(engines[e], n):.{1 if e == 'python' else 0}f} ({engines[e]['ratio_to_interp']:.1f})"
            for e in present
        ]
        if floor:
            cells.append(f"{engines['regions']['time_over_floor']:.2f}")
        if "regions" in present:
            cells.append(f"{engines['regions']['translation_seconds'] * 1000:.0f}")
        rows.append("| " + " | ".join(cells) + " |")
    means = ["geometric mean", "", ""]
    means += [f"x{geomean(_by_engine(p)[e]['ratio_to_interp'] for p in programs):.2f}" for e in present]
    if floor:
        means.append(f"{geomean(_by_engine(p)['regions']['time_over_floor'] for p in programs):.2f}")
    if "regions" in present:
        means.append("")
    rows.append("| " + " | ".join(means) + " |")
    return f"Python {document['python']}:\n\n" + "\n".join(rows) + "\n"


def _by_engine(program: dict) -> dict[str, dict]:
    return {e["engine"]: e for e in program["engines"]}


def _ns(engine: dict, instructions: int) -> float:
    return engine["median_seconds"] / instructions * 1e9


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    sys.stdout.write(table(json.load(sys.stdin)))
