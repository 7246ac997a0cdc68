"""The labelled recall set (bench/recall_data) is itself valid: it imports, its grades
point at real, current memories, and it covers what the benchmark claims to measure.

No recall is run here; bench/recall_quality.py does that.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from archmem.clock import parse_time
from archmem.memory import links as linkrules
from archmem.model.paths import compile_globs
from archmem.workspace import Workspace

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA = REPO_ROOT / "bench" / "recall_data"
EXAMPLE = REPO_ROOT / "examples" / "shop"
NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)

CATEGORIES = {
    "shared_words", "element_description", "changed_files", "synonyms", "superseded", "drifted", "no_answer",
}
KINDS = {"pitfall", "convention", "note", "session_outcome"}
AUTHORS = {"claude-code/sarah", "codex/kim", "cursor/li", "human/omar"}
TASK_FIELDS = {"id", "query", "elements", "changed_files", "category", "relevant", "must_not", "drift_elements", "note"}
# Words too common to count as "shared" between a query and a memory.
STOP_WORDS = frozenset(
    """a about an and any are as at be by can do does for from has have how i if in into is it its
    of on or our so some that the their them then there these they this to up was we what when
    where which who why will with you your""".split()
)


def _lines() -> list[str]:
    return [line for line in (DATA / "memories.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def memories() -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in map(json.loads, _lines())}


@pytest.fixture(scope="module")
def tasks() -> list[dict[str, Any]]:
    return json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory):
    """examples/shop copied to a temporary folder, with the whole set imported."""
    root = tmp_path_factory.mktemp("recall-dataset") / "shop"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".archmem", "archmem.toml", ".git"))
    ws = Workspace.open(root, clock=lambda: NOW, env={})
    report = ws.import_memories(_lines(), source="memories.jsonl")  # ImportFailed on any bad line
    ws.report = report  # type: ignore[attr-defined]
    yield ws
    ws.close()


def _words(text: str) -> set[str]:
    """Lowercase words with a crude suffix fold, so "routes" and "route" count as one."""
    out = set()
    for word in re.findall(r"[^\W_]+", text.lower()):
        if word in STOP_WORDS:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        out.add(word)
    return out


# ---- memories -----------------------------------------------------------------------


def test_every_line_imports_and_every_link_resolves(workspace, memories):
    assert workspace.report.errors == []
    assert sorted(workspace.report.imported) == sorted(memories)
    assert workspace.store.count_memories(status=None) == len(memories)
    pending = [(link.source_id, link.target_text) for link in workspace.store.links(pending=True)]
    assert pending == []


def test_import_keeps_ids_timestamps_and_statuses(workspace, memories):
    for memory in workspace.list_memories(status=None):
        source = memories[memory.id]
        assert memory.status == (source["status"] or "active")
        assert memory.created_at == parse_time(source["created_at"])
        assert memory.superseded_by == source["superseded_by"]


def test_counts_and_spread(workspace, memories):
    assert len(memories) >= 150
    kinds = Counter(m["kind"] for m in memories.values())
    assert set(kinds) == KINDS
    statuses = Counter(m["status"] for m in memories.values())
    assert statuses["superseded"] >= 8
    assert statuses["archived"] >= 3
    assert sum(1 for m in memories.values() if not m["elements"]) >= 12  # project-wide
    assert {m["author"] for m in memories.values()} == AUTHORS
    attached = {e for m in memories.values() for e in m["elements"]}
    assert attached == {e.id for e in workspace.model.elements}, "every element of the shop has memories"
    memory_links = [link for link in workspace.store.links() if link.target_kind == "memory"]
    assert len(memory_links) >= 15
    assert any(m["citations"] for m in memories.values()) and any(m["exposures"] for m in memories.values())
    assert any(m["confirmed_at"] for m in memories.values())


def test_timestamps_are_in_the_ten_months_before_the_clock(memories):
    for memory in memories.values():
        created = parse_time(memory["created_at"])
        assert NOW - timedelta(days=310) <= created < NOW, memory["id"]
        if memory["confirmed_at"]:
            assert created < parse_time(memory["confirmed_at"]) < NOW, memory["id"]


def test_supersession_chains_are_consistent(memories):
    pairs = 0
    for memory in memories.values():
        if memory["status"] == "superseded":
            newer = memories[memory["superseded_by"]]
            assert newer["supersedes"] == memory["id"]
            assert newer["status"] == "active"
            assert parse_time(memory["created_at"]) < parse_time(newer["created_at"])
            pairs += 1
        if memory["supersedes"]:
            assert memories[memory["supersedes"]]["superseded_by"] == memory["id"]
    assert pairs >= 8


def test_active_titles_are_unique(memories):
    titles = Counter(
        linkrules.normalize_title(m["title"]) for m in memories.values() if m["title"] and m["status"] == "active"
    )
    assert [t for t, n in titles.items() if n > 1] == []


# ---- tasks --------------------------------------------------------------------------


def test_task_shape(tasks, workspace):
    element_ids = {e.id for e in workspace.model.elements}
    ids = [t["id"] for t in tasks]
    assert len(ids) == len(set(ids)), "task ids are unique"
    assert len(tasks) >= 40
    for task in tasks:
        assert set(task) <= TASK_FIELDS, task["id"]
        assert task["category"] in CATEGORIES, task["id"]
        assert task["query"].strip(), task["id"]
        assert all(grade in (1, 2) for grade in task["relevant"].values()), task["id"]
        for element in task["elements"] + task.get("drift_elements", []):
            assert element in element_ids, (task["id"], element)


def test_categories(tasks):
    counts = Counter(t["category"] for t in tasks)
    assert set(counts) == CATEGORIES
    assert all(n >= 3 for n in counts.values()), counts
    assert counts["no_answer"] >= 6


def test_relevant_and_must_not_ids_exist(tasks, memories):
    for task in tasks:
        for memory_id in [*task["relevant"], *task.get("must_not", [])]:
            assert memory_id in memories, (task["id"], memory_id)


def test_only_current_memories_are_graded(tasks, memories):
    for task in tasks:
        for memory_id in task["relevant"]:
            assert memories[memory_id]["status"] == "active", (task["id"], memory_id)
        for memory_id in task.get("must_not", []):
            assert memories[memory_id]["status"] != "active", (task["id"], memory_id)
            assert memory_id not in task["relevant"]


def test_answerable_tasks_have_a_must_see(tasks):
    for task in tasks:
        if task["category"] == "no_answer":
            assert task["relevant"] == {}, task["id"]
        else:
            grades = list(task["relevant"].values())
            assert 1 <= grades.count(2) <= 3, task["id"]
            assert grades.count(1) <= 5, task["id"]


def test_superseded_tasks_guard_the_old_fact(tasks, memories):
    for task in tasks:
        if task["category"] == "superseded":
            assert task.get("must_not"), task["id"]
            current = {memories[m]["superseded_by"] for m in task["must_not"] if memories[m]["superseded_by"]}
            assert current & {m for m, g in task["relevant"].items() if g == 2}, task["id"]


def test_drifted_tasks_name_their_elements(tasks, memories):
    for task in tasks:
        if task["category"] == "drifted":
            assert task.get("drift_elements"), task["id"]
            must_see = [m for m, g in task["relevant"].items() if g == 2]
            assert any(set(memories[m]["elements"]) & set(task["drift_elements"]) for m in must_see), task["id"]


def test_changed_files_map_to_elements(tasks, workspace):
    model = workspace.model
    for task in tasks:
        if task["category"] == "changed_files":
            assert task["changed_files"], task["id"]
        for path in task["changed_files"]:
            owners = [e.id for e in model.elements if e.paths and compile_globs(e.paths)(path)]
            assert owners, (task["id"], path)


def test_element_description_queries_share_no_word_with_their_must_see(tasks, memories):
    """The words of these queries are in the element's name or description only."""
    for task in tasks:
        if task["category"] != "element_description":
            continue
        query = _words(task["query"])
        for memory_id, grade in task["relevant"].items():
            if grade == 2:
                memory = memories[memory_id]
                shared = query & _words(f"{memory['title'] or ''} {memory['content']}")
                assert not shared, (task["id"], memory_id, shared)


def test_no_answer_tasks_have_no_memory_on_their_topic(tasks, memories):
    topics = {
        "na-k8s-ingress": ["kubernetes", "ingress"], "na-ios-push": ["ios", "push"], "na-gdpr-export": ["gdpr"],
        "na-dark-mode": ["dark mode", "theme"], "na-kafka-lag": ["kafka"], "na-recommendations": ["recommend"],
        "na-helm-chart": ["helm"], "na-terraform-state": ["terraform"],
    }
    text = " ".join(f"{m['title'] or ''} {m['content']}".lower() for m in memories.values())
    for task_id, words in topics.items():
        assert any(t["id"] == task_id and t["category"] == "no_answer" for t in tasks), task_id
        for word in words:
            assert word not in text, (task_id, word)
