"""``archmem install``: the snippets that connect a coding agent to archmem, and merging
them into a project's own files without clobbering what is already there.

Pure logic, no click: the builders return the exact text each target writes (the
docs quote them, and a test keeps the two equal); ``plan_*`` reads the files and
returns one :class:`FileChange` per file (created / updated / unchanged, with its
unified diff) without writing; :func:`apply_changes` writes them atomically.

The rules a careful user expects:

- every other key, server, hook and line of text is kept;
- an ``archmem`` entry that is already what install writes is left alone, so a second
  run changes nothing, byte for byte;
- an ``archmem`` entry that differs (you edited it, or an older install wrote it) is a
  conflict: nothing is written unless ``force`` says to replace it, and the diff shows
  exactly what would change;
- a file that does not parse is an error with ``file:line:col``, and nothing is written;
- the CLAUDE.md / AGENTS.md section sits between ``<!-- archmem:start … -->`` and
  ``<!-- archmem:end -->`` and is rewritten in place (it is archmem's own text).
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archmem.agents.config_files import (
    dump_json,
    load_json,
    load_toml,
    read_exact,
    replace_table,
    short_json,
    write_atomic,
)
from archmem.agents.hooks import (  # noqa: F401  (hook_command, hook_group: part of this module's interface)
    DEFAULT_BUDGET,
    codex_hooks_snippet,
    cursor_hooks_snippet,
    hook_command,
    hook_group,
    merge_codex_hooks,
    merge_cursor_hooks,
    merge_settings_hook,
    settings_snippet,
)
from archmem.errors import ConfigError, ConflictError
from archmem.escape import toml_string
from archmem.values import Record

SERVER_NAME = "archmem"
SECTION_START = "<!-- archmem:start"
SECTION_END = "<!-- archmem:end -->"

CLAUDE_MCP_FILE = ".mcp.json"
CLAUDE_SETTINGS_FILE = ".claude/settings.json"
CLAUDE_MEMORY_FILE = "CLAUDE.md"
CODEX_CONFIG_FILE = ".codex/config.toml"
CODEX_HOOKS_FILE = ".codex/hooks.json"
CURSOR_MCP_FILE = ".cursor/mcp.json"
CURSOR_HOOKS_FILE = ".cursor/hooks.json"
AGENTS_FILE = "AGENTS.md"

SESSION_HABITS = """\
## Project memory (archmem)

This repository keeps what agents and people learn about its architecture in archmem,
as memories attached to the elements of its model (MCP server `archmem`).

- A briefing (`# Briefing: …`) may already be in your context: for the files being
  changed, or an overview of the project. Once you know the task, call `start_session`
  with it (and the elements it touches): you get a `session_id` and its briefing.
- Before you change code, `recall` with the task and your `session_id`.
- Learned something the next agent must know? `remember` it with your `session_id`:
  kind `pitfall` or `convention`, a short title, and the element it is about.
- A remembered fact changed? `remember` the new one with `supersedes` naming the old
  title. Never leave two memories that contradict each other.
- You checked a memory marked VERIFY and it still holds: `confirm_memory` it.
- At the end, `end_session` with `used_memories` (the titles you relied on) and a
  one-line `outcome`.
"""


# ---- the snippets --------------------------------------------------------------------


def server_entry() -> dict[str, Any]:
    """The ``archmem`` entry of an ``mcpServers`` map (Claude Code, Cursor, most clients)."""
    return {"type": "stdio", "command": "archmem", "args": ["mcp"], "env": {}}


def cursor_server_entry() -> dict[str, Any]:
    """Cursor's entry: it starts stdio servers from the agent terminal's folder, so the
    project is named with Cursor's own ``${workspaceFolder}`` (expanded by Cursor)."""
    return {"command": "archmem", "args": ["mcp", "--repo", "${workspaceFolder}"]}


