"""Where an element's code is: the path-glob grammar, and deriving globs from a model.

One place for the rule: ``archmem.paths`` (comma- or semicolon-separated globs),
``source`` / ``code`` / ``path`` properties (a ``File.java:method`` suffix becomes an
anchor ``File.java#method``), and a ``url`` that points into this repository all give
repo-relative globs. A glob with no wildcard names a file or a whole folder. A glob
that leaves the repository is refused. A glob written ``!glob`` takes back what the globs
before it gave, with gitignore's semantics: the last glob that matches a path decides,
so ``privaterelay/**, !privaterelay/management/**`` is the Django app without its
management commands, and a later positive glob can give a file back.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

from archmem.errors import ModelError, SourceLocation
from archmem.model.types import ArchitectureModel, Element, Location
from archmem.patterns import lazy

MAPPING_PREFIX = "archmem."
"""Properties under this prefix map an element to code; they never describe it."""
PATHS_PROPERTY = "archmem.paths"
SINGLE_PATH_PROPERTIES = ("source", "code", "path")
NEGATION = "!"
_WILDCARDS = set("*?[")
_URL_IN_REPO = lazy(r"^https?://[^/]+/(?P<slug>[^/]+/[^/]+?)(?:\.git)?/(?:-/)?(?:tree|blob|src)/(?P<rest>.+)$")
_METHOD_SUFFIX = lazy(r"^(?P<path>[^:]+\.[A-Za-z0-9]+):(?P<symbol>[A-Za-z_$][\w$.]*)$")


def split_globs(text: str) -> list[str]:
    """``"src/a/**, src/b/*.py; lib"`` → three globs (empty parts dropped)."""
    return [part.strip() for part in re.split(r"[,;]", text) if part.strip()]


def is_negated(glob: str) -> bool:
    """``!src/gen/**``: a glob that takes code away from the globs before it."""
    return glob.startswith(NEGATION)


def positive(glob: str) -> str:
    """The glob a negation takes away (``!src/gen/**`` → ``src/gen/**``); others as they are."""
    return glob[len(NEGATION):] if is_negated(glob) else glob


def normalize_glob(glob: str) -> str:
    """A repo-relative posix glob (a leading ``!`` kept), or ``ValueError`` saying why it is not one."""
    stripped = glob.strip()
    if is_negated(stripped):
        return NEGATION + normalize_glob(stripped[len(NEGATION):])
    text = stripped.replace("\\", "/")
    if text.startswith("./"):
        text = text[2:]
    if not text:
        raise ValueError("an empty path")
    if text.startswith("/") or re.match(r"^[A-Za-z]:/", text):
        raise ValueError(f"{glob!r} is absolute; paths are relative to the repository root")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"{glob!r} leaves the repository")
    if not parts:
        raise ValueError(f"{glob!r} names no file")
    return "/".join(parts)


def has_wildcard(glob: str) -> bool:
    return any(ch in _WILDCARDS for ch in glob)


@lru_cache(maxsize=4096)
def glob_to_regex(glob: str) -> str:
    """The regex (without anchors) for one normalized glob.

    ``**`` spans any number of folders, ``*`` and ``?`` stay inside one, ``[...]`` is a
    character class. A glob without wildcards matches the path itself or anything
    under it, so ``src/api`` owns ``src/api/handler.go``. The pattern carries its own
    DOTALL flag: a newline is a legal character in a file name, and ``.`` must match it
    whoever compiles the pattern.
    """
    return "(?s:" + _glob_body(glob) + ")"


def _glob_body(glob: str) -> str:
    if not has_wildcard(glob):
        return re.escape(glob) + r"(?:/.*)?"
    out: list[str] = []
    parts = glob.split("/")
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(r".*" if last else r"(?:[^/]+/)*")
            continue
        out.append(_segment_regex(part))
        if not last:
            out.append("/")
    return "".join(out)


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out.append(r"[^/]*")
        elif ch == "?":
            out.append(r"[^/]")
        elif ch == "[":
            end = segment.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = segment[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def compile_globs(globs: Iterable[str]) -> Callable[[str], bool]:
    """One matcher for a list of globs (an empty list matches nothing). Negated globs
    take away what the globs before them matched; the last glob that matches decides."""
    runs: list[tuple[bool, list[str]]] = []
    for glob in globs:
        negated = is_negated(glob)
        if not runs or runs[-1][0] != negated:
            runs.append((negated, []))
        runs[-1][1].append(positive(glob))
    while runs and runs[0][0]:
        runs.pop(0)  # nothing before a leading negation to take away
    if not runs:
        return lambda path: False
    compiled = [(negated, _run_matcher(run)) for negated, run in runs]
    if len(compiled) == 1:
        return compiled[0][1]
    checks = list(reversed(compiled))

    def matches(path: str) -> bool:
        for negated, match in checks:
            if match(path):
                return not negated
        return False

    return matches


def _run_matcher(globs: list[str]) -> Callable[[str], bool]:
    """One test for globs that all add (or all take away). Plain paths and ``prefix/**``
    (most elements' globs), and ``**/name``, ``**/*.suffix`` and ``**/folder/**`` (the
    default ignores: lock files, minified and generated code) are decided by string
    comparison, with no regular expression to compile on every command; any other glob
    makes the rest of the run one expression."""
    plain: list[str] = []
    under: list[str] = []
    anywhere: dict[str, list[str]] = {"name": [], "suffix": [], "folder": []}
    rest: list[str] = []
    for glob in globs:
        body = glob[: -len("/**")] if glob.endswith("/**") else glob
        if body and not has_wildcard(body):
            (under if glob.endswith("/**") else plain).append(body)
        elif (shape := _anywhere_shape(glob)) is not None:
            anywhere[shape[0]].append(shape[1])
        else:
            rest.append(glob)
    exact = frozenset(plain)
    prefixes = tuple(body + "/" for body in plain + under)
    names = frozenset(anywhere["name"])
    name_ends = tuple("/" + name for name in anywhere["name"])
    suffixes = tuple(anywhere["suffix"])
    folder_starts = tuple(folder + "/" for folder in anywhere["folder"])
    folders_inside = tuple("/" + folder + "/" for folder in anywhere["folder"])
    spread = [glob for glob in globs if _anywhere_shape(glob) is not None]
    regex = re.compile("(?:" + "|".join(glob_to_regex(g) for g in rest) + r")\Z") if rest else None

    def matches(path: str) -> bool:
        if path in exact or path.startswith(prefixes):
            return True
        if spread:
            if path.startswith("/") or "//" in path:  # an empty folder name: as the expression says
                if _matches_any(tuple(spread), path):
                    return True
            elif (path in names or path.endswith(name_ends) or path.endswith(suffixes)
                  or path.startswith(folder_starts) or any(inside in path for inside in folders_inside)):
                return True
        return regex is not None and regex.match(path) is not None

    if not spread and regex is None:
        return lambda path: path in exact or path.startswith(prefixes)
    return matches


def _anywhere_shape(glob: str) -> tuple[str, str] | None:
    """``**/name`` → ("name", name), ``**/*.suffix`` → ("suffix", ".suffix"),
    ``**/folder/**`` → ("folder", folder) when the rest holds no wildcard; else None."""
    if not glob.startswith("**/"):
        return None
    tail = glob[len("**/"):]
    if tail.endswith("/**"):
        folder = tail[: -len("/**")]
        return ("folder", folder) if folder and "/" not in folder and not has_wildcard(folder) else None
    if "/" in tail:
        return None
    if not has_wildcard(tail):
        return "name", tail
    if tail.startswith("*") and len(tail) > 1 and not has_wildcard(tail[1:]):
        return "suffix", tail[1:]
    return None


