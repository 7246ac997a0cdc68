"""The memory commands through CliRunner against a real store in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli

from .conftest import ADR, MODEL, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/gateway/router.go": "x\n"})
    return root


def am(repo: Path, *args: str, input: str | None = None):
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], input=input, catch_exceptions=False)


def test_remember_list_confirm_history_as_json(repo: Path):
    first = am(repo, "remember", "Headers over 8KB are dropped.", "--kind", "pitfall", "--title", "Header limits",
               "--element", "ApiGateway", "--author", "claude-code/sarah", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    assert set(data) >= {"id", "title", "deduplicated", "similar_to", "links", "pending_links", "warnings"}
    again = json.loads(am(repo, "remember", "headers over 8KB are dropped", "--kind", "pitfall", "--json").output)
    assert again["deduplicated"] is True and again["id"] == data["id"]
    listed = json.loads(am(repo, "list", "--element", "gateway", "--json").output)
    assert [m["id"] for m in listed] == [data["id"]] and listed[0]["confirmations"] == 1
    newer = json.loads(am(repo, "remember", "Since v2 the limit is 16KB.", "--kind", "pitfall",
                          "--title", "Header limits", "--supersedes", "Header limits", "--json").output)
    chain = json.loads(am(repo, "history", "Header limits", "--json").output)
    assert [m["id"] for m in chain] == [data["id"], newer["id"]]
    confirmed = json.loads(am(repo, "confirm", "header limits", "--yes", "--json").output)
    assert confirmed["id"] == newer["id"] and confirmed["confirmations"] == 1


def test_remember_text_output_and_stdin(repo: Path):
    result = am(repo, "remember", "-", "--kind", "note", "--title", "From stdin",
                input="Routing is in `services/gateway/router.go`; see [[Later topic]].\n")
    assert result.exit_code == 0, result.output
    assert "remembered 'From stdin'" in result.output
    assert "anchor services/gateway/router.go" in result.output
    assert "pending link [[Later topic]]" in result.output


def test_user_mistakes_exit_with_their_codes_and_no_traceback(repo: Path):
    unknown = am(repo, "remember", "x is slow", "--kind", "note", "--element", "gatway")
    assert unknown.exit_code == 5 and "did you mean" in unknown.output and "Traceback" not in unknown.output
    bad_kind = am(repo, "remember", "x", "--kind", "gotcha")
    assert bad_kind.exit_code == 8 and "pitfall" in bad_kind.output
    secret = am(repo, "remember", "use ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "--kind", "note")
    assert secret.exit_code == 8 and "GitHub" in secret.output
    am(repo, "remember", "Tokens last 15 minutes.", "--kind", "note", "--title", "Tokens")
    clash = am(repo, "remember", "Something else entirely about caches.", "--kind", "note", "--title", "tokens")
    assert clash.exit_code == 9 and "--supersedes" in clash.output
    as_json = am(repo, "confirm", "no such memory", "--json")
    assert as_json.exit_code == 5 and json.loads(as_json.stderr)["error"] == "unknown_name"


def test_sessions_review_archive_purge(repo: Path):
    m = json.loads(am(repo, "remember", "Retry with the same key.", "--kind", "convention", "--title", "Retries", "--json").output)
    started = am(repo, "session", "start", "fix double charges", "--element", "orders", "--agent", "codex/kim")
    session_id = started.output.strip()
    assert session_id.startswith("s-")
    ended = json.loads(am(repo, "session", "end", session_id, "--used", "Retries", "--used", "nope",
                          "--outcome", "Fixed the retry loop.", "--json").output)
    assert ended["cited"] == [m["id"]] and ended["unknown"] == ["nope"] and ended["outcome_id"]
    review = am(repo, "review")
    assert review.exit_code == 0 and "Nothing to review." in review.output
    archived = am(repo, "archive", "Retries", "--reason", "obsolete")
    assert archived.exit_code == 0 and "archived" in archived.output
    assert "Retries" not in am(repo, "list").output
    assert "archived" in am(repo, "list", "--status", "all").output
    purged = am(repo, "purge", m["id"], "--reason", "privacy", "--yes")
    assert purged.exit_code == 0 and m["id"] not in am(repo, "list", "--status", "all").output


def test_export_import_through_files(repo: Path, tmp_path: Path):
    am(repo, "remember", "Headers over 8KB are dropped.", "--kind", "pitfall", "--element", "gateway")
    am(repo, "remember", "Payments are idempotent.", "--kind", "convention")
    out = tmp_path / "memories.jsonl"
    assert am(repo, "export", str(out)).exit_code == 0
    other = tmp_path / "other"
    write(other, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    result = am(other, "import", str(out))
    assert result.exit_code == 0 and "imported 2 memories" in result.output
    assert am(other, "export").output == out.read_text()
    broken = tmp_path / "broken.jsonl"
    broken.write_text(out.read_text().replace('"kind": "pitfall"', '"kind": "gotcha!"').replace("m-", "x-"))
    failed = am(other, "import", str(broken))
    assert failed.exit_code == 8 and f"{broken}:1:" in failed.output


def test_hostile_input_through_the_cli(repo: Path):
    runner = CliRunner()
    bad_utf8 = runner.invoke(cli, ["remember", "-", "--kind", "note", "--repo", str(repo)], input=b"ok line\n\xff\xfe bad")
    assert bad_utf8.exit_code == 8 and "not valid UTF-8" in bad_utf8.output and "line 2" in bad_utf8.output
    surrogate = am(repo, "remember", "bad \udcff byte from argv", "--kind", "note")
    assert surrogate.exit_code == 8
    control = am(repo, "remember", "bell \x07 here", "--kind", "note")
    assert control.exit_code == 8 and "BEL" in control.output
    huge = am(repo, "remember", "-", "--kind", "note", input="word " * 10_000)
    assert huge.exit_code == 8 and "20,000" in huge.output
    assert json.loads(am(repo, "list", "--status", "all", "--json").output) == []


def test_recall_command_text_json_and_explain(repo: Path):
    am(repo, "remember", "The gateway strips custom headers longer than 8KB; see [[ADR-17]].", "--kind", "pitfall",
       "--title", "Header limits", "--element", "gateway")
    text = am(repo, "recall", "custom headers stripped", "--explain")
    assert text.exit_code == 0, text.output
    assert "1. [PITFALL] Header limits" in text.output
    assert "↳ via [[Header limits]] → decision Use the body for large payloads" in text.output
    assert "relevance" in text.output and "score" in text.output
    data = json.loads(am(repo, "recall", "custom headers stripped", "--json", "--explain").output)
    assert data["mode"] == "lexical"
    first = data["results"][0]
    assert set(first) >= {"id", "title", "kind", "content", "elements", "author", "created_at", "confirmed_at",
                          "score", "verify", "verify_reason", "factors"}
    assert [(r["kind"], r["via"]["title"]) for r in data["linked"]] == [("decision", "Header limits")]
    for n in range(6):  # more memories than the limit, each linking a decision, an element and a memory
        am(repo, "remember", f"Custom headers rule {n}: see [[ADR-17]], [[ApiGateway]] and [[Header limits]].",
           "--kind", "note", "--title", f"Header rule {n}", "--element", "orders")
    capped = json.loads(am(repo, "recall", "custom headers rule", "--limit", "5", "--json").output)
    assert 0 < len(capped["results"]) <= 5 and not {r["id"] for r in capped["results"]} & {"gateway", "orders", "17"}
    assert {r["kind"] for r in capped["linked"]} <= {"decision", "pitfall", "convention", "note", "session_outcome"}
    empty = am(repo, "recall", "kubernetes ingress certificates")
    assert empty.exit_code == 0 and "Nothing archmem knows is relevant" in empty.output
    bad = am(repo, "recall", "x", "--limit", "0")
    assert bad.exit_code == 2


@pytest.mark.parametrize("model", ["yaml", "dsl"])
def test_a_decision_record_that_is_not_utf8_is_a_warning_not_a_failure(repo: Path, model: str):
    """Issue 17, item 10: one bad ADR must not take remember, recall and brief down."""
    if model == "dsl":  # no !adrs: the conventional docs/adr folder is read
        (repo / "archmem.yaml").unlink()
        write(repo, {"workspace.dsl": 'workspace {\n  model {\n    gateway = softwareSystem "ApiGateway"\n  }\n}\n'})
    bad = repo / "docs" / "adr" / "0018-latin-1.md"
    bad.write_bytes(b"# 18. Caf\xe9 rules\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n")
    expected = f"warning: {bad.resolve().as_posix()}:1:10: decision record is not UTF-8 text"
    runs = [
        am(repo, "remember", "The gateway drops headers over 8KB.", "--kind", "pitfall", "--element", "ApiGateway"),
        am(repo, "recall", "gateway headers"),
        am(repo, "brief", "raise the header limit of the gateway"),
        am(repo, "model", "--json"),
    ]
    for result in runs:
        assert result.exit_code == 0, result.output
    for result in runs[:3]:
        assert expected in result.stderr and expected not in result.stdout
    assert "drops headers" in runs[1].stdout and "drops headers" in runs[2].stdout
    model_json = json.loads(runs[3].stdout)
    assert [d["id"] for d in model_json["decisions"]] == ["17"]
    assert [w for w in model_json["warnings"] if "0018-latin-1.md:1:10" in w]
