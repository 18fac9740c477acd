"""`lc3jit run`'s work: load, boot, run on an engine, report the ending and the stats.

The same function serves the fast launcher (`lc3jit/launch.py`) and the typer command
(`lc3jit/cli/running.py`), so a run is the same whichever read its command line.
"""

from __future__ import annotations

import os
import stat
import sys

from lc3jit.run_options import RunOptions
from lc3jit.session import ENGINES
from lc3jit.tiered import TRANSLATE_AFTER, TieredEngine
from lc3jit_runtime.collector import made_long_lived, running
from lc3jit_runtime.console import Console
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.lean import suppress
from lc3jit_runtime.outcome import output_lost
from lc3jit_runtime.running import report_ending, start_message_line

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TextIO

    from _typeshed import StrPath

    from lc3jit.session import Engine, RunResult
    from lc3jit.simulator.base import SimulatorBase
    from lc3jit.translator.cache import TranslationCache
    from lc3jit_runtime.compiled import Compiled
    from lc3jit_runtime.machine import Machine


def error(message: str) -> None:
    """One line to stderr, as every failure of the CLI is reported."""
    sys.stderr.write(f"lc3jit: {message}\n")
    sys.stderr.flush()


def _warn(message: str) -> None:
    sys.stderr.write(f"{message}\n")
    sys.stderr.flush()


def run_program(options: RunOptions, compiled: Compiled | None = None) -> int:
    """Load, boot and run (a compiled program's images and translations, when given); print
    what the user sees; the exit code."""
    with running():  # the machine and the engine out of the collector's sight until it ends
        return _run_program(options, compiled)


def _run_program(options: RunOptions, compiled: Compiled | None) -> int:
    try:
        with made_long_lived():
            sim = _simulator(options, compiled)
        trace = _trace_file(options.trace)
    except LC3Error as e:
        error(str(e))
        return 1
    except OSError as e:  # the --input or --trace file
        error(f"{e.filename}: {e.strerror or e}")
        return 1
    from lc3jit.simulator.runaway import explain, run_watched  # a run off the end, a loop: said where

    prefix = f"lc3jit: {options.programs[0]}"
    no_cache = options.no_cache or options.assembler == "bytecode"  # it assembles every code object
    build, cache = engine_builder(compiled, sim.engine_name, no_cache, sim.program, lambda: sim.booted().mem)
    sim.build = build  # long-lived, as the Simulator builds every engine
    try:
        result = run_watched(sim, options.max_steps, _warn, prefix, trace, options.trace_range)
    finally:
        if trace is not None and trace is not sys.stderr:
            with suppress(OSError):  # what could not be written was reported
                trace.close()
    if options.stats or result.outcome.exit_code:
        start_message_line(sim.console)
    if options.stats:
        from_saved = (
            " (compiled)" if compiled and build else " (from the cache)" if cache and cache.hit else ""
        )
        _warn(_stats_line(result, sim.engine_name, traced=trace is not None) + from_saved)
    if options.state_json is not None and not _write_state(result, options.state_json):
        return 1
    code = report_ending(result.outcome, sim.console, prefix)
    for line in explain(sim, result.outcome):
        _warn(line)
    return code


def _simulator(options: RunOptions, compiled: Compiled | None) -> SimulatorBase:
    """The programs loaded and booted with the console of this process; a compiled program
    fixes its images, edition and OS, and was translated ahead of time (no tiered start).
    The Simulator's base is all a run needs (lc3jit.api's calls and observations import the
    grading modules)."""
    from lc3jit.simulator.base import SimulatorBase as Simulator

    console = Console.for_process(str(options.input_file) if options.input_file else None)
    if compiled is None:
        return Simulator(
            *options.programs,
            engine=options.engine,
            edition=options.edition,
            os=options.os_image or options.full_system,
            pc=options.pc,
            console=console,
            warn=_warn,
            translate_after=_translate_after(options),
            max_output=options.max_output,
            translation_budget=options.translation_budget,
            assembler=options.assembler,
        )
    return Simulator(
        *compiled.images,
        engine=options.engine,
        edition=compiled.edition,
        os=list(compiled.system),
        pc=compiled.pc if options.pc is None else options.pc,
        console=console,
        warn=_warn,
        max_output=options.max_output,
        translation_budget=options.translation_budget,
        assembler=options.assembler,
    )


def _translate_after(options: RunOptions) -> int:
    """When the tiered start switches: before the run with `--assembler bytecode`, unless
    told otherwise (a short run would be interpreted whole, and `bytecode` assemble nothing)."""
    if options.assembler == "bytecode" and options.translate_after == TRANSLATE_AFTER:
        return 0
    return options.translate_after


