"""Whether the installed hooks can start archmem where an agent runs them: each of
archmem's hook commands, read back from the client's hook file, run in a clean
environment (``env -i PATH=/usr/bin:/bin``, as a client started outside any virtualenv
would) with the probe variable set, so it answers ``archmem hook: ok`` and does nothing
else (no briefing is built, no session is ended).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archmem.agents.edit_hook import PROBE_ANSWER, PROBE_VARIABLE
from archmem.agents.hooks import COMPACT_MARKS, END_MARKS, FILE_MARKS, NOTICE, START_MARKS
from archmem.values import Record

CLEAN_PATH = "/usr/bin:/bin"
PROBE_TIMEOUT = 30
HOOK_FILES = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json", "cursor": ".cursor/hooks.json"}
MARKS = START_MARKS + END_MARKS + FILE_MARKS + COMPACT_MARKS


@dataclass(repr=False, eq=False)
class HookCheck(Record):
    """One installed hook command and what it did in a clean environment."""

    client: str
    event: str
    works: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"client": self.client, "event": self.event, "works": self.works, "detail": self.detail}


def installed_commands(root: Path, client: str) -> list[tuple[str, str]]:
    """(event, command) of each archmem hook in the client's hook file ([] when it has
    none or cannot be read: ``archmem status`` says so in its agents line)."""
    try:
        data = json.loads((root / HOOK_FILES[client]).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found: list[tuple[str, str]] = []
    for event, entries in (hooks.items() if isinstance(hooks, dict) else []):
        for entry in entries if isinstance(entries, list) else []:
            handlers = entry.get("hooks") if isinstance(entry, dict) and "hooks" in entry else [entry]
            for handler in handlers if isinstance(handlers, list) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and any(mark in command for mark in MARKS):
                    found.append((event, command))
    return found


def check_command(root: Path, client: str, event: str, command: str) -> HookCheck:
    """Run one hook command as the client would, in a clean environment, probing."""
    env = {"PATH": CLEAN_PATH, PROBE_VARIABLE: "1", "ARCHMEM_SERVER": "off"}  # a probe leaves no server behind
    try:
        ran = subprocess.run(["/bin/sh", "-c", command], cwd=root, env=env, input="{}", capture_output=True,
                             text=True, timeout=PROBE_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return HookCheck(client, event, False, f"no answer within {PROBE_TIMEOUT} s")
    except OSError as exc:
        return HookCheck(client, event, False, f"could not run /bin/sh: {exc.strerror or exc}")
    said = ran.stdout.strip()
    if said == PROBE_ANSWER:
        return HookCheck(client, event, True, "starts archmem")
    if NOTICE in said:
        return HookCheck(client, event, False, "cannot start archmem (not on /usr/bin:/bin, no recorded Python, "
                                               "no uvx or pipx): it tells the agent to install archmem")
    return HookCheck(client, event, False, f"unexpected answer (exit {ran.returncode}): {said[:200] or 'nothing'}")


def check_hooks(root: Path, clients: list[str]) -> list[HookCheck]:
    """Every archmem hook command of ``clients``, run once each."""
    return [check_command(root, client, event, command)
            for client in clients for event, command in installed_commands(root, client)]
