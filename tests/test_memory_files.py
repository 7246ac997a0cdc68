"""Memories as files: what a write puts on disk, private memories, authors from git,
purge that leaves no trace, and import that merges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from archmem.cli import cli
from archmem.errors import InvalidInputError
from archmem.memory.file_format import parse_memory
from archmem.workspace import Workspace

from .conftest import ADR, MODEL, git, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "services/gateway/router.go": "package gateway\n"})
    git(root, "init", "-q")
    git(root, "config", "user.name", "Sarah Lee")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def am(repo: Path, *args: str, input: str | None = None):
    return CliRunner().invoke(cli, [*args, "--repo", str(repo)], input=input, catch_exceptions=False)


def files_in(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.md")) if folder.exists() else []


def test_a_memory_is_a_readable_markdown_file_that_round_trips(repo: Path):
    result = json.loads(am(repo, "remember", "Headers over 8KB are dropped; see [[Header limits]].",
                           "--kind", "pitfall", "--title", "Gateway headers", "--element", "ApiGateway",
                           "--json").stdout)
    path = repo / result["path"]
    assert path.parent == repo / ".archmem" / "memories"
    assert path.name.startswith("gateway-headers.") and path.name.endswith(f"{result['id']}.md")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\nid: ") and "\n---\n\nHeaders over 8KB are dropped; see [[Header limits]].\n" in text
    parsed = parse_memory(text).memory
    stored = Workspace.open(repo).get_memory(result["id"])
    derived = {"exposures", "citations", "superseded_by", "status"}
    assert {k: v for k, v in parsed.to_json().items() if k not in derived} == {
        k: v for k, v in stored.to_json().items() if k not in derived}


def test_confirm_and_supersede_write_only_what_the_files_hold(repo: Path):
    first = json.loads(am(repo, "remember", "Retries back off at 2s.", "--kind", "note", "--title", "Backoff",
                          "--json").stdout)
    old_file = repo / first["path"]
    before = old_file.read_text(encoding="utf-8")
    assert am(repo, "confirm", "Backoff", "--yes").exit_code == 0
    confirmed = old_file.read_text(encoding="utf-8")
    assert "confirmations: 1" in confirmed and confirmed != before
    newer = json.loads(am(repo, "remember", "Retries back off at 5s.", "--kind", "note", "--title", "Backoff",
                          "--supersedes", "Backoff", "--json").stdout)
    # the old file is not rewritten: "superseded by" is derived from the new one
    assert old_file.read_text(encoding="utf-8") == confirmed
    assert f"supersedes: {first['id']}" in (repo / newer["path"]).read_text(encoding="utf-8")


def test_private_memories_stay_in_the_ignored_folder_and_are_marked(repo: Path):
    shared = json.loads(am(repo, "remember", "Deploys freeze on Fridays.", "--kind", "convention", "--json").stdout)
    private = json.loads(am(repo, "remember", "My staging login is the usual one.", "--kind", "note",
                            "--private", "--json").stdout)
    assert shared["private"] is False and private["private"] is True
    assert private["path"].startswith(".archmem/private/")
    listed = {m["id"]: m["private"] for m in json.loads(am(repo, "list", "--json").stdout)}
    assert listed == {shared["id"]: False, private["id"]: True}
    (repo / "archmem.toml").write_text("[store]\nprivate_by_default = true\n", encoding="utf-8")
    default = json.loads(am(repo, "remember", "A note for me alone.", "--kind", "note", "--json").stdout)
    forced = json.loads(am(repo, "remember", "A note for the team.", "--kind", "note", "--shared", "--json").stdout)
    assert default["private"] is True and forced["private"] is False


def test_the_author_is_the_git_user_when_nobody_says(repo: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")  # only this clone's settings
    mine = json.loads(am(repo, "remember", "Cache keys carry the tenant.", "--kind", "convention", "--json").stdout)
    given = json.loads(am(repo, "remember", "Queues are FIFO per tenant.", "--kind", "convention",
                          "--author", "codex/li", "--json").stdout)
    ws = Workspace.open(repo)
    assert ws.get_memory(mine["id"]).author == "cli/Sarah-Lee"
    assert ws.get_memory(given["id"]).author == "codex/li"
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "user.email", "li.wei@example.com")
    assert ws.author_for("claude-code") == "claude-code/li.wei"


def test_purge_deletes_the_file_and_leaves_no_byte_of_it_in_the_index(repo: Path):
    marker = "zqxvkwjm-customer-record-4471"
    keep = json.loads(am(repo, "remember", "Gateway timeouts are 30s.", "--kind", "note", "--json").stdout)
    gone = json.loads(am(repo, "remember", f"Customer {marker} asked to be forgotten.", "--kind", "note",
                         "--title", f"About {marker}", "--json").stdout)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memories")
    commit = git(repo, "rev-parse", "HEAD").strip()
    for _ in range(3):  # some churn, so the word index has segments to merge
        am(repo, "recall", "customer forgotten")
    result = am(repo, "purge", gone["id"], "--reason", "privacy request", "--yes", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["file"] == gone["path"] and data["committed_in"] == [commit]
    assert not (repo / gone["path"]).exists() and (repo / keep["path"]).exists()
    for path in (repo / ".archmem").rglob("*"):
        if path.is_file():
            assert marker.encode() not in path.read_bytes(), f"{path} still holds the purged text"
    text = am(repo, "purge", keep["id"], "--reason", "tidy", "--yes")
    assert "still in git history" in text.stderr and commit[:12] in text.stderr


# ---- import merges ---------------------------------------------------------------------


def line(**fields: object) -> str:
    return json.dumps({"kind": "note", "created_at": "2026-01-01T00:00:00Z", **fields})


def test_import_merges_a_later_confirmation_and_a_supersede_instead_of_refusing(repo: Path, tmp_path: Path):
    ws = Workspace.open(repo)
    first = ws.remember("Retries back off at 2s.", kind="note", title="Backoff")
    older_export = list(ws.export_memories())
    ws.confirm("Backoff")
    newer = ws.remember("Retries back off at 5s.", kind="note", title="Backoff", supersedes="Backoff")
    newer_export = list(ws.export_memories())
    other = tmp_path / "other"
    write(other, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    with Workspace.open(other) as target:
        assert target.import_memories(older_export).imported == [first.id]
        report = target.import_memories(newer_export)
        assert report.updated == [first.id] and report.imported == [newer.id] and not report.errors
        assert target.get_memory(first.id).confirmations == 1
        assert target.get_memory(first.id).status == "superseded"
        assert [m.id for m in target.list_memories()] == [newer.id]
        again = target.import_memories(older_export)  # an older version never wins
        assert again.unchanged == [first.id] and target.get_memory(first.id).confirmations == 1
        assert list(target.export_memories()) == newer_export
        assert len(list((other / ".archmem" / "memories").glob("*.md"))) == 2


@pytest.mark.parametrize("bad", [
    {"elements": 5}, {"elements": [5]}, {"anchors": [{}]}, {"anchors": 5}, {"title": ["x"]}, {"author": 7},
    {"confirmations": True}, {"private": "yes"},
])
def test_import_refuses_ill_typed_fields_with_a_message(repo: Path, bad: dict[str, object]):
    ws = Workspace.open(repo)
    report = ws.import_memories([line(id="m-x", content="hi", **bad)], partial=True)
    assert [e["line"] for e in report.errors] == [1] and not report.imported
    assert next(iter(bad)) in report.errors[0]["message"]


def test_import_refuses_forks_and_cycles_and_derives_what_is_superseded(repo: Path):
    ws = Workspace.open(repo)
    report = ws.import_memories([
        line(id="m-a", content="first", title="Old fact"),
        line(id="m-b", content="second", supersedes="m-a", created_at="2026-01-02T00:00:00Z"),
        line(id="m-c", content="third", supersedes="m-a", created_at="2026-01-03T00:00:00Z"),
        line(id="m-d", content="fourth", supersedes="m-e"),
        line(id="m-e", content="fifth", supersedes="m-d"),
        line(id="m-f", content="sixth", superseded_by="m-nowhere"),
        line(id="m-g", content="seventh", supersedes="Old fact", status="active", created_at="2026-01-04T00:00:00Z"),
    ], partial=True)
    messages = {e["line"]: e["message"] for e in report.errors}
    assert "fork" in messages[3] and "cycle" in messages[4] and "cycle" in messages[5]
    assert "fork" in messages[7]  # m-a already has m-b as its successor
    assert sorted(report.imported) == ["m-a", "m-b", "m-f"]
    assert ws.get_memory("m-a").status == "superseded" and ws.get_memory("m-a").superseded_by == "m-b"
    assert ws.get_memory("m-f").superseded_by is None and ws.get_memory("m-f").status == "active"


def test_a_chain_by_title_leaves_the_older_memory_out_of_recall(repo: Path):
    ws = Workspace.open(repo)
    ws.import_memories([
        line(id="m-old", content="Deploys go out on Tuesdays.", title="Deploy day"),
        line(id="m-new", content="Deploys go out on Thursdays.", title="Deploy day v2", supersedes="Deploy day",
             created_at="2026-02-01T00:00:00Z", status="active"),
    ])
    assert ws.get_memory("m-old").status == "superseded"
    assert ws.recall("when do deploys go out").memory_ids == ["m-new"]


# ---- forks, hand edits and status -------------------------------------------------------


def fork(repo: Path) -> tuple[str, str, str]:
    """Two successors of one memory, as a merge of two branches leaves them."""
    ws = Workspace.open(repo)
    old = ws.remember("Payment webhooks retry 3 times.", kind="pitfall", title="Webhook retries")
    one = ws.remember("Payment webhooks retry 5 times.", kind="pitfall", title="Webhook retries",
                      supersedes="Webhook retries")
    text = (repo / one.path).read_text(encoding="utf-8")
    other = (text.replace(one.id, "m-0ther0ther0").replace("retry 5 times", "retry 7 times")
             .replace("title: Webhook retries", "title: Webhook retry count"))
    (repo / ".archmem/memories/webhook-retry-count.m-0ther0ther0.md").write_text(other, encoding="utf-8")
    ws.close()
    return old.id, one.id, "m-0ther0ther0"


def test_a_fork_is_reported_by_review_recall_and_status_never_shown_as_one_truth(repo: Path):
    old, one, other = fork(repo)
    review = json.loads(am(repo, "review", "--json").stdout)
    [item] = review["forks"]
    assert item["superseded"] == {"id": old, "title": "Webhook retries"}
    assert {(s["id"], s["title"]) for s in item["successors"]} == {(other, "Webhook retry count"),
                                                                   (one, "Webhook retries")}
    recalled = json.loads(am(repo, "recall", "how often do payment webhooks retry", "--json").stdout)
    assert {r["id"] for r in recalled["results"]} == {one, other}
    assert any("forked" in w and old in w for w in recalled["warnings"])
    status = json.loads(am(repo, "status", "--json").stdout)
    assert sorted(status["files"]["forks"][old]) == sorted([one, other])
    assert any("archmem check" in step for step in status["next"])


def test_status_counts_files_and_says_what_is_not_committed(repo: Path):
    am(repo, "remember", "Deploys freeze on Fridays.", "--kind", "convention")
    am(repo, "remember", "My own scratch note.", "--kind", "note", "--private")
    files = json.loads(am(repo, "status", "--json").stdout)["files"]
    assert files["files"] == 1 and files["private"] == 1 and len(files["uncommitted"]) == 1
    git(repo, "add", ".archmem/memories")
    git(repo, "commit", "-q", "-m", "memories")
    status = json.loads(am(repo, "status", "--json").stdout)
    assert status["files"]["uncommitted"] == [] and not any("not committed" in s for s in status["next"])
    assert "?? .archmem/private" not in git(repo, "status", "--porcelain", "--untracked-files=all")


def test_a_hand_edit_and_a_broken_file_are_seen_by_the_next_command(repo: Path):
    kept = json.loads(am(repo, "remember", "Cache keys carry the tenant id.", "--kind", "convention",
                         "--json").stdout)
    edited = json.loads(am(repo, "remember", "Queues are FIFO per tenant.", "--kind", "convention",
                           "--json").stdout)
    path = repo / edited["path"]
    path.write_text(path.read_text(encoding="utf-8").replace("FIFO per tenant", "LIFO per region"), encoding="utf-8")
    assert [r["id"] for r in json.loads(am(repo, "recall", "LIFO region queues", "--json").stdout)["results"]] == [
        edited["id"]]
    broken = repo / kept["path"]
    broken.write_text(broken.read_text(encoding="utf-8").replace("kind: convention", "kind: [oops"), encoding="utf-8")
    result = am(repo, "recall", "LIFO region queues", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["results"][0]["id"] == edited["id"]
    assert any(kept["path"] in w for w in json.loads(result.stdout)["warnings"])  # what an agent reads
    assert f"{kept['path']}:4:1: the front matter is not valid YAML" in result.stderr
    assert "while parsing a flow sequence at line 3, column 7" in result.stderr


def test_a_write_never_overwrites_a_hand_edit_it_has_not_read(repo: Path):
    ws = Workspace.open(repo)
    memory = ws.remember("Retries back off at 2s.", kind="note", title="Backoff")
    path = repo / memory.path
    edited = path.read_text(encoding="utf-8").replace("2s", "3s")
    path.write_text(edited, encoding="utf-8")  # after this workspace's sync: it has not read it
    from archmem.errors import ConflictError

    with pytest.raises(ConflictError, match="changed on disk"):
        ws.confirm("Backoff")
    assert path.read_text(encoding="utf-8") == edited
    ws.close()
    assert Workspace.open(repo).confirm("Backoff").content == "Retries back off at 3s."


# ---- the file format round-trips -------------------------------------------------------

import unicodedata  # noqa: E402
from datetime import UTC, datetime  # noqa: E402

from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from archmem.memory.file_format import render_memory  # noqa: E402
from archmem.memory.links import CONFLICT_MARKER  # noqa: E402
from archmem.memory.types import Memory  # noqa: E402

_text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Cf")), min_size=1, max_size=40).map(
    lambda t: unicodedata.normalize("NFC", t).strip()).filter(
    lambda t: t and "[[" not in t and "]]" not in t and "|" not in t)
"""Text as archmem stores it: titles are NFC-normalized when written (豈 U+F900 is 豈 U+8C48)."""


@settings(max_examples=300, deadline=None)
@given(title=st.one_of(st.none(), _text | st.sampled_from([".inf", ".NaN", ".5", "-.5", "yes", "null", "~", "a: b",
                                                              "x #y", "2026-01-01", "'q'", '"q"', "@at", "-"])),
       author=st.one_of(st.none(), _text), elements=st.lists(_text, max_size=3, unique=True),
       content=_text, confirmations=st.integers(0, 5))
def test_render_then_parse_gives_back_the_memory(title, author, elements, content, confirmations):
    assume(not CONFLICT_MARKER.search(content))  # refused when written: see the test below
    memory = Memory(id="m-0123456789", kind="note", title=title, author=author, elements=elements, content=content,
                    created_at=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC), confirmations=confirmations)
    assert parse_memory(render_memory(memory)).memory == memory


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["<", ">", "<<<<<<<", ">>>>>>>", "=======", " ", "\n", "x", "\t"]), max_size=30)
       .map("".join))
def test_conflict_markers_are_looked_for_only_where_seven_angles_stand(text: str):
    """Two substring searches first: a text without seven ``<`` or ``>`` in a row holds no
    marker line, and one with them is asked of the line pattern as before."""
    from archmem.memory.links import conflict_marker

    found, expected = conflict_marker(text), CONFLICT_MARKER.search(text)
    assert (found and (found.start(), found.group())) == (expected and (expected.start(), expected.group()))


@pytest.mark.parametrize("marker", ["<<<<<<<", ">>>>>>> theirs"])
def test_content_with_a_line_git_reads_as_a_conflict_marker_is_refused_before_any_file(repo: Path, marker: str):
    """Such a file could not be read back (it is refused as an unresolved merge), so the
    content is refused when written, naming the line; indented, the same text is taken."""
    with Workspace.open(repo, env={}) as ws:
        with pytest.raises(InvalidInputError, match=r"the content's line 2 reads as a git conflict marker"):
            ws.remember(f"Merges of the lock file leave\n{marker}\nin it.", kind="pitfall")
        assert ws.list_memories() == []
        kept = ws.remember(f"Merges of the lock file leave\n    {marker}\nin it.", kind="pitfall")
    with Workspace.open(repo, env={}) as again:
        assert again.get_memory(kept.id).content == f"Merges of the lock file leave\n    {marker}\nin it."


def test_a_link_to_a_superseded_title_resolves_the_same_after_a_rebuild(repo: Path):
    ws = Workspace.open(repo)
    old = ws.remember("Headers over 8KB are dropped.", kind="pitfall", title="Header limits")
    linker = ws.remember("Large carts go in the body, see [[Header limits]].", kind="convention")
    new = ws.remember("Since v2 the limit is 16KB.", kind="pitfall", title="Header limits v2",
                      supersedes="Header limits")
    before = [(link.target_text, link.target_id) for link in ws.store.links(source_ids=[linker.id])]
    assert before == [("Header limits", new.id)] and old.id != new.id
    ws.close()
    for path in (repo / ".archmem").glob("archmem.db*"):
        path.unlink()
    rebuilt = Workspace.open(repo)
    assert [(link.target_text, link.target_id) for link in rebuilt.store.links(source_ids=[linker.id])] == before


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None)
@given(fields=st.dictionaries(st.sampled_from([
    "id", "title", "kind", "content", "elements", "anchors", "author", "session_id", "created_at", "confirmed_at",
    "confirmations", "supersedes", "superseded_by", "status", "status_reason", "exposures", "citations", "private",
]), _json_values, max_size=8))
def test_any_import_line_is_taken_or_reported_never_a_crash(tmp_path_factory: pytest.TempPathFactory,
                                                              fields: dict[str, object]):
    """Issue 17 item 1: ill-typed import lines were tracebacks (elements: 5, anchors: [{}])."""
    root = tmp_path_factory.mktemp("imp")
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    base = {"id": "m-1", "kind": "note", "content": "fine", "created_at": "2026-01-01T00:00:00Z"}
    with Workspace.open(root) as ws:
        report = ws.import_memories([json.dumps({**base, **fields}), json.dumps(base | {"id": "m-2"})], partial=True)
        assert len(report.imported) + len(report.errors) + len(report.unchanged) + len(report.updated) == 2
        assert all(isinstance(e["message"], str) and e["line"] in (1, 2) for e in report.errors)


@pytest.mark.parametrize("anchor", ["../../../etc/passwd#root", "/etc/hostname", "src/../../outside.py"])
def test_a_memory_file_cannot_anchor_outside_the_repository(repo: Path, anchor: str):
    """A hand-written or merged file is input like any other: its anchors are checked as
    remember checks them, and the file is reported, not indexed."""
    folder = repo / ".archmem" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "evil.m-evil00001.md").write_text(
        f"---\nid: m-evil00001\nkind: note\nanchors:\n  - {anchor}\ncreated: 2026-01-01T00:00:00Z\n---\n\nHi.\n",
        encoding="utf-8")
    # the error points at the item, the line a reader fixes
    listed = am(repo, "list", "--json")
    assert "m-evil00001" not in listed.stdout and "evil.m-evil00001.md:5:1" in listed.stderr
    checked = am(repo, "check", "--json")
    assert checked.exit_code == 2
    assert "leaves the repository" in checked.stdout or "is absolute" in checked.stdout


@settings(max_examples=200, deadline=None)
@given(value=st.text(st.characters(blacklist_categories=("Cs",)), max_size=30))
def test_toml_strings_read_back_as_written(value: str):
    """The one TOML quoter (install's config.toml, the [paths] table): emoji included,
    which JSON would write as surrogate escapes TOML refuses."""
    import tomllib

    from archmem.escape import toml_string

    assert tomllib.loads(f"k = {toml_string(value)}")["k"] == value
