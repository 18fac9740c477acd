"""The Simulator's base: the programs loaded and booted, the engine built at the first run
(shared with other Simulators of the program when asked), runs with their limits, the
state read and written, input and output, the memory watched for a grader. The calls
(calling.py: declared conventions, calls, their observation) build on it; lc3jit.api
makes them `Simulator`.
"""

from __future__ import annotations

import sys
import time
from os import PathLike
from os.path import basename

from lc3jit.session import (
    ENGINES,
    RunResult,
    boot,
    engines_on_this_python,
    load_images,
    os_images,
    run_engine,
)
from lc3jit.tiered import TieredEngine
from lc3jit_runtime.collector import long_lived, made_long_lived
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import MEMORY_WORDS, WORD_MASK
from lc3jit_runtime.lean import cached_property, contextmanager
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import IO_BASE, Machine
from lc3jit_runtime.signals import stop_on_signals

#: TRAP x25: HALT.
HALT_WORD = 0xF025
#: The endings of a run that a limit cut short: the program may be in a loop.
LIMITS = (Ending.STEP_LIMIT, Ending.TIME_LIMIT, Ending.OUTPUT_LIMIT)

# A plain `lc3jit run` is a SimulatorBase: what only graders and the API use (the grading
# modules, the dispatcher, the views of registers and memory, the places that name
# addresses, the captured console, the run errors) and typing are imported where they are
# needed.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path
    from typing import Self, TextIO

    from lc3jit.grading.observe import Accesses, Call, MemoryWatcher, Subroutine
    from lc3jit.session import Engine
    from lc3jit.simulator.views import Address, Memory, Registers
    from lc3jit.toolchain.places import Places
    from lc3jit.translator.shared import SharedTranslations
    from lc3jit_runtime.capture import CapturedConsole
    from lc3jit_runtime.dispatch import Dispatcher


#: The random words of the seeds last filled with (see SimulatorBase.fill), registers then
#: memory below xFE00: a grader's test with a seed runs once a submission, and making
#: 65,024 words afresh (each an int object, freed with its machine) cost ten times the
#: rest of the test. At most KEPT_FILLS seeds (some 2.5 MB each).
_FILLS: dict[int, tuple[list[int], list[int]]] = {}
KEPT_FILLS = 4


def random_words(seed: int) -> tuple[list[int], list[int]]:
    """The registers' and memory's random words from seed (the same on every machine); shared:
    never changed."""
    known = _FILLS.get(seed)
    if known is None:
        import array
        import random

        rng = random.Random(seed)
        registers = [rng.getrandbits(16) for _ in range(8)]
        words = array.array("H", rng.randbytes(2 * IO_BASE))
        if sys.byteorder == "big":
            words.byteswap()  # the same words from a seed on every machine
        if len(_FILLS) >= KEPT_FILLS:
            _FILLS.clear()
        known = _FILLS[seed] = (registers, words.tolist())
    return known


