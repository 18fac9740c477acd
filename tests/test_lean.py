"""runtime/lean.py stands in for contextlib's and functools' helpers on a run's way: what the
runtime relies on them for must hold as it does with the standard library's (a run that
ends by an exception still restores the terminal and unfreezes what it froze; a console
whose descriptor is gone is still made)."""

from __future__ import annotations

import contextlib
import functools

import pytest

from lc3jit_runtime import lean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


def blocks(contextmanager: Callable[..., Callable[[list[str]], object]]) -> list[str]:
    """What a generator's `with` block does around a body that raises, one that a generator
    takes, and one that ends normally (the same list for both implementations)."""
    seen: list[str] = []

    @contextmanager
    def guarded(into: list[str]) -> Iterator[None]:
        """Restores on every way out; takes KeyError."""
        into.append("enter")
        try:
            yield
        except KeyError:
            into.append("took KeyError")
        finally:
            into.append("restore")

    raised = ValueError("the run's own")
    with pytest.raises(ValueError) as caught, guarded(seen):
        raise raised
    seen.append("same exception" if caught.value is raised else "another")
    with guarded(seen):
        raise KeyError("taken")
    with guarded(seen):
        seen.append("body")
    seen.append(guarded.__doc__ or "")
    return seen


def test_a_generators_block_runs_as_contextlibs() -> None:
    assert blocks(lean.contextmanager) == blocks(contextlib.contextmanager)


def test_suppress_takes_only_the_kinds_named() -> None:
    with lean.suppress(OSError, ValueError):
        raise FileNotFoundError  # an OSError
    with pytest.raises(KeyError), lean.suppress(OSError):
        raise KeyError


def test_cache_and_cached_property_compute_once() -> None:
    calls: list[int] = []

    @lean.cache
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    class Holder:
        @lean.cached_property
        def value(self) -> int:
            calls.append(-1)
            return 7

    holder = Holder()
    assert (square(3), square(3), holder.value, holder.value) == (9, 9, 7, 7)
    assert calls == [3, -1]
    square.cache_clear()
    assert square(3) == 9 and calls == [3, -1, 3]
    assert functools.cached_property is not lean.cached_property  # a run's own, not functools'
