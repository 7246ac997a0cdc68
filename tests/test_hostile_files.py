"""Hostile memory files: one file anyone can commit never stops a command.

The reader every command uses (sync on open, ``check``, the merge driver, ``pr``) refuses
an alias bomb, counts and times the index cannot hold, and credentials hidden by YAML
escapes or folds, at the file's line, quoting the file's own text; every command goes
on with the other memories. The CLI runs in real subprocesses on real repositories:
no traceback, and the file named by path and line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from archmem.memory.file_format import MemoryFileError, read_memory_file
from archmem.yaml_text import YamlTextError, load_mapping

from .conftest import ADR, MODEL, REPO_ROOT, commit, git, write

FOLDER = ".archmem/memories"
TOKEN_BODY = "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
"""A GitHub token's 36 random characters (``ghp_`` + this), never a real one."""


def bomb(levels: int = 9) -> str:
    """The ~700-byte billion laughs: nine levels of ten aliases, then one more alias."""
    names = "abcdefghijklmnopqrstuvwxyz"[:levels]
    out = ["a: &a [x,x,x,x,x,x,x,x,x,x]"]
    out += [f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 10) + "]" for prev, cur in zip(names, names[1:])]
    return "\n".join([*out, f"confirmations: *{names[-1]}"])


def memory_file(memory_id: str, *front: str, body: str = "Headers over 8KB are dropped.") -> str:
    return "\n".join(["---", f"id: {memory_id}", "kind: note", *front, "---", "", body, ""])


HOSTILE = {
    # name: (the file, the line at fault, the rule, text the error must quote)
    "bomb.md": (memory_file("m-bomb", "created: 2026-01-01T00:00:00Z", bomb()), 5, "schema", "&a"),
    "int64.md": (memory_file("m-int64", "created: 2026-01-01T00:00:00Z", "confirmations: 9223372036854775808"),
                 5, "schema", "'9223372036854775808'"),
    "year999.md": (memory_file("m-year999", "created: 0999-01-01T00:00:00Z"), 4, "schema", "'0999-01-01T00:00:00Z'"),
    "year1.md": (memory_file("m-year1", "created: 0001-01-01T00:00:00+01:00"), 4, "schema",
                 "'0001-01-01T00:00:00+01:00'"),
    "year9999.md": (memory_file("m-year9999", "created: 9999-12-31T23:59:59-01:00"), 4, "schema",
                    "'9999-12-31T23:59:59-01:00'"),
    "escaped-title.md": (memory_file("m-esc-title", "created: 2026-01-01T00:00:00Z",
                                     'title: "key \\u0041KIA2OGYBAH6Q3XZ5KLM"'), 5, "secret", "'title'"),
    "escaped-author.md": (memory_file("m-esc-author", "created: 2026-01-01T00:00:00Z",
                                      f'author: "gh\\x70_{TOKEN_BODY}"'), 5, "secret", "'author'"),
    "folded-title.md": (memory_file("m-folded", "created: 2026-01-01T00:00:00Z",
                                    'title: "key AKIA2OGYBA\\', '  H6Q3XZ5KLM"'), 5, "secret", "'title'"),
}


# ---- the reader -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_reader_refuses_each_hostile_file_at_its_line_quoting_its_text(name: str):
    text, line, rule, quoted = HOSTILE[name]
    with pytest.raises(MemoryFileError) as caught:
        read_memory_file(text.encode())
    assert (caught.value.line, caught.value.rule) == (line, rule)
    assert quoted in caught.value.message
    assert "AKIA2OGYBAH6Q3XZ5KLM" not in caught.value.message and TOKEN_BODY not in caught.value.message


def test_an_alias_is_refused_before_it_is_expanded_even_without_a_bomb():
    with pytest.raises(YamlTextError, match=r"uses the alias \*x") as caught:
        load_mapping("a: 1\nb: *x\n")  # an alias to nothing: refused as an alias, not parsed
    assert caught.value.line == 2
    with pytest.raises(YamlTextError, match="anchor &x"):
        load_mapping("a: &x 1\nb: 2\n")


