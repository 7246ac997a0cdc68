"""Memory folders the warm command server watches, so a served command can know that no
file below one changed without git stating each of them (50,000 stats a command).

The server (``archmem.command_server``) holds a ``Watcher``: one inotify instance with a
watch on every directory of each folder a command asked about. Each change there moves
the folder's count on the server's clock. Before it forks a worker the server reads every
event the kernel has queued (an edit is queued before the write that made it returns),
so the worker's ``token`` for a folder is the same as an earlier worker's exactly when
no file below it changed since that worker forked: a git look made after that fork still
holds. A folder is only watched where inotify sees every change: on a local file system
(a network or FUSE mount changed from elsewhere says nothing), with at most
``MAX_DIRECTORIES`` directories, and after an overflow of the kernel's queue every
folder counts as changed. (A write through a shared memory mapping raises no event:
inotify's one blind spot, and no editor writes so.)

Outside a served command, or for a folder not watched yet, ``token`` is None (and a
served worker asks the server to watch the folder, for the commands after it).
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

from archmem.values import Record

MAX_FOLDERS = 64
MAX_DIRECTORIES = 2000
"""Directories one watched folder may hold (a watch each); a larger folder is not watched."""

LOCAL_FILE_SYSTEMS = frozenset({
    0xEF53,  # ext2, ext3, ext4
    0x58465342,  # xfs
    0x9123683E,  # btrfs
    0x01021994,  # tmpfs
    0x858458F6,  # ramfs
    0x794C7630,  # overlayfs (a container's root)
    0xF2F52010,  # f2fs
    0x2FC12FC1,  # zfs
    0xCA451A4E,  # bcachefs
    0x3153464A,  # jfs
    0x52654973,  # reiserfs
})
"""File systems whose every change passes through this kernel, so inotify hears of it
(``statfs``'s f_type); NFS, SMB, FUSE (sshfs, virtiofs) and 9p (WSL's, a VM's shared
folders) are not among them."""

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_UNMOUNT, IN_Q_OVERFLOW, IN_IGNORED = 0x2000, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x01000000, 0x02000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
WATCHED_EVENTS = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
                  | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
_EVENT = struct.Struct("iIII")


class _Libc:
    """The two inotify calls and ``statfs``, from the C library (Python has no binding);
    ctypes is imported here, by the server alone: a command only reads its tokens."""

    def __init__(self) -> None:
        import ctypes

        self.ctypes = ctypes
        lib = ctypes.CDLL(None, use_errno=True)
        self.init1 = lib.inotify_init1
        self.init1.argtypes, self.init1.restype = [ctypes.c_int], ctypes.c_int
        self.add_watch = lib.inotify_add_watch
        self.add_watch.argtypes, self.add_watch.restype = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32], ctypes.c_int
        self.statfs = lib.statfs
        self.statfs.argtypes, self.statfs.restype = [ctypes.c_char_p, ctypes.c_void_p], ctypes.c_int


def file_system_type(path: str, libc: _Libc | None = None) -> int | None:
    """``statfs``'s f_type of the file system holding ``path`` (None when unknown)."""
    try:
        libc = libc or _Libc()
    except (OSError, AttributeError):
        return None
    buffer = libc.ctypes.create_string_buffer(256)  # struct statfs is 120 bytes on 64-bit Linux
    if libc.statfs(os.fsencode(path), buffer) != 0:
        return None
    return int(struct.unpack_from("l", buffer)[0]) & 0xFFFFFFFF


@dataclass(repr=False, eq=False)
class _Folder(Record):
    """One watched folder: its watches and when a change below it was last heard."""

    path: str
    changed: int
    """The server's clock when a change below the folder was last heard (or the watch began)."""
    watches: set[int] = field(default_factory=set)


