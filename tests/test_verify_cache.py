"""How many memories to VERIFY is kept in the index under a digest of everything the
verdicts depend on: a second ``status`` works out no verdict, and each input that can
change one (a memory file, a commit, the drift settings, the text of an anchored file in
the working tree, a write in the same process) makes it work them out again. Real git
repositories with back-dated commits; the folder size from which git's signature is used
is lowered so a few files have one."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from archmem.drift.staleness import StalenessChecker
from archmem.memory import sync as sync_module
from archmem.status import workspace_status
from archmem.workspace import Workspace

from .conftest import DRIFT_MODEL, FrozenClock, commit, git, lines, spy, write

CHARGE = "def charge(amount):\n    total = amount\n    return total\n"


def clock(day: int) -> FrozenClock:
    frozen = FrozenClock()
    frozen.now = datetime(2026, 1, day, 12, tzinfo=UTC)
    return frozen


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two memories on ApiGateway and one anchored to ``charge`` in Orders' code, all
    committed; then the gateway is rewritten and ``charge`` changed."""
    monkeypatch.setattr(sync_module, "SIGNATURE_FROM", 2)
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q")
    write(root, {"workspace.dsl": DRIFT_MODEL, "services/api/router.go": lines(40),
                 "services/orders/app.py": lines(30, "# note") + CHARGE})
    commit(root, "initial", "2026-01-01T00:00:00Z")
    with Workspace.open(root, clock=clock(1), env={}) as ws:
        for title in ("Retries", "Timeouts"):
            ws.remember(f"{title} are set in the gateway.", kind="convention", title=title, elements=["ApiGateway"])
        ws.remember("Charges are rounded once.", kind="pitfall", title="Rounding",
                    anchors=["services/orders/app.py#charge"])
    commit(root, "memories", "2026-01-02T00:00:00Z")
    write(root, {"services/api/router.go": lines(200),
                 "services/orders/app.py": lines(30, "# note") + CHARGE.replace("total = amount", "total = round(amount)")})
    commit(root, "rewrite", "2026-01-03T00:00:00Z")
    return root


def to_verify(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(memories to VERIFY as status counts them, verdict passes it worked out)."""
    real = StalenessChecker.stale_ids
    passes = spy(monkeypatch, StalenessChecker, "stale_ids")
    with Workspace.open(root, clock=clock(5), env={}) as ws:
        found = workspace_status(ws)["drift"]["stale_memories"]
    monkeypatch.setattr(StalenessChecker, "stale_ids", real)
    return found, len(passes)


def test_a_second_status_works_out_no_verdict(shop: Path, monkeypatch: pytest.MonkeyPatch):
    assert to_verify(shop, monkeypatch) == (3, 1)
    assert to_verify(shop, monkeypatch) == (3, 0)


def test_a_confirmed_memory_and_a_new_commit_are_counted_again(shop: Path, monkeypatch: pytest.MonkeyPatch):
    to_verify(shop, monkeypatch)
    with Workspace.open(shop, clock=clock(5), env={}) as ws:
        [retries] = [m for m in ws.store.list_memories() if m.title == "Retries"]
        ws.confirm(retries.id, reason="still true")
    assert to_verify(shop, monkeypatch) == (2, 1)
    commit(shop, "confirmed", "2026-01-05T13:00:00Z")
    assert to_verify(shop, monkeypatch) == (2, 1)
    write(shop, {"services/api/router.go": lines(200, "changed")})  # as many lines: only history moved
    commit(shop, "the gateway again", "2026-01-06T00:00:00Z")
    assert to_verify(shop, monkeypatch) == (3, 1)


def test_other_drift_settings_are_counted_again(shop: Path, monkeypatch: pytest.MonkeyPatch):
    assert to_verify(shop, monkeypatch) == (3, 1)
    write(shop, {"archmem.toml": "[drift]\nmin_lines = 100000\nmin_file_events = 100000\n"})
    assert to_verify(shop, monkeypatch) == (1, 1)  # the gateway no longer counts as drifted


def test_an_anchored_file_edited_in_the_working_tree_is_counted_again(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """``path#Symbol`` is looked for in the file as it is now: moved to the top, not
    committed (as many lines: no element's size moves), it is away from what history
    changed."""
    assert to_verify(shop, monkeypatch) == (3, 1)
    app = shop / "services" / "orders" / "app.py"
    app.write_text(CHARGE.replace("total = amount", "total = round(amount)") + lines(30, "# note"))
    assert to_verify(shop, monkeypatch) == (2, 1)


def test_a_write_in_the_same_process_is_counted_again(shop: Path):
    with Workspace.open(shop, clock=clock(5), env={}) as ws:
        assert workspace_status(ws)["drift"]["stale_memories"] == 3
    with Workspace.open(shop, clock=clock(5), env={}) as ws:
        assert workspace_status(ws)["drift"]["stale_memories"] == 3
        [retries] = [m for m in ws.store.list_memories() if m.title == "Retries"]
        ws.confirm(retries.id, reason="still true")
        assert workspace_status(ws)["drift"]["stale_memories"] == 2


def test_an_element_grown_in_the_working_tree_is_counted_again(shop: Path, monkeypatch: pytest.MonkeyPatch):
    """How much churn makes an element drift grows with its size, as the files are now."""
    assert to_verify(shop, monkeypatch) == (3, 1)
    write(shop, {"services/api/generated_table.go": lines(10_000)})
    assert to_verify(shop, monkeypatch) == (1, 1)
