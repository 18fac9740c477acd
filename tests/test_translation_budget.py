"""The translation budget bounds the work of translating, choosing the regions included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lc3jit.session import ENGINES
from lc3jit.translator.blocks import find_blocks
from lc3jit.translator.regions import RegionTranslator, ahead, closing, select
from lc3jit.translator.regions import engine as regions_engine
from lc3jit.translator.regions.engine import SEARCHED_PER_INSTRUCTION
from lc3jit.translator.regions.select import INLINE_BLOCKS, copied_in, reach
from lc3jit_runtime.machine import Machine

from .conftest import make_machine
from .machine_code import HALT, branchy, op


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of the ahead-of-time selection's `name` (the regions it chooses)."""
    return counting_in(monkeypatch, ahead, name)


@pytest.mark.parametrize("budget", [0, 40])
def test_a_small_budget_bounds_the_regions_chosen(monkeypatch: pytest.MonkeyPatch, budget: int) -> None:
    """With room for nothing (or little), the regions of 400-odd roots are not all chosen
    only to be refused: the choosing stops once what it refused would have cost the budget."""
    machine, _ = make_machine(branchy(3000))
    machine.translation_budget = budget
    chosen = counting(monkeypatch, "region_blocks")
    regions_engine.region_engine(machine)
    assert machine.translation_budget >= 0
    assert len(chosen) <= 2 + budget // 4


def test_the_default_budget_still_translates_every_block_reached() -> None:
    """The bound on refusals changes nothing for a program whose regions fit: every block
    the entry point reaches is in a region translated ahead of the run."""
    machine, _ = make_machine(branchy(600, seed=3))
    budget = machine.translation_budget
    regions_engine.region_engine(machine)
    reached = find_blocks(machine.mem, [0x3000], machine.labels, None)
    assert budget - machine.translation_budget >= sum(block.length for block in reached.values())


def test_whether_a_callee_is_small_is_known_from_its_first_blocks() -> None:
    """reach stops at its limit; copied_in asks for one block more than a copy may have."""
    machine, _ = make_machine(branchy(3000))
    blocks = find_blocks(machine.mem, [0x3000], machine.labels, None)
    for root in list(blocks)[:50]:
        whole = reach(blocks, root, lambda _: False)
        assert reach(blocks, root, lambda _: False, limit=INLINE_BLOCKS + 1) == whole[: INLINE_BLOCKS + 1]
        assert copied_in(blocks, root) == (len(whole) <= INLINE_BLOCKS)


def found_words(machine: Machine) -> int:
    return sum(block.length for block in find_blocks(machine.mem, [0x3000], machine.labels, None).values())


def test_random_code_is_translated_about_once_before_the_run() -> None:
    """Where everything leads back to everything, each region once copied most of the
    earlier ones (3.9 words translated a word found): now every word found is translated,
    and the copies (small callees, loops closing) add at most half as much again."""
    machine, _ = make_machine(branchy(4000))
    budget = machine.translation_budget
    translator = regions_engine.region_engine(machine).translator
    assert isinstance(translator, RegionTranslator)
    regions = translator.regions.values()
    reached = {ins.address for region in regions for block in region.blocks for ins in block.instructions}
    assert len(reached) == found_words(machine)
    assert budget - machine.translation_budget == sum(b.length for r in regions for b in r.blocks)
    assert budget - machine.translation_budget <= 1.5 * len(reached)


def selection_steps(monkeypatch: pytest.MonkeyPatch, words: int) -> float:
    """The blocks whose successors the regions' selection looks at, per word found, for
    branchy code: those its walks (`reach`) go through, those in the subroutines' bodies
    that closing the copies walks (at most the blocks their walk goes through), and those
    it asks `successors_of`."""
    asked = counting_in(monkeypatch, select, "successors_of")
    walked: list[int] = []
    walk, body = select.reach, closing.Walk.body

    def counted_walk(*args: Any, **kwargs: Any) -> list[int]:
        order = walk(*args, **kwargs)
        walked.append(len(order))
        return order

    def counted_body(*args: Any, **kwargs: Any) -> set[int]:
        found = body(*args, **kwargs)
        walked.append(len(found))
        return found

    monkeypatch.setattr(select, "reach", counted_walk)
    monkeypatch.setattr(closing.Walk, "body", counted_body)
    machine, _ = make_machine(branchy(words))
    regions_engine.region_engine(machine)
    return (len(asked) + sum(walked)) / found_words(machine)


def counting_in(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Count the calls of the module's function `name`."""
    calls: list[int] = []
    real: Callable[..., object] = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_choosing_the_regions_is_linear_in_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four times the code costs the selection of its regions four times the work, not
    sixteen: its steps per word found stay the same as the program grows."""
    small = selection_steps(monkeypatch, 1000)
    assert selection_steps(monkeypatch, 4000) < 1.3 * small


@pytest.mark.parametrize("engine", ["regions", "blocks"])
@pytest.mark.parametrize("budget", [0, 500])
def test_the_search_before_the_run_looks_at_no_more_words_than_the_budget(
    decoded: list[int], engine: str, budget: int
) -> None:
    """The words decoded ahead of the run are bounded by the budget (the blocks at the
    search's edge run on to their ends): at 0, none are, whatever the program's size."""
    machine, _ = make_machine(branchy(20_000))
    machine.translation_budget = budget
    decoded[0] = 0
    ENGINES[engine](machine)
    assert decoded[0] <= 2 * budget


def test_a_search_at_run_time_is_paid_for_by_the_budget() -> None:
    """A region of two words (a call, then HALT) whose search went on through its callee
    (a thousand words, too big to copy in) takes a sixteenth of the words searched from
    the budget, not only its two."""
    callee = 0x3100
    body = [op("ADDI", dr=1, sr1=1, imm5=1), op("BR", nzp=0b010, pcoffset9=0)] * 500  # 500 blocks
    words = [op("JSR", pcoffset11=callee - 0x3001), HALT, *[0] * (callee - 0x3002), *body, op("JMP", baser=7)]
    machine, _ = make_machine(words)
    machine.translation_budget = 0  # nothing ahead of the run
    dispatcher = regions_engine.region_engine(machine)
    machine.translation_budget = 10_000
    translations = dispatcher.translator(dispatcher, 0x3000)  # type: ignore[misc]
    assert [t.start for t in translations] == [0x3000, 0x3001]
    assert 10_000 - machine.translation_budget == (1001 + 2) // SEARCHED_PER_INSTRUCTION - 2