@pytest.mark.parametrize(("front", "line", "words"), [
    ("elements: " + "[" * 50 + "]" * 50, 5, "nests deeper than"),
    ("confirmations: " + "9" * 5000, 5, "5,000 characters long"),
    ("author: !!binary aGVsbG8=", 5, "explicit tag"),
    ("confirmations: -1", 5, "'-1'"),
    ("confirmations: 1.5", 5, "'1.5'"),
    ("confirmed: 2026-13-01T00:00:00Z", 5, "'2026-13-01T00:00:00Z'"),
    ("anchors:\n  - ../../etc/passwd", 6, "leaves the repository"),
])
def test_other_values_no_command_can_hold_are_refused_at_their_line(front: str, line: int, words: str):
    text = memory_file("m-1", "created: 2026-01-01T00:00:00Z", front)
    with pytest.raises(MemoryFileError) as caught:
        read_memory_file(text.encode())
    assert caught.value.line == line and words in caught.value.message


def test_the_largest_count_and_the_edges_of_time_are_read_and_written_back_the_same():
    from archmem.memory.file_format import render_memory

    text = memory_file("m-1", "created: 1970-01-01T00:00:00Z", "confirmed: 9998-12-31T23:59:59Z",
                       "confirmations: 9223372036854775807")
    memory = read_memory_file(text.encode()).memory
    again = read_memory_file(render_memory(memory).encode()).memory
    assert again == memory and memory.confirmations == 2**63 - 1


@pytest.mark.parametrize("front", [
    'anchors:\n  - "src/gh\\x70_' + TOKEN_BODY + '.py"',
    'session: "\\u0067hp_' + TOKEN_BODY + '"',
    'supersedes: "gh\\u0070_' + TOKEN_BODY + '"',
    'reason: "gh\\x70_' + TOKEN_BODY + '"\nstatus: archived',
    'elements: ["gh\\x70_' + TOKEN_BODY + '"]',
])
def test_every_field_is_scanned_for_secrets_as_yaml_decodes_it(front: str):
    text = memory_file("m-1", "created: 2026-01-01T00:00:00Z", front)
    with pytest.raises(MemoryFileError) as caught:
        read_memory_file(text.encode())
    assert caught.value.rule == "secret" and "GitHub token" in caught.value.message
    assert TOKEN_BODY not in caught.value.message


# ---- every command, in a real subprocess ---------------------------------------------


