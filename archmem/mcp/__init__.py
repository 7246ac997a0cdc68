"""``archmem mcp``: the stdio MCP server (``server``), its tools (``tools``) and its
checked stdio transport (``stdio``). Nothing here imports the SDK at import time."""
