"""``archmem check``'s rules: what is wrong in the memory files, file by file, line by line.

Reads the files themselves (bytes in, findings out), so it runs on a fresh clone in CI
with no index, and judges what a merge of branches can produce that no single write
would: a fork, a title clash, a duplicate id, conflict markers.

    rule               severity  what
    unreadable         error     not UTF-8, too large, cannot be read
    conflict-markers   error     ``<<<<<<<`` / ``>>>>>>>`` left by a merge (each at its line)
    secret             error     a credential anywhere in the file or in a value as YAML decodes it
                                 (the detector ``remember`` uses)
    schema             error     front matter that is not a memory (YAML with anchors, aliases,
                                 tags or deep nesting; a field; a value the index cannot hold)

The file rules are the reader's every command uses (``read_memory_file``): a file
``check`` passes is one every command reads.
    schema             warning   ``status: superseded`` written in a file (it is derived)
    unknown-key        warning   a front-matter key archmem does not know (dropped on rewrite)
    duplicate-id       error     two files hold one id
    fork               error     two live files supersede one memory
    supersede-cycle    error     a chain of ``supersedes`` that comes back to itself
    missing-supersedes warning   ``supersedes`` names a memory no file holds
    title-clash        error     two active memories with one title
    unknown-element    error     an element the model does not have (with did-you-mean)
    dangling-link      warning   ``[[target]]`` that names no active memory, element or decision
    ambiguous-link     warning   ``[[title]]`` held by two active memories
    stale-baseline     warning   a conformance baseline entry whose element, file or import is gone
                                 (an error when the file is no baseline)

Elements and links are checked for active memories only: a superseded or archived
memory is history, and a later rename in the model does not make it wrong.

Drift accept files are checked too, by ``archmem.memory.accept_check``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from archmem.errors import ArchmemError, closest
from archmem.memory import links as linkrules
from archmem.memory.file_format import (
    FRONT_MATTER,
    MemoryFileError,
    holder_rank,
    read_memory_file,
)
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel
from archmem.values import Record, Value

EXIT_CLEAN, EXIT_WARNINGS, EXIT_ERRORS = 0, 1, 2

RULES: dict[str, tuple[str, str]] = {
    "unreadable": ("error", "A memory or accept file that cannot be read: not UTF-8, too large, or unreadable."),
    "conflict-markers": ("error",
        "Conflict markers a merge left in the file; resolve the merge (archmem's merge driver helps)."),
    "secret": ("error", "A credential in the file; remove it, and rotate it if it was ever pushed."),
    "schema": ("error",
        "Front matter that is not a memory (YAML, a field, a value), or a derived status written in a file."),
    "unknown-key": ("warning",
        "A front-matter key archmem does not know; it is dropped when archmem rewrites the file."),
    "duplicate-id": ("error", "Two files hold one memory id; keep one."),
    "fork": ("error", "Two live memories supersede one memory; supersede one by the other."),
    "supersede-cycle": ("error", "A chain of supersedes that comes back to itself."),
    "missing-supersedes": ("warning", "supersedes names a memory no file holds."),
    "title-clash": ("error", "Two active memories with one title; supersede one or retitle it."),
    "unknown-element": ("error", "An element the model does not have (the message names the closest)."),
    "dangling-link": ("warning", "A [[link]] that names no active memory, element or decision."),
    "ambiguous-link": ("warning", "A [[title]] link that two active memories hold."),
    "stale-baseline": ("warning",
        "A conformance baseline entry the code no longer has (or a file that is no baseline); "
        "`archmem conformance --update-baseline` rewrites it."),
}
"""Every rule above: its usual severity (a finding carries its own: ``schema`` is a warning
for a derived status) and what it means for whoever fixes it (CI reports name them)."""


@dataclass(frozen=True, repr=False, eq=False)
class MemoryFileText(Value):
    """One memory file as read from disk: its path (POSIX, from the repository root),
    its bytes, or why it could not be read."""

    path: str
    data: bytes | None
    private: bool = False
    read_error: str | None = None


@dataclass(frozen=True, repr=False, eq=False)
class Finding(Value):
    """One problem in one file, where it is, how bad, and which rule found it."""

    path: str
    line: int
    column: int
    severity: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.severity}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "severity": self.severity,
                "rule": self.rule, "message": self.message}


@dataclass(repr=False, eq=False)
class CheckReport(Record):
    """Every finding in path and line order, and what was looked at."""

    findings: list[Finding] = field(default_factory=list)
    files: int = 0
    memories: int = 0
    notes: list[str] = field(default_factory=list)
    accept_files: int = 0
    active: list[Memory] = field(default_factory=list, repr=False)
    """The shared memories that parsed and are active (what rule files are made from)."""

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 clean, 1 warnings only, 2 errors: what CI branches on."""
        return EXIT_ERRORS if self.errors else EXIT_WARNINGS if self.warnings else EXIT_CLEAN

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "memories": self.memories, "accept_files": self.accept_files,
                "errors": self.errors, "warnings": self.warnings, "exit_code": self.exit_code,
                "problems": [f.to_dict() for f in self.findings], "notes": self.notes}


