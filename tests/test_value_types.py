"""The model's and the memories' value types: plain dataclasses that print as they always did."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from archmem.memory.types import Memory, Session
from archmem.model.types import ArchitectureModel, Element, Location

CREATED = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)


def test_a_memory_as_json_is_what_the_json_output_always_said():
    memory = Memory(id="m-tax", title="Tax rounding", kind="convention", content="Round once.",
                    elements=["shop.orders"], anchors=["orders/tax.py#tax"], created_at=CREATED,
                    confirmed_at=CREATED + timedelta(days=3, microseconds=120_000), confirmations=2)
    assert memory.to_json() == {
        "id": "m-tax", "title": "Tax rounding", "kind": "convention", "content": "Round once.",
        "elements": ["shop.orders"], "anchors": ["orders/tax.py#tax"], "author": None, "session_id": None,
        "created_at": "2026-01-05T10:00:00Z", "confirmed_at": "2026-01-08T10:00:00.120000Z",
        "confirmed_by": None, "confirm_reason": None, "confirmations": 2, "supersedes": None,
        "superseded_by": None, "status": "active", "status_reason": None, "exposures": 0, "citations": 0,
        "private": False,
    }


def test_a_session_as_json_keeps_an_offset_that_is_not_utc():
    session = Session(id="s-1", task="tax", elements=["shop"],
                      started_at=datetime(2026, 1, 5, 11, 0, tzinfo=timezone(timedelta(hours=1))))
    assert session.to_json() == {"id": "s-1", "task": "tax", "agent": None, "elements": ["shop"],
                                 "started_at": "2026-01-05T11:00:00+01:00", "ended_at": None,
                                 "outcome_memory_id": None}


def test_a_memory_of_no_known_kind_or_status_is_refused():
    with pytest.raises(ValueError):
        Memory(id="m", kind="rumour", content="x", created_at=CREATED)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Memory(id="m", kind="note", content="x", created_at=CREATED, status="lost")  # type: ignore[arg-type]


def test_a_copied_model_looks_up_its_own_elements():
    model = ArchitectureModel(elements=[Element(id="a", name="A", kind="container")])
    assert model.get("a") is not None
    copied = dataclasses.replace(model, elements=[Element(id="b", name="B", kind="container", parent=None)])
    assert copied.get("a") is None and copied.get("b") is not None and model.get("b") is None


def test_a_location_is_a_hashable_value():
    assert {Location(file="w.dsl", line=3), Location(file="w.dsl", line=3)} == {Location(file="w.dsl", line=3)}


def test_the_value_types_need_no_pydantic():
    code = "import sys, archmem.model.types, archmem.memory.types; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_published_memory_schema_has_every_field_of_a_memory():
    from archmem.mcp.schemas import MemoryRecord

    assert list(MemoryRecord.model_fields) == [item.name for item in dataclasses.fields(Memory)]
