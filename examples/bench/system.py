"""Full-system mode and a whole game, timed: what a user of `--os` and of 2048 waits for.

Two measurements, each interleaving what it compares (engine after engine, round after
round) and keeping the minimum CPU time of the rounds, so that a busy spell of a shared
machine falls on all of them alike:

- `echo`: examples/echo.obj under the OS (`--os`), echoing KEYS keys through the OS's own
  GETC, OUT and PUTS (16 instructions a key, both editions). In one process, per engine:
  the CPU time of the run alone, per key: from the first instruction to HALT, the
  program loaded and booted and (as in `lc3jit bench`) translated before, that time shown
  apart; the engine built long-lived, as `lc3jit run` builds it. Beside the 3rd edition's
  rows, in the same rounds (each round: interp, blocks, regions, then lc3-ensemble),
  lc3-ensemble (pip `lc3-ensemble-test`, its own OS in Rust) running the same source with
  the same keys, timed the same way: the CPU time of its `run()` alone, assembled and
  loaded before. It runs in a worker process of a Python that has it (`--ensemble-python`;
  by default this one, when it has it): its time does not depend on the Python driving
  it, and 3.15 has no wheel of it. Then whole `lc3jit run --os` processes
  (`--translate-after 0`, the translation cache warm, as a second run has it), against a
  whole Python process running lc3-ensemble.
- `2048`: examples/2048.obj playing a scripted 200-move game (`n`, then `wasd` 50 times;
  the run ends when the keys do, exit 5), as whole `lc3jit run` processes: interp
  against regions (the default: tiered, the translation cache warm).

Every engine must print what the first one printed; a difference stops the script.
Run it with each Python: `python examples/bench/system.py [--rounds N] [--keys N]`.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from peers import child_cpu, ensemble_command  # type: ignore[import-not-found]

from lc3jit.session import ENGINES, boot, load_images, os_images, run_engine
from lc3jit_runtime.capture import CapturedConsole
from lc3jit_runtime.collector import long_lived

EXAMPLES = Path(__file__).resolve().parent.parent
ECHO = EXAMPLES / "echo.obj"
GAME = EXAMPLES / "2048.obj"
GAME_KEYS = b"n" + b"wasd" * 50
ENGINE_NAMES = ("interp", "blocks", "regions")


def echo_keys(count: int) -> bytes:
    return b"a" * (count - 1) + b"\n"


def in_process(engine: str, edition: int, keys: bytes) -> tuple[float, float, bytes, int]:
    """(translation CPU seconds, run CPU seconds, output, instructions) of one run, the
    engine built long-lived as `lc3jit run` builds it (launch.py: what lives until the
    run ends frozen out of the collector's sight, unfrozen after). Built plainly, a full
    collection falls in the run and traverses the translations and the machine: some
    1.5 ms, a third of a 5,000-key regions run, that `lc3jit run` does not pay."""
    console = CapturedConsole(keys)
    machine = boot(load_images([ECHO]), console, edition, system=os_images(edition))
    began = time.process_time()
    built = long_lived(ENGINES[engine])(machine)
    translated = time.process_time()
    try:
        result = run_engine(built)
    finally:
        gc.unfreeze()
    ran = time.process_time()
    if result.outcome.reason != "halt":
        sys.exit(f"echo on {engine}: ended with {result.outcome.reason}")
    return translated - began, ran - translated, console.output, machine.icount


def ensemble_python(named: str | None) -> str | None:
    """The Python to run lc3-ensemble with: the one named, else this one when it has it."""
    if named is not None:
        probe = subprocess.run([named, "-c", "import ensemble_test"], capture_output=True, check=False)
        if probe.returncode:
            sys.exit(
                f"--ensemble-python {named}: cannot import ensemble_test (pip install lc3-ensemble-test)"
            )
        return named
    return sys.executable if importlib.util.find_spec("ensemble_test") else None


class Ensemble:
    """lc3-ensemble running echo in a worker process (peers.worker), a round a call."""

    def __init__(self, python: str, scratch: Path, keys: bytes) -> None:
        key_file = scratch / "keys"
        key_file.write_bytes(keys)
        self.keys = keys
        self.worker = subprocess.Popen(
            ensemble_command(python, "worker", str(ECHO.with_suffix(".asm")), str(key_file)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self) -> tuple[float, bytes]:
        """(run CPU seconds, output): the output must be the echo lc3jit printed (less its
        HALT message: lc3-ensemble's HALT stops at once)."""
        assert self.worker.stdin is not None and self.worker.stdout is not None
        self.worker.stdin.write("run\n")
        self.worker.stdin.flush()
        seconds, output, _ = json.loads(self.worker.stdout.readline())
        if not output.endswith(self.keys.decode()):
            sys.exit(f"lc3-ensemble printed {output[-40:]!r}, not the keys echoed")
        return seconds, output.encode()

    def close(self) -> None:
        assert self.worker.stdin is not None
        self.worker.stdin.close()
        self.worker.wait()


def lc3jit(*args: str) -> list[str]:
    return [sys.executable, "-m", "lc3jit", "run", *args]


def best(rounds: int, runs: dict[str, Callable[[], float]]) -> dict[str, float]:
    """The minimum of each run's seconds over the rounds, interleaved."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            times[name].append(run())
    return {name: min(seconds) for name, seconds in times.items()}


def same(what: str, outputs: dict[str, bytes]) -> None:
    if len(set(outputs.values())) > 1:
        sys.exit(f"{what}: the engines printed different things: {sorted(outputs)}")


def echo(rounds: int, key_count: int, python: str | None) -> None:
    keys = echo_keys(key_count)
    with tempfile.TemporaryDirectory() as scratch:
        ensemble = Ensemble(python, Path(scratch), keys) if python else None
        try:
            for edition in (3, 2):
                echo_rows(rounds, keys, edition, ensemble if edition == 3 else None)
        finally:
            if ensemble is not None:
                ensemble.close()
    whole_process(rounds, keys, python)


def echo_rows(rounds: int, keys: bytes, edition: int, ensemble: Ensemble | None) -> None:
    """The in-process rows of one edition, lc3-ensemble's with the 3rd's, in the same rounds."""
    outputs: dict[str, bytes] = {}
    translation: dict[str, float] = {}

    def run(engine: str) -> float:
        setup, seconds, outputs[engine], _ = in_process(engine, edition, keys)
        translation[engine] = setup
        return seconds

    def run_ensemble() -> float:
        assert ensemble is not None
        seconds, echoed = ensemble.run()
        if not outputs["interp"].startswith(echoed):
            sys.exit("lc3-ensemble printed other than the engines")
        return seconds

    runs: dict[str, Callable[[], float]] = {e: (lambda e=e: run(e)) for e in ENGINE_NAMES}
    if ensemble is not None:
        runs["lc3-ensemble"] = run_ensemble
    per_key = best(rounds, runs)
    same(f"echo, edition {edition}", outputs)
    key_count = len(keys)
    print(f"echo under --os, edition {edition}, {key_count} keys, in one process (run CPU us a key):")
    for engine in ENGINE_NAMES:
        ratio = per_key["interp"] / per_key[engine]
        print(
            f"  {engine:8} {per_key[engine] * 1e6 / key_count:7.2f}  x{ratio:5.2f} interp"
            f"  (translation before the run {translation[engine] * 1e3:.0f} ms)"
        )
    if edition == 3:
        if ensemble is None:
            print("  lc3-ensemble      -  (not installed here: --ensemble-python names a Python that has it)")
        else:
            seconds = per_key["lc3-ensemble"]
            ratio = per_key["regions"] / seconds
            print(
                f"  lc3-ensemble {seconds * 1e6 / key_count:5.2f}  (regions take x{ratio:.2f} its time;"
                " its own OS, edition 3 semantics; in the same rounds)"
            )


def whole_process(rounds: int, keys: bytes, python: str | None) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        key_file = Path(scratch, "keys")
        key_file.write_bytes(keys)
        outputs: dict[str, bytes] = {}
        commands = {
            f"{engine} ed{edition}": lc3jit(
                "--os",
                "--edition",
                str(edition),
                "--engine",
                engine,
                "--translate-after",
                "0",
                "--input",
                str(key_file),
                str(ECHO),
            )
            for edition in (3, 2)
            for engine in ENGINE_NAMES
        }
        for command in commands.values():  # the translation cache warm, as a second run has it
            subprocess.run(command, capture_output=True, check=False)

        def run(name: str) -> float:
            seconds, outputs[name] = child_cpu(commands[name])
            return seconds

        cpu = best(rounds, {name: (lambda n=name: run(n)) for name in commands})
        for edition in ("ed3", "ed2"):
            same(f"whole echo, {edition}", {n: o for n, o in outputs.items() if n.endswith(edition)})
        ensemble = None
        if python is not None:
            command = ensemble_command(python, "once", str(ECHO.with_suffix(".asm")), str(key_file))
            ensemble = best(rounds, {"e": lambda: child_cpu(command)[0]})["e"]
        key_count = len(keys)
        print("echo under --os, whole processes (CPU ms; us a key), --translate-after 0, cache warm:")
        for name, seconds in cpu.items():
            ratio, per_key = cpu[f"interp {name.split()[1]}"] / seconds, seconds * 1e6 / key_count
            print(f"  {name:12} {seconds * 1e3:6.0f} ms {per_key:6.1f} us  x{ratio:4.2f} interp")
        if ensemble is not None:
            per_key = ensemble * 1e6 / key_count
            print(f"  lc3-ensemble {ensemble * 1e3:6.0f} ms {per_key:6.1f} us (a whole process of {python})")


def game(rounds: int) -> None:
    outputs: dict[str, bytes] = {}
    commands = {engine: lc3jit("--engine", engine, str(GAME)) for engine in ("interp", "regions")}
    for command in commands.values():
        subprocess.run(command, input=GAME_KEYS, capture_output=True, check=False)

    def run(name: str) -> float:
        seconds, outputs[name] = child_cpu(commands[name], GAME_KEYS, exits=(5,))
        return seconds

    cpu = best(rounds, {name: (lambda n=name: run(n)) for name in commands})
    same("2048", outputs)
    print("2048, a scripted 200-move game, whole processes (CPU ms):")
    for name, seconds in cpu.items():
        print(f"  {name:8} {seconds * 1e3:6.0f} ms  x{cpu['interp'] / seconds:4.2f} interp")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keys", type=int, default=5000)
    parser.add_argument("--only", choices=("echo", "2048"))
    parser.add_argument(
        "--ensemble-python",
        metavar="PYTHON",
        help="a Python with lc3-ensemble-test (default: this one, if it has it)",
    )
    options = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"Python {sys.version.split()[0]}, load average {load:.1f}, {options.rounds} rounds")
    if options.only != "2048":
        echo(options.rounds, options.keys, ensemble_python(options.ensemble_python))
    if options.only != "echo":
        game(options.rounds)


if __name__ == "__main__":
    main()
