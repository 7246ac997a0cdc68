"""The C4 level of a LikeC4 element kind: LikeC4's kinds are free-form, archmem's are
``person``, ``softwareSystem``, ``container`` and ``component``.

The rule, first match wins:

1. the configured mapping (``[likec4] kinds = { actor = "person" }`` in archmem.toml);
2. the kind's name, when it is a C4 word or a well-known synonym (``actor`` → person,
   ``system`` → software system, ``service``/``database``/``app`` → container,
   ``module`` → component);
3. the kind's ``notation`` in the specification, when it names a C4 level (``notation
   "Person"``, ``"Software system"``, ``"Container"``, ``"Component"``);
4. ``shape person`` in the kind's style → person;
5. the words in the kind's name (``externalSystem`` → software system, ``mobileApp`` →
   container);
6. nesting: a top-level element is a software system, inside one a container, deeper a
   component.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from archmem.model.likec4.syntax import KindSpec

PERSON, SYSTEM, CONTAINER, COMPONENT = "person", "softwareSystem", "container", "component"
LEVELS = (PERSON, SYSTEM, CONTAINER, COMPONENT)
_ALIASES = {"person": PERSON, "softwaresystem": SYSTEM, "system": SYSTEM, "software_system": SYSTEM,
            "software system": SYSTEM, "container": CONTAINER, "component": COMPONENT}
_NAMES = {
    PERSON: ("person", "actor", "user", "customer", "human", "persona", "role", "people", "staff", "client"),
    SYSTEM: ("softwaresystem", "system", "externalsystem", "extsystem", "product", "platform", "saas"),
    CONTAINER: ("container", "app", "application", "service", "microservice", "webapp", "frontend", "backend",
                "api", "database", "db", "datastore", "storage", "store", "queue", "topic", "broker", "mobileapp",
                "spa", "lambda", "function", "worker", "job", "cache", "bucket", "gateway", "website", "ui"),
    COMPONENT: ("component", "module", "library", "lib", "package", "class", "controller", "repository"),
}
_BY_NAME = {name: level for level, names in _NAMES.items() for name in names}
_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (PERSON, ("person", "actor", "user", "customer", "persona")),
    (SYSTEM, ("system",)),
    (COMPONENT, ("component",)),
    (CONTAINER, ("container", "service", "app", "database", "queue", "db", "storage")),
)
_NOTATION: tuple[tuple[str, tuple[str, ...]], ...] = (
    (PERSON, ("person", "actor", "user")), (SYSTEM, ("system",)), (CONTAINER, ("container",)),
    (COMPONENT, ("component",)),
)


def normalize_level(text: str) -> str | None:
    """A configured level (``person``, ``softwareSystem``/``system``, …) or ``None``."""
    return _ALIASES.get(text.strip().lower())


def c4_level(
    kind: str,
    spec: KindSpec | None,
    parent_level: str | None,
    configured: Mapping[str, str] | None = None,
) -> str:
    """The C4 level of an element of ``kind`` whose parent is at ``parent_level`` (``None``
    at the top), by the rule in this module's docstring."""
    if configured and kind in configured:
        level = normalize_level(configured[kind])
        if level:
            return level
    squashed = re.sub(r"[^a-z0-9]", "", kind.lower())
    if squashed in _BY_NAME:
        return _BY_NAME[squashed]
    notation = (spec.notation if spec else "").lower()
    for level, words in _NOTATION:
        if any(word in notation for word in words):
            return level
    if spec is not None and spec.shape == "person":
        return PERSON
    for level, words in _WORDS:
        if any(word in squashed for word in words):
            return level
    if parent_level is None:
        return SYSTEM
    return CONTAINER if parent_level in (SYSTEM, PERSON) else COMPONENT
