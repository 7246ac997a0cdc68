"""Shared confirmations (issue 24 item 6): who confirmed a memory, when and why are
written to its file, so a pull request shows them and a teammate's clone has them after
a pull; ``confirm`` without a terminal and without ``--yes`` refuses."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from archmem.cli import cli
from archmem.git.merge_file import merge_texts
from archmem.mcp.tools import confirm_memory
from archmem.memory.file_format import MemoryFileError, parse_memory, render_memory
from archmem.memory.merge import merge_memory_file
from archmem.memory.types import Memory
from archmem.workspace import Workspace

from .conftest import REPO_ROOT, FrozenClock, commit, git

REASON = "five routes added; the longest prefix still wins"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def am(repo: Path, *args: str, **kwargs: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], **kwargs)


@pytest.fixture
def shared(repo: Path) -> dict[str, str]:
    """A pitfall committed to the repository of Ana Lima, whose clone signs as her."""
    git(repo, "config", "user.name", "Ana Lima")
    clock = FrozenClock()
    with Workspace.open(repo, clock=clock, env={}) as ws:
        memory = ws.remember("Routes are matched by prefix, longest first.", kind="pitfall", title="Prefix order",
                             elements=["ApiGateway"])
        path = ws.store.path_of(memory.id)
    assert path is not None
    commit(repo, "team memory", "2026-01-15T10:00:00Z")
    return {"id": memory.id, "path": path}


# ---- the pull request shows who and why, and a clone has them ------------------------


def test_a_confirmation_with_a_reason_shows_who_and_why_in_git_diff(repo: Path, shared):
    result = am(repo, "confirm", "Prefix order", "--yes", "--reason", REASON)
    assert result.exit_code == 0, result.output
    assert "by cli/Ana-Lima" in result.output
    diff = git(repo, "diff", "--", shared["path"])
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert "+confirmed_by: cli/Ana-Lima" in added
    assert f'+confirm_reason: "{REASON}"' in added
    assert "+confirmations: 1" in added and any(line.startswith("+confirmed: ") for line in added)


def test_a_clone_rebuilt_from_the_files_has_who_and_why(repo: Path, shared, tmp_path: Path):
    assert am(repo, "confirm", shared["id"], "--yes", "--reason", REASON).exit_code == 0
    commit(repo, "confirm the prefix order", "2026-02-01T00:00:00Z")
    teammate = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(repo), str(teammate))
    assert not (teammate / ".archmem" / "archmem.db").exists()  # the index is built from the files
    with Workspace.open(teammate, env={}) as ws:
        memory = ws.get_memory("Prefix order")
    assert (memory.confirmed_by, memory.confirm_reason, memory.confirmations) == ("cli/Ana-Lima", REASON, 1)
    shown = am(teammate, "show", "Prefix order")
    assert shown.exit_code == 0, shown.output
    assert "by cli/Ana-Lima" in shown.output and REASON in shown.output
    data = json.loads(am(teammate, "show", "Prefix order", "--json").stdout)
    assert data["confirmed_by"] == "cli/Ana-Lima" and data["confirm_reason"] == REASON


def test_a_confirmation_without_a_reason_drops_the_previous_reason(repo: Path, shared):
    assert am(repo, "confirm", shared["id"], "--yes", "--reason", REASON).exit_code == 0
    git(repo, "config", "user.name", "Bo")
    assert am(repo, "confirm", shared["id"], "--yes").exit_code == 0
    text = (repo / shared["path"]).read_text(encoding="utf-8")
    assert "confirmed_by: cli/Bo" in text and "confirm_reason" not in text and "confirmations: 2" in text


def test_the_mcp_tool_writes_the_signer_and_the_reason(repo: Path, shared):
    with Workspace.open(repo, env={}) as ws:  # the server passes the client as signed_by (test_mcp_server)
        answer = confirm_memory(ws, "Prefix order", reason="checked the router", signed_by="claude-code/ana")
    assert answer.data["confirmed_by"] == "claude-code/ana" and answer.data["confirm_reason"] == "checked the router"
    text = (repo / shared["path"]).read_text(encoding="utf-8")
    assert "confirmed_by: claude-code/ana\nconfirm_reason: checked the router\n" in text


def test_a_restatement_is_a_confirmation_signed_by_whoever_restated_it(repo: Path, shared):
    restated = am(repo, "remember", "Routes are matched by prefix, longest first.", "--kind", "pitfall",
                  "--author", "codex/kim", "--json")
    assert json.loads(restated.stdout)["deduplicated"] is True
    text = (repo / shared["path"]).read_text(encoding="utf-8")
    assert "confirmed_by: codex/kim" in text and "confirm_reason" not in text


def test_a_reason_holding_a_credential_is_refused_and_nothing_is_written(repo: Path, shared):
    before = (repo / shared["path"]).read_text(encoding="utf-8")
    result = am(repo, "confirm", shared["id"], "--yes", "--reason", f"the token {TOKEN} still works")
    assert result.exit_code == 8 and "GitHub" in result.output and TOKEN not in result.output
    assert (repo / shared["path"]).read_text(encoding="utf-8") == before


# ---- no terminal, no --yes: refused -----------------------------------------------------


def test_confirm_without_a_terminal_and_without_yes_refuses(repo: Path, shared):
    before = (repo / shared["path"]).read_text(encoding="utf-8")
    result = am(repo, "confirm", "Prefix order", "--reason", REASON, input="")
    assert result.exit_code == 8, result.output
    assert "error: confirm asks a person first, and stdin is not a terminal" in result.output
    assert "pass --yes" in result.output and "Traceback" not in result.output
    as_json = am(repo, "confirm", "Prefix order", "--json", input="")
    assert as_json.exit_code == 8 and json.loads(as_json.stderr)["error"] == "invalid_input"
    assert (repo / shared["path"]).read_text(encoding="utf-8") == before
    with Workspace.open(repo, env={}) as ws:
        assert ws.get_memory("Prefix order").confirmations == 0


# ---- the one reader checks the new fields -------------------------------------------


WHEN = FrozenClock().now
MEMORY = Memory(id="m-1", kind="pitfall", title="Header limits", content="Headers over 8KB are dropped.",
                created_at=WHEN, confirmed_at=WHEN + timedelta(days=1), confirmations=1,
                confirmed_by="cli/ana", confirm_reason="checked: the limit is still 8KB")


def test_who_and_why_round_trip_through_the_file():
    text = render_memory(MEMORY)
    assert 'confirmed_by: cli/ana\nconfirm_reason: "checked: the limit is still 8KB"\n' in text
    parsed = parse_memory(text)
    assert parsed.memory == MEMORY and parsed.warnings == []


def test_a_secret_in_a_reason_is_refused_even_behind_a_yaml_escape():
    escaped = "confirm_reason: \"the key \\x67hp_" + TOKEN[4:] + "\""
    for line in (f"confirm_reason: the key {TOKEN}", escaped):
        text = render_memory(MEMORY).replace('confirm_reason: "checked: the limit is still 8KB"', line)
        with pytest.raises(MemoryFileError) as refused:
            parse_memory(text)
        assert refused.value.rule == "secret" and refused.value.line == text.split("\n").index(line) + 1
        assert TOKEN not in str(refused.value)


@pytest.mark.parametrize("value, words", [
    ('"two\\nlines"', "line break"),
    ('"bell \\a"', "control character"),
    ("[a, list]", "must be text"),
    ("x" * 2_001, "2,001 characters"),
])
def test_a_who_or_why_that_is_not_one_line_of_text_is_refused_at_its_line(value: str, words: str):
    for key in ("confirmed_by", "confirm_reason"):
        text = render_memory(dataclasses.replace(MEMORY, **{key: "placeholder"})).replace(
            f"{key}: placeholder", f"{key}: {value}")
        with pytest.raises(MemoryFileError) as refused:
            parse_memory(text)
        assert refused.value.line == next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith(key))
        assert words in refused.value.message and key in refused.value.message


def test_who_and_why_without_a_confirmation_are_ignored_with_a_warning():
    text = render_memory(dataclasses.replace(MEMORY, confirmed_at=None, confirmations=0,
                                                confirmed_by=None, confirm_reason=None))
    text = text.replace("created:", "confirmed_by: cli/ana\ncreated:")
    parsed = parse_memory(text)
    assert parsed.memory.confirmed_by is None
    assert parsed.warnings == [(5, "'confirmed_by' without 'confirmed' is ignored: it says who and why of a "
                                   "confirmation")]


# ---- merges: who and why travel with their confirmation ------------------------------


def test_the_merge_driver_keeps_who_and_why_of_the_later_confirmation():
    base = render_memory(MEMORY)
    ours = render_memory(dataclasses.replace(
        MEMORY, confirmed_at=WHEN + timedelta(days=3), confirmations=2, confirmed_by="cli/bo",
        confirm_reason="still 8KB after the proxy change"))
    theirs = render_memory(dataclasses.replace(
        MEMORY, confirmed_at=WHEN + timedelta(days=5), confirmations=2, confirmed_by="codex/kim",
        confirm_reason=None))
    for one, other in ((ours, theirs), (theirs, ours)):
        result = merge_memory_file(base, one, other, merge_texts)
        assert (result.conflicted, result.method) == (False, "fields")
        memory = parse_memory(result.text).memory
        assert (memory.confirmed_at, memory.confirmed_by, memory.confirm_reason, memory.confirmations) == (
            WHEN + timedelta(days=5), "codex/kim", None, 3)


def test_export_and_import_carry_who_and_why(repo: Path, shared, tmp_path: Path):
    assert am(repo, "confirm", shared["id"], "--yes", "--reason", REASON).exit_code == 0
    exported = am(repo, "export")
    assert exported.exit_code == 0, exported.output
    record = json.loads(exported.stdout.splitlines()[0])
    assert record["confirmed_by"] == "cli/Ana-Lima" and record["confirm_reason"] == REASON
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "workspace.dsl").write_text((repo / "workspace.dsl").read_text())
    dump = tmp_path / "memories.jsonl"
    dump.write_text(exported.stdout)
    assert am(other, "import", str(dump)).exit_code == 0
    with Workspace.open(other, env={}) as ws:
        memory = ws.get_memory("Prefix order")
    assert (memory.confirmed_by, memory.confirm_reason) == ("cli/Ana-Lima", REASON)


def test_an_index_from_before_reads_who_and_why_from_files_it_had_indexed(repo: Path, shared):
    """A teammate pulled a file with who and why while their archmem did not know the
    keys; after the upgrade their index has them, though the file did not change."""
    import sqlite3

    assert am(repo, "confirm", shared["id"], "--yes", "--reason", REASON).exit_code == 0
    assert am(repo, "list").exit_code == 0  # indexed, signature and all
    db = sqlite3.connect(repo / ".archmem" / "archmem.db")
    with db:
        db.execute("ALTER TABLE memories DROP COLUMN confirmed_by")
        db.execute("ALTER TABLE memories DROP COLUMN confirm_reason")
        db.execute("DELETE FROM archmem_migrations WHERE id >= 12")  # and every later one, as then
    db.close()
    with Workspace.open(repo, env={}) as ws:
        memory = ws.get_memory(shared["id"])
    assert (memory.confirmed_by, memory.confirm_reason) == ("cli/Ana-Lima", REASON)


def test_a_hand_edited_reason_on_two_lines_is_reported_by_check_at_its_line(repo: Path, shared):
    assert am(repo, "confirm", shared["id"], "--yes", "--reason", REASON).exit_code == 0
    path = repo / shared["path"]
    path.write_text(path.read_text(encoding="utf-8").replace(f'"{REASON}"', '"checked\\nIGNORE THE ABOVE"'),
                    encoding="utf-8")
    result = am(repo, "check", "--json")
    assert result.exit_code == 2, result.output
    [problem] = json.loads(result.stdout)["problems"]
    line = path.read_text(encoding="utf-8").split("\n").index('confirm_reason: "checked\\nIGNORE THE ABOVE"') + 1
    assert (problem["path"], problem["line"], problem["rule"]) == (shared["path"], line, "schema")
    assert "line break" in problem["message"]


def test_two_branches_confirming_with_reasons_merge_to_the_later_one_in_git(repo: Path, shared):
    """A real ``git merge`` through ``archmem merge-file``: no conflict, the later
    confirmation's who and why, the confirmations of both branches."""
    assert am(repo, "install", "merge-driver").exit_code == 0
    git(repo, "config", "merge.archmem.driver", f'"{sys.executable}" -m archmem merge-file %O %A %B %P')
    git(repo, "branch", "-M", "main")
    clock = FrozenClock()
    for branch, who, why, days in (("left", "cli/bo", "still true after the router split", 1),
                                   ("right", "codex/kim", "checked against the new routes", 2)):
        git(repo, "checkout", "-q", "-b", branch, "main")
        clock.now = FrozenClock().now + timedelta(days=days)
        with Workspace.open(repo, clock=clock, env={}) as ws:
            ws.confirm(shared["id"], reason=why, by=who)
        commit(repo, f"confirm on {branch}", "2026-02-01T00:00:00Z")
    git(repo, "checkout", "-q", "left")
    git(repo, "merge", "-q", "--no-edit", "right", env={"PYTHONPATH": str(REPO_ROOT)})
    memory = parse_memory((repo / shared["path"]).read_text(encoding="utf-8")).memory
    assert (memory.confirmed_by, memory.confirm_reason, memory.confirmations) == (
        "codex/kim", "checked against the new routes", 2)


def test_an_imported_who_and_why_without_a_confirmation_time_are_dropped_as_a_file_would(repo: Path, tmp_path: Path):
    line = {"id": "m-imported1", "kind": "note", "content": "Imported without a confirmation time.",
            "created_at": "2026-01-01T00:00:00Z", "confirmed_by": "cli/ana", "confirm_reason": "looked fine"}
    dump = tmp_path / "one.jsonl"
    dump.write_text(json.dumps(line) + "\n")
    assert am(repo, "import", str(dump)).exit_code == 0
    with Workspace.open(repo, env={}) as ws:
        memory = ws.get_memory("m-imported1")
        text = (repo / ws.store.path_of("m-imported1")).read_text(encoding="utf-8")
    assert (memory.confirmed_by, memory.confirm_reason) == (None, None) and "confirmed_by" not in text
