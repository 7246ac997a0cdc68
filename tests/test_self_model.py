"""archmem describes itself: its workspace.dsl must own every module of the package."""

from __future__ import annotations

from archmem.workspace import Workspace

from .conftest import REPO_ROOT


def test_every_package_module_is_owned_by_an_element():
    workspace = Workspace.open(REPO_ROOT, model=REPO_ROOT / "workspace.dsl", env={})
    ownership = workspace.ownership
    owned = {path for element in workspace.model.elements for path in ownership.files[element.id]}
    modules = sorted(p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "archmem").rglob("*.py"))
    assert modules, "no package modules found"
    missing = [m for m in modules if m not in owned]
    assert not missing, f"modules no element of workspace.dsl owns: {missing}"


def test_every_leaf_element_of_the_self_model_owns_code():
    workspace = Workspace.open(REPO_ROOT, model=REPO_ROOT / "workspace.dsl", env={})
    model = workspace.model
    leaves = [e for e in model.elements if e.kind != "person" and not model.children(e.id)]
    empty = [e.id for e in leaves if workspace.ownership.size(e.id).files == 0]
    assert not empty, f"elements whose paths match no file: {empty}"
