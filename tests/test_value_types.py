"""The model's and the memories' value types: plain dataclasses that print as they always did."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone

import pytest

from archmem.memory.types import Memory, Session
from archmem.model.types import ArchitectureModel, Element, Location

CREATED = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)


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


def test_a_value_compares_hashes_and_prints_as_a_generated_frozen_dataclass():
    from dataclasses import FrozenInstanceError, dataclass, field

    from archmem.values import Value

    @dataclass(frozen=True)
    class Generated:
        """The methods ``@dataclass`` writes."""

        name: str
        lines: list[int] = field(default_factory=list, compare=False)
        secret: str = field(default="s", repr=False)

    @dataclass(frozen=True, repr=False, eq=False)
    class Shared(Value):
        """The same fields, the methods of ``archmem.values``."""

        name: str
        lines: list[int] = field(default_factory=list, compare=False)
        secret: str = field(default="s", repr=False)

    for args in [("a",), ("a", [1, 2]), ("b", [], "t")]:
        assert repr(Shared(*args)) == repr(Generated(*args)).replace("Generated", "Shared", 1)
        assert hash(Shared(*args)) == hash(Generated(*args))
    assert Shared("a", [1]) == Shared("a", [2]) and Shared("a") != Shared("a", secret="t")
    assert Shared("a") != Generated("a") and Shared("a") != ("a", "s")
    assert {Shared("a", [1]), Shared("a", [2])} == {Shared("a")}
    with pytest.raises(FrozenInstanceError):
        Shared("a").name = "b"  # type: ignore[misc]
    assert dataclasses.replace(Shared("a", [1]), name="b") == Shared("b")
    assert dataclasses.asdict(Shared("a", [1])) == {"name": "a", "lines": [1], "secret": "s"}


def test_a_record_compares_and_prints_as_a_generated_dataclass_and_is_not_hashable():
    from dataclasses import dataclass, field

    from archmem.values import Record

    @dataclass(slots=True)
    class Generated:
        """The methods ``@dataclass`` writes."""

        items: list[Generated] = field(default_factory=list)
        count: int = 0

    @dataclass(slots=True, repr=False, eq=False)
    class Shared(Record):
        """The same fields, the methods of ``archmem.values``."""

        items: list[Shared] = field(default_factory=list)
        count: int = 0

    made, generated = Shared([Shared(count=1)], 2), Generated([Generated(count=1)], 2)
    made.items.append(made)  # printing a record that holds itself ends, as a dataclass's does
    generated.items.append(generated)
    assert repr(made) == repr(generated).replace("Generated", "Shared")
    assert Shared(count=1) == Shared(count=1) and Shared(count=1) != Shared(count=2)
    with pytest.raises(TypeError):
        hash(Shared())
    with pytest.raises(AttributeError):
        Shared().other = 1  # type: ignore[attr-defined]  # slots stay slots: no __dict__ from the base


def test_every_dataclass_takes_its_methods_from_archmem_values():
    """``@dataclass`` writes and compiles ``__repr__``, ``__eq__`` and ``__hash__`` per class
    at import; ``archmem.values`` has them once (see its module doc). Ordered classes and
    classes compared by identity keep their own."""
    import ast

    from .conftest import REPO_ROOT

    def options(decorator: ast.expr) -> dict[str, str] | None:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not ((isinstance(target, ast.Name) and target.id == "dataclass")
                or (isinstance(target, ast.Attribute) and target.attr == "dataclass")):
            return None
        keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
        return {k.arg or "": ast.unparse(k.value) for k in keywords}

    own = []
    for path in sorted((REPO_ROOT / "archmem").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for found in filter(None, map(options, node.decorator_list)):
                bases = {ast.unparse(b) for b in node.bases}
                keeps_own = "order" in found or (found.get("eq") == "False" and "repr" not in found)
                shared = found.get("repr") == "False" and found.get("eq") == "False" and bases & {
                    "Value" if found.get("frozen") == "True" else "Record", "Section"}
                if not keeps_own and not shared:
                    own.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name}")
    assert own == []


def test_an_error_that_is_a_record_still_raises_prints_and_compares_as_before():
    from archmem.memory.file_format import MemoryFileError

    with pytest.raises(MemoryFileError) as caught:
        raise MemoryFileError("no front matter", 2, 1, rule="schema")
    assert str(caught.value) == "2:1: no front matter"
    assert repr(caught.value) == "MemoryFileError(message='no front matter', line=2, column=1, rule='schema')"
    assert caught.value == MemoryFileError("no front matter", 2) and caught.value != MemoryFileError("other", 2)