def codex_server_entry() -> dict[str, Any]:
    """The ``[mcp_servers.archmem]`` table of Codex's config.toml, as data."""
    return {"command": "archmem", "args": ["mcp"]}


def mcp_json_snippet() -> str:
    """What ``.mcp.json`` holds after install in a project that had none."""
    return dump_json({"mcpServers": {SERVER_NAME: server_entry()}}, 2)


def cursor_mcp_json_snippet() -> str:
    """What ``.cursor/mcp.json`` holds after install in a project that had none."""
    return dump_json({"mcpServers": {SERVER_NAME: cursor_server_entry()}}, 2)


def codex_toml_snippet() -> str:
    """The ``[mcp_servers.archmem]`` table install adds to Codex's config.toml."""
    entry = codex_server_entry()
    args = ", ".join(toml_string(arg) for arg in entry["args"])
    return f"[mcp_servers.{SERVER_NAME}]\ncommand = {toml_string(entry['command'])}\nargs = [{args}]\n"


def habits_section() -> str:
    """The CLAUDE.md / AGENTS.md section, with the markers that let a second run find it."""
    return (
        f"{SECTION_START} (written by `archmem install`, which rewrites this block: edit outside it) -->\n"
        f"{SESSION_HABITS}"
        f"{SECTION_END}\n"
    )


# ---- planned changes -----------------------------------------------------------------


@dataclass(repr=False, eq=False)
class FileChange(Record):
    """One file install would touch: its text before (None: it does not exist) and after."""

    path: Path
    name: str
    before: str | None
    after: str
    conflicts: list[str] = field(default_factory=list)
    """Existing archmem entries that differ from what install writes: replacing them
    needs ``force``."""

    @property
    def action(self) -> str:
        if self.before is None:
            return "created"
        return "unchanged" if self.before == self.after else "updated"

    def diff(self) -> str:
        """The unified diff from before to after ('' when unchanged)."""
        if self.before == self.after:
            return ""
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile="/dev/null" if self.before is None else f"a/{self.name}",
            tofile=f"b/{self.name}",
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.name,
            "file": str(self.path),
            "action": self.action,
            "conflicts": self.conflicts,
            "diff": self.diff(),
        }


Merge = Callable[[str | None, str], tuple[str, list[str]]]


def plan_files(files: list[tuple[Path, str, Merge]]) -> list[FileChange]:
    """Read each (path, name shown, merge) and what the merge makes of it. Never writes."""
    changes = []
    for path, name, merge in files:
        before = read_exact(path, name)
        after, conflicts = merge(before, name)
        changes.append(FileChange(path, name, before, after, conflicts))
    return changes


def plan_claude_code(root: Path, *, budget: int = DEFAULT_BUDGET) -> list[FileChange]:
    """``.mcp.json`` (the server), ``.claude/settings.json`` (the SessionStart hook) and
    the CLAUDE.md section, for the project at ``root``."""
    return plan_files([
        (root / CLAUDE_MCP_FILE, CLAUDE_MCP_FILE, merge_mcp_json),
        (root / CLAUDE_SETTINGS_FILE, CLAUDE_SETTINGS_FILE,
         lambda text, name: merge_settings_hook(text, name, budget=budget)),
        (root / CLAUDE_MEMORY_FILE, CLAUDE_MEMORY_FILE, merge_section),
    ])


def plan_codex(
    root: Path, *, config_path: Path | None = None, config_name: str | None = None, budget: int = DEFAULT_BUDGET
) -> list[FileChange]:
    """Codex's config.toml (``.codex/config.toml`` of the project, or ``config_path``), the
    ``hooks.json`` beside it (the SessionStart briefing) and the AGENTS.md section."""
    toml_path = config_path if config_path is not None else root / CODEX_CONFIG_FILE
    toml_name = config_name or (CODEX_CONFIG_FILE if config_path is None else str(config_path))
    hooks_name = (toml_name[: -len("config.toml")] + "hooks.json" if toml_name.endswith("config.toml")
                  else str(toml_path.with_name("hooks.json")))
    return plan_files([
        (toml_path, toml_name, merge_codex_toml),
        (toml_path.with_name("hooks.json"), hooks_name, lambda text, name: merge_codex_hooks(text, name, budget=budget)),
        (root / AGENTS_FILE, AGENTS_FILE, merge_section),
    ])


