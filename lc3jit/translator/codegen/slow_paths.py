"""Where a load or store goes off its fast path (a device register, a watched word, an
address not wrapped yet), and where it goes once done: back into the block, after the
instruction it stood for (Rejoin: blocks), or out to the dispatcher, which interprets
that instruction (regions' DeviceAccess). The choice is one object the compiler holds,
with what the fast path may assume of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from lc3jit.translator.codegen.emitter import BinaryOp, Label
from lc3jit.translator.codegen.state import BlockState
from lc3jit_runtime import contract
from lc3jit_runtime.isa import WORD_MASK


class SlowPaths(Protocol):
    """The slow paths of loads and stores, entered with an empty stack, and what the fast
    path may assume of them."""

    #: A store's slow path may write the PSR, which sets the codes: one that rejoins reloads
    #: them from the machine into `cc`, so they must be in `cc` before it.
    settle_codes_before_store: bool
    #: Code after a load or store ran its fast path, which only addresses below xFE00 take:
    #: the base register's bounds may say so (an increment of a pointer just used then
    #: needs no wrap).
    bound_base_after_access: bool
    #: A base address may be a sum not wrapped yet (within ADDRESS_BOUNDS): its slow path
    #: wraps it and tries again, or leaves.
    unwrapped_bases: bool

    def access_path(self, slow: Label, emit: Callable[[], None], rejoins: bool) -> None:
        """Place the code `emit` emits at `slow`, jumped to from the fast path just emitted."""

    def slow_load(self, push_address: Callable[[], None], at: int, rejoins: bool) -> None:
        """Push what the machine reads at an address >= xFE00 or not yet wrapped."""

    def slow_store(
        self, push_address: Callable[[], None], push_value: Callable[[], None], at: int, rejoins: bool
    ) -> None:
        """A store into a watched word: a device, code, or an address not yet wrapped."""


class Rejoin:
    """A block's slow paths: the runtime's LOAD and STORE, then back into the block."""

    settle_codes_before_store = True
    bound_base_after_access = False
    unwrapped_bases = False

    def __init__(self, state: BlockState) -> None:
        self.state = state

    def slow_path(self, slow: Label, emit: Callable[[], None]) -> None:
        """The code at `slow`, jumped to from the fast path just emitted, which it rejoins."""
        e, done = self.state.e, Label()
        e.jump_forward(done)
        e.place(slow)
        emit()
        e.place(done)

    def access_path(self, slow: Label, emit: Callable[[], None], rejoins: bool) -> None:
        """The slow path of a load or store (see slow_load): one that rejoins."""
        self.slow_path(slow, emit)

    def slow_load(self, push_address: Callable[[], None], at: int, rejoins: bool) -> None:
        """Push what the machine reads at an address >= xFE00 or not yet wrapped.

        `rejoins`: a slow path regions take too, coming back after the runtime's
        access instead of leaving (DeviceAccess.access_path): LDI and STI, whose
        address no register keeps (LDR and STR narrow their base register's bounds
        after the access, which only the fast path makes true: address_checked), and
        ST to a word always watched (`watched_for_good`)."""
        s = self.state
        s.sync()
        s.call(contract.LOAD, self.wrapped(push_address), at)

    def wrapped(self, push_address: Callable[[], None]) -> Callable[[], None]:
        """Code that pushes the address push_address pushes, wrapped to 16 bits (a slow
        path's address may be a sum not wrapped yet)."""
        e = self.state.e

        def push_wrapped() -> None:
            push_address()
            e.const(WORD_MASK)
            e.binary(BinaryOp.AND)

        return push_wrapped

    def slow_store(
        self, push_address: Callable[[], None], push_value: Callable[[], None], at: int, rejoins: bool
    ) -> None:
        """A store into a watched word: a device, code, or an address not yet wrapped
        (`rejoins`: see slow_load)."""
        s = self.state
        e = s.e
        s.sync()
        s.call(contract.STORE, push_address, push_value, at)
        e.pop()
        if s.cc_local and self.settle_codes_before_store:  # a store into the PSR sets the codes
            s.push_table(contract.MACHINE)
            e.load_attr(contract.CODES)
            e.store("cc")
