"""The ``archmem`` console entry: ``--version`` and the edit hook's fast paths, else the command line.

An agent's client runs ``archmem hook file --client NAME`` on every read and edit, so
that call skips click and the command modules: it reads the payload, the prepared notes
index (``.archmem/hooks/index.json``, rebuilt through ``Workspace`` only when the model,
a memory file, the index or git's HEAD changed) and what the session was shown, and
prints the new notes in the client's format. Any other command line goes to
``archmem.cli``. Like every hook, it never fails a tool call: whatever goes wrong, it
exits 0 and says why on stderr.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: importing typing alone costs --version a third of its time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CLIENTS = ("claude-code", "codex", "cursor")


def read_payload() -> dict[str, Any]:
    """The hook's JSON input on stdin ({} at a terminal, or when it is not JSON)."""
    import json

    if sys.stdin is None or sys.stdin.isatty():
        return {}
    try:
        data = json.loads(sys.stdin.read() or "{}")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def _build(root: Path) -> dict[str, Any]:
    """The notes index from the workspace (the slow path: model, store, drift), kept. When
    the workspace cannot give one (a model that does not parse), an empty index is kept
    instead, so the next edits do not pay for the same failure until something changes."""
    from archmem.agents.edit_hook import watch_list, write_index
    from archmem.errors import ArchmemError
    from archmem.model.loader import DISCOVERY
    from archmem.render.file_notes import empty_index
    from archmem.workspace import Workspace

    try:
        with Workspace.open(root) as ws:
            index, sources = ws.file_notes_index()
    except ArchmemError as exc:
        print(f"archmem hook: {exc}", file=sys.stderr)
        index = {**empty_index(), "error": str(exc)}
        # fixing the model or the settings (or adding a model) builds the index again
        sources = [root, root / ".archmem" / "memories", root / "archmem.toml", root / "pyproject.toml",
                   *(root / name for name in DISCOVERY if "*" not in name)]
    write_index(root, index, watch_list(sources, root))
    return index


def file_hook(client: str, payload: dict[str, Any], repo: Path | None = None) -> str:
    """What ``archmem hook file`` prints for ``payload``: the notes on the files it names
    that this session was not shown yet, in ``client``'s format ('' when none)."""
    import os

    from archmem.agents import edit_hook as state
    from archmem.render.file_notes import file_notes

    if os.environ.get(state.PROBE_VARIABLE):
        return state.PROBE_ANSWER
    start = repo if repo is not None else state.start_folder(payload, os.environ)
    root = state.project_root(start)
    if root is None:
        return ""
    paths = state.relative_paths(state.payload_paths(payload), root, base=start.resolve())
    if not paths:
        return ""
    index = state.read_index(root) or _build(root)
    session = state.session_of(payload)
    text, keys = file_notes(index, paths, state.shown(root, client, session))
    state.remember_shown(root, client, session, keys)
    return state.as_context(text, client, payload.get("hook_event_name")) if text else ""


def _fast_arguments(argv: list[str]) -> tuple[str, Path | None] | None:
    """``hook file --client NAME [--repo PATH]`` parsed by hand; None for anything else
    (``--help``, a typo), which click then answers."""
    if argv[:2] != ["hook", "file"]:
        return None
    from pathlib import Path

    options = dict(zip(argv[2::2], argv[3::2], strict=False))
    if len(argv) % 2 or set(options) - {"--client", "--repo"} or options.get("--client") not in CLIENTS:
        return None
    return options["--client"], Path(options["--repo"]) if "--repo" in options else None


VERSION_FLAGS = (["--version"], ["-V"])


def main() -> None:
    """Console entry point: the warm command server runs the command line when it can
    (``archmem.command_client``), else this process does."""
    argv = sys.argv[1:]
    if argv not in VERSION_FLAGS and _fast_arguments(argv) is None:
        from archmem.command_client import ServerUnavailable, run

        try:
            code = run(argv)
        except ServerUnavailable as exc:
            print(f"archmem: {exc}", file=sys.stderr)
            sys.exit(1)
        if code is not None:
            sys.exit(code)
    run_here()


def run_here() -> None:
    """The command line, run in this process (the server's worker runs this too)."""
    if sys.argv[1:] in VERSION_FLAGS:  # what click's version option prints, without click
        from archmem import __version__

        print(f"archmem, version {__version__}")
        return
    fast = _fast_arguments(sys.argv[1:])
    if fast is None:
        from archmem.cli import main as cli_main

        cli_main()
        return
    client, repo = fast
    try:
        output = file_hook(client, read_payload(), repo)
    except Exception as exc:  # a hook never fails a tool call
        print(f"archmem hook: {exc}", file=sys.stderr)
        return
    if output:
        print(output)
