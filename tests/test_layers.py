"""Imports point down: interfaces → Workspace → domain → adapters (docs/architecture.md, "The layers").

Value types (``*.types``), errors, the clock, config and small text helpers are the
foundation every layer may use. A module importing from a layer above its own fails
here with the import named, so a shortcut is seen when it is written.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "archmem"
FOUNDATION = {"archmem", "archmem.errors", "archmem.escape", "archmem.json_input",
              "archmem.confinement",
              "archmem.clock", "archmem.config", "archmem.config_schema", "archmem.config_template",
              "archmem.words", "archmem.patterns", "archmem.values", "archmem.yaml_text", "archmem.atomic_write"}
LAYERS = [  # lowest first
    ("adapters", ("archmem.store", "archmem.embeddings", "archmem.embeddings_local",
                  "archmem.testing", "archmem.folder_watch",
                  "archmem.git", "archmem.ci.transport", "archmem.ci.github_api", "archmem.ci.gitlab_api",
                  "archmem.agents")),
    ("domain", ("archmem.model", "archmem.memory", "archmem.recall", "archmem.drift", "archmem.conformance",
                "archmem.render", "archmem.review", "archmem.onboarding")),
    ("workspace", ("archmem.workspace", "archmem.demo", "archmem.status", "archmem.initialize")),
    ("interfaces", ("archmem.cli", "archmem.mcp", "archmem.ci", "archmem.reporting", "archmem.__main__", "archmem.entry",
                    "archmem.command_client", "archmem.command_server")),
]


def layer_of(module: str) -> int:
    """-1 for the foundation, else the index in LAYERS."""
    if module in FOUNDATION or module.endswith(".types"):
        return -1
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") or (p.endswith("_") and module.startswith(p))
               for p in prefixes):
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to tests/test_layers.py")


def layer_name(rank: int) -> str:
    return LAYERS[rank][0] if rank >= 0 else "foundation"


def upward_imports(package: Path) -> list[str]:
    """``file:line: module (layer) imports module (layer)`` for every import pointing up."""
    root = package.parent

    def is_module(name: str) -> bool:
        return (package / f"{name}.py").exists() or (package / name / "__init__.py").exists()

    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        own = layer_of(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "archmem":
                if node.module == "archmem":  # a submodule, or a name of the package itself
                    imported = [f"archmem.{a.name}" if is_module(a.name) else "archmem" for a in node.names]
                else:
                    imported = [node.module]
            elif isinstance(node, ast.Import):
                imported = [a.name for a in node.names if a.name.split(".")[0] == "archmem"]
            for name in imported:
                if layer_of(name) > own:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {module} ({layer_name(own)}) "
                                 f"imports {name} ({layer_name(layer_of(name))})")
    return found


def test_every_module_has_a_layer_and_imports_only_downwards():
    upward = upward_imports(PACKAGE)
    assert not upward, "imports that point up:\n" + "\n".join(upward)


def test_the_check_names_an_upward_import(tmp_path: Path):
    package = tmp_path / "archmem"
    (package / "store").mkdir(parents=True)
    (package / "__init__.py").write_text("__version__ = '0'\n", encoding="utf-8")
    (package / "workspace.py").write_text("from archmem import __version__\n", encoding="utf-8")
    (package / "store" / "__init__.py").write_text("", encoding="utf-8")
    (package / "store" / "sqlite.py").write_text(
        "from archmem.errors import StoreError\n\n\ndef f():\n    from archmem.workspace import Workspace\n",
        encoding="utf-8",
    )
    assert upward_imports(package) == [
        "archmem/store/sqlite.py:5: archmem.store.sqlite (adapters) imports archmem.workspace (workspace)"
    ]


def test_the_git_adapter_imports_nothing_but_itself_and_the_errors():
    """Drift, review and recall ask git; git answers with its own values
    (``archmem.git.types``) and knows none of theirs, so history and drift never import
    each other, not even through a value type. (Its values take their equality and
    printing from ``archmem.values``, as every dataclass does: no type of anyone else's.)"""
    from .test_import_cycles import import_graph

    graph = import_graph(PACKAGE, module_level=False)
    reaching = {module: sorted(t for t in targets if not t.startswith("archmem.git") and t not in ("archmem.errors", "archmem.values"))
                for module, targets in graph.items() if module == "archmem.git" or module.startswith("archmem.git.")}
    assert not any(reaching.values()), {m: t for m, t in reaching.items() if t}