def _trace_file(trace: StrPath | None) -> TextIO | None:
    return None if trace is None else sys.stderr if os.fspath(trace) == "-" else open(trace, "w")


def _stats_line(result: RunResult, engine: str, traced: bool) -> str:
    """What --stats prints: instructions, time, MIPS, the engine, and what translating cost."""
    translation = f"translation {result.setup_seconds * 1000:.3f} ms"
    if isinstance(tiered := result.engine, TieredEngine):
        engine = tiered.name
        if tiered.engine is None or tiered.name == "interp":
            translation = f"translation none (interpreted: it ended before instruction {tiered.after})"
        else:
            translation += f" after {tiered.translated_at} instructions"
    return (
        f"{result.machine.icount} instructions in {result.seconds:.6f} s CPU ({mips(result.mips)} MIPS),"
        f" engine {engine}{' (traced: interpreter)' if traced else ''}, {translation}"
    )


def mips(value: float) -> str:
    """Millions of instructions a second, with the digits a short run needs (0.00412, not 0.00)."""
    if value >= 1 or value <= 0:
        return f"{value:.2f}"
    import math  # only for --stats: a shared library on some builds

    return f"{value:.{2 - math.floor(math.log10(value))}f}"  # three significant digits


def _write_state(result: RunResult, path: StrPath) -> bool:
    """--state-json; False (with one line said) when it cannot be written."""
    import json  # only for --state-json: not on a plain run's way

    try:
        write_whole(path, json.dumps(result.state(), indent=2) + "\n")
    except OSError as e:
        error(f"{path}: {e.strerror or e}")
        return False
    return True


def write_whole(path: StrPath, text: str) -> None:
    """Write text to path whole or not at all: a grader reading --state-json after a full
    disk or a kill must never find half a file (or an empty one). A regular file (or none
    yet) is written beside and renamed over; anything else (`/dev/stdout`, a FIFO) is
    written to."""
    from lc3jit_runtime.compiled import write_atomically

    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        regular = True
    if not regular:
        with open(path, "w") as f:
            f.write(text)
        return
    umask = os.umask(0o022)
    os.umask(umask)
    write_atomically(os.path.realpath(path), text.encode(), 0o666 & ~umask)  # through a link


def engine_builder(
    compiled: Compiled | None,
    engine: str,
    no_cache: bool,
    program: Callable[[], object],
    booted: Callable[[], Sequence[int]],
) -> tuple[Callable[[Machine], Engine] | None, CachedBuild | None]:
    """How to build the engine: from the compiled file's translations, through the cache, or
    (None) as usual; and the cache's builder, to tell whether it had the translations.
    `program` gives what booted the machine, what the cache is keyed by; `booted` its
    memory as booted, before it ran."""
    if compiled is not None:
        from lc3jit.translator.cache import restored

        saved = compiled.engines.get(engine)
        return (None if saved is None else lambda machine: restored(machine, saved, engine)), None
    if engine == "interp" or no_cache:
        return None, None
    cached = CachedBuild(engine, program, booted)
    return cached, cached


class CachedBuild:
    """Builds an engine through the translation cache, keyed by what booted the machine even
    when the engine is built later (a tiered run): the cache module, hashing and loading
    are paid only by a run that translates."""

    def __init__(
        self, engine: str, program: Callable[[], object], booted: Callable[[], Sequence[int]]
    ) -> None:
        self.engine = engine
        self.program = program
        self.booted = booted  # booted again only to save what a tiered run translated
        self.cache: TranslationCache | None = None

    @property
    def hit(self) -> bool:
        return self.cache is not None and self.cache.hit

    def __call__(self, machine: Machine) -> Engine:
        from lc3jit.translator.cache import TranslationCache, cache_directory, disabled_by_environment

        if disabled_by_environment():
            return ENGINES[self.engine](machine)
        self.cache = TranslationCache(cache_directory(), _warn)
        booted = None if machine.icount == 0 else self.booted  # built before the run: as booted
        builder = ENGINES[self.engine]
        return self.cache.build(machine, self.engine, builder, self.program(), booted)  # type: ignore[arg-type,return-value]


def output_failed(failure: OSError) -> int:
    """End a command whose output could not be written as `lc3jit run` ends a program's:
    a reader that went away quietly with 141, a full disk or a closed stdout with one line
    and exit 1 (runtime.outcome.output_lost); never a traceback. Standard output then
    points at /dev/null, so that nothing fails again at exit."""
    outcome = output_lost(failure)
    message = outcome.message
    if failure.filename is not None:  # not the output: a file a command could not write
        message = f"{failure.filename}: {failure.strerror or failure}"
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # descriptor 1, even when closed
    if message:
        with suppress(OSError):  # no stderr either: the exit code is all that is left
            error(message)
    return outcome.exit_code