class _Held(NamedTuple):
    """What the rules across files read of one file's memory: not its content, so a
    check holds little per file and its memory stays flat in their number."""

    id: str
    title: str | None
    supersedes: str | None
    status: str
    created_at: datetime

    @property
    def label(self) -> str:
        return self.title or self.id


@dataclass(slots=True, repr=False, eq=False)
class _Read(Record):
    """A file that parsed: its memory's facts, where its keys stand, and what the rules
    for active memories will need (its unknown elements, its links with their places),
    found while its text was at hand."""

    path: str
    memory: _Held
    rank: tuple[bool, str]
    """``holder_rank``: which of two files with one id holds it."""
    keys: dict[str, int]
    unknown_elements: list[Finding]
    links: list[tuple[str, int, int]]
    """(target, line, column) of each ``[[link]]``."""
    whole: Memory | None = None
    """The memory itself, kept only for rule files (``keep_active``)."""

    def key_line(self, key: str) -> int:
        return self.keys.get(key, 1)


@dataclass(repr=False, eq=False)
class _Text(Record):
    """One parsed file's lines, while it is read: where its parts stand."""

    memory: Memory
    lines: list[str]
    keys: dict[str, int]
    body_line: int
    """The file line of the content's first line."""

    def item_position(self, key: str, value: str) -> tuple[int, int]:
        """Where a list item (an element, an anchor) is written: on a ``- item`` line
        under its key, or on the key's own line (``elements: [a, b]``)."""
        start = self.keys.get(key, 1)
        for number in range(start + 1, min(len(self.lines), self.body_line) + 1):
            raw = self.lines[number - 1]
            if not raw.lstrip().startswith("-"):
                break
            column = raw.find(value)
            if column >= 0:
                return number, column + 1
        column = self.lines[start - 1].find(value, len(key) + 1) if start <= len(self.lines) else -1
        return start, column + 1 if column >= 0 else 1

    def content_position(self, offset: int) -> tuple[int, int]:
        content = self.memory.content
        line = content.count("\n", 0, offset)
        return self.body_line + line, offset - (content.rfind("\n", 0, offset) + 1) + 1


