"""Start-up (issue 20): CPU time of a whole `lc3jit` process for `asm`, `disasm`, `--help`
and a plain `run`, as a multiple of `python -c pass`; and what a translation-cache hit adds
to a run: the same short program run translated with its translations in the cache
(`--translate-after 0`), less the same run on the interpreter, bare and under `--os`.

Each round runs every command line once, in turn (interleaved, so that a change in the
machine's load touches all of them alike); a process's CPU time (user + system) is read
from the kernel's accounting of that child alone (os.wait4). The minimum over the rounds
counts. A first round, not counted, writes the modules' bytecode caches and the
translation cache, as a user's first run does (PYTHONDONTWRITEBYTECODE is removed for the
children). Also printed: how many modules each command imports (-X importtime), and the
load average before and after.

With --hits, only the runs the cache-hit rows compare (and `python -c pass`): a difference
of two or three milliseconds between processes of 30 needs many rounds on a shared machine,
and these are a third of the work of a round.

    python examples/bench/command_startup.py [--hits] [ROUNDS]      (default 15)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "lc3jit --help": ["--help"],
    "lc3jit asm hello.asm": ["asm", "hello.asm"],
    "lc3jit disasm hello.obj": ["disasm", "hello.obj"],
    "lc3jit run hello.obj": ["run", "hello.obj"],
    "run --engine interp hello.obj": ["run", "--engine", "interp", "hello.obj"],
    "run -t0 hello.obj (hit)": ["run", "--translate-after", "0", "hello.obj"],
    "run --os interp echo.obj": ["run", "--os", "--engine", "interp", "--input", "keys", "echo.obj"],
    "run --os -t0 echo.obj (hit)": ["run", "--os", "--translate-after", "0", "--input", "keys", "echo.obj"],
}
#: What a cache hit adds: a translated run from the cache, less the same run interpreted.
CACHE_HITS = {
    "a cache hit adds (hello.obj)": ("run -t0 hello.obj (hit)", "run --engine interp hello.obj"),
    "a cache hit adds (echo.obj --os)": ("run --os -t0 echo.obj (hit)", "run --os interp echo.obj"),
}


def command_line(args: list[str]) -> list[str]:
    """The lc3jit entry point as installed beside this Python (or the module, without it)."""
    if args[0] == "-c":
        return [sys.executable, *args]
    script = Path(sys.executable).parent / "lc3jit"
    return [str(script), *args] if script.exists() else [sys.executable, "-m", "lc3jit", *args]


def cpu_seconds(argv: list[str], cwd: Path) -> float:
    child = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    return usage.ru_utime + usage.ru_stime


def modules(argv: list[str], cwd: Path) -> int:
    """Modules imported, as -X importtime lists them."""
    python = [sys.executable, "-X", "importtime"]
    runs = python + (argv[1:] if argv[0] == sys.executable else ["-m", "lc3jit", *argv[1:]])
    done = subprocess.run(runs, cwd=cwd, capture_output=True, text=True, check=True)
    return sum(line.startswith("import time:") for line in done.stderr.splitlines()) - 1  # the header


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", nargs="?", type=int, default=15, help="rounds counted (default 15)")
    parser.add_argument("--hits", action="store_true", help="only the runs the cache-hit rows compare")
    arguments = parser.parse_args()
    rounds = arguments.rounds
    compared = {name for pair in CACHE_HITS.values() for name in pair} | {"python -c pass"}
    commands = {name: args for name, args in COMMANDS.items() if not arguments.hits or name in compared}
    with tempfile.TemporaryDirectory() as work:
        cwd = Path(work)
        for name in ("hello.asm", "hello.obj", "hello.sym", "echo.obj", "echo.sym"):
            shutil.copy(EXAMPLES / name, cwd / name)
        (cwd / "keys").write_bytes(b"keys\n")
        os.environ["XDG_CACHE_HOME"] = str(cwd / "cache")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        for args in commands.values():  # the bytecode caches written
            cpu_seconds(command_line(args), cwd)
        load = os.getloadavg()[0]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, args in commands.items():
                times[name].append(cpu_seconds(command_line(args), cwd))
        base = min(times["python -c pass"])
        print(
            f"Python {sys.version.split()[0]}, {rounds} rounds, load {load:.1f} -> {os.getloadavg()[0]:.1f}"
        )
        print(f"{'command':<36}{'CPU ms (min)':>14}{'x python -c pass':>18}{'modules':>9}")
        for name, args in commands.items():
            best = min(times[name])
            count = modules(command_line(args), cwd)
            print(f"{name:<36}{best * 1000:>14.1f}{best / base:>18.2f}{count:>9}")
        for name, (hit, interpreted) in CACHE_HITS.items():
            print(f"{name:<36}{(min(times[hit]) - min(times[interpreted])) * 1000:>14.1f}")


if __name__ == "__main__":
    main()
