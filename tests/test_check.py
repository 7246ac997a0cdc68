"""``archmem check``: every rule over real memory files, through the CLI and the pure function."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.memory.check import MemoryFileText, check_memory_files, github_annotations
from archmem.memory.file_format import file_name, render_memory
from archmem.memory.types import Memory
from archmem.model.types import ArchitectureModel

from .conftest import ADR, MODEL, git, write

FOLDER = ".archmem/memories"
WHEN = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
AWS_KEY = "AKIAQ3EGRT5PZL7WXKVN"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    return root


def memory(memory_id: str, content: str = "Headers over 8KB are dropped.", **fields: object) -> Memory:
    fields.setdefault("created_at", WHEN)
    return Memory(id=memory_id, kind=fields.pop("kind", "pitfall"), content=content, **fields)  # type: ignore[arg-type]


def put(root: Path, item: Memory, *, folder: str = FOLDER, name: str | None = None) -> str:
    """Write a memory's file as archmem writes it; returns its path from the root."""
    rel = f"{folder}/{name or file_name(item)}"
    write(root, {rel: render_memory(item)})
    return rel


def check(root: Path, *args: str):
    return CliRunner().invoke(cli, ["check", "--repo", str(root), *args], catch_exceptions=False)


def problems(root: Path) -> list[dict]:
    result = check(root, "--json")
    return json.loads(result.output)["problems"]


def rules(root: Path) -> list[tuple[str, str, int]]:
    return [(p["rule"], p["path"], p["line"]) for p in problems(root)]


# ---- clean, JSON shape, exit codes --------------------------------------------------


def test_a_clean_store_exits_0_and_links_resolve_to_titles_elements_and_decisions(repo: Path):
    put(repo, memory("m-1", title="Header limits", elements=["gateway"]))
    put(repo, memory("m-2", "See [[Header limits]], [[ApiGateway]], [[orders]] and [[ADR-17]].", kind="note"))
    result = check(repo)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "archmem check: 2 memory files, no problems"


def test_json_shape(repo: Path):
    put(repo, memory("m-1", "See [[Nowhere]].", title="Header limits"))
    result = check(repo, "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data == {
        "files": 1, "memories": 1, "accept_files": 0, "errors": 0, "warnings": 1, "exit_code": 1, "notes": [],
        "problems": [{
            "path": ".archmem/memories/header-limits.m-1.md", "line": 8, "column": 5, "severity": "warning",
            "rule": "dangling-link",
            "message": "[[Nowhere]] links to nothing: no active memory, element or decision has that name",
        }],
    }


def test_help_documents_the_exit_codes():
    result = CliRunner().invoke(cli, ["check", "--help"])
    assert "0  clean" in result.output and "1  warnings only" in result.output and "2  errors" in result.output


def test_check_reads_the_files_and_creates_no_index(repo: Path):
    put(repo, memory("m-1", title="Header limits"))
    assert check(repo).exit_code == 0
    assert not (repo / ".archmem" / "archmem.db").exists()


def test_without_a_model_elements_are_not_checked_and_a_note_says_so(tmp_path: Path):
    put(tmp_path, memory("m-1", elements=["whatever"]))
    result = check(tmp_path)
    assert result.exit_code == 0, result.output
    assert "note: no architecture model found: element names were not checked" in result.output


# ---- one file -----------------------------------------------------------------------


def test_yaml_errors_are_reported_at_their_line_and_column(repo: Path):
    write(repo, {f"{FOLDER}/broken.md": "---\nid: m-1\nkind: note\ntitle: [unclosed\ncreated: 2026-01-01\n---\n\nx\n"})
    result = check(repo)
    assert result.exit_code == 2
    assert result.output.startswith(".archmem/memories/broken.md:5:8: error: the front matter is not valid YAML")


def test_a_bad_field_is_a_schema_error_at_its_key(repo: Path):
    write(repo, {f"{FOLDER}/bad.md": "---\nid: m-1\nkind: gotcha\ncreated: 2026-01-01T00:00:00Z\n---\n\nx\n"})
    [found] = problems(repo)
    assert (found["rule"], found["line"], found["severity"]) == ("schema", 3, "error")
    assert "unknown kind 'gotcha'" in found["message"]


