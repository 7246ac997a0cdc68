"""Architecture decision records (ADRs): read a folder of them into ``Decision`` values.

Three formats, read the way Structurizr's importers read them, so a ``!adrs`` folder
gives the same ids, titles and statuses in archmem as in Structurizr:

    adrtools    ``0001-title.md``: ``# 1. Title``, ``Date: 2016-02-12``, a ``## Status``
                section whose first word is the status (``Superceded`` → ``Superseded``;
                none → ``Proposed``). id = the number without leading zeros.
    madr        ``0001-title.md``: YAML front matter ``status:``/``date:`` (MADR 3) or
                ``* Status:``/``* Date:`` lines under the title (MADR 2); first ``# ``
                heading is the title; no status → ``accepted``. id = the number.
    log4brains  ``20240111-title.md``: ``# Title``, ``- Status:`` (``superseded by …`` →
                ``superseded``) and ``- Date:`` lines, else the date in the file name.
                id = the file slug (the name without ``.md``).

Files whose names do not look like records (``README.md``, ``index.md``,
``template.md``) are not records and are skipped, as the importers' file patterns skip
them. A record the importers would choke on (no title, an unparsable date, a
duplicate id, bytes that are not UTF-8) is a ``ModelError`` naming file, line and
column; MADR dates are the one lenient case (Structurizr ignores them), so an
unparsable MADR date is simply ``None``. Loading a model passes ``warn``: then such a
record is skipped with a warning instead, because one bad file must not take the rest
of the model (and every command that needs it) down.

Every folder and record is confined (``archmem.model.confine``): a record that links
outside the boundary is never opened.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from archmem.errors import ModelError, SourceLocation, closest
from archmem.model.confine import confine, is_inside
from archmem.model.types import Decision
from archmem.values import Value

FORMATS = ("adrtools", "madr", "log4brains")

CONVENTIONAL_FOLDERS = (
    "docs/adr",
    "docs/adrs",
    "docs/decisions",
    "docs/architecture/decisions",
    "doc/adr",
    "doc/adrs",
    "doc/decisions",
    "adr",
    "adrs",
    "decisions",
    "architecture/decisions",
)
"""Where teams usually keep ADRs (adr-tools: ``doc/adr``, MADR: ``docs/decisions``,
Log4brains: ``docs/adr``), looked at in this order."""

_NUMBERED_NAME = re.compile(r"^(\d+)-.+\.md$", re.IGNORECASE)
_DATED_NAME = re.compile(r"^(\d{8})-.+\.md$", re.IGNORECASE)
_HEADING = re.compile(r"^#[ \t]+(?P<text>.+?)[ \t#]*$")
_NUMBERED_TITLE = re.compile(r"^\d+\.\s*")
_FENCE = re.compile(r"^\s*(```|~~~)")
_FRONT_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:[ \t]*(?P<value>.*?)\s*$")
# "* Status: accepted", "- Date: 2024-01-10", "Status: proposed", "**Status:** accepted"
_META_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>status|date)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*"
    r"(?P<value>.*?)\s*$",
    re.IGNORECASE,
)
_IMPORTER_CLASSES = {
    "adrtoolsdecisionimporter": "adrtools",
    "madrdecisionimporter": "madr",
    "log4brainsdecisionimporter": "log4brains",
}


# ---- public API ------------------------------------------------------------------


def read_decisions(
    folder: Path,
    fmt: str | None = None,
    *,
    element: str | None = None,
    within: Path | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[Decision]:
    """Every decision record in ``folder``, sorted by id (numerically where numeric).

    ``fmt`` is ``adrtools``, ``madr``, ``log4brains`` (or a Structurizr importer class
    name of one of them); ``None`` detects it from the files. ``element`` is stored on
    each decision (``None`` = workspace-wide). A folder without records gives ``[]``.
    A record that links outside ``within`` (default: the folder) is never read. With
    ``warn``, a record that cannot be read is skipped and ``warn`` gets why (file:line:col
    first); without it, that is a ``ModelError``.
    """
    folder = Path(folder)
    if not folder.exists():
        raise ModelError(
            f"decisions folder {folder} does not exist",
            hint="give the folder that holds the ADR Markdown files",
        )
    if not folder.is_dir():
        raise ModelError(f"decisions folder {folder} is not a folder")
    within = folder if within is None else within
    chosen = normalize_format(fmt) if fmt is not None else detect_format(folder, within=within)
    if chosen is None:
        return []
    reader = _READERS[chosen]
    decisions: list[Decision] = []
    seen: dict[str, Path] = {}
    for path in _record_files(folder, chosen):
        try:
            where = SourceLocation(path.as_posix(), 1, 1)
            record = confine(path.name, base=folder, within=within, what="decision record", location=where)
            decision = reader(_read_text(record), element)
            if decision.id in seen:
                raise ModelError(
                    f"decision id {decision.id!r} is used twice: {seen[decision.id].name} and {path.name}",
                    location=SourceLocation(record.as_posix(), 1, 1),
                    hint="give each decision record its own number",
                )
        except ModelError as exc:
            if warn is None:
                raise
            where = exc.location or SourceLocation(path.as_posix(), 1, 1)
            warn(f"{where}: {exc.message}; this decision record is skipped")
            continue
        seen[decision.id] = path
        decisions.append(decision)
    decisions.sort(key=lambda d: _id_sort_key(d.id))
    return decisions


def find_decision_folders(repo_root: Path) -> list[Path]:
    """The conventional ADR folders under ``repo_root`` that exist and hold records.

    Also honours adr-tools' ``.adr-dir`` file and Log4brains' ``adrFolder`` setting in
    ``.log4brains.yml``, which name the folder a team chose. What those two name must
    stay inside the repository (a ``ModelError`` at their line otherwise); a
    conventional folder that is a symlink out of it is passed over.
    """
    root = Path(repo_root).resolve()
    candidates: list[Path] = []
    adr_dir = root / ".adr-dir"
    if adr_dir.is_file() and is_inside(adr_dir, root):
        text = adr_dir.read_text(encoding="utf-8", errors="replace").strip()
        if text:
            where = SourceLocation(adr_dir.as_posix(), 1, 1)
            written = text.splitlines()[0].strip()
            candidates.append(confine(written, base=root, within=root, what=".adr-dir names", location=where))
    log4brains = root / ".log4brains.yml"
    if log4brains.is_file() and is_inside(log4brains, root):
        text = log4brains.read_text(encoding="utf-8", errors="replace")
        match = re.search(r"^\s*adrFolder\s*:\s*['\"]?([^'\"#\n]+?)['\"]?\s*$", text, re.MULTILINE)
        if match:
            line = text.count("\n", 0, match.start(1)) + 1
            column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1) + 1
            where = SourceLocation(log4brains.as_posix(), line, column)
            candidates.append(confine(match.group(1), base=root, within=root, what="adrFolder", location=where))
    candidates.extend(root / rel for rel in CONVENTIONAL_FOLDERS if is_inside(root / rel, root))
    found: list[Path] = []
    for candidate in candidates:
        if not candidate.is_dir():
            continue
        resolved = candidate.resolve()
        if resolved not in found and detect_format(resolved, within=root) is not None:
            found.append(resolved)
    return found


def detect_format(folder: Path, *, within: Path | None = None) -> str | None:
    """The ADR format of the records in ``folder``, or ``None`` when it holds none.

    Date-prefixed names (``20240111-…``) mean Log4brains; numbered names are adr-tools
    when their titles carry the number (``# 1. Title``) or they have adr-tools'
    ``Date:``/``## Status`` layout without front matter, MADR otherwise. A record that
    links outside ``within`` (default: the folder) gets no vote and is not opened.
    """
    within = Path(folder) if within is None else within
    names = [p.name for p in Path(folder).iterdir() if p.is_file()]
    dated = [n for n in names if _DATED_NAME.match(n)]
    numbered = [n for n in names if _NUMBERED_NAME.match(n) and not _DATED_NAME.match(n)]
    if not dated and not numbered:
        return None
    if len(dated) > len(numbered):
        return "log4brains"
    votes = {"adrtools": 0, "madr": 0}
    for name in sorted(numbered)[:20]:
        if is_inside(Path(folder) / name, within):
            votes[_guess_numbered(Path(folder) / name)] += 1
    return "adrtools" if votes["adrtools"] > votes["madr"] else "madr"


def normalize_format(fmt: str) -> str:
    """``"MADR"``, ``"adr-tools"`` or ``com.structurizr…MadrDecisionImporter`` → a format."""
    key = fmt.strip().lower().replace("-", "").replace("_", "")
    key = key.rsplit(".", 1)[-1]
    key = _IMPORTER_CLASSES.get(key, key)
    if key in FORMATS:
        return key
    raise ModelError(
        f"unknown decision format {fmt!r}; expected one of {', '.join(FORMATS)}"
        + (f" (did you mean {', '.join(closest(fmt, FORMATS))}?)" if closest(fmt, FORMATS) else ""),
    )


def decision_aliases(decision: Decision) -> set[str]:
    """Every way a user may name a decision in a wikilink or a command.

    Numeric ids give ``ADR-17``, ``ADR-017``, ``ADR-0017``, ``0017``, ``17``; slug ids
    (Log4brains) give the slug and the slug without its date. The file stem and the
    lowercased title are always included. Compare case-insensitively.
    """
    aliases: set[str] = {decision.id}
    if decision.id.isdigit():
        number = int(decision.id)
        aliases |= {str(number), f"{number:04d}", f"ADR-{number}", f"ADR-{number:03d}", f"ADR-{number:04d}"}
    else:
        undated = re.sub(r"^\d{8}-", "", decision.id)
        if undated != decision.id:
            aliases.add(undated)
    if decision.path:
        stem = Path(decision.path).stem
        if stem:
            aliases.add(stem)
    title = decision.title.strip().lower()
    if title:
        aliases.add(title)
    return aliases


# ---- reading a record ------------------------------------------------------------


@dataclass(frozen=True, repr=False, eq=False)
class _Record(Value):
    """One record file's text, split into lines, with its front matter picked apart."""

    path: Path
    lines: list[str]
    front: dict[str, tuple[str, int, int]]
    """front-matter key (lowercase) → (value, line, column of the value)"""
    body_start: int
    """0-based index of the first line after the front matter"""

    @property
    def file(self) -> str:
        return self.path.resolve().as_posix()

    def at(self, line: int, column: int = 1) -> SourceLocation:
        return SourceLocation(self.file, line, column)


def _read_text(path: Path) -> _Record:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read decision record {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise ModelError(
            f"decision record is not UTF-8 text (byte 0x{data[exc.start]:02x})",
            location=SourceLocation(path.resolve().as_posix(), line, column),
            hint="save the record as UTF-8",
        ) from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    front, body_start = _front_matter(lines)
    return _Record(path, lines, front, body_start)


def _front_matter(lines: list[str]) -> tuple[dict[str, tuple[str, int, int]], int]:
    """Top-level ``key: value`` pairs of a ``---`` … ``---`` block at the very top.

    Read line by line rather than as YAML: MADR templates hold placeholders such as
    ``date: {YYYY-MM-DD …}`` that YAML would take for a mapping.
    """
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return {}, 0
    front: dict[str, tuple[str, int, int]] = {}
    for index in range(1, end):
        match = _FRONT_KEY.match(lines[index])
        if match:
            value = _unquote(match.group("value"))
            front.setdefault(match.group("key").lower(), (value, index + 1, match.start("value") + 1))
    return front, end + 1


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].strip()
    return value


def _body_lines(record: _Record) -> Iterable[tuple[int, str]]:
    """(1-based line number, text) of the body, outside fenced code blocks."""
    fenced = False
    for index in range(record.body_start, len(record.lines)):
        line = record.lines[index]
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and not line.lstrip().startswith("<!--"):
            yield index + 1, line


def _title(record: _Record) -> tuple[str, int] | None:
    for number, line in _body_lines(record):
        match = _HEADING.match(line)
        if match:
            return match.group("text").strip(), number
    return None


def _meta(record: _Record, key: str, *, header_only: bool) -> tuple[str, int, int] | None:
    """A ``Status:``/``Date:`` value from the front matter, else from a body line.

    ``header_only`` stops at the first ``## `` section, so an example inside the text
    (MADR's own ADRs quote ``status: on hold``) is not taken for the record's own.
    """
    if key in record.front:
        return record.front[key]
    for number, line in _body_lines(record):
        if header_only and line.startswith("## "):
            return None
        match = _META_LINE.match(line)
        if match and match.group("key").lower() == key and match.group("value"):
            return _unquote(match.group("value")), number, match.start("value") + 1
    return None


def _parse_date(value: str) -> dt.date | None:
    """ISO dates (also with a time, or slashes); ``None`` when it is not one."""
    text = value.strip().strip("'\"")
    match = re.match(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ].*)?$", text)
    if not match:
        return None
    try:
        return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