class Watcher:
    """The server's inotify instance and the folders it watches (see the module doc)."""

    def __init__(self) -> None:
        self.libc = _Libc()
        fd = self.libc.init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            code = self.libc.ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        self.fd = fd
        self.nonce = os.urandom(8).hex()
        """Tells this server's clock from another's (a restarted server counts anew)."""
        self.clock = 0
        self.folders: dict[str, _Folder] = {}
        self.refused: set[str] = set()
        """Folders not watched (not local, too many directories, the kernel's limit): not tried again."""
        self._watches: dict[int, dict[str, str]] = {}
        """Each watch → {folder: the directory it watches there} (one directory may be in
        two folders, one inside the other: the kernel gives it one watch)."""

    def fileno(self) -> int:
        return self.fd

    def _tick(self) -> int:
        self.clock += 1
        return self.clock

    def watch(self, path: str) -> bool:
        """Watch ``path`` (absolute, symlinks resolved) and every directory below it;
        False when it cannot be watched (then it is not tried again)."""
        if path in self.folders:
            return True
        if path in self.refused or len(self.folders) >= MAX_FOLDERS or not os.path.isabs(path) \
                or not os.path.isdir(path):
            return False
        if file_system_type(path, self.libc) not in LOCAL_FILE_SYSTEMS:
            self.refused.add(path)
            return False
        folder = _Folder(path, 0)
        self.folders[path] = folder
        if not self._watch_tree(folder, path):
            return False
        folder.changed = self._tick()
        return True

    def _watch_tree(self, folder: _Folder, top: str) -> bool:
        """Watch ``top`` and the directories below it, each before its children are listed
        (a child made meanwhile is heard of); False, and the folder dropped, when the
        folder grows past ``MAX_DIRECTORIES`` or the kernel refuses a watch."""
        pending = [top]
        while pending:
            directory = pending.pop()
            added = self._add(folder, directory) if len(folder.watches) < MAX_DIRECTORIES else None
            if added is None:
                self._drop(folder)
                self.refused.add(folder.path)
                return False
            if not added:
                if directory == folder.path:  # the folder itself went before its watch: no token may vouch for it
                    self._drop(folder)
                    return False
                continue  # gone already: its parent's event said so
            try:
                with os.scandir(directory) as entries:
                    pending.extend(entry.path for entry in entries if entry.is_dir(follow_symlinks=False))
            except OSError:
                continue  # gone already: its parent's event said so
        return True

    def _add(self, folder: _Folder, directory: str) -> bool | None:
        """Watch one directory: True; False when it is gone already; None when the kernel
        refuses (its limit of watches, a directory it cannot watch)."""
        wd = self.libc.add_watch(self.fd, os.fsencode(directory), WATCHED_EVENTS)
        if wd < 0:
            return False if self.libc.ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR) else None
        folder.watches.add(wd)
        self._watches.setdefault(wd, {})[folder.path] = directory
        return True

    def _drop(self, folder: _Folder) -> None:
        """Stop counting on ``folder``: it is watched anew when next asked about (its
        watches stay while another folder shares them; the kernel's end with the server)."""
        self.folders.pop(folder.path, None)
        for wd in folder.watches:
            owners = self._watches.get(wd, {})
            owners.pop(folder.path, None)
            if not owners:
                self._watches.pop(wd, None)
        folder.watches.clear()

    def drain(self) -> None:
        """Read every queued event, moving each changed folder's count."""
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            except InterruptedError:
                continue
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size:offset + _EVENT.size + length].split(b"\0", 1)[0]
                offset += _EVENT.size + length
                self._heard(wd, mask, name)

    def _heard(self, wd: int, mask: int, name: bytes) -> None:
        if mask & IN_Q_OVERFLOW:  # events were lost: any folder may have changed
            for every in self.folders.values():
                every.changed = self._tick()
            return
        for path, directory in list(self._watches.get(wd, {}).items()):
            folder = self.folders.get(path)
            if folder is None:
                continue
            folder.changed = self._tick()
            if mask & IN_IGNORED:  # the kernel removed the watch (the directory is gone)
                folder.watches.discard(wd)
                self._watches.get(wd, {}).pop(path, None)
            if directory == path and mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED):
                self._drop(folder)  # the folder itself went or moved: watched anew when next asked about
            elif mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO) and name:
                self._watch_tree(folder, os.path.join(directory, os.fsdecode(name)))
        if mask & IN_IGNORED and not self._watches.get(wd, True):
            self._watches.pop(wd, None)

    def tokens(self) -> dict[str, str]:
        """Each watched folder → its token now (``drain`` first)."""
        return {path: f"{self.nonce}.{folder.changed}" for path, folder in self.folders.items()}

    def close(self) -> None:
        os.close(self.fd)


