"""The Python API: load or assemble programs, set up the machine, run, call, look inside.

The `lc3jit run` and `lc3jit debug` commands are built on `Simulator`, and the pytest
plugin hands one to graders, so a test sees exactly what a user of the CLI gets:

    sim = Simulator("solution.asm")            # or Simulator(source=".ORIG x3000 ...")
    assert sim.call("MULTIPLY", 6, 7) == 42    # R0, R1 = 6, 7; runs to the RET; R0
    sim.give_keys("34")
    sim.run(max_steps=10_000)                  # from the start PC to HALT
    assert sim.output == "3+4=7\\nHALT\\n"

Every engine (`regions`, `blocks`, `interp`) gives the same results. Nothing here exits
the process: a file that cannot be loaded raises its `LC3Error` (`LoadError`,
`AssemblyError`), and a run that ends other than by HALT raises a `RunError` subclass
(`StepLimitError`, `MachineFaultError`, `InputEndedError`) unless `check=False`.

The engine is built at the first run and kept: what it translated stays translated for
later runs and calls, and a store through `memory` drops the translations it touches,
as a store by the program would.
"""

from __future__ import annotations

import array
import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO, overload

from lc3jit.grading import output as output_text
from lc3jit.grading.calls import STACK_TOP, CallResult
from lc3jit.grading.limits import Sliced, deadline
from lc3jit.grading.observe import Accesses, Call, CallWatcher, MemoryWatcher, Subroutine, mark_all
from lc3jit.grading.where import Places
from lc3jit.session import (
    ENGINES,
    Engine,
    RunResult,
    boot,
    engines_on_this_python,
    load_images,
    os_images,
    run_engine,
)
from lc3jit.tiered import TieredEngine
from lc3jit.toolchain.numbers import parse_number
from lc3jit.tools.capture import CapturedConsole
from lc3jit_runtime.console import Console
from lc3jit_runtime.endings import Ending
from lc3jit_runtime.errors import LC3Error
from lc3jit_runtime.interp import Interpreter
from lc3jit_runtime.isa import MEMORY_WORDS, WORD_MASK, decode
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import IO_BASE, Machine

#: Where a subroutine called through the API returns to: R7 holds it, and the engine
#: stops before running it. The word below the device registers, where no program's
#: code lives (its stack, if it grows down from xFE00, is data: only running it matters).
RETURN_ADDRESS = 0xFDFF

Address = int | str
_OFFSET = re.compile(r"(.+?)([+-])(\w+|#\d+)")


class RunError(LC3Error):
    """A run that ended other than by HALT; `result` holds the state and how it ended."""

    def __init__(self, result: RunResult, message: str) -> None:
        super().__init__(message)
        self.result = result
        self.outcome = result.outcome
        self.exit_code = result.outcome.exit_code


class StepLimitError(RunError):
    """The step limit ran out first (a loop that never ends, or a limit too small)."""


class MachineFaultError(RunError):
    """A machine fault: an illegal opcode, an unknown trap vector, RTI in user mode."""


class InputEndedError(RunError):
    """The program waited for a key and the keys given were used up."""


class CallError(RunError):
    """A called subroutine stopped (HALT, a breakpoint) without returning."""


class TimeLimitError(RunError):
    """The wall-clock limit ran out first (see `Simulator(time_limit=...)`)."""


class OutputLimitError(RunError):
    """The program printed more than the output limit (see `Simulator(max_output=...)`)."""


class StrictError(RunError):
    """Strict mode: the program read a word that nothing wrote (see `Simulator(strict=True)`)."""


_RUN_ERRORS: dict[Ending, type[RunError]] = {
    Ending.STEP_LIMIT: StepLimitError,
    Ending.FAULT: MachineFaultError,
    Ending.INPUT_EXHAUSTED: InputEndedError,
    Ending.TIME_LIMIT: TimeLimitError,
    Ending.OUTPUT_LIMIT: OutputLimitError,
    Ending.STRICT: StrictError,
}


