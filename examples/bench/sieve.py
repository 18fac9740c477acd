"""sieve.asm by hand in Python: the same checksum, registers as locals, no emulation.

The floor for `lc3jit bench --floor`: `run()` returns what sieve.asm prints before HALT.
"""

from __future__ import annotations

N = 8192


def run() -> str:
    total = 0
    flags = [0] * N
    for _ in range(15):
        for k in range(N):
            flags[k] = 0
        for i in range(2, N):
            if not flags[i]:
                total = (total + i) & 0xFFFF
                for j in range(2 * i, N, i):
                    flags[j] = i
    return f"{total:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
