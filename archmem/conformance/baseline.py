"""The conformance baseline: today's findings frozen in a committed file, so CI fails
only on new ones while the old ones are paid down.

An entry names a finding without its line number (the two elements, the importing
file, what it imports and the file it reaches; the rule for a rule broken; the members
for a cycle), so moving code around a frozen import keeps it frozen, and a second import
of the same kind in another file is new. The file holds one entry per line, sorted, so a
team reviews its changes as a diff; ``--update-baseline`` rewrites it from the code now,
which drops what was fixed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from archmem.conformance.types import ConformanceReport, Dependency, Site
from archmem.errors import InvalidInputError
from archmem.json_input import load_json
from archmem.values import Value

VERSION = 1
KINDS = ("undeclared", "rule", "cycle")
_FIELDS = {"kind": "kind", "from": "source", "to": "target", "file": "file", "import": "spec",
           "reaches": "reached", "rule": "rule", "elements": "elements"}
"""The file's keys and the ``Entry`` attributes they hold."""


@dataclass(frozen=True, order=True)
class Entry:
    """One frozen finding, keyed without line numbers (see the module doc)."""

    kind: str
    source: str = ""
    target: str = ""
    file: str = ""
    spec: str = ""
    reached: str = ""
    rule: str = ""
    elements: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for key, attribute in _FIELDS.items():
            value = getattr(self, attribute)
            if value:
                data[key] = list(value) if isinstance(value, tuple) else value
        return data

    def line(self) -> str:
        """The entry as its line in the file."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    def describe(self) -> str:
        if self.kind == "cycle":
            return f"cycle {' → '.join(self.elements)}"
        what = f"rule {self.rule}: " if self.kind == "rule" else ""
        return f"{what}{self.source} → {self.target} at {self.file} ({self.spec})"


def _site_entry(kind: str, dep: Dependency, site: Site, rule: str = "") -> Entry:
    return Entry(kind, dep.source, dep.target, site.file, site.spec, site.target, rule)


def entries(report: ConformanceReport) -> list[Entry]:
    """Every finding of ``report`` as an entry: sorted, each once."""
    found: set[Entry] = set()
    for violation in report.violations:
        found.update(_site_entry("rule", violation.dependency, s, violation.rule) for s in violation.dependency.sites)
    for dep in report.undeclared:
        found.update(_site_entry("undeclared", dep, s) for s in dep.sites)
    found.update(Entry("cycle", elements=tuple(c.members)) for c in report.cycles if not c.drawn)
    return sorted(found)


def render(frozen: Iterable[Entry]) -> str:
    """The baseline file's text: a small header, then one entry per line."""
    lines = [e.line() for e in sorted(set(frozen))]
    body = ",\n".join(f"    {line}" for line in lines)
    return (
        "{\n"
        f'  "version": {VERSION},\n'
        '  "about": "archmem conformance findings frozen by --update-baseline; CI fails only on others",\n'
        f'  "frozen": [{chr(10) + body + chr(10) + "  " if lines else ""}]\n'
        "}\n"
    )


def read_baseline(text: str, path: str) -> list[tuple[int, Entry]]:
    """The entries of a baseline file with their lines; ``InvalidInputError`` naming
    ``path:line:column`` for anything that is not one."""
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path}:{exc.lineno}:{exc.colno}: not a conformance baseline: {exc.msg}",
                                hint="archmem conformance --update-baseline rewrites it") from None
    except RecursionError:
        raise InvalidInputError(f"{path}:1:1: not a conformance baseline: nested too deep") from None
    if not isinstance(data, dict) or not isinstance(data.get("frozen"), list):
        raise InvalidInputError(f"{path}:1:1: not a conformance baseline: no \"frozen\" list",
                                hint="archmem conformance --update-baseline rewrites it")
    if data.get("version") != VERSION:
        where = _line_of(text, '"version"')
        raise InvalidInputError(f"{path}:{where}:1: conformance baseline version "
                                f"{data.get('version')!r}; this archmem reads version {VERSION}")
    lines = text.splitlines()
    found = []
    cursor = 0
    for index, item in enumerate(data["frozen"]):
        entry = _entry(item)
        line, cursor = _entry_line(lines, entry, cursor) if entry else (cursor + 1, cursor)
        if entry is None:
            raise InvalidInputError(
                f"{path}:{line}:1: frozen[{index}] is not a baseline entry: it needs \"kind\" ({', '.join(KINDS)}) "
                "and text fields (\"from\", \"to\", \"file\", \"import\", \"reaches\", \"rule\" or \"elements\")")
        found.append((line, entry))
    return found


