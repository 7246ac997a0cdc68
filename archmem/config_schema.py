"""The settings' types and bounds, checked on plain dataclasses (no model built at import).

Every archmem command reads the configuration, so building it must cost nothing at
start-up: a section is a ``@dataclass`` whose fields say their bounds with ``setting()``;
``build()`` turns a TOML/environment table into sections, coercing what the environment
writes as text, and gathers every problem as a ``Problem`` (where, what, the value given)
instead of stopping at the first.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, TypeVar, cast

from archmem.errors import ConfigError
from archmem.values import Record, Value

T = TypeVar("T")

BOUNDS: dict[str, tuple[str, Callable[[Any, Any], bool]]] = {
    "ge": ("greater than or equal to", lambda v, b: v >= b), "gt": ("greater than", lambda v, b: v > b),
    "le": ("less than or equal to", lambda v, b: v <= b), "lt": ("less than", lambda v, b: v < b),
}


@dataclass(frozen=True, repr=False, eq=False)
class Problem(Value):
    """One setting that cannot be taken: where (keys from the top), what, the value given."""

    loc: tuple[str, ...]
    message: str
    value: Any = None
    unknown: bool = False
    """An unknown key (``message`` then is empty and the caller suggests the closest)."""


class SettingsInvalid(ValueError):
    """The problems ``build()`` found, all of them."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{'.'.join(p.loc)}: {p.message or 'unknown setting'}" for p in problems))


def setting(default: Any = dataclasses.MISSING, *, factory: Any = dataclasses.MISSING, alias: str | None = None,
            pattern: str | None = None, check: Any = None, one_or_many: bool = False, **bounds: float) -> Any:
    """A field with its bounds (``ge``, ``gt``, ``le``, ``lt``), a ``pattern`` for text, the
    key written in files when it differs from the attribute (``alias``), a ``check``
    (value → message or None) for rules a type cannot say, and ``one_or_many`` for a list
    that may be written as its one item."""
    meta = {"bounds": bounds, "pattern": pattern, "alias": alias, "check": check, "one_or_many": one_or_many}
    if factory is not dataclasses.MISSING:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def internal(default: Any) -> Any:
    """A field the program sets (where the settings came from): never read from a file,
    and left out of comparisons."""
    return field(default=default, compare=False, metadata={"internal": True})


class Section(Record):
    """A table of settings; constructing one directly checks it as ``build()`` does. A
    section is ``@dataclass(repr=False, eq=False)``: it compares and prints as ``Record``."""

    def __post_init__(self) -> None:
        given = {f.name for f in dataclasses.fields(cast(Any, self)) if not _holds_default(f, getattr(self, f.name))}
        if not given:  # a section's defaults hold (a test checks them): every command builds them
            return
        problems: list[Problem] = []
        for spec in fields_of(type(self)):
            if spec.name not in given:
                continue
            value = getattr(self, spec.name)
            checked = _check(value, spec.annotation, spec.meta, (spec.key,), problems)
            if checked is not value:
                object.__setattr__(self, spec.name, checked)
        if problems:
            raise ConfigError("invalid settings: " + "; ".join(
                f"{'.'.join(p.loc)}: {p.message} (got {p.value!r})" for p in problems))


@dataclass(frozen=True, repr=False, eq=False)
class FieldSpec(Value):
    """One setting of a section: its attribute, its key in files, its type and bounds."""

    name: str
    key: str
    annotation: Any
    meta: Any


_SPECS: dict[type, list[FieldSpec]] = {}


def fields_of(cls: type) -> list[FieldSpec]:
    """The settings of a section (not its internal fields), with their resolved types."""
    specs = _SPECS.get(cls)
    if specs is None:
        hints = typing.get_type_hints(cls)
        specs = [FieldSpec(f.name, f.metadata.get("alias") or f.name, hints[f.name], f.metadata)
                 for f in dataclasses.fields(cls) if not f.metadata.get("internal")]
        _SPECS[cls] = specs
    return specs


def is_section(annotation: Any) -> TypeGuard[type[Section]]:
    return isinstance(annotation, type) and issubclass(annotation, Section)


def build(cls: type[T], data: Any, loc: tuple[str, ...] = ()) -> T:
    """A ``cls`` from a table; raises ``SettingsInvalid`` with every problem found."""
    problems: list[Problem] = []
    built = _build(cls, data, loc, problems)
    if problems:
        raise SettingsInvalid(problems)
    return built


def _build(cls: Any, data: Any, loc: tuple[str, ...], problems: list[Problem]) -> Any:
    if not isinstance(data, dict):
        problems.append(Problem(loc, "input should be a table", data))
        return None
    if not data:  # nothing given: the defaults, with no type resolved
        return _defaults(cls, loc, problems)
    specs = {spec.key: spec for spec in fields_of(cls)}
    names = {spec.name: spec for spec in specs.values()}
    values: dict[str, Any] = {}
    for key, value in data.items():
        spec = specs.get(key) or names.get(key)
        if spec is None:
            problems.append(Problem((*loc, str(key)), "", value, unknown=True))
            continue
        before = len(problems)
        checked = _check(value, spec.annotation, spec.meta, (*loc, str(key)), problems)
        if len(problems) == before:
            values[spec.name] = checked
    for spec in specs.values():  # a setting whose default its own check refuses must be given
        check = spec.meta.get("check") if spec.meta else None
        if spec.name not in values and check is not None and _default(cls, spec.name) is not None \
                and check(_default(cls, spec.name)):
            problems.append(Problem((*loc, spec.key), "Field required", None))
    if any(p.loc[: len(loc)] == loc for p in problems):
        return None
    return cls(**values)


