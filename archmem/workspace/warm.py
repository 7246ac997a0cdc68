"""What a process that runs many commands works out once, before it forks their workers.

Each piece depends on nothing a command brings (no repository, setting or memory): the
lazy patterns compiled, the settings' resolved types, the thesaurus archmem ships. A
command run in its own process does the same work when it first needs each piece.
"""

from __future__ import annotations


def warm() -> None:
    from archmem import patterns
    from archmem.config import Config
    from archmem.config_schema import fields_of, is_section
    from archmem.recall.synonyms import shipped_groups

    patterns.compile_all()
    for spec in fields_of(Config):
        if is_section(spec.annotation):
            fields_of(spec.annotation)
    shipped_groups()
