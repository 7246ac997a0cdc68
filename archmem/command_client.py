"""Run a command line in the warm command server, or say it cannot be: the client half.

A new Python process pays for its imports on every call, and an agent's hooks call archmem
many times a minute. So, as Mercurial's chg does, a server process per user (and per
interpreter, install and Python settings) keeps archmem imported, and for each command
line it forks a worker that takes on the caller's folder, environment, umask and its very
standard input, output and error (passed over a Unix socket), runs the command as a new
process would, and hands back its exit code. The caller is this module: it imports only
built-in modules, so it costs little more than the interpreter's own start.

Anything unusual — no server yet, another archmem, a folder that is not private, closed
standard streams, ``ARCHMEM_SERVER=off``, CI, Windows or macOS (fork after imports) — and
the command runs in this process as always; a missing server is then started in the
background for the next call. ``archmem server status`` and ``archmem server stop`` show
and end it; it ends by itself after ten idle minutes, or when archmem's code changes.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: the client imports nothing it need not
if TYPE_CHECKING:
    import _socket
    from collections.abc import Mapping

MAGIC = b"ARCHMEM-SERVER-1"
"""First field of every request; a server speaking another version answers 'mismatch'."""

NOT_SERVED = ("mcp", "server")
"""Commands that always run here: the MCP server lives as long as its client, and the
command server is not its own client."""

OFF = ("0", "off", "false", "no")
ON = ("1", "on", "true", "yes")
REQUIRE = "require"
"""``ARCHMEM_SERVER=require``: fail instead of running here (for tests and diagnosis)."""

SETTINGS_PREFIXES = ("PYTHON", "LC_", "LANG")
"""Environment that shapes the interpreter itself (module paths, encodings, locale): part of
the server's identity, so a caller only ever meets a server started as it would start."""

FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

HANDSHAKE_SECONDS = 5.0
"""How long a caller waits for a server to take its request before running it itself (a
server stopped or starved). The worker runs nothing until the caller says go, so a
command never runs twice."""


class ServerUnavailable(RuntimeError):
    """``ARCHMEM_SERVER=require`` and the server could not run the command."""


def wanted(argv: list[str], env: Mapping[str, str]) -> bool:
    """Whether this command line should go to the server at all."""
    setting = env.get("ARCHMEM_SERVER", "").strip().lower()
    if setting in OFF:
        return False
    if argv[:1] and argv[0] in NOT_SERVED:
        return False
    if setting in ON or setting == REQUIRE:
        return os.name == "posix" and hasattr(os, "fork")
    if env.get("CI", "").strip().lower() not in ("", *OFF):
        return False  # a CI job runs each command once: a server would only cost
    return sys.platform.startswith("linux")  # macOS: frameworks break in a child forked after imports


def identity(env: Mapping[str, str]) -> str:
    """Who may serve this caller: the same interpreter, archmem install, version and
    interpreter settings (what decides which code runs and how text is encoded)."""
    from archmem import __version__

    settings = sorted(f"{name}={value}" for name, value in env.items() if name.startswith(SETTINGS_PREFIXES))
    # -P (safe_path) is left out: the server sets it for itself, no caller's folder on its module path
    flags = repr(sys.flags).replace(f"safe_path={sys.flags.safe_path}", "")
    return "\n".join([MAGIC.decode(), sys.executable, os.path.dirname(os.path.abspath(__file__)), __version__,
                      sys.version, flags, repr(sorted(sys._xoptions.items())), repr(sys.warnoptions),
                      confinement(), *settings])


NAMESPACES = ("mnt", "user", "pid", "net", "ipc", "uts", "cgroup")


def confinement() -> str:
    """The sandbox this process runs in, as Linux shows it: its namespaces, seccomp and
    no-new-privileges. A sandboxed agent (bubblewrap, a seccomp filter) then meets only a
    server started inside the same sandbox: one started outside would run its commands
    with more than the sandbox allows, one started inside would give an outside caller less."""
    parts = []
    for name in NAMESPACES:
        try:
            parts.append(os.readlink(f"/proc/self/ns/{name}"))
        except OSError:
            parts.append(name + ":?")
    try:
        with open("/proc/self/status", "rb") as status:
            parts += [line.strip().decode("ascii", "replace") for line in status
                      if line.startswith((b"Seccomp:", b"NoNewPrivs:"))]
    except OSError:
        pass
    return " ".join(parts)


def runtime_folder(env: Mapping[str, str]) -> str | None:
    """A folder only this user can enter, for the socket (None: no safe one):
    ``ARCHMEM_RUNTIME_DIR``, else ``$XDG_RUNTIME_DIR/archmem``, else (no such folder, or
    one that cannot be made) ``archmem-UID`` in the temporary folder."""
    given = env.get("ARCHMEM_RUNTIME_DIR")
    shared = env.get("XDG_RUNTIME_DIR")
    candidates = [given] if given else [
        *([os.path.join(shared, "archmem")] if shared else []),
        os.path.join(env.get("TMPDIR") or "/tmp", f"archmem-{os.getuid()}"),
    ]
    for base in candidates:
        if _private(base):
            return base
    return None


