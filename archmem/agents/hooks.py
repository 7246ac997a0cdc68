"""The agents' hooks that ``archmem install`` writes, per client, and merging them into
the client's hook file without touching anyone else's hooks.

| client | file | at the start | on a file | before compaction | at the end |
|---|---|---|---|---|---|
| Claude Code | ``.claude/settings.json`` | ``SessionStart``: the briefing on stdout | ``PostToolUse`` on Read, Edit, Write, MultiEdit: ``additionalContext`` | ``PreCompact`` | ``SessionEnd`` |
| Codex | ``.codex/hooks.json`` (or ``$CODEX_HOME/hooks.json``) | ``SessionStart``: ``additionalContext``; first ends the sessions Codex left open | ``PostToolUse`` on ``apply_patch``: ``additionalContext`` | ``PreCompact`` | none: Codex has no session-end event, so the next start ends them |
| Cursor | ``.cursor/hooks.json`` | ``sessionStart``: ``additional_context`` | ``postToolUse`` on Read, Write: ``additional_context`` | none | ``sessionEnd`` |

A hook never fails a session and never fails silently: each command finds archmem
(``launch``): on PATH, else the interpreter that ran ``archmem install`` (recorded in the
git-ignored ``.archmem/hooks/python``), else ``uvx archmem``, else ``pipx run archmem``;
where none of them runs it, it prints one line in the client's format telling the agent
how to install archmem, and exits 0. A briefing is capped below what the client keeps
(Claude Code replaces hook output over 10,000 characters with a short preview):
``clamp_budget`` lowers a larger ``--budget`` and says so, and ``archmem hook
session-start`` cuts what still runs over.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from archmem.agents.config_files import dump_json, load_json, short_json
from archmem.agents.edit_hook import PYTHON_FILE, STATE_FOLDER
from archmem.errors import ConfigError

DEFAULT_BUDGET = 6000
"""Characters of briefing a start-up hook puts into the context (about 1,500 tokens)."""
CLIENT_LIMITS = {"claude-code": 10_000, "codex": 10_000, "cursor": 10_000}
"""Characters of hook output each client keeps. Claude Code documents its 10,000 (more
is replaced by a preview); Codex and Cursor document none, so the same is assumed."""
LIMIT_MARGIN = 1_000
"""Room between the budget and the limit: a briefing may run a little over its budget."""
HOOK_TIMEOUT = 30
"""Seconds a client waits for the hook before cancelling it (the file hook's first call
in a session may build its index: the model, the memories, drift)."""
HOOK_MATCHER = "startup|clear|compact"
"""Claude Code: when the context starts empty (a new session, /clear, compaction); a
resumed session still holds the briefing it was given."""
CODEX_MATCHER = "startup|clear|compact"
"""Codex's SessionStart sources: startup, resume, clear and (since compaction hooks)
compact; all but resume start with an empty context."""
CLAUDE_FILE_MATCHER = "Read|Edit|Write|MultiEdit"
"""Claude Code's file tools: an Edit follows a Read of the same file, so the notes
arrive before the edit is written."""
CODEX_FILE_MATCHER = "apply_patch|Edit|Write"
"""Codex edits files with apply_patch (matched also as Edit and Write)."""
CURSOR_FILE_MATCHER = "Read|Write"
START_MARKS = ("archmem brief", "hook session-start --client")
END_MARKS = ("archmem session end", "hook session-end --client")
FILE_MARKS = ("hook file --client",)
COMPACT_MARKS = ("hook pre-compact --client",)
"""What makes a hook archmem's: its command (also one an older install wrote)."""
NOTICE = ("archmem could not run where this hook runs, so the project memory (pitfalls, what to verify) is "
          "missing here: install archmem there (pipx install archmem), then run archmem install again.")


def max_budget(client: str) -> int:
    return CLIENT_LIMITS[client] - LIMIT_MARGIN


def clamp_budget(client: str, budget: int) -> tuple[int, str | None]:
    """The budget the hook may use for ``client``, and a warning when it had to be lowered."""
    cap = max_budget(client)
    if budget <= cap:
        return budget, None
    return cap, (f"--budget {budget:,} is more than {client} keeps from a hook ({CLIENT_LIMITS[client]:,} "
                 f"characters; longer output is cut or replaced by a preview): the hook uses {cap:,}")


# ---- the commands ----------------------------------------------------------------------


def notice(client: str, event: str) -> str:
    """The one line a hook prints where archmem cannot be started, in the format that
    reaches the model for ``event`` (plain where the client adds stdout as it is)."""
    if client == "cursor":
        return json.dumps({"additional_context": NOTICE}) if event in ("sessionStart", "postToolUse") else NOTICE
    if event in ("PostToolUse", "PreToolUse") or (client == "codex" and event == "SessionStart"):
        return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": NOTICE}})
    return NOTICE


