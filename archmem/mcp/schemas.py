"""The MCP tools' output schemas: what each tool's structured content holds.

The SDK publishes each model as the tool's ``outputSchema`` and checks every
successful answer against it; clients check it too. The models name the fields an
agent reads (types, enums, what may be null) and leave room for more: a field archmem
adds later is not a broken answer. Error answers (``isError``) carry no structured
content (clients would check it against these), and the error as data in ``_meta``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from archmem.memory.types import MemoryKind, MemoryStatus

ElementStatus = Literal["in_sync", "drifted", "missing", "no_paths"]


class Via(BaseModel):
    id: str
    title: str | None


class ElementMatch(BaseModel):
    """An element a task is about, as recall scores it."""

    id: str
    name: str
    kind: str
    score: float | None = Field(description="Null: only a [[link]] named it.")
    reasons: list[str]


class RecalledElement(ElementMatch):
    via: Via | None = None


class FoundElement(ElementMatch):
    description: str
    technology: str
    parent: str | None
    paths: list[str]
    memories: int


class MemoryFields(BaseModel):
    """What recall says of a memory, ranked or linked."""

    id: str
    title: str | None
    kind: MemoryKind
    content: str
    elements: list[str]
    anchors: list[str]
    author: str | None
    private: bool = False
    created_at: str
    confirmed_at: str | None
    verify: bool
    verify_reason: str | None


class RecallItem(MemoryFields):
    score: float
    factors: dict[str, float | None] | None = None
    synonyms: list[str] | None = Field(None, description="Task words it was found by through a synonym.")


class LinkedMemory(MemoryFields):
    via: Via


class LinkedDecision(BaseModel):
    id: str
    title: str
    kind: Literal["decision"]
    content: str
    elements: list[str]
    status: str | None
    path: str
    verify: bool
    verify_reason: str | None
    via: Via


class Recalled(BaseModel):
    mode: str = Field(description="lexical (words) or hybrid (words and meaning).")
    results: list[RecallItem]
    weak: list[RecallItem] = Field(default_factory=list, description="Unsure: best candidates; skip misfits.")
    linked: list[LinkedMemory | LinkedDecision] = Field(description="What results [[link]] (via), beyond limit.")
    elements: list[RecalledElement]
    warnings: list[str]
    known_words: float | None = Field(None, description="Share of the task's words archmem holds.")
    decision: Literal["answer", "weak", "nothing"] | None = None
    confidence: float | None = None
    evidence: dict[str, float] | None = None


class BriefingData(BaseModel):
    """A briefing as data; its Markdown is the answer's text (not repeated here)."""

    task: str
    mode: str = Field(description="overview (no memory is about the task), lexical or hybrid.")
    memories: list[str] = Field(description="Ids shown, in order.")
    cut: int = Field(description="Memories left out to fit the budget.")
    gaps: list[str] = Field(description="Relevant elements nobody wrote about.")
    elements: list[str]
    warnings: list[str]


class SessionStarted(BaseModel):
    session_id: str
    session: dict[str, Any]
    briefing: BriefingData


class Remembered(BaseModel):
    id: str
    title: str | None
    deduplicated: bool = Field(description="It restated a memory, which was confirmed instead.")
    similar_to: list[dict[str, Any]]
    links: list[dict[str, Any]]
    pending_links: list[str]
    warnings: list[str]
    elements: list[str]
    anchors: list[str]
    supersedes: str | None
    path: str | None = Field(description="Its file: commit it to share it.")
    private: bool


class SessionEnded(BaseModel):
    session_id: str
    cited: list[str]
    unknown: list[str]
    outcome_id: str | None
    outcome: dict[str, Any] | None


class FoundElements(BaseModel):
    elements: list[FoundElement]


class MapCell(BaseModel):
    id: str
    name: str
    kind: str
    depth: int
    documented: bool
    memories: dict[str, list[str]] = Field(description="Titles by kind.")
    freshness: str
    pitfalls: int
    verify: int
    drift: ElementStatus | None


class KnowledgeMapData(BaseModel):
    title: str
    coverage: str
    documented: int
    total: int
    elements: list[MapCell]
    unowned: list[str] = Field(description="Code files no element owns.")
    project_wide: list[dict[str, Any]]
    drift_note: str | None


class ReviewQueueData(BaseModel):
    ignored: list[dict[str, Any]]
    near_duplicates: list[dict[str, Any]]
    pending_links: list[dict[str, Any]]
    verify: list[dict[str, Any]]
    forks: list[dict[str, Any]]
    total: int


class ElementDrift(BaseModel):
    id: str
    name: str
    status: ElementStatus
    since: str | None
    stamp: dict[str, Any] | None
    size: dict[str, int]


class MemoryDrift(BaseModel):
    id: str
    title: str | None
    status: str
    verify: bool
    verify_reason: str | None


class DriftData(BaseModel):
    score: int | None = Field(description="100: all code as the model says; null: not measured.")
    counts: dict[str, int]
    elements: list[ElementDrift]
    stale_memories: list[dict[str, Any]]
    commits: int
    no_commits: bool
    warnings: list[str]
    memory: MemoryDrift | None = None


