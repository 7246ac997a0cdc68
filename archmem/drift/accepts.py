"""Drift accepts as committed files: what a team decided about its model travels with git.

``archmem drift accept ELEMENT`` says "the model's description of this element still
holds for the code as it is now". That is a team decision, so it is a file in the
repository (``[store] accepts``, default ``.archmem/accepts/``), reviewed in the pull
request and merged like code, never a row of the git-ignored index: a teammate's clone,
CI and a rebuilt index all see it. One small YAML file per accept, one value a line,
written the same way for the same accept:

    element: shop.api
    commit: 3f2a9c0d5e…                    (the full id of the commit HEAD was at)
    accepted: 2026-03-01T10:00:00.000000Z
    author: cli/sarah                      (optional: this clone's git user)
    reason: the new files are tests        (optional)

- ``element``: the element's identifier (a name the model finds works too, as in memory
  files); one the model does not have is a warning naming the closest identifiers.
- ``commit``: the baseline. Drift counts the first-parent commits after it, in every
  clone alike (a commit means the same everywhere, a clock time does not). An accept
  made on a branch holds from the first commit of the line that contains its commit
  (the merge), as a description merged from a branch does. Absent when the repository
  had no commit yet.
- ``accepted``: when, in UTC. It is the baseline only when the commit is absent, or not
  in this clone's history (a shallow clone, a commit rebased away): then a warning says so.

A commit that brings an accept file together with changes to the element's code is no
change after the accept, as for memory files (``archmem.drift.staleness``): drift counts
from the commit after it. So an accept survives a squash merge (its commit is gone, the
squashed commit brings the file and the code it was about) and an accept made before
the code it covers was committed.

The file is named ``<element>.<accepted, compact>.yaml``
(``shop.api.20260301T100000000000Z.yaml``): two branches that accept never write the same
file, so git merges them without a conflict, and the newest accept of an element by
its place in history counts. A file that cannot be read is reported at its line and
skipped: reading accepts never stops a command. Accepts an older archmem kept in the
index (table ``drift_accepts``) are written out as files once, on open
(``export_index_accepts``). The folder itself, listed by every drift computation, is
``archmem.drift.accept_folder``: this module loads when there is an accept to read or write.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from archmem.clock import format_time, parse_time
from archmem.drift.accept_folder import MAX_FILE_BYTES, SUFFIX
from archmem.errors import ArchmemError, StoreError, closest
from archmem.model.types import ArchitectureModel
from archmem.patterns import lazy
from archmem.values import Record, Value
from archmem.yaml_text import YamlTextError, load_mapping, yaml_scalar

if TYPE_CHECKING:
    from archmem.drift.accept_folder import AcceptFolder
    from archmem.store.base import Store

FIELDS = ("element", "commit", "accepted", "author", "reason")
"""The keys of an accept file, in the order they are written."""
_COMMIT = lazy(r"[0-9a-fA-F]{4,64}")
_CONFLICT_MARKER = lazy(r"^(<{7}|={7}|>{7})(?: |$)")
_UNSAFE_NAME = lazy(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, repr=False, eq=False)
class Accept(Value):
    """One recorded accept: the element, the commit HEAD was at, when, who, why; and,
    once read, the file it came from and the line of each key (for messages)."""

    element: str
    accepted_at: datetime
    commit: str | None = None
    author: str | None = None
    reason: str | None = None
    path: str | None = None
    lines: dict[str, int] = field(default_factory=dict, compare=False)

    def line_of(self, key: str) -> int:
        return self.lines.get(key, 1)

    def to_dict(self) -> dict[str, Any]:
        return {"element": self.element, "commit": self.commit, "accepted_at": format_time(self.accepted_at),
                "author": self.author, "reason": self.reason, "file": self.path}


@dataclass(frozen=True, repr=False, eq=False)
class AcceptProblem(Value):
    """Something wrong with one accept file, where it is. ``rule`` names it as
    ``archmem check`` does (``unreadable``, ``conflict-markers``, ``schema``,
    ``unknown-key``, ``unknown-element``, ``commit-not-found``)."""

    path: str
    line: int
    column: int
    message: str
    severity: str = "error"
    rule: str = "schema"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "message": self.message,
                "severity": self.severity, "rule": self.rule}


@dataclass(repr=False, eq=False)
class AcceptFiles(Record):
    """What the accept folder holds: the accepts that read, and the problems found."""

    accepts: list[Accept] = field(default_factory=list)
    problems: list[AcceptProblem] = field(default_factory=list)
    files: int = 0

    def warnings(self) -> list[str]:
        """One line per problem, for a command to print."""
        return [f"{p} (skipped; `archmem check` lists every problem)" if p.severity == "error" else str(p)
                for p in self.problems]


@dataclass(repr=False, eq=False)
class AcceptFileError(Record, Exception):
    """An accept file that cannot be read as one, with where (1-based line, column)."""

    message: str
    line: int = 1
    column: int = 1
    rule: str = "schema"


# ---- one file -------------------------------------------------------------------------


def render_accept(accept: Accept) -> str:
    """The file for an accept, byte-for-byte the same for the same accept."""
    out = [f"element: {yaml_scalar(accept.element)}"]
    if accept.commit:
        out.append(f"commit: {accept.commit}")
    out.append(f"accepted: {format_time(accept.accepted_at)}")
    if accept.author:
        out.append(f"author: {yaml_scalar(accept.author)}")
    if accept.reason:
        out.append(f"reason: {yaml_scalar(accept.reason)}")
    return "\n".join(out) + "\n"


def accept_file_name(accept: Accept) -> str:
    """``<element>.<accepted, compact>.yaml``: readable, grouped by element, and never
    the same for two accepts of two clones."""
    element = _UNSAFE_NAME.sub("-", accept.element).strip(".-")[:80] or "element"
    moment = format_time(accept.accepted_at).replace("-", "").replace(":", "").replace(".", "")
    return f"{element}.{moment}{SUFFIX}"


def parse_accept(text: str) -> tuple[Accept, list[tuple[int, str]]]:
    """The accept a file holds and its remarks (unknown keys), or ``AcceptFileError``
    at the line and column at fault."""
    if "\x00" in text:
        raise AcceptFileError("the file holds a NUL byte: it is not text")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if _CONFLICT_MARKER.match(line):
            raise AcceptFileError("git conflict markers: keep one accept (each accept has a file of its own)",
                                  number, rule="conflict-markers")
    try:
        front = load_mapping(text)
    except YamlTextError as exc:
        raise AcceptFileError(f"the file {exc.message}", exc.line, exc.column) from None
    keys = {match.group(1): number for number, line in enumerate(lines, start=1)
            if (match := re.match(r"([A-Za-z_][\w-]*)\s*:", line))}

    def fail(key: str, message: str) -> AcceptFileError:
        return AcceptFileError(message, keys.get(key, 1))

    remarks = []
    for key in front:
        if key not in FIELDS:
            near = closest(key, FIELDS)
            remarks.append((keys.get(key, 1), f"unknown key {key!r} is ignored"
                            + (f"; did you mean {near[0]!r}?" if near else "")))
    for required in ("element", "accepted"):
        if front.get(required) in (None, ""):
            raise AcceptFileError(f"an accept file has an {required!r} line; this one has none", 1)
    commit = _text(front, "commit", fail)
    if isinstance(front.get("commit"), (int, float)) and not isinstance(front["commit"], bool):
        # a commit id of digits alone reads as a number in YAML: take it as written
        commit = lines[keys["commit"] - 1].partition(":")[2].split("#")[0].strip() if "commit" in keys else commit
    if commit is not None and not _COMMIT.fullmatch(commit):
        raise fail("commit", f"bad commit {commit!r}: a commit id is 4 to 64 hexadecimal digits")
    try:
        accepted = parse_time(str(front["accepted"]))
    except ValueError:
        raise fail("accepted", f"bad time in 'accepted': {front['accepted']!r} "
                               "(ISO 8601, e.g. 2026-03-01T10:00:00Z)") from None
    accept = Accept(
        element=_text(front, "element", fail) or "", accepted_at=accepted,
        commit=commit.lower() if commit else None, author=_text(front, "author", fail),
        reason=_text(front, "reason", fail), lines=keys,
    )
    if not accept.element:
        raise fail("element", "'element' is empty")
    return accept, remarks


def _text(front: dict[str, Any], key: str, fail: Any) -> str | None:
    value = front.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail(key, f"{key!r} must be text, not {type(value).__name__}")
    return str(value).strip() or None


def read_accept_bytes(
    path: str, data: bytes, model: ArchitectureModel | None
) -> tuple[Accept | None, list[AcceptProblem]]:
    """One file's accept (its element resolved to an identifier when ``model`` is
    given) and its problems; the accept is None when it cannot count (unreadable, or an
    element the model does not have)."""
    if len(data) > MAX_FILE_BYTES:
        return None, [AcceptProblem(path, 1, 1, f"the file is {len(data):,} bytes; an accept file is at most "
                                                f"{MAX_FILE_BYTES:,}", rule="unreadable")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [AcceptProblem(path, line, 1, "the file is not UTF-8 text", rule="unreadable")]
    try:
        accept, remarks = parse_accept(text)
    except AcceptFileError as exc:
        return None, [AcceptProblem(path, exc.line, exc.column, exc.message, rule=exc.rule)]
    problems = [AcceptProblem(path, line, 1, message, "warning", "unknown-key") for line, message in remarks]
    accept = replace(accept, path=path)
    if model is None:
        return accept, problems
    found, near = resolve_element(accept, model)
    if near is not None:
        problems.append(AcceptProblem(path, accept.line_of("element"), 1,
                                      unknown_element(accept.element, near) + " (this accept is ignored)",
                                      "warning", "unknown-element"))
        return None, problems
    return found, problems


def resolve_element(accept: Accept, model: ArchitectureModel) -> tuple[Accept, list[str] | None]:
    """The accept with its element as the model's identifier (a name works too, as in
    memory files), or the accept as it is and the closest identifiers when the model
    does not have the element."""
    try:
        found = model.find(accept.element)
    except ArchmemError:
        return accept, closest(accept.element, [element.id for element in model.elements])
    return replace(accept, element=found.id), None


def unknown_element(element: str, near: list[str]) -> str:
    """What to say of an accept of an element the model does not have."""
    hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
    return f"accepts drift of {element!r}, which the model does not have{hint}"


# ---- the folder -----------------------------------------------------------------------


def read_accepts(folder: AcceptFolder, model: ArchitectureModel | None) -> AcceptFiles:
    """Every accept of the folder that reads, and a problem for each that does not (see the module doc)."""
    found = AcceptFiles()
    for rel in folder.files():
        found.files += 1
        try:
            data = folder.read_file(rel)
        except OSError as exc:
            found.problems.append(AcceptProblem(rel, 1, 1, f"cannot read the file: {exc.strerror or exc}",
                                                rule="unreadable"))
            continue
        accept, problems = read_accept_bytes(rel, data, model)
        found.problems.extend(problems)
        if accept is not None:
            found.accepts.append(accept)
    return found


def write_accept(folder: AcceptFolder, accept: Accept) -> str:
    """Write an accept's file atomically (a new name when another accept holds its
    name); returns its path."""
    from archmem.atomic_write import write_atomic

    text = render_accept(accept)
    name = accept_file_name(accept)
    rel, counter = f"{folder.folder}/{name}", 2
    while (folder.root / rel).exists() and (folder.root / rel).read_bytes() != text.encode("utf-8"):
        rel = f"{folder.folder}/{name.removesuffix(SUFFIX)}-{counter}{SUFFIX}"
        counter += 1
    try:
        write_atomic(folder.root / rel, text)
    except OSError as exc:
        raise StoreError(f"cannot write the accept file {rel}: {exc.strerror or exc}") from None
    return rel


def first_on_line(shas: Iterable[str], descendants: set[str]) -> int | None:
    """The place of the first commit of a first-parent line (oldest first) among
    ``descendants``: the commit that brought a branch's commit onto the line."""
    for position, sha in enumerate(shas):
        if sha in descendants:
            return position
    return None


# ---- accepts an older archmem kept in the index ----------------------------------------


def export_index_accepts(store: Store, folder: AcceptFolder, *, git: bool) -> int:
    """Write the accepts an older archmem recorded in the index (``drift_accepts``) as
    files, once, and take them out of the index; returns how many. Such an accept was a
    moment on this clone's clock: its file names the newest first-parent commit of HEAD
    at that moment, the commit drift counted from here. A write that fails leaves the
    rows for the next open (the same accept writes the same file, so nothing doubles)."""
    rows = store.legacy_accepts()
    if not rows:
        return 0
    from archmem.git.revisions import Revisions

    revisions = Revisions(folder.root) if git else None
    for _seq, element, at, note in rows:
        moment = parse_time(at)
        commit = revisions.first_parent_at(moment) if revisions is not None else None
        write_accept(folder, Accept(element, moment, commit=commit, reason=note or None))
    store.drop_legacy_accepts(rows[-1][0])
    return len(rows)
