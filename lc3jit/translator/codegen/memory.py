"""Loads and stores in generated code: the fast path through memory and the write map, and
the slow paths for device registers, watched words and addresses not wrapped yet.

A constant address is known now to be a device register or not; a computed one is
checked against xFE00 (and, for a block that may run in user mode under access control,
against x3000). Stores check the write map `W` and take the slow path `STORE` for watched
words. Where a slow path goes once done (back into the block, or out to the dispatcher)
is the SlowPaths object the compiler gives MemoryAccess (slow_paths).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from lc3jit.translator.codegen.assembler import Item
from lc3jit.translator.codegen.bounds import ADDRESS_BOUNDS, FULL, OFFSET6_REACH, WRAP
from lc3jit.translator.codegen.dataflow import register_writes
from lc3jit.translator.codegen.emitter import BinaryOp, Compare, Label, recorded
from lc3jit.translator.codegen.slow_paths import SlowPaths
from lc3jit.translator.codegen.state import BlockState
from lc3jit_runtime import contract
from lc3jit_runtime.isa import WORD_MASK
from lc3jit_runtime.machine import IO_BASE, USER_BASE, user_address


@lru_cache(maxsize=256)
def _below(local: str, limit: int) -> tuple[Item, ...]:
    """`local < limit`, made once for each local that holds an address and each limit (a
    load's test: xFE00, or less where it also clears the loads after it, see `reach`)."""
    return recorded(("load", local), ("const", limit), ("compare", Compare.LT))


class MemoryAccess:
    """Loads and stores: their fast paths, on the compiler's state, and the way to their
    slow paths (blocks' and regions' differ: `slow`)."""

    def __init__(self, state: BlockState, slow: SlowPaths) -> None:
        self.state, self.slow = state, slow

    def load_const_address(self, address: int, at: int) -> None:
        """Push mem[address] for an address known now."""
        s = self.state
        if address >= IO_BASE or (s.checked_loads and address < USER_BASE):
            self.slow.slow_load(lambda: s.e.const(address), at, True)
        else:
            s.push_table(contract.MEMORY)
            s.e.const(address)
            s.e.subscript()

    def watched_for_good(self, address: int) -> bool:
        """Is every store to this word a slow path: a device register, or (under access
        control) a word closed to user mode, which the OS's own stores write?"""
        return address >= IO_BASE or (self.state.access_control and not user_address(address))

    def load_base_plus_offset(self, baser: int, offset: int, at: int) -> None:
        """Push mem[BaseR + offset] (LDR). Where BaseR's bounds keep the address below
        xFE00 (a load from it, or after it, tested that: `reach`), the sum is indexed as it
        is, with no test and no local."""
        s = self.state
        lo, hi = s.range_of(baser)
        if lo + offset >= 0 and hi + offset < IO_BASE and not s.checked_loads:
            s.push_table(contract.MEMORY)
            s.push_reg(baser)
            if offset:
                s.e.const(abs(offset))
                s.e.binary(BinaryOp.ADD if offset > 0 else BinaryOp.SUBTRACT)
            s.e.subscript()
            return
        address, bounds = self.base_plus_offset(baser, offset)
        limit = IO_BASE - self.reach(baser, offset)
        self.address_checked(baser, offset, self.load_computed_address(address, bounds, at, limit=limit))

    def load_computed_address(
        self, local: str, bounds: tuple[int, int], at: int, rejoins: bool = False, limit: int = IO_BASE
    ) -> int:
        """Push mem[local]: local is an address within bounds, not yet wrapped (see
        ADDRESS_BOUNDS), tested below `limit` (at most xFE00: see `reach`); `rejoins`: see
        slow_load. Returns `limit`: what the fast path's addresses are below."""
        s = self.state
        e, slow, retry = s.e, Label(), Label()
        if self.may_retry(bounds):
            e.place(retry)
        e.extend(_below(local, limit))
        e.jump_if_false(slow)
        if bounds[0] < 0 or s.checked_loads:
            e.load(local)
            e.const(USER_BASE if s.checked_loads else 0)
            e.compare(Compare.GE)
            e.jump_if_false(slow)
        s.push_table(contract.MEMORY)
        e.load(local)
        e.subscript()
        self.slow.access_path(
            slow,
            lambda: self.slow_access(
                local, bounds, retry, lambda: self.slow.slow_load(lambda: e.load(local), at, rejoins)
            ),
            rejoins,
        )
        return limit

    def reach(self, baser: int, offset: int) -> int:
        """How much further than `offset` the loads after this one read from BaseR, before
        BaseR changes in the block: a load's test then clears them too (BaseR + offset below
        xFE00 less that), so that they need none (`LDR R1, R6, #0` ... `LDR R7, R6, #1`
        popping a frame). An address the wider test sends to the slow path only costs a way
        through the interpreter. Where the base is not bounded after an access, none."""
        s = self.state
        if not self.slow.bound_base_after_access or s.checked_loads or offset < 0:
            return 0
        block = s.current_block()
        furthest = offset
        for ins in block.instructions[s.index + 1 :]:
            if ins.form.name == "LDR" and ins.baser == baser and ins.offset6 > furthest:
                furthest = ins.offset6
            if baser in register_writes(ins):
                break
        return furthest - offset

    def store(
        self,
        address: int | str,
        push_value: Callable[[], None],
        at: int,
        bounds: tuple[int, int] = FULL,
        rejoins: bool = False,
    ) -> None:
        """mem[address] = value; address a constant or a local within bounds, not yet
        wrapped (see ADDRESS_BOUNDS); `rejoins`: see slow_load."""
        s = self.state
        e, slow, retry = s.e, Label(), Label()

        def push_address() -> None:
            e.load(address) if isinstance(address, str) else e.const(address)

        def slow_store() -> None:
            self.slow.slow_store(push_address, push_value, at, rejoins)

        if self.slow.settle_codes_before_store:
            s.settle_cc()
        if self.may_retry(bounds):
            e.place(retry)
        supervisor = s.access_control and not s.checked_loads  # a word closed to user mode
        if supervisor:  # is plain data to the supervisor (the OS saving registers)
            s.push_table(contract.SUPERVISOR_SLOW)
        s.push_table(contract.WRITE_MAP)
        push_address()
        e.subscript()
        if supervisor:
            e.subscript()
        e.jump_if_true(slow, is_bool=supervisor)
        push_value()
        s.push_table(contract.MEMORY)
        push_address()
        e.store_subscript()
        if isinstance(address, str):
            self.slow.access_path(slow, lambda: self.slow_access(address, bounds, retry, slow_store), rejoins)
        else:
            self.slow.access_path(slow, slow_store, rejoins)

    def slow_access(
        self, local: str, bounds: tuple[int, int], retry: Label, slow: Callable[[], None]
    ) -> None:
        """The slow path of a load or store at an address in a local: where the base was a
        sum not wrapped yet (the address may pass a word plus an offset6), an address
        outside 0..xFFFF is wrapped and the access tried again; the rest is `slow`, which
        the few addresses a word plus an offset takes past them also take."""
        if bounds[1] > WORD_MASK + OFFSET6_REACH:
            self.wrap_and_retry(local, Compare.GT, WORD_MASK, BinaryOp.SUBTRACT, retry)
        if bounds[0] < -OFFSET6_REACH:
            self.wrap_and_retry(local, Compare.LT, 0, BinaryOp.ADD, retry)
        slow()

    @staticmethod
    def may_retry(bounds: tuple[int, int]) -> bool:
        """May an access at an address within bounds be wrapped and tried again?"""
        return bounds[1] > WORD_MASK + OFFSET6_REACH or bounds[0] < -OFFSET6_REACH

    def wrap_and_retry(self, local: str, beyond: Compare, limit: int, step: BinaryOp, retry: Label) -> None:
        e, within = self.state.e, Label()
        e.load(local)
        e.const(limit)
        e.compare(beyond)
        e.jump_if_false(within)
        e.load(local)
        e.const(WRAP)
        e.binary(step)
        e.store(local)
        e.jump(retry)
        e.place(within)

    def address_checked(self, baser: int, offset: int, limit: int = IO_BASE) -> None:
        """After the fast path of a load or store at BaseR + offset, which only addresses
        below `limit` take (xFE00 for a store: the write map watches every word from there
        on), BaseR's bounds say so: an increment of a pointer just used then needs no wrap.
        (Not where the address was wrapped and tried again: BaseR itself was not, unless
        offset is 0.)"""
        s = self.state
        lo, hi = s.range_of(baser)
        if self.slow.bound_base_after_access and (0 <= lo + offset <= hi + offset <= WORD_MASK or not offset):
            s.ranges[baser] = (max(lo, -offset), min(hi, limit - 1 - offset))

    def base_plus_offset(self, baser: int, offset: int) -> tuple[str, tuple[int, int]]:
        """BaseR + offset, unwrapped: the local that holds it (BaseR's own for offset 0),
        and its bounds. A BaseR beyond ADDRESS_BOUNDS is wrapped first."""
        s = self.state
        lo, hi = s.range_of(baser)
        if not ADDRESS_BOUNDS[0] <= lo <= hi <= ADDRESS_BOUNDS[1]:
            s.wrap_register(baser)
            lo, hi = s.range_of(baser)
        if not offset:
            return s.reg(baser), (lo, hi)
        s.push_reg(baser)
        s.e.const(abs(offset))
        s.e.binary(BinaryOp.ADD if offset > 0 else BinaryOp.SUBTRACT)
        s.e.store("a")
        return "a", (lo + offset, hi + offset)
