"""arith.asm transliterated into Python: the floor for `lc3jit bench --floor`, written by
the rules in lc3jit/inspection/bench.py.

Wrapped only where a value would grow without bound (marked below): x every iteration, s once
a round (unwrapped it would pass 2**30 in round 4 and reach 4 * 10**9).
"""

from __future__ import annotations


def run() -> str:
    mem = [0] * 0x10000
    mem[0x302A] = 0x5A5A  # MASK
    mem[0x302B] = 12  # OUTER_COUNT
    mem[0x302C] = 30000  # INNER_COUNT

    r1 = 0  # x
    r2 = 0  # s
    r5 = mem[0x302A]  # LD R5, MASK
    r6 = mem[0x302B]  # LD R6, OUTER_COUNT
    while True:  # OUTER
        r3 = mem[0x302C]  # LD R3, INNER_COUNT: i counts down to 1
        while True:  # INNER
            r4 = r1 + r1
            r4 = r4 + r4
            r1 = r4 + r1
            r1 = (r1 + r3) & 0xFFFF  # wrap: x = 5x + i would grow without bound
            r4 = ~r1
            r4 = r4 & r5
            r2 = r2 + r4
            r3 = r3 - 1
            if r3 <= 0:  # BRp INNER
                break
        r2 = r2 & 0xFFFF  # wrap once a round (not an instruction): s stays below 2**30
        r6 = r6 - 1
        if r6 <= 0:  # BRp OUTER
            break
    r1 = r1 + r2  # the checksum: x + s
    return f"{r1 & 0xFFFF:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
