"""LikeC4 workspaces (``.c4``/``.likec4`` files, ``likec4.config.json`` projects) read into
an ``ArchitectureModel`` whose element ids are LikeC4's FQNs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from archmem.errors import ArchmemError, ModelError, SourceLocation
from archmem.model.confine import boundary
from archmem.model.likec4.build import build_model
from archmem.model.likec4.lexer import tokenize
from archmem.model.likec4.parser import FileParser
from archmem.model.likec4.project import CONFIG_NAMES, SCRIPT_CONFIGS, is_source, read_project
from archmem.model.likec4.syntax import Declarations
from archmem.model.types import ArchitectureModel

__all__ = ["is_likec4", "parse_likec4"]

MAX_FILE_BYTES = 8 << 20
"""A source file larger than this is refused unread."""


def is_likec4(path: Path) -> bool:
    """A LikeC4 source file, a ``likec4.config.json``, or a folder (read as a workspace)."""
    return path.is_dir() or is_source(path) or path.name in CONFIG_NAMES + SCRIPT_CONFIGS


def parse_likec4(path: Path, *, root: Path | None = None, kinds: Mapping[str, str] | None = None) -> ArchitectureModel:
    """The workspace at ``path`` (a folder, its ``likec4.config.json`` or one file).

    ``kinds`` maps LikeC4 element kinds to C4 levels before the built-in rule
    (``archmem.model.likec4.kinds``). Raises ``ModelError`` (a ``ModelSyntaxError`` with
    file, line, column and what was expected) for anything wrong.
    """
    path = Path(path)
    within = boundary(path if path.is_file() else path / "likec4.config.json", root)
    project = read_project(path, within)
    base = root.resolve() if root is not None and path.resolve().is_relative_to(root.resolve()) else project.folder
    decls = Declarations(warnings=list(project.warnings))
    parsed: list[tuple[FileParser, str]] = []
    names: list[str] = []
    for file in project.files:
        name = _display(file, base)
        names.append(str(file.resolve()))
        text = _read(file, name)
        try:
            parsed.append((FileParser(tokenize(text, name), name, decls, path=str(file.resolve())), name))
        except RecursionError:
            raise ModelError("the file nests too deeply to read", location=SourceLocation(name, 1, 1)) from None
    try:
        for parser, _ in parsed:
            parser.parse(specification=True)
        for parser, _ in parsed:
            parser.pos = 0
            parser.parse(specification=False)
        return build_model(decls, name=project.name, source=str(path.resolve()), files=names, kinds=kinds)
    except ArchmemError:
        raise
    except RecursionError:
        raise ModelError("the model nests too deeply to read") from None
    except Exception as exc:  # a reader bug must still reach users as an ArchmemError
        raise ModelError(f"internal error of the LikeC4 reader ({type(exc).__name__}: {exc}); please report it") from exc


def _read(file: Path, name: str) -> str:
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            raise ModelError(f"{name}: larger than {MAX_FILE_BYTES >> 20} MB; not read")
        data = file.read_bytes()
    except OSError as exc:
        raise ModelError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ModelError(f"{name}: not UTF-8 text (byte {exc.start})") from None


def _display(file: Path, base: Path) -> str:
    try:
        return file.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return file.as_posix()
