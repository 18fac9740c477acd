"""Start-up: CPU time of a whole `lc3jit` process for `asm`, `disasm`, `--help`
and a plain `run`, as a multiple of `python -c pass`; and what a translation-cache hit adds
to a run: the same short program run translated with its translations in the cache
(`--translate-after 0`), less the same run on the interpreter, bare and under `--os`.

Each round runs every command line once, in turn (interleaved, so that a change in the
machine's load touches all of them alike; every other round in the reverse order, so that
neither of two neighbours always runs second); a process's CPU time (user + system) and
page faults are read from the kernel's accounting of that child alone (os.wait4). The
minimum over the rounds counts. A first round, not counted, writes the modules' bytecode
caches and the translation cache, as a user's first run does (PYTHONDONTWRITEBYTECODE is
removed for the children). Also printed: how many modules each command imports (-X
importtime), and the load average before and after.

What a cache hit adds is a difference of two or three milliseconds between processes of
20-30, and the minimum of each process moves by 1-2 ms from one run of this script to the
next even on a quiet machine. So beside the difference of the minima it prints the median
of the rounds' own differences (the hit less the interpreted run of the same round) with
their spread (the middle half of the rounds lie between the quartiles), and the page faults
the hit adds (the kernel's work for fresh memory, the same every round). With --count,
valgrind's cachegrind counts the machine instructions of one run of each (exact and the
same every time, the user space only), and the difference is given in milliseconds at the
rate the interpreted run's minimum gives.

With --hits, only the runs the cache-hit rows compare (and `python -c pass`): those need
many rounds on a shared machine, and these are a third of the work of a round.

Start-up is measured as a user meets it: in a virtual environment where lc3jit is installed
as a user installs it (`pip install`, not a development install, whose `.pth` finder makes
`python -c pass` import some sixty modules instead of some twenty-five and so looks twice
as slow), with the current pip, whose `lc3jit` script imports only `sys` (pip before 24.1
wrote one that imports `re` first: 0.6x of `python -c pass` more). With --fresh the script
makes that environment in a temporary folder (from PyPI and this checkout) and measures
there; without it, it measures the environment of the Python that runs it.

    python examples/bench/command_startup.py [--fresh] [--hits] [--count] [ROUNDS]  (default 15)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
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
VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
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


class Measured:
    """A command's rounds: CPU seconds and page faults of each."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.faults: list[int] = []


def measure(argv: list[str], cwd: Path, into: Measured | None = None) -> None:
    child = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    if into is not None:
        into.seconds.append(usage.ru_utime + usage.ru_stime)
        into.faults.append(usage.ru_minflt + usage.ru_majflt)


def instructions(argv: list[str], cwd: Path) -> int:
    """Machine instructions of one run, counted by cachegrind (user space only), with the
    same hash seed for every run: str hashes laid out dicts and sets differently in each
    process, and moved a count by a few hundred thousand, a twentieth of what a hit adds."""
    counted = [*VALGRIND, *argv]
    seeded = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(counted, cwd=cwd, env=seeded, capture_output=True, text=True, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from {' '.join(counted)}")
    return int(found[1].replace(",", ""))


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
    parser.add_argument("--count", action="store_true", help="count the hit rows' instructions (valgrind)")
    parser.add_argument(
        "--fresh", action="store_true", help="measure in a new environment as a user installs"
    )
    arguments = parser.parse_args()
    if arguments.fresh:
        fresh_environment([arg for arg in sys.argv[1:] if arg != "--fresh"])
    if arguments.count and shutil.which("valgrind") is None:
        parser.error("--count needs valgrind (cachegrind) on the PATH")
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
            measure(command_line(args), cwd)
        load = os.getloadavg()[0]
        runs = {name: Measured() for name in commands}
        order = list(commands.items())
        for _ in range(rounds):
            for name, args in order:
                measure(command_line(args), cwd, runs[name])
            order.reverse()
        base = min(runs["python -c pass"].seconds)
        print(
            f"Python {sys.version.split()[0]}, {rounds} rounds, load {load:.1f} -> {os.getloadavg()[0]:.1f}"
        )
        print(f"{'command':<36}{'CPU ms (min)':>14}{'x python -c pass':>18}{'modules':>9}")
        for name, args in commands.items():
            best = min(runs[name].seconds)
            count = modules(command_line(args), cwd)
            print(f"{name:<36}{best * 1000:>14.1f}{best / base:>18.2f}{count:>9}")
        print(
            f"{'':<36}{'ms: min-min':>12}{'median':>8}{'quartiles':>14}{'faults':>8}"
            + (f"{'M instr.':>10}{'ms':>6}" if arguments.count else "")
        )
        for name, (hit, interpreted) in CACHE_HITS.items():
            print(f"{name:<36}{hit_row(runs[hit], runs[interpreted])}", end="")
            if arguments.count:
                added = instructions(command_line(COMMANDS[hit]), cwd)
                own = instructions(command_line(COMMANDS[interpreted]), cwd)
                rate = min(runs[interpreted].seconds) / own  # CPU seconds an instruction
                print(f"{(added - own) / 1e6:>10.2f}{(added - own) * rate * 1000:>6.1f}", end="")
            print()


def fresh_environment(args: list[str]) -> None:
    """Make a virtual environment with the current pip and lc3jit installed from this
    checkout, measure in it (this script again, with args), and exit as it does."""
    with tempfile.TemporaryDirectory() as folder:
        python = str(Path(folder) / "bin" / "python")
        subprocess.run([sys.executable, "-m", "venv", folder], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", str(EXAMPLES.parent)], check=True)
        raise SystemExit(subprocess.run([python, __file__, *args], check=False).returncode)


def hit_row(hit: Measured, interpreted: Measured) -> str:
    """What the hit adds: the difference of the minima, the median of the rounds' differences
    and their quartiles (ms); the page faults it adds (the median of the rounds')."""
    differences = [(h - i) * 1000 for h, i in zip(hit.seconds, interpreted.seconds, strict=True)]
    low, _, high = statistics.quantiles(differences, n=4) if len(differences) > 1 else differences * 3
    faults = statistics.median(h - i for h, i in zip(hit.faults, interpreted.faults, strict=True))
    minima = (min(hit.seconds) - min(interpreted.seconds)) * 1000
    median = statistics.median(differences)
    return f"{minima:>12.1f}{median:>8.1f}{f'{low:.1f}..{high:.1f}':>14}{faults:>8.0f}"


if __name__ == "__main__":
    main()
