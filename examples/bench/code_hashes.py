"""Hashes of every code object the blocks and regions engines make, for a change to the
translator that must leave the code it makes unchanged, byte for byte.

    python examples/bench/code_hashes.py [--bytecode] > before.txt   (then after.txt; diff)

The programs: every `.obj` of examples/ and examples/bench/ (2048 and rogue among them),
random branchy code of 4,000 words at three seeds (tests/machine_code.py) and synthetic.py's
programs of 1,000 and 4,000 words; each bare and under either edition's OS. For each, a
line per way the code is made: what `lc3jit compile` translates (both engines, ahead of
time), and what a run of each engine makes (300,000 instructions, keys typed), regions
translated at run time and blocks included. A line is the code objects' count and a hash
of every field of each (bytecode, constants and their types, names, locals, line and
exception tables, stack size, flags: lc3jit.inspection.check.CODE_FIELDS). With
`--bytecode`, only what `compile` translates, with each assembler (lc3jit's own and the
`bytecode` library's): the two lines of a program must agree too.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, ModuleType

from synthetic import synthetic  # type: ignore[import-not-found]

from lc3jit.inspection.check import CODE_FIELDS, KEYS
from lc3jit.session import load_images, os_images
from lc3jit.simulator.base import SimulatorBase
from lc3jit.translator import translate
from lc3jit.translator.codegen.assembler import use_assembler
from lc3jit.translator.compile import compile_program
from lc3jit.translator.regions import engine

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the checkout: tests/machine_code.py writes the random code

from tests.machine_code import branchy, write_hex  # noqa: E402

#: The instructions each engine runs a program for.
STEPS = 300_000
#: The systems a program runs on: bare (None), or under the OS of that edition.
SYSTEMS = (None, 2, 3)


def programs(folder: Path) -> dict[str, Path]:
    """Each program by name, the generated ones written into the folder."""
    found = {path.name: path for path in sorted(HERE.parent.glob("*.obj"))}
    found.update((f"bench/{path.name}", path) for path in sorted(HERE.glob("*.obj")))
    for seed in (7, 1, 2):
        found[f"branchy 4k, seed {seed}"] = write_hex(folder / f"branchy{seed}.hex", branchy(4000, seed))
    for words in (1000, 4000):
        source = folder / f"synthetic{words}.asm"
        source.write_text(synthetic(words))
        subprocess.run([sys.executable, "-m", "lc3jit", "asm", str(source)], check=True, capture_output=True)
        found[f"synthetic {words}"] = source.with_suffix(".obj")
    return found


def code_bytes(code: CodeType) -> bytes:
    """Every field of the code object, the code objects among its constants' included."""
    fields = []
    for field in CODE_FIELDS:
        value = getattr(code, field)
        if field == "co_consts":  # 1 == True: a constant's type is part of it
            value = [(type(c).__name__, code_bytes(c) if isinstance(c, CodeType) else c) for c in value]
        fields.append(repr(value))
    return "\0".join(fields).encode()


def digest(codes: Sequence[CodeType]) -> str:
    """The code objects' count and the hash of them all, in order."""
    hashed = hashlib.sha256()
    for code in codes:
        hashed.update(code_bytes(code) + b"\1")
    return f"{len(codes):5d} {hashed.hexdigest()[:16]}"


def compiled_codes(path: Path, edition: int, system: bool, assembler: str) -> list[CodeType]:
    """What `lc3jit compile` translates of the program, with that assembler."""
    previous = use_assembler(assembler)
    try:
        compiled = compile_program(
            "hashed", load_images([path]), edition, None, os_images(edition) if system else []
        )
    finally:
        use_assembler(previous)
    return [saved.code for made in compiled.engines.values() for saved in (*made.regions, *made.blocks)]


@contextmanager
def recorded(modules: Iterable[ModuleType]) -> Iterator[list[CodeType]]:
    """Every code object the modules make a function of (their `make_function`), in order."""
    codes: list[CodeType] = []
    originals = {module: module.make_function for module in modules}

    def recording(made: Callable[..., object]) -> Callable[..., object]:
        def make_function(code: CodeType, *args: object) -> object:
            codes.append(code)
            return made(code, *args)

        return make_function

    for module, made in originals.items():
        module.make_function = recording(made)  # type: ignore[attr-defined]
    try:
        yield codes
    finally:
        for module, made in originals.items():
            module.make_function = made  # type: ignore[attr-defined]


def run_codes(path: Path, edition: int, system: bool, engine_name: str) -> list[CodeType]:
    """The code objects a run of the engine makes, ahead of it and while it runs."""
    simulator = SimulatorBase(path, engine=engine_name, edition=edition, os=system, keys=KEYS)
    with recorded([translate, engine]) as codes, simulator as sim:
        sim.run(STEPS, check=False)
    return codes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytecode", action="store_true", help="compile's only, with each assembler")
    args = parser.parse_args()
    assemblers = ("fast", "bytecode") if args.bytecode else ("fast",)
    engines = () if args.bytecode else ("blocks", "regions")
    with tempfile.TemporaryDirectory() as folder:
        for name, path in programs(Path(folder)).items():
            for os_edition in SYSTEMS:
                edition, system = os_edition or 3, os_edition is not None
                label = f"{name}, {f'OS {edition}' if system else 'bare'}"
                for assembler in assemblers:
                    codes = compiled_codes(path, edition, system, assembler)
                    print(f"{label}, compile ({assembler}): {digest(codes)}", flush=True)
                for engine_name in engines:
                    codes = run_codes(path, edition, system, engine_name)
                    print(f"{label}, run ({engine_name}): {digest(codes)}", flush=True)


if __name__ == "__main__":
    main()
