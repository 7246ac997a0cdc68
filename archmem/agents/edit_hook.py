"""The edit hook's side of the clients: which files a tool call names, the hook's answer
in each client's format, and what it keeps under ``.archmem/hooks/`` (git-ignored by
its own ``.gitignore``): the prepared notes index, what each session was shown, and the
interpreter that ran ``archmem install``.

| client | event | the files | the answer that reaches the model |
|---|---|---|---|
| Claude Code | ``PostToolUse`` (or ``PreToolUse``) on Read, Edit, Write, MultiEdit | ``tool_input.file_path`` (``notebook_path``) | ``hookSpecificOutput.additionalContext`` |
| Codex | ``PostToolUse`` on ``apply_patch`` | the ``*** Add/Update/Delete File:`` and ``*** Move to:`` lines of ``tool_input.command`` | ``hookSpecificOutput.additionalContext`` |
| Cursor | ``postToolUse`` on Read and Write (``afterFileEdit`` payloads are read too) | ``tool_input.file_path``, or the payload's ``file_path`` | ``additional_context`` |

Standard library only: this runs on every edit an agent makes.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

STATE_FOLDER = ".archmem/hooks"
INDEX_FILE = "index.json"
PYTHON_FILE = "python"
"""The interpreter that ran ``archmem install`` (one line): the hook commands' second
way to start archmem when it is not on PATH."""
SESSIONS_FOLDER = "sessions"
INDEX_MAX_AGE = 3600
"""Seconds an index is trusted without a rebuild, whatever the watched files say."""
PROBE_VARIABLE = "ARCHMEM_HOOK_PROBE"
"""Set by ``archmem status`` when it runs an installed hook command: the command answers
``PROBE_ANSWER`` and does nothing else (no briefing, no session ended)."""
PROBE_ANSWER = "archmem hook: ok"
PATH_KEYS = ("file_path", "path", "notebook_path", "filePath")
_PATCH_LINE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)
_DIFF_LINE = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(.+?)\s*$", re.MULTILINE)


# ---- reading the payload ---------------------------------------------------------------


def patch_paths(text: str) -> list[str]:
    """The files a patch names: Codex's ``apply_patch`` envelope (``*** Update File: x``),
    else a unified diff's ``+++``/``---`` lines (``/dev/null`` left out)."""
    found = _PATCH_LINE.findall(text) or [p for p in _DIFF_LINE.findall(text) if p != "/dev/null"]
    return list(dict.fromkeys(found))


def payload_paths(payload: dict[str, Any]) -> list[str]:
    """Every file a tool call names, as written (absolute or relative to the project)."""
    found: list[str] = []
    for holder in (payload.get("tool_input"), payload):
        if isinstance(holder, str):  # some clients send the tool input as a JSON string
            try:
                holder = json.loads(holder)
            except ValueError:
                holder = {"command": holder}
        if not isinstance(holder, dict):
            continue
        found += [holder[key] for key in PATH_KEYS if isinstance(holder.get(key), str) and holder[key]]
        for edit in holder.get("edits") or []:
            if isinstance(edit, dict) and isinstance(edit.get("file_path"), str):
                found.append(edit["file_path"])
        for key in ("command", "input", "patch"):
            if isinstance(holder.get(key), str) and "\n" in holder[key]:
                found += patch_paths(holder[key])
    return list(dict.fromkeys(found))


