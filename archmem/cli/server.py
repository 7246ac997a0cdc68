"""``archmem server``: see, start and stop the warm command server (``archmem.command_client``)."""

from __future__ import annotations

import os
import sys
import time

import click

from archmem.cli import cli, emit_json, json_option
from archmem.words import plural

START_WAIT_SECONDS = 60.0


def _state() -> dict[str, object]:
    """Whether this shell's commands would use a server, where, and what it says."""
    from archmem.command_client import socket_path, wanted
    from archmem.command_server import request_info

    used = wanted(["status"], os.environ)
    path = socket_path(os.environ) if used else None
    info = request_info(path) if path else None
    return {"used": used, "socket": path, "running": info is not None, **({"server": info} if info else {})}


def _why_off() -> str:
    setting = os.environ.get("ARCHMEM_SERVER", "")
    if setting:
        return f"ARCHMEM_SERVER={setting}"
    if os.environ.get("CI"):
        return "CI is set (a CI job runs each command once)"
    return f"not used on {sys.platform} unless ARCHMEM_SERVER=on"


@cli.group()
def server() -> None:
    """The warm command server: archmem kept imported, so each command starts in
    milliseconds, and the memory folders its commands read watched (inotify), so a large
    one is known unchanged without git stating every file. Started by the first command,
    it ends after ten idle minutes or when archmem is upgraded. ARCHMEM_SERVER=off runs
    every command in its own process."""


@server.command()
@json_option
def status(as_json: bool) -> None:
    """Whether a server answers this shell's commands, what it has served and which
    memory folders it watches."""
    from archmem.command_client import OFF, ON, REQUIRE
    from archmem.command_server import idle_seconds

    setting = os.environ.get("ARCHMEM_SERVER", "").strip().lower()
    if setting and setting not in (*OFF, *ON, REQUIRE):
        click.echo(f"ARCHMEM_SERVER={setting!r} is not one of on, off, require: the default applies", err=True)
    idle_seconds(os.environ)  # says so on stderr when ARCHMEM_SERVER_IDLE is no number of seconds
    state = _state()
    if as_json:
        emit_json(state)
        return
    if not state["used"]:
        click.echo(f"off: {_why_off()}")
        return
    if not state["running"]:
        click.echo(f"not running (the next command starts one on {state['socket']})")
        return
    info = state["server"]
    assert isinstance(info, dict)
    started = float(info["started"])
    served = info["served"]
    click.echo(f"running: process {info['pid']}, up {int(time.time() - started)} s, "
               f"{plural(served if isinstance(served, int) else 0, 'request')} served, on {state['socket']}")
    watched = info.get("watched")
    if isinstance(watched, list):
        click.echo(f"watching {plural(len(watched), 'memory folder')} for changes"
                   + "".join(f"\n  {folder}" for folder in watched))
    else:
        click.echo("not watching memory folders (no inotify here): git is asked at each command")


@server.command()
@json_option
def start(as_json: bool) -> None:
    """Start the server now (the first command would) and wait until it answers."""
    from archmem.command_client import socket_path, start_server, wanted
    from archmem.command_server import request_info
    from archmem.errors import ArchmemError

    if not wanted(["status"], os.environ):
        raise ArchmemError(f"the command server is off: {_why_off()}")
    path = socket_path(os.environ)
    if path is None:
        raise ArchmemError("no private folder for the server's socket (set ARCHMEM_RUNTIME_DIR to one only you can enter)")
    if request_info(path) is None:
        start_server(path)
    deadline = time.monotonic() + START_WAIT_SECONDS
    while (info := request_info(path)) is None:
        if time.monotonic() > deadline:
            raise ArchmemError(f"the command server did not answer within {START_WAIT_SECONDS:.0f} s: see {path}.log")
        time.sleep(0.05)
    if as_json:
        emit_json({"socket": path, "server": info})
        return
    click.echo(f"running: process {info['pid']} on {path}")


@server.command()
@json_option
def stop(as_json: bool) -> None:
    """Stop the server (commands then run in their own process until one starts again)."""
    from archmem.command_server import request_info, wait_ended
    from archmem.errors import ArchmemError

    state = _state()
    path = state["socket"]
    info = request_info(path, b"stop") if isinstance(path, str) else None
    if info is not None and isinstance(path, str) and not wait_ended(path):
        raise ArchmemError(f"the command server (process {info['pid']}) did not end within 10 s")
    if as_json:
        emit_json({"stopped": info is not None, **({"server": info} if info else {})})
        return
    click.echo(f"stopped process {info['pid']}" if info else "no server was running")
