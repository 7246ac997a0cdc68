"""Which files each element owns now, how big that is, and which code nobody owns.

Pure: it takes the list of files and a line counter, so tests need no repository.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from archmem.model.paths import compile_globs
from archmem.model.types import ArchitectureModel

CODE_EXTENSIONS = frozenset(
    """py pyi js jsx mjs cjs ts tsx vue svelte go java kt kts scala groovy clj rs c h cc cpp cxx
    hpp hh cs fs vb swift m mm rb php pl pm lua r jl dart ex exs erl hrl hs ml mli elm zig nim
    sql sh bash zsh ps1 tf hcl proto graphql gql css scss sass less html htm""".split()
)
"""Extensions that count as code when looking for code no element owns."""


def is_code(path: str) -> bool:
    return PurePosixPath(path).suffix.lstrip(".").lower() in CODE_EXTENSIONS


@dataclass(frozen=True)
class CodeSize:
    files: int = 0
    lines: int = 0


@dataclass
class Ownership:
    """Files per element (through its effective paths) and the code outside every element.

    Line counts are read only when a size is asked for: recall needs who owns a file,
    not how long it is.
    """

    files: dict[str, list[str]] = field(default_factory=dict)
    unowned: list[str] = field(default_factory=list)
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
) -> Ownership:
    """Match every element's effective globs against ``files`` (repo-relative posix)."""
    ignored = compile_globs(list(ignore))
    candidates = [f for f in files if not ignored(f)]
    result = Ownership(lines_of=lines_of, total_files=len(candidates))
    owned: set[str] = set()
    for element in model.elements:
        matcher = compile_globs(model.effective_paths(element.id))
        mine = [f for f in candidates if matcher(f)]
        result.files[element.id] = mine
        owned.update(mine)
    result.unowned = [f for f in candidates if f not in owned and is_code(f)]
    return result
