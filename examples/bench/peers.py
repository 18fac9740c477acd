"""What the bench scripts share to measure against peers: whole child processes' CPU time,
and lc3-ensemble (pip `lc3-ensemble-test`, the Rust simulator with its own OS) set up and
timed one way.

lc3-ensemble has no wheel for 3.15, so a script run by 3.15 drives it in a process of a
Python that has it (`ensemble_command`), where this module is imported without lc3jit.
Its top-level imports stay `os`, `sys` and `time` (which Python has loaded already): a
`once` process is lc3-ensemble's whole run, timed against whole `lc3jit run` processes,
and every import here would count against lc3-ensemble.

    python peers.py once SOURCE KEYS    one run: seconds and instructions, then the output
    python peers.py worker SOURCE KEYS  a run per line read; a line of JSON back for each
"""

from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def ensemble_run(source: str, keys: str = "") -> tuple[float, str, int]:
    """(CPU seconds of run() alone, output, instructions) of a fresh lc3-ensemble simulator,
    assembled and loaded before the clock starts."""
    from ensemble_test import ensemble_test as ensemble

    simulator = ensemble.Simulator()
    simulator.init(ensemble.MemoryFillType.Single, 0)
    simulator.load_code(source)
    simulator.input = keys
    began = time.process_time()
    simulator.run()
    return time.process_time() - began, simulator.output, simulator.instructions_run


def child_cpu(command: list[str], stdin: bytes = b"", exits: tuple[int, ...] = (0,)) -> tuple[float, bytes]:
    """CPU seconds (user + system) of a whole child process, and what it printed; an exit
    status other than `exits` stops the script, since its time would measure a failure.

    The child runs without PYTHONDONTWRITEBYTECODE, as a user's second run does: with it
    set (some shells and CI images set it), no module's bytecode cache is ever written and
    every `lc3jit` process compiles its ~40 modules from source, some 90 ms on 3.11 that
    would swamp the 5-30 ms a whole-process comparison is about."""
    import resource
    import subprocess

    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, input=stdin, capture_output=True, check=False, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in exits:
        sys.exit(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def once(source_path: str, keys_path: str) -> None:
    seconds, output, count = ensemble_run(*_read(source_path, keys_path))
    print(seconds, count)
    sys.stdout.write(output)


def worker(source_path: str, keys_path: str) -> None:
    import json

    source, keys = _read(source_path, keys_path)
    for _ in sys.stdin:
        seconds, output, count = ensemble_run(source, keys)
        print(json.dumps([seconds, output, count]), flush=True)


def _read(source_path: str, keys_path: str) -> tuple[str, str]:
    with open(source_path) as source, open(keys_path) as keys:
        return source.read(), keys.read()


def ensemble_command(python: str, mode: str, source: str, keys: str) -> list[str]:
    """The command line of a `once` or `worker` process: `-c`, not this file as a script,
    so that argparse (the script's) is not imported in the process timed."""
    call = f"import sys; sys.path.insert(0, {HERE!r}); import peers; peers.{mode}(*sys.argv[1:])"
    return [python, "-c", call, source, keys]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("once", "worker"))
    parser.add_argument("source", help="the program's assembly source")
    parser.add_argument("keys", help="a file of the keys to type")
    arguments = parser.parse_args()
    {"once": once, "worker": worker}[arguments.mode](arguments.source, arguments.keys)
