"""strings.asm transliterated into Python: the floor for `lc3jit bench --floor`, written by
the rules in lc3jit/inspection/bench.py.

MINUS_LOWER_A is -97, not xFF9F. Subroutines are Python functions; JSRR R2 calls the one at
the address in R2, which the program loads from its table in memory (`code` maps the four
addresses to the functions). HASH wraps s and t where it stores them (ST), once a call
(unwrapped, t would reach 8 * 10**11, far past one-digit ints).
"""

from __future__ import annotations

TEXT = "The Quick Brown Fox Jumps Over The Lazy Dog, 0123456789 times!"


def upper(mem: list[int]) -> None:
    """UPPER: a-z to A-Z."""
    r1 = 0x3079  # LEA R1, TEXT
    while True:  # UP_NEXT
        r0 = mem[r1]
        if r0 == 0:  # BRz UP_END
            return
        r2 = mem[0x3073]  # LD R2, MINUS_LOWER_A
        r2 = r0 + r2
        if r2 >= 0:  # BRn UP_KEEP: below 'a'
            r2 = r2 - 16
            r2 = r2 - 10
            if r2 < 0:  # BRzp UP_KEEP: above 'z'
                r0 = r0 - 16
                r0 = r0 - 16
                mem[r1] = r0
        r1 = r1 + 1  # UP_KEEP


def lower(mem: list[int]) -> None:
    """LOWER: A-Z to a-z."""
    r1 = 0x3079  # LEA R1, TEXT
    while True:  # LO_NEXT
        r0 = mem[r1]
        if r0 == 0:  # BRz LO_END
            return
        r2 = mem[0x3074]  # LD R2, MINUS_UPPER_A
        r2 = r0 + r2
        if r2 >= 0:  # BRn LO_KEEP: below 'A'
            r2 = r2 - 16
            r2 = r2 - 10
            if r2 < 0:  # BRzp LO_KEEP: above 'Z'
                r0 = r0 + 15
                r0 = r0 + 15
                r0 = r0 + 2
                mem[r1] = r0
        r1 = r1 + 1  # LO_KEEP


def reverse(mem: list[int]) -> None:
    """REVERSE: in place, from both ends."""
    r1 = 0x3079  # LEA R1, TEXT
    r2 = 0x3079  # LEA R2, TEXT
    while True:  # RV_FIND: R2 to the terminator, then back one
        r0 = mem[r2]
        if r0 == 0:  # BRz RV_LAST
            break
        r2 = r2 + 1
    r2 = r2 - 1  # RV_LAST
    while True:  # RV_SWAP
        r0 = ~r2
        r0 = r0 + 1
        r0 = r1 + r0
        if r0 >= 0:  # BRzp RV_END: the ends met
            return
        r0 = mem[r1]
        r3 = mem[r2]
        mem[r1] = r3
        mem[r2] = r0
        r1 = r1 + 1
        r2 = r2 - 1


def rotate(mem: list[int]) -> None:
    """ROTATE: the first character moves to the end."""
    r1 = 0x3079  # LEA R1, TEXT
    r3 = mem[r1]
    while True:  # RO_NEXT
        r0 = mem[r1 + 1]
        if r0 == 0:  # BRz RO_END
            break
        mem[r1] = r0
        r1 = r1 + 1
    mem[r1] = r3  # RO_END


def hash_text(mem: list[int]) -> None:
    """HASH: folds the string into HASH_S and HASH_T."""
    r1 = 0x3079  # LEA R1, TEXT
    r2 = mem[0x3075]  # LD R2, HASH_S
    r3 = mem[0x3076]  # LD R3, HASH_T
    while True:  # HA_NEXT
        r0 = mem[r1]
        if r0 == 0:  # BRz HA_END
            break
        r2 = r2 + r0
        r3 = r3 + r2
        r1 = r1 + 1
    mem[0x3075] = r2 & 0xFFFF  # ST R2, HASH_S, wrapped once a call
    mem[0x3076] = r3 & 0xFFFF  # ST R3, HASH_T


def run() -> str:
    mem = [0] * 0x10000
    for k, address in enumerate((0x3012, 0x3031, 0x3021, 0x3044)):
        mem[0x300E + k] = address  # TABLE: UPPER, REVERSE, LOWER, ROTATE
    mem[0x3072] = 600  # ROUNDS
    mem[0x3073] = -97  # MINUS_LOWER_A
    mem[0x3074] = -65  # MINUS_UPPER_A
    for k, c in enumerate(TEXT):
        mem[0x3079 + k] = ord(c)  # TEXT .STRINGZ, its terminator already 0
    code = {0x3012: upper, 0x3031: reverse, 0x3021: lower, 0x3044: rotate}

    r6 = mem[0x3072]  # LD R6, ROUNDS
    while True:  # ROUND
        r4 = 0x300E  # LEA R4, TABLE
        r5 = 0
        r5 = r5 + 4  # operations left in this round
        while True:  # OPERATE
            r2 = mem[r4]
            code[r2](mem)  # JSRR R2
            hash_text(mem)  # JSR HASH
            r4 = r4 + 1
            r5 = r5 - 1
            if r5 <= 0:  # BRp OPERATE
                break
        r6 = r6 - 1
        if r6 <= 0:  # BRp ROUND
            break
    r1 = mem[0x3076]  # LD R1, HASH_T
    return f"{r1 & 0xFFFF:04X}\n"


if __name__ == "__main__":
    print(run(), end="")
