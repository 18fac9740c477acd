"""sort.asm transliterated into Python: the floor for `lc3jit bench --floor`, written by the
rules in lc3jit/inspection/bench.py.

NOT x + 1 is -x. Wrapped only where a value would grow without bound (the generator, marked
below); the checksum t (past 2**30 in the last 428 of its 1,000 additions, 5.5 * 10**9 at the
end) is masked once, by the f-string that stands for FINISH.
"""

from __future__ import annotations


def run() -> str:
    mem = [0] * 0x10000
    mem[0x3047] = 1000  # COUNT
    mem[0x3048] = 0x2B67  # SEED
    mem[0x3049] = 0x3619  # INCREMENT
    mem[0x304A] = 0x7FFF  # LOW_BITS
    mem[0x304B] = 0x304E  # ARRAY_AT: ARRAY .BLKW #1000 from x304E

    r1 = mem[0x304B]  # LD R1, ARRAY_AT; fill: a[k] = x AND x7FFF
    r2 = mem[0x3047]  # LD R2, COUNT
    r3 = mem[0x3048]  # LD R3, SEED
    r5 = mem[0x304A]  # LD R5, LOW_BITS
    while True:  # FILL
        r4 = r3 + r3
        r4 = r4 + r4
        r3 = r4 + r3
        r4 = mem[0x3049]  # LD R4, INCREMENT
        r3 = (r3 + r4) & 0xFFFF  # wrap: x = 5x + x3619 would grow without bound
        r4 = r3 & r5
        mem[r1] = r4
        r1 = r1 + 1
        r2 = r2 - 1
        if r2 <= 0:  # BRp FILL
            break

    # sort: R1 = &a[i], R2 = &a[j], R3 = key, R6 = -key
    r4 = mem[0x304B]  # LD R4, ARRAY_AT
    r5 = ~r4
    r5 = r5 + 1  # -&a[0]
    r1 = r4 + 1
    r7 = mem[0x3047]  # LD R7, COUNT
    r7 = r7 - 1  # i = 1 .. n-1
    while True:  # NEXT_I
        r3 = mem[r1]
        r6 = ~r3
        r6 = r6 + 1
        r2 = r1 - 1
        while True:  # SHIFT
            r0 = r2 + r5
            if r0 < 0:  # BRn INSERT: j < 0
                break
            r4 = mem[r2]
            r0 = r4 + r6
            if r0 <= 0:  # BRnz INSERT: a[j] <= key
                break
            mem[r2 + 1] = r4  # a[j + 1] = a[j]
            r2 = r2 - 1
        mem[r2 + 1] = r3  # INSERT
        r1 = r1 + 1
        r7 = r7 - 1
        if r7 <= 0:  # BRp NEXT_I
            break

    r2 = mem[0x304B]  # LD R2, ARRAY_AT; the checksum
    r3 = mem[0x3047]  # LD R3, COUNT
    r4 = 0  # s
    r1 = 0  # t
    while True:  # SUM
        r0 = mem[r2]
        r4 = r4 + r0
        r1 = r1 + r4
        r2 = r2 + 1
        r3 = r3 - 1
        if r3 <= 0:  # BRp SUM
            break
    return f"{r1 & 0xFFFF:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