def archmem(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess; the timeout is generous, the assertions are on output."""
    return subprocess.run([sys.executable, "-m", "archmem", *args], cwd=root, input=stdin, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def new_repo(tmp_path: Path) -> Path:
    """A real git repository with the model and its decisions committed on main."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR})
    commit(root, "model", "2026-01-01T00:00:00Z")
    return root


@pytest.fixture
def hostile_repo(tmp_path: Path) -> Path:
    """A real repository with one good memory file and every hostile one, committed."""
    root = new_repo(tmp_path)
    good = memory_file("m-good", "title: Header limits", "elements:\n  - gateway", "created: 2026-01-01T00:00:00Z")
    write(root, {f"{FOLDER}/good.md": good, **{f"{FOLDER}/{name}": text for name, (text, *_) in HOSTILE.items()}})
    commit(root, "memories", "2026-01-02T00:00:00Z")
    return root


def no_traceback(result: subprocess.CompletedProcess[str]) -> str:
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    return output


@pytest.mark.parametrize("command", [["list"], ["recall", "header limits"], ["status"], ["show", "m-good"]])
def test_commands_that_sync_name_every_hostile_file_and_serve_the_rest(hostile_repo: Path, command: list[str]):
    if command == ["status"]:
        archmem(hostile_repo, "list")  # status reads the index, which any other command builds
    result = archmem(hostile_repo, *command)
    output = no_traceback(result)
    assert result.returncode == 0, output
    for name, (_, line, _, _) in HOSTILE.items():
        assert f"{FOLDER}/{name}:{line}:" in output, name
    assert "AKIA2OGYBAH6Q3XZ5KLM" not in output and TOKEN_BODY not in output
    if command[0] != "status":
        assert "Header limits" in output or "m-good" in output


def test_check_names_every_hostile_file_by_path_line_and_rule(hostile_repo: Path):
    result = archmem(hostile_repo, "check", "--json")
    no_traceback(result)
    assert result.returncode == 2
    found = {(p["path"], p["line"], p["rule"]) for p in json.loads(result.stdout)["problems"]}
    assert found == {(f"{FOLDER}/{name}", line, rule) for name, (_, line, rule, _) in HOSTILE.items()}


def test_pr_reports_each_hostile_file_in_the_diff_as_unreadable_at_its_line(tmp_path: Path):
    root = new_repo(tmp_path)
    git(root, "checkout", "-q", "-b", "hostile")
    write(root, {f"{FOLDER}/{name}": text for name, (text, *_) in HOSTILE.items()})
    commit(root, "hostile memories", "2026-01-02T00:00:00Z")
    result = archmem(root, "pr", "--base", "main", "--format", "json")
    no_traceback(result)
    changes = json.loads(result.stdout)["memory_changes"]
    details = {c["path"]: c["detail"] for c in changes if c["change"] == "unreadable"}
    assert {path: detail.split(":")[1] for path, detail in details.items()} == {
        f"{FOLDER}/{name}": str(line) for name, (_, line, *_) in HOSTILE.items()}
    assert "AKIA2OGYBAH6Q3XZ5KLM" not in result.stdout and TOKEN_BODY not in result.stdout


def test_the_merge_driver_falls_back_to_a_line_merge_for_a_bomb_without_expanding_it(tmp_path: Path):
    good = memory_file("m-1", "created: 2026-01-01T00:00:00Z")
    paths = []
    for name, text in (("base", good), ("ours", good.replace("Headers", "All headers")),
                       ("theirs", HOSTILE["bomb.md"][0].replace("m-bomb", "m-1"))):
        paths.append(tmp_path / name)
        paths[-1].write_text(text, encoding="utf-8")
    result = archmem(tmp_path, "merge-file", *map(str, paths), f"{FOLDER}/m.md")
    no_traceback(result)
    merged = paths[1].read_text(encoding="utf-8")
    assert "*h,*h" in merged and "All headers" in merged  # a line merge of the texts, as written


def test_the_merge_driver_stops_on_a_secret_its_output_would_hold(tmp_path: Path):
    good = memory_file("m-1", "created: 2026-01-01T00:00:00Z")
    leaked = good.replace("kind: note", f'kind: note\nauthor: "gh\\x70_{TOKEN_BODY}"')
    paths = []
    for name, text in (("base", good), ("ours", good.replace("Headers", "All headers")), ("theirs", leaked)):
        paths.append(tmp_path / name)
        paths[-1].write_text(text, encoding="utf-8")
    result = archmem(tmp_path, "merge-file", *map(str, paths), f"{FOLDER}/m.md")
    output = no_traceback(result)
    assert result.returncode == 1 and "looks like a credential" in output
    assert "(GitHub token)" in output and f"{FOLDER}/m.md" in output
    assert TOKEN_BODY not in output


def test_the_mcp_server_answers_with_the_other_memories(hostile_repo: Path):
    pytest.importorskip("mcp")
    process = subprocess.Popen([sys.executable, "-m", "archmem", "mcp", "--repo", str(hostile_repo)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    answers: queue.Queue[dict] = queue.Queue()
    threading.Thread(target=lambda: [answers.put(json.loads(raw)) for raw in process.stdout], daemon=True).start()
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "history", "arguments": {
            "memory": "m-good"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "remember", "arguments": {
            "content": "CI tokens rotate weekly.", "kind": "note", "anchors": [f"src/gh\u0070_{TOKEN_BODY}.py"]}}},
    ]
    try:
        assert process.stdin is not None
        process.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        process.stdin.flush()
        got = {answer["id"]: answer for answer in (answers.get(timeout=120) for _ in range(3))}
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=60)
    history = json.dumps(got[2]["result"])
    assert "Header limits" in history and not got[2]["result"].get("isError")
    refused = json.dumps(got[3]["result"])
    assert got[3]["result"].get("isError") and "GitHub token" in refused and TOKEN_BODY not in refused


# ---- import ------------------------------------------------------------------------