def plan_cursor(root: Path, *, budget: int = DEFAULT_BUDGET) -> list[FileChange]:
    """Cursor's project ``.cursor/mcp.json``, ``.cursor/hooks.json`` (the sessionStart
    briefing and the sessionEnd hook) and the AGENTS.md section (Cursor reads AGENTS.md
    as project rules)."""
    return plan_files([
        (root / CURSOR_MCP_FILE, CURSOR_MCP_FILE,
         lambda text, name: merge_mcp_json(text, name, entry=cursor_server_entry())),
        (root / CURSOR_HOOKS_FILE, CURSOR_HOOKS_FILE, lambda text, name: merge_cursor_hooks(text, name, budget=budget)),
        (root / AGENTS_FILE, AGENTS_FILE, merge_section),
    ])


NOT_ON_PATH = "installed, but the archmem command is not on PATH"


def installed(root: Path, *, command: str | None = "archmem") -> dict[str, str]:
    """Per target, what is in the project now: ``installed`` (install would change
    nothing), ``customized`` (an archmem entry that differs from what install writes),
    ``partial``, ``no``, or the error that stops reading its files. The agents start
    ``archmem`` by name: when ``command`` (``shutil.which("archmem")``) is None, an
    installed target says it cannot be started."""
    found = {}
    for target, plan in (("claude-code", plan_claude_code), ("codex", plan_codex), ("cursor", plan_cursor)):
        try:
            changes = plan(root)
        except ConfigError as exc:
            found[target] = f"error: {exc.message}"
            continue
        actions = {change.action for change in changes}
        if actions == {"unchanged"}:
            found[target] = "installed" if command else NOT_ON_PATH
        elif any(change.conflicts for change in changes):
            found[target] = "customized"
        elif "unchanged" in actions and any(c.action == "unchanged" and c.name != AGENTS_FILE for c in changes):
            found[target] = "partial"
        else:
            found[target] = "no"
    return found


def check_conflicts(changes: list[FileChange]) -> None:
    """Refuse (nothing written) when an existing archmem entry differs and would be replaced."""
    found = [f"{change.name}: {conflict}" for change in changes for conflict in change.conflicts]
    if found:
        raise ConflictError(
            "an archmem entry already exists and differs from what install writes; nothing was written\n  "
            + "\n  ".join(found),
            hint="see the change with --dry-run, then run again with --force to replace it",
        )


def apply_changes(changes: list[FileChange], *, force: bool = False) -> None:
    """Write every created or updated file atomically; refuse conflicts unless ``force``."""
    if not force:
        check_conflicts(changes)
    written: list[str] = []
    for change in changes:
        if change.action == "unchanged":
            continue
        try:
            write_atomic(change.path, change.after)
        except OSError as exc:
            done = f" (already written: {', '.join(written)})" if written else "; nothing was written"
            raise ConfigError(f"cannot write {change.name}: {exc.strerror or exc}{done}") from None
        written.append(change.name)


# ---- merging JSON --------------------------------------------------------------------


def merge_mcp_json(
    text: str | None, name: str = CLAUDE_MCP_FILE, *, entry: dict[str, Any] | None = None
) -> tuple[str, list[str]]:
    """Add the archmem server (``entry``, Claude Code's by default) to an ``mcpServers``
    file (Claude Code's .mcp.json, Cursor's .cursor/mcp.json), keeping every other key
    and server."""
    ours = entry if entry is not None else server_entry()
    if text is None or not text.strip():
        return dump_json({"mcpServers": {SERVER_NAME: ours}}, 2), []
    data, style = load_json(text, name)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{name}: \"mcpServers\" is not an object; nothing was written")
    conflicts = []
    existing = servers.get(SERVER_NAME)
    if existing is not None:
        if _same_server(existing, ours):
            return text, []
        conflicts.append(f'the "{SERVER_NAME}" server is {short_json(existing)}, install writes {short_json(ours)}')
    servers[SERVER_NAME] = ours
    return dump_json(data, *style, source=text), conflicts


