"""The labelled recall sets (bench/recall_data and its boutique, miniflux, healthchecks,
umami and mealie folders) are valid: they import, their grades point at real, current memories, and they cover what the benchmark
claims to measure.

No recall is run here; bench/recall_quality.py does that.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from archmem.clock import parse_time
from archmem.memory import links as linkrules
from archmem.model.paths import compile_globs
from archmem.workspace import Workspace

REPO_ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def _recall_sets() -> Any:
    spec = importlib.util.spec_from_file_location("recall_sets", REPO_ROOT / "bench" / "recall_sets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("recall_sets", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


SETS = _recall_sets().SETS
COMMON = {"shared_words", "element_description", "changed_files", "synonyms", "superseded", "no_answer"}
RULES: dict[str, dict[str, Any]] = {
    "shop": {
        "categories": COMMON | {"drifted"},
        "authors": {"claude-code/sarah", "codex/kim", "cursor/li", "human/omar"},
        "memories": 150,
        "no_answer_topics": {
            "na-k8s-ingress": ["kubernetes", "ingress"], "na-ios-push": ["ios", "push"], "na-gdpr-export": ["gdpr"],
            "na-dark-mode": ["dark mode", "theme"], "na-kafka-lag": ["kafka"], "na-recommendations": ["recommend"],
            "na-helm-chart": ["helm"], "na-terraform-state": ["terraform"],
        },
    },
    "boutique": {
        "categories": COMMON | {"multi_hop"},
        "authors": {"claude-code/ana", "codex/mei", "cursor/tom", "human/raj"},
        "memories": 100,
        "no_answer_topics": {
            "na-dev-guide": ["typo", "development guide"], "na-issue-template": ["bug report", "issue template"],
            "na-readme-badge": ["badge"], "na-translate": ["translat", "german"], "na-deploystack": ["deploystack"],
            "na-codeowners": ["code owner", "codeowners"], "na-dark-mode": ["dark mode", "theme"],
            "na-grafana": ["grafana", "dashboard"], "na-wishlist": ["wishlist"], "na-diagram": ["diagram"],
            "na-blog": ["blog"],
        },
    },
    "miniflux": {
        "categories": COMMON | {"multi_hop"},
        "authors": {"claude-code/noor", "codex/felix", "cursor/ines", "human/dario"},
        "memories": 100,
        "no_answer_topics": {
            "na-issue-form": ["issue form"], "na-security-md": ["security.md", "vulnerabilit"],
            "na-pr-template": ["pull request template"], "na-devcontainer": ["devcontainer", "vs code"],
            "na-readme-screenshot": ["screenshot"], "na-codeql": ["codeql"], "na-procfile": ["procfile"],
            "na-qr-code": ["qr code"], "na-mastodon": ["mastodon"], "na-newsletter": ["newsletter"],
            "na-chapters": ["chapter"], "na-text-to-speech": ["text to speech", "aloud"],
        },
    },
    "healthchecks": {
        "categories": COMMON | {"multi_hop"},
        "authors": {"claude-code/lena", "codex/tariq", "cursor/mika", "human/paula"},
        "memories": 120,
        "no_answer_topics": {
            "na-funding": ["funding", "sponsor"], "na-security-policy": ["security.md", "supported versions"],
            "na-license": ["copyright", "license file"], "na-gitignore": ["gitignore", ".venv"],
            "na-readme-screenshot": ["screenshot"], "na-pr-template": ["pull request template", "checklist"],
            "na-android": ["android"], "na-saml": ["saml"], "na-status-page": ["status page"],
            "na-translate": ["translat", "german"], "na-helm": ["helm", "kubernetes"], "na-graphql": ["graphql"],
        },
    },
    "umami": {
        "categories": COMMON | {"multi_hop"},
        "authors": {"claude-code/hana", "codex/marek", "cursor/lucia", "human/tomas"},
        "memories": 120,
        "no_answer_topics": {
            "na-bug-form": ["bug report"], "na-feature-form": ["feature request"], "na-issue-chooser": ["forum", "chooser"],
            "na-stale-issues": ["stale-issues", "pinned label"], "na-readme-screenshot": ["screenshot"],
            "na-license": ["copyright"], "na-email-digest": ["digest"], "na-slack-alert": ["slack"],
            "na-heatmap": ["heatmap"], "na-ab-test": ["a/b", "feature flag"], "na-ga-import": ["google analytics"],
            "na-mobile-sdk": ["ios", "sdk"],
        },
    },
    "mealie": {
        "categories": COMMON | {"multi_hop"},
        "authors": {"claude-code/aiko", "codex/bruno", "cursor/zara", "human/oskar"},
        "memories": 120,
        "no_answer_topics": {
            "na-funding": ["sponsor", "funding"], "na-security-md": ["security.md", "supported versions"],
            "na-license": ["copyright"], "na-maintainers": ["maintainer"], "na-discussion-form": ["feature request"],
            "na-gitattributes": ["gitattributes"], "na-barcode": ["barcode"], "na-text-to-speech": ["text to speech", "aloud"],
            "na-graphql": ["graphql"], "na-iphone": ["iphone", "app store"], "na-wine": ["wine"],
            "na-helm": ["helm", "kubernetes"],
        },
    },
}
# The four sets of the leave-one-repository-out round were written blind to a shorter brief
# (bench/recall_data/<set>/SOURCE.md): a names_element category, element-description tasks
# that match the description but may share a word with the memory, more memories graded
# useful on broad tasks, and no list of no-answer topics. The checks that brief did not
# ask for are not applied to them (``strict``: False).
for _name, _authors in {
    "signal": {'cursor/lena', 'codex/tomas', 'human/ravi', 'claude-code/mira'},
    "vaultwarden": {'cursor/ines', 'codex/tomas', 'human/dario', 'claude-code/mira'},
    "feast": {'cursor/ines', 'codex/tomas', 'human/ravi', 'claude-code/mira'},
    "kavita": {'cursor/ines', 'codex/teo', 'human/dana', 'claude-code/mira'},
}.items():
    RULES[_name] = {"categories": COMMON | {"multi_hop", "names_element"}, "authors": _authors, "memories": 100,
                    "no_answer_topics": None, "strict": False}
KINDS = {"pitfall", "convention", "note", "session_outcome"}
TASK_FIELDS = {"id", "query", "elements", "changed_files", "category", "relevant", "must_not", "drift_elements", "note"}
ALL_CATEGORIES = set().union(*(rules["categories"] for rules in RULES.values()))
# Words too common to count as "shared" between a query and a memory.
STOP_WORDS = frozenset(
    """a about an and any are as at be by can do does for from has have how i if in into is it its
    of on or our so some that the their them then there these they this to up was we what when
    where which who why will with you your""".split()
)


@pytest.fixture(scope="module", params=sorted(SETS))
def set_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def rules(set_name: str) -> dict[str, Any]:
    return RULES[set_name]


def _lines(set_name: str) -> list[str]:
    text = (SETS[set_name].folder / "memories.jsonl").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def memories(set_name: str) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in map(json.loads, _lines(set_name))}


@pytest.fixture(scope="module")
def tasks(set_name: str) -> list[dict[str, Any]]:
    return SETS[set_name].tasks()


@pytest.fixture(scope="module")
def workspace(set_name: str, tmp_path_factory: pytest.TempPathFactory):
    """The set's repository laid out in a temporary folder, with the whole set imported."""
    root = tmp_path_factory.mktemp("recall-dataset") / set_name
    SETS[set_name].lay_out(root)
    ws = Workspace.open(root, clock=lambda: NOW, env={})
    report = ws.import_memories(_lines(set_name), source="memories.jsonl")  # ImportFailed on any bad line
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


