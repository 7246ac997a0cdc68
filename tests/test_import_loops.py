"""No two modules of the memory domain or the store import each other, at module level or
inside a function (only imports for type checking are left out): a loop means neither
can be read, tested or replaced without the other."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "archmem"
CHECKED = ("archmem.memory", "archmem.store")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path) -> set[str]:
    """The archmem modules a file imports when it runs (``if TYPE_CHECKING:`` blocks left out)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("archmem"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("archmem"))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def mutual_imports(prefixes: tuple[str, ...]) -> list[tuple[str, str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: imports_of(path) & set(modules) - {name}
             for name, path in modules.items() if name.startswith(prefixes)}
    return sorted((a, b) for a, targets in graph.items() for b in targets if a < b and a in graph.get(b, set()))


def test_no_two_modules_of_the_memory_domain_or_the_store_import_each_other():
    assert mutual_imports(CHECKED) == []


def test_the_check_finds_a_loop(tmp_path: Path, monkeypatch):
    package = tmp_path / "archmem"
    (package / "memory").mkdir(parents=True)
    (package / "memory" / "a.py").write_text("from archmem.memory import b\n", encoding="utf-8")
    (package / "memory" / "b.py").write_text("def f():\n    from archmem.memory.a import g\n", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", package)
    assert mutual_imports(("archmem.memory",)) == [("archmem.memory.a", "archmem.memory.b")]
