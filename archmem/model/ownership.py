"""Which files each element owns now, how big that is, and which code nobody owns.

Pure: it takes the list of files and a line counter, so tests need no repository.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from archmem.model.paths import compile_globs, is_negated
from archmem.model.types import ArchitectureModel
from archmem.values import Record, Value

CODE_EXTENSIONS = frozenset(
    """py pyi js jsx mjs cjs ts tsx vue svelte go java kt kts scala groovy clj rs c h cc cpp cxx
    hpp hh cs fs vb swift m mm rb php pl pm lua r jl dart ex exs erl hrl hs ml mli elm zig nim
    sql sh bash zsh ps1 tf hcl proto graphql gql css scss sass less html htm""".split()
)
"""Extensions that count as code when looking for code no element owns."""


def is_code(path: str) -> bool:
    """Whether the file's extension is a code one (as ``PurePosixPath(path).suffix``
    reads it, without building a path: this runs for every file of the repository)."""
    name = path.rstrip("/").rpartition("/")[2]
    dot = name.rfind(".")
    return 0 < dot < len(name) - 1 and name[dot + 1:].lower() in CODE_EXTENSIONS


@dataclass(frozen=True, repr=False, eq=False)
class CodeSize(Value):
    """How much code an element owns: files and lines."""

    files: int = 0
    lines: int = 0


@dataclass(repr=False, eq=False)
class Ownership(Record):
    """Files per element (through its effective paths) and the code outside every element.

    Line counts are read only when a size is asked for: recall needs who owns a file,
    not how long it is.
    """

    files: dict[str, list[str]] = field(default_factory=dict)
    unowned: list[str] = field(default_factory=list)
    unmatched_globs: dict[str, list[str]] = field(default_factory=dict)
    """Element id → its own globs that match no file (ignored and generated ones aside)."""
    generated: dict[str, str] = field(default_factory=dict)
    """Generated or vendored files left out (path → why): nobody's code."""
    total_files: int = 0
    """Every file considered (ignored ones left out): what an element's share is of."""
    lines_of: Callable[[str], int] = field(default=lambda path: 0, repr=False)
    _sizes: dict[str, CodeSize] = field(default_factory=dict, repr=False)

    def size(self, element_id: str) -> CodeSize:
        if element_id not in self._sizes:
            mine = self.files.get(element_id, [])
            self._sizes[element_id] = CodeSize(len(mine), sum(self.lines_of(f) for f in mine))
        return self._sizes[element_id]

    @property
    def unowned_lines(self) -> int:
        return sum(self.lines_of(f) for f in self.unowned)


def compute_ownership(
    model: ArchitectureModel,
    files: Sequence[str],
    lines_of: Callable[[str], int],
    *,
    ignore: Iterable[str] = (),
    generated: Mapping[str, str] | None = None,
) -> Ownership:
    """Match every element's effective globs against ``files`` (repo-relative posix);
    ``ignore`` globs and ``generated`` files (path → why) belong to no element."""
    ignored = compile_globs(list(ignore))
    skipped = generated or {}
    candidates = [f for f in files if not ignored(f) and f not in skipped]
    result = Ownership(lines_of=lines_of, generated=dict(skipped), total_files=len(candidates))
    owned: set[str] = set()
    for element in model.elements:
        matcher = compile_globs(model.effective_paths(element.id))
        mine = [f for f in candidates if matcher(f)]
        result.files[element.id] = mine
        owned.update(mine)
        if element.paths:
            empty = [glob for glob in element.paths
                     if not is_negated(glob) and not any(map(compile_globs([glob]), mine))]
            if empty:
                result.unmatched_globs[element.id] = empty
    result.unowned = [f for f in candidates if f not in owned and is_code(f)]
    return result


@dataclass(frozen=True, repr=False, eq=False)
class OwnershipWarning(Value):
    """Something wrong with how the model maps elements to code, about one element."""

    element: str
    message: str


def ownership_warnings(model: ArchitectureModel, ownership: Ownership) -> list[OwnershipWarning]:
    """Sibling elements whose code overlaps (a file counted twice, drift twice), and
    globs that match no file (a typo, or code that moved)."""
    found = [
        OwnershipWarning(element_id, f"{element_id}: {'its path' if len(globs) == 1 else 'its paths'} "
                         f"{', '.join(repr(g) for g in globs)} {'matches' if len(globs) == 1 else 'match'} no file")
        for element_id, globs in ownership.unmatched_globs.items()
    ]
    owners: dict[str, list[str]] = {}
    for element in model.elements:
        for path in ownership.files.get(element.id, []):
            owners.setdefault(path, []).append(element.id)
    shared: dict[tuple[str, str], list[str]] = {}
    parent = {e.id: e.parent for e in model.elements}
    for path, ids in owners.items():
        if len(ids) < 2:
            continue
        for i, a in enumerate(ids):
            for b in ids[i + 1:]:
                if parent[a] == parent[b]:
                    shared.setdefault((a, b), []).append(path)
    for (a, b), paths in shared.items():
        found.append(OwnershipWarning(
            a, f"{a} and {b} (siblings) both own {len(paths)} file{'s' if len(paths) != 1 else ''}, "
               f"e.g. {paths[0]}: their drift counts the same changes twice; narrow their paths",
        ))
    return found
