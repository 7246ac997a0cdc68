"""``archmem mcp``: serve the workspace to an agent over MCP (stdio).

The SDK is imported only when the command runs, so ``archmem --help`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from archmem.cli import cli, workspace_options

if TYPE_CHECKING:
    from archmem.workspace import Workspace


@cli.command("mcp")
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"], case_sensitive=False),
    default="warning",
    show_default=True,
    help="What the server logs (to stderr; stdout is the protocol).",
)
@workspace_options
def mcp_command(workspace: Workspace, log_level: str) -> None:
    """Serve this repository's memory to an agent over MCP (stdio): sessions, recall,
    remember, confirm, briefing, elements, knowledge map, review. See docs/mcp.md."""
    import sys

    from archmem.mcp.server import require_sdk, serve

    require_sdk()
    if sys.stdin.isatty():  # a person ran it: say what it is waiting for, on stderr
        click.echo(
            f"archmem mcp: serving {workspace.root} over stdio; an MCP client talks to it on stdin/stdout "
            "(archmem install claude-code|codex|--print connects one). Ctrl-D or Ctrl-C stops it.",
            err=True,
        )
    from archmem.cli.output import raw_output

    with raw_output():  # stdout is the protocol: JSON-RPC, escaped by the SDK's own JSON
        serve(workspace, log_level=log_level.upper())
