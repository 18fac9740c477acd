"""What a run uses of `contextlib` and `functools`, without importing them.

Importing `contextlib` imports `functools` and `collections` (and `reprlib`, `keyword`):
about 9 M machine instructions, a quarter of what a plain `lc3jit run` adds to bare
Python 3.15, whose own start imports none of them (3.11's `site` does). A run uses three
things of theirs: a generator as a `with` block, `suppress`, `cache` and `cached_property`, and
the dispatcher's `deque` (from `_collections`, built into the interpreter, which
`collections` itself imports it from). The type checker sees the standard library's own
(the same behaviour, as far as a run goes: these serve only the generators and
properties of this package).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections import deque as deque
    from contextlib import contextmanager as contextmanager
    from contextlib import suppress as suppress
    from functools import cache as cache
    from functools import cached_property as cached_property
else:
    import _collections

    deque = _collections.deque

    class _GeneratorBlock:
        """One `with` of a generator that yields once (contextlib's _GeneratorContextManager
        without its reuse as a decorator, async, and traceback tidying)."""

        __slots__ = ("generator",)

        def __init__(self, generator):
            self.generator = generator

        def __enter__(self):
            return next(self.generator)

        def __exit__(self, kind, value, traceback):
            if kind is None:
                try:
                    next(self.generator)
                except StopIteration:
                    return False
                raise RuntimeError("generator didn't stop")
            try:
                self.generator.throw(value)
            except StopIteration as stopped:
                return stopped is not value  # the generator ended: it took the exception
            except BaseException as raised:
                if raised is value or (isinstance(value, StopIteration) and raised.__cause__ is value):
                    return False  # raised again as it was (a StopIteration: as PEP 479 turned it)
                raise
            raise RuntimeError("generator didn't stop after throw()")

    def contextmanager(function):
        def block(*args, **kwargs):
            return _GeneratorBlock(function(*args, **kwargs))

        block.__name__, block.__qualname__, block.__doc__ = (
            function.__name__,
            function.__qualname__,
            function.__doc__,
        )
        block.__wrapped__ = function
        return block

    class _Suppressed:
        __slots__ = ("kinds",)

        def __init__(self, kinds):
            self.kinds = kinds

        def __enter__(self):
            return None

        def __exit__(self, kind, value, traceback):
            return kind is not None and issubclass(kind, self.kinds)

    def suppress(*kinds):
        return _Suppressed(kinds)

    class cache:  # noqa: N801 (functools' name, which the type checker sees)
        """A function's results, by its (hashable) arguments."""

        def __init__(self, function):
            self.function = function
            self.results = {}
            self.__wrapped__, self.__doc__ = function, function.__doc__

        def __call__(self, *arguments):
            try:
                return self.results[arguments]
            except KeyError:
                result = self.results[arguments] = self.function(*arguments)
                return result

        def cache_clear(self):
            self.results.clear()

    class cached_property:  # noqa: N801 (functools' name, which the type checker sees)
        """Computed once, at the first read, then an attribute of the instance."""

        def __init__(self, compute):
            self.compute = compute
            self.__doc__ = compute.__doc__
            self.name = compute.__name__

        def __set_name__(self, owner, name):
            self.name = name

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = instance.__dict__[self.name] = self.compute(instance)
            return value
