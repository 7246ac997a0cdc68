"""The warm command server: archmem imported once, a forked worker per command line.

Started in the background by ``archmem.command_client`` (``python -P -m
archmem.command_server SOCKET``): it takes the lock beside its socket (one server per
socket), imports archmem's command modules, then waits. For each request it checks that
archmem's code on disk is still what it imported (else it says 'stale' and ends, and the
caller runs the command itself), forks, and goes back to waiting; the worker takes the
caller's standard streams, folder, environment, umask and arguments, runs the command line
as a new process would, and sends back its exit code. A worker whose caller disappears
ends (SIGIO on the connection). The server ends after ``ARCHMEM_SERVER_IDLE`` seconds (600) without a request,
on ``archmem server stop`` or on SIGTERM, and removes its socket.

Forking a process that has only imported modules (no thread, no open database) is safe;
each worker starts from that state, so nothing one command does reaches the next.
"""

from __future__ import annotations

import gc
import importlib
import io
import json
import os
import pkgutil
import signal
import socket
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import archmem
from archmem import command_client as client
from archmem import folder_watch
from archmem.folder_watch import Watch

IDLE_SECONDS = 600.0
TICK_SECONDS = 2.0
"""How often an idle server wakes to reap finished workers and check its idle time."""

NOT_PRELOADED = ("archmem.testing", "archmem.mcp", "archmem.embeddings_local", "archmem.demo",
                 "archmem.command_server")
"""Modules a served command rarely needs and that may pull in optional packages."""


def preload() -> list[str]:
    """Import archmem's modules (those that import), so a worker finds them ready; the
    names that failed (an optional dependency missing) are returned."""
    failed: list[str] = []
    for found in pkgutil.walk_packages(archmem.__path__, "archmem."):
        if found.name.startswith(NOT_PRELOADED):
            continue
        try:
            importlib.import_module(found.name)
        except Exception:  # an optional dependency: the worker imports it itself if it must
            failed.append(found.name)
    return failed


def code_stamp() -> tuple[tuple[str, int, int], ...]:
    """Size and time of every archmem source file this process has imported, of the
    package folders (a module added) and of the folders on the module path (installing or
    upgrading any package changes its site-packages): a changed stamp means the code on
    disk is not the code this process holds."""
    files: list[str] = [*archmem.__path__, *(entry for entry in sys.path if entry and os.path.isdir(entry))]
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin and getattr(module, "__name__", "").split(".")[0] == "archmem":
            files.append(origin)
    stamp = []
    for name in sorted(set(files)):
        try:
            info = os.stat(name)
        except OSError:
            stamp.append((name, -1, -1))
            continue
        stamp.append((name, info.st_size, info.st_mtime_ns))
    return tuple(stamp)


