"""The recall side of the ``Workspace``: relevant elements, ranked memories, embeddings."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from archmem.clock import format_time
from archmem.errors import ConfigError, InvalidInputError
from archmem.model.ownership import Ownership
from archmem.workspace.drift import DriftOps

if TYPE_CHECKING:
    from archmem.embeddings import BackfillReport, Embedder
    from archmem.memory.types import Memory
    from archmem.recall.elements import ElementIndex
    from archmem.recall.engine import RecallResult
    from archmem.recall.semantic import VectorIndex
    from archmem.recall.synonyms import Thesaurus


class RecallOps(DriftOps):
    """Recall (``archmem/recall/``) with this workspace's model, drift and provider."""

    @cached_property
    def thesaurus(self) -> Thesaurus:
        """The shipped synonym groups (unless ``shipped_synonyms = false``) and the
        project's own (``[recall] synonyms``), analysed as the word index analyses text."""
        from archmem.recall.synonyms import Thesaurus, shipped_groups

        config = self.config.recall
        groups = (shipped_groups() if config.shipped_synonyms else []) + config.synonyms
        return Thesaurus(groups, self.store.index_forms)

    @cached_property
    def element_index(self) -> ElementIndex:
        from archmem.recall.elements import ElementIndex

        config = self.config.recall
        return ElementIndex(
            self.model_or_empty, self.store.index_forms, broad_weight=config.broad_word_weight,
            thesaurus=self.thesaurus, synonym_weight=config.synonym_weight,
        )

    def find_elements(self, task: str, *, limit: int = 10) -> list[dict[str, Any]]:
        """The elements a task is about, as recall scores them (words of the task against
        each element's name, description, tags, technology), with their code and how
        many active memories each holds."""
        from archmem.recall.elements import describe_matches, relevant_elements

        if not task or not task.strip():
            raise InvalidInputError("finding elements needs a task: what are you about to work on?")
        if limit < 1:
            raise InvalidInputError(f"limit must be at least 1, not {limit}")
        model = self.model_or_empty
        matches = relevant_elements(
            model, self.element_index, None, query=task, config=self.config.recall
        )
        return describe_matches(model, matches, self.store.element_memory_counts(), limit=limit)

    def elements(self, query: str | None = None, *, limit: int | None = None) -> list[dict[str, Any]]:
        """The model's elements: with a query, those it is about, best first (the
        search ``find_elements`` does); without, every element in model order. Each with
        its code and how many active memories it holds."""
        if query is not None and query.strip():
            return self.find_elements(query, limit=limit or 10)
        if limit is not None and limit < 1:
            raise InvalidInputError(f"--limit must be at least 1, not {limit}")
        model = self.model
        counts = self.store.element_memory_counts()
        found = [{
            "id": e.id, "name": e.name, "kind": e.kind, "score": None, "reasons": [], "description": e.description,
            "technology": e.technology, "parent": e.parent, "paths": model.effective_paths(e.id),
            "memories": counts.get(e.id, 0),
        } for e in model.elements]
        return found if limit is None else found[:limit]

    def recall(
        self,
        query: str,
        *,
        elements: Sequence[str] = (),
        changed_files: Sequence[str] = (),
        changed: bool = False,
        session_id: str | None = None,
        limit: int = 5,
        explain: bool = False,
        always_answer: bool = False,
    ) -> RecallResult:
        """The memories that matter for a task, ranked, with why (docs/architecture.md, "Recall")."""
        from archmem.recall.engine import RecallContext, recall

        if limit < 1:
            raise InvalidInputError(f"--limit must be at least 1, not {limit}")
        files = list(changed_files) + (self.repository.changed_files() if changed else [])
        self.store_read_while_syncing()  # settled below, once the answer is worked out
        self.repository.start_listing()  # drift lists the code once the model is read
        if session_id is not None:
            from archmem.memory.sessions import get_session

            get_session(self.memory_context, session_id)
        store = self.store  # opened before the model is read: the index keeps the parsed model
        model = self.model_or_empty
        warned = len(self._recall_warnings)
        ctx = RecallContext(
            store=store,
            model=model,
            config=self.config.recall,
            now=self.clock(),
            ownership=(self.ownership if model.elements else Ownership()) if files or elements else None,
            element_index=self.element_index,
            staleness=self._staleness,
            semantic=self.semantic_search,
            thesaurus=self.thesaurus,
            warnings=list(self._recall_warnings),
            meanwhile=self._prepare_drift,
        )
        result = recall(ctx, query, elements=elements, changed_files=files, limit=limit, explain=explain,
                        always_answer=always_answer)
        # drift's own warnings (it is computed while the words are searched, once git has
        # listed the code meanwhile) come first, as they would had it been computed first
        result.warnings[warned:warned] = self._recall_warnings[warned:]
        if self.settle_sync():  # a memory file changed meanwhile: the answer is worked out again
            self.refresh()
            return self.recall(query, elements=elements, changed_files=changed_files, changed=changed,
                               session_id=session_id, limit=limit, explain=explain, always_answer=always_answer)
        result.warnings.extend(self._fork_warnings(result.memory_ids))
        result.warnings.extend(self.file_warnings)  # an agent hears of a broken memory file too
        if session_id is not None and result.memory_ids:
            from archmem.memory.sessions import record_exposures

            record_exposures(self.memory_context, session_id, result.memory_ids)
        return result

    def _prepare_drift(self) -> None:
        """Drift's view and index, read while recall's word search runs."""
        view = self.drift
        if view is not None:
            view.index  # noqa: B018  (read now, while SQLite ranks the words)

    def _staleness(self, memories: Sequence[Memory]) -> Mapping[str, str | None]:
        """Drift's VERIFY reasons, drift computed at the first question (``recall`` asks
        once it has searched the words: the code listing drift needs is read meanwhile)."""
        from archmem.recall.engine import nothing_is_stale

        view = self.drift
        return view.verify_reasons(memories) if view is not None else nothing_is_stale(memories)

    def _fork_warnings(self, shown: Sequence[str]) -> list[str]:
        """A shown memory that is one of two successors of one memory is half of two
        truths (two branches each superseded it): say so, never pick one silently."""
        warnings = []
        for old_id, successors in self.store.forks().items():
            if set(successors) & set(shown):
                warnings.append(
                    f"forked: {', '.join(successors)} all supersede {old_id}; only one can hold "
                    "(supersede one by the other; `archmem check` lists every fork)"
                )
        return warnings

    @cached_property
    def embedder(self) -> Embedder | None:
        """The configured embedding provider, or None (``provider = "none"``)."""
        if self.config.embeddings.provider == "none":
            return None
        from archmem.embeddings import make_embedder

        return make_embedder(self.config.embeddings, self.env)

    @cached_property
    def vector_index(self) -> VectorIndex | None:
        if self.embedder is None:
            return None
        from archmem.recall.semantic import VectorIndex

        return VectorIndex(self.store, self.embedder)

    @property
    def semantic_search(self) -> VectorIndex | None:
        return self.vector_index

    def memory_embedding_text(self, memory: Memory) -> str:
        from archmem.embeddings import embedding_text

        return embedding_text(memory.title, memory.content, self.model_or_empty.names(memory.elements))

    def embed_missing(
        self, *, batch_size: int = 32, progress: Callable[[int, int], None] | None = None
    ) -> BackfillReport:
        """Embed every active memory whose vector for the configured model is missing
        or stale (``archmem embed``)."""
        from archmem.embeddings import backfill

        if self.embedder is None:
            raise ConfigError(
                "no embedding provider is configured",
                hint='set [embeddings] provider = "openai" or "ollama" (and model) in archmem.toml',
            )
        self._for_writing()
        return backfill(
            self.store, self.embedder, self.memory_embedding_text, now=format_time(self.clock()),
            batch_size=batch_size, progress=progress,
        )