def _defaults(cls: Any, loc: tuple[str, ...], problems: list[Problem]) -> Any:
    """A ``cls`` of its defaults, unless one of them is refused by its own check (a
    setting that must be given: "Field required")."""
    for f in dataclasses.fields(cls):
        check = f.metadata.get("check")
        if check is not None and _default(cls, f.name) is not None and check(_default(cls, f.name)):
            problems.append(Problem((*loc, f.metadata.get("alias") or f.name), "Field required", None))
    return None if problems and any(p.loc[: len(loc)] == loc for p in problems) else cls()


def _holds_default(f: dataclasses.Field[Any], value: Any) -> bool:
    """Whether a field holds its default (a value of the same type, equal to it) and
    its own check takes it (some defaults are refused: the setting must be given)."""
    if f.default is not dataclasses.MISSING:
        default = f.default
    elif f.default_factory is not dataclasses.MISSING:
        default = f.default_factory()
    else:
        return False
    check = f.metadata.get("check")
    return type(value) is type(default) and value == default and not (check is not None and check(value))


def _default(cls: type, name: str) -> Any:
    """A field's default (its factory called), or None when it has none."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            if f.default is not dataclasses.MISSING:
                return f.default
            if f.default_factory is not dataclasses.MISSING:
                return f.default_factory()
    return None


def _check(value: Any, annotation: Any, meta: Any, loc: tuple[str, ...], problems: list[Problem]) -> Any:
    """``value`` as ``annotation`` (coerced from text where the environment wrote it), or
    a ``Problem`` added and ``value`` returned as it was."""
    if meta and meta.get("one_or_many") and isinstance(value, str):
        value = [value]
    before = len(problems)
    checked = _as_type(value, annotation, loc, problems)
    if len(problems) > before or not meta or checked is None:
        return checked
    for name, bound in (meta.get("bounds") or {}).items():
        words, holds = BOUNDS[name]
        if not holds(checked, bound):
            problems.append(Problem(loc, f"input should be {words} {bound}", value))
            return value
    pattern = meta.get("pattern")
    if pattern and not re.fullmatch(pattern, checked):
        problems.append(Problem(loc, f"string should match pattern {pattern!r}", value))
        return value
    check = meta.get("check")
    message = check(checked) if check is not None else None
    if message:
        problems.append(Problem(loc, message, value))
        return value
    return checked


def _as_type(value: Any, annotation: Any, loc: tuple[str, ...], problems: list[Problem]) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if is_section(annotation):
        return value if isinstance(value, annotation) else _build(annotation, value, loc, problems)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _as_type(value, inner[0], loc, problems) if len(inner) == 1 else value
    if origin is Literal:
        if value in args:
            return value
        shown = ", ".join(repr(a) for a in args[:-1]) + f" or {args[-1]!r}" if len(args) > 1 else repr(args[0])
        problems.append(Problem(loc, f"input should be {shown}", value))
        return value
    if origin is list:
        if not isinstance(value, list):
            problems.append(Problem(loc, "input should be a valid list", value))
            return value
        return [_as_type(item, args[0], (*loc, str(i)), problems) for i, item in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            problems.append(Problem(loc, "input should be a valid dictionary", value))
            return value
        return {str(k): _as_type(v, args[1], (*loc, str(k)), problems) for k, v in value.items()}
    if origin is frozenset:
        return frozenset(value)
    if annotation is bool:
        return _as_bool(value, loc, problems)
    if annotation is int:
        return _as_number(value, int, "a valid integer", loc, problems)
    if annotation is float:
        return _as_number(value, float, "a valid number", loc, problems)
    if annotation is str:
        if isinstance(value, str):
            return value
        problems.append(Problem(loc, "input should be a valid string", value))
        return value
    return value


def _as_bool(value: Any, loc: tuple[str, ...], problems: list[Problem]) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
        return value.strip().lower() in ("true", "1", "yes", "on")
    problems.append(Problem(loc, "input should be a valid boolean", value))
    return value


def _as_number(value: Any, kind: type, words: str, loc: tuple[str, ...], problems: list[Problem]) -> Any:
    if isinstance(value, bool):
        problems.append(Problem(loc, f"input should be {words}", value))
        return value
    if isinstance(value, str):
        try:
            number: Any = float(value.strip()) if kind is float else int(value.strip())
        except ValueError:
            problems.append(Problem(loc, f"input should be {words}", value))
            return value
        return number
    if kind is float and isinstance(value, int | float):
        return float(value)
    if kind is int and isinstance(value, int):
        return value
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    problems.append(Problem(loc, f"input should be {words}", value))
    return value