def _strict_date(record: _Record, found: tuple[str, int, int]) -> dt.date:
    value, line, column = found
    date = _parse_date(value)
    if date is None:
        raise ModelError(
            f"decision date {value!r} is not a date",
            location=record.at(line, column),
            hint="write dates as YYYY-MM-DD",
        )
    return date


def _require_title(record: _Record, example: str) -> tuple[str, int]:
    found = _title(record)
    if found is None or not found[0]:
        raise ModelError(
            f"decision record has no title heading (expected a first heading like {example!r})",
            location=record.at(record.body_start + 1),
        )
    return found


def _title_from_name(path: Path) -> str:
    stem = re.sub(r"^\d+-", "", path.stem)
    words = stem.replace("_", "-").split("-")
    text = " ".join(w for w in words if w)
    return text[:1].upper() + text[1:] if text else path.stem


# ---- the three formats -----------------------------------------------------------


def _read_adrtools(record: _Record, element: str | None) -> Decision:
    number = _NUMBERED_NAME.match(record.path.name)
    assert number is not None  # _record_files only yields matching names
    title, _ = _require_title(record, "# 1. Title")
    title = _NUMBERED_TITLE.sub("", title, count=1).strip() or title
    date = None
    for line_no, line in _body_lines(record):
        if line.startswith("Date:"):
            value = line[len("Date:") :]
            date = _strict_date(record, (value.strip(), line_no, len(line) - len(value.lstrip()) + 1))
            break
    return Decision(
        id=str(int(number.group(1))),
        title=title,
        status=_adrtools_status(record),
        date=date,
        path=record.file,
        format="adrtools",
        element=element,
    )