def _entry(item: object) -> Entry | None:
    if not isinstance(item, dict) or item.get("kind") not in KINDS or set(item) - set(_FIELDS):
        return None
    values: dict[str, Any] = {}
    for key, value in item.items():
        if key == "elements":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return None
            values["elements"] = tuple(value)
        elif isinstance(value, str):
            values[_FIELDS[key]] = value
        else:
            return None
    return Entry(**values)


def _line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 1


def _entry_line(lines: list[str], entry: Entry, cursor: int) -> tuple[int, int]:
    """The 1-based line holding ``entry`` at or after ``cursor`` (its own form, as
    written), and the cursor after it; the cursor's line when it was written otherwise."""
    written = entry.line()
    for number in range(cursor, len(lines)):
        if lines[number].strip().rstrip(",") == written:
            return number + 1, number + 1
    return min(cursor + 1, max(len(lines), 1)), cursor


@dataclass(frozen=True, repr=False, eq=False)
class Frozen(Value):
    """What the baseline did to one report: findings left out, and entries fixed since."""

    report: ConformanceReport
    """The report with frozen findings left out (what fails CI, what SARIF shows)."""
    frozen: int
    """Findings left out because the baseline holds them."""
    fixed: list[Entry]
    """Baseline entries the code no longer has: ``--update-baseline`` drops them."""


def apply_baseline(report: ConformanceReport, baseline: Iterable[Entry]) -> Frozen:
    """``report`` without the findings ``baseline`` holds. A dependency left with no
    site goes (a declared one stays: it is no finding); so does a frozen cycle."""
    held = set(baseline)
    fixed = sorted(held - set(entries(report)))
    frozen = 0

    def cut(dep: Dependency, kind: str, rule: str = "") -> Dependency | None:
        nonlocal frozen
        sites = [s for s in dep.sites if _site_entry(kind, dep, s, rule) not in held]
        frozen += len(dep.sites) - len(sites)
        return replace(dep, sites=sites) if sites else None

    dependencies = [d if d.declared else cut(d, "undeclared") for d in report.dependencies]
    violations = [replace(v, dependency=d) for v in report.violations
                  if (d := cut(v.dependency, "rule", v.rule)) is not None]
    cycles = []
    for cycle in report.cycles:
        if not cycle.drawn and Entry("cycle", elements=tuple(cycle.members)) in held:
            frozen += 1
        else:
            cycles.append(cycle)
    kept = replace(report, dependencies=[d for d in dependencies if d is not None], violations=violations,
                   cycles=cycles, frozen=report.frozen + frozen)
    return Frozen(kept, frozen, fixed)


def stale_entries(
    baseline: Iterable[tuple[int, Entry]], *, known: Callable[[str], bool], imports_of: Callable[[str], set[str] | None],
) -> list[tuple[int, Entry, str]]:
    """Entries that cannot hold any more, found without reading the whole repository
    (for ``archmem check``): an element the model no longer has, a file that is gone,
    an import its file no longer states. ``imports_of`` gives a file's import texts
    (None when the file is gone)."""
    stale = []
    for line, entry in baseline:
        ends = entry.elements if entry.kind == "cycle" else (entry.source, entry.target)
        missing = [e for e in ends if e and not known(e)]
        if missing:
            stale.append((line, entry, f"the model has no element {missing[0]!r} any more"))
            continue
        if entry.kind == "cycle" or not entry.file:
            continue
        imports = imports_of(entry.file)
        if imports is None:
            stale.append((line, entry, f"{entry.file} is gone"))
        elif entry.spec not in imports:
            stale.append((line, entry, f"{entry.file} no longer imports {entry.spec}"))
    return stale
