"""What the debugger's slower paths cost: watches on registers and reads, and reverse-finish.

    python examples/bench/debug_costs.py [ROUNDS]

1. A run of about 10^6 instructions (a subroutine looping 40 x 8,333 times) to its end:
   on regions and on interp without watches, then with `rwatch` on a word it never reads,
   with `watch R5` (a register it never changes), which run in the debugger's checking
   interpreter, and with `watch R3` (the outer counter), continued through its 40 hits.
   CPU time, min of ROUNDS (default 3), interleaved, as ratios to regions.
2. `reverse-finish` from the subroutine's last instruction, 10^6 instructions after the
   call that entered it: the calls and returns are found by running the history's
   stretches again, then the debugger goes back to the call on the engine. Seconds, per
   engine, min of ROUNDS.
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lc3jit.api import Simulator
from lc3jit.debugging.debugger import Debugger

SOURCE = """\
        .ORIG x3000
        JSR WORK
        HALT
WORK    LD R3, OUTER
OLOOP   LD R1, INNER
ILOOP   ADD R2, R2, #1
        ADD R1, R1, #-1
        BRp ILOOP
        ADD R3, R3, #-1
        BRp OLOOP
LAST    RET
OUTER   .FILL #40
INNER   .FILL #8333
UNREAD  .FILL #0
        .END
"""


def debugger(path: Path, engine: str, *commands: str) -> Debugger:
    dbg = Debugger(lambda: Simulator(path, engine=engine), io.StringIO())
    for command in commands:
        dbg.execute(command)
        assert dbg.last_error is None, dbg.last_error
    return dbg


def to_the_end(dbg: Debugger) -> None:
    """Continue through every watch hit to HALT."""
    while dbg.cont().reason == "watch":
        pass


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="?", type=int, default=3, help="rounds, the minimum kept (default 3)")
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "work.asm"
        path.write_text(SOURCE)
        runs = {
            "regions": ("regions",),
            "interp": ("interp",),
            "regions + rwatch UNREAD": ("regions", "rwatch UNREAD"),
            "regions + watch R5": ("regions", "watch R5"),
            "regions + watch R3, 40 hits": ("regions", "watch R3"),
        }
        best: dict[str, float] = {}
        count = 0
        for _ in range(rounds):
            for name, (engine, *commands) in runs.items():
                dbg = debugger(path, engine, *commands)
                best[name] = min(best.get(name, 1e9), cpu(lambda dbg=dbg: to_the_end(dbg)))
                count = dbg.sim.machine.icount
        print(f"a run of {count:,} instructions to HALT (CPU s, min of {rounds}; ratio to regions)")
        for name, seconds in best.items():
            print(f"  {name:<28} {seconds:7.3f} s  {seconds / best['regions']:6.1f}x")
        print("reverse-finish from LAST back to the JSR (CPU s, min of rounds)")
        for engine in ("regions", "blocks", "interp"):
            times = []
            for _ in range(rounds):
                dbg = debugger(path, engine, "break LAST")
                dbg.cont()
                start = dbg.sim.machine.icount
                times.append(cpu(dbg.reverse_finish))
                assert (dbg.sim.pc, dbg.sim.machine.icount) == (0x3000, 0)  # at the JSR, before it
            print(f"  {engine:<8} {min(times):7.3f} s  (from instruction {start:,})")


if __name__ == "__main__":
    main()