def _adrtools_status(record: _Record) -> str:
    in_status = False
    for _, line in _body_lines(record):
        if not in_status:
            in_status = line.startswith("## Status")
            continue
        if line.startswith("## "):
            break
        if line.strip():
            word = line.split()[0].strip("*_.,:;")
            return "Superseded" if word == "Superceded" else word or "Proposed"
    return "Proposed"


def _read_madr(record: _Record, element: str | None) -> Decision:
    number = _NUMBERED_NAME.match(record.path.name)
    assert number is not None
    found = _title(record)
    title = found[0] if found and found[0] else _title_from_name(record.path)
    status = _meta(record, "status", header_only=True)
    date = _meta(record, "date", header_only=True)
    return Decision(
        id=str(int(number.group(1))),
        title=title,
        status=status[0] if status and status[0] else "accepted",
        date=_parse_date(date[0]) if date else None,
        path=record.file,
        format="madr",
        element=element,
    )


def _read_log4brains(record: _Record, element: str | None) -> Decision:
    title, _ = _require_title(record, "# Title")
    status_found = _meta(record, "status", header_only=False)
    status = status_found[0] if status_found else ""
    if status.lower().startswith("superseded"):
        status = "superseded"
    date_found = _meta(record, "date", header_only=False)
    date: dt.date | None
    if date_found is not None:
        date = _strict_date(record, date_found)
    else:
        date = _parse_date(f"{record.path.name[:4]}-{record.path.name[4:6]}-{record.path.name[6:8]}")
        if date is None:
            raise ModelError(
                f"file name {record.path.name!r} does not start with a valid date (YYYYMMDD)",
                location=record.at(1),
            )
    return Decision(
        id=record.path.name[: -len(".md")],
        title=title,
        status=status,
        date=date,
        path=record.file,
        format="log4brains",
        element=element,
    )


_READERS = {"adrtools": _read_adrtools, "madr": _read_madr, "log4brains": _read_log4brains}


def _record_files(folder: Path, fmt: str) -> list[Path]:
    pattern = _DATED_NAME if fmt == "log4brains" else _NUMBERED_NAME
    return sorted(p for p in folder.iterdir() if p.is_file() and pattern.match(p.name))


def _guess_numbered(path: Path) -> str:
    """One vote: does this numbered record look like adr-tools or MADR?"""
    try:
        record = _read_text(path)
    except ModelError:
        return "madr"
    if record.front:
        return "madr"
    found = _title(record)
    if found and _NUMBERED_TITLE.match(found[0]):
        return "adrtools"
    body = record.lines[record.body_start :]
    has_status_section = any(line.startswith("## Status") for line in body)
    has_date_line = any(line.startswith("Date:") for line in body)
    return "adrtools" if has_status_section and has_date_line else "madr"


def _id_sort_key(id: str) -> tuple[int, int, str]:
    return (0, int(id), "") if id.isdigit() else (1, 0, id)
