"""What a breakpoint costs a program debugged through `lc3jit dap`, until it is hit.

Each program runs under the debug adapter (in this process, through the protocol over
pipes, as an editor drives it) from configurationDone to its exit: once with no
breakpoint, once with a breakpoint on one line that is continued through at its hit. In
hot_breakpoint.asm that line (RARE) sits inside a loop of 1,000,000 iterations and runs
in the last one only; in the benchmark programs it is FINISH, reached once at the end,
as `lc3jit bench ENGINE@FINISH` measures for `lc3jit debug`. Median of --repeat runs,
alternating; the ratio is with / without.

    python examples/bench/dap_breakpoint.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

from lc3jit.editors.dap import Adapter
from lc3jit.editors.dap_wire import Channel

HERE = Path(__file__).parent
PROGRAMS = {
    "hot_breakpoint.asm": "RARE",
    "arith.asm": "FINISH",
    "fib.asm": "FINISH",
    "sieve.asm": "FINISH",
    "sort.asm": "FINISH",
    "strings.asm": "FINISH",
}


def line_of(path: Path, label: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.split()[:1] == [label])


def session(path: Path, line: int | None) -> float:
    """CPU seconds of this process (the adapter and its worker thread) from configurationDone to
    the exited event, continuing through each stop: CPU time, as the machine is shared."""
    to_adapter_r, to_adapter_w = os.pipe()
    from_adapter_r, from_adapter_w = os.pipe()
    client = Channel(os.fdopen(from_adapter_r, "rb"), os.fdopen(to_adapter_w, "wb"))
    adapter_out = os.fdopen(from_adapter_w, "wb")
    adapter = Adapter(Channel(os.fdopen(to_adapter_r, "rb"), adapter_out))
    thread = threading.Thread(target=adapter.serve)
    thread.start()

    def request(command: str, **arguments: object) -> None:
        client.send({"type": "request", "command": command, "arguments": arguments})

    def until(*names: str) -> dict:
        """The next event or response (by its command) among names."""
        while True:
            message = client.read()
            assert message is not None
            if message["type"] == "response" and not message["success"]:
                raise SystemExit(f"{path.name}: {message['command']}: {message['message']}")
            if message.get("event", message.get("command")) in names:
                return message

    request("initialize", adapterID="lc3")
    request("launch", program=str(path))
    until("initialized")
    adapter.sim.engine  # noqa: B018 - translated ahead of the timing, in both runs
    if line is not None:  # the code around it translated again, ahead of the timing too
        request("setBreakpoints", source={"path": str(path)}, breakpoints=[{"line": line}])
        until("setBreakpoints")
    start = time.process_time()
    request("configurationDone")
    while until("stopped", "exited")["event"] == "stopped":
        request("continue", threadId=1)
    seconds = time.process_time() - start
    request("disconnect")
    thread.join()
    adapter_out.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, median of {args.repeat} alternating runs")
    print("| program | breakpoint | without ms | with ms | ratio |\n|---|---|---:|---:|---:|")
    ratios = []
    for name, label in PROGRAMS.items():
        path = HERE / name
        line = line_of(path, label)
        without, with_ = [], []
        for _ in range(args.repeat):
            without.append(session(path, None))
            with_.append(session(path, line))
        a, b = statistics.median(without), statistics.median(with_)
        ratios.append(b / a)
        print(f"| {name} | {label} (line {line}) | {a * 1000:.0f} | {b * 1000:.0f} | {b / a:.2f} |")
    print(f"| geometric mean | | | | {statistics.geometric_mean(ratios):.2f} |")


if __name__ == "__main__":
    main()
