"""The warm command server: a served command line is the command line run in its own
process (output, errors, exit code, folder, environment, umask, stdin), and the server
never outlives its code, its caller's interest or its idle time. Real processes, real
sockets; nothing here times anything."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from archmem.command_client import socket_path
from archmem.command_server import request_info, wait_ended

from .conftest import commit

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the server forks: Linux only by default")

WAIT_SECONDS = 30.0


def archmem(cwd: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "archmem", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def start(cwd: Path, env: dict[str, str]) -> int:
    """Start the server and wait until it answers; its process id."""
    import json

    done = archmem(cwd, {**env, "ARCHMEM_SERVER": "on"}, "server", "start", "--json")
    assert done.returncode == 0, done.stderr
    pid = json.loads(done.stdout)["server"]["pid"]
    assert isinstance(pid, int)
    return pid


def socket_of(cwd: Path, env: dict[str, str]) -> str:
    """The socket the ``archmem`` that ``env`` runs would use (its identity, not ours)."""
    import json

    done = archmem(cwd, {**env, "ARCHMEM_SERVER": "on"}, "server", "status", "--json")
    path = json.loads(done.stdout)["socket"]
    assert isinstance(path, str)
    return path


def workers_of(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.fixture
def runtime() -> Iterator[str]:
    """A short private folder for sockets; any server still holding a lock in it at the
    end is ended (a failed test leaves no process behind)."""
    folder = tempfile.mkdtemp(prefix="am")
    yield folder
    for lock in Path(folder).glob("*.lock") if os.path.isdir(folder) else []:
        text = lock.read_text().strip()
        if text.isdigit() and "command_server" in _command_line(int(text)):
            os.kill(int(text), signal.SIGTERM)
    shutil.rmtree(folder, ignore_errors=True)


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def server_env(folder: str, setting: str = "require") -> dict[str, str]:
    env = {**os.environ, "ARCHMEM_SERVER": setting, "ARCHMEM_RUNTIME_DIR": folder, "ARCHMEM_SERVER_IDLE": "60"}
    env.pop("CI", None)
    return env


@pytest.fixture
def served(repo: Path, runtime: str) -> Iterator[dict[str, str]]:
    """An environment whose commands must be served (``require``), with its own socket
    folder; the server is stopped afterwards."""
    env = server_env(runtime)
    start(repo, env)
    yield env
    path = socket_path(env)
    assert path is not None
    request_info(path, b"stop")
    assert wait_ended(path)


def both(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> tuple[tuple, tuple]:
    here = archmem(repo, {**env, "ARCHMEM_SERVER": "off"}, *args, stdin=stdin)
    there = archmem(repo, env, *args, stdin=stdin)
    return (here.returncode, here.stdout, here.stderr), (there.returncode, there.stdout, there.stderr)


def test_a_served_command_line_prints_and_exits_as_one_run_in_its_own_process(repo: Path, served: dict[str, str]):
    archmem(repo, {**served, "ARCHMEM_SERVER": "off"}, "remember", "Orders retries must be idempotent",
            "--kind", "pitfall", "--title", "Idempotent retries", "-e", "shop.orders")
    for args in (["recall", "orders retries"], ["recall", "orders retries", "--json"], ["status"],
                 ["show", "Idempotent retries"], ["recall", "x", "--limit", "0"], ["show", "No such memory"],
                 ["no-such-command"], ["recall", "--help"]):
        here, there = both(repo, served, *args)
        assert there == here, args
    assert both(repo, served, "recall", "x", "--limit", "0")[1][0] == 2  # a usage error stays a usage error


def test_the_worker_takes_the_callers_folder_environment_umask_and_stdin(repo: Path, served: dict[str, str]):
    inner = repo / "services" / "orders"
    done = archmem(inner, served, "remember", "-", "--kind", "note", "--title", "From stdin", "-e", "shop.orders",
                   stdin="Read from the caller's own standard input.")
    assert done.returncode == 0, done.stderr
    shown = archmem(inner, served, "show", "From stdin", "--json")
    assert "Read from the caller's own standard input." in shown.stdout

    unknown = archmem(repo, {**served, "ARCHMEM_DRIFT_NO_SUCH_SETTING": "1"}, "status")
    assert unknown.returncode != 0 and "ARCHMEM_DRIFT_NO_SUCH_SETTING" in unknown.stderr

    private = subprocess.run(["sh", "-c", f'umask 077 && exec "{sys.executable}" -m archmem remember "Kept private" '
                              '--kind note --title "Umask" -e shop.api --json'],
                             cwd=repo, env=served, capture_output=True, text=True, timeout=120)
    assert private.returncode == 0, private.stderr
    written = next((repo / ".archmem").rglob("umask*.md"))
    assert stat.S_IMODE(written.stat().st_mode) & 0o077 == 0


def test_a_changed_source_file_ends_the_server_and_the_next_call_runs_the_new_code(tmp_path: Path, repo: Path,
                                                                                      runtime: str):
    copy = tmp_path / "site"
    shutil.copytree(Path(__import__("archmem").__file__).parent, copy / "archmem")  # byte code too: times kept
    env = {**server_env(runtime), "PYTHONPATH": str(copy)}
    try:
        first = start(repo, env)
        path = socket_of(repo, env)
        assert archmem(repo, env, "status").returncode == 0
        words = copy / "archmem" / "words.py"
        words.write_text(words.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")

        stale = archmem(repo, env, "status")
        assert stale.returncode == 1 and "stale" in stale.stderr
        assert wait_ended(path)
        assert archmem(repo, {**env, "ARCHMEM_SERVER": "off"}, "status").returncode == 0
        assert start(repo, env) != first
    finally:
        archmem(repo, {**env, "ARCHMEM_SERVER": "on"}, "server", "stop")


def _blocked(repo: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A served command that waits on its standard input until it is closed."""
    return subprocess.Popen([sys.executable, "-m", "archmem", "remember", "-", "--kind", "note", "-e", "shop.api"],
                            cwd=repo, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _waiting_in(pid: int) -> str:
    """The kernel function ``pid`` sleeps in (``anon_pipe_read``: reading a pipe)."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


def test_ctrl_c_in_the_callers_terminal_reaches_the_worker(repo: Path, served: dict[str, str]):
    path = socket_path(served)
    assert path is not None
    server = request_info(path)
    assert server is not None and isinstance(server["pid"], int)
    alone = _blocked(repo, {**served, "ARCHMEM_SERVER": "off"})
    until(lambda: "pipe" in _waiting_in(alone.pid), "the command never waited on its input")  # a Ctrl-C any
    alone.send_signal(signal.SIGINT)  # sooner ends Python before archmem runs
    expected = alone.communicate(timeout=60)
    caller = _blocked(repo, served)
    until(lambda: any("pipe" in _waiting_in(worker) for worker in workers_of(server["pid"])),
          "the command reached no worker")
    caller.send_signal(signal.SIGINT)
    got = caller.communicate(timeout=60)
    assert (caller.returncode, got) == (alone.returncode, expected)
    until(lambda: not workers_of(server["pid"]), "the worker outlived the interrupt")


def test_a_caller_killed_outright_takes_its_worker_with_it(repo: Path, served: dict[str, str]):
    path = socket_path(served)
    assert path is not None
    server = request_info(path)
    assert server is not None and isinstance(server["pid"], int)
    caller = _blocked(repo, served)
    until(lambda: any("pipe" in _waiting_in(worker) for worker in workers_of(server["pid"])),
          "the command reached no worker")
    caller.kill()
    caller.wait(timeout=60)
    try:  # the worker's stdin stays open: only its caller's end can end it
        until(lambda: not workers_of(server["pid"]), "the worker outlived its caller")
    finally:
        assert caller.stdin is not None
        caller.stdin.close()
    assert request_info(path) is not None  # the server itself goes on


def test_callers_at_once_each_get_their_own_answer(repo: Path, served: dict[str, str]):
    archmem(repo, {**served, "ARCHMEM_SERVER": "off"}, "remember", "Gateway timeouts are 30 s",
            "--kind", "convention", "-e", "shop.api")
    expected = archmem(repo, {**served, "ARCHMEM_SERVER": "off"}, "recall", "gateway timeouts", "--json").stdout
    callers = [subprocess.Popen([sys.executable, "-m", "archmem", "recall", "gateway timeouts", "--json"], cwd=repo,
                                env=served, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for _ in range(8)]
    for caller in callers:
        out, err = caller.communicate(timeout=120)
        assert caller.returncode == 0, err
        assert out == expected


def test_a_server_whose_socket_is_removed_ends(repo: Path, runtime: str):
    pid = start(repo, server_env(runtime, "on"))
    shutil.rmtree(runtime)  # what cleaning /tmp or a new login's runtime folder does
    until(lambda: not Path(f"/proc/{pid}").exists() or "Z" in _state_of(pid), "the server outlived its socket")


def _state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_an_idle_server_ends_itself_and_removes_its_socket(repo: Path, runtime: str):
    env = {**server_env(runtime, "on"), "ARCHMEM_SERVER_IDLE": "1"}
    start(repo, env)
    path = socket_path(env)
    assert path is not None
    until(lambda: not os.path.exists(path), "the idle server kept its socket")
    assert wait_ended(path)


def test_a_folder_others_may_enter_is_never_used(repo: Path, runtime: str):
    os.chmod(runtime, 0o777)
    env = server_env(runtime)
    refused = archmem(repo, env, "status")
    assert refused.returncode == 1 and "private folder" in refused.stderr
    assert archmem(repo, {**env, "ARCHMEM_SERVER": "on"}, "status").returncode == 0  # runs here instead
    assert os.listdir(runtime) == []


def test_a_dead_servers_socket_is_replaced(repo: Path, runtime: str):
    import socket

    env = server_env(runtime, "on")
    path = socket_path(env)
    assert path is not None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(path)  # bound and closed, never removed: what a killed server leaves
    assert archmem(repo, env, "status").returncode == 0
    assert start(repo, env) > 0
    assert archmem(repo, {**env, "ARCHMEM_SERVER": "require"}, "status").returncode == 0


def test_another_python_setting_meets_another_server(runtime: str):
    env = {"ARCHMEM_RUNTIME_DIR": runtime}
    assert socket_path(env) is not None
    assert socket_path(env) != socket_path({**env, "PYTHONUTF8": "1"})
    assert socket_path(env) != socket_path({**env, "PYTHONPATH": "/elsewhere"})
    assert socket_path(env) == socket_path({**env, "ARCHMEM_STORE_PATH": "x"})  # a setting, not the interpreter's


def test_the_caller_imports_only_what_asking_costs(repo: Path, served: dict[str, str]):
    probe = ("import sys\nbefore = set(sys.modules)\nsys.argv = ['archmem', 'status']\n"
             "from archmem.entry import main\ntry:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
             "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(set(sys.modules) - before)) + ' CODE ' + str(code))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=repo, env=served, capture_output=True, text=True,
                          timeout=120)
    modules, _, code = done.stderr.rsplit("MODULES ", 1)[1].partition(" CODE ")
    assert code.strip() == "0" and "workspace.dsl" in done.stdout  # served: the worker printed the status
    assert set(modules.split()) <= {"archmem", "archmem.entry", "archmem.command_client", "__future__", "binascii",
                                    "_socket", "_signal"}, modules


def test_a_server_that_does_not_answer_never_runs_the_command_a_second_time(repo: Path, served: dict[str, str]):
    path = socket_path(served)
    assert path is not None
    server = request_info(path)
    assert server is not None and isinstance(server["pid"], int)
    os.kill(server["pid"], signal.SIGSTOP)  # a server stopped (or starved) with requests waiting
    try:
        done = archmem(repo, {**served, "ARCHMEM_SERVER": "on"}, "remember", "Written once only",
                       "--kind", "note", "--title", "Once", "-e", "shop.api")
    finally:
        os.kill(server["pid"], signal.SIGCONT)
    assert done.returncode == 0, done.stderr  # the caller gave up waiting and ran it itself
    until(lambda: request_info(path) is not None, "the server did not come back")
    until(lambda: not workers_of(server["pid"]), "the late worker did not end")
    shown = archmem(repo, {**served, "ARCHMEM_SERVER": "off"}, "list", "--json")
    assert shown.stdout.count("Written once only") == 1


def test_a_package_installed_beside_archmem_ends_the_server(tmp_path: Path, repo: Path, runtime: str):
    extra = tmp_path / "extra"
    extra.mkdir()
    env = {**server_env(runtime), "PYTHONPATH": str(extra)}
    start(repo, env)
    assert archmem(repo, env, "status").returncode == 0
    (extra / "newly_installed.py").write_text("VALUE = 1\n", encoding="utf-8")  # what pip install does to a folder
    stale = archmem(repo, env, "status")
    assert stale.returncode == 1 and "stale" in stale.stderr


def test_a_removed_current_folder_fails_as_it_fails_without_a_server(tmp_path: Path, repo: Path, served: dict[str, str]):
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd "{gone}" && rmdir "{gone}" && exec "{sys.executable}" -m archmem status'
    here = subprocess.run(["sh", "-c", script], env={**served, "ARCHMEM_SERVER": "off"}, capture_output=True, text=True)
    gone.mkdir()
    there = subprocess.run(["sh", "-c", script], env={**served, "ARCHMEM_SERVER": "on"}, capture_output=True, text=True)
    assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
    assert here.returncode != 0


def test_where_there_is_no_fork_the_server_command_still_says_so(repo: Path):
    """On Windows (no fcntl, no fork) ``archmem server status`` says the server is off."""
    probe = ("import builtins, os, sys\nreal = builtins.__import__\n"
             "def without(name, *args, **kwargs):\n"
             "    if name == 'fcntl':\n        raise ImportError('no fcntl here')\n"
             "    return real(name, *args, **kwargs)\n"
             "import archmem.cli  # click, as imported where it runs\n"
             "builtins.__import__ = without\nsys.platform = 'win32'\n"
             "sys.argv = ['archmem', 'server', 'status']\nfrom archmem.entry import main\nmain()\n")
    env = {**os.environ, "ARCHMEM_SERVER": ""}
    env.pop("CI", None)
    done = subprocess.run([sys.executable, "-c", probe], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("off: not used on win32")


def test_a_runtime_folder_that_cannot_be_made_falls_back_to_the_temporary_one(tmp_path: Path):
    from archmem.command_client import runtime_folder

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    found = runtime_folder({"XDG_RUNTIME_DIR": str(blocked), "TMPDIR": str(temporary)})
    assert found == str(temporary / f"archmem-{os.getuid()}")
    assert runtime_folder({"ARCHMEM_RUNTIME_DIR": str(blocked / "x")}) is None  # a folder given is the only one


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux)")
def test_a_sandboxed_caller_never_meets_a_server_started_outside_its_sandbox(runtime: str):
    """A process that cannot gain privileges (as an agent's sandbox sets) asks another socket."""
    probe = [sys.executable, "-c", "import os; from archmem.command_client import socket_path; "
             "print(socket_path(os.environ))"]
    env = {**os.environ, "ARCHMEM_RUNTIME_DIR": runtime}
    outside = subprocess.run(probe, env=env, capture_output=True, text=True, check=True).stdout
    inside = subprocess.run(["setpriv", "--no-new-privs", *probe], env=env, capture_output=True, text=True,
                            check=True).stdout
    assert outside.strip() and inside.strip() and outside != inside


def test_a_setting_the_server_cannot_read_is_said_and_the_default_used(repo: Path, runtime: str):
    from archmem.command_server import IDLE_SECONDS, idle_seconds

    assert idle_seconds({"ARCHMEM_SERVER_IDLE": "90"}) == 90
    for bad in ("ten", "-5", "0", "nan", "inf"):
        assert idle_seconds({"ARCHMEM_SERVER_IDLE": bad}) == IDLE_SECONDS
    said = archmem(repo, {**server_env(runtime, "maybe"), "ARCHMEM_SERVER_IDLE": "ten"}, "server", "status")
    assert said.returncode == 0
    assert "ARCHMEM_SERVER='maybe' is not one of on, off, require" in said.stderr
    assert "ARCHMEM_SERVER_IDLE='ten' is not a number of seconds" in said.stderr


def test_the_server_watches_the_memory_folders_its_commands_read(repo: Path, served: dict[str, str]):
    """A served command asks the server to watch its memory folder; an edit there after
    that is still what the next served command sees (the watch only spares git's stats)."""
    archmem(repo, {**served, "ARCHMEM_SERVER": "off"}, "remember", "Orders retries must be idempotent",
            "--kind", "pitfall", "--title", "Idempotent retries", "-e", "shop.orders")
    commit(repo, "memories", "2026-01-02T00:00:00Z")
    assert archmem(repo, served, "status", "--json").returncode == 0
    path = socket_path(served)
    assert path is not None
    folder = os.path.realpath(repo / ".archmem" / "memories")
    until(lambda: folder in ((request_info(path) or {}).get("watched") or []), "the folder is watched")
    [memory_file] = (repo / ".archmem" / "memories").glob("*.md")
    memory_file.write_text(memory_file.read_text().replace("must be idempotent", "must carry a key"))
    here, there = both(repo, served, "recall", "orders retries", "--json")
    assert there == here and "must carry a key" in there[1]
