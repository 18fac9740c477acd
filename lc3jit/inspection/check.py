"""`lc3jit check`: lc3jit's own assembler against `bytecode`, on a user's programs and Python.

The fast assembler (assembler.py) writes the bytes `bytecode` would, without its checks;
before trusting translated code on a new CPython minor or a new `bytecode` release, a
user runs the two on their programs. For each program:
- everything `lc3jit compile` would translate ahead of time (both engines' regions and
  blocks) is translated twice, once by each assembler, and every pair of code objects is
  compared field by field (the far-jump split included: reference.py makes it on
  `bytecode`'s layout);
- `bytecode`'s `compute_stacksize()` of each must be within the bound the emitter gives
  every code object (emitter.STACK_BOUND) rather than computes;
- the program runs a bounded number of steps on the regions engine with each assembler,
  the same keys typed, and the two machines must end alike (registers, PC, PSR, codes,
  instructions, output, why the run stopped).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import CodeType
from typing import NamedTuple

from lc3jit.translator.codegen.assembler import use_assembler
from lc3jit.translator.codegen.emitter import STACK_BOUND
from lc3jit_runtime.compiled import Compiled
from lc3jit_runtime.loader import Image

#: Every field of a code object (what marshal writes and the interpreter reads).
CODE_FIELDS = (
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_nlocals",
    "co_stacksize",
    "co_flags",
    "co_code",
    "co_consts",
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_filename",
    "co_name",
    "co_qualname",
    "co_firstlineno",
    "co_linetable",
    "co_exceptiontable",
)
#: Keys typed to each run: letters, digits, a few moves and an end of line, then no more.
KEYS = b"wasdwasdqy0123456789\nabcdefghijklmnopqrstuvwxyz \n"


def _field(code: CodeType, field: str) -> object:
    value = getattr(code, field)
    if field == "co_consts":  # 1 == True: the types are part of a constant
        return [(type(const), const) for const in value]
    return value


def code_differences(ours: CodeType, reference: CodeType) -> list[str]:
    """The fields in which two code objects differ."""
    return [field for field in CODE_FIELDS if _field(ours, field) != _field(reference, field)]


def computed_stacksize(code: CodeType) -> int:
    """The deepest the value stack gets, as `bytecode` computes it."""
    import bytecode

    return int(bytecode.Bytecode.from_code(code).compute_stacksize())


class Verdict(NamedTuple):
    """What `check` found of one program: the code objects compared, the deepest stack,
    the steps each run took, and each difference (none: the two assemblers agree)."""

    codes: int
    deepest: int
    steps: int
    differences: list[str]


def _codes(compiled: Compiled) -> list[CodeType]:
    return [saved.code for engine in compiled.engines.values() for saved in (*engine.regions, *engine.blocks)]


def _compiled(images: Sequence[Image], edition: int, system: Sequence[Image], assembler: str) -> Compiled:
    from lc3jit.translator.compile import compile_program

    previous = use_assembler(assembler)
    try:
        return compile_program("check", images, edition, None, system)
    finally:
        use_assembler(previous)


def _run(programs: Sequence[Path], edition: int, os: bool, steps: int, assembler: str) -> dict[str, object]:
    from lc3jit.simulator.base import SimulatorBase

    with SimulatorBase(*programs, edition=edition, os=os, keys=KEYS, assembler=assembler) as sim:
        result = sim.run(steps, check=False)
        return {**sim.state(), "output": sim.output_bytes, "stop": result.outcome.reason}


def check_program(
    programs: Sequence[Path], edition: int = 3, os: bool = False, steps: int = 100_000
) -> Verdict:
    """Translate and run the programs (loaded together) with both assemblers; compare."""
    from lc3jit.session import load_images, os_images

    images = load_images(programs)
    system = os_images(edition) if os else []
    fast = _codes(_compiled(images, edition, system, "fast"))
    reference = _codes(_compiled(images, edition, system, "bytecode"))
    differences: list[str] = []
    if len(fast) != len(reference):
        differences.append(f"{len(fast)} code objects against bytecode's {len(reference)}")
    deepest = 0
    for ours, theirs in zip(fast, reference, strict=False):
        if fields := code_differences(ours, theirs):
            differences.append(f"{ours.co_name}: {', '.join(fields)} differ")
        depth = computed_stacksize(theirs)
        deepest = max(deepest, depth)
        if depth > STACK_BOUND:
            differences.append(f"{theirs.co_name}: stack {depth} deep, over the bound {STACK_BOUND}")
    ran = {name: _run(programs, edition, os, steps, name) for name in ("fast", "bytecode")}
    for key, value in ran["fast"].items():
        if ran["bytecode"][key] != value:
            differences.append(f"runs end with different {key}: {value!r} against {ran['bytecode'][key]!r}")
    return Verdict(len(fast), deepest, int(ran["fast"]["instructions"]), differences)  # type: ignore[call-overload]
