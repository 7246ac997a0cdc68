"""The agents' lifecycle hooks that ``archmem install`` writes, per client, and merging
them into the client's hook file without touching anyone else's hooks.

| client | file | at the start | at the end |
|---|---|---|---|
| Claude Code | ``.claude/settings.json`` | ``SessionStart``: the briefing on stdout (added to the context) | ``SessionEnd`` |
| Codex | ``.codex/hooks.json`` (or ``$CODEX_HOME/hooks.json``) | ``SessionStart``: JSON ``hookSpecificOutput.additionalContext``; first ends the sessions Codex left open | none: Codex has no session-end event, so the next start ends them |
| Cursor | ``.cursor/hooks.json`` | ``sessionStart``: JSON ``additional_context`` | ``sessionEnd`` |

Every command ends in ``2>/dev/null || true``: no ``archmem`` on PATH, no model, a
broken store, all end quietly with exit 0; a hook never blocks or fails a session.
A briefing is capped below what the client keeps (Claude Code replaces hook output over
10,000 characters with a short preview): ``clamp_budget`` lowers a larger ``--budget``
and says so, and ``archmem hook session-start`` cuts what still runs over.
"""

from __future__ import annotations

from typing import Any

from archmem.agents.config_files import dump_json, load_json, short_json
from archmem.errors import ConfigError

DEFAULT_BUDGET = 6000
"""Characters of briefing a start-up hook puts into the context (about 1,500 tokens)."""
CLIENT_LIMITS = {"claude-code": 10_000, "codex": 10_000, "cursor": 10_000}
"""Characters of hook output each client keeps. Claude Code documents its 10,000 (more
is replaced by a preview); Codex and Cursor document none, so the same is assumed."""
LIMIT_MARGIN = 1_000
"""Room between the budget and the limit: a briefing may run a little over its budget."""
HOOK_TIMEOUT = 30
"""Seconds a client waits for the hook before cancelling it."""
HOOK_MATCHER = "startup|clear|compact"
"""Claude Code: when the context starts empty (a new session, /clear, compaction); a
resumed session still holds the briefing it was given."""
CODEX_MATCHER = "startup|clear"
"""Codex's SessionStart sources are startup, resume and clear."""
START_MARKS = ("archmem brief", "archmem hook session-start")
END_MARKS = ("archmem session end", "archmem hook session-end")
QUIET = "2>/dev/null || true"


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


def hook_command(budget: int = DEFAULT_BUDGET) -> str:
    """Claude Code's SessionStart command: prints a briefing on stdout (which Claude Code
    adds to the context): for the changed files, or on a clean tree the project overview."""
    return f'cd "${{CLAUDE_PROJECT_DIR:-.}}" && archmem brief --changed --overview --budget {budget} {QUIET}'


def end_command(client: str) -> str:
    """The session-end command: ends the archmem sessions the client's session opened
    (named in its transcript) and cites the memories the agent named (see
    ``archmem.memory.sessions.end_left_open``)."""
    prefix = 'cd "${CLAUDE_PROJECT_DIR:-.}" && ' if client == "claude-code" else ""
    return f"{prefix}archmem hook session-end --client {client} {QUIET}"


def start_command(client: str, budget: int = DEFAULT_BUDGET) -> str:
    """Codex's and Cursor's start-up command: the briefing in the client's JSON."""
    return f"archmem hook session-start --client {client} --budget {budget} {QUIET}"


# ---- the snippets ----------------------------------------------------------------------


def hook_group(budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    """Claude Code's ``hooks.SessionStart`` matcher group."""
    return {"matcher": HOOK_MATCHER, "hooks": [{"type": "command", "command": hook_command(budget),
                                                 "timeout": HOOK_TIMEOUT}]}


def end_group(client: str = "claude-code") -> dict[str, Any]:
    """Claude Code's ``hooks.SessionEnd`` group (every reason: no matcher)."""
    return {"hooks": [{"type": "command", "command": end_command(client), "timeout": HOOK_TIMEOUT}]}


def codex_group(budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    """Codex's ``hooks.SessionStart`` matcher group (``.codex/hooks.json``)."""
    return {"matcher": CODEX_MATCHER, "hooks": [{
        "type": "command", "command": start_command("codex", budget), "timeout": HOOK_TIMEOUT,
        "statusMessage": "archmem: briefing",
    }]}


def cursor_entries(budget: int = DEFAULT_BUDGET) -> dict[str, dict[str, Any]]:
    """Cursor's ``sessionStart`` and ``sessionEnd`` entries (``.cursor/hooks.json``)."""
    return {
        "sessionStart": {"command": start_command("cursor", budget), "timeout": HOOK_TIMEOUT},
        "sessionEnd": {"command": end_command("cursor"), "timeout": HOOK_TIMEOUT},
    }


def claude_events(budget: int = DEFAULT_BUDGET) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    return {"SessionStart": (hook_group(budget), START_MARKS), "SessionEnd": (end_group(), END_MARKS)}


def codex_events(budget: int = DEFAULT_BUDGET) -> dict[str, tuple[dict[str, Any], tuple[str, ...]]]:
    return {"SessionStart": (codex_group(budget), START_MARKS)}


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
    """Claude Code's settings: the SessionStart briefing and the SessionEnd hook."""
    return merge_hook_groups(text, name, claude_events(budget), settings_snippet(budget))


def merge_codex_hooks(text: str | None, name: str = ".codex/hooks.json", *, budget: int = DEFAULT_BUDGET
                      ) -> tuple[str, list[str]]:
    """Codex's hooks.json: the SessionStart briefing."""
    return merge_hook_groups(text, name, codex_events(budget), codex_hooks_snippet(budget))


def merge_cursor_hooks(text: str | None, name: str = ".cursor/hooks.json", *, budget: int = DEFAULT_BUDGET
                       ) -> tuple[str, list[str]]:
    """Cursor's hooks.json (``{"version": 1, "hooks": {event: [{command}]}}``): archmem's
    sessionStart and sessionEnd entries, every other entry kept."""
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
        marks = START_MARKS if event == "sessionStart" else END_MARKS
        found = [entry for entry in entries if isinstance(entry, dict) and _is_ours(entry.get("command"), marks)]
        if found == [ours]:
            continue
        changed = True
        conflicts += [f"a {event} hook is {short_json(entry)}; install writes {short_json(ours)}" for entry in found]
        entries[:] = [entry for entry in entries if not any(entry is f for f in found)] + [ours]
    if not changed:
        return text, []
    return dump_json(data, *style, source=text), conflicts