@lru_cache(maxsize=256)
def _expression(globs: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("(?:" + "|".join(glob_to_regex(g) for g in globs) + r")\Z")


def _matches_any(globs: tuple[str, ...], path: str) -> bool:
    """The expression's answer, for a path git never lists (an empty folder name)."""
    return _expression(globs).match(path) is not None


def path_from_url(url: str, exists: Callable[[str], bool] | None = None) -> str | None:
    """The repo path a GitHub/GitLab/Bitbucket-style ``tree``/``blob`` URL points at.

    Branch names may hold slashes, so the first split whose remainder exists in the
    repository wins; without an ``exists`` check the first segment is the branch.
    """
    match = _URL_IN_REPO.match(url.strip())
    if not match:
        return None
    segments = [s for s in match.group("rest").split("?")[0].split("#")[0].split("/") if s]
    for cut in range(1, len(segments)):
        candidate = "/".join(segments[cut:])
        if exists is None or exists(candidate):
            return candidate
    return None


def derive_code_paths(
    element: Element,
    *,
    exists: Callable[[str], bool] | None = None,
    model_file: str | None = None,
) -> tuple[list[str], list[str]]:
    """(globs, anchors) for one element, from its properties, url and given paths."""
    globs: list[str] = []
    anchors: list[str] = list(element.anchors)

    def add(raw: str, what: str) -> None:
        try:
            glob = normalize_glob(raw)
        except ValueError as exc:
            raise ModelError(
                f"element {element.id!r}: {what} {exc}",
                location=_source_location(element.location, model_file),
                hint="element paths are repo-relative globs such as src/api/** ",
            ) from None
        if glob not in globs:
            globs.append(glob)

    for raw in element.paths:
        for part in split_globs(raw):
            add(part, "path")
    properties = {key.lower(): value for key, value in element.properties.items()}
    if PATHS_PROPERTY in properties:
        for part in split_globs(properties[PATHS_PROPERTY]):
            add(part, f"{PATHS_PROPERTY}")
    for key in SINGLE_PATH_PROPERTIES:
        value = properties.get(key, "").strip()
        if not value:
            continue
        if _URL_IN_REPO.match(value):
            found = path_from_url(value, exists)
            if found:
                add(found, f"property {key!r}")
            continue
        for part in split_globs(value):
            method = _METHOD_SUFFIX.match(part)
            if method:
                add(method.group("path"), f"property {key!r}")
                anchor = f"{normalize_glob(method.group('path'))}#{method.group('symbol')}"
                if anchor not in anchors:
                    anchors.append(anchor)
            else:
                add(part, f"property {key!r}")
    if element.url and not globs:
        found = path_from_url(element.url, exists)
        if found:
            add(found, "url")
    return globs, anchors


def _source_location(location: Location | None, fallback_file: str | None) -> SourceLocation | None:
    if location is not None:
        return SourceLocation(location.file, location.line, location.column)
    if fallback_file:
        return SourceLocation(fallback_file, 1, 1)
    return None


def resolve_code_paths(
    model: ArchitectureModel, exists: Callable[[str], bool] | None = None
) -> ArchitectureModel:
    """A copy of ``model`` whose elements carry normalized ``paths`` and ``anchors``."""
    elements = []
    for element in model.elements:
        globs, anchors = derive_code_paths(element, exists=exists, model_file=model.source)
        elements.append(dataclasses.replace(element, paths=globs, anchors=anchors))
    return dataclasses.replace(model, elements=elements)


def add_configured_paths(
    model: ArchitectureModel, table: Mapping[str, Sequence[str]], *, source: str | None = None
) -> ArchitectureModel:
    """A copy of ``model`` whose elements also own the globs of the config's ``[paths]``
    table (element id, or a name ``model.find`` resolves → globs): the union of both
    sources, so recording paths outside the DSL never hides what the DSL says. A key
    that names no element is a warning (with the closest names); a glob that leaves
    the repository is an error at the config file's line."""
    if not table:
        return model
    from archmem.config import line_of_key
    from archmem.errors import ConfigError, UnknownNameError

    added: dict[str, list[str]] = {}
    warnings = list(model.warnings)
    where = source or "archmem.toml"
    for key, globs in table.items():
        try:
            element = model.find(key)
        except UnknownNameError as exc:
            line = line_of_key(source, key)
            guess = f" (did you mean {', '.join(exc.candidates)}?)" if exc.candidates else ""
            warnings.append(f"{where}{f':{line}' if line else ''}: [paths] names no element {key!r}{guess}; ignored")
            continue
        mine = added.setdefault(element.id, [])
        for raw in globs:
            try:
                glob = normalize_glob(raw)
            except ValueError as exc:
                line = line_of_key(source, key)
                raise ConfigError(f"{where}{f':{line}' if line else ''}: [paths] {key!r}: {exc}",
                                  hint="element paths are repo-relative globs such as src/api/**") from None
            if glob not in mine:
                mine.append(glob)
    elements = []
    for element in model.elements:
        extra = [g for g in added.get(element.id, []) if g not in element.paths]
        elements.append(dataclasses.replace(element, paths=[*element.paths, *extra]) if extra else element)
    return dataclasses.replace(model, elements=elements, warnings=warnings)


def is_under(path: str, folder: str) -> bool:
    """True when posix ``path`` is ``folder`` or inside it."""
    return PurePosixPath(path) == PurePosixPath(folder) or PurePosixPath(folder) in PurePosixPath(path).parents