class Watch:
    """A ``Watcher`` and the pipe on which commands ask it to watch a folder: what a
    long-lived process keeps (the command server, for its workers; ``archmem mcp``, for
    its calls). ``keep`` before each command, then ``served`` is what that command gets."""

    def __init__(self, watcher: Watcher, requests: tuple[int, int]) -> None:
        self.watcher = watcher
        self.requests = requests
        """(read end, write end): workers write, ``keep`` reads."""

    @classmethod
    def start(cls) -> Watch:
        """A watch; ``OSError`` where the kernel has no inotify for this process."""
        try:
            watcher = Watcher()
        except AttributeError as exc:  # a C library without inotify
            raise OSError(f"no inotify here: {exc}") from None
        return cls(watcher, os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC))

    def keep(self) -> None:
        """Watch the folders asked for, and hear every change queued so far."""
        for folder in read_requests(self.requests[0]):
            self.watcher.watch(folder)
        self.watcher.drain()

    def served(self) -> Served:
        """The tokens as they are now, for the next command (``keep`` first)."""
        return Served(self.watcher.tokens(), self.requests[1])

    def leave(self) -> None:
        """In a forked worker: close what only the watching process reads."""
        self.watcher.close()
        os.close(self.requests[0])

    def close(self) -> None:
        self.watcher.close()
        for fd in self.requests:
            os.close(fd)


@dataclass(repr=False, eq=False)
class Served(Record):
    """What a served worker knows of the server's watch: the tokens at its fork, the
    pipe on which it asks for a folder to be watched, and the folders whose token it took."""

    tokens: dict[str, str]
    requests: int
    taken: set[str] = field(default_factory=set)


served: Served | None = None
"""Set by the command server in each worker; None in any other process."""


def token(folder: Path) -> str | None:
    """The server's token for ``folder`` as this worker forked (see the module doc), given
    once: a second open in the same command (after its own writes, or long after the
    fork) asks git. None outside a served command, or while the folder is not watched
    (then the server is asked to watch it, for the commands that come after this one)."""
    if served is None:
        return None
    try:
        path = os.path.realpath(folder)
    except OSError:
        return None
    if path in served.taken:  # one look a command: a later open may follow changes made since the fork
        return None
    served.taken.add(path)
    found = served.tokens.get(path)
    if found is None:
        ask_to_watch(served.requests, path)
    return found


def ask_to_watch(requests: int, path: str) -> None:
    """One request on the server's pipe (written whole, or not at all: a full pipe means a
    busy server, and the next command asks again)."""
    data = os.fsencode(path) + b"\0"
    if len(data) > 4096:  # PIPE_BUF: longer writes may interleave with another worker's
        return
    try:
        os.write(requests, data)
    except OSError:
        pass


def read_requests(requests: int) -> list[str]:
    """The folders workers asked for since the last read (the server's end of the pipe)."""
    data = b""
    while True:
        try:
            chunk = os.read(requests, 1 << 16)
        except BlockingIOError:
            break
        except InterruptedError:
            continue
        if not chunk:
            break
        data += chunk
    return [os.fsdecode(part) for part in data.split(b"\0") if part]