def record(**fields: object) -> str:
    base = {"id": "m-imp", "kind": "note", "content": "Tokens rotate weekly.", "created_at": "2026-01-01T00:00:00Z"}
    return json.dumps({**base, **fields})


@pytest.mark.parametrize(("fields", "words"), [
    ({"session_id": f"gh\u0070_{TOKEN_BODY}"}, "GitHub token"),
    ({"anchors": [f"src/gh\u0070_{TOKEN_BODY}.py"]}, "GitHub token"),
    ({"supersedes": f"gh\u0070_{TOKEN_BODY}"}, "GitHub token"),
    ({"confirmations": 2**63}, "0 to 9223372036854775807"),
    ({"exposures": 2**64}, "0 to 9223372036854775807"),
    ({"created_at": "0999-01-01T00:00:00Z"}, "out of range"),
    ({"created_at": "0001-01-01T00:00:00+01:00"}, "out of range"),
    ({"confirmed_at": "9999-12-31T23:59:59-01:00"}, "out of range"),
])
def test_import_refuses_secrets_in_every_field_and_values_the_index_cannot_hold(
    tmp_path: Path, fields: dict[str, object], words: str
):
    root = new_repo(tmp_path)
    result = archmem(root, "import", "-", stdin=record(**fields) + "\n")
    output = no_traceback(result)
    assert result.returncode != 0 and "-:1:" in output and words in output, output
    assert TOKEN_BODY not in output
    assert not list((root / FOLDER).glob("*.md")) if (root / FOLDER).exists() else True


# ---- lower: duplicates, comments ---------------------------------------------------


def test_two_files_with_one_id_resolve_to_the_same_file_on_every_clone(tmp_path: Path):
    from datetime import datetime, timezone

    from archmem.memory.file_format import file_name, render_memory
    from archmem.memory.types import Memory

    root = new_repo(tmp_path)
    original = Memory(id="m-dup1", kind="note", title="Header limits", content="Headers over 8KB are dropped.",
                      created_at=datetime(2026, 2, 1, tzinfo=timezone.utc))
    write(root, {f"{FOLDER}/{file_name(original)}": render_memory(original)})
    archmem(root, "list")  # this clone indexes the original before the copy arrives
    copy = dataclasses.replace(original, content="Headers over 16KB are dropped.",
                               created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    write(root, {f"{FOLDER}/aaa-copy.md": render_memory(copy)})  # first by path, and older
    commit(root, "a copy", "2026-02-02T00:00:00Z")
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(root), str(fresh))
    for clone in (root, fresh):
        shown = archmem(clone, "show", "m-dup1", "--json")
        no_traceback(shown)
        assert json.loads(shown.stdout)["content"] == original.content, clone
        assert f"{FOLDER}/aaa-copy.md:2:" in shown.stderr and "duplicate id" in shown.stderr
    checked = json.loads(archmem(fresh, "check", "--json").stdout)["problems"]
    assert sorted((p["path"], p["rule"]) for p in checked) == [
        (f"{FOLDER}/aaa-copy.md", "duplicate-id"), (f"{FOLDER}/{file_name(original)}", "duplicate-id")]


def test_the_merge_driver_keeps_yaml_comments_by_merging_the_lines(tmp_path: Path):
    base = memory_file("m-1", "created: 2026-01-01T00:00:00Z", "# owner: the platform team", body="One.\n\nTwo.")
    ours = base.replace("One.", "One, edited.")
    theirs = base.replace("Two.", "Two, edited.")
    paths = []
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        paths.append(tmp_path / name)
        paths[-1].write_text(text, encoding="utf-8")
    result = archmem(tmp_path, "merge-file", *map(str, paths), f"{FOLDER}/m.md")
    no_traceback(result)
    merged = paths[1].read_text(encoding="utf-8")
    assert result.returncode == 0 and "# owner: the platform team" in merged
    assert "One, edited." in merged and "Two, edited." in merged


