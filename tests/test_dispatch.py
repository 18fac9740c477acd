"""The dispatcher's side of the translator: the Translator protocol and what generated code
reports through the contract's names."""

from __future__ import annotations

import io
from collections.abc import Sequence

from lc3jit.session import boot
from lc3jit_runtime import contract
from lc3jit_runtime.console import Console
from lc3jit_runtime.dispatch import Dispatcher, Translation


class Listening:
    """A translator that translates nothing and records what it is told."""

    def __init__(self) -> None:
        self.told: list[tuple[int, int]] = []

    def __call__(self, dispatcher: Dispatcher, pc: int) -> Sequence[Translation]:
        return ()

    def left_through(self, dispatcher: Dispatcher, site: int, target: int) -> None:
        self.told.append((site, target))


def test_a_sample_from_generated_code_reaches_the_translator_and_exits_are_counted() -> None:
    translator = Listening()
    dispatcher = Dispatcher(boot([], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000), translator)
    namespace = dispatcher.globals
    namespace[contract.EXIT_COUNTS][0x3010] += 3  # type: ignore[index]  # as a region's code counts
    namespace[contract.INDIRECT.name](0x3010, 0x4000)  # type: ignore[operator]
    assert translator.told == [(0x3010, 0x4000)]
    assert dispatcher.exits_through(0x3010) == 3
    assert dispatcher.exits_through(0x3011) == 0


def test_without_a_translator_samples_are_dropped() -> None:
    dispatcher = Dispatcher(boot([], Console(io.BytesIO(), io.BytesIO()), 3, 0x3000))
    dispatcher.left_through(0x3010, 0x4000)  # nothing to tell, nothing raised
    assert dispatcher.translate(0x3000) is False
