"""What exactness costs: one hot loop of sieve.asm by hand, with each duty of a valid
translation added in turn, timed in ns per LC-3 instruction.

The loop is MARK (six instructions: ADD, BRzp, ADD, STR, ADD, BRnzp), which marks the
multiples of a prime. LOOP below is written once; a line tagged with a duty is there only
when the variant has that duty (a tag `-duty` only when it has not). The first variant,
the floor, has none: it is the transliteration `lc3jit bench --floor` times. Each later
variant adds one thing a translation may not leave out:
- count: the instruction count and the budget check at the loop head, which
  --max-steps, --stats and keyboard interrupts rely on;
- wrap: every sum wrapped to 16 bits (registers are words: xE000 stands for -8192);
- watch: the write-map check before the store (self-modifying code);
- codes: the condition codes kept for the way out (the region engine keeps them so).
The last variant is the least a valid translation of MARK can do without proving more
about its values: every sum wrapped where it is made. The region engine now proves more
and does less than that: the compare's difference (r2 + r4) is read only by its branch,
which tests it unwrapped through a table, and the address (r7 + r2) is used unwrapped,
the store's write-map check sending anything past xFFFF to a slow path that wraps it.
So it runs below the last variant here; what remains is the count, one wrap and the
write-map check.

Run it with each Python: `python examples/bench/overheads.py` (`--show` prints the code).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable

FLAGS = 0x303E  # where sieve.asm keeps its flags
N = 8192
PRIME = 3  # the loop marks 2p, 3p, ... below N

DUTIES = ("count", "wrap", "watch", "codes")

LOOP = """\
def mark(mem, r1, r4, r7, n, watch, kept):
    r4 &= 0xFFFF                       # wrap
    r2 = r1 + r1
    cc = 0                             # codes
    while True:
        n = n - 6                      # count
        if n < 0:                      # count
            kept[0] = cc               # codes
            return n                   # count
        r3 = r2 + r4
        if r3 >= 0:                    # -wrap
            return n                   # -wrap
        if r3 > 0xFFFF:                # wrap
            r3 -= 0x10000              # wrap
        if r3 < 0x8000:                # wrap
            return n                   # wrap
        r3 = r7 + r2
        if r3 > 0xFFFF:                # wrap
            r3 -= 0x10000              # wrap
        if watch[r3]:                  # watch
            return n                   # watch
        mem[r3] = r1
        r2 = r2 + r1
        if r2 > 0xFFFF:                # wrap
            r2 -= 0x10000              # wrap
        cc = r2                        # codes
"""


def source(duties: tuple[str, ...]) -> str:
    """LOOP with the lines of these duties, tags removed."""
    kept = []
    for line in LOOP.splitlines():
        code, _, tag = line.partition("#")
        tag = tag.strip()
        if not tag or (tag in duties) or (tag.startswith("-") and tag[1:] not in duties):
            kept.append(code.rstrip())
    return "\n".join(kept) + "\n"


def variant(duties: tuple[str, ...]) -> Callable[..., int]:
    namespace: dict[str, Callable[..., int]] = {}
    exec(source(duties), namespace)  # our own text above: nothing is read in
    return namespace["mark"]


#: The floor, then one more duty each: name -> the duties it has.
VARIANTS = {"floor": ()} | {duty: DUTIES[: i + 1] for i, duty in enumerate(DUTIES)}


def run(mark: Callable[..., int], mem: list[int], watch: list[int], kept: list[int]) -> int:
    """Mark the multiples of PRIME, as sieve.asm does; returns the budget left."""
    return mark(mem, PRIME, -N, FLAGS, 10**9, watch, kept)


def instructions() -> int:
    """LC-3 instructions one run executes: six a multiple, two for the test that ends it."""
    return 6 * (N // PRIME - 1) + 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print the variants' code instead of timing them")
    if parser.parse_args().show:
        print(source(DUTIES), end="")
        return
    print(f"Python {sys.version.split()[0]}: sieve.asm's MARK loop, ns per LC-3 instruction")
    mem, watch, kept = [0] * 0x10000, [0] * 0x10000, [0]
    floor = None
    for name, duties in VARIANTS.items():
        mark = variant(duties)
        seconds = min(timeit.repeat(lambda mark=mark: run(mark, mem, watch, kept), number=20, repeat=7))
        ns = seconds / 20 / instructions() * 1e9
        floor = floor or ns
        label = name if name == "floor" else f"+ {name}"
        print(f"  {label:8s} {ns:6.2f}  {ns / floor:4.2f}x the floor")


if __name__ == "__main__":
    main()
