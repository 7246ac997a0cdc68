"""The memories side of the ``Workspace``: remember, confirm, supersede, archive, purge,
sessions, review, export and import, and the check of the memory files."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from archmem.errors import ConfigError, InvalidInputError, ModelNotFoundError
from archmem.model.types import ArchitectureModel

if TYPE_CHECKING:
    from archmem.drift.changes import ChangesSince
    from archmem.memory.check import CheckReport
    from archmem.memory.lifecycle import Embedding, RememberResult
    from archmem.memory.review import ReviewQueue
    from archmem.memory.sessions import SessionEnd
    from archmem.memory.transfer import ImportReport
    from archmem.memory.types import Memory, Session


class MemoryOps:
    """Writing and reading memories (``archmem/memory/``), signed and embedded here."""

    def check(self) -> CheckReport:
        """Every problem in the memory files and the drift accept files (``archmem
        check``), read from the files themselves: no index is opened or written, so it
        runs on a fresh clone in CI."""
        from archmem.memory.accept_check import check_accept_files
        from archmem.memory.check import MemoryFileText, check_memory_files

        folder = self.memory_folder

        def files() -> Iterator[MemoryFileText]:  # one file's bytes at a time, in path order
            for rel, stat in sorted(folder.scan().items()):
                try:
                    yield MemoryFileText(rel, folder.read(rel), stat.private)
                except OSError as exc:
                    yield MemoryFileText(rel, None, stat.private, exc.strerror or str(exc))

        try:
            model, found = self.model, True
        except ModelNotFoundError:
            model, found = ArchitectureModel(), False
        clients = self.rule_clients()
        report = check_memory_files(files(), model, model_found=found, keep_active=bool(clients and found))
        accepts = self.accept_folder
        texts = []
        for rel in accepts.files():
            try:
                texts.append(MemoryFileText(rel, accepts.read_file(rel)))
            except OSError as exc:
                texts.append(MemoryFileText(rel, None, read_error=exc.strerror or str(exc)))
        check_accept_files(report, texts, model, model_found=found)
        self._check_baseline(report, model if found else None)
        if clients and found:
            from archmem.memory.check import Finding

            plan = self.rules_plan(clients, memories=report.active)
            for path in plan.stale:
                what = "has no memories or code any more" if path in plan.remove else (
                    "is missing" if not (self.root / path).exists() else "differs from the memories now")
                report.findings.append(Finding(path, 1, 1, "warning", "stale-rules",
                                               f"this generated rule file {what}: `archmem brief --rules` refreshes it"))
            report.findings.sort(key=lambda f: (f.path, f.line, f.column, f.rule))
        return report

    def _check_baseline(self, report: CheckReport, model: ArchitectureModel | None) -> None:
        """The conformance baseline's entries that cannot hold any more (``stale-baseline``),
        or the file itself when it is not a baseline: checked from the files it names only."""
        from archmem.conformance.baseline import stale_entries
        from archmem.conformance.scan import extract, language_of
        from archmem.memory.check import Finding

        path = self.config.conformance.baseline
        try:
            baseline = self.conformance_baseline()
        except (InvalidInputError, ConfigError) as exc:
            where = re.match(r"^.*?:(\d+):(\d+): ", exc.message)
            line, column = (int(where.group(1)), int(where.group(2))) if where else (1, 1)
            report.findings.append(Finding(path, line, column, "error", "stale-baseline", exc.message))
            return
        if not baseline:
            return

        def imports_of(file: str) -> set[str] | None:
            try:
                text = (self.root / file).read_bytes().decode("utf-8", errors="replace")
            except OSError:
                return None
            language = language_of(file)
            return {ref.spec for ref in extract(language, text).imports} if language else set()

        known = (lambda e: model.get(e) is not None) if model is not None else (lambda e: True)
        for line, entry, why in stale_entries(baseline, known=known, imports_of=imports_of):
            report.findings.append(Finding(
                path, line, 1, "warning", "stale-baseline",
                f"frozen {entry.describe()} no longer holds: {why}; `archmem conformance --update-baseline` drops it"))

    def remember(
        self,
        content: str,
        *,
        kind: str,
        title: str | None = None,
        elements: Sequence[str] = (),
        anchors: Sequence[str] = (),
        supersedes: str | None = None,
        author: str | None = None,
        session_id: str | None = None,
        private: bool | None = None,
    ) -> RememberResult:
        """Remember a memory; ``private`` (default: ``[store] private_by_default``) keeps
        it in the git-ignored folder. Without an author or a session, this clone's git
        user signs it (``cli/<name>``)."""
        from archmem.memory.lifecycle import remember

        self._for_writing()
        if not author and session_id is None:
            author = self.author_for("cli")
        result = remember(
            self.memory_context, content, kind=kind, title=title, elements=elements, anchors=anchors,
            supersedes=supersedes, author=author, session_id=session_id, embed=self._embedder_for_writes(),
            private=self.config.store.private_by_default if private is None else private,
        )
        result.path = self.store.path_of(result.id)
        result.private = result.path is not None and self.memory_folder.is_private(result.path)
        return result

    def supersede(
        self,
        ref: str,
        content: str,
        *,
        kind: str | None = None,
        title: str | None = None,
        elements: Sequence[str] | None = None,
        anchors: Sequence[str] | None = None,
        author: str | None = None,
        session_id: str | None = None,
    ) -> RememberResult:
        """Remember ``content`` as the successor of the memory ``ref`` (id or title): its
        kind, title, elements, anchors and folder carry over unless given. The old one
        leaves recall and stays in its history."""
        old = self.get_memory(ref)
        return self.remember(
            content, kind=kind or old.kind, title=old.title if title is None else title,
            elements=old.elements if elements is None else elements,
            anchors=old.anchors if anchors is None else anchors, supersedes=old.id, author=author,
            session_id=session_id, private=old.private,
        )

    def author_for(self, client: str | None) -> str | None:
        """``client/name`` with this clone's git user as the name (``claude-code`` →
        ``claude-code/sarah``); a signature that already names someone stays as it is."""
        if client and "/" in client:
            return client
        user = self.repository.user_name()  # asked each time: a long-running server sees a change
        if user is None:
            return client
        return f"{client or 'cli'}/{'-'.join(str(user).split())}"

    def _embedder_for_writes(self) -> Callable[[str], Embedding] | None:
        """Text → ``Embedding`` with the configured provider, or None without one."""
        index = self.vector_index
        if index is None:
            return None
        from archmem.embeddings import text_hash
        from archmem.memory.lifecycle import Embedding

        return lambda text: Embedding(index=index, vector=index.embed(text), text_hash=text_hash(text))

    def get_memory(self, ref: str) -> Memory:
        from archmem.memory.lifecycle import resolve_memory

        return resolve_memory(self.store, ref)

    def confirm(
        self, ref: str, *, reason: str | None = None, seen: ChangesSince | None = None, by: str | None = None
    ) -> Memory:
        """Vouch for a memory now, as ``by`` (else this clone's git user, ``cli/name``).
        Who and ``reason`` (why it still holds) go into the memory's file; the reason
        also goes to the audit log of this clone's index, with the range of ``seen``
        (the changes shown first)."""
        from archmem.memory.lifecycle import confirm

        detail = {"base": seen.to_dict()["base"], "head": seen.head, "files": len(seen.files)} if seen else None
        self._for_writing()
        return confirm(self.memory_context, ref, reason, detail, by=by or self.author_for("cli"))

    def memory_changes(self, ref: str) -> tuple[Memory, ChangesSince | None]:
        """A memory, and what changed in its elements' code and its anchors since it was
        last confirmed (None without history or model: nothing to show)."""
        memory = self.get_memory(ref)
        view = self.drift
        return memory, view.memory_changes(memory) if view is not None else None

    def history(self, ref: str) -> list[Memory]:
        from archmem.memory.lifecycle import history

        return history(self.memory_context, ref)

    def archive(self, ref: str, reason: str) -> Memory:
        from archmem.memory.lifecycle import archive

        self._for_writing()
        return archive(self.memory_context, ref, reason)

    def unarchive(self, ref: str) -> Memory:
        """Bring an archived memory back into recall."""
        from archmem.memory.lifecycle import unarchive

        self._for_writing()
        return unarchive(self.memory_context, ref)

    def show(self, ref: str) -> dict[str, Any]:
        """One memory (id or title, archived and superseded ones too) with everything
        known about it: its file, whether to verify it and why, its supersede chain."""
        memory = self.get_memory(ref)
        reason = self.staleness(memory) if memory.status == "active" else None
        chain = self.history(memory.id)
        return {
            **memory.to_json(), "path": self.store.path_of(memory.id),
            "verify": reason is not None, "verify_reason": reason,
            "history": [{"id": m.id, "title": m.title, "status": m.status} for m in chain],
        }

    def purge(self, memory_id: str, reason: str) -> dict[str, Any]:
        """Delete a memory for good: its file and every trace in the index. A file that
        was committed stays in git history, and the answer says in which commits; a
        briefing, map or export archmem wrote that still holds it is named in
        ``outputs`` (those are the user's files: named, to delete or write again)."""
        from archmem.memory.lifecycle import purge

        self._for_writing()
        path = self.store.path_of(memory_id.strip())
        memory = self.store.get_memory(memory_id.strip())
        result = purge(self.memory_context, memory_id, reason)
        result["file"] = path
        result["committed_in"] = self.repository.commits_touching(path) if path else []
        result["outputs"] = [str(p) for p in self._written_outputs() if memory and _holds(p, memory)]
        return result

    def write_output(self, path: Path, text: str) -> None:
        """Write a briefing, a map or an export to ``path`` and remember that it was
        written, so ``purge`` can name the files that still hold what it deletes."""
        import json

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        where = str(path.resolve())
        kept = [p for p in self._written_outputs(existing=False) if str(p) != where][-(MAX_OUTPUTS - 1):]
        self.store.set_meta("outputs", json.dumps([*map(str, kept), where]))

    def _written_outputs(self, *, existing: bool = True) -> list[Path]:
        import json

        try:
            recorded = json.loads(self.store.meta("outputs") or "[]")
        except ValueError:
            recorded = []
        paths = [Path(p) for p in recorded if isinstance(p, str)]
        return [p for p in paths if p.is_file()] if existing else paths

    def list_memories(
        self, *, element: str | None = None, kind: str | None = None, status: str | None = "active",
        limit: int | None = None,
    ) -> list[Memory]:
        from archmem.memory.kinds import parse_kind
        from archmem.memory.types import MEMORY_STATUSES

        element_id = self.model_or_empty.find(element).id if element else None
        if status is not None and status not in MEMORY_STATUSES:
            raise InvalidInputError(f"unknown status {status!r}; one of {', '.join(MEMORY_STATUSES)}, or all")
        if limit is not None and limit < 1:
            raise InvalidInputError(f"--limit must be at least 1, not {limit}")
        found = self.store.list_memories(element=element_id, kind=parse_kind(kind) if kind else None, status=status)
        # the newest ``limit``, still oldest first: what `git log -n N --reverse` shows
        return found if limit is None else found[-limit:]

    def start_session(self, task: str, *, elements: Sequence[str] = (), agent: str | None = None) -> Session:
        from archmem.memory.sessions import start_session

        self._for_writing()
        return start_session(self.memory_context, task, elements=elements, agent=self.author_for(agent or "cli"))

    def end_session(
        self, session_id: str, *, used: Sequence[str] = (), outcome: str | None = None, author: str | None = None
    ) -> SessionEnd:
        from archmem.memory.sessions import end_session

        self._for_writing()
        return end_session(self.memory_context, session_id, used=used, outcome=outcome, author=author)

    def end_left_open(
        self, *, client: str | None = None, transcript: Path | str | None = None
    ) -> list[SessionEnd]:
        """End the sessions an agent's client left open (its session-end hook): those its
        transcript names, or without a transcript those ``client`` started, citing the
        memories each was shown that the agent named (``memory.sessions.end_left_open``).
        Where no index exists there is no session to end, and none is created."""
        from archmem.agents.transcripts import read_transcript
        from archmem.memory.sessions import SESSION_ID, end_left_open

        if not self.store_path.exists():
            return []
        text, words = read_transcript(transcript)
        ids = sorted(set(SESSION_ID.findall(text)))
        if not text and not client:
            return []
        self._for_writing()
        return end_left_open(self.memory_context, ids=ids, agents=[] if text else [client or ""], words=words)

    def review(self) -> ReviewQueue:
        from archmem.memory.review import review_queue

        drift = self.drift
        return review_queue(
            self.memory_context, ignored_after=self.config.recall.ignored_after,
            staleness=drift.verify_reason if drift is not None else None,
        )

    def export_memories(self) -> Iterator[str]:
        from archmem.memory.transfer import export_lines

        return export_lines(self.memory_context)

    def import_memories(self, lines: Iterable[str], *, partial: bool = False, source: str = "-") -> ImportReport:
        from archmem.memory.transfer import import_lines

        self._for_writing()
        return import_lines(self.memory_context, lines, partial=partial, source=source)


MAX_OUTPUTS = 50
"""The outputs ``purge`` looks at: the most recently written."""


def _holds(path: Path, memory: Memory) -> bool:
    """Whether an output file holds a memory: its id, its title or its content's first
    line, as written or HTML-escaped (the map is a page)."""
    import html

    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            text = handle.read(16 * 1024 * 1024)
    except OSError:
        return False
    first = memory.content.strip().split("\n")[0][:80]
    marks = [memory.id, memory.title or "", first]
    return any(mark and (mark in text or html.escape(mark) in text) for mark in marks)