class Server:
    """The listening socket, its lock, and what ``archmem server status`` reports."""

    def __init__(self, path: str, idle: float) -> None:
        self.path = path
        self.idle = idle
        self.key = client.identity(os.environ)
        self.started = time.time()
        self.pid = os.getpid()
        self.served = 0
        self.stamp: tuple[tuple[str, int, int], ...] = ()
        self.listener: socket.socket | None = None
        self.inode = 0
        self.lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        self.watch: Watch | None = None

    def start_watching(self) -> None:
        """The folder watch workers' commands ask about (``archmem.folder_watch``); none
        where the kernel has no inotify or will not give another instance."""
        try:
            self.watch = Watch.start()
        except OSError as exc:
            print(f"archmem server: memory folders not watched ({exc}); git is asked each time", file=sys.stderr)

    def keep_watch(self) -> None:
        """Watch the folders workers asked about, and hear every change queued so far."""
        if self.watch is not None:
            self.watch.keep()

    def take_lock(self) -> bool:
        import fcntl  # POSIX only, as the server is: `archmem server status` imports this module anywhere

        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # another server has this socket
        os.ftruncate(self.lock, 0)
        os.write(self.lock, b"%d\n" % os.getpid())
        return True

    def listen(self) -> None:
        try:
            os.unlink(self.path)  # a dead server's socket: we hold the lock, so no live one owns it
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        os.chmod(self.path, 0o600)
        self.inode = os.stat(self.path).st_ino
        listener.listen(64)
        listener.setblocking(False)
        self.listener = listener

    def loop(self) -> None:
        import select

        assert self.listener is not None
        waited_on = [self.listener.fileno()]
        if self.watch is not None:
            waited_on += [self.watch.watcher.fileno(), self.watch.requests[0]]
        last = time.monotonic()
        while True:
            _reap()
            ready = select.select(waited_on, [], [], TICK_SECONDS)[0]
            self.keep_watch()  # also while idle: the kernel's queue of events stays short
            if waited_on[0] not in ready:
                if time.monotonic() - last > self.idle or not self.owns_socket():
                    return
                continue
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                continue
            last = time.monotonic()
            with connection:
                if not self.answer(connection):
                    return

    def owns_socket(self) -> bool:
        """Whether the socket file is still ours (its folder removed, or a successor's in
        its place: no caller can reach this server any more)."""
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def answer(self, connection: socket.socket) -> bool:
        """Serve one connection; False when the server must end."""
        connection.settimeout(None)
        if _peer_uid(connection) != os.getuid():
            return True
        if code_stamp() != self.stamp:
            connection.settimeout(1.0)
            try:
                _read_request(connection)  # read first: a caller still sending would see a reset, not the answer
            except (OSError, ValueError):
                pass
            _send(connection, b"S")
            return False
        self.keep_watch()  # every change made before this request is heard before its worker forks
        pid = os.fork()
        if pid == 0:  # the worker: whatever happens, it ends here and never returns to the loop
            code = 1
            try:
                assert self.listener is not None
                self.listener.close()
                os.close(self.lock)  # the lock is the server's life, not its workers'
                if self.watch is not None:
                    folder_watch.served = self.watch.served()
                    self.watch.leave()
                code = Worker(connection, self).run()
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                os._exit(code)
        self.served += 1
        return True

    def info(self) -> dict[str, object]:
        return {"pid": self.pid, "socket": self.path, "started": self.started,
                "served": self.served, "version": archmem.__version__, "python": sys.executable,
                "watched": sorted(self.watch.watcher.folders) if self.watch is not None else None}

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()
            if self.owns_socket():  # not a successor's
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
        os.close(self.lock)


class Worker:
    """One command line, in the forked child: becomes the caller's process, runs, answers."""

    def __init__(self, connection: socket.socket, server: Server) -> None:
        self.connection = connection
        self.server = server

    def run(self) -> int:
        for name in client.FORWARDED_SIGNALS:
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C: KeyboardInterrupt, as anywhere
        try:
            request = _read_request(self.connection)
        except (OSError, ValueError):
            return 1
        try:
            kind, fields = _parse(request, self.server.key)
        except ValueError:
            _send(self.connection, b"M")
            return 1
        if kind == b"info" or kind == b"stop":
            _send(self.connection, json.dumps(self.server.info()).encode())
            if kind == b"stop":
                os.kill(os.getppid(), signal.SIGTERM)
            return 0
        try:
            self.connection.sendall(b"P" + os.getpid().to_bytes(8, "big"))
            go, fds = _receive_streams(self.connection)
        except OSError:
            return 1
        if go != b"G" or len(fds) != 3:  # the caller gave up waiting and runs the command itself
            for fd in fds:
                os.close(fd)
            return 1
        self.become(fields, fds)
        self.end_with_caller()
        code = _run_command_line()
        _send(self.connection, b"X" + code.to_bytes(4, "big", signed=True))
        return code

    def become(self, fields: list[bytes], fds: list[int]) -> None:
        """Take on the caller's streams, folder, umask, environment and arguments."""
        cwd, umask, count = fields[0], int(fields[1]), int(fields[2])
        argv = [os.fsdecode(arg) for arg in fields[3:3 + count]]
        env = dict(item.split(b"=", 1) for item in fields[3 + count:] if b"=" in item)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _reopen_streams()
        os.chdir(cwd)
        os.umask(umask)
        os.environb.clear()
        os.environb.update(env)
        time.tzset()
        sys.argv = ["archmem", *argv]

    def end_with_caller(self) -> None:
        """End this worker when its caller is gone (killed, or its terminal closed). The
        caller sends nothing after its go, so the connection turns readable only when it
        ends: the kernel then sends SIGIO, whose default action ends the process (no
        thread to watch; starting one cost a worker a millisecond)."""
        import fcntl
        import select

        signal.signal(signal.SIGIO, signal.SIG_DFL)
        fd = self.connection.fileno()
        fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
        if select.select([fd], [], [], 0)[0]:  # ended before the signal was asked for
            os.kill(os.getpid(), signal.SIGTERM)


