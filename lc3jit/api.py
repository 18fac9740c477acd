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

The parts (lc3jit/simulator/): views (registers, memory, addresses), errors (a RunError
per ending), base (loading, the engine, runs and limits, state, input and output,
watch_memory and watch_writes), calling (declare, call_subroutine, call, watch_calls).
This module puts them together and is the one to import from.
"""

from __future__ import annotations

from lc3jit.grading.calls import CallResult
from lc3jit.simulator.calling import RETURN_ADDRESS, Calling
from lc3jit.simulator.errors import (
    CallError,
    InputEndedError,
    MachineFaultError,
    OutputLimitError,
    RunError,
    StepLimitError,
    StrictError,
    TimeLimitError,
)
from lc3jit.simulator.views import LabelError, Memory, Registers
from lc3jit_runtime.errors import LC3Error


class Simulator(Calling):
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
    loader, test) with StrictError naming the word and the instruction; coverage, record
    every word that runs on every engine (`executed()`; translated code runs at its speed
    except where it reaches a word that has not run yet: see lc3jit.grading.coverage).

    translations: a SharedTranslations (lc3jit.translator.shared) that the Simulators of a
    program share, so that a process translates each program once (the pytest plugin
    gives one to every Simulator it makes).

    assembler: what writes the code objects of its runs: "fast", lc3jit's own assembler,
    or "bytecode", the `bytecode` library building and assembling each (the reference;
    see `lc3jit check`); None, the default, as LC3JIT_ASSEMBLER says, else "fast".
    """


__all__ = [
    "RETURN_ADDRESS",
    "CallError",
    "CallResult",
    "InputEndedError",
    "LC3Error",
    "LabelError",
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
