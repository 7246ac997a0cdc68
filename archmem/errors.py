"""The one error family: every mistake a user can make is an ``ArchmemError``.

    ArchmemError                 exit 1   anything archmem itself refuses
    ├── ConfigError              exit 3   archmem.toml / pyproject / ARCHMEM_* values
    ├── ModelError               exit 4   finding or reading the architecture model
    │   ├── ModelNotFoundError            no model file where one was expected
    │   ├── ModelSyntaxError              file:line:col, what was found, what was expected
    │   └── UnsupportedFeatureError       !script, !plugin, !components, https includes
    ├── UnknownNameError         exit 5   an element / memory / decision name that is not there,
    │                                     with the closest candidates
    ├── RepositoryError          exit 6   the repository or its git history
    ├── StoreError               exit 7   the memory store (corrupt, newer schema, read-only)
    ├── InvalidInputError        exit 8   content, kind, title, dates a user gave
    │   └── SecretFoundError              content that looks like a credential
    ├── ConflictError            exit 9   a title clash, superseding a superseded memory
    └── EmbeddingError           exit 10  the embedding provider failed (recall falls back to words)

Each error carries its context as attributes so interfaces (CLI, MCP, Action) can
render it as text or JSON; ``str(err)`` is already the full human message.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from archmem.values import Value


@dataclass(frozen=True, repr=False, eq=False)
class SourceLocation(Value):
    """A place in a model file; ``line`` and ``column`` are 1-based."""

    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class ArchmemError(Exception):
    """Base of every error archmem raises on purpose."""

    exit_code = 1
    kind = "error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  hint: {self.hint}"
        return self.message

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly view of the error for ``--json`` and MCP tool errors."""
        data: dict[str, object] = {"error": self.kind, "message": self.message}
        if self.hint:
            data["hint"] = self.hint
        return data


class ConfigError(ArchmemError):
    exit_code = 3
    kind = "config_error"


class RepositoryError(ArchmemError):
    exit_code = 6
    kind = "repository_error"


class StoreError(ArchmemError):
    exit_code = 7
    kind = "store_error"


class InvalidInputError(ArchmemError):
    exit_code = 8
    kind = "invalid_input"


class SecretFoundError(InvalidInputError):
    """Content that looks like a credential; names what matched, never echoes it."""

    kind = "secret_found"

    def __init__(self, secret_kind: str, line: int, column: int, *, field: str = "content") -> None:
        self.secret_kind = secret_kind
        self.line = line
        self.column = column
        self.field = field
        super().__init__(
            f"refused: the {field} looks like it holds a secret ({secret_kind} at line {line}, column {column}); "
            "nothing was stored",
            hint="remove the credential (or replace it with a placeholder such as <redacted>) and try again",
        )

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data.update(secret_kind=self.secret_kind, field=self.field, line=self.line, column=self.column)
        return data


class ConflictError(ArchmemError):
    exit_code = 9
    kind = "conflict"


class ModelError(ArchmemError):
    exit_code = 4
    kind = "model_error"

    def __init__(
        self,
        message: str,
        *,
        location: SourceLocation | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.location = location

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}" if self.location else self.message
        return f"{text}\n  hint: {self.hint}" if self.hint else text

    @property
    def file(self) -> str | None:
        return self.location.file if self.location else None

    @property
    def line(self) -> int | None:
        return self.location.line if self.location else None

    @property
    def column(self) -> int | None:
        return self.location.column if self.location else None

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        if self.location:
            data.update(file=self.location.file, line=self.location.line, column=self.location.column)
        return data


class ModelNotFoundError(ModelError):
    kind = "model_not_found"


class NoModelError(ModelNotFoundError):
    """The repository has no model at all (not a missing configured file, not a choice
    between several): the next step is to write one."""


class ModelSyntaxError(ModelError):
    """The model file is not well formed; says where, and what was expected there."""

    kind = "model_syntax_error"

    def __init__(
        self,
        message: str,
        *,
        location: SourceLocation,
        expected: Iterable[str] = (),
        hint: str | None = None,
    ) -> None:
        self.expected = list(expected)
        if self.expected:
            message = f"{message} (expected: {', '.join(self.expected)})"
        super().__init__(message, location=location, hint=hint)

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        if self.expected:
            data["expected"] = self.expected
        return data


class UnsupportedFeatureError(ModelError):
    """A construct archmem will never run (JVM scripts, plugins, network includes)."""

    kind = "unsupported"


class UnknownNameError(ArchmemError):
    """A name that matches nothing; lists the closest candidates."""

    exit_code = 5
    kind = "unknown_name"

    def __init__(self, what: str, name: str, candidates: Iterable[str] = (), *, hint: str | None = None):
        self.what = what
        self.name = name
        self.candidates = list(candidates)
        message = f"unknown {what} {name!r}"
        if self.candidates:
            message += "; did you mean " + ", ".join(repr(c) for c in self.candidates) + "?"
        super().__init__(message, hint=hint)

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data.update(what=self.what, name=self.name, candidates=self.candidates)
        return data


def closest(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The choices nearest to ``name`` (case-insensitive), best first."""
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(choice.lower(), choice)
    lowered = name.lower()
    import difflib  # only for a name that is not found

    found = difflib.get_close_matches(lowered, list(by_lower), n=n, cutoff=0.5)
    # substring matches are as useful as edit-distance ones ("gateway" → "ApiGateway")
    for key in by_lower:
        if len(found) >= n:
            break
        shorter, longer = sorted((lowered, key), key=len)
        if len(shorter) >= 3 and shorter in longer and key not in found:
            found.append(key)
    return [by_lower[key] for key in found]


def display_path(path: Path | str, root: Path | None = None) -> str:
    """A path as the user should read it: relative to ``root`` when inside it."""
    path = Path(path)
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


class EmbeddingError(ArchmemError):
    """The embedding provider failed; callers degrade to lexical recall and say so."""

    exit_code = 10
    kind = "embedding_error"
