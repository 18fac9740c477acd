"""Full-system mode and a whole game, timed: what a user of `--os` and of 2048 waits for.

Two measurements, each interleaving what it compares (engine after engine, round after
round) and keeping the minimum CPU time of the rounds, so that a busy spell of a shared
machine falls on all of them alike:

- `echo`: examples/echo.obj under the OS (`--os`), echoing KEYS keys through the OS's own
  GETC, OUT and PUTS (16 instructions a key, both editions). In one process, per engine:
  the CPU time of the run alone (translation before the run, shown apart, as in `lc3jit
  bench`; the engine built long-lived, as `lc3jit run` builds it), per key; beside it
  lc3-ensemble (pip `lc3-ensemble-test`, its own OS in Rust) running the same source
  with the same keys, when installed. Then whole `lc3jit run
  --os` processes (`--translate-after 0`, the translation cache warm, as a second run has
  it), against a whole Python process running lc3-ensemble.
- `2048`: examples/2048.obj playing a scripted 200-move game (`n`, then `wasd` 50 times;
  the run ends when the keys do, exit 5), as whole `lc3jit run` processes: interp
  against regions (the default: tiered, the translation cache warm).

Every engine must print what the first one printed; a difference stops the script.
Run it with each Python: `python examples/bench/system.py [--rounds N] [--keys N]`.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lc3jit.session import ENGINES, boot, load_images, os_images, run_engine
from lc3jit.tools.capture import CapturedConsole
from lc3jit_runtime.collector import long_lived

EXAMPLES = Path(__file__).resolve().parent.parent
ECHO = EXAMPLES / "echo.obj"
GAME = EXAMPLES / "2048.obj"
GAME_KEYS = b"n" + b"wasd" * 50
ENGINE_NAMES = ("interp", "blocks", "regions")

ENSEMBLE_RUN = """
import sys, time
from ensemble_test import ensemble_test as E
sim = E.Simulator()
sim.init(E.MemoryFillType.Single, 0)
sim.load_code(open(sys.argv[1]).read())
sim.input = open(sys.argv[2]).read()
began = time.process_time()
sim.run()
print(time.process_time() - began, sim.instructions_run)
sys.stdout.write(sim.output)
"""


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


def ensemble_in_process(keys: bytes) -> tuple[float, str, int] | None:
    """(run CPU seconds, output, instructions) of lc3-ensemble on the same source, or None."""
    try:
        from ensemble_test import ensemble_test as ensemble
    except ImportError:
        return None
    sim = ensemble.Simulator()
    sim.init(ensemble.MemoryFillType.Single, 0)
    sim.load_code(ECHO.with_suffix(".asm").read_text())
    sim.input = keys.decode()
    began = time.process_time()
    sim.run()
    return time.process_time() - began, sim.output, sim.instructions_run


def child_cpu(command: list[str], stdin: bytes = b"") -> tuple[float, bytes]:
    """CPU seconds (user + system) of a whole process, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, input=stdin, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


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


def echo(rounds: int, key_count: int) -> None:
    keys = echo_keys(key_count)
    for edition in (3, 2):
        outputs: dict[str, bytes] = {}
        translation: dict[str, float] = {}

        def run(engine: str, edition: int, outputs: dict[str, bytes], translation: dict[str, float]) -> float:
            setup, seconds, outputs[engine], _ = in_process(engine, edition, keys)
            translation[engine] = setup
            return seconds

        runs = {e: (lambda e=e, ed=edition, o=outputs, t=translation: run(e, ed, o, t)) for e in ENGINE_NAMES}
        per_key = best(rounds, runs)
        same(f"echo, edition {edition}", outputs)
        print(f"echo under --os, edition {edition}, {key_count} keys, in one process (run CPU us a key):")
        for engine in ENGINE_NAMES:
            ratio = per_key["interp"] / per_key[engine]
            print(
                f"  {engine:8} {per_key[engine] * 1e6 / key_count:7.2f}  x{ratio:5.2f} interp"
                f"  (translation before the run {translation[engine] * 1e3:.0f} ms)"
            )
    ensemble = [ensemble_in_process(keys) for _ in range(rounds)]
    if ensemble[0] is not None:
        seconds = min(run[0] for run in ensemble if run is not None)
        print(f"  lc3-ensemble {seconds * 1e6 / key_count:5.2f} (its own OS, edition 3 semantics)")
    whole_process(rounds, keys)


def whole_process(rounds: int, keys: bytes) -> None:
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
        try:
            import ensemble_test  # noqa: F401
        except ImportError:
            ensemble = None
        else:
            command = [sys.executable, "-c", ENSEMBLE_RUN, str(ECHO.with_suffix(".asm")), str(key_file)]
            ensemble = best(rounds, {"e": lambda: child_cpu(command)[0]})["e"]
        key_count = len(keys)
        print("echo under --os, whole processes (CPU ms; us a key), --translate-after 0, cache warm:")
        for name, seconds in cpu.items():
            ratio, per_key = cpu[f"interp {name.split()[1]}"] / seconds, seconds * 1e6 / key_count
            print(f"  {name:12} {seconds * 1e3:6.0f} ms {per_key:6.1f} us  x{ratio:4.2f} interp")
        if ensemble is not None:
            per_key = ensemble * 1e6 / key_count
            print(f"  lc3-ensemble {ensemble * 1e3:6.0f} ms {per_key:6.1f} us (a whole Python process)")


def game(rounds: int) -> None:
    outputs: dict[str, bytes] = {}
    commands = {engine: lc3jit("--engine", engine, str(GAME)) for engine in ("interp", "regions")}
    for command in commands.values():
        subprocess.run(command, input=GAME_KEYS, capture_output=True, check=False)

    def run(name: str) -> float:
        seconds, outputs[name] = child_cpu(commands[name], GAME_KEYS)
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
    options = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"Python {sys.version.split()[0]}, load average {load:.1f}, {options.rounds} rounds")
    if options.only != "2048":
        echo(options.rounds, options.keys)
    if options.only != "echo":
        game(options.rounds)


if __name__ == "__main__":
    main()
