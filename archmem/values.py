"""Equality, hashing and printing of archmem's dataclasses, written once for all of them.

``@dataclass`` generates ``__init__``, ``__repr__`` and ``__eq__`` (and, when frozen,
``__hash__``) for every class as source text, compiled at import: with some seventy
classes on the way of every command, that compiling was a quarter of a recall. So a
dataclass says ``repr=False, eq=False`` and takes these three from its base instead:
``Value`` for a frozen one, ``Record`` for one that changes (which, as a dataclass with
``eq``, is not hashable). They answer exactly what the generated methods answer: the
fields that compare (``field(compare=False)`` left out), as one tuple, only against an
instance of the very same class; the fields that ``repr`` shows, in the same form.
``dataclasses.fields``, ``replace`` and ``asdict`` work as before: these are dataclasses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any

_Getter = Callable[[Any], tuple[Any, ...]]
_COMPARED: dict[type, _Getter] = {}
_HASHED: dict[type, _Getter] = {}
_SHOWN: dict[type, tuple[str, ...]] = {}


def _getter(names: list[str]) -> _Getter:
    """A function from an instance to the tuple of those fields (C-speed for two or more)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _compared(cls: type) -> _Getter:
    found = _COMPARED.get(cls)
    if found is None:
        found = _COMPARED[cls] = _getter([f.name for f in dataclasses.fields(cls) if f.compare])
    return found


def _hashed(cls: type) -> _Getter:
    found = _HASHED.get(cls)
    if found is None:
        found = _HASHED[cls] = _getter([f.name for f in dataclasses.fields(cls)
                                        if (f.compare if f.hash is None else f.hash)])
    return found


def _shown(cls: type) -> tuple[str, ...]:
    found = _SHOWN.get(cls)
    if found is None:
        found = _SHOWN[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.repr)
    return found


class Record:
    """The methods of a dataclass that changes: ``@dataclass(repr=False, eq=False)``."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            compared = _COMPARED.get(self.__class__) or _compared(self.__class__)
            return compared(self) == compared(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a record changes: as a dataclass with eq, not hashable

    @recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _shown(self.__class__))
        return f"{self.__class__.__qualname__}({shown})"


class Value(Record):
    """The methods of a frozen dataclass: ``@dataclass(frozen=True, repr=False, eq=False)``;
    hashable by the fields it compares."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash((_HASHED.get(self.__class__) or _hashed(self.__class__))(self))
