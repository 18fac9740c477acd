"""Synthetic big programs: N words of straight-line code and loops, for the big-program benchmark.

    python examples/bench/synthetic.py WORDS [-o OUT.asm] [--passes P] [--seed S]

Real programs grow by adding more of the same: more routines, more loops, more straight
code between them. This writes such a program of about WORDS words (1k, 4k, 16k, 48k in
`big_programs.py`) from a seed: a chain of chunks, each a little straight-line code (adds,
logic, loads and stores on a data area through R6, a branch over a few words), a counted
loop, and every few chunks a call to a small subroutine laid out beside it. The whole
chain runs `passes` times (its last word jumps back through a register, since branches
reach only 256 words), then the program prints one checksum letter and halts. Every
engine must end it in the same state; how often each word runs is the same at every
size (about 30 instructions per word per pass), so the sizes differ only in how much
code there is to translate.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ORIGIN = 0x3000
#: Words of the data area the code loads from and stores to (R6 points at it); the loops'
#: count and the passes left are the two words after them.
DATA_WORDS = 30
#: The iterations of each chunk's loop.
LOOP_TIMES = 60
#: How often the whole chain runs: each word then runs about 3,000 times (the loops' words
#: most), what a program whose loops are worth translating does.
PASSES = 120
#: A chunk calls a subroutine every this many chunks.
CALL_EVERY = 4

_ARITH = ("ADD R{d}, R{a}, R{b}", "ADD R{d}, R{a}, #{imm}", "AND R{d}, R{a}, R{b}", "NOT R{d}, R{a}")


def _arith(rng: random.Random) -> str:
    """One computing instruction on R1-R4 (R0 the checksum, R5 the loop count, R6 the data)."""
    d, a, b = (rng.randint(1, 4) for _ in range(3))
    return rng.choice(_ARITH).format(d=d, a=a, b=b, imm=rng.randint(-8, 7))


def _straight(rng: random.Random, n: int) -> list[str]:
    lines = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.15:
            lines.append(f"LDR R{rng.randint(1, 4)}, R6, #{rng.randrange(DATA_WORDS)}")
        elif kind < 0.25:
            lines.append(f"STR R{rng.randint(1, 4)}, R6, #{rng.randrange(DATA_WORDS)}")
        else:
            lines.append(_arith(rng))
    return lines


def _chunk(rng: random.Random, i: int) -> list[str]:
    """About 30 words: straight code with a forward branch, a counted loop, a call."""
    lines = _straight(rng, 5)
    lines += [f"ADD R{rng.randint(1, 4)}, R{rng.randint(1, 4)}, #0", f"BR{rng.choice('nzp')} S{i}"]
    lines += _straight(rng, 3)
    lines += [f"S{i}: LDR R5, R6, #{DATA_WORDS}"]
    lines += [f"L{i}: " + _arith(rng), *_straight(rng, 4), "ADD R0, R0, R1", "ADD R5, R5, #-1", f"BRp L{i}"]
    if i % CALL_EVERY == 0:
        lines += [f"JSR F{i}", f"BRnzp E{i}", f"F{i}: " + _arith(rng), *_straight(rng, 3), "RET"]
        lines += [f"E{i}: ADD R0, R0, R2"]
    return lines


def synthetic(words: int, passes: int = PASSES, seed: int = 1) -> str:
    """The assembly source of a program of about `words` words: code, then its data.

    The pass count lives in the data area's last word (random stores leave it alone):
    branches and LD reach only 256 words, R6 reaches the data from anywhere.
    """
    rng = random.Random(seed)
    head = ["LD R6, DATA_AT", "LD R5, PASSES", f"STR R5, R6, #{DATA_WORDS + 1}", "LD R5, TIMES"]
    head += [f"STR R5, R6, #{DATA_WORDS}", "AND R0, R0, #0", "BRnzp START"]
    head += [f"PASSES: .FILL #{passes}", f"TIMES: .FILL #{LOOP_TIMES}", "DATA_AT: .FILL DATA"]
    body = ["START: ADD R1, R0, #1"]
    tail = [
        f"LDR R5, R6, #{DATA_WORDS + 1}",
        "ADD R5, R5, #-1",
        f"STR R5, R6, #{DATA_WORDS + 1}",
        "BRz DONE",
        "LD R5, START_AT",
        "JMP R5",
        "DONE: AND R0, R0, #15",
        "LD R1, LETTER",
        "ADD R0, R0, R1",
        "OUT",
        "HALT",
        "LETTER: .FILL x41",
        "START_AT: .FILL START",
        f"DATA: .BLKW #{DATA_WORDS + 2}",
    ]
    i = 0
    while len(head) + len(body) + len(tail) + DATA_WORDS < words:
        body += _chunk(rng, i)
        i += 1
    lines = [*head, *body, *tail]
    return "\n".join([f"        .ORIG x{ORIGIN:04X}", *(_column(line) for line in lines), "        .END", ""])


def _column(line: str) -> str:
    """A label (written `NAME: `) at the margin, an instruction indented."""
    label, _, instruction = line.rpartition(": ")
    return f"{label:<9}{instruction}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("words", type=int)
    parser.add_argument("-o", "--output", type=Path)
    parser.add_argument("--passes", type=int, default=PASSES)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    text = synthetic(args.words, args.passes, args.seed)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