def test_unknown_keys_are_warnings_with_did_you_mean(repo: Path):
    text = render_memory(memory("m-1")).replace("kind: pitfall\n", "kind: pitfall\ntitel: Header limits\n")
    write(repo, {f"{FOLDER}/m.md": text})
    result = check(repo, "--json")
    assert result.exit_code == 1
    [found] = json.loads(result.output)["problems"]
    assert (found["rule"], found["line"], found["severity"]) == ("unknown-key", 4, "warning")
    assert "did you mean 'title'?" in found["message"]


def test_conflict_markers_are_errors_at_each_markers_line(repo: Path):
    lines = render_memory(memory("m-1", title="Header limits", confirmations=1)).split("\n")
    at = lines.index("confirmations: 1")
    merged = [*lines[:at], "<<<<<<< HEAD", "confirmations: 2", "=======", "confirmations: 3", ">>>>>>> theirs"]
    merged += lines[at + 1 :]
    write(repo, {f"{FOLDER}/m.md": "\n".join(merged)})
    assert rules(repo) == [("conflict-markers", f"{FOLDER}/m.md", at + 1)]
    assert check(repo).exit_code == 2


def test_an_aws_key_in_the_author_is_reported_at_its_line_and_column(repo: Path):
    rel = put(repo, memory("m-1", title="Header limits", author=f"ci/{AWS_KEY}"))
    [found] = problems(repo)
    assert found == {
        "path": rel, "line": 5, "column": len("author: ci/") + 1, "severity": "error", "rule": "secret",
        "message": "looks like a credential (AWS access key id); remove it, and rotate it if it was ever committed: "
                   "git history keeps it",
    }


@pytest.mark.parametrize("field", ["title", "content", "reason", "anchors", "elements"])
def test_secrets_are_found_in_every_text_field(repo: Path, field: str):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    values: dict[str, object] = {
        "title": {"title": f"Token {token}"}, "content": {"content": f"Use {token} for CI."},
        "reason": {"status": "archived", "status_reason": f"leaked {token}"},
        "anchors": {"anchors": [f"src/{token}.py"]}, "elements": {"elements": [token]},
    }[field]
    put(repo, memory("m-1", **values), name="m.md")
    found = [p for p in problems(repo) if p["rule"] == "secret"]
    assert len(found) == 1 and "GitHub token" in found[0]["message"]
    line = (repo / FOLDER / "m.md").read_text(encoding="utf-8").split("\n")[found[0]["line"] - 1]
    assert line[found[0]["column"] - 1 :].startswith("ghp_")


def test_not_utf8_and_oversized_files_are_unreadable_errors():
    report = check_memory_files([
        MemoryFileText("a.md", b"---\nid: m-1\n\xff\n"),
        MemoryFileText("b.md", b"x" * 300_000),
        MemoryFileText("c.md", None, read_error="Permission denied"),
    ], ArchitectureModel())
    assert [(f.path, f.line, f.rule) for f in report.findings] == [
        ("a.md", 3, "unreadable"), ("b.md", 1, "unreadable"), ("c.md", 1, "unreadable")
    ]
    assert "Permission denied" in report.findings[2].message and report.exit_code == 2


# ---- across files -------------------------------------------------------------------


def test_unknown_elements_have_did_you_mean_at_the_items_line(repo: Path):
    rel = put(repo, memory("m-1", elements=["gateway", "OrderProcesor"]))
    [found] = problems(repo)
    assert (found["rule"], found["path"], found["line"], found["column"]) == ("unknown-element", rel, 6, 5)
    assert found["message"].startswith("unknown element 'OrderProcesor'; did you mean 'OrderProcessor'")


def test_names_of_elements_are_accepted_and_superseded_memories_are_history(repo: Path):
    put(repo, memory("m-1", elements=["ApiGateway", "gone-element"], title="Old"))
    put(repo, memory("m-2", elements=["ApiGateway"], title="Old", supersedes="m-1"))
    assert problems(repo) == []


def test_duplicate_ids_across_the_shared_and_private_folders(repo: Path):
    shared = put(repo, memory("m-1", title="Header limits"))
    private = put(repo, memory("m-1", title="Header limits"), folder=".archmem/private")
    found = [p for p in problems(repo) if p["rule"] == "duplicate-id"]
    assert [(p["path"], p["line"]) for p in found] == [(shared, 2), (private, 2)]
    assert private in found[0]["message"] and shared in found[1]["message"]