def _same_server(existing: Any, ours: dict[str, Any]) -> bool:
    """The same server, reading an absent ``type`` as stdio and an absent ``env`` as empty."""
    if not isinstance(existing, dict):
        return False
    defaults = {"type": "stdio", "env": {}, "args": []}
    return {**defaults, **existing} == {**defaults, **ours}


# ---- merging Markdown ----------------------------------------------------------------


def merge_section(text: str | None, name: str = CLAUDE_MEMORY_FILE) -> tuple[str, list[str]]:
    """Put the session-habits section into CLAUDE.md / AGENTS.md: in place of the one
    between the markers, or appended after the user's text, never twice."""
    section = habits_section()
    if text is None or not text.strip():
        return section, []
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline != "\n":
        section = section.replace("\n", newline)
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith(SECTION_START)]
    ends = [i for i, line in enumerate(lines) if line.strip() == SECTION_END]
    if not starts and not ends:
        separator = "" if text.endswith(("\n", "\r")) else newline
        return text + separator + newline + section, []
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        where = (starts or ends)[0] + 1
        raise ConfigError(
            f"{name}:{where}:1: the archmem section's markers ({SECTION_START} … -->, {SECTION_END}) are not one "
            "start followed by one end; nothing was written",
            hint="remove the stray marker lines (or the whole section) and run archmem install again",
        )
    after_end = "".join(lines[ends[0] + 1:])
    if not lines[ends[0]].endswith(("\n", "\r")) and not after_end:
        section = section.rstrip("\r\n")  # the file ended right after the marker: keep it so
    return "".join(lines[: starts[0]]) + section + after_end, []


# ---- merging Codex TOML --------------------------------------------------------------


def merge_codex_toml(text: str | None, name: str = CODEX_CONFIG_FILE) -> tuple[str, list[str]]:
    """Add ``[mcp_servers.archmem]`` to a Codex config.toml, textually (comments and
    layout stay as they are), and parse the result to prove nothing else changed."""
    block = codex_toml_snippet()
    if text is None or not text.strip():
        return block, []
    original = load_toml(text, name)
    servers = original.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"{name}: mcp_servers is not a table; nothing was written")
    existing = servers.get(SERVER_NAME)
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline != "\n":
        block = block.replace("\n", newline)
    conflicts: list[str] = []
    if existing is None:
        separator = "" if text.endswith(("\n", "\r")) else newline
        merged = text + separator + newline + block
    elif _same_codex_server(existing):
        return text, []
    else:
        conflicts.append(
            f"[mcp_servers.{SERVER_NAME}] is {short_json(existing)}, install writes {short_json(codex_server_entry())}"
        )
        merged = replace_table(text, block, ["mcp_servers", SERVER_NAME], name)
    _verify_toml(original, merged, name, block)
    return merged, conflicts


def _same_codex_server(existing: Any) -> bool:
    if not isinstance(existing, dict):
        return False
    defaults: dict[str, Any] = {"env": {}, "args": []}
    return {**defaults, **existing} == {**defaults, **codex_server_entry()}


def _verify_toml(original: dict[str, Any], merged: str, name: str, block: str) -> None:
    """The merged text parses, holds our table, and everything else is what it was."""
    try:
        result = tomllib.loads(merged)
    except tomllib.TOMLDecodeError:
        result = None
    if result is not None and _without_ours(result) == _without_ours(original) \
            and result.get("mcp_servers", {}).get(SERVER_NAME) == codex_server_entry():
        return
    raise ConfigError(
        f"{name}: install could not add [mcp_servers.{SERVER_NAME}] without changing the rest of the file "
        "(mcp_servers written inline, or a table header inside a multi-line string); nothing was written",
        hint=f"add it by hand:\n{block}",
    )


