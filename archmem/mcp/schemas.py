"""The MCP tools' output schemas: what each tool's structured content holds.

The SDK publishes each model as the tool's ``outputSchema`` and checks every
successful answer against it; clients check it too. The models name the fields an
agent reads (types, enums, what may be null) and leave room for more: a field archmem
adds later is not a broken answer. Error answers (``isError``) carry no structured
content (clients would check it against these), and the error as data in ``_meta``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from archmem.memory.types import Memory, MemoryKind

ElementStatus = Literal["in_sync", "drifted", "missing", "no_paths"]


class Via(BaseModel):
    id: str
    title: str | None


class ElementMatch(BaseModel):
    """An element a task is about, as recall scores it."""

    id: str
    name: str
    kind: str
    score: float | None = Field(description="Null for an element that came along through a [[link]] (via).")
    reasons: list[str]


class RecalledElement(ElementMatch):
    via: Via | None = Field(None, description="The result whose [[link]] named it.")


class FoundElement(ElementMatch):
    description: str
    technology: str
    parent: str | None
    paths: list[str] = Field(description="The globs of the code it owns (its children's when it has none).")
    memories: int = Field(description="How many active memories it holds.")


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
    verify: bool = Field(description="The code under it moved since it was confirmed: check it before relying on it.")
    verify_reason: str | None


class RecallItem(MemoryFields):
    score: float
    factors: dict[str, float | None] | None = Field(None, description="Every factor of the score (explain: true).")
    synonyms: list[str] | None = Field(
        None, description="The task's words this memory was found by through a synonym (explain: true)."
    )


class LinkedMemory(MemoryFields):
    via: Via = Field(description="The result whose [[link]] brought it along.")


class LinkedDecision(BaseModel):
    id: str
    title: str
    kind: Literal["decision"]
    content: str = Field(description="Its status and file.")
    elements: list[str]
    status: str | None
    path: str
    verify: bool
    verify_reason: str | None
    via: Via = Field(description="The result whose [[link]] brought it along.")


class Recalled(BaseModel):
    mode: str = Field(description="lexical (words only) or hybrid (words and meaning).")
    results: list[RecallItem] = Field(description="The ranked memories, best first, at most limit.")
    linked: list[LinkedMemory | LinkedDecision] = Field(
        description="Memories and decisions (ADRs) a result [[links]], outside the limit."
    )
    elements: list[RecalledElement]
    warnings: list[str]
    known_words: float | None = Field(
        None, description="The share of the task's words a memory or an element holds (what answering weighs by)."
    )


class BriefingData(BaseModel):
    """A briefing as data; its Markdown is the answer's text (not repeated here)."""

    task: str
    mode: str = Field(description="overview (what holds for every task), else how its memories were ranked: "
                                   "lexical or hybrid.")
    memories: list[str] = Field(description="Ids of the memories it shows, in order.")
    cut: int = Field(description="Memories left out to fit the budget.")
    gaps: list[str] = Field(description="Relevant elements nobody has written about.")
    elements: list[str]
    warnings: list[str]


class SessionStarted(BaseModel):
    session_id: str = Field(description="Pass it to recall and remember; finish with end_session.")
    session: dict[str, Any]
    briefing: BriefingData


class Remembered(BaseModel):
    id: str
    title: str | None
    deduplicated: bool = Field(description="It restated an existing memory, which was confirmed instead.")
    similar_to: list[dict[str, Any]] = Field(description="Near memories: supersede one of them on purpose?")
    links: list[dict[str, Any]]
    pending_links: list[str]
    warnings: list[str]
    elements: list[str]
    anchors: list[str]
    supersedes: str | None
    path: str | None = Field(description="The memory's file (commit it to share it).")
    private: bool


class SessionEnded(BaseModel):
    session_id: str
    cited: list[str] = Field(description="Ids of the memories recorded as used.")
    unknown: list[str] = Field(description="Names that matched no memory (not recorded).")
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
    since: str | None = Field(description="When the model last described it (or drift was accepted).")
    stamp: dict[str, Any] | None = Field(description="The commit at which its code crossed the threshold.")
    size: dict[str, int]


class MemoryDrift(BaseModel):
    id: str
    title: str | None
    status: str
    verify: bool
    verify_reason: str | None


class DriftData(BaseModel):
    score: int | None = Field(description="100 = every element's code as the model describes it; null: not measured.")
    counts: dict[str, int]
    elements: list[ElementDrift]
    stale_memories: list[dict[str, Any]]
    commits: int
    no_commits: bool
    warnings: list[str]
    memory: MemoryDrift | None = Field(None, description="The memory asked about, when one was.")


class History(BaseModel):
    current: str | None = Field(description="The id of the active memory of the chain, if one is.")
    history: list[Memory] = Field(description="The supersede chain, oldest first.")


OUTPUTS: dict[str, type[BaseModel]] = {
    "start_session": SessionStarted, "recall": Recalled, "remember": Remembered, "supersede": Remembered,
    "confirm_memory": Memory, "archive": Memory, "end_session": SessionEnded, "brief": BriefingData,
    "find_elements": FoundElements, "knowledge_map": KnowledgeMapData, "review_queue": ReviewQueueData,
    "drift": DriftData, "history": History,
}