def test_two_active_memories_with_one_title_clash(repo: Path):
    first = put(repo, memory("m-1", title="Header limits"))
    second = put(repo, memory("m-2", "Another text.", title="header  LIMITS"))
    assert rules(repo) == [("title-clash", first, 4), ("title-clash", second, 4)]
    assert check(repo).exit_code == 2


def test_a_link_to_a_clashing_title_is_ambiguous(repo: Path):
    put(repo, memory("m-1", title="Header limits"))
    put(repo, memory("m-2", "Another text.", title="Header limits"))
    linking = put(repo, memory("m-3", "Read [[Header limits]] first.", kind="note"))
    found = [p for p in problems(repo) if p["rule"] == "ambiguous-link"]
    assert [(p["path"], p["line"], p["column"], p["severity"]) for p in found] == [(linking, 7, 6, "warning")]


def test_a_dangling_link_names_the_current_version_of_a_superseded_title(repo: Path):
    put(repo, memory("m-1", title="Header limits"))
    put(repo, memory("m-2", "Since v2 it is 16KB.", title="Header limits v2", supersedes="m-1"))
    put(repo, memory("m-3", "Intro.\n\nRead [[Header limits]].", kind="note"))
    [found] = problems(repo)
    assert (found["rule"], found["line"], found["column"]) == ("dangling-link", 9, 6)
    assert found["message"].endswith(
        "'Header limits' was superseded by 'Header limits v2': link to [[Header limits v2]]"
    )


def test_a_dangling_link_suggests_close_names(repo: Path):
    put(repo, memory("m-1", title="Header limits"))
    put(repo, memory("m-2", "See [[Header limit]] and [[ApiGatewy]].", kind="note"))
    messages = [p["message"] for p in problems(repo)]
    assert any("did you mean 'Header limits'?" in m for m in messages)
    assert any("did you mean 'ApiGateway'" in m for m in messages)


def test_supersedes_naming_no_memory_is_a_warning(repo: Path):
    rel = put(repo, memory("m-2", supersedes="m-gone"))
    assert rules(repo) == [("missing-supersedes", rel, 5)]
    assert check(repo).exit_code == 1


def test_supersede_cycles_are_errors(repo: Path):
    a = put(repo, memory("m-a", supersedes="m-b", title="A"))
    b = put(repo, memory("m-b", "Other.", supersedes="m-a", title="B"))
    me = put(repo, memory("m-c", "Self.", supersedes="m-c"))
    found = [p for p in problems(repo) if p["rule"] == "supersede-cycle"]
    assert sorted(p["path"] for p in found) == sorted([a, b, me])
    assert any("'A' → 'B' → 'A'" in p["message"] or "'B' → 'A' → 'B'" in p["message"] for p in found)


def test_two_files_superseding_one_memory_are_a_fork_until_one_is_archived(repo: Path):
    put(repo, memory("m-1", title="Header limits"))
    b = put(repo, memory("m-b", "It is 16KB.", title="Header limits", supersedes="m-1",
                         created_at=WHEN + timedelta(days=1)))
    c = put(repo, memory("m-c", "It is 32KB.", title="Header limits", supersedes="m-1",
                         created_at=WHEN + timedelta(days=2)))
    found = problems(repo)
    assert [(p["rule"], p["path"]) for p in found] == [("fork", b), ("fork", c)]  # no title clash on top
    assert c in found[0]["message"] and b in found[1]["message"]
    assert f"set `supersedes: m-b` in {c}" in found[0]["message"] and "archmem archive m-c" in found[0]["message"]
    put(repo, memory("m-c", "It is 32KB.", title="Header limits", supersedes="m-1", status="archived",
                     status_reason="the fork", created_at=WHEN + timedelta(days=2)))
    assert problems(repo) == []