def test_show_and_elements_print_an_escape_sequence_escaped_never_stripped(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {
        "workspace.dsl": 'workspace "S" {\n  model {\n    s = softwareSystem "Shop" {\n'
                         '      api = container "Api\x1b[31mGateway"\n    }\n  }\n}\n',
        f"{FOLDER}/evil.md": memory_file("m-evil", "title: Evil element", 'elements:\n  - "Web\\e[31mApp"',
                                         'author: "ci/\\e[2Jbot"', "created: 2026-01-01T00:00:00Z"),
    })
    commit(root, "model and memory", "2026-01-02T00:00:00Z")
    shown = archmem(root, "show", "m-evil")
    output = no_traceback(shown)
    assert "Web\\u001b[31mApp" in output and "ci/\\u001b[2Jbot" in output and "\x1b" not in output
    listed = archmem(root, "elements")
    assert "Api\\u001b[31mGateway" in no_traceback(listed) and "\x1b" not in listed.stdout


def test_purge_names_the_briefings_maps_and_exports_that_still_hold_the_memory(tmp_path: Path):
    root = new_repo(tmp_path)
    remembered = archmem(root, "remember", "Headers over 8KB are dropped by the gateway.", "--kind", "pitfall",
                         "--title", "Header limits", "--element", "gateway", "--json")
    memory_id = json.loads(remembered.stdout)["id"]
    other = tmp_path / "other.md"
    other.write_text("not archmem's\n", encoding="utf-8")
    for command in (["brief", "change the gateway headers", "--out", "out/brief.md"],
                    ["map", "--format", "html", "--out", "out/map.html"], ["export", "out/all.jsonl"]):
        no_traceback(archmem(root, *command))
    purged = archmem(root, "purge", memory_id, "--reason", "held a secret", "--yes", "--json")
    no_traceback(purged)
    outputs = json.loads(purged.stdout)["outputs"]
    assert sorted(Path(p).name for p in outputs) == ["all.jsonl", "brief.md", "map.html"]
    again = archmem(root, "remember", "Retries reuse the idempotency key.", "--kind", "convention", "--json")
    second = json.loads(again.stdout)["id"]
    purged = archmem(root, "purge", second, "--reason", "test", "--yes")
    assert "these files archmem wrote still hold it" not in purged.stderr  # written before it existed


def test_check_scans_drift_accept_files_as_yaml_decodes_them(tmp_path: Path):
    root = new_repo(tmp_path)
    write(root, {".archmem/accepts/gateway.yaml": "element: gateway\naccepted: 2026-01-01T00:00:00Z\n"
                                                f'reason: "rotated gh\\x70_{TOKEN_BODY}"\n'})
    result = archmem(root, "check", "--json")
    no_traceback(result)
    found = [(p["path"], p["line"], p["rule"]) for p in json.loads(result.stdout)["problems"]]
    assert (".archmem/accepts/gateway.yaml", 3, "secret") in found and TOKEN_BODY not in result.stdout


def test_the_largest_count_stays_the_largest_when_confirmed_or_merged(tmp_path: Path):
    root = new_repo(tmp_path)
    write(root, {f"{FOLDER}/m.md": memory_file("m-max", "title: Header limits", "created: 2026-01-01T00:00:00Z",
                                               "confirmations: 9223372036854775807")})
    confirmed = archmem(root, "confirm", "m-max", "--yes", "--json")
    no_traceback(confirmed)
    assert confirmed.returncode == 0 and json.loads(confirmed.stdout)["confirmations"] == 2**63 - 1
    assert "confirmations: 9223372036854775807" in (root / FOLDER / "m.md").read_text(encoding="utf-8")
    from archmem.git.merge_file import merge_texts
    from archmem.memory.merge import merge_memory_file

    base = memory_file("m-max", "created: 2026-01-01T00:00:00Z", "confirmations: 1")
    most = base.replace("confirmations: 1", "confirmations: 9223372036854775807")
    merged = merge_memory_file(base, most, most.replace("Headers", "All headers"), merge_texts)
    assert merged.method == "fields" and "confirmations: 9223372036854775807" in merged.text
    merged = merge_memory_file(base, most, base.replace("confirmations: 1", "confirmations: 5"), merge_texts)
    assert "confirmations: 9223372036854775807" in merged.text and not merged.conflicted
    read_memory_file(merged.text.encode())
