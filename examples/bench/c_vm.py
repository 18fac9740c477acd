"""The bench programs on the region engine against the classic C VM: the one of the "Write
your own virtual machine" tutorial (https://github.com/justinmeiners/lc3-vm, its
`docs/src/lc3.c`, MIT licence), given as the path of that C file.

The C file is compiled with `gcc -O2` into a cache folder outside the checkout (under
XDG_CACHE_HOME, or ~/.cache: `lc3jit-bench/c-vm/`, named by the source's hash). Each
program is assembled with `lc3jit asm` into the big-endian .obj that VM reads; the VM runs
it to HALT with standard input not a terminal (its tcgetattr then fails and it goes on,
and no program here reads a key). Its output must be lc3jit's, byte for byte, HALT's line
included, or the script stops: the two do the same work.

Each round runs, program by program, the C VM (the fastest of three processes) and then
each Python's `lc3jit bench PROGRAM --engines regions --repeat 3 --json`: the region
engine timed as `lc3jit bench` times it, CPU time of the run alone (translation before
it not counted), in a process of that Python, the fastest of its runs. Every other round
the Pythons go in the reverse order. The minimum over the rounds counts. The C VM's time
is its whole process's CPU (user + system, the kernel's account of that child, os.wait4)
less the same for a program that is only a HALT (its start-up, loading and exit), so both
sides are the run alone. The C VM counts no instructions: lc3jit's count of the same run
gives both their nanoseconds an instruction.

`--python PY` adds an interpreter with lc3jit importable (default: the one running this
script); `--jit PY` adds one run with PYTHON_JIT=1 (CPython's experimental JIT, 3.14+).
`--floor` times each program's plain-Python floor (`lc3jit bench --floor`) beside regions:
how far any Python translation is from the C VM, and how far regions are from that.

    python examples/bench/c_vm.py LC3_C [--rounds N] [--python PY]... [--jit PY]... [--floor]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PROGRAMS = ("arith", "fib", "sieve", "sort", "strings", "dispatch")
#: An image that is only HALT: the C VM's start-up, loading and exit.
HALT_ONLY = bytes((0x30, 0x00, 0xF0, 0x25))
C_RUNS = 3  # C VM processes a round, the fastest counted
REPEAT = 3  # region runs a round, in one `lc3jit bench`


class Side:
    """A Python (with or without its JIT) and its best region time by program."""

    def __init__(self, python: str, jit: bool) -> None:
        self.python = python
        self.jit = jit
        asked = [python, "-c", "import platform; print(platform.python_version())"]
        try:
            version = subprocess.run(asked, capture_output=True, text=True, check=False)
        except OSError as e:
            raise SystemExit(f"c_vm.py: {python}: {e.strerror or e}") from None
        if version.returncode != 0:
            raise SystemExit(f"c_vm.py: {python}: cannot run it")
        self.name = f"{version.stdout.strip()}{' JIT' if jit else ''}"
        self.best: dict[tuple[str, str], float] = {}  # by program and engine

    def bench(self, program: Path, floor: bool) -> tuple[dict[str, float], int, bytes]:
        """The fastest run of this round of regions (and of the floor, when asked and the
        program has one), the instructions, the output."""
        env = {name: value for name, value in os.environ.items() if name != "PYTHON_JIT"}
        if self.jit:
            env["PYTHON_JIT"] = "1"
        command = [self.python, "-m", "lc3jit", "bench", str(program), "--engines", "regions"]
        command += ["--repeat", str(REPEAT), "--json", *(["--floor"] if floor else [])]
        done = subprocess.run(command, capture_output=True, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(f"c_vm.py: {' '.join(command)}: {done.stderr.decode(errors='replace').strip()}")
        [report] = json.loads(done.stdout)["programs"]
        best = {engine["engine"]: min(engine["seconds"]) for engine in report["engines"]}
        return best, report["instructions"], report["output"].encode("latin-1")


def compiled(source: Path) -> Path:
    """The C VM built from source with gcc -O2, once per source text."""
    try:
        text = source.read_bytes()
    except OSError as e:
        raise SystemExit(f"c_vm.py: {source}: {e.strerror or e}") from None
    if shutil.which("gcc") is None:
        raise SystemExit("c_vm.py: gcc is not on the PATH")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lc3jit-bench" / "c-vm"
    binary = cache / f"lc3-{hashlib.sha256(text).hexdigest()[:16]}"
    if binary.exists():
        return binary
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as folder:
        built = Path(folder) / "lc3"
        done = subprocess.run(
            ["gcc", "-O2", "-x", "c", "-", "-o", str(built)], input=text, capture_output=True, check=False
        )
        if done.returncode != 0:
            first = (done.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[0]
            raise SystemExit(f"c_vm.py: {source} does not compile with gcc -O2: {first}")
        os.replace(built, binary)
    return binary


def c_run(vm: Path, image: Path) -> tuple[float, bytes]:
    """CPU seconds of one whole C VM process, and what it printed."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen([str(vm), str(image)], stdin=subprocess.DEVNULL, stdout=out)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        printed = out.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"c_vm.py: {vm} {image}: exit {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime, printed


def c_best(vm: Path, image: Path) -> tuple[float, bytes]:
    runs = [c_run(vm, image) for _ in range(C_RUNS)]
    return min(seconds for seconds, _ in runs), runs[0][1]


def assemble(name: str, folder: Path) -> Path:
    image = folder / f"{name}.obj"
    command = [sys.executable, "-m", "lc3jit", "asm", str(BENCH / f"{name}.asm"), "-o", str(image)]
    subprocess.run(command, capture_output=True, check=True)
    return image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the C VM's source: lc3-vm's docs/src/lc3.c")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the minimum counts")
    parser.add_argument("--python", action="append", default=[], help="a Python with lc3jit (repeatable)")
    parser.add_argument(
        "--jit", action="append", default=[], help="a Python run with PYTHON_JIT=1 (repeatable)"
    )
    parser.add_argument("--floor", action="store_true", help="time the plain-Python floors too")
    parser.add_argument("--programs", default=",".join(PROGRAMS), help="of examples/bench, comma-separated")
    arguments = parser.parse_args()
    names = arguments.programs.split(",")
    if unknown := [name for name in names if name not in PROGRAMS]:
        parser.error(f"no bench program {unknown[0]!r}; choose from {', '.join(PROGRAMS)}")
    if arguments.rounds < 1:
        parser.error("--rounds must be at least 1")
    vm = compiled(arguments.source)
    pythons = arguments.python or ([] if arguments.jit else [sys.executable])
    sides = [Side(python, False) for python in pythons] + [Side(python, True) for python in arguments.jit]
    counts: dict[str, int] = {}
    c_times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        halt = folder / "halt.obj"
        halt.write_bytes(HALT_ONLY)
        images = {name: assemble(name, folder) for name in names}
        start_up = math.inf
        for round_ in range(arguments.rounds):
            start_up = min(start_up, c_best(vm, halt)[0])
            for name in names:
                seconds, printed = c_best(vm, images[name])
                c_times[name] = min(c_times.get(name, math.inf), seconds)
                for side in sides if round_ % 2 == 0 else sides[::-1]:
                    best, counts[name], output = side.bench(BENCH / f"{name}.asm", arguments.floor)
                    if output != printed:
                        raise SystemExit(
                            f"c_vm.py: {name}: the C VM printed {printed!r}, lc3jit on {side.name} {output!r}"
                        )
                    for engine, seconds in best.items():
                        side.best[name, engine] = min(side.best.get((name, engine), math.inf), seconds)
    load = os.getloadavg()[0]
    print(
        f"{arguments.rounds} rounds, load {load:.1f}; the C VM's start-up (a HALT): {start_up * 1e3:.2f} ms"
    )
    if short := [name for name in names if c_times[name] <= start_up]:
        raise SystemExit(f"c_vm.py: {short[0]}: the C VM ran it no longer than a HALT: nothing to compare")
    print_table(names, counts, {name: c_times[name] - start_up for name in names}, sides, arguments.floor)