def check_memory_files(
    files: Iterable[MemoryFileText], model: ArchitectureModel, *, model_found: bool = True,
    keep_active: bool = True,
) -> CheckReport:
    """Check every file, then the rules across files; see the module docstring. A list
    is checked in path order; any other iterable is read once, as it comes (in path
    order, one file's bytes at a time). Without ``keep_active``, ``report.active`` stays
    empty and no memory is held past its file."""
    report = CheckReport()
    add = report.findings.append
    parsed: list[_Read] = []
    if isinstance(files, list):
        files = sorted(files, key=lambda f: f.path)
    private: set[str] = set()
    for file in files:
        report.files += 1
        if file.private:
            private.add(file.path)
        found = _read_one(file, add, model if model_found else None, keep_active)
        if found is not None:
            parsed.append(found)
    report.memories = len({p.memory.id for p in parsed})
    by_id = _unique_ids(parsed, add)
    status = _chains(by_id, add)
    active = [read for memory_id, read in by_id.items() if status[memory_id] == "active"]
    report.active = [read.whole for read in active if read.path not in private and read.whole is not None]
    titles = _title_clashes(active, by_id, add)
    if model_found:
        for read in active:
            report.findings += read.unknown_elements
    else:
        report.notes.append("no architecture model found: element names were not checked")
    _links(active, model, titles, by_id, status, add)
    report.findings.sort(key=lambda f: (f.path, f.line, f.column, f.rule))
    return report


# ---- one file -----------------------------------------------------------------------


def _read_one(
    file: MemoryFileText, add: Any, model: ArchitectureModel | None, keep: bool
) -> _Read | None:
    path = file.path

    def problem(line: int, column: int, severity: str, rule: str, message: str) -> None:
        add(Finding(path, line, column, severity, rule, message))

    if file.data is None:
        problem(1, 1, "error", "unreadable", f"cannot read the file: {file.read_error or 'unknown error'}")
        return None
    try:
        result = read_memory_file(file.data)
    except MemoryFileError as exc:
        if exc.rule != "conflict-markers":
            problem(exc.line, exc.column, "error", exc.rule, exc.message)
            return None
        markers = [(n, m[1][0]) for n, line in enumerate(_lines(file.data), start=1)
                   if (m := linkrules.CONFLICT_MARKER.match(line))]
        for number in [n for n, char in markers if char == "<"] or [markers[0][0]]:
            problem(number, 1, "error", "conflict-markers",
                    "git conflict markers: resolve the merge (keep one version, or both confirmations) and save; "
                    "`archmem install merge-driver` merges confirmations by itself")
        return None
    lines = _lines(file.data)
    for line, message in result.warnings:
        problem(line, 1, "warning", "unknown-key" if message.startswith("unknown key") else "schema", message)
    memory = result.memory
    text = _Text(memory, lines, result.lines, _body_line(lines))
    unknown = []
    for ref in memory.elements:
        if model is None:
            break
        try:
            model.find(ref)
        except ArchmemError as exc:
            line, column = text.item_position("elements", ref)
            unknown.append(Finding(path, line, column, "error", "unknown-element",
                                   exc.message + (f" ({exc.hint})" if exc.hint else "")))
    links = [(link.target, *text.content_position(link.start)) for link in linkrules.parse_links(memory.content)
             ] if "[[" in memory.content else []
    return _Read(
        path, _Held(memory.id, memory.title, memory.supersedes, memory.status, memory.created_at),
        holder_rank(path, memory), {key: line for key, line in result.lines.items() if key in _KEYS_HELD},
        unknown, links, memory if keep else None,
    )


_KEYS_HELD = frozenset({"id", "supersedes", "title"})
"""The keys whose lines the rules across files point at."""


def _lines(data: bytes) -> list[str]:
    """A file's lines as the reader counts them (it has read the bytes already)."""
    return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _body_line(lines: list[str]) -> int:
    """The file line the content starts on (after the front matter and blank lines),
    as ``parse_memory`` and ``validate_content`` read it."""
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == FRONT_MATTER), len(lines) - 1)
    first = end + 1
    while first < len(lines) - 1 and not lines[first].strip():
        first += 1
    return first + 1


# ---- across files -------------------------------------------------------------------