def _private(base: str) -> bool:
    try:
        os.makedirs(base, mode=0o700, exist_ok=True)
        info = os.lstat(base)
    except OSError:
        return False
    import stat

    # a symlink, someone else's folder, or one others may enter: not ours to trust
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def socket_path(env: Mapping[str, str], key: str | None = None) -> str | None:
    """Where the server for this caller (``key``: its ``identity``) listens (None: nowhere
    safe, or too long a path)."""
    folder = runtime_folder(env)
    if folder is None:
        return None
    import binascii

    key = identity(env) if key is None else key
    path = os.path.join(folder, f"server-{binascii.crc32(key.encode()):08x}.sock")
    return path if len(os.fsencode(path)) < 100 else None  # sun_path holds 108 bytes


def encode_request(key: str, argv: list[str], cwd: bytes, env: Mapping[bytes, bytes], umask: int) -> bytes:
    """One request: NUL-separated fields (no argument, path or variable can hold a NUL)."""
    fields = [MAGIC, b"run", key.encode(), cwd, b"%d" % umask, b"%d" % len(argv),
              *(os.fsencode(arg) for arg in argv), *(name + b"=" + value for name, value in env.items())]
    body = b"\0".join(fields)
    return len(body).to_bytes(8, "big") + body


def run(argv: list[str]) -> int | None:
    """``argv`` run by the server: its exit code; None when the caller must run it here.
    Starts a server in the background when there is none to ask."""
    env = os.environ
    if not wanted(argv, env):
        return None
    key = identity(env)
    path = socket_path(env, key)
    if path is None or not _streams_open():
        return _unavailable("no private folder for its socket, or a standard stream is closed")
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(HANDSHAKE_SECONDS)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        start_server(path)
        return _unavailable("no server was running; one is starting")
    try:
        return _converse(sock, path, key, argv)
    finally:
        sock.close()


def _converse(sock: _socket.socket, path: str, key: str, argv: list[str]) -> int | None:
    import _socket

    umask = os.umask(0)
    os.umask(umask)
    try:
        cwd = os.getcwdb()
    except OSError:  # a folder removed under the shell: run here, and fail as archmem does
        return _unavailable("the current folder is gone")
    request = encode_request(key, argv, cwd, os.environb, umask)
    relay = _SignalRelay()  # from before the request: a Ctrl-C meant for the command must reach it
    try:
        sock.sendall(request)
        kind = _receive(sock, 1)
    except OSError:
        kind = b""
    if kind != b"P":
        relay.restore()
        if kind == b"S":  # archmem's code changed under it: it is ending; the next call starts anew
            start_server(path)
            return _unavailable("the server was stale")
        return _unavailable("the server refused the request")
    # the streams go only to a worker that answered: streams handed to a server that never
    # takes them would hold this process's output open (its reader would wait) until it did
    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
    try:
        worker = int.from_bytes(_receive(sock, 8), "big")
        sock.sendmsg([b"G"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])  # from here on only the worker runs it
    except OSError:
        relay.restore()
        return _unavailable("the server did not take the request")
    sock.settimeout(None)
    relay.aim(worker)
    try:
        answer = _receive(sock, 5)
    except OSError:
        answer = b""
    if answer[:1] == b"X" and len(answer) == 5:
        return int.from_bytes(answer[1:], "big", signed=True)
    if relay.passed:  # the worker ended by the signal this process was sent: end by it too
        relay.restore()
        os.kill(os.getpid(), relay.passed[-1])
    sys.stderr.write("archmem: the command ended without an exit code (its worker was stopped)\n")
    return 1


def _receive(sock: _socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


class _SignalRelay:
    """Passes the signals a terminal or a supervisor sends this process on to the worker
    (it is in another session, so a Ctrl-C reaches only us); those that come before the
    worker is known are passed on as soon as it is."""

    def __init__(self) -> None:
        import _signal  # type: ignore[import-not-found]  # signal's enums cost more than asking

        self.worker: int | None = None
        self.passed: list[int] = []
        self.pending: list[int] = []
        self.previous = {number: _signal.signal(number, self.relay)
                         for number in (getattr(_signal, name) for name in FORWARDED_SIGNALS)}

    def relay(self, signum: int, frame: object) -> None:
        if self.worker is None:
            self.pending.append(signum)
            return
        self.passed.append(signum)
        try:
            os.kill(self.worker, signum)
        except OSError:
            pass

    def aim(self, worker: int) -> None:
        self.worker = worker
        for signum in self.pending:
            self.relay(signum, None)

    def restore(self) -> None:
        import _signal  # type: ignore[import-not-found]  # signal's enums cost more than asking

        for number, handler in self.previous.items():
            _signal.signal(number, handler)
        if self.pending and self.worker is None:  # no worker took them: they are this process's
            os.kill(os.getpid(), self.pending[0])


def _streams_open() -> bool:
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)
    except OSError:
        return False
    return True


def _unavailable(why: str) -> int | None:
    if os.environ.get("ARCHMEM_SERVER", "").strip().lower() == REQUIRE:
        raise ServerUnavailable(f"ARCHMEM_SERVER=require, but {why}")
    return None


def start_server(path: str) -> None:
    """Start a server on ``path`` in its own session, in the background; it takes a lock, so
    of two started at once one serves and the other ends. Its messages go to a log beside
    the socket."""
    import subprocess  # only on the way that starts a server

    flags: list[str] = getattr(subprocess, "_args_from_interpreter_flags", list)()  # -X, -W, -E… as ours
    log = os.open(path + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        subprocess.Popen(
            [sys.executable, *flags, "-P", "-m", "archmem.command_server", path],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd="/", start_new_session=True, close_fds=True,
        )
    except OSError:
        pass
    finally:
        os.close(log)