def print_table(
    names: list[str], counts: dict[str, int], c_times: dict[str, float], sides: list[Side], floor: bool
) -> None:
    """ns an instruction, and each side's speed as a fraction of the C VM's (x C), with
    their geometric means (a floor's over the programs that have one)."""
    columns = [(side, engine) for side in sides for engine in ("regions", *(["python"] if floor else []))]
    heads = [f"{side.name} {'floor' if engine == 'python' else engine} ns (x C)" for side, engine in columns]
    print(f"\n| program | instructions | C VM ns | {' | '.join(heads)} |")
    print(f"|---|---:|---:|{'---:|' * len(columns)}")
    fractions: list[list[float]] = [[] for _ in columns]
    for name in names:
        c_ns = c_times[name] / counts[name] * 1e9
        cells = []
        for (side, engine), column in zip(columns, fractions, strict=True):
            if (name, engine) not in side.best:
                cells.append("")  # no floor for this program
                continue
            ns = side.best[name, engine] / counts[name] * 1e9
            column.append(c_ns / ns)
            cells.append(f"{ns:.1f} ({c_ns / ns:.2f})")
        print(f"| {name} | {counts[name]:,} | {c_ns:.2f} | {' | '.join(cells)} |")
    means = [math.exp(sum(map(math.log, f)) / len(f)) if f else math.nan for f in fractions]
    print(f"| geometric mean of x C | | | {' | '.join(f'{mean:.3f}' for mean in means)} |")


if __name__ == "__main__":
    main()
