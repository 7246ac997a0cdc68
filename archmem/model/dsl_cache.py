"""The parsed Structurizr DSL model, kept in the index and keyed by everything the parse read.

Every command that reads the model parsed the DSL again: importing the parser and
running it cost a recall more than its query. The parsed model (before code paths are
derived: those depend on the repository's files) is kept in ``store_meta`` as JSON with
what it was read from: the digest of each file read (the model file, its includes, an
extended base), of every file in each folder it names (``!include dir``, ``!adrs``) and
whether each other path it names exists (``!docs``, an image), the value of each
environment variable a ``${NAME}`` asked for (or that it was unset), the model's path
and the repository it is confined to, and the parser's own source files (size and
mtime: a changed parser parses again). Any of those changed, it is parsed again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

from archmem.model.types import (
    ArchitectureModel,
    Decision,
    DeploymentNode,
    Element,
    Location,
    Relationship,
)

KEY = "parsed_model"
"""The one ``store_meta`` row that holds the last parsed model and its inputs."""
FORMAT = 1
"""Raised when the kept JSON's shape changes."""
KEPT_CHARS = 4 << 20
"""A model larger than this as JSON is parsed each time rather than kept."""


class Meta(Protocol):
    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str | None) -> None: ...


def parse_dsl_cached(path: Path, *, env: Mapping[str, str], root: Path | None, store: Meta | None) -> ArchitectureModel:
    """``parse_dsl`` with its result kept in ``store`` (when one is open) until an input changes."""
    place = {"format": FORMAT, "parser": _parser_signature(), "path": str(path.resolve()),
             "root": None if root is None else str(root.resolve())}
    if store is not None:
        kept = _kept(store, place, env)
        if kept is not None:
            return kept
    from archmem.model.dsl.parser import ParseInputs, parse_dsl

    inputs = ParseInputs()
    model = parse_dsl(path, env=env, root=root, inputs=inputs)
    if store is not None:
        read = {name: _signature(Path(name)) for name in [*inputs.files, *inputs.named]}
        text = json.dumps({**place, "inputs": read, "env": inputs.env, "model": model_to_json(model)},
                          separators=(",", ":"), default=_date)
        if len(text) <= KEPT_CHARS:
            store.set_meta(KEY, text)
    return model


def _kept(store: Meta, place: dict[str, Any], env: Mapping[str, str]) -> ArchitectureModel | None:
    """The kept model when it was read from these very inputs, else None."""
    try:
        kept = json.loads(store.meta(KEY) or "{}")
        if not isinstance(kept, dict) or any(kept.get(key) != value for key, value in place.items()):
            return None
        if any(env.get(name) != value for name, value in kept["env"].items()):
            return None
        if any(_signature(Path(name)) != signature for name, signature in kept["inputs"].items()):
            return None
        return model_from_json(kept["model"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None  # a kept value of another shape: parse again


def _signature(path: Path) -> object:
    """What a parse saw of a path: a file's digest, a folder's files and their digests
    (all the way down), or ``None`` when it does not exist."""
    try:
        if path.is_dir():
            return sorted([found.relative_to(path).as_posix(), _digest(found)]
                          for found in path.rglob("*") if found.is_file())
        return _digest(path) if path.exists() else None
    except OSError as exc:
        return f"unreadable: {exc.errno}"


def _digest(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()


def _parser_signature() -> list[list[object]]:
    """The parser's source files and the model's types, by name, size and mtime."""
    here = Path(__file__).parent
    found = []
    for folder in (here / "dsl", here):
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".py") and (folder != here or entry.name in ("types.py", "dsl_cache.py")):
                    stat = entry.stat()
                    found.append([entry.name, stat.st_size, stat.st_mtime_ns])
    return sorted(found)


def _date(value: object) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"not JSON: {type(value).__name__}")


def model_to_json(model: ArchitectureModel) -> dict[str, Any]:
    """The model's fields as JSON values (dates stay ``date`` objects: ``json.dumps`` writes them)."""
    return asdict(model)


def model_from_json(data: dict[str, Any]) -> ArchitectureModel:
    """The model ``model_to_json`` wrote, field for field."""
    return ArchitectureModel(**{
        **data,
        "elements": [Element(**_located(e)) for e in data["elements"]],
        "relationships": [Relationship(**_located(r)) for r in data["relationships"]],
        "decisions": [Decision(**{**d, "date": dt.date.fromisoformat(d["date"]) if d["date"] else None})
                      for d in data["decisions"]],
        "deployment": [DeploymentNode(**_located(d)) for d in data["deployment"]],
    })


def _located(data: dict[str, Any]) -> dict[str, Any]:
    where = data.get("location")
    return {**data, "location": Location(**where)} if where is not None else data