def _run_command_line() -> int:
    """``archmem.entry``'s own way, as in a new process; its exit code."""
    from archmem.entry import run_here

    try:
        run_here()
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 120  # what Python exits with when it cannot flush at exit
    return code


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF  # as the system keeps it: sys.exit(-1) is 255
    print(value, file=sys.stderr)
    return 1


def _reopen_streams() -> None:
    """New ``sys.stdin``/``stdout``/``stderr`` over the caller's descriptors, buffered as
    Python buffers them at start (stdout by line at a terminal; stderr always by line)."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        buffered: io.BufferedReader | io.BufferedWriter = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(buffered, encoding=old.encoding, errors=old.errors,
                                  line_buffering=fd == 2 or (fd == 1 and raw.isatty()))
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _read_request(connection: socket.socket) -> bytes:
    """The request: a length, then that many bytes."""
    data = b""
    while len(data) < 8 or len(data) < 8 + int.from_bytes(data[:8], "big"):
        chunk = connection.recv(1 << 20)
        if not chunk:
            raise ValueError("the request ended early")
        data += chunk
    return data[8:8 + int.from_bytes(data[:8], "big")]


def _receive_streams(connection: socket.socket) -> tuple[bytes, list[int]]:
    """The caller's go, and the descriptors of its standard streams that come with it."""
    fds: list[int] = []
    data, ancillary, _, _ = connection.recvmsg(1, socket.CMSG_SPACE(3 * 4))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            fds.extend(int.from_bytes(payload[i:i + 4], sys.byteorder, signed=True) for i in range(0, usable, 4))
    return data, fds


def _parse(request: bytes, key: str) -> tuple[bytes, list[bytes]]:
    fields = request.split(b"\0")
    if len(fields) < 3 or fields[0] != client.MAGIC or fields[2] != key.encode():
        raise ValueError("another archmem, interpreter or setting")
    return fields[1], fields[3:]


def _peer_uid(connection: socket.socket) -> int:
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    return int.from_bytes(credentials[4:8], sys.byteorder)


def _send(connection: socket.socket, data: bytes) -> None:
    try:
        connection.sendall(data)
    except OSError:
        pass


def _reap() -> None:
    """Collect finished workers (so their time counts in this process's children's)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)


def serve(path: str, idle: float = IDLE_SECONDS) -> None:
    """Listen on ``path`` until idle, stopped or stale."""
    server = Server(path, idle)
    if not server.take_lock():
        return
    signal.signal(signal.SIGTERM, _stop)
    os.chdir("/")  # hold no caller's folder
    try:
        failed = preload()
        if failed:
            print(f"archmem server: not preloaded: {', '.join(failed)}", file=sys.stderr)
        from archmem.workspace.warm import warm

        warm()
        server.stamp = code_stamp()
        server.start_watching()
        gc.collect()
        gc.freeze()  # workers share the imported objects' pages instead of copying them at the first collection
        server.listen()
        server.loop()
    finally:
        server.close()


def request_info(path: str, kind: bytes = b"info") -> dict[str, object] | None:
    """What the server on ``path`` says about itself (None: none answers)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(path)
            body = b"\0".join([client.MAGIC, kind, client.identity(os.environ).encode()])
            sock.sendall(len(body).to_bytes(8, "big") + body)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
    except OSError:
        return None
    try:
        found = json.loads(answer)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def wait_ended(path: str, timeout: float = 10.0) -> bool:
    """Wait until no server holds the lock of ``path`` (True), or ``timeout`` seconds pass."""
    import fcntl

    try:
        lock = os.open(path + ".lock", os.O_RDWR)
    except FileNotFoundError:
        return True
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except OSError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.02)
    finally:
        os.close(lock)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -P -m archmem.command_server SOCKET")
    serve(str(Path(sys.argv[1])), idle_seconds(os.environ))


def idle_seconds(env: Mapping[str, str]) -> float:
    """``ARCHMEM_SERVER_IDLE`` as seconds, else ``IDLE_SECONDS``; a value that is no positive
    number of seconds is said (in the server's log) and the default used."""
    given = env.get("ARCHMEM_SERVER_IDLE", "").strip()
    if not given:
        return IDLE_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        print(f"archmem server: ARCHMEM_SERVER_IDLE={given!r} is not a number of seconds; "
              f"ending after {IDLE_SECONDS:.0f} idle seconds", file=sys.stderr)
        return IDLE_SECONDS
    return seconds


if __name__ == "__main__":
    main()
