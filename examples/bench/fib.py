"""fib.asm transliterated into Python: the floor for `lc3jit bench --floor`, written by the
rules in lc3jit/inspection/bench.py.

FIB is a recursive Python function with the program's stack traffic: R7 (the return address
JSR sets) and n are pushed to memory at R6 and read back; R6, which FIB keeps, is an argument,
and so is the R7 that each JSR passes. fib(25) = 75,025 is masked once, by the f-string that
stands for FINISH.
"""

from __future__ import annotations


def fib(r0: int, r6: int, r7: int, mem: list[int]) -> int:
    """FIB: R0 = fib(R0); R1 is clobbered, R6 is kept."""
    r1 = r0 - 2
    if r1 < 0:  # BRn FIB_BASE: fib(0) = 0, fib(1) = 1
        return r0
    r6 = r6 - 1
    mem[r6] = r7  # push the return address
    r6 = r6 - 1
    mem[r6] = r0  # push n
    r0 = r0 - 1
    r0 = fib(r0, r6, 0x300D, mem)  # JSR FIB: fib(n - 1)
    r1 = mem[r6]  # n
    mem[r6] = r0  # its slot now holds fib(n - 1)
    r0 = r1 - 2
    r0 = fib(r0, r6, 0x3011, mem)  # JSR FIB: fib(n - 2)
    r1 = mem[r6]
    r0 = r0 + r1
    r7 = mem[r6 + 1]  # LDR R7, R6, #1
    r6 = r6 + 2
    return r0  # RET


def run() -> str:
    mem = [0] * 0x10000
    mem[0x302F] = 0xFE00  # STACK
    mem[0x3030] = 25  # ARGUMENT

    r6 = mem[0x302F]  # LD R6, STACK: the stack grows down from xFE00
    r0 = mem[0x3030]  # LD R0, ARGUMENT
    r0 = fib(r0, r6, 0x3003, mem)  # JSR FIB
    r1 = r0  # ADD R1, R0, #0
    return f"{r1 & 0xFFFF:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