class Registers:
    """R0-R7 as a sequence: `sim.registers[3] = -1` stores xFFFF (values wrap to 16 bits)."""

    def __init__(self, machine: Machine) -> None:
        self._reg = machine.reg

    def __getitem__(self, index: int) -> int:
        return self._reg[index]

    def __setitem__(self, index: int, value: int) -> None:
        self._reg[index] = value & WORD_MASK

    def __len__(self) -> int:
        return 8

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._reg))

    def __repr__(self) -> str:
        return " ".join(f"R{i}=x{v:04X}" for i, v in enumerate(self._reg))


class Memory:
    """The 65,536 words: `sim.memory[x3100]`, `sim.memory["RESULT"]`, slices of addresses.

    Reading is raw (a device register reads as the word stored there, with no side effect);
    writing wraps to 16 bits and drops translated code that covered the word.
    """

    def __init__(self, simulator: Simulator) -> None:
        self._sim = simulator

    @overload
    def __getitem__(self, key: Address) -> int: ...
    @overload
    def __getitem__(self, key: slice) -> list[int]: ...
    def __getitem__(self, key: Address | slice) -> int | list[int]:
        mem, address = self._sim.machine.mem, self._sim.address
        if isinstance(key, slice):
            stop = MEMORY_WORDS if key.stop is None else address(key.stop)
            return mem[address(key.start or 0) : stop]
        return mem[address(key)]

    def __setitem__(self, key: Address, value: int | Sequence[int]) -> None:
        words = [value] if isinstance(value, int) else list(value)
        address = self._sim.address(key)
        if address + len(words) > MEMORY_WORDS:
            raise ValueError(f"{len(words)} words from x{address:04X} run past xFFFF")
        self._sim.machine.load_words(address, [w & WORD_MASK for w in words])
        if self._sim.written is not None:
            self._sim.written.update(range(address, address + len(words)))


