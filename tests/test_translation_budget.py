"""The translation budget bounds the work of translating, choosing the regions included."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lc3jit.translator.blocks import find_blocks
from lc3jit.translator.regions import ahead
from lc3jit.translator.regions import engine as regions_engine
from lc3jit.translator.regions.select import INLINE_BLOCKS, copied_in, reach

from .conftest import make_machine
from .machine_code import branchy


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of the ahead-of-time selection's `name` (the regions it chooses)."""
    calls: list[int] = []
    real: Callable[..., object] = getattr(ahead, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ahead, name, counted)
    return calls


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
