"""A draft ``workspace.dsl`` for a repository that has no model (``archmem init
--starter-model``), from what the repository declares: each application, service or
package that builds on its own (a Dockerfile, package.json, pyproject, go.mod, csproj, a
compose service) is a container with its folder as ``archmem.paths`` and the technology
its files and manifests show; a Django project is one web application; schema
migrations make a database. Every element is tagged ``Draft``: names, descriptions and
relationships are for a person to write.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from archmem.model.ownership import is_code
from archmem.onboarding.candidates import TEST_FOLDERS
from archmem.onboarding.declared import migration_folders
from archmem.onboarding.manifests import Manifests, Read, read_manifests
from archmem.values import Record

_LANGUAGES = {
    "py": "Python", "go": "Go", "ts": "TypeScript", "tsx": "TypeScript", "js": "JavaScript", "jsx": "JavaScript",
    "mjs": "JavaScript", "java": "Java", "kt": "Kotlin", "cs": "C#", "fs": "F#", "rb": "Ruby", "php": "PHP",
    "rs": "Rust", "swift": "Swift", "dart": "Dart", "scala": "Scala", "ex": "Elixir", "cpp": "C++", "c": "C",
}
_FRAMEWORK_NAMES = {
    "next": "Next.js", "react": "React", "vue": "Vue", "nuxt": "Nuxt", "angular": "Angular", "svelte": "Svelte",
    "express": "Express", "nest": "NestJS", "electron": "Electron", "react-native": "React Native",
}
MAX_CONTAINERS = 40
"""More units than this are listed by their outermost folders only (a monorepo of packages)."""


@dataclass(repr=False, eq=False)
class DraftContainer(Record):
    """A container the starter model proposes, with its paths and why."""

    identifier: str
    name: str
    technology: str
    paths: list[str]
    why: str
    tags: tuple[str, ...] = ("Draft",)


def draft_containers(files: Sequence[str], read: Read) -> list[DraftContainer]:
    """The containers a draft model starts from, in path order."""
    manifests = read_manifests(files, read)
    containers: list[DraftContainer] = []
    django = manifests.frameworks.get("django", {})
    taken: set[str] = set()
    if django:
        paths = [p if p.endswith(".py") else f"{p}/**" for p in django]
        containers.append(DraftContainer("web", "Web Application", "Python, Django", paths,
                                         next(iter(django.values()))))
        taken.update(p for p in django if not p.endswith(".py"))
    units = _outermost([u for u in manifests.units if _kept(u, taken)], limit=MAX_CONTAINERS)
    for folder in units:
        containers.append(DraftContainer(
            _identifier(folder, {c.identifier for c in containers}), _name(folder),
            _technology(folder, files, manifests), [f"{folder}/**"], manifests.units[folder],
        ))
    migrations = migration_folders(files)
    if migrations:
        containers.append(DraftContainer("database", "Database", "SQL", [f"{m}/**" for m in migrations],
                                         f"schema migrations in {', '.join(migrations[:3])}", ("Draft", "Database")))
    for container in containers:  # a folder holding another container's code gives it back
        folders = [p.removesuffix("/**") for p in container.paths if p.endswith("/**")]
        for other in containers:
            inside = [p for p in other.paths if other is not container and not p.startswith("!")
                      and any(p.startswith(f + "/") for f in folders)]
            container.paths.extend(f"!{p}" for p in inside)
    return containers


def draft_model(name: str, files: Sequence[str], read: Read) -> str:
    """The text of a draft ``workspace.dsl`` for the repository named ``name``."""
    containers = draft_containers(files, read)
    lines = [
        "# DRAFT written by `archmem init --starter-model` from this repository's manifests.",
        "# Review it: rename the elements, describe them, add people, external systems and",
        "# relationships, and remove what is not a container. Every element is tagged Draft.",
        f"workspace {_quote(name)} {_quote('Draft architecture of ' + name)} {{",
        "    !identifiers hierarchical",
        "",
        "    model {",
        f"        system = softwareSystem {_quote(name)} {_quote('Draft: what this repository builds')} {{",
        '            tags "Draft"',
    ]
    for container in containers:
        lines += [
            "",
            f"            {container.identifier} = container {_quote(container.name)} "
            f"{_quote('Draft: ' + container.why)} {_quote(container.technology)} {{",
            f"                tags {', '.join(_quote(t) for t in container.tags)}",
            "                properties {",
            f"                    \"archmem.paths\" {_quote(', '.join(container.paths))}",
            "                }",
            "            }",
        ]
    lines += [
        "        }",
        "    }",
        "",
        "    views {",
        '        container system "Containers" {',
        "            include *",
        "            autolayout lr",
        "        }",
        "    }",
        "}",
        "",
    ]
    return "\n".join(lines)


def _kept(folder: str, taken: set[str]) -> bool:
    parts = folder.split("/")
    return folder not in (".", "") and not any(
        part.lower() in TEST_FOLDERS or part.lower().startswith("test") or part.startswith(".") for part in parts
    ) and not any(folder == t or folder.startswith(t + "/") for t in taken)


def _outermost(folders: list[str], *, limit: int) -> list[str]:
    """Every unit folder; past ``limit`` only those no other unit holds."""
    ordered = sorted(set(folders))
    if len(ordered) <= limit:
        return ordered
    return [f for f in ordered if not any(f.startswith(o + "/") for o in ordered)][:limit]


def _technology(folder: str, files: Sequence[str], manifests: Manifests) -> str:
    counts: Counter[str] = Counter()
    for path in files:
        if path.startswith(folder + "/") and is_code(path):
            language = _LANGUAGES.get(path.rsplit(".", 1)[-1].lower())
            if language:
                counts[language] += 1
    found = [language for language, _ in counts.most_common(2)]
    for key, places in manifests.frameworks.items():
        if folder in places and key in _FRAMEWORK_NAMES:
            found.append(_FRAMEWORK_NAMES[key])
    return ", ".join(dict.fromkeys(found))


def _name(folder: str) -> str:
    """``src/order-service`` → ``Order Service``; ``cartservice`` stays one word."""
    base = posixpath.basename(folder)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", base)
    return " ".join(part.capitalize() if part.islower() else part for part in re.split(r"[-_.\s]+", spaced) if part)


def _identifier(folder: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9]+", "_", posixpath.basename(folder)).strip("_").lower() or "unit"
    if base[0].isdigit():
        base = f"c_{base}"
    candidate, n = base, 2
    while candidate in used or candidate == "system":
        candidate, n = f"{base}_{n}", n + 1
    return candidate


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
