"""``archmem demo``: the bundled example system, turned into a git repository with a
scripted, back-dated history and 41 memories, then drift, a briefing and the map.

The story: a web shop modelled in Structurizr DSL. Months ago the team described it
and wrote down what they learned; 12 days ago the pricing engine was rewritten (its
memories now need verifying) and 4 days ago the migrations folder was removed (the
Orders Database element lost its code).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from archmem.clock import format_time
from archmem.errors import InvalidInputError, RepositoryError
from archmem.git.commands import run_as
from archmem.values import Record

TASK = "speed up checkout and change how tax is rounded"
AUTHOR = ("Shop Team", "team@shop.example")

PROMOTIONS = '''

# ---- promotions (the pricing rewrite) ------------------------------------------

PROMOTIONS = {{}}


def register_promotion(code: str, percent: int, *, stackable: bool = False) -> None:
    if not 0 < percent <= 50:
        raise ValueError("a promotion takes between 1 and 50 percent")
    PROMOTIONS[code] = (percent, stackable)
{rules}
'''


def example_source() -> Path:
    """Inside the wheel: ``archmem/examples/shop``; in a checkout: ``examples/shop``."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "examples" / "shop", package.parent / "examples" / "shop"):
        if (candidate / "workspace.dsl").is_file():
            return candidate
    raise RepositoryError("the bundled example is missing from this installation (examples/shop)")


@dataclass(repr=False, eq=False)
class DemoResult(Record):
    """What ``archmem demo`` built: the repository, its briefing and map, and what they hold."""

    root: Path
    briefing: Path
    knowledge_map: Path
    memories: int
    commits: int
    drift: dict[str, Any] = field(default_factory=dict)
    coverage: str = ""


def _git(root: Path, *args: str, when: datetime | None = None) -> None:
    run_as(root, *args, author=AUTHOR, when=when)


def _memory_lines(source: Path, now: datetime) -> list[str]:
    """The demo's memories with their ages turned into times before ``now``."""
    lines = []
    for raw in (source / "demo" / "memories.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(raw)
        created = record.pop("created_days_ago")
        confirmed = record.pop("confirmed_days_ago")
        record["created_at"] = format_time(now - timedelta(days=created))
        record["confirmed_at"] = format_time(now - timedelta(days=confirmed)) if confirmed is not None else None
        lines.append(json.dumps(record))
    return lines


def run_demo(target: Path, *, now: datetime, force: bool = False) -> DemoResult:
    from archmem.workspace import Workspace

    source = example_source()
    if target.exists() and any(target.iterdir()):
        if not force:
            raise InvalidInputError(
                f"{target} is not empty", hint="choose another --dir, or pass --force to replace it"
            )
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("demo", ".archmem", "__pycache__"))
    # the local index, private memories and what the demo writes stay out of git; the
    # memory files are committed like code (`archmem brief --changed` sees a clean tree)
    from archmem.initialize import GITIGNORE_LINES

    (target / ".gitignore").write_text("\n".join([*GITIGNORE_LINES, "briefing.md", "knowledge-map.html"]) + "\n",
                                       encoding="utf-8")
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "The shop, described in workspace.dsl", when=now - timedelta(days=320))
    validation = target / "services/orders/checkout/validation.py"
    validation.write_text(validation.read_text() + "\n\ndef require_currency(cart) -> None:\n"
                          "    if not getattr(cart, 'currency', None):\n        raise ValueError('cart without currency')\n")
    _git(target, "commit", "-q", "-am", "Checkout: carts must carry a currency", when=now - timedelta(days=90))

    with Workspace.open(target, clock=lambda: now, env={}) as ws:
        report = ws.import_memories(_memory_lines(source, now), source="demo memories")
        _git(target, "add", ws.config.store.memories)
        _git(target, "commit", "-q", "-m", "Team memory: what we learned about the shop, as reviewable files",
             when=now - timedelta(days=30))
        engine = target / "services/orders/pricing/engine.py"
        rules = "".join(
            f"\n\ndef promotion_{i}(subtotal: int) -> int:\n    \"\"\"Promotion rule {i}.\"\"\"\n"
            f"    return subtotal * {100 - i} // 100\n" for i in range(1, 17)
        )
        engine.write_text(engine.read_text() + PROMOTIONS.format(rules=rules))
        _git(target, "commit", "-q", "-am", "Pricing: promotions engine rewrite", when=now - timedelta(days=12))
        _git(target, "rm", "-q", "-r", "db/migrations")
        _git(target, "commit", "-q", "-m", "Move migrations into the ORM", when=now - timedelta(days=4))

        drift = ws.drift_report()
        briefing = ws.brief(TASK)
        knowledge = ws.knowledge_map()
        briefing_path = target / "briefing.md"
        ws.write_output(briefing_path, briefing.markdown)
        map_path = target / "knowledge-map.html"
        ws.write_output(map_path, knowledge.render("html"))
    return DemoResult(
        root=target, briefing=briefing_path, knowledge_map=map_path, memories=len(report.imported),
        commits=drift.commits, drift=drift.to_dict(), coverage=knowledge.coverage,
    )
