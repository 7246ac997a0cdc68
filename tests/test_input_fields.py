"""Every text field a user sets is checked: secrets in any field, one-line fields
(task, author, agent, reason, note) without line breaks or control characters and
within their length (issue 17, items 6 to 8; archmem.memory.fields and secrets)."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.errors import InvalidInputError, SecretFoundError
from archmem.memory.fields import MAX_LINE_CHARS, clean_line
from archmem.memory.transfer import ImportFailed
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, FrozenClock, write

# assembled at run time, so this file holds nothing a secret scanner should flag
_RNG = random.Random(17)
AWS_KEY = "AKIA" + "".join(_RNG.choice(string.ascii_uppercase + string.digits) for _ in range(16))
GITHUB_TOKEN = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
ESCAPES = "\x1b]0;T\x07\x1b[2J"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/gateway/router.go": "x\n"})
    return root


@pytest.fixture
def ws(repo: Path):
    workspace = Workspace.open(repo, clock=FrozenClock(), env={})
    yield workspace
    workspace.close()


def am(repo: Path, *args: str):
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], catch_exceptions=False)


def stored_text(ws: Workspace) -> str:
    """Everything the store holds about memories and sessions, as one text."""
    memories = json.dumps([m.to_json() for m in ws.list_memories(status=None)])
    return memories + json.dumps(ws.store.audit_entries()) + repr(ws.store.session_ids())


# ---- secrets in every field (item 6) ------------------------------------------------


def test_a_key_as_author_is_refused_on_the_command_line(repo: Path):
    result = am(repo, "remember", "Headers over 8KB are dropped.", "--kind", "note", "--author", f"ci/{AWS_KEY}")
    assert result.exit_code == 8, result.output
    assert "the author looks like it holds a secret (AWS access key id" in result.output
    assert AWS_KEY not in result.output
    assert json.loads(am(repo, "list", "--status", "all", "--json").output) == []


@pytest.mark.parametrize("field", ["title", "author", "anchors"])
def test_remember_checks_title_author_and_anchors(ws: Workspace, field: str):
    value = [AWS_KEY] if field == "anchors" else AWS_KEY
    with pytest.raises(SecretFoundError) as caught:
        ws.remember("Headers over 8KB are dropped.", kind="note", **{field: value})
    assert caught.value.field == field.rstrip("s") and AWS_KEY not in str(caught.value)
    assert ws.list_memories(status=None) == []


def test_an_archive_reason_holding_a_token_is_refused(ws: Workspace, repo: Path):
    memory = ws.remember("Headers over 8KB are dropped.", kind="note", title="Header limits")
    result = am(repo, "archive", "Header limits", "--reason", f"rotated {GITHUB_TOKEN}")
    assert result.exit_code == 8 and "the reason looks like it holds a secret (GitHub token" in result.output
    assert ws.get_memory(memory.id).status == "active"
    assert GITHUB_TOKEN not in stored_text(ws)
    with pytest.raises(SecretFoundError):
        ws.purge(memory.id, f"leaked {GITHUB_TOKEN}")
    assert GITHUB_TOKEN not in stored_text(ws)


def test_a_session_task_or_agent_holding_a_key_is_refused(ws: Workspace, repo: Path):
    result = am(repo, "session", "start", f"deploy with {AWS_KEY}")
    assert result.exit_code == 8 and "the task looks like it holds a secret" in result.output
    with pytest.raises(SecretFoundError) as caught:
        ws.start_session("deploy the gateway", agent=AWS_KEY)
    assert caught.value.field == "agent"
    assert ws.store.session_ids() == []


def test_a_drift_accept_reason_is_checked(ws: Workspace):
    with pytest.raises(SecretFoundError) as caught:
        ws.accept_drift("gateway", f"token {GITHUB_TOKEN}")
    assert caught.value.field == "reason"


@pytest.mark.parametrize("field", ["title", "author", "status_reason", "content"])
def test_import_checks_title_author_status_reason_and_content(ws: Workspace, field: str):
    record = {"id": "m-1", "kind": "note", "content": "Headers over 8KB are dropped.", "created_at": "2026-01-01T00:00:00Z",
              "status": "archived", "status_reason": "replaced"}
    record[field] = f"key {AWS_KEY}"
    with pytest.raises(ImportFailed) as caught:
        ws.import_memories([json.dumps(record)], source="m.jsonl")
    assert f"the {field} looks like it holds a secret (AWS access key id at line 1, column 5)" in str(caught.value)
    assert AWS_KEY not in str(caught.value) and ws.list_memories(status=None) == []


# ---- one-line fields: no line breaks, no control characters, a length limit ------------


@pytest.mark.parametrize("text", ["checkout\n## Injected", "checkout\r\n# x", "a\u2028b", f"x{ESCAPES}", "a\x00b"])
def test_clean_line_refuses_line_breaks_and_controls_naming_the_column(text: str):
    with pytest.raises(InvalidInputError) as caught:
        clean_line(text, "task")
    message = str(caught.value)
    assert message.startswith("the task has") and "column" in message and "\x1b" not in message


def test_clean_line_trims_and_limits():
    assert clean_line("  fix the gateway  ", "task") == "fix the gateway"
    assert clean_line("   ", "author") is None and clean_line(None, "author") is None
    assert clean_line("x" * MAX_LINE_CHARS, "task") == "x" * MAX_LINE_CHARS
    with pytest.raises(InvalidInputError, match=f"the task is 2,001 characters long; the limit is {MAX_LINE_CHARS:,}"):
        clean_line("x" * (MAX_LINE_CHARS + 1), "task")


def test_a_brief_task_is_one_line_of_limited_length(ws: Workspace):
    with pytest.raises(InvalidInputError, match="line break"):
        ws.brief("checkout\n## Injected")
    with pytest.raises(InvalidInputError, match="1,000,000 characters long"):
        ws.brief("x" * 1_000_000)
    result = am(ws.root, "brief", "checkout\n## Injected")
    assert result.exit_code == 8 and "## Injected" not in result.output


def test_author_agent_and_reason_refuse_control_characters(ws: Workspace):
    with pytest.raises(InvalidInputError, match=r"the author has the control character U\+001B \(ESC\) at column 4"):
        ws.remember("Headers over 8KB are dropped.", kind="note", author=f"ci/{ESCAPES}")
    with pytest.raises(InvalidInputError, match="the agent has the control character"):
        ws.start_session("fix the gateway", agent=f"a{ESCAPES}")
    with pytest.raises(InvalidInputError, match="the task has a line break"):
        ws.start_session("fix\n## Injected")
    memory = ws.remember("Headers over 8KB are dropped.", kind="note")
    with pytest.raises(InvalidInputError, match="the reason has the control character"):
        ws.archive(memory.id, f"old{ESCAPES}")
    assert ws.list_memories(status=None)[0].author == "cli"  # no git user here: the client alone signs


def test_import_refuses_control_characters_in_id_and_author(ws: Workspace):
    base = {"kind": "note", "content": "Headers over 8KB are dropped.", "created_at": "2026-01-01T00:00:00Z"}
    lines = [json.dumps({**base, "id": f"m-{ESCAPES}"}), json.dumps({**base, "id": "m-2", "author": ESCAPES})]
    with pytest.raises(ImportFailed) as caught:
        ws.import_memories(lines, source="m.jsonl")
    assert [e["line"] for e in caught.value.report.errors] == [1, 2]
    assert "the id has the control character" in caught.value.report.errors[0]["message"]
    assert "the author has the control character" in caught.value.report.errors[1]["message"]


def test_import_keeps_a_multi_line_status_reason_an_older_store_wrote(ws: Workspace):
    line = json.dumps({"id": "m-1", "kind": "note", "content": "Headers over 8KB are dropped.", "status": "archived",
                       "status_reason": "replaced by the gateway v2\nsee the migration notes", "created_at": "2026-01-01T00:00:00Z"})
    assert ws.import_memories([line]).imported == ["m-1"]