def launch(arguments: str, client: str, event: str) -> str:
    """The shell command that runs ``archmem ARGUMENTS``: from PATH, else with the
    interpreter ``archmem install`` recorded, else through uvx or pipx; where none runs
    (or archmem itself fails) it prints the notice instead. It always exits 0, and
    archmem's own errors stay off the screen."""
    recorded = f'"$(git rev-parse --show-toplevel 2>/dev/null || pwd)/{STATE_FOLDER}/{PYTHON_FILE}"'
    run = (f'a="{arguments}"; p=$(cat {recorded} 2>/dev/null); '
           "if command -v archmem >/dev/null; then archmem $a; "
           'elif [ -x "$p" ]; then "$p" -m archmem $a; '
           "elif command -v uvx >/dev/null; then uvx archmem $a; "
           "elif command -v pipx >/dev/null; then pipx run archmem $a; "
           "else false; fi")
    prefix = 'cd "${CLAUDE_PROJECT_DIR:-.}" && ' if client == "claude-code" else ""
    return f"{prefix}{{ {run}; }} 2>/dev/null || echo {shlex.quote(notice(client, event))}"


def start_command(client: str, budget: int = DEFAULT_BUDGET) -> str:
    """The start-up command: the briefing for the changed files (on a clean tree, the
    project overview), in the client's format."""
    event = "sessionStart" if client == "cursor" else "SessionStart"
    return launch(f"hook session-start --client {client} --budget {budget}", client, event)


def hook_command(budget: int = DEFAULT_BUDGET) -> str:
    """Claude Code's SessionStart command (its stdout is added to the context)."""
    return start_command("claude-code", budget)


def end_command(client: str) -> str:
    """The session-end command: ends the archmem sessions the client's session opened
    (named in its transcript) and cites the memories the agent named (see
    ``archmem.memory.sessions.end_left_open``)."""
    return launch(f"hook session-end --client {client}", client, "sessionEnd" if client == "cursor" else "SessionEnd")


def file_command(client: str) -> str:
    """The command run on each file tool call: the notes on the file's elements."""
    return launch(f"hook file --client {client}", client, "postToolUse" if client == "cursor" else "PostToolUse")


def compact_command(client: str) -> str:
    """The command run before compaction: the file notes are shown again afterwards."""
    return launch(f"hook pre-compact --client {client}", client, "PreCompact")


# ---- the snippets ----------------------------------------------------------------------


def _handler(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT, **extra}


