"""The bounds the code generator tracks for each register's local: words, and sums not
wrapped to 16 bits yet (see codegen)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from lc3jit_runtime.isa import WORD_MASK

SIGN = 0x8000
WRAP = WORD_MASK + 1
FULL = (0, WORD_MASK)  # the bounds of a word
#: Unwrapped values stay within +-LOOSE, small enough for CPython's one-digit ints.
LOOSE = 1 << 29
EMPTY: Mapping[int, tuple[int, int]] = MappingProxyType({})
#: The bounds of a base address regions use without wrapping it first (a sum of two
#: words, a pointer just decremented): the write map's guards reach that far both ways,
#: and a load outside 0..xFFFF takes its slow path, which wraps the address and tries
#: again (runtime.machine.GUARD_WORDS).
ADDRESS_BOUNDS = (-WRAP, 2 * WRAP - 1)
OFFSET6_REACH = 32
