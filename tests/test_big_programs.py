"""Big programs and the tiered switch: the synthetic programs of the benchmark end the same on
every engine, translation looks only at the code it translates (counted in words decoded,
never timed), and the engine built at the switch roots its regions where functions begin."""

from __future__ import annotations

import importlib.util
import io
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import lc3jit.translator.regions.ahead as ahead_module
import lc3jit.translator.regions.engine as engine_module
from lc3jit.session import ENGINES, boot, load_images
from lc3jit.tiered import TieredEngine
from lc3jit.toolchain.asm import assemble
from lc3jit.translator.blocks import Kind
from lc3jit.translator.regions import RegionTranslator, region_engine
from lc3jit.translator.regions.ahead import AHEAD_WORDS
from lc3jit.translator.regions.engine import REGION_SEARCH
from lc3jit_runtime.console import Console
from lc3jit_runtime.dispatch import Dispatcher
from lc3jit_runtime.machine import Machine

from .conftest import Run
from .test_differential import assert_same

BENCH = Path(__file__).parent.parent / "examples" / "bench"


def _synthetic() -> ModuleType:
    spec = importlib.util.spec_from_file_location("synthetic", BENCH / "synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


synthetic = _synthetic().synthetic


def booted(source: str) -> tuple[Machine, io.BytesIO]:
    display = io.BytesIO()
    return boot(assemble(source).images, Console(io.BytesIO(), display)), display


def run(source: str, build: Callable[[Machine], object]) -> Run:
    machine, display = booted(source)
    outcome = build(machine).run(None)  # type: ignore[attr-defined]
    machine.console.flush()
    return Run(machine, outcome, display.getvalue())


@pytest.mark.parametrize("words,passes", [(300, 2), (1200, 1)])
def test_synthetic_programs_end_the_same_on_every_engine(words: int, passes: int) -> None:
    source = synthetic(words, passes=passes)
    assert len(assemble(source).images[0].words) in range(words - 40, words + 40)
    expected = run(source, ENGINES["interp"])
    assert expected.outcome.reason == "halt" and expected.output[:1].isalpha()  # the checksum letter
    for name in ("blocks", "regions"):
        assert_same(expected, run(source, ENGINES[name]))
    for after in (1, 777, expected.machine.icount // 2):
        assert_same(
            expected,
            run(source, lambda m, after=after: TieredEngine(m, "regions", ENGINES["regions"], after)),
        )


def translated_words(engine: object) -> set[int]:
    regions = engine.translator.regions.values()  # type: ignore[attr-defined]
    return {a for r in regions for b in r.blocks for a in range(b.start, b.end + 1)}


def test_translation_looks_at_the_code_it_translates_not_the_whole_program(decoded: list[int]) -> None:
    """A 16k-word program. Before the run: one search of the code (a jump table's targets,
    found already, cost no second one). At a tiered switch: the words near the start. At run
    time, from a PC far from the start: the words near that PC (about a region's worth)."""
    source = synthetic(16_000, passes=1)
    machine, _ = booted(source)
    engine = region_engine(machine)
    assert decoded[0] <= 2 * 16_000  # the finder's decoding, then the blocks'
    assert len(translated_words(engine)) > 15_000
    far = min(start for start in engine.translator.leaders if start >= 0x3000 + 12_000)
    decoded[0] = 0
    machine, _ = booted(source)
    machine.start_pc = machine.pc  # built at a tiered switch
    engine = region_engine(machine)
    assert decoded[0] < 3 * AHEAD_WORDS
    assert len(translated_words(engine)) <= AHEAD_WORDS
    decoded[0] = 0
    translator = engine.translator
    assert isinstance(translator, RegionTranslator)
    translations = translator(engine, far)
    assert translations and translations[0].start == far
    assert decoded[0] < 3 * REGION_SEARCH


def test_a_region_where_another_stopped_growing_copies_none_of_its_blocks() -> None:
    """A 1k-word program is one loop (a JMP back to its start) longer than a region: the
    region rooted where the first stops follows the JMP back to the start, but copies none
    of the first's code (that leads to nothing new; it left for the first region's entry
    as soon). Every word is translated once, and the run ends as the interpreter's does."""
    source = synthetic(1000, passes=2)
    expected = run(source, ENGINES["interp"])
    machine, display = booted(source)
    engine = region_engine(machine)
    regions = engine.translator.regions.values()  # type: ignore[attr-defined]
    assert len(regions) > 1
    assert sum(b.length for r in regions for b in r.blocks) == len(translated_words(engine)) > 900
    outcome = engine.run(None)
    machine.console.flush()
    assert_same(expected, Run(machine, outcome, display.getvalue()))


def test_every_callee_of_code_translated_before_the_run_is_translated_with_it() -> None:
    """A small subroutine is copied into the regions that call it; where its call was the
    last block a region had room for (16k words: three times), it roots a region of its
    own, instead of being interpreted and then translated at run time after a search of
    REGION_SEARCH words for its five."""
    source = synthetic(16_000, passes=1)
    machine, _ = booted(source)
    engine = region_engine(machine)
    regions = engine.translator.regions.values()  # type: ignore[attr-defined]
    translated = {b.start for r in regions for b in r.blocks}
    callees = {s.address for r in regions for b in r.blocks for s in b.successors if s.kind is Kind.CALL}
    assert len(callees) > 100
    assert callees <= translated


def test_the_switch_roots_regions_where_functions_begin() -> None:
    """arith's inner loop is x3005-x300D; a switch at x3008, inside it, builds the region of
    the whole program from its start, as before a run: no region that begins at the PC
    reached and cuts the loop in two. The run goes on to the loop's head and stays inside."""
    images = load_images([BENCH / "arith.asm"])
    machine = boot(images, Console(io.BytesIO(), io.BytesIO()))
    tiered = TieredEngine(machine, "regions", ENGINES["regions"], after=10**9)
    while machine.pc != 0x3008 or machine.icount < 50:
        tiered.interpreter.run(1)
    tiered.switch()
    dispatcher = tiered.engine
    regions = dispatcher.translator.regions  # type: ignore[union-attr]
    assert list(regions) == [0x3000]
    assert {0x3005, 0x3008} <= {ins.address for b in regions[0x3000].blocks for ins in b.instructions}
    assert 0x3005 in regions[0x3000].entries
    reference = boot(images, Console(io.BytesIO(), io.BytesIO()))
    ENGINES["interp"](reference).run(None)
    assert tiered.run().reason == "halt"
    assert machine.snapshot() == reference.snapshot() and machine.icount == reference.icount
    assert list(regions) == [0x3000]  # nothing translated at run time: x3008 was run twice at most


def test_pcs_that_waited_for_translations_share_are_translated_once_it_allows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Translating at run time is refused at first (its share of the time used up) while the
    program's code gets hot, then allowed: the PCs that waited meanwhile are translated,
    not left to the interpreter, and the run ends as the interpreter's does."""
    source = synthetic(1200, passes=3)
    expected = run(source, ENGINES["interp"])
    decisions = [0]
    refused = 200

    def may_translate(self: Dispatcher) -> bool:
        decisions[0] += 1
        return decisions[0] > refused and self.machine.translation_budget > 0

    monkeypatch.setattr(Dispatcher, "may_translate", may_translate)
    monkeypatch.setattr(ahead_module, "AHEAD_WORDS", 64)  # the rest is translated at run time,
    monkeypatch.setattr(engine_module, "REGION_SEARCH", 64)  # in small regions that come back often
    machine, display = booted(source)
    tiered = TieredEngine(machine, "regions", ENGINES["regions"], 1000)
    outcome = tiered.run(None)
    machine.console.flush()
    assert_same(expected, Run(machine, outcome, display.getvalue()))
    dispatcher = tiered.engine
    assert isinstance(dispatcher, Dispatcher)
    assert decisions[0] > refused
    assert len(translated_words(dispatcher)) > 1000  # of about 1,200 words
    step_at = dispatcher.interpreter.step_at
    waited = [pc for pc in range(0x3000, 0x3000 + 1300) if dispatcher.table[pc][0] is step_at(pc)]
    assert not waited and not dispatcher.deferred
