from __future__ import annotations

from archmem.model.ownership import compute_ownership, is_code
from archmem.model.types import ArchitectureModel, Element

FILES = {
    "services/api/main.go": 30,
    "services/api/auth/token.go": 20,
    "services/orders/app.py": 50,
    "scripts/tool.py": 7,
    "README.md": 12,
    "vendor/lib.lock": 100,
}


def model() -> ArchitectureModel:
    return ArchitectureModel(
        elements=[
            Element(id="shop", name="Shop", kind="softwareSystem"),
            Element(id="api", name="API", kind="container", parent="shop", paths=["services/api/**"]),
            Element(id="auth", name="Auth", kind="component", parent="api", paths=["services/api/auth/**"]),
            Element(id="orders", name="Orders", kind="container", parent="shop", paths=["services/orders"]),
            Element(id="user", name="User", kind="person"),
        ]
    )


def test_sizes_by_element_and_the_union_of_children():
    own = compute_ownership(model(), sorted(FILES), FILES.__getitem__)
    assert own.size("api").files == 2 and own.size("api").lines == 50
    assert own.size("auth").files == 1 and own.size("auth").lines == 20
    assert own.size("orders").lines == 50
    # a system without paths owns its children's code
    assert own.size("shop").files == 3 and own.size("shop").lines == 100
    assert own.size("user").files == 0


def test_unowned_lists_code_only():
    own = compute_ownership(model(), sorted(FILES), FILES.__getitem__)
    assert own.unowned == ["scripts/tool.py"]
    assert own.unowned_lines == 7


def test_ignore_globs_leave_files_out():
    own = compute_ownership(model(), sorted(FILES), FILES.__getitem__, ignore=["scripts/**", "**/auth/**"])
    assert own.unowned == []
    assert own.size("api").files == 1


def test_is_code():
    assert is_code("a/b.py") and is_code("x.GO") and not is_code("README.md") and not is_code("Makefile")


def test_is_code_reads_an_extension_as_a_path_suffix_does():
    import random
    from pathlib import PurePosixPath

    from archmem.model.ownership import CODE_EXTENSIONS

    rng = random.Random(7)
    parts = ["a", "src", ".hidden", "b.c", "x.", "PY", "py", "tar.gz", "go", "Ts", "é.rs"]  # as git lists them
    for _ in range(5000):
        path = "/".join(rng.choice(parts) + rng.choice(["", ".", ".py", ".Go", ".tsx", ".md", "..js"])
                        for _ in range(rng.randint(1, 4)))
        expected = PurePosixPath(path).suffix.lstrip(".").lower() in CODE_EXTENSIONS
        assert is_code(path) == expected, path


def test_a_committed_file_with_a_newline_in_its_name_is_owned(git_repo):
    """Issue 17, item 11: ``src/**`` owns ``src/a<newline>b.py`` (git lists it with -z)."""
    from archmem.workspace import Workspace

    model = (
        'workspace {\n model {\n  s = softwareSystem "S" {\n   properties {\n    "archmem.paths" "src/**"\n'
        "   }\n  }\n }\n}\n"
    )
    root = git_repo({"workspace.dsl": model, "src/a\nb.py": "1\n2\n"})
    with Workspace.open(root) as ws:
        assert ws.ownership.size("s").files == 1
        assert ws.ownership.unowned == []
