"""The web page's figures: how soon it is ready, and regions against the interpreter in it.

The site is built with the npm Pyodide (`npm ci --prefix lc3jit/web/page`) and served on
127.0.0.1, as `lc3jit web build site --pyodide node_modules/pyodide` and a static server
would; headless Chromium (tests/browser.py) opens it:

- ready: from navigating to the page until Pyodide and lc3jit are loaded (the page's
  `data-ready`), the wall time the test driver sees; `cold` is a fresh browser profile's
  first load, `warm` the median of the loads after it (the browser's cache and compiled
  WebAssembly kept, as for a student who comes back); and the part of it that is Pyodide's
  own start, `loadPyodide` in the worker (from the memory snapshot, unless
  `--no-snapshot` builds the site without one, as without node; the rest: the page,
  lc3jit's sources unpacked and imported); then the warm-up, the translator imported in
  the background (in the snapshot already, when there is one);
- speed: each bench program run to its end from a link (`?program=...&engine=...&run=1`),
  the MIPS the page shows (instructions over the time in the worker's slices, translation
  included), the median of the rounds per engine; `x interp` is regions' over the
  interpreter's.

Run it from the repository: `python examples/bench/web_page.py [--rounds N] [--no-snapshot]
[--ready-only]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser import Browser, find_chromium  # noqa: E402 - the repository's own driver
from tests.web_page import open_page, run_speed, temporary_site  # noqa: E402

PROGRAMS = ("arith", "fib", "sieve", "sort", "strings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-snapshot", action="store_true", help="the site without its memory snapshot")
    parser.add_argument("--ready-only", action="store_true", help="time the page's loads, not the programs")
    args = parser.parse_args()
    executable = find_chromium()
    if executable is None:
        sys.exit("no Chromium: apt-get install chromium, or set LC3JIT_CHROMIUM")
    beside = {f"bench/{name}.asm": ROOT / "examples" / "bench" / f"{name}.asm" for name in PROGRAMS}
    with temporary_site(beside, snapshot=not args.no_snapshot) as url:
        browser = Browser(executable)
        try:
            loads, starts, warm_ups = [], [], []
            for _ in range(args.rounds + 1):
                loads.append(open_page(browser, url))
                starts.append(browser.evaluate("Number(document.body.dataset.pythonSeconds)"))
                browser.wait("document.body.dataset.warmSeconds")
                warm_ups.append(browser.evaluate("Number(document.body.dataset.warmSeconds)"))
            snapshot = browser.evaluate("document.body.dataset.snapshot") == "true"
            print(f"ready: cold {loads[0]:.2f} s, warm {statistics.median(loads[1:]):.2f} s")
            print(f"  each: {' '.join(f'{seconds:.2f}' for seconds in loads)}")
            print(f"  of which Pyodide's own start (loadPyodide): {statistics.median(starts):.2f} s")
            print(f"  {'from the memory snapshot' if snapshot else 'without a memory snapshot'}")
            print(f"then the translator imported (the warm-up): {statistics.median(warm_ups):.2f} s")
            if args.ready_only:
                return
            print(f"{'program':<10} {'regions MIPS':>13} {'interp MIPS':>12} {'x interp':>9}")
            ratios = []
            for name in PROGRAMS:
                mips = {
                    engine: statistics.median(
                        run_speed(browser, url, f"bench/{name}.asm", engine) for _ in range(args.rounds)
                    )
                    for engine in ("regions", "interp")
                }
                ratios.append(mips["regions"] / mips["interp"])
                print(f"{name:<10} {mips['regions']:>13.2f} {mips['interp']:>12.2f} {ratios[-1]:>8.2f}x")
            print(f"geomean x interp: {statistics.geometric_mean(ratios):.2f}x")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
