"""Recall on a small store: a team's first memories must be found by the task they answer.

A fresh clone with three memory files, one of them about migrations: a task worded as a
developer would ("write a django migration adding a field to RelayAddress") shares one telling
word with it, and a store of three memories knows almost none of the task's other words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archmem.recall import score as S
from archmem.workspace import Workspace

from .conftest import FrozenClock, commit, git, write

MODEL = """\
workspace "Firefox Relay" {
    model {
        user = person "User"
        relay = softwareSystem "Firefox Relay" "Email masks that forward to a real inbox" {
            backend = container "Backend" "Accounts, masks and email forwarding" "Python" {
                properties {
                    "archmem.paths" "privaterelay/**,emails/**,api/**"
                }
            }
            frontend = container "Frontend" "The dashboard" "Next.js" {
                properties {
                    "archmem.paths" "frontend/**"
                }
            }
        }
        user -> frontend "Manages masks with"
    }
}
"""


def memory_file(memory_id: str, kind: str, element: str, content: str, title: str | None = None) -> str:
    titled = f"title: {title}\n" if title else ""
    return (f"---\nid: {memory_id}\nkind: {kind}\n{titled}elements:\n  - {element}\nauthor: human/ana\n"
            f"created: 2026-10-01T09:00:00Z\nconfirmed: 2026-10-01T09:00:00Z\n---\n\n{content}\n")


MEMORIES = {
    ".archmem/memories/backward-compatible-migrations.m-0000000001.md": memory_file(
        "m-0000000001", "convention", "backend",
        "Migrations must be backward compatible: add a nullable field first, backfill it, and make it "
        "required in a later release; the old code keeps running during a deploy.",
        title="Backward compatible migrations"),
    ".archmem/memories/mask-fields.m-0000000002.md": memory_file(
        "m-0000000002", "pitfall", "frontend",
        "The dashboard reads masks from the API: a new mask field needs the serializer too, or the "
        "frontend shows undefined."),
    ".archmem/memories/settings.m-0000000003.md": memory_file(
        "m-0000000003", "note", "backend",
        "Settings come from environment variables through python-decouple; list new ones in .env-dist too."),
}


@pytest.fixture
def relay(tmp_path: Path):
    """A fresh clone: the model, a few files and three committed memory files, no index yet."""
    root = tmp_path / "fx-private-relay"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {
        "workspace.dsl": MODEL, "archmem.toml": 'model = "workspace.dsl"\n\n[embeddings]\nprovider = "none"\n',
        "emails/models.py": "class RelayAddress:\n    pass\n", "emails/migrations/0001_initial.py": "x = 1\n",
        "privaterelay/settings.py": "x = 1\n", "api/views.py": "x = 1\n", "frontend/src/index.tsx": "x\n",
        **MEMORIES,
    })
    commit(root, "initial", "2026-10-01T09:00:00Z")
    with Workspace.open(root, clock=FrozenClock(), env={}) as ws:
        yield ws


def test_a_small_store_finds_its_migration_memory_for_a_task_worded_otherwise(relay: Workspace) -> None:
    result = relay.recall("write a django migration adding a field to RelayAddress")
    shown = [r["id"] for r in result.results + result.weak]
    assert shown and shown[0] == "m-0000000001", (result.decision, result.evidence)


def test_words_no_memory_holds_leave_the_lexical_ceiling_and_weigh_in_the_known_share(relay: Workspace) -> None:
    """What the store cannot know lowers the decision's known share, not every match's relevance."""
    found = relay.recall("write a django migration adding a field to RelayAddress", explain=True)
    best = (found.results + found.weak)[0]["factors"]
    alone = relay.recall("django migration field", explain=True).results[0]["factors"]
    assert best["lexical"] == pytest.approx(alone["lexical"], abs=0.05)
    assert found.known_words < 1.0



def test_a_word_nothing_holds_counts_by_the_chance_a_store_this_size_would_hold_it() -> None:
    assert S.store_coverage(0) == 0.0
    assert round(S.store_coverage(3), 2) == 0.39 and round(S.store_coverage(10), 2) == 0.80
    assert S.store_coverage(30) > 0.99
    idfs = {"migration": 1.0, "relayaddress": 1.0, "django": 1.0}
    # a large store that never wrote two of three words: the task is most likely about something else
    assert S.known_share(idfs, {"migration"}, set(), 0.7, S.store_coverage(150)) == pytest.approx(1 / 3, abs=0.01)
    # a store of three memories knows few words of any task: their absence says little
    assert S.known_share(idfs, {"migration"}, set(), 0.7, S.store_coverage(3)) > 0.55
    assert S.known_share(idfs, {"migration"}, set(), 0.7) == pytest.approx(1 / 3)  # coverage 1: as before
