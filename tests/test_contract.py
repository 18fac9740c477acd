"""The contract between generated code and the runtime: every name code may use is declared
once (runtime.contract), bound by the dispatcher, and nothing else is named."""

from __future__ import annotations

import io
from pathlib import Path
from types import CodeType

import pytest

from lc3jit.session import ENGINES, boot, load_images, os_images
from lc3jit.translator.compile import compile_program
from lc3jit_runtime import compiled, contract
from lc3jit_runtime.console import Console
from lc3jit_runtime.dispatch import Dispatcher

from .machine_code import op

ROOT = Path(__file__).parent.parent
#: Between them these use every name of the contract: the traps and an RTI, a store into
#: code, loads and stores of devices, jumps through registers (INDIRECT), an OS with access
#: control (FETCH and checked loads) and an illegal opcode.
PROGRAMS = [
    ROOT / "tests/programs/all_traps.asm",
    ROOT / "tests/programs/selfmod.asm",
    ROOT / "tests/programs/interrupts.asm",
    ROOT / "tests/programs/indirect.asm",
    ROOT / "examples/sieve.asm",
]
ILLEGAL_WORD = 0xD000
#: R3 = R1 + R2, 0 to x1FFFE, read only by BRz: 0 modulo 2^16 at 0 and at 2^16 (ZERO).
ZERO_TEST = [op("ADD", dr=3, sr1=1, sr2=2), op("BR", nzp=0b010, pcoffset9=0), op("ANDI", dr=3, sr1=3, imm5=0)]
TRANSLATED = [name for name in ENGINES if name != "interp"]


def codes_of(engine: Dispatcher) -> list[CodeType]:
    return [translation.function.__code__ for translation in engine.blocks.values()]  # type: ignore[attr-defined]


def engine_codes(name: str, path: Path | None, system: bool = False) -> list[CodeType]:
    """The code objects an engine translates ahead of time for a program (None: at x3000, a
    BRz on a sum of two words, which a region tests with the ZERO table, then an illegal
    opcode after an ADD), and those it translates while it runs."""
    console = Console(io.BytesIO(b"abc"), io.BytesIO())
    images = load_images([path]) if path else []
    machine = boot(images, console, 3, None if path else 0x3000, os_images(3) if system else ())
    if path is None:
        machine.load_words(0x3000, [*ZERO_TEST, op("ADDI", dr=1, sr1=1, imm5=1), ILLEGAL_WORD])
    engine = ENGINES[name](machine)
    codes = codes_of(engine)  # type: ignore[arg-type]
    engine.run(200_000)
    return codes + codes_of(engine)  # type: ignore[arg-type]


def test_generated_code_names_only_the_contract_and_all_of_it() -> None:
    """On every translated engine; between them, every name is used (none is declared for nothing)."""
    used: set[str] = set()
    runs = [(path, False) for path in PROGRAMS] + [(None, False), (ROOT / "examples/hello.asm", True)]
    for name in TRANSLATED:
        for path, system in runs:
            for code in engine_codes(name, path, system):
                assert set(code.co_names) <= contract.NAMES, (name, path, code.co_name)
                used |= set(code.co_names)
    assert used == contract.NAMES


def test_a_compiled_file_names_only_the_contract() -> None:
    program = compile_program("sieve", load_images([ROOT / "examples/sieve.asm"]))
    codes = [r.code for e in program.engines.values() for r in e.regions]
    codes += [b.code for e in program.engines.values() for b in e.blocks]
    assert codes
    for code in codes:
        assert set(code.co_names) <= contract.NAMES, code.co_name


def test_the_compiled_format_changes_with_the_contract() -> None:
    assert compiled.FORMAT.endswith(contract.DIGEST)


def test_the_dispatcher_binds_exactly_the_declared_globals() -> None:
    machine = boot([], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000)
    assert Dispatcher(machine).globals.keys() == contract.GLOBALS | {"__builtins__"}
    with pytest.raises(ValueError, match=r"missing \['ZERO'\], undeclared \['X'\]"):
        contract.bind({**{name: None for name in contract.GLOBALS - {"ZERO"}}, "X": None})