class Simulator:
    """An LC-3 with programs loaded, ready to run on one engine.

    programs: files as `lc3jit run` takes them (.obj with its .sym, .hex, .bin, .asm), or
    images already loaded (`lc3jit.session.load_images`; the images come first).
    source: assembly text, assembled after them. edition: 3 or 2. os: True for lc3jit's
    OS, the path of an OS image, or OS images loaded (full-system mode). pc: the start address (default the
    first origin). keys: the keyboard's input (more with `give_keys`). console: a console
    of the caller's (the CLI's terminal); by default output is captured in `output`.
    max_steps: the step limit of every run and call that gives none (a grader's guard
    against a loop that never ends); None for no limit. translate_after: a translated
    engine runs its first this many instructions on the interpreter and translates only
    then (`lc3jit run` gives lc3jit.tiered.TRANSLATE_AFTER; 0, the default, translates
    ahead of the first run).

    For graders: time_limit, the wall-clock seconds each run or call may take (or, with
    `deadline`, a time.monotonic() all runs must end by: the pytest plugin's limit per
    test); max_output, the bytes of output kept, past which the run ends; seed, fill
    memory the program does not load, and R0-R7, with random words from that seed (as
    lc3-ensemble-test does), so a program that counts on zeroed memory fails the same way
    every time; strict, end a run at a read of a word that nothing wrote (program,
    loader, test) with StrictError naming the word and the instruction.
    """

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
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"no engine {engine!r}; choose from {', '.join(ENGINES)}")
        if edition not in (2, 3):
            raise ValueError(f"the edition is 2 or 3, not {edition!r}")
        self.warnings: list[str] = []
        self._warn = warn
        if isinstance(os, bool):
            system = os_images(edition, None) if os else []
        elif isinstance(os, str | Path):
            system = os_images(edition, Path(os)) if os else []
        else:
            system = list(os)
        images = [p for p in programs if isinstance(p, Image)]
        images += load_images([Path(p) for p in programs if not isinstance(p, Image)], warn=self._warning)
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
        self.console = console if console is not None else CapturedConsole(_bytes(keys))
        self.console.max_output = max_output  # past it, the machine ends the run (Console.write)
        start = None if pc is None else self.address(pc)
        self.machine = boot(images, self.console, edition, start, system)
        self._boot = (images, edition, start, system)
        if translation_budget is not None:  # instructions the translators may translate
            self.machine.translation_budget = translation_budget
        self.time_limit = time_limit
        self.deadline = deadline
        self.places = Places(self.symbols, (*system, *images))
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
        self.registers = Registers(self.machine)
        self.memory = Memory(self)
        self._engine: Engine | None = None
        self.setup_seconds = 0.0  # building the engine: translation ahead of the first run

    def __repr__(self) -> str:
        names = ", ".join(dict.fromkeys(Path(image.name).name for image in self.images))
        return f"<Simulator {names} at {self.where()}>"

    def _warning(self, message: str) -> None:
        self.warnings.append(message)
        if self._warn is not None:
            self._warn(message)

    def address(self, where: Address) -> int:
        """An address from an int, a label (any case), a literal such as "x3000" or "#12",
        or a label with an offset: "LOOP+2", "TABLE-1", "DATA+x10"."""
        if isinstance(where, int):
            if not 0 <= where <= WORD_MASK:
                raise ValueError(f"not an address in x0000-xFFFF: {where}")
            return where
        if where.upper() in self._by_upper:
            return self._by_upper[where.upper()]
        value = parse_number(where)
        if value is None and (match := _OFFSET.fullmatch(where)) and match[1].upper() in self._by_upper:
            offset = parse_number(match[3] if match[3][0] in "xX#" else "#" + match[3])
            if offset is not None:
                value = self._by_upper[match[1].upper()] + (offset if match[2] == "+" else -offset)
        if value is None or not 0 <= value <= WORD_MASK:
            raise KeyError(f"no label {where!r} in the program")
        return value

    @property
    def engine(self) -> Engine:
        """The engine, built (translating ahead of time) on first use."""
        if self._engine is None:
            start = time.perf_counter()
            build = self.build or ENGINES[self.engine_name]
            if self.translate_after:
                self._engine = TieredEngine(
                    self.machine, self.engine_name, build, self.translate_after, self._warning
                )
            else:
                self._engine = build(self.machine)
            self.setup_seconds = time.perf_counter() - start
        return self._engine

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
                watcher = CallWatcher(base, step_one, self._watched)
                watcher.calls = self.calls
                base = watcher
            self._runner = base
        return self._runner

    def booted(self) -> Machine:
        """A machine booted as this one was (memory as loaded, start PC), with a console of
        its own: what the program looked like before it ran (the translation cache's key)."""
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
        if not isinstance(self.console, CapturedConsole):
            raise TypeError("output goes to the console given to the Simulator, not captured")
        return self.console.output

    def clear_output(self) -> None:
        """Forget the output so far (e.g. between two calls of a test)."""
        self._captured().clear()

    def give_keys(self, keys: bytes | str) -> None:
        """Keys for the program to read after those given before."""
        self._captured().feed(_bytes(keys))

    def _captured(self) -> CapturedConsole:
        if not isinstance(self.console, CapturedConsole):
            raise TypeError("the Simulator reads the console it was given")
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
        to that file, and the run goes through the interpreter (see lc3jit/tools/trace.py).
        """
        __tracebackhide__ = True
        if max_steps is None:
            max_steps = self.max_steps
        seconds = self.time_limit
        if self.deadline is not None:
            seconds = self.deadline - time.monotonic()
        with deadline(self.machine, seconds, self.time_limit or 0.0):
            if trace is not None:
                from lc3jit.toolchain.disasm import labels_by_address
                from lc3jit.tools.trace import Tracer

                tracer = Tracer(self.machine, trace, labels_by_address(self.symbols), *trace_range)
                result = run_engine(tracer, max_steps)
            else:
                runner = self.runner
                if seconds is not None:  # an output limit is taken at once: see traps.trap
                    runner = Sliced(runner)
                result = run_engine(runner, max_steps, self.setup_seconds)
                self.setup_seconds = 0.0  # paid once
                if isinstance(self._engine, TieredEngine):  # translated during the run: count it as such
                    moved = self._engine.take_translation_seconds()
                    result.seconds -= moved
                    result.setup_seconds += moved
        if check:
            self._check(result)
        return result

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

    def _check(self, result: RunResult) -> None:
        """Raise the RunError of an ending other than HALT or a debugger's stop, naming where."""
        __tracebackhide__ = True
        outcome = result.outcome
        if outcome.ending.by_signal:
            raise KeyboardInterrupt
        error = _RUN_ERRORS.get(outcome.ending)
        if error is not None:
            by = "by" if outcome.ending is Ending.STRICT else "at"
            raise error(result, f"{outcome.message} {by} {self.where()}")

    # Calls.
    def declare(
        self,
        subroutine: Address,
        params: Sequence[str] | dict[int, str] | int = (),
        *,
        stack: bool = False,
        result: int | None = 0,
    ) -> Subroutine:
        """Say how a subroutine is called, once: `stack=True` for the stack convention
        (params: the arguments' names, pushed first-on-top), else the registers the
        arguments go in (params: {register: name}, or a count for R0, R1, ...) and the
        register of the result (None: none). See lc3jit.grading.calls."""
        address = self.address(subroutine)
        if isinstance(params, int):
            params = [f"arg{i}" for i in range(params)]
        if isinstance(params, dict):
            registers, names = tuple(params), tuple(params.values())
        else:
            names = tuple(params)
            registers = () if stack else tuple(range(len(names)))
        if not stack and not all(0 <= r <= 6 for r in registers):
            raise ValueError("arguments go in R0-R6: R7 holds the return address")
        name = subroutine if isinstance(subroutine, str) else f"x{address:04X}"
        declared = Subroutine(name, address, stack, names, registers, None if stack else result)
        self.subroutines[address] = declared
        if self._watched is not None and address in self._watched:
            self._watched[address] = declared
        return declared

    def _subroutine(self, subroutine: Address, args: int) -> Subroutine:
        address = self.address(subroutine)
        if address in self.subroutines:
            return self.subroutines[address]
        if args > 7:
            raise ValueError("at most 7 arguments (R0-R6): R7 holds the return address")
        name = subroutine if isinstance(subroutine, str) else f"x{address:04X}"
        return Subroutine(name, address, False, tuple(f"R{i}" for i in range(args)), tuple(range(args)))

    def call_subroutine(
        self, subroutine: Address, *args: int, max_steps: int | None = None, sp: int | None = None
    ) -> CallResult:
        """Call a subroutine by its declared convention (registers R0, R1, ... and R0 back if
        undeclared) and tell what came of it: returned?, its value, the registers before
        and after, the stack. sp: R6 at the call (the stack convention pushes the arguments
        below it; default STACK_TOP). R7 holds RETURN_ADDRESS, where the run stops. Never
        raises for what the subroutine did: the result's checks do (see CallResult)."""
        __tracebackhide__ = True
        declared = self._subroutine(subroutine, len(args))
        if len(args) != len(declared.params):
            raise ValueError(f"{declared.name} takes {len(declared.params)} arguments, not {len(args)}")
        reg = self.machine.reg
        if declared.stack:
            top = STACK_TOP if sp is None else sp & WORD_MASK
            self.memory[top - len(args)] = list(args)
            reg[6] = (top - len(args)) & WORD_MASK
        else:
            top = reg[6] if sp is None else sp & WORD_MASK
            reg[6] = top
            for register, value in zip(declared.registers, args, strict=True):
                reg[register] = value & WORD_MASK
        runner = self.runner
        if RETURN_ADDRESS not in runner.stops:
            runner.set_stop(RETURN_ADDRESS, True)
        reg[7] = RETURN_ADDRESS
        self.machine.pc = declared.address
        before = tuple(reg)
        if self.written is not None:
            self.written.add(RETURN_ADDRESS)
        result = self.run(max_steps, check=False)
        returned = result.outcome.ending is Ending.BREAKPOINT and self.machine.pc == RETURN_ADDRESS
        return CallResult(
            declared,
            tuple(a & WORD_MASK for a in args),
            returned,
            declared.value(self.machine) if returned else None,
            before,
            tuple(reg),
            top,
            result,
            self.where(),
            RETURN_ADDRESS,
        )

    def call(self, subroutine: Address, *args: int, max_steps: int | None = None) -> int:
        """Call a subroutine as JSR would, with args in R0, R1, ... (or as declared); its
        result (R0, or as declared) when it returns.

        R7 holds RETURN_ADDRESS, where the run stops; registers, memory and output are left
        as the subroutine left them. A subroutine that halts, faults or runs out of steps
        before returning raises its RunError.
        """
        __tracebackhide__ = True
        call = self.call_subroutine(subroutine, *args, max_steps=max_steps)
        if not call.returned:
            self._check(call.run)
            raise CallError(call.run, call.not_returned())
        return call.value if call.value is not None else self.machine.reg[0]

    # Observation.
    def watch_calls(self, *subroutines: Address) -> list[Call]:
        """Record every call of these subroutines (default: the declared ones and every label
        a JSR names) from now on in `calls`: arguments by the declared convention, caller,
        depth, value returned. Runs at translated speed, stopping only at their entries
        and the return points of the calls under way."""
        addresses = [self.address(s) for s in subroutines] or [*self.subroutines, *self._jsr_targets()]
        watched = self._watched or {}
        for address in addresses:
            name = self.places.labels.get(address, f"x{address:04X}")
            watched[address] = self.subroutines.get(address) or Subroutine(name, address, result=None)
        self._watched = watched
        self._runner = None
        return self.calls

    def _jsr_targets(self) -> set[int]:
        """Labels that a JSR of the program's names (a subroutine's entry, as written)."""
        labels, targets = set(self.symbols.values()), set()
        for image in self.images:
            for offset, word in enumerate(image.words):
                if word >> 11 == 0b01001:  # JSR with a PC offset
                    target = decode(word, image.origin + offset).target
                    if target in labels:
                        targets.add(target)
        return targets

    def watch_memory(self) -> Accesses:
        """Record the program's memory reads and writes from now on (`accesses`): runs on
        the interpreter, one instruction at a time (reads cannot be seen otherwise)."""
        if self._memory is None:
            self._memory = MemoryWatcher(self.machine)
            self._memory.watch_writes()
            self._runner = None
        return self._memory.accesses

    def watch_writes(self, observer: Callable[[int, int, int, bool], None]) -> None:
        """Call observer(address, value, by_pc, pushed) after every store below xFE00, at
        translated speed (each store takes the write map's slow path)."""
        mark_all(self.machine, observer)

    @property
    def accesses(self) -> Accesses:
        if self._memory is None:
            raise ValueError("memory is not watched: call watch_memory() (or strict=True) first")
        return self._memory.accesses

    def fill(self, seed: int) -> None:
        """Random words from seed in R0-R7 and in every word below xFE00 that no image loads."""
        rng = random.Random(seed)
        self.machine.reg[:] = [rng.getrandbits(16) for _ in range(8)]
        words = array.array("H", rng.randbytes(2 * IO_BASE))
        if sys.byteorder == "big":
            words.byteswap()  # the same words from a seed on every machine
        start = 0
        for origin, end in [*sorted((image.origin, image.end) for image in self.images), (IO_BASE, IO_BASE)]:
            if origin > start:
                self.machine.load_words(start, words[start:origin].tolist())
            start = max(start, end)

    # Output.
    def output_is(self, expected: str, *, ignore_case: bool = False, ignore_whitespace: bool = False) -> bool:
        """Is the output exactly expected (LC3Tools' checkMatch), perhaps ignoring case and whitespace?"""
        return output_text.matches(self.output, expected, ignore_case, ignore_whitespace)

    def output_contains(
        self, expected: str, *, ignore_case: bool = False, ignore_whitespace: bool = False
    ) -> bool:
        """Does the output contain expected (LC3Tools' checkContain)?"""
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
        output_text.check(self.output, expected, contains, ignore_case, ignore_whitespace, self.where())


def _bytes(keys: bytes | str) -> bytes:
    return keys.encode("latin-1") if isinstance(keys, str) else keys


__all__ = [
    "RETURN_ADDRESS",
    "CallError",
    "CallResult",
    "InputEndedError",
    "LC3Error",
    "MachineFaultError",
    "Memory",
    "OutputLimitError",
    "Registers",
    "RunError",
    "Simulator",
    "StepLimitError",
    "StrictError",
    "TimeLimitError",
]
