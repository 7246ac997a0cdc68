"""Connecting coding agents (Claude Code, Codex, Cursor, any stdio MCP client): the files
``archmem install`` merges into a project (``install``), read and written as they are
(``config_files``)."""