def _unique_ids(parsed: list[_Read], add: Any) -> dict[str, _Read]:
    """One file per id (the one sync indexes: ``holder_rank``) for the rules after
    this one; every file that shares its id with another is an error."""
    groups: dict[str, list[_Read]] = {}
    for read in parsed:
        groups.setdefault(read.memory.id, []).append(read)
    for memory_id, group in groups.items():
        if len(group) > 1:
            for read in group:
                others = ", ".join(o.path for o in group if o is not read)
                add(Finding(read.path, read.key_line("id"), 1, "error", "duplicate-id",
                            f"duplicate id {memory_id!r}: {others} holds it too; a copied file keeps its id, "
                            "so give the copy a new one (or delete it)"))
    return {memory_id: min(group, key=lambda read: read.rank) for memory_id, group in groups.items()}


def _chains(by_id: dict[str, _Read], add: Any) -> dict[str, str]:
    """Each memory's status as the files draw it (superseded when another names it),
    reporting forks, cycles and ``supersedes`` that name nothing."""
    successors: dict[str, list[_Read]] = {}
    for read in by_id.values():
        target = read.memory.supersedes
        if target is None:
            continue
        line = read.key_line("supersedes")
        if target == read.memory.id:
            add(Finding(read.path, line, 1, "error", "supersede-cycle",
                        f"{read.memory.label!r} supersedes itself, so it is never recalled; remove `supersedes:`"))
            continue
        successors.setdefault(target, []).append(read)
        if target not in by_id:
            add(Finding(read.path, line, 1, "warning", "missing-supersedes",
                        f"supersedes {target!r}, which no memory file holds (purged, or not merged yet?)"))
    for target, group in successors.items():
        live = sorted((r for r in group if r.memory.status != "archived"),
                      key=lambda r: (r.memory.created_at, r.memory.id))
        if len(live) < 2:
            continue
        old = by_id.get(target)
        label = f"{old.memory.label!r} ({target})" if old else repr(target)
        fix = (f"set `supersedes: {live[0].memory.id}` in {live[1].path}" if len(live) == 2
               else "make each later one supersede the one before it")
        for read in live:
            others = " and ".join(f"{o.path} ({o.memory.id})" for o in live if o is not read)
            add(Finding(read.path, read.key_line("supersedes"), 1, "error", "fork",
                        f"fork: {label} is superseded by this file and by {others}: two current versions of one "
                        f"memory; supersede one by the other ({fix}) or archive one "
                        f"(archmem archive {live[-1].memory.id} --reason ...)"))
    _cycles(by_id, add)
    return {
        memory_id: "superseded" if memory_id in successors else read.memory.status
        for memory_id, read in by_id.items()
    }


def _cycles(by_id: dict[str, _Read], add: Any) -> None:
    """Every chain of ``supersedes`` that loops (each file names one predecessor, so
    following the names from any memory either ends or enters one loop)."""
    state: dict[str, int] = {}  # 1 on the current walk, 2 done
    for start in by_id:
        walk: list[str] = []
        node: str | None = start
        while node is not None and node in by_id and node not in state:
            state[node] = 1
            walk.append(node)
            target = by_id[node].memory.supersedes
            node = target if target != node else None
        if node is not None and state.get(node) == 1:
            loop = walk[walk.index(node):]
            shown = " → ".join(repr(by_id[m].memory.label) for m in [*loop, loop[0]])
            for member in loop:
                read = by_id[member]
                add(Finding(read.path, read.key_line("supersedes"), 1, "error", "supersede-cycle",
                            f"supersede cycle: {shown} (each supersedes the next); every memory in it counts "
                            "as superseded and none is recalled: remove `supersedes:` from the oldest one"))
        for visited in walk:
            state[visited] = 2


def _title_clashes(active: list[_Read], by_id: dict[str, _Read], add: Any) -> dict[str, list[_Read]]:
    """Active memories by title key; two holding one title is an error (unless they are
    the two sides of a fork, which is reported as such)."""
    titles: dict[str, list[_Read]] = {}
    for read in active:
        if read.memory.title:
            titles.setdefault(linkrules.normalize_title(read.memory.title), []).append(read)
    for group in titles.values():
        if len(group) < 2:
            continue
        predecessors = {r.memory.supersedes for r in group}
        if len(predecessors) == 1 and None not in predecessors:
            continue  # one memory superseded twice: the fork finding says it all
        for read in group:
            others = ", ".join(f"{o.path} ({o.memory.id})" for o in group if o is not read)
            add(Finding(read.path, read.key_line("title"), 1, "error", "title-clash",
                        f"title clash: {read.memory.title!r} is also the title of {others}; supersede one by the "
                        "other, or retitle one"))
    return titles