def test_counts_and_spread(workspace, memories, rules):
    assert len(memories) >= rules["memories"]
    kinds = Counter(m["kind"] for m in memories.values())
    assert set(kinds) == KINDS
    statuses = Counter(m["status"] for m in memories.values())
    assert statuses["superseded"] >= 8
    assert statuses["archived"] >= 3
    systems = {e.id for e in workspace.model.elements if e.kind == "softwareSystem"}
    strict = rules.get("strict", True)
    assert sum(1 for m in memories.values() if set(m["elements"]) <= systems) >= (12 if strict else 3)  # project-wide
    assert {m["author"] for m in memories.values()} == rules["authors"]
    attached = {e for m in memories.values() for e in m["elements"]}
    assert attached <= {e.id for e in workspace.model.elements}
    with_code = {e.id for e in workspace.model.elements if e.paths}
    assert len(with_code - attached) <= (0 if strict else 1), "every element that owns code has memories"
    memory_links = [link for link in workspace.store.links() if link.target_kind == "memory"]
    assert len(memory_links) >= (15 if strict else 10)
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
        assert task["category"] in ALL_CATEGORIES, task["id"]
        assert task["query"].strip(), task["id"]
        assert all(grade in (1, 2) for grade in task["relevant"].values()), task["id"]
        for element in task["elements"] + task.get("drift_elements", []):
            assert element in element_ids, (task["id"], element)


def test_categories(tasks, rules):
    counts = Counter(t["category"] for t in tasks)
    assert set(counts) == rules["categories"]
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


def test_answerable_tasks_have_a_must_see(tasks, rules):
    for task in tasks:
        if task["category"] == "no_answer":
            assert task["relevant"] == {}, task["id"]
        else:
            grades = list(task["relevant"].values())
            assert 1 <= grades.count(2) <= 3, task["id"]
            if rules.get("strict", True):
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


def test_element_description_queries_share_no_word_with_their_must_see(tasks, memories, rules):
    """The words of these queries are in the element's name or description only."""
    if not rules.get("strict", True):
        pytest.skip("written to a brief that asked for the description's words, not for no shared word")
    for task in tasks:
        if task["category"] != "element_description":
            continue
        query = _words(task["query"])
        for memory_id, grade in task["relevant"].items():
            if grade == 2:
                memory = memories[memory_id]
                shared = query & _words(f"{memory['title'] or ''} {memory['content']}")
                assert not shared, (task["id"], memory_id, shared)


def test_no_answer_tasks_have_no_memory_on_their_topic(tasks, memories, rules):
    topics = rules["no_answer_topics"]
    if topics is None:
        pytest.skip("no topic words were listed for this set's no-answer tasks")
    assert {t["id"] for t in tasks if t["category"] == "no_answer"} == set(topics)
    text = " ".join(f"{m['title'] or ''} {m['content']}".lower() for m in memories.values())
    for task_id, words in topics.items():
        assert any(t["id"] == task_id and t["category"] == "no_answer" for t in tasks), task_id
        for word in words:
            assert word not in text, (task_id, word)


def test_no_answer_tasks_change_files_of_broad_elements(set_name, tasks, workspace):
    """The trap the second set was built for: a file that only the system (or an element
    owning a third of the repository) owns says little about what the task is."""
    system = {"boutique": "boutique", "miniflux": "miniflux", "healthchecks": "healthchecks", "umami": "umami",
              "mealie": "mealie"}.get(set_name)
    if system is None:
        pytest.skip("the shop's system owns no files of its own")
    model = workspace.model
    broad = [
        path for task in tasks if task["category"] == "no_answer" for path in task["changed_files"]
        if [e.id for e in model.elements if e.paths and compile_globs(e.paths)(path)] == [system]
    ]
    assert len(broad) >= 5, broad