def _without_ours(data: dict[str, Any]) -> dict[str, Any]:
    data = dict(data)
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        servers = {key: value for key, value in servers.items() if key != SERVER_NAME}
        if servers:
            data["mcp_servers"] = servers
        else:
            data.pop("mcp_servers")
    return data


# ---- reading -------------------------------------------------------------------------


# ---- --print -------------------------------------------------------------------------


def snippets(target: str | None = None, *, budget: int = DEFAULT_BUDGET) -> dict[str, Any]:
    """The snippets for ``target`` (all of them when None), as data for ``--print --json``."""
    found: dict[str, Any] = {}
    if target in (None, "claude-code"):
        found["mcp_json"] = json.loads(mcp_json_snippet())
        found["claude_settings"] = json.loads(settings_snippet(budget))
        found["hook_command"] = hook_command(budget)
    if target in (None, "cursor"):
        found["cursor_mcp_json"] = json.loads(cursor_mcp_json_snippet())
        found["cursor_hooks"] = json.loads(cursor_hooks_snippet(budget))
    if target in (None, "codex"):
        found["codex_toml"] = codex_toml_snippet()
        found["codex_hooks"] = json.loads(codex_hooks_snippet(budget))
    found["section"] = habits_section()
    return found


def print_document(target: str | None = None, *, budget: int = DEFAULT_BUDGET) -> str:
    """What ``archmem install --print`` shows: each snippet in a fenced block, with where
    it goes. Paste them yourself into any stdio MCP client."""
    parts = [(
        "# archmem for your MCP client\n\n"
        "The server speaks MCP over stdio: the client starts `archmem mcp` in the repository\n"
        "(`archmem mcp --repo PATH` for another folder).\n"
    )]
    if target in (None, "claude-code"):
        parts.append(
            "## JSON: Claude Code `.mcp.json`, other clients' `mcpServers` (started in the repository)\n\n"
            f"```json\n{mcp_json_snippet()}```\n"
        )
        parts.append(
            "## Claude Code hooks: `.claude/settings.json`\n\n"
            "SessionStart's output (the briefing for the changed files) is added to the agent's context; "
            "SessionEnd ends the sessions the agent left open.\n\n"
            f"```json\n{settings_snippet(budget)}```\n"
        )
    if target in (None, "cursor"):
        parts.append(
            "## JSON: Cursor `.cursor/mcp.json` (Cursor expands `${workspaceFolder}`)\n\n"
            f"```json\n{cursor_mcp_json_snippet()}```\n"
        )
        parts.append(
            "## Cursor hooks: `.cursor/hooks.json`\n\n"
            "sessionStart returns the briefing as `additional_context`; sessionEnd ends the sessions the agent "
            "left open.\n\n"
            f"```json\n{cursor_hooks_snippet(budget)}```\n"
        )
    if target in (None, "codex"):
        parts.append(
            "## TOML: Codex `.codex/config.toml` (trusted projects) or `~/.codex/config.toml`\n\n"
            f"```toml\n{codex_toml_snippet()}```\n"
        )
        parts.append(
            "## Codex hooks: `.codex/hooks.json` (or `~/.codex/hooks.json`)\n\n"
            "SessionStart returns the briefing as `additionalContext`. Codex runs hooks you trusted once "
            "(/hooks); before hooks were on by default, they needed `[features] codex_hooks = true` in "
            "config.toml.\n\n"
            f"```json\n{codex_hooks_snippet(budget)}```\n"
        )
    parts.append(
        "## Session habits: AGENTS.md, CLAUDE.md, or your client's rules file\n\n"
        f"```markdown\n{habits_section()}```\n"
    )
    return "\n".join(parts)
