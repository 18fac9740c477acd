"""Simulators of one program share its translations (lc3jit.translator.shared): one analysis
and one set of code objects in a process, through the translation cache between processes,
and never where the code would not be this machine's."""

from __future__ import annotations

from pathlib import Path

import pytest

from lc3jit.api import Simulator
from lc3jit.session import load_images
from lc3jit.translator.cache import TranslationCache
from lc3jit.translator.shared import SharedTranslations
from lc3jit_runtime.dispatch import Dispatcher

EXAMPLES = Path(__file__).parent.parent / "examples"
PROGRAMS = Path(__file__).parent / "programs"


def codes(sim: Simulator) -> set[object]:
    engine = sim.engine
    assert isinstance(engine, Dispatcher)
    return {t.function.__code__ for t in engine.blocks.values()}  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["regions", "blocks"])
def test_simulators_of_a_program_share_its_code_objects(engine: str) -> None:
    shared = SharedTranslations()
    images = load_images([EXAMPLES / "grading" / "solution.asm"])
    first, second = (Simulator(*images, engine=engine, translations=shared) for _ in range(2))
    first.memory[0x4000] = [3, -7, 12]
    assert first.call("ARRAY_MAX", 0x4000, 3) == 12
    second.memory[0x4000] = [-5, -2, -9]
    assert second.call("ARRAY_MAX", 0x4000, 3) == 0xFFFE
    assert (shared.misses, shared.hits) == (1, 1)
    assert codes(first) and codes(first) == codes(second)
    other = Simulator(*images, engine=engine, translations=shared, edition=2)
    other.run()
    assert (shared.misses, shared.hits) == (2, 1), "another edition: code of its own"


def test_self_modifying_code_stays_each_simulators_own() -> None:
    """selfmod.asm rewrites its loop's first instruction: each Simulator drops only its own
    code, and the next one still starts from the program's words."""
    shared = SharedTranslations()
    images = load_images([PROGRAMS / "selfmod.asm"])
    for _ in range(3):
        sim = Simulator(*images, translations=shared)
        sim.run()
        assert sim.output == "5HALT\n"
    assert shared.hits == 2


def test_code_patched_before_the_run_is_not_shared() -> None:
    shared = SharedTranslations()
    images = load_images([PROGRAMS / "selfmod.asm"])
    Simulator(*images, translations=shared).run()
    patched = Simulator(*images, translations=shared)
    patched.memory["LOOP"] = patched.memory["ADD_TWO"]  # adds 2 from the first pass: 6
    patched.run()
    assert patched.output == "6HALT\n"
    assert shared.hits == 0
    plain = Simulator(*images, translations=shared)
    plain.run()
    assert plain.output == "5HALT\n" and shared.hits == 1


def test_a_tiered_switch_takes_the_shared_code() -> None:
    shared = SharedTranslations()
    images = load_images([EXAMPLES / "sieve.asm"])
    expected = Simulator(*images, engine="interp")
    expected.run()
    for _ in range(2):
        sim = Simulator(*images, translations=shared, translate_after=500)
        sim.run()
        assert sim.state() == expected.state() and sim.output == expected.output
    assert (shared.misses, shared.hits) == (1, 1)


def test_processes_share_through_the_translation_cache(tmp_path: Path) -> None:
    """Another process (a fresh SharedTranslations) loads what the first saved."""
    images = load_images([EXAMPLES / "grading" / "solution.asm"])
    for _ in range(2):
        cache = TranslationCache(tmp_path, lambda message: pytest.fail(message))
        sim = Simulator(*images, translations=SharedTranslations(cache))
        sim.run()
        assert sim.registers[0] == 12
    assert cache.hit
    assert len(list(tmp_path.glob("*.pyc"))) == 1
