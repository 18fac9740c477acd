"""arith.asm by hand in Python: the same checksum, registers as locals, no emulation.

The floor for `lc3jit bench --floor`: `run()` returns what arith.asm prints before HALT.
"""

from __future__ import annotations


def run() -> str:
    x = s = 0
    for _ in range(12):
        for i in range(30000, 0, -1):
            x = (5 * x + i) & 0xFFFF
            s = (s + (~x & 0x5A5A)) & 0xFFFF
    return f"{(x + s) & 0xFFFF:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
