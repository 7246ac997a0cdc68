"""``archmem check``'s rules for the drift accept files (``archmem.drift.accepts``), read
by the reader drift uses: ``unreadable``, ``conflict-markers``, ``schema`` and ``secret``
are errors there, ``unknown-key`` and ``unknown-element`` warnings (an accept of an
element the model no longer has is ignored, never wrong)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from archmem.drift.accepts import read_accept_bytes
from archmem.errors import SecretFoundError
from archmem.memory.check import CheckReport, Finding, MemoryFileText
from archmem.memory.file_format import SECRET_ADVICE
from archmem.memory.secrets import check_fields, check_no_secret
from archmem.model.types import ArchitectureModel
from archmem.yaml_text import YamlTextError, load_mapping


def check_accept_files(
    report: CheckReport, files: Iterable[MemoryFileText], model: ArchitectureModel, *, model_found: bool = True
) -> None:
    """Add the problems of the drift accept files to ``report`` (see the module doc)."""
    for file in sorted(files, key=lambda f: f.path):
        report.accept_files += 1
        if file.data is None:
            report.findings.append(Finding(file.path, 1, 1, "error", "unreadable",
                                           f"cannot read the file: {file.read_error or 'unknown error'}"))
            continue
        text = file.data.decode("utf-8-sig", errors="replace")
        try:
            check_no_secret(text)
        except SecretFoundError as exc:
            report.findings.append(Finding(file.path, exc.line, exc.column, "error", "secret",
                                           f"looks like a credential ({exc.secret_kind}); {SECRET_ADVICE}"))
        else:
            try:
                check_fields(_accept_values(text))  # the values as YAML decodes them: escapes, folds
            except SecretFoundError as exc:
                report.findings.append(Finding(
                    file.path, _key_line(text, exc.field) + exc.line - 1, 1, "error", "secret",
                    f"{exc.field!r} looks like a credential once its YAML escapes and folds are read "
                    f"({exc.secret_kind}); {SECRET_ADVICE}"))
        _, problems = read_accept_bytes(file.path, file.data, model if model_found else None)
        report.findings += [Finding(p.path, p.line, p.column, p.severity, p.rule, p.message) for p in problems]
    report.findings.sort(key=lambda f: (f.path, f.line, f.column, f.rule))


def _accept_values(text: str) -> dict[str, Any]:
    """An accept file's values as YAML decodes them (none when it does not read: the
    reader reports why)."""
    try:
        return load_mapping(text)
    except YamlTextError:
        return {}


def _key_line(text: str, key: str) -> int:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1
