"""Where an element's code is by *what* it is, when its name says nothing: the places a
repository declares for its technology.

"Single-Page App", technology "Next.js": the folder whose package.json depends on
``next``. "Web Application", technology "Django": the project's own apps in
INSTALLED_APPS and its ``manage.py``. A PostgreSQL "Database": the schema migrations
folders. A "Python library": the package of the project's pyproject. Each is proposed
only when the repository declares exactly one such place (two Next.js apps are two
elements, and which is which is a question of names).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass

from archmem.model.types import Element
from archmem.onboarding.manifests import Manifests, folders_by_name
from archmem.onboarding.names import joined, words
from archmem.values import Record

_FRAMEWORKS: tuple[tuple[str, str], ...] = (
    (r"next\.?js|\bnext\b", "next"),
    (r"\bnuxt", "nuxt"),
    (r"\breact\s+native\b", "react-native"),
    (r"\breact\b(?!\s+native)", "react"),
    (r"\bvue", "vue"),
    (r"\bangular", "angular"),
    (r"\bsvelte", "svelte"),
    (r"\bnest\.?js", "nest"),
    (r"\bexpress\b", "express"),
    (r"\belectron\b", "electron"),
    (r"\bdjango\b(?!\s+(?:management\s+)?commands?\b)", "django"),
    (r"\bmlproject\b|\bmlflow\b", "mlproject"),
    (r"\bhelm\b", "helm"),
    (r"\bkustomiz", "kustomize"),
    (r"\bterraform\b", "terraform"),
    (r"\bkubernetes\b|\bk8s\b", "kubernetes"),
)
"""An element's technology → the framework key ``manifests`` records places under (a
"Django Command" is one management command, not the project)."""
_MANY = frozenset({"django", "terraform", "kustomize", "kubernetes", "helm", "mlproject"})
"""Frameworks whose places together are one element's (a Django project's apps, every Terraform root)."""
_LIBRARY = re.compile(r"\b(?:library|lib|package|sdk)\b", re.I)
_PYTHON = re.compile(r"\bpython\b", re.I)
_SQL = re.compile(r"postgres|mysql|mariadb|sql\s?server|\bsql\b|sqlite|oracle|cockroach|\bdatabase\b|\brdbms\b", re.I)
_NOT_SCHEMA = re.compile(r"redis|valkey|memcached|cache|queue|kafka|rabbit|nats|s3|bucket|topic|elastic|mongo", re.I)
MIGRATION_FOLDERS = frozenset({"migrations", "alembic", "migrate", "flyway", "liquibase"})
"""Folders whose files change a database's schema."""
_ASIDE = frozenset({"docs", "doc", "examples", "example", "samples", "fixtures", "testdata", "node_modules", "vendor"})


@dataclass(repr=False, eq=False)
class Declared(Record):
    """Globs a project's own files declare for a place, with the evidence and confidence."""

    globs: list[str]
    evidence: str
    confidence: float


def declared_places(element: Element, technology: str, manifests: Manifests, folders: Folders) -> Declared | None:
    """The places the repository declares for what ``element`` is, or None."""
    named = folders.named(element)
    if named and len(named) <= 3:
        return Declared([f"{f}/**" for f in named], f"a folder named {element.name!r}", 0.8)
    if _schema_store(element):
        found = folders.migrations
        if found:
            return Declared([f"{f}/**" for f in found], f"schema migrations: {', '.join(found[:4])}", 0.8)
        return None
    for pattern, key in _FRAMEWORKS:
        if re.search(pattern, technology, re.I) and key in manifests.frameworks:
            places = manifests.frameworks[key]
            if key == "kubernetes":  # plain manifests: not those a chart or a kustomization holds
                held = [*manifests.frameworks.get("helm", {}), *manifests.frameworks.get("kustomize", {})]
                places = {p: why for p, why in places.items() if not any(p == h or p.startswith(h + "/") for h in held)}
            if key not in _MANY and len(places) != 1:
                continue  # several apps with this framework: which is which is for names to say
            places = _siblings_as_their_folder(places)
            globs = [p if p.endswith((".py", ".json")) else f"{p}/**" for p in places]
            return Declared(globs, "; ".join(list(places.values())[:4]), 0.75)
    if _LIBRARY.search(technology) and _PYTHON.search(technology):
        packages = manifests.frameworks.get("python-package", {})
        if len(packages) == 1:
            place, why = next(iter(packages.items()))
            return Declared([f"{place}/**"], why, 0.7)
    return None


def _siblings_as_their_folder(places: dict[str, str]) -> dict[str, str]:
    """Several places side by side in one folder (``external_models/a``, ``external_models/b``)
    are that folder's; never the repository root."""
    parents = {posixpath.dirname(p) for p in places}
    if len(places) >= 2 and len(parents) == 1 and "" not in parents and "." not in parents:
        parent = parents.pop()
        return {parent: f"{len(places)} of its folders: {next(iter(places.values()))}, …"}
    return places


class Folders:
    """Every folder of the repository, code or not, by its name (joined words), and the
    schema migrations folders: built once, asked once per element."""

    def __init__(self, files: Sequence[str]) -> None:
        self.by_name = folders_by_name(files, lambda base: ("".join(words(base)), joined(words(base))))
        self.migrations = migration_folders(files)

    def named(self, element: Element) -> list[str]:
        """Folders named exactly like the element ("Helm Chart" → ``helm-chart``), outermost."""
        name = words(element.name)
        if len(name) < 2:
            return []  # one word names too many folders ("templates", "config")
        found = sorted({f for key in {"".join(name), joined(name)} for f in self.by_name.get(key, [])})
        return [f for f in found if not any(f.startswith(other + "/") for other in found)]


def _schema_store(element: Element) -> bool:
    text = f"{element.technology} {' '.join(element.tags)}"
    return bool(_SQL.search(text)) and not _NOT_SCHEMA.search(element.technology or "")


def migration_folders(files: Sequence[str]) -> list[str]:
    """The outermost folders named like schema migrations that hold files (``emails/migrations``,
    ``alembic``), in path order."""
    found: list[str] = []
    for path in files:
        parts = path.split("/")[:-1]
        if any(part.lower() in _ASIDE or part.lower().startswith("test") for part in parts):
            continue
        for depth, part in enumerate(parts):
            if part.lower() in MIGRATION_FOLDERS:
                folder = "/".join(parts[: depth + 1])
                if (not found or found[-1] != folder) and folder not in found:
                    found.append(folder)
                break
    return sorted(found)