class SimulatorBase:
    """The machine, its engine and its runs: what every part of the Simulator builds on
    (lc3jit.api.Simulator documents the arguments)."""

    def __init__(
        self,
        *programs: str | Path | Image,
        source: str | None = None,
        engine: str = "regions",
        edition: int = 3,
        os: bool | str | Path | Sequence[Image] = False,
        pc: Address | None = None,
        keys: bytes | str = b"",
        console: Console | None = None,
        warn: Callable[[str], None] | None = None,
        max_steps: int | None = None,
        build: Callable[[Machine], Engine] | None = None,
        translate_after: int = 0,
        time_limit: float | None = None,
        deadline: float | None = None,
        max_output: int | None = None,
        seed: int | None = None,
        strict: bool = False,
        translation_budget: int | None = None,
        translations: SharedTranslations | None = None,
        coverage: bool = False,
        assembler: str | None = None,
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"no engine {engine!r}; choose from {', '.join(ENGINES)}")
        if edition not in (2, 3):
            raise ValueError(f"the edition is 2 or 3, not {edition!r}")
        self.warnings: list[str] = []
        self._warn = warn
        if isinstance(os, bool):
            system = os_images(edition, None) if os else []
        elif isinstance(os, str | PathLike):
            system = os_images(edition, os) if os else []
        else:
            system = list(os)
        images = [p for p in programs if isinstance(p, Image)]
        images += load_images([p for p in programs if not isinstance(p, Image)], warn=self._warning)
        if source is not None:
            from lc3jit.toolchain.asm import (
                assemble,  # the assembler, the disassembler, the tracer: when used
            )

            assembly = assemble(source, "<source>")
            for warning in assembly.warning_texts():
                self._warning(warning)
            images += assembly.images
        if not images:
            raise ValueError("no program: give files or source")
        self.images: list[Image] = images
        #: Labels of the program (and OS) by name; `address()` looks them up ignoring case.
        self.symbols: dict[str, int] = {
            n: a for image in (*system, *images) for n, a in image.symbols.items()
        }
        self._by_upper = {name.upper(): address for name, address in self.symbols.items()}
        if console is None:
            from lc3jit_runtime.capture import CapturedConsole

            console = CapturedConsole(_bytes(keys))
        self.console = console
        self.console.max_output = max_output  # past it, the machine ends the run (Console.write)
        start = None if pc is None else self.address(pc)
        with made_long_lived():  # until a run ends (lc3jit_runtime.collector)
            self.machine = boot(images, self.console, edition, start, system)
        self._boot = (images, edition, start, system)
        self._loaded = (*system, *images)
        if translation_budget is not None:  # instructions the translators may translate
            self.machine.translation_budget = translation_budget
        self.time_limit = time_limit
        self.deadline = deadline
        #: Subroutines declared (`declare`), by address.
        self.subroutines: dict[int, Subroutine] = {}
        #: Calls seen since `watch_calls` (in the order made).
        self.calls: list[Call] = []
        self._watched: dict[int, Subroutine] | None = None  # the subroutines whose calls are watched
        self._memory: MemoryWatcher | None = None
        self._runner: Engine | None = None
        #: Words something wrote, in strict mode (None otherwise).
        self.written: set[int] | None = None
        if seed is not None:
            self.fill(seed)
        if strict:
            self.written = {a for image in (*system, *images) for a in range(image.origin, image.end)}
            self.written.update(range(IO_BASE, 0x10000))
            from lc3jit.grading.observe import MemoryWatcher

            self._memory = MemoryWatcher(self.machine, self.written)
            self._memory.watch_writes()
        #: Tiered, the engine finds out at the switch whether the translator can run here.
        self.translate_after = 0 if engine == "interp" else translate_after
        if not self.translate_after:
            [engine] = engines_on_this_python([engine], self._warning)
        self.engine_name = engine
        self.max_steps = max_steps
        #: Builds the engine instead of ENGINES[engine]: from saved translations (`lc3jit run`
        #: with a compiled program or the translation cache).
        self.build = build
        #: Translations shared with the other Simulators of the program (see translator/shared.py).
        self.translations = translations
        #: Record every word that runs, translated or not (see `executed`).
        self.coverage = coverage
        if assembler is not None:
            from lc3jit.translator.codegen.assembler import check_assembler

            check_assembler(assembler)
        #: What writes the code objects of this Simulator's runs (None: the process's choice).
        self.assembler = assembler
        self._engine: Engine | None = None
        self.setup_seconds = 0.0  # building the engine: translation ahead of the first run
        self.closed = False  # see close()
        self.ended: Ending | None = None  # how the last run ended

    def __repr__(self) -> str:
        names = ", ".join(dict.fromkeys(basename(image.name) for image in self.images))
        return f"<Simulator {names} at {self.where()}>"

    @cached_property
    def places(self) -> Places:
        """The program's (and OS's) labels and source lines, to name addresses with."""
        from lc3jit.toolchain.places import Places

        return Places(self.symbols, self._loaded)

    @cached_property
    def registers(self) -> Registers:
        """R0-R7 to read and write, wrapping to 16 bits."""
        from lc3jit.simulator.views import Registers

        return Registers(self.machine)

    @cached_property
    def memory(self) -> Memory:
        """Memory by address, label or slice."""
        from lc3jit.simulator.views import Memory

        return Memory(self)

    def _warning(self, message: str) -> None:
        self.warnings.append(message)
        if self._warn is not None:
            self._warn(message)

    def address(self, where: Address) -> int:
        """An address from an int, a label (any case), a literal such as "x3000" or "#12",
        or a label with an offset: "LOOP+2", "TABLE-1", "DATA+x10"."""
        from lc3jit.simulator.views import LabelError, resolve

        try:
            return resolve(where, self._by_upper)
        except LabelError as error:  # name the labels the program has (not the OS's)
            raise LabelError(error.label, [n for image in self.images for n in image.symbols]) from None

    @property
    def engine(self) -> Engine:
        """The engine, built (translating ahead of time) on first use."""
        if self._engine is None:
            build = long_lived(self.build or self._builder())  # a tiered start's too, at its switch
            if self.translate_after:  # nothing translated ahead: the switch times its own
                with made_long_lived():
                    self._engine = TieredEngine(
                        self.machine, self.engine_name, build, self.translate_after, self._warning
                    )
                return self._engine
            # Timed only here: reading the process's CPU clock is a system call (10-20 us in a
            # grading worker on 3.11, measured), and a grader makes an engine a test.
            start = time.process_time()
            with made_long_lived(), self._assembling():
                self._engine = build(self.machine)
            self.setup_seconds = time.process_time() - start
        return self._engine

    def _builder(self) -> Callable[[Machine], Engine]:
        """ENGINES[engine], with coverage (lc3jit.grading.coverage) or shared translations."""
        name, translate = self.engine_name, ENGINES[self.engine_name]
        if name == "interp":
            return translate  # the interpreter marks every word it runs: coverage as it is
        if self.coverage:
            images, _, _, system = self._boot
            words = {a for image in (*system, *images) for a in range(image.origin, image.end)}
            from lc3jit.grading.coverage import covering

            return lambda machine: covering(machine, name, sorted(words))
        shared = self.translations
        if shared is None:
            return translate
        key = self.program()
        dispatcher: Callable[[Machine], Dispatcher] = translate  # type: ignore[assignment]  # regions', blocks'
        return lambda machine: shared.build(machine, name, key, dispatcher, self._booted_state)

    def close(self) -> None:
        """Give the machine's memory back now: the Simulator cannot run or be read after.

        A machine and its engines hold each other in reference cycles (the write map's hooks,
        steps bound to the machine), so a Simulator let go waits for the garbage collector,
        which walks its tables (memory, write map, each engine's table by address: some
        2 MB) at every pass until then. A grader that makes one per test spent more on that
        than on the tests: the pytest plugin closes a test's Simulators when it ends.
        `with Simulator(...) as sim:` closes it at the block's end.
        """
        machine = self.machine
        engines = [getattr(hook, "__self__", None) for hook in machine.stop_hooks]  # those following it
        if isinstance(self._engine, TieredEngine):
            engines.append(self._engine.interpreter)  # detached at the switch, if there was one
        for engine in dict.fromkeys(filter(None, engines)):
            if isinstance(engine, Interpreter):
                engine.close()  # its table goes to the next interpreter
                continue
            for value in vars(engine).values():  # an engine's tables by address: as long as memory
                if isinstance(value, list) and len(value) >= MEMORY_WORDS:
                    value.clear()
        machine.close()
        self.closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _booted_state(self) -> tuple[list[int], int]:
        machine = self.booted()
        return machine.mem, machine.pc

    def executed(self) -> set[int]:
        """The addresses of the loaded images' words (program and OS) that ran, on every
        engine when the Simulator was made with coverage=True; without, those the
        interpreter ran. A run of no-op words (BR that never branches, .FILL 0) counts as
        run once entered (the interpreter runs it as one step)."""
        images, _, _, system = self._boot
        from lc3jit.grading.coverage import executed

        ran = executed(self.machine)
        return {a for image in (*system, *images) for a in range(image.origin, image.end) if a in ran}

    @property
    def runner(self) -> Engine:
        """What runs the program: the engine, or the observers around it (watch_calls,
        watch_memory, strict)."""
        if self._runner is None:
            base: Engine = self._memory if self._memory is not None else self.engine
            if self._watched is not None:
                if self._memory is not None:
                    step_one = self._memory.step_one
                else:
                    stepper = Interpreter(self.machine)
                    step_one = lambda: stepper.run(1)  # noqa: E731
                from lc3jit.grading.observe import CallWatcher

                watcher = CallWatcher(base, step_one, self._watched)
                watcher.calls = self.calls
                base = watcher
            self._runner = base
        return self._runner

    def program(self) -> tuple[object, ...]:
        """What booted the machine, for its engine: what its translations are kept by, in
        this process and in the translation cache (lc3jit.translator.cache.program_key)."""
        from lc3jit.translator.cache import program_key  # the translator's side: only when kept

        images, edition, start, system = self._boot
        return program_key(self.engine_name, edition, start, images, system)

    def booted(self) -> Machine:
        """A machine booted as this one was (memory as loaded, start PC), with a console of
        its own: what the program looked like before it ran (the translation cache's key)."""
        from lc3jit_runtime.capture import CapturedConsole

        images, edition, start, system = self._boot
        return boot(images, CapturedConsole(b""), edition, start, system)

    @property
    def pc(self) -> int:
        return self.machine.pc

    @pc.setter
    def pc(self, where: Address) -> None:
        self.machine.pc = self.address(where)

    @property
    def psr(self) -> int:
        return self.machine.psr

    @property
    def cond(self) -> str:
        """The condition code set: "N", "Z" or "P"."""
        return {4: "N", 2: "Z", 1: "P"}.get(self.machine.cond, "")

    @property
    def instructions(self) -> int:
        """Instructions executed so far, over every run."""
        return self.machine.icount

    @property
    def output(self) -> str:
        """Everything the program printed (each byte one character, Latin-1)."""
        return self.output_bytes.decode("latin-1")

    @property
    def output_bytes(self) -> bytes:
        return self._captured("output goes to the console given to the Simulator, not captured").output

    def clear_output(self) -> None:
        """Forget the output so far (e.g. between two calls of a test)."""
        self._captured("the Simulator reads the console it was given").clear()

    def give_keys(self, keys: bytes | str) -> None:
        """Keys for the program to read after those given before."""
        self._captured("the Simulator reads the console it was given").feed(_bytes(keys))

    def _captured(self, refusal: str) -> CapturedConsole:
        """The captured console; a TypeError saying refusal where the console was given."""
        from lc3jit_runtime.capture import CapturedConsole

        if not isinstance(self.console, CapturedConsole):
            raise TypeError(refusal)
        return self.console

    def read_string(self, where: Address) -> str:
        """The zero-terminated string at an address, one character a word (as PUTS reads it)."""
        mem, address, chars = self.machine.mem, self.address(where), list[str]()
        while (word := mem[address]) and len(chars) <= WORD_MASK:
            chars.append(chr(word & 0xFF))
            address = (address + 1) & WORD_MASK
        return "".join(chars)

    def write_string(self, where: Address, text: str) -> None:
        """Store text one character a word, then a zero word (a .STRINGZ)."""
        self.memory[where] = [*text.encode("latin-1"), 0]

    def state(self) -> dict[str, object]:
        """Registers, PC, PSR, codes, saved stack pointers, instructions (as --state-json)."""
        return {**self.machine.snapshot(), "instructions": self.machine.icount}

    def run(
        self,
        max_steps: int | None = None,
        check: bool = True,
        trace: TextIO | None = None,
        trace_range: tuple[int, int] = (0, MEMORY_WORDS),
    ) -> RunResult:
        """Run from the PC until HALT, a fault, the end of the keys, or max_steps instructions.

        With check (the default) any ending but HALT (or a debugger's stop) raises its
        RunError; Ctrl-C raises KeyboardInterrupt. The result holds the outcome and times.
        With trace, a line per instruction whose PC is in trace_range [start, stop) goes
        to that file, and the run goes through the interpreter (see lc3jit/simulator/trace.py).
        """
        __tracebackhide__ = True
        if self.closed:
            raise ValueError("the Simulator is closed: its machine was given back (close())")
        if max_steps is None:
            max_steps = self.max_steps
        ends = self.deadline
        if self.time_limit is not None:
            ends = min(ends or float("inf"), time.monotonic() + self.time_limit)
        if trace is not None:
            from lc3jit.simulator.trace import Tracer
            from lc3jit.toolchain.disasm import labels_by_address

            tracer = Tracer(self.machine, trace, labels_by_address(self.symbols), *trace_range)
            result = run_engine(tracer, max_steps)
        else:
            result = self._run_engine(max_steps, ends)
            self.setup_seconds = 0.0  # paid once
            if isinstance(self._engine, TieredEngine):  # translated during the run: count it as such
                moved = self._engine.take_translation_seconds()
                result.seconds -= moved
                result.setup_seconds += moved
        self.ended = result.outcome.ending
        if check:
            self._check(result)
        return result

    def _run_engine(self, max_steps: int | None, ends: float | None) -> RunResult:
        """Run the engine (built first if need be) as `run` does, its code objects written
        by the Simulator's assembler."""
        __tracebackhide__ = True
        with self._assembling():
            if self._engine is None and not self.translate_after:
                with stop_on_signals(self.machine):  # a signal while translating ahead stops it there
                    runner = self.runner
            else:  # nothing to translate ahead: no handlers to install (a system call each)
                runner = self.runner
            if ends is not None or self.console.max_output is not None:
                from lc3jit.grading.limits import Sliced

                runner = Sliced(runner, ends, self.time_limit or 0.0)
            return run_engine(runner, max_steps, self.setup_seconds)

    @contextmanager
    def _assembling(self) -> Iterator[None]:
        """While inside, code objects are written by the Simulator's assembler (when it was
        given one): building the engine ahead, and translating during a run."""
        if self.assembler is None:
            yield
            return
        from lc3jit.translator.codegen.assembler import use_assembler

        previous = use_assembler(self.assembler)
        try:
            yield
        finally:
            use_assembler(previous)

    def watch_memory(self) -> Accesses:
        """Record the program's memory reads and writes from now on (`accesses`): runs on
        the interpreter, one instruction at a time (reads cannot be seen otherwise)."""
        if self._memory is None:
            from lc3jit.grading.observe import MemoryWatcher  # only for a grader's watch

            self._memory = MemoryWatcher(self.machine)
            self._memory.watch_writes()
            self._runner = None
        return self._memory.accesses

    def watch_writes(self, observer: Callable[[int, int, int, bool], None]) -> None:
        """Call observer(address, value, by_pc, pushed) after every store below xFE00, at
        translated speed (each store takes the write map's slow path)."""
        from lc3jit.grading.observe import mark_all  # only for a grader's watch

        mark_all(self.machine, observer)

    @property
    def accesses(self) -> Accesses:
        if self._memory is None:
            raise ValueError("memory is not watched: call watch_memory() (or strict=True) first")
        return self._memory.accesses

    def run_until_input(self, max_steps: int | None = None) -> RunResult:
        """Run until the program waits for a key none of those given answers (GETC or IN
        with no key left, or KBSR polled again and again), or halts: LC3Tools'
        runUntilInputRequested. Then `give_keys` and run on: the program reads them where
        it stopped. Any other ending raises its RunError.

        IN writes its prompt each time it is run: stopped there for want of a key, it
        writes the prompt again when the run goes on."""
        __tracebackhide__ = True
        result = self.run(max_steps, check=False)
        if result.outcome.ending is not Ending.INPUT_EXHAUSTED:
            self._check(result)
        return result

    def where(self, address: int | None = None) -> str:
        """An address (default: the PC) as a student reads it: x3012 (NEXT+3, sol.asm line 22: BRnz NEXT)."""
        return self.places.describe(self.machine.pc if address is None else address)

    def last_run(self) -> int:
        """The address of the last instruction the program ran: the PC, except after a HALT,
        which leaves the PC on the word after it (the label of whatever follows)."""
        pc = self.machine.pc
        before = (pc - 1) & WORD_MASK
        return before if self.ended is Ending.HALT and self.machine.mem[before] == HALT_WORD else pc

    def diagnosis(self, ending: Ending) -> str:
        """For a run a limit ended: what the program keeps doing (the loop it is in, or the
        empty memory it runs through), as `lc3jit run` says it; empty if nothing to say."""
        if ending not in LIMITS:
            return ""
        from lc3jit.simulator.runaway import known, what_it_does

        doing = what_it_does(self.machine, self.places) if known(self) else None
        return f"; {doing}" if doing else ""

    def _check(self, result: RunResult) -> None:
        """Raise the RunError of an ending other than HALT or a debugger's stop, naming where
        (and, past a limit, what the program keeps doing)."""
        __tracebackhide__ = True
        from lc3jit.simulator.errors import raise_for

        raise_for(result, self.where() + self.diagnosis(result.outcome.ending))

    def fill(self, seed: int) -> None:
        """Random words from seed in R0-R7 and in every word below xFE00 that no image loads."""
        registers, words = random_words(seed)
        self.machine.reg[:] = registers
        start = 0
        for origin, end in [*sorted((image.origin, image.end) for image in self.images), (IO_BASE, IO_BASE)]:
            if origin > start:
                self.machine.load_words(start, words[start:origin])
            start = max(start, end)

    # Output.
    def output_is(self, expected: str, *, ignore_case: bool = False, ignore_whitespace: bool = False) -> bool:
        """Is the output exactly expected (LC3Tools' checkMatch), perhaps ignoring case and whitespace?"""
        from lc3jit.grading import output as output_text

        return output_text.matches(self.output, expected, ignore_case, ignore_whitespace)

    def output_contains(
        self, expected: str, *, ignore_case: bool = False, ignore_whitespace: bool = False
    ) -> bool:
        """Does the output contain expected (LC3Tools' checkContain)?"""
        from lc3jit.grading import output as output_text

        return output_text.contains(self.output, expected, ignore_case, ignore_whitespace)

    def check_output(
        self,
        expected: str,
        *,
        contains: bool = False,
        ignore_case: bool = False,
        ignore_whitespace: bool = False,
    ) -> None:
        """Fail with expected / got / where unless the output matches (or contains) expected."""
        __tracebackhide__ = True
        from lc3jit.grading import output as output_text

        where = self.where(self.last_run())
        output_text.check(self.output, expected, contains, ignore_case, ignore_whitespace, where)


def _bytes(keys: bytes | str) -> bytes:
    return keys.encode("latin-1") if isinstance(keys, str) else keys
