"""Small immutable records (an instruction form, an image, an outcome) without `dataclasses`.

Importing `dataclasses` pulls in `inspect` (and with it `ast`, `dis`, `tokenize`): about
10 ms of CPU, half of what bare Python costs to start, and each frozen slotted dataclass
then costs a few hundred microseconds more to build at import. A plain `lc3jit run` and
a run that loads its translations from the cache need a handful of records and nothing
else of that machinery, so their records are `Record`s, with what a frozen
slotted dataclass gives them: construction by position or keyword, equality and hashing
by class and fields, a repr naming the fields, no assignment after `__init__` (a
`__post_init__` may still set derived fields with `object.__setattr__`, as a dataclass's
does), and copies and pickles that keep all that. Modules on those paths import `typing`
only for the type checker, for the same reason (`TYPE_CHECKING = False`, then
`if TYPE_CHECKING:`, an idiom type checkers know).

For the same reason the few enumerations on those paths (how a run ends, how an
instruction passes control on) are `Choice`s, not `enum.Enum`s: importing `enum` (and
`signal`, whose constants are enums) cost a plain run 1.5 ms of CPU on Python 3.15.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag without importing typing: docs/development.md, "Start-up"
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, Self


class _RecordType(type):
    """Makes a record class from its keywords: `fields` (in order; they become its
    `__slots__`), `defaults` (immutable values of fields that may be left out),
    `factories` (a callable giving a fresh value for each record, as a dataclass's
    default_factory), `derived` (fields that `__post_init__` sets rather than the caller:
    a dataclass's `init=False`)."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, object],
        fields: tuple[str, ...] = (),
        defaults: dict[str, object] | None = None,
        factories: dict[str, Callable[[], object]] | None = None,
        derived: tuple[str, ...] = (),
    ) -> _RecordType:
        namespace["__slots__"] = fields
        cls = super().__new__(mcs, name, bases, namespace)
        cls.FIELDS = fields
        cls._init_fields = tuple(field for field in fields if field not in derived)
        cls._defaults = defaults or {}
        cls._factories = factories or {}
        #: Each field's slot setter, for `from_values` and `__init__` (a call of one is
        #: cheaper than `object.__setattr__`, which looks the name up each time: the ISA
        #: table's records, made by every run, cost 0.2 M machine instructions less).
        cls._setters = tuple(getattr(cls, field).__set__ for field in fields)
        cls._init_setters = tuple(getattr(cls, field).__set__ for field in cls._init_fields)
        return cls


class Record(metaclass=_RecordType):
    """Base of a record class, declared as `class Outcome(Record, fields=("ending",
    "message"), defaults={"message": ""})` (see _RecordType for the keywords)."""

    FIELDS: tuple[str, ...]
    _init_fields: tuple[str, ...]
    _defaults: dict[str, object]
    _factories: dict[str, Callable[[], object]]
    _setters: tuple[Callable[[object, object], None], ...]
    _init_setters: tuple[Callable[[object, object], None], ...]

    def __init__(self, *args: object, **kwargs: object) -> None:
        cls = type(self)
        names, setters = cls._init_fields, cls._init_setters
        if len(args) == len(names) and not kwargs:  # every field given in order: the common case
            for set_field, value in zip(setters, args, strict=True):
                set_field(self, value)
            self.__post_init__()
            return
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__} takes at most {len(names)} fields, {len(args)} given")
        for index, name in enumerate(names):
            if index < len(args):
                if name in kwargs:
                    raise TypeError(f"{cls.__name__} got {name!r} twice")
                value = args[index]
            elif name in kwargs:
                value = kwargs.pop(name)
            elif name in cls._defaults:
                value = cls._defaults[name]
            elif name in cls._factories:
                value = cls._factories[name]()
            else:
                raise TypeError(f"{cls.__name__} needs {name!r}")
            setters[index](self, value)
        if kwargs:
            raise TypeError(f"{cls.__name__} has no field {next(iter(kwargs))!r}")
        self.__post_init__()

    def __post_init__(self) -> None:
        """Check or derive fields (a subclass's)."""

    @classmethod
    def from_values(cls, values: Iterable[object]) -> Self:
        """A record from every field's value in order, derived fields included, without
        `__init__`'s checks and `__post_init__`: for copies and pickles, and for records
        built by the thousand from values already known good (`decode` builds one per word
        a translator reads; `__init__` with keywords cost a sixth of translating)."""
        record = object.__new__(cls)
        for set_field, value in zip(cls._setters, values, strict=True):
            set_field(record, value)
        return record

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot assign {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return _rebuilt, (type(self), self._values())


class MutableRecord(Record):
    """A record whose fields may be assigned (a dataclass that is not frozen): not hashable."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__


def fillable(record: type) -> Any:
    """A subclass of `record` (a Record, or a frozen slotted dataclass) whose instances take
    plain attribute stores, for a hot path that makes one record a word or a block (decode,
    the block finder): make one with `object.__new__`, store each field, then set its
    `__class__` to `record` (the same slots, so CPython allows it); from then on it is a
    record like any other, immutable. CPython specialises a plain store to a slot write,
    where a Record's slot setter or a frozen dataclass's `object.__setattr__` is a call
    each: decode 11.4k -> 3.2k machine instructions a word, a block 15k -> 6k. Both
    `__setattr__` and `__delattr__` are object's, as a MutableRecord's: with either alone
    the class keeps a setattr slot CPython does not specialise. Typed Any: what is stored
    is checked where it is made, not by the type checker."""
    namespace = {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__}
    return type(record)(f"_Filling{record.__name__}", (record,), namespace)


def _rebuilt(cls: type[Record], values: tuple[object, ...]) -> Record:
    """A record from its field values, as copied or unpickled: derived fields included, so
    `__post_init__` is not run again."""
    return cls.from_values(values)


class _ChoiceType(type):
    """Makes every upper-case attribute of a Choice's class body one of its members."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> _ChoiceType:
        cls = super().__new__(mcs, name, bases, namespace)
        members = []
        for key, value in namespace.items():
            if key.isupper():
                member = object.__new__(cls)
                member.name, member.value = key, value
                member.__init__(*(value if isinstance(value, tuple) else (value,)))
                setattr(cls, key, member)
                members.append(member)
        cls._members = tuple(members)
        return cls

    def __iter__(cls) -> Iterator[object]:
        return iter(cls._members)


class _Choice(metaclass=_ChoiceType):
    """The members of an enumeration, declared as an `enum.Enum`'s are (`HALT = "halt", 0`:
    the arguments of `__init__`, which sets the member's own attributes) and used as its
    are: `Ending.HALT`, `ending is Ending.HALT`, `.name`, `.value`, `for ending in Ending`;
    copies and pickles are the member itself. Not looked up by name or value."""

    _members: tuple[_Choice, ...]
    name: str
    value: object

    def __init__(self, *value: object) -> None:
        """A member's own attributes, from its value (a subclass's)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}: {self.value!r}>"

    def __reduce__(self) -> tuple[object, ...]:
        return getattr, (type(self), self.name)


#: What type checkers see is an Enum, which a Choice behaves as.
if TYPE_CHECKING:
    from enum import Enum as Choice
else:
    Choice = _Choice