class Confirmed(BaseModel):
    """The memory confirmed: every field of it comes back; these are what confirming changes."""

    id: str
    title: str | None
    status: MemoryStatus
    confirmed_at: str | None
    confirmations: int
    changes_since_confirmed: dict[str, Any] | None = Field(description="What changed in its code since.")


class Archived(BaseModel):
    """The memory archived: every field of it comes back; these are what archiving changes."""

    id: str
    title: str | None
    status: MemoryStatus
    status_reason: str | None


class MemoryRecord(BaseModel):
    """Every field of a memory, as ``Memory.to_json()`` writes it."""

    id: str
    title: str | None = None
    kind: MemoryKind
    content: str
    elements: list[str] = Field(default_factory=list)
    anchors: list[str] = Field(default_factory=list)
    author: str | None = None
    session_id: str | None = None
    created_at: datetime
    confirmed_at: datetime | None = None
    confirmed_by: str | None = None
    confirm_reason: str | None = None
    confirmations: int = 0
    supersedes: str | None = None
    superseded_by: str | None = None
    status: MemoryStatus = "active"
    status_reason: str | None = None
    exposures: int = 0
    citations: int = 0
    private: bool = False


class ShownMemory(MemoryRecord):
    path: str | None = Field(description="Its file: commit it to share it.")
    verify: bool
    verify_reason: str | None
    history: list[dict[str, Any]] = Field(description="Supersede chain, oldest first.")


class History(BaseModel):
    current: str | None = Field(description="Id of the chain's active memory.")
    history: list[MemoryRecord]


OUTPUTS: dict[str, type[BaseModel]] = {
    "start_session": SessionStarted, "recall": Recalled, "remember": Remembered, "supersede": Remembered,
    "confirm_memory": Confirmed, "archive": Archived, "end_session": SessionEnded, "brief": BriefingData,
    "find_elements": FoundElements, "knowledge_map": KnowledgeMapData, "review_queue": ReviewQueueData,
    "drift": DriftData, "show_memory": ShownMemory, "history": History,
}


# ---- what tools/list publishes -------------------------------------------------------
# Every agent session pays for the tool list in tokens (at most 16 KB). pydantic's
# schemas repeat each property's name as its title and spell ``X | None`` as an anyOf;
# the published ones say the same in fewer bytes, and pin every answer's own fields
# (name, type, null or not, enum, required) while a field that nests objects is
# published as an object (or a list of objects). The SDK still checks each answer
# against the whole model before it leaves the server, so what the models above say
# holds on the wire.


def published_output(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """The output schema ``tools/list`` shows for a tool's ``schema``."""
    if schema is None:
        return None
    # an output's defaults say nothing about an answer (an input's tell the agent what it gets)
    return compact_schema(outline(schema), defaults=False)


def outline(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema``'s own fields as they are, a field that nests an object (or a list of
    them) as ``object``; no ``$defs`` left to refer to."""

    def nested(part: dict[str, Any]) -> bool:
        return "$ref" in part or "properties" in part

    def field(part: dict[str, Any]) -> dict[str, Any]:
        said = {k: v for k, v in part.items() if k == "description"}
        if nested(part):
            return {"type": "object", **said}
        options = part.get("anyOf")
        if isinstance(options, list) and any(nested(o) for o in options):
            outlined: list[dict[str, Any]] = []
            for option in map(field, options):
                if option not in outlined:  # two kinds of object are one "object"
                    outlined.append(option)
            return {**outlined[0], **said} if len(outlined) == 1 else {"anyOf": outlined, **said}
        items = part.get("items")
        if isinstance(items, dict) and (nested(items) or "anyOf" in items):
            return {**part, "items": field(items)}
        return part

    kept = {k: v for k, v in schema.items() if k != "$defs"}
    if "properties" in kept:
        kept["properties"] = {name: field(part) for name, part in kept["properties"].items()}
    return kept


NULL = {"type": "null"}
NESTED = ("items", "prefixItems", "anyOf", "oneOf", "allOf", "not", "additionalProperties")


def compact_schema(schema: Any, *, defaults: bool = True) -> Any:
    """``schema`` without titles, null defaults (every default, ``defaults=False``),
    ``additionalProperties: true`` (all mean nothing to a validator) and models'
    docstrings, with ``anyOf [X, null]`` as ``X`` typed ``[T, "null"]``."""
    if isinstance(schema, list):
        return [compact_schema(part, defaults=defaults) for part in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" or (key == "additionalProperties" and value is True):
            continue
        if key == "default" and (value is None or not defaults):
            continue
        if key == "description" and "properties" in schema:  # a model's docstring, written for its code
            continue
        if key in ("properties", "$defs"):  # names, then schemas: a property may be called "title"
            out[key] = {name: compact_schema(part, defaults=defaults) for name, part in value.items()}
        else:
            out[key] = compact_schema(value, defaults=defaults) if key in NESTED else value
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and NULL in options:
        other = options[0] if options[1] == NULL else options[1]
        if isinstance(other.get("type"), str) and not set(other) & (set(out) - {"anyOf"}):
            del out["anyOf"]
            merged = {**other, "type": [other["type"], "null"]}
            if "enum" in merged:
                merged["enum"] = [*merged["enum"], None]
            if "const" in merged:
                merged = {**{k: v for k, v in merged.items() if k != "const"}, "enum": [merged["const"], None]}
            out = {**merged, **out}
    return out
