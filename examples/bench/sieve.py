"""sieve.asm transliterated into Python: the floor for `lc3jit bench --floor`, written by
the rules in lc3jit/inspection/bench.py.

MINUS_N is -8192, not xE000. The sum of the primes (54 million over 15 passes) is masked once,
by the f-string that stands for FINISH.
"""

from __future__ import annotations


def run() -> str:
    mem = [0] * 0x10000
    mem[0x3038] = 8192  # N
    mem[0x3039] = -8192  # MINUS_N
    mem[0x303A] = 15  # PASSES
    mem[0x303B] = 0x303E  # FLAGS_AT: FLAGS .BLKW #8192 from x303E

    r0 = 0  # zero, to clear with
    r5 = 0  # the sum
    r4 = mem[0x3039]  # LD R4, MINUS_N
    r6 = mem[0x303A]  # LD R6, PASSES
    r7 = mem[0x303B]  # LD R7, FLAGS_AT: flags[k] at R7 + k, nonzero when k is composite
    while True:  # PASS
        r1 = r7  # ADD R1, R7, #0
        r2 = mem[0x3038]  # LD R2, N
        while True:  # CLEAR
            mem[r1] = r0
            r1 = r1 + 1
            r2 = r2 - 1
            if r2 <= 0:  # BRp CLEAR
                break
        r1 = 0
        r1 = r1 + 2  # i = 2
        while True:  # OUTER
            r2 = r1 + r4
            if r2 >= 0:  # BRzp DONE: i reached N
                break
            r3 = r7 + r1
            r2 = mem[r3]
            if r2 == 0:  # BRnp NEXT skips a composite
                r5 = r5 + r1  # a prime: add it, mark its multiples from 2i
                r2 = r1 + r1
                while True:  # MARK
                    r3 = r2 + r4
                    if r3 >= 0:  # BRzp NEXT
                        break
                    r3 = r7 + r2
                    mem[r3] = r1
                    r2 = r2 + r1
            r1 = r1 + 1  # NEXT
        r6 = r6 - 1  # DONE
        if r6 <= 0:  # BRp PASS
            break
    r1 = r5  # ADD R1, R5, #0
    return f"{r1 & 0xFFFF:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
