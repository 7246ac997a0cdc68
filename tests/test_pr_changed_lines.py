"""``archmem pr --format github`` annotates the lines a change touches (issue 26, item 8):
the new-side ranges of the diff's hunks, read from a real repository, not line 1."""

from __future__ import annotations

from pathlib import Path

from archmem.git.revisions import Revisions

from .conftest import commit, git, lines
from .test_pr import ROUTER, am, remember


def edit(path: Path, changes: dict[int, str | None], insert: dict[int, str] | None = None) -> None:
    """Replace (or with None, delete) the 1-based lines of ``path``; insert lines before others."""
    old = path.read_text().splitlines()
    out: list[str] = []
    for number, text in enumerate(old, start=1):
        out.extend((insert or {}).get(number, "").splitlines())
        replacement = changes.get(number, text)
        if replacement is not None:
            out.append(replacement)
    path.write_text("".join(f"{line}\n" for line in out))


def test_changed_lines_are_the_new_side_of_each_hunk(repo: Path):
    base = git(repo, "rev-parse", "HEAD").strip()
    odd = "services/orders/tab\tand \"quote\" é.py"
    (repo / odd).write_text(lines(10))
    commit(repo, "an odd name", "2026-01-02T00:00:00Z")
    middle = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / ROUTER, {20: "changed 20", 21: "changed 21", 30: None}, insert={35: "new a\nnew b"})
    edit(repo / odd, {4: "four"})
    git(repo, "mv", "services/orders/app.py", "services/orders/main.py")
    edit(repo / "services/orders/main.py", {2: "two"})
    (repo / "legacy/old.py").unlink()
    commit(repo, "edits", "2026-01-03T00:00:00Z")
    head = git(repo, "rev-parse", "HEAD").strip()
    found = Revisions(repo).changed_lines(middle, head)
    assert found[ROUTER] == [(20, 21), (29, 29), (34, 35)]  # a deletion marks the line before it
    assert found[odd] == [(4, 4)]
    assert found["services/orders/main.py"] == [(2, 2)]  # a rename keeps its new name
    assert "legacy/old.py" not in found  # nothing left to annotate
    assert Revisions(repo).changed_lines(base, middle)[odd] == [(1, 10)]


def test_the_element_annotation_marks_the_first_changed_lines_of_its_file(repo: Path):
    remember(repo, "2026-01-10T09:00:00+00:00", content="Routes are matched by prefix, longest first.",
             kind="pitfall", title="Prefix order", elements=["ApiGateway"])
    commit(repo, "team memory", "2026-01-10T12:00:00Z")
    git(repo, "checkout", "-q", "-b", "small")
    edit(repo / ROUTER, {20: "route 20", 21: "route 21", 22: "route 22"})
    commit(repo, "a small router change", "2026-01-11T12:00:00Z")
    result = am(repo, "pr", "--base", "main", "--format", "github")
    assert result.exit_code == 0, result.output
    [annotation] = [line for line in result.stdout.splitlines() if line.startswith(f"::warning file={ROUTER}")]
    assert annotation.startswith(f"::warning file={ROUTER},line=20,endLine=22,title=archmem%3A ApiGateway::")


def test_many_paths_are_filtered_after_one_whole_diff(repo: Path, monkeypatch):
    import archmem.git.revisions as revisions

    base = git(repo, "rev-parse", "HEAD").strip()
    edit(repo / ROUTER, {5: "five"})
    edit(repo / "services/orders/app.py", {7: "seven"})
    commit(repo, "two edits", "2026-01-02T00:00:00Z")
    head = git(repo, "rev-parse", "HEAD").strip()
    asked = Revisions(repo).changed_lines(base, head, [ROUTER])
    monkeypatch.setattr(revisions, "_MAX_PATHSPECS", 0)  # past the limit: no pathspecs on git's command line
    assert Revisions(repo).changed_lines(base, head, [ROUTER]) == asked == {ROUTER: [(5, 5)]}
