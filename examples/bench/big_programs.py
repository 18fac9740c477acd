"""Big programs: what translation costs and pays as a program grows (synthetic.py's programs).

    python examples/bench/big_programs.py [--sizes 1000,4000,16000,48000] [--rounds 3] [--passes P]

For each size, one program from synthetic.py, assembled once into a temporary folder, then:
- whole processes, interleaved round by round, CPU time (user + system) of each, the
  minimum of the rounds: `lc3jit run --no-cache` on the interpreter, on regions translated
  before the run (`--translate-after 0`) and on the default tiered start; ratios are the
  interpreter's time over the engine's (1.00 or more: at least the interpreter's speed);
- what the region engine translated: before the run (ms, words, copies counted) and at
  run time (how many translations, words, ms), with `--translate-after 0`, in a fresh
  process each round (every cache as cold as a user's first run has it), the round that
  translated fastest kept; the time per 1,000 words translated (copies counted) and per
  1,000 words reached (each word of code translated counted once: the issue's measure);
- `lc3jit compile`: CPU time of the process and the .pyc's size, per word of the program.

`--baseline PYTHON` (a Python whose lc3jit is another version, e.g. a venv of an older
checkout) prints only the translation time per 1,000 words reached, this lc3jit's against
that one's, their fresh processes alternating round by round (which goes first too): on a
shared machine a single run's translation time moves by a third between minutes, and a
paired run is the steady way to see what a change to the translator did.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from peers import child_cpu  # type: ignore[import-not-found]
from synthetic import synthetic  # type: ignore[import-not-found]

from lc3jit.session import boot, load_images
from lc3jit.translator.regions import region_engine
from lc3jit_runtime.console import Console

ENGINES = {"interp": ["--engine", "interp"], "regions -t0": ["--translate-after", "0"], "tiered": []}


def translation_work(
    program: Path, budget: int | None = None, max_steps: int | None = None
) -> dict[str, float]:
    """What regions translate before and during a run (--translate-after 0), in this process;
    with `budget`, the machine's translation budget, and the run at most `max_steps` long."""
    machine = boot(load_images([program]), Console(None, io.BytesIO()), 3)
    if budget is not None:
        machine.translation_budget = budget
    began = time.process_time()
    engine = region_engine(machine)
    ahead = time.process_time() - began
    translator = engine.translator
    ahead_words = sum(b.length for r in translator.regions.values() for b in r.blocks)
    before = dict(translator.regions)
    late_seconds = [0.0]
    translate = translator.__call__

    def timed(dispatcher: object, pc: int) -> object:  # CPU time, as the rest of the table
        began = time.process_time()
        try:
            return translate(dispatcher, pc)  # type: ignore[arg-type]
        finally:
            late_seconds[0] += time.process_time() - began

    engine.translator = timed  # type: ignore[assignment]
    engine.translator.left_through = translator.left_through  # type: ignore[attr-defined]
    engine.run(max_steps)
    late = [r for root, r in translator.regions.items() if before.get(root) is not r]
    regions = [*before.values(), *late]
    return {
        "reached": len({ins.address for r in regions for b in r.blocks for ins in b.instructions}),
        "instructions": machine.icount,
        "ahead_ms": ahead * 1000,
        "ahead_words": ahead_words,
        "late": len(late),
        "late_words": sum(b.length for r in late for b in r.blocks),
        "late_ms": late_seconds[0] * 1000,
    }


def fresh_work(program: Path, python: str = sys.executable) -> dict[str, float]:
    """translation_work in a fresh process of that Python (its lc3jit translating)."""
    done = subprocess.run([python, __file__, "--work", str(program)], capture_output=True, check=True)
    return json.loads(done.stdout)


def translation_ms(work: dict[str, float]) -> float:
    return work["ahead_ms"] + work["late_ms"]


def coldest_work(program: Path, rounds: int) -> dict[str, float]:
    """The round that translated fastest, each in a fresh process."""
    return min((fresh_work(program) for _ in range(rounds)), key=translation_ms)


def paired(program: Path, rounds: int, baseline: str) -> tuple[float, float]:
    """ms per 1,000 words reached, (this lc3jit, the baseline's), the minimum of alternating rounds."""
    pythons = [sys.executable, baseline]
    best = [float("inf")] * 2
    for round_number in range(rounds):
        for side in (0, 1) if round_number % 2 == 0 else (1, 0):
            work = fresh_work(program, pythons[side])
            best[side] = min(best[side], translation_ms(work) / work["reached"] * 1000)
    return best[0], best[1]


def assembled(folder: str, words: int, passes: int | None) -> Path:
    """synthetic.py's program of that many words, assembled into the folder."""
    source = Path(folder) / f"big{words}.asm"
    source.write_text(synthetic(words, **({} if passes is None else {"passes": passes})))
    subprocess.run([sys.executable, "-m", "lc3jit", "asm", str(source)], check=True, capture_output=True)
    return source.with_suffix(".obj")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,4000,16000,48000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=None)
    parser.add_argument("--work", type=Path, help="(a round's own process) print translation_work's as JSON")
    parser.add_argument("--baseline", metavar="PYTHON", help="translation time only, paired with its lc3jit")
    args = parser.parse_args()
    if args.work:
        print(json.dumps(translation_work(args.work)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    lc3jit = [sys.executable, "-m", "lc3jit"]
    print(f"Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    if args.baseline:
        print(f"| words | ms per 1,000 words reached | {args.baseline}'s | ratio |\n|---:|---:|---:|---:|")
        with tempfile.TemporaryDirectory() as folder:
            for words in sizes:
                ours, theirs = paired(assembled(folder, words, args.passes), args.rounds, args.baseline)
                print(f"| {words:,} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.3f} |", flush=True)
        return
    print(
        "| words | instructions | interp ms | regions -t0 ms (x interp) | tiered ms (x interp) |"
        " ahead ms (words) | run-time translations (words, ms) | ms per 1,000 words translated |"
        " ms per 1,000 words reached | compile s | .pyc bytes/word |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for words in sizes:
            program = assembled(folder, words, args.passes)
            times: dict[str, list[float]] = {name: [] for name in ENGINES}
            for _ in range(args.rounds):
                for name, options in ENGINES.items():
                    times[name].append(child_cpu([*lc3jit, "run", str(program), "--no-cache", *options])[0])
            best = {name: min(seconds) for name, seconds in times.items()}
            work = coldest_work(program, args.rounds)
            pyc = Path(folder) / f"big{words}.pyc"
            compile_seconds, _ = child_cpu([*lc3jit, "compile", str(program), "-o", str(pyc)])
            translated = work["ahead_words"] + work["late_words"]
            ms = translation_ms(work)
            per_kword = ms / translated * 1000 if translated else 0.0
            per_reached = ms / work["reached"] * 1000 if work["reached"] else 0.0
            print(
                f"| {words:,} | {work['instructions']:,.0f} | {best['interp'] * 1000:.0f} |"
                f" {best['regions -t0'] * 1000:.0f} ({best['interp'] / best['regions -t0']:.2f}) |"
                f" {best['tiered'] * 1000:.0f} ({best['interp'] / best['tiered']:.2f}) |"
                f" {work['ahead_ms']:.0f} ({work['ahead_words']:,}) |"
                f" {work['late']} ({work['late_words']:,}, {work['late_ms']:.0f}) | {per_kword:.0f} |"
                f" {per_reached:.0f} |"
                f" {compile_seconds:.2f} | {pyc.stat().st_size / words:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