def _links(
    active: list[_Read], model: ArchitectureModel, titles: dict[str, list[_Read]], by_id: dict[str, _Read],
    status: dict[str, str], add: Any,
) -> None:
    """Links resolve as the index resolves them: an active title, then an element, then
    a decision; anything else stays pending."""
    from archmem.memory.linking import link_targets

    if not any(read.links for read in active):
        return
    elements, decisions = link_targets(model)
    title_ids = {key: group[0].memory.id for key, group in titles.items()}
    suggest = _Suggestions(titles, model, by_id, status)
    for read in active:
        for target, line, column in read.links:
            holders = titles.get(linkrules.normalize_title(target), [])
            if len(holders) > 1:
                add(Finding(read.path, line, column, "warning", "ambiguous-link",
                            f"[[{target}]] is ambiguous: {len(holders)} active memories have that title "
                            f"({', '.join(h.path for h in holders)})"))
            elif not linkrules.resolve_link(target, titles=title_ids, elements=elements, decisions=decisions):
                add(Finding(read.path, line, column, "warning", "dangling-link",
                            f"[[{target}]] links to nothing: no active memory, element or decision has that "
                            f"name{suggest(target)}"))


class _Suggestions:
    """What a dangling link may have meant: the current version of a superseded title,
    else the closest titles and element names. Each target is looked up once, and the
    (costly) fuzzy search, a comparison with every name, runs for the first targets only,
    up to ``COMPARISONS`` in all (``LIMIT`` targets at most), so a store full of dangling
    links is still checked in time linear in its size."""

    LIMIT = 200
    COMPARISONS = 5_000

    def __init__(
        self, titles: dict[str, list[_Read]], model: ArchitectureModel, by_id: dict[str, _Read],
        status: dict[str, str],
    ) -> None:
        self.by_id = by_id
        self.successor = {read.memory.supersedes: read for read in by_id.values() if read.memory.supersedes}
        self.old = {
            linkrules.normalize_title(read.memory.title): read for memory_id, read in by_id.items()
            if read.memory.title and status[memory_id] == "superseded"
        }
        self.names = [group[0].memory.title or "" for group in titles.values()]
        self.names += [e.name for e in model.elements] + [e.id for e in model.elements]
        self.cache: dict[str, str] = {}

    def __call__(self, target: str) -> str:
        key = linkrules.normalize_title(target)
        if key not in self.cache:
            self.cache[key] = self._hint(key, target)
        return self.cache[key]

    def _hint(self, key: str, target: str) -> str:
        if key in self.old:
            read, seen = self.old[key], set()
            while read.memory.id in self.successor and read.memory.id not in seen:
                seen.add(read.memory.id)
                read = self.successor[read.memory.id]
            if read.memory.title and read is not self.old[key]:
                return f"; {target!r} was superseded by {read.memory.title!r}: link to [[{read.memory.title}]]"
            return f"; {target!r} was superseded by {read.memory.label!r}, which has no title"
        if len(self.cache) >= min(self.LIMIT, self.COMPARISONS // max(len(self.names), 1)):
            return ""
        near = closest(target, self.names)
        return f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""


# ---- GitHub Actions -----------------------------------------------------------------


def github_annotations(findings: Sequence[Finding]) -> list[str]:
    """``::error file=…,line=…,col=…::message`` workflow commands, one per finding."""
    from archmem.escape import workflow_command as _escape

    return [
        f"::{f.severity} file={_escape(f.path, property=True)},line={f.line},col={f.column}::{_escape(f.message)}"
        for f in findings
    ]
