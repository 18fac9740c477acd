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

import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TextIO

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
from lc3jit_runtime.isa import MEMORY_WORDS, WORD_MASK
from lc3jit_runtime.loader import Image
from lc3jit_runtime.machine import Machine
from lc3jit_runtime.outcome import Outcome

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


_RUN_ERRORS: dict[Ending, type[RunError]] = {
    Ending.STEP_LIMIT: StepLimitError,
    Ending.FAULT: MachineFaultError,
    Ending.INPUT_EXHAUSTED: InputEndedError,
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
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"no engine {engine!r}; choose from {', '.join(ENGINES)}")
        if edition not in (2, 3):
            raise ValueError(f"the edition is 2 or 3, not {edition!r}")
        self.warnings: list[str] = []
        self._warn = warn
        if isinstance(os, list | tuple):
            system = list(os)
        else:
            system = os_images(edition, None if os is True else Path(os)) if os else []
        images = [p for p in programs if isinstance(p, Image)]
        images += load_images([Path(p) for p in programs if not isinstance(p, Image)], warn=self._warning)
        if source is not None:
            from lc3jit.toolchain.asm import (
                assemble,  # the assembler, the disassembler, the tracer: when used
            )

            assembly = assemble(source, "<source>")
            for warning in assembly.warnings:
                self._warning(str(warning))
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
        start = None if pc is None else self.address(pc)
        self.machine = boot(images, self.console, edition, start, system)
        self._boot = (images, edition, start, system)
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
        mem, address, chars = self.machine.mem, self.address(where), []
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
        if max_steps is None:
            max_steps = self.max_steps
        if trace is not None:
            from lc3jit.toolchain.disasm import labels_by_address
            from lc3jit.tools.trace import Tracer

            tracer = Tracer(self.machine, trace, labels_by_address(self.symbols), *trace_range)
            result = run_engine(tracer, max_steps)
        else:
            engine = self.engine
            result = run_engine(engine, max_steps, self.setup_seconds)
            self.setup_seconds = 0.0  # paid once
            if isinstance(engine, TieredEngine):  # translated during the run: count it as such
                moved = engine.take_translation_seconds()
                result.seconds -= moved
                result.setup_seconds += moved
        if check:
            _check(result, result.outcome)
        return result

    def call(self, subroutine: Address, *args: int, max_steps: int | None = None) -> int:
        """Call a subroutine as JSR would, with args in R0, R1, ...; its R0 when it returns.

        R7 holds RETURN_ADDRESS, where the run stops; registers, memory and output are left
        as the subroutine left them. A subroutine that halts, faults or runs out of steps
        before returning raises its RunError.
        """
        if len(args) > 7:
            raise ValueError("at most 7 arguments (R0-R6): R7 holds the return address")
        address = self.address(subroutine)
        for index, value in enumerate(args):
            self.registers[index] = value
        engine = self.engine
        if RETURN_ADDRESS not in engine.stops:
            engine.set_stop(RETURN_ADDRESS, True)
        self.machine.reg[7] = RETURN_ADDRESS
        self.machine.pc = address
        result = self.run(max_steps, check=False)
        _check(result, result.outcome)
        if result.outcome.ending is not Ending.BREAKPOINT or self.machine.pc != RETURN_ADDRESS:
            name = subroutine if isinstance(subroutine, str) else f"x{address:04X}"
            raise CallError(
                result, f"{name} did not return: {result.outcome.message or result.outcome.reason}"
            )
        return self.machine.reg[0]


def _check(result: RunResult, outcome: Outcome) -> None:
    """Raise the RunError of an ending other than HALT or a debugger's stop."""
    if outcome.ending.by_signal:
        raise KeyboardInterrupt
    error = _RUN_ERRORS.get(outcome.ending)
    if error is not None:
        raise error(result, f"{outcome.message} at x{result.machine.pc:04X}")


def _bytes(keys: bytes | str) -> bytes:
    return keys.encode("latin-1") if isinstance(keys, str) else keys


__all__ = [
    "RETURN_ADDRESS",
    "CallError",
    "InputEndedError",
    "LC3Error",
    "MachineFaultError",
    "Memory",
    "Registers",
    "RunError",
    "Simulator",
    "StepLimitError",
]