def session_of(payload: dict[str, Any]) -> str | None:
    """The client's session: ``session_id`` (Claude Code, Codex), ``conversation_id`` (Cursor)."""
    for key in ("session_id", "conversation_id", "sessionId"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def start_folder(payload: dict[str, Any], env: dict[str, str] | os._Environ[str]) -> Path:
    """Where to look for the project: the payload's workspace root or cwd, Claude Code's
    ``$CLAUDE_PROJECT_DIR``, else the current folder."""
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return Path(roots[0])
    for value in (payload.get("cwd"), env.get("CLAUDE_PROJECT_DIR")):
        if isinstance(value, str) and value:
            return Path(value)
    return Path.cwd()


def project_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds ``.archmem/`` (None: archmem
    has nothing here, and the hook stays silent)."""
    try:
        folder = start.resolve()
    except OSError:
        return None
    for candidate in (folder, *folder.parents):
        if (candidate / ".archmem").is_dir():
            return candidate
        if (candidate / ".git").exists():
            return None
    return None


def relative_paths(paths: Iterable[str], root: Path, base: Path) -> list[str]:
    """``paths`` as repo-relative posix paths (relative ones are taken from ``base``);
    those outside the project are dropped."""
    found = []
    for raw in paths:
        path = Path(raw)
        path = path if path.is_absolute() else base / path
        try:
            rel = Path(os.path.normpath(path)).relative_to(root)
        except ValueError:
            try:
                rel = path.resolve().relative_to(root)
            except (ValueError, OSError):
                continue
        if rel.parts:
            found.append(rel.as_posix())
    return found


# ---- answering -------------------------------------------------------------------------


def as_context(text: str, client: str, event: str | None = None) -> str:
    """``text`` the way ``client`` adds a tool hook's output to the model's context."""
    if client == "cursor":
        return json.dumps({"additional_context": text})
    name = event if event in ("PreToolUse", "PostToolUse") else "PostToolUse"
    return json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}})


# ---- what the hook keeps ---------------------------------------------------------------


def state_folder(root: Path) -> Path:
    """``.archmem/hooks/``, made with a ``.gitignore`` that ignores the whole folder."""
    folder = root / STATE_FOLDER
    ignore = folder / ".gitignore"
    if not ignore.exists():
        folder.mkdir(parents=True, exist_ok=True)
        _write(ignore, "# archmem's hook state for this clone: never committed\n*\n")
    return folder


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically (a hook may run twice at once)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _stamp(path: Path) -> list[Any]:
    try:
        stat = path.stat()
    except OSError:
        return [str(path), None, None]
    return [str(path), stat.st_mtime_ns, stat.st_size]


def watch_list(sources: Sequence[Path], root: Path) -> list[list[Any]]:
    """What an index depends on, stamped (path, mtime, size): each source, each file in a
    source folder (and the folder), and git's HEAD and the branch it names."""
    paths: list[Path] = []
    for source in sources:
        paths.append(source)
        if source.is_dir():
            paths += [Path(entry.path) for entry in os.scandir(source) if entry.is_file()]
    git = root / ".git"
    if git.is_file():  # a worktree: "gitdir: PATH"
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        git = Path(text.removeprefix("gitdir:").strip()) if text.startswith("gitdir:") else git
        git = git if git.is_absolute() else root / git
    if git.is_dir():
        paths += [git / "HEAD", git / "packed-refs"]
        head = (git / "HEAD").read_text(encoding="utf-8", errors="replace").strip() if (git / "HEAD").is_file() else ""
        if head.startswith("ref:"):
            paths.append(git / head.removeprefix("ref:").strip())
    return [_stamp(path) for path in dict.fromkeys(paths)]


def read_index(root: Path, now: float | None = None) -> dict[str, Any] | None:
    """The prepared index when nothing it depends on changed since it was built (None:
    build it again)."""
    try:
        data = json.loads((root / STATE_FOLDER / INDEX_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("watch"), list):
        return None
    if (now if now is not None else time.time()) - float(data.get("built", 0)) > INDEX_MAX_AGE:
        return None
    if any(_stamp(Path(path)) != [path, mtime, size] for path, mtime, size in data["watch"]):
        return None
    return data


def write_index(root: Path, index: dict[str, Any], watch: list[list[Any]], now: float | None = None) -> None:
    _write(state_folder(root) / INDEX_FILE,
           json.dumps({**index, "built": now if now is not None else time.time(), "watch": watch}))


def _session_file(root: Path, client: str, session: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session)[:120]
    return root / STATE_FOLDER / SESSIONS_FOLDER / f"{client}-{safe}.json"


def shown(root: Path, client: str, session: str | None) -> list[str]:
    """What this client session was already shown (element and memory keys)."""
    if session is None:
        return []
    try:
        data = json.loads(_session_file(root, client, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [key for key in data if isinstance(key, str)] if isinstance(data, list) else []


def remember_shown(root: Path, client: str, session: str | None, keys: Sequence[str]) -> None:
    if session is None or not keys:
        return
    path = _session_file(root, client, session)
    state_folder(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, json.dumps(list(dict.fromkeys([*shown(root, client, session), *keys]))))


def forget_shown(root: Path, client: str, session: str | None) -> bool:
    """Forget what a session was shown (its context was compacted: show it again)."""
    if session is None:
        return False
    try:
        _session_file(root, client, session).unlink()
    except OSError:
        return False
    return True


def record_interpreter(root: Path, executable: str) -> Path:
    """Write the interpreter that runs archmem here into ``.archmem/hooks/python``."""
    path = state_folder(root) / PYTHON_FILE
    _write(path, executable + "\n")
    return path
