"""``archmem status``: where archmem looks, what it found, and what to do next.

Each part (model, store, recall, drift) is read on its own: a part that fails says why
in its place and the others are still shown, because a status command is what people
run when something is wrong. No memory changes and no index file is created (drift
brings an existing history cache up to date, or reads the history into memory); no
provider is called unless ``check_provider`` asks for one small embedding.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from archmem import __version__
from archmem.agents.hook_check import CLEAN_PATH, check_hooks
from archmem.agents.install import installed
from archmem.clock import format_time
from archmem.errors import ArchmemError, NoModelError
from archmem.words import plural

if TYPE_CHECKING:
    from archmem.workspace import Workspace


def workspace_status(ws: Workspace, *, check_provider: bool = False) -> dict[str, Any]:
    status: dict[str, Any] = {"version": __version__, "root": str(ws.root), "git": ws.repository.is_git}
    # model first: the drift part below reads it too, and its error belongs to the model line
    stored = ws.store_path.exists()  # status never creates a store
    accepts_uncommitted = _started_accepts_look(ws)
    status["store"] = _part(ws.store.stats) if stored else {
        "path": str(ws.store_path), "missing": True, "memories": {}, "sessions": 0, "open_sessions": 0,
        "vectors": {}, "pending_links": 0,
    }
    status["store"]["path"] = _relative(ws, ws.store_path)
    status["files"] = _part(lambda: _files(ws, stored, accepts_uncommitted))
    status["model"] = _part(lambda: _model(ws, stored))
    status["recall"] = _part(lambda: _recall(ws, status["store"], check_provider))
    # without an index file, drift reads the history into memory (see Workspace.store),
    # but status does not build the index where a read would keep it
    status["drift"] = _part(lambda: _drift(ws)) if stored or not ws.reads_keep_index() else {
        "error": "not computed: the index is not built yet (archmem drift builds it and computes drift)"
    }
    status["command"] = shutil.which("archmem")
    status["agents"] = installed(ws.root, command=status["command"])
    status["hooks"] = [check.to_dict() for check in check_hooks(
        ws.root, [client for client, state in status["agents"].items() if state != "no" and not state.startswith("error")])]
    status["next"] = _next_steps(status)
    return status


def _part(read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return read()
    except ArchmemError as exc:
        found: dict[str, Any] = {"error": str(exc)}
        if exc.hint:
            found["hint"] = exc.hint
        if isinstance(exc, NoModelError):
            found["no_model"] = True
        location = getattr(exc, "location", None)
        if location is not None:
            found["at"] = str(location)
        return found


def _model(ws: Workspace, stored: bool) -> dict[str, Any]:
    model = ws.model
    ids = {element.id for element in model.elements}
    documented = ws.store.documented_elements(ids) if stored else set()
    return {
        "file": _relative(ws, ws.model_path), "format": model.format,
        "elements": len(model.elements), "relationships": len(model.relationships),
        "decisions": len(model.decisions), "documented": len(documented), "warnings": len(model.warnings),
        "ownership_warnings": ws.ownership_warnings(),
    }


def _started_accepts_look(ws: Workspace) -> Callable[[], list[str]]:
    """git's look for drift accept files not committed yet, started before the store is
    read (its answer is asked for once the memory files are counted); a folder setting
    that is refused, or git missing, is said where the files part reads it."""
    try:
        return ws.repository.uncommitted_later(ws.accept_folder.folder)
    except ArchmemError as exc:
        failure = exc

        def failed() -> list[str]:
            raise failure

        return failed


def _files(ws: Workspace, stored: bool, accepts_uncommitted: Callable[[], list[str]]) -> dict[str, Any]:
    """The memory files: how many (shared, private), which are not committed yet, and,
    once indexed, which could not be read and where chains fork; and the drift accept
    files, how many and which are not committed yet."""
    folder = ws.memory_folder
    if stored:  # the open's sync left the index with every file: no second listing
        total, private = ws.store.file_counts(folder.relative(folder.private))
    else:
        stats = folder.scan()
        total, private = len(stats), sum(1 for stat in stats.values() if stat.private)
    found: dict[str, Any] = {
        "folder": _relative(ws, folder.shared), "files": total - private, "private": private,
        "uncommitted": _uncommitted(ws, _relative(ws, folder.shared)),
        "indexed": stored,
    }
    if stored:
        found["unreadable"] = [problem.to_dict() for problem in (ws.last_sync.problems if ws.last_sync else [])]
        found["forks"] = ws.store.forks()
    accepts = ws.accept_folder
    found["accepts"] = {
        "folder": accepts.folder, "files": len(accepts.files()),
        "uncommitted": accepts_uncommitted(),
    }
    return found


def _uncommitted(ws: Workspace, folder: str) -> list[str]:
    """The memory files not committed yet: what the open's sync heard from git when it
    asked (one ``git status`` of the folder, not two), else asked now."""
    if not ws.repository.is_git:
        return []
    if ws.last_sync is not None and ws.last_sync.uncommitted is not None:
        return ws.last_sync.uncommitted
    return ws.repository.uncommitted(folder)


def _relative(ws: Workspace, path: Any) -> str:
    try:
        return path.resolve().relative_to(ws.root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _recall(ws: Workspace, store: dict[str, Any], check_provider: bool) -> dict[str, Any]:
    config = ws.config.embeddings
    active = sum(store.get("memories", {}).get("active", {}).values()) if "error" not in store else 0
    if config.provider == "none":
        return {"mode": "lexical", "provider": "none", "active_memories": active}
    prefix = f"{config.provider}:{config.model}:"
    embedded = sum(n for identity, n in store.get("vectors", {}).items() if identity.startswith(prefix))
    found: dict[str, Any] = {
        "mode": "hybrid", "provider": config.provider, "model": config.model, "active_memories": active,
        "embedded": embedded,
    }
    if check_provider:
        embedder = ws.embedder
        assert embedder is not None
        try:
            found["identity"] = embedder.identity
            embedder.embed(["archmem status probe"])
            found["provider_ok"] = True
        except ArchmemError as exc:
            found["provider_ok"] = False
            found["provider_error"] = str(exc)
    return found


def _drift(ws: Workspace) -> dict[str, Any]:
    if not ws.repository.is_git:
        return {"error": f"{ws.root} is not a git repository: drift needs its history"}
    report = ws.drift_report(reasons=False)  # counts, not the words of every VERIFY
    if report.no_commits:
        return {"error": report.warnings[0]}
    counts = report.counts()
    measured = [e.since for e in report.elements if e.status != "no_paths" and e.since is not None]
    found: dict[str, Any] = {"score": report.score, "stale_memories": counts["stale_memories"], "drifted": counts["drifted"],
             "missing": counts["missing"], "in_sync": counts["in_sync"], "no_paths": counts["no_paths"],
             "not_measured": counts["not_measured"], "external": counts["external"], "note": report.not_measured_note(),
             "measured": report.measured, "commits": report.commits,
             "since": format_time(min(measured)) if measured else None}
    if counts["not_measured"]:
        # the hint names only what `paths suggest` would propose, so the two never disagree
        found["suggestible"] = ws.suggestible_elements()
    return found


def _next_steps(status: dict[str, Any]) -> list[str]:
    steps = []
    model, store, recall, drift = status["model"], status["store"], status["recall"], status["drift"]
    if "error" in model and not model.get("no_model"):
        # a model is there but cannot be read, or there are several: its own hint says what to do
        hint = model.get("hint") or "`archmem model` says what is wrong"
        steps.append(f"fix the model at {model['at']}: {hint}" if "at" in model else hint)
    elif "error" in model:
        steps.append("write the model: workspace.dsl (Structurizr DSL) or archmem.yaml, or draft one from the "
                     "manifests with `archmem init --starter-model`; then `archmem model`")
    elif model["documented"] < model["elements"]:
        steps.append(f"{model['elements'] - model['documented']} elements have no memory yet: `archmem map` shows which")
    if "error" not in model and model.get("ownership_warnings"):
        steps.append(f"{plural(len(model['ownership_warnings']), 'ownership warning')} (overlapping siblings, paths "
                     "that match no file): `archmem model` lists them")
    if "error" not in recall and recall.get("mode") == "hybrid" and recall["embedded"] < recall["active_memories"]:
        missing = recall["active_memories"] - recall["embedded"]
        steps.append(f"{plural(missing, 'memory has', 'memories have')} no vector yet: `archmem embed`")
    if "error" not in recall and recall.get("provider_ok") is False:
        steps.append("the embedding provider did not answer: recall falls back to words (see the error above)")
    if "error" not in drift and drift.get("not_measured"):
        one = drift["not_measured"] == 1
        proposed = drift.get("suggestible", [])
        where = (f"`archmem paths suggest` proposes code for {plural(len(proposed), 'of them', 'of them')} "
                 f"({', '.join(proposed[:4])}{', …' if len(proposed) > 4 else ''})" if proposed else
                 "`archmem paths suggest` finds no place named like them: give them `archmem.paths` in the model "
                 "or a [paths] entry in archmem.toml, or tag those outside the code External")
        steps.append(f"{plural(drift['not_measured'], 'element owns', 'elements own')} no code, so "
                     f"{'its' if one else 'their'} drift is not measured: {where}")
    if "error" not in drift and drift["stale_memories"]:
        steps.append(f"{plural(drift['stale_memories'], 'memory', 'memories')} to verify: `archmem review`, "
                     "then confirm or supersede")
    files = status["files"]
    if "error" not in files:
        if files["uncommitted"]:
            steps.append(f"{plural(len(files['uncommitted']), 'memory file')} not committed yet: commit "
                         f"{files['folder']}/ to share what you learned with your team")
        if files.get("unreadable") or files.get("forks"):
            steps.append("memory files need a look (unreadable files or forked chains): `archmem check`")
        if files["accepts"]["uncommitted"]:
            steps.append(f"{plural(len(files['accepts']['uncommitted']), 'drift accept')} not committed yet: commit "
                         f"{files['accepts']['folder']}/ so your team and CI count drift from them too")
    if store.get("missing") and not ("error" not in files and files["files"]):
        steps.append("no memories yet: `archmem remember`, or connect an agent with `archmem install claude-code`")
    elif store.get("missing"):
        steps.append("the memory files are not indexed yet: any command (e.g. `archmem list`) builds the index")
    if status["command"] is None and any(state != "no" for state in status["agents"].values()):
        steps.append("the agents start `archmem` by name and it is not on PATH here: install it where they run "
                     "(pipx install 'archmem[mcp]'), or write its full path into their config")
    failing = [f"{hook['client']} {hook['event']}" for hook in status["hooks"] if not hook["works"]]
    if failing:
        steps.append(f"{plural(len(failing), 'installed hook')} cannot start archmem with PATH={CLEAN_PATH} "
                     f"({', '.join(failing)}): run `archmem install` again from the environment that has archmem "
                     "(it records its Python for the hooks), or pipx install archmem")
    if "error" not in store and store["open_sessions"]:
        steps.append(f"{plural(store['open_sessions'], 'session')} never ended: their exposures count only once "
                     "they end (`archmem session end --auto --client NAME` ends an agent's)")
    return steps
