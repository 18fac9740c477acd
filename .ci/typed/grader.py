"""A small grader written against lc3jit.api, as a course would write it: `.ci/package-check`
type-checks it with `mypy --strict` against the installed wheel, so the API's types (its
py.typed marker, its annotations) are what a course's type checker sees."""

from __future__ import annotations

from lc3jit.api import RunError, Simulator

SOURCE = """
        .ORIG x3000
        AND R0, R0, #0
        LD R1, N
        LEA R2, DATA
LOOP    LDR R3, R2, #0
        ADD R0, R0, R3
        ADD R2, R2, #1
        ADD R1, R1, #-1
        BRp LOOP
        HALT
N       .FILL #3
DATA    .FILL #4
        .FILL #5
        .FILL #6
        .END
"""


def grade(source: str = SOURCE) -> int:
    """Points out of 2: the sum in R0, and a run that ends by HALT."""
    points = 0
    sim = Simulator(source=source)
    try:
        sim.run(max_steps=10_000)
    except RunError as error:
        print(f"did not halt: {error}")
        return points
    points += 1
    total: int = sim.registers[0]
    if total == 15:
        points += 1
    first: int = sim.memory["DATA"]
    print(f"R0 = {total}, DATA = {first}, output {sim.output!r}")
    return points


if __name__ == "__main__":
    raise SystemExit(0 if grade() == 2 else 1)