def test_two_branches_superseding_one_memory_merge_cleanly_and_check_reports_the_fork(tmp_path: Path):
    origin = tmp_path / "origin"
    write(origin, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    git(origin, "init", "-q")
    am = lambda root, *args: CliRunner().invoke(cli, [*args, "--repo", str(root)], catch_exceptions=False)  # noqa: E731
    assert am(origin, "init").exit_code == 0
    first = am(origin, "remember", "Headers over 8KB are dropped.", "-k", "pitfall", "-t", "Header limits")
    assert first.exit_code == 0, first.output
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "a memory")
    for branch, text in (("left", "Since v2 the limit is 16KB."), ("right", "The limit is configurable now.")):
        git(origin, "checkout", "-qb", branch, "main")
        result = am(origin, "remember", text, "-k", "pitfall", "-t", "Header limits", "--supersedes", "Header limits")
        assert result.exit_code == 0, result.output
        git(origin, "add", FOLDER)
        git(origin, "commit", "-qm", f"supersede on {branch}")
    git(origin, "checkout", "-q", "left")
    git(origin, "merge", "-q", "--no-edit", "right")  # different files: no text conflict
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    result = check(clone)
    assert result.exit_code == 2, result.output
    forks = [line for line in result.output.splitlines() if line.endswith("[fork]")]
    assert len(forks) == 2
    files = sorted(p.relative_to(clone).as_posix() for p in (clone / FOLDER).glob("*.md"))
    successors = [f for f in files if "supersedes:" in (clone / f).read_text(encoding="utf-8")]
    assert len(successors) == 2 and all(s in forks[0] for s in successors)
    assert not (clone / ".archmem" / "archmem.db").exists()


# ---- GitHub format ------------------------------------------------------------------


def test_github_format_is_exact_and_escaped(repo: Path):
    put(repo, memory("m-1", "See [[100% Nowhere]]", title="Header limits"), name="a,b:c.md")
    put(repo, memory("m-2", title="Payload sizes", author=f"ci/{AWS_KEY}"), name="b.md")
    result = check(repo, "--format", "github")
    assert result.exit_code == 2
    assert result.output.split("\n") == [
        "::warning file=.archmem/memories/a%2Cb%3Ac.md,line=8,col=5::"
        "[[100%25 Nowhere]] links to nothing: no active memory, element or decision has that name",
        "::error file=.archmem/memories/b.md,line=5,col=12::looks like a credential (AWS access key id); "
        "remove it, and rotate it if it was ever committed: git history keeps it",
        "archmem check: 2 memory files, 1 error, 1 warning",
        "",
    ]


def test_annotations_escape_percent_and_line_breaks():
    from archmem.memory.check import Finding

    [line] = github_annotations([Finding("x.md", 2, 3, "warning", "schema", "100%\r\nsure")])
    assert line == "::warning file=x.md,line=2,col=3::100%25%0D%0Asure"


def test_positions_hold_in_files_with_crlf_line_ends_and_a_bom(repo: Path):
    text = render_memory(memory("m-1", "First line.\n\nSee [[Nowhere]].", elements=["gatewy"]))
    (repo / FOLDER).mkdir(parents=True)
    (repo / FOLDER / "m.md").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    assert [(p["rule"], p["line"], p["column"]) for p in problems(repo)] == [
        ("unknown-element", 5, 5), ("dangling-link", 11, 5)
    ]


def test_fuzzy_suggestions_for_dangling_links_stay_within_a_budget_of_comparisons(monkeypatch):
    """Each dangling target is compared with every title: past a budget of comparisons
    the rest get no "did you mean", so a large store full of dangling links is checked in
    linear time (counted in calls, not timed)."""
    from archmem.memory import check as check_module

    calls = 0
    real = check_module.closest

    def counted(name, choices, n=3):
        nonlocal calls
        calls += 1
        return real(name, choices, n)

    monkeypatch.setattr(check_module, "closest", counted)
    monkeypatch.setattr(check_module._Suggestions, "COMPARISONS", 1_000, raising=False)  # 10 targets of 100 titles
    files = [MemoryFileText(f"{FOLDER}/t{i}.md", render_memory(memory(f"m-t{i:03d}", f"Fact {i}.", title=f"Fact {i}")).encode())
             for i in range(100)]
    files += [MemoryFileText(f"{FOLDER}/d{i}.md", render_memory(memory(f"m-d{i:03d}", f"See [[Nothing {i}]].")).encode())
              for i in range(50)]
    report = check_memory_files(files, ArchitectureModel())
    assert sum(f.rule == "dangling-link" for f in report.findings) == 50
    assert 0 < calls <= 1_000 // 100
