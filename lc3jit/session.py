"""One run of a program: load the images, boot the machine, run an engine, time it.

The CLI, the benchmarks and the tests all run programs through here, so that what a
test checks is what a user gets.
"""

from __future__ import annotations

import os
import time

import lc3jit_runtime
from lc3jit_runtime.boot import boot as boot  # where the CLI, bench and tests have always found it
from lc3jit_runtime.collector import long_lived, running
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.loader import Image, extension, load_file, load_image_file
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import Outcome
from lc3jit_runtime.record import MutableRecord
from lc3jit_runtime.running import run_to_ending
from lc3jit_runtime.signals import stop_on_signals

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:  # the engines' protocols are for the type checker: import them under this too
    from collections.abc import Callable, Sequence
    from typing import Protocol

    from _typeshed import StrPath

    class Runnable(Protocol):
        """Something that runs a machine until an Outcome: an engine, or a tracer."""

        name: str
        machine: Machine

        def run(self, max_steps: int | None = None) -> Outcome: ...

    class Engine(Runnable, Protocol):
        """What `lc3jit run --engine NAME` runs: it executes a machine until an Outcome."""

        stops: set[int]  # PCs it stops before (breakpoints), kept by set_stop

        def set_stop(self, pc: int, on: bool) -> None: ...


class UntranslatableError(Exception):
    """The translator cannot run on this Python (see why_not_translated): a translated
    engine's builder raises it rather than translate."""


def _blocks(machine: Machine) -> Engine:
    _translatable()
    from lc3jit.translator.translate import block_engine  # the translator: only to translate

    return block_engine(machine)


def _regions(machine: Machine) -> Engine:
    _translatable()
    from lc3jit.translator.regions import region_engine

    return region_engine(machine)


def _translatable() -> None:
    if reason := why_not_translated():
        raise UntranslatableError(reason)


#: Engines by their --engine name; each is built around a booted machine.
ENGINES: dict[str, Callable[[Machine], Engine]] = {
    "interp": Interpreter,
    "blocks": _blocks,
    "regions": _regions,
}


def why_not_translated() -> str | None:
    """Why the translated engines may not run on this Python, or None when they may: only
    where the emitter knows the running Python's bytecode (lc3jit.translator says,
    without importing the emitter: a run that loads its translations never does)."""
    from lc3jit.translator import unknown_python

    return unknown_python()


def engines_on_this_python(names: Sequence[str], warn: Callable[[str], None]) -> list[str]:
    """The engines a run asking for `names` gets: themselves, or the interpreter alone on a
    Python whose bytecode the emitter does not know (a 3.16 one day), with one warning line.

    Code generated for an unknown bytecode could crash the process instead of raising, so
    on such a Python nothing is translated at all.
    """
    if all(name == "interp" for name in names) or (reason := why_not_translated()) is None:
        return list(names)
    warn(f"lc3jit: {reason}; running on the interpreter")
    return ["interp"]


def load_images(paths: Sequence[StrPath], warn: Callable[[str], None] | None = None) -> list[Image]:
    """The images of each file, in order (later ones overwrite earlier ones).

    An `.asm` file is assembled in memory and gives one image per `.ORIG` block, with its
    labels and source lines; an assembly error is an `AssemblyError` listing all of them,
    and each warning is passed to `warn` as the assembler writes it.
    """
    images: list[Image] = []
    for path in paths:
        if extension(path).lower() == ".asm":
            from lc3jit.toolchain.asm import assemble_file  # the assembler: only for sources

            assembly = assemble_file(path)
            for warning in assembly.warning_texts() if warn else ():
                warn(warning)
            images += assembly.images
        else:
            images += load_file(path, warn)
    return images


BUILTIN_OS = os.path.join(os.path.dirname(lc3jit_runtime.__file__), "lc3os.obj")
#: Loaded over the built-in OS in the 2nd edition: its routines return with RET.
BUILTIN_OS_2ND = os.path.join(os.path.dirname(BUILTIN_OS), "lc3os-2nd.obj")


def os_images(edition: int, path: StrPath | None = None) -> list[Image]:
    """The OS for full-system mode: the image at path, or lc3jit's own for the edition."""
    if path is not None:
        return load_images([path])
    return [load_image_file(p) for p in (BUILTIN_OS, *((BUILTIN_OS_2ND,) if edition == 2 else ()))]


class RunResult(MutableRecord, fields=("outcome", "machine", "engine", "seconds", "setup_seconds")):
    outcome: Outcome
    machine: Machine
    engine: Runnable
    seconds: float  # the run's CPU time, translation ahead of the run excluded
    setup_seconds: float  # CPU time building the engine: translating the image ahead of time

    @property
    def mips(self) -> float:
        return self.machine.icount / self.seconds / 1e6 if self.seconds else 0.0

    def state(self) -> dict[str, object]:
        """What --state-json writes."""
        return {
            **self.machine.snapshot(),
            "instructions": self.machine.icount,
            "stop_reason": self.outcome.reason,
            "exit_code": self.outcome.exit_code,
            "message": self.outcome.message,
        }


def run_machine(
    machine: Machine,
    engine_name: str,
    max_steps: int | None = None,
    build: Callable[[Machine], Engine] | None = None,
) -> RunResult:
    """Build the engine (timed apart, the ending signals already stopping it) and run it.

    `build` builds it instead of ENGINES (from saved translations: a compiled file, the cache).
    """
    with running(), stop_on_signals(machine):
        start = time.process_time()
        engine = long_lived(build or ENGINES[engine_name])(machine)
        return run_engine(engine, max_steps, time.process_time() - start)


def run_engine(engine: Runnable, max_steps: int | None = None, setup_seconds: float = 0.0) -> RunResult:
    """Run an engine already built (and perhaps run before) as a user's run goes
    (runtime.running: the console running, the ending signals stopping it exactly), what
    lives until it ends out of the collector's sight (runtime.collector)."""
    with running():
        outcome, seconds = run_to_ending(engine.machine, lambda: engine.run(max_steps))
    return RunResult(outcome, engine.machine, engine, seconds, setup_seconds)