def hook_group(budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    """Claude Code's ``hooks.SessionStart`` matcher group."""
    return {"matcher": HOOK_MATCHER, "hooks": [_handler(hook_command(budget))]}


def end_group(client: str = "claude-code") -> dict[str, Any]:
    """Claude Code's ``hooks.SessionEnd`` group (every reason: no matcher)."""
    return {"hooks": [_handler(end_command(client))]}


def codex_group(budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    """Codex's ``hooks.SessionStart`` matcher group (``.codex/hooks.json``)."""
    return {"matcher": CODEX_MATCHER, "hooks": [_handler(start_command("codex", budget),
                                                         statusMessage="archmem: briefing")]}


def cursor_entries(budget: int = DEFAULT_BUDGET) -> dict[str, dict[str, Any]]:
    """Cursor's ``sessionStart``, ``postToolUse`` and ``sessionEnd`` entries (``.cursor/hooks.json``)."""
    return {
        "sessionStart": {"command": start_command("cursor", budget), "timeout": HOOK_TIMEOUT},
        "postToolUse": {"command": file_command("cursor"), "matcher": CURSOR_FILE_MATCHER, "timeout": HOOK_TIMEOUT},
        "sessionEnd": {"command": end_command("cursor"), "timeout": HOOK_TIMEOUT},
    }


CURSOR_MARKS = {"sessionStart": START_MARKS, "postToolUse": FILE_MARKS, "sessionEnd": END_MARKS}


def claude_events(budget: int = DEFAULT_BUDGET) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    return {
        "SessionStart": (hook_group(budget), START_MARKS),
        "PostToolUse": ({"matcher": CLAUDE_FILE_MATCHER, "hooks": [_handler(file_command("claude-code"))]},
                        FILE_MARKS),
        "PreCompact": ({"hooks": [_handler(compact_command("claude-code"))]}, COMPACT_MARKS),
        "SessionEnd": (end_group(), END_MARKS),
    }


def codex_events(budget: int = DEFAULT_BUDGET) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    return {
        "SessionStart": (codex_group(budget), START_MARKS),
        "PostToolUse": ({"matcher": CODEX_FILE_MATCHER, "hooks": [_handler(file_command("codex"),
                                                                           statusMessage="archmem: file notes")]},
                        FILE_MARKS),
        "PreCompact": ({"hooks": [_handler(compact_command("codex"))]}, COMPACT_MARKS),
    }


def settings_snippet(budget: int = DEFAULT_BUDGET) -> str:
    """What ``.claude/settings.json`` holds after install in a project that had none."""
    return dump_json({"hooks": {event: [group] for event, (group, _) in claude_events(budget).items()}}, 2)


def codex_hooks_snippet(budget: int = DEFAULT_BUDGET) -> str:
    """What Codex's ``hooks.json`` holds after install where there was none."""
    return dump_json({"hooks": {event: [group] for event, (group, _) in codex_events(budget).items()}}, 2)


def cursor_hooks_snippet(budget: int = DEFAULT_BUDGET) -> str:
    """What ``.cursor/hooks.json`` holds after install in a project that had none."""
    return dump_json({"version": 1, "hooks": {event: [entry] for event, entry in cursor_entries(budget).items()}}, 2)


# ---- merging ---------------------------------------------------------------------------


def _is_ours(command: Any, marks: tuple[str, ...]) -> bool:
    return any(mark in str(command or "") for mark in marks)


def merge_hook_groups(
    text: str | None, name: str, events: dict[str, tuple[dict[str, Any], tuple[str, ...]]], empty: str
) -> tuple[str, list[str]]:
    """Put archmem's matcher group under each event of a Claude Code-style hook file
    (``.claude/settings.json``, Codex's ``hooks.json``), keeping every other setting,
    event and hook (also others on the same event); never a second archmem hook. An
    archmem hook that differs is replaced, and said (a conflict: ``--force``)."""
    if text is None or not text.strip():
        return empty, []
    data, style = load_json(text, name)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{name}: "hooks" is not an object; nothing was written')
    conflicts: list[str] = []
    changed = False
    for event, (ours, marks) in events.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f'{name}: "hooks.{event}" is not a list; nothing was written')
        found = [(group, handler) for group in groups if isinstance(group, dict) and isinstance(group.get("hooks"), list)
                 for handler in group["hooks"] if isinstance(handler, dict) and _is_ours(handler.get("command"), marks)]
        if len(found) == 1:
            group, handler = found[0]
            if group.get("matcher", "") == ours.get("matcher", "") and handler == ours["hooks"][0]:
                continue
        changed = True
        conflicts += [f"a {event} hook runs {handler.get('command')!r}; install writes {ours['hooks'][0]['command']!r}"
                      for _, handler in found]
        emptied = set()
        for group, handler in found:  # replaced: drop the old handler, and its group when it held no other
            group["hooks"].remove(handler)
            if not group["hooks"]:
                emptied.add(id(group))
        groups[:] = [group for group in groups if id(group) not in emptied]
        groups.append(ours)
    if not changed:
        return text, []
    return dump_json(data, *style, source=text), conflicts


def merge_settings_hook(text: str | None, name: str = ".claude/settings.json", *, budget: int = DEFAULT_BUDGET
                        ) -> tuple[str, list[str]]:
    """Claude Code's settings: the SessionStart briefing, the file notes, PreCompact and SessionEnd."""
    return merge_hook_groups(text, name, claude_events(budget), settings_snippet(budget))


def merge_codex_hooks(text: str | None, name: str = ".codex/hooks.json", *, budget: int = DEFAULT_BUDGET
                      ) -> tuple[str, list[str]]:
    """Codex's hooks.json: the SessionStart briefing, the file notes and PreCompact."""
    return merge_hook_groups(text, name, codex_events(budget), codex_hooks_snippet(budget))


def merge_cursor_hooks(text: str | None, name: str = ".cursor/hooks.json", *, budget: int = DEFAULT_BUDGET
                       ) -> tuple[str, list[str]]:
    """Cursor's hooks.json (``{"version": 1, "hooks": {event: [{command}]}}``): archmem's
    sessionStart, postToolUse and sessionEnd entries, every other entry kept."""
    if text is None or not text.strip():
        return cursor_hooks_snippet(budget), []
    data, style = load_json(text, name)
    data.setdefault("version", 1)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f'{name}: "hooks" is not an object; nothing was written')
    conflicts: list[str] = []
    changed = "version" not in text
    for event, ours in cursor_entries(budget).items():
        entries = hooks.setdefault(event, [])
        if not isinstance(entries, list):
            raise ConfigError(f'{name}: "hooks.{event}" is not a list; nothing was written')
        marks = CURSOR_MARKS[event]
        found = [entry for entry in entries if isinstance(entry, dict) and _is_ours(entry.get("command"), marks)]
        if found == [ours]:
            continue
        changed = True
        conflicts += [f"a {event} hook is {short_json(entry)}; install writes {short_json(ours)}" for entry in found]
        entries[:] = [entry for entry in entries if not any(entry is f for f in found)] + [ours]
    if not changed:
        return text, []
    return dump_json(data, *style, source=text), conflicts
