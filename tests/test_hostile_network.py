"""Issue 22, item 8: the GitHub API client against a hostile server, each case on the
real loopback GitHub API (``tests/loopback_github.py``): a total deadline per request,
a size cap, the token kept off redirects and next pages that leave the API's scheme
and host, step outputs that no value can forge, and answer fields checked for type."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from archmem.ci.github import append_step_files, step_output
from archmem.ci.github_api import GitHubApiError, GitHubClient

from .loopback_github import REPOSITORY, TOKEN, FakeGitHub, Seen
from .test_pr import am, change, event_file, github_env  # noqa: F401  (the pull request fixture)

COMMENTS = f"/repos/{REPOSITORY}/issues/7/comments"


def client(github: FakeGitHub, **settings: Any) -> GitHubClient:
    return GitHubClient(token=TOKEN, repository=REPOSITORY, api_url=github.url, **settings)


def read_outputs(path: Path) -> list[tuple[str, str]]:
    """GITHUB_OUTPUT read the way the runner reads it: ``key=value`` lines, and
    ``key<<DELIMITER`` … ``DELIMITER`` blocks."""
    lines = path.read_bytes().decode("utf-8").split("\n")
    found: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            value: list[str] = []
            while lines[index] != delimiter:
                value.append(lines[index])
                index += 1
            index += 1
            found.append((key, "\n".join(value)))
        else:
            key, _, value_text = line.partition("=")
            found.append((key, value_text))
    return found


# ---- a total deadline, a size cap ------------------------------------------------------------------------------


def trickle(where: str, seconds: float = 30.0):
    """An answer whose headers (or body) come one byte every 0.1 s, complete after
    ``seconds``: a per-read timeout never fires on it, only a total deadline does."""
    count = int(seconds / 0.1)
    if where == "headers":
        fast, slow, rest = b"HTTP/1.1 200 OK\r\nX-Slow: ", b"a" * count, b"\r\nContent-Length: 2\r\n\r\n[]"
    else:
        fast, slow, rest = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (count + 2), b" " * count, b"[]"

    def answer(handler: BaseHTTPRequestHandler, seen: Seen) -> bool:
        try:
            handler.wfile.write(fast)
            for byte in slow:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(0.1)
            handler.wfile.write(rest)
        except OSError:  # the client hung up: what it should do
            pass
        return True

    return answer


@pytest.mark.parametrize("where", ["headers", "body"])
def test_a_trickling_server_is_cut_at_the_total_deadline(where: str):
    with FakeGitHub() as github:
        github.raw = trickle(where)
        with pytest.raises(GitHubApiError) as cut:
            list(client(github, timeout=1).comments(7))
    assert f"GET {COMMENTS}: no complete answer from {github.url} within 1 s" in str(cut.value)
    assert "ARCHMEM_GITHUB_TIMEOUT" in str(cut.value)


def test_the_deadline_is_a_setting_and_a_cut_comment_is_a_warning(repo: Path, change, tmp_path: Path):  # noqa: F811
    with FakeGitHub() as github:
        github.raw = trickle("body")
        result = am(repo, "pr", "--comment", env=github_env(github, event_file(tmp_path, change["base"], change["head"]),
                                                             ARCHMEM_GITHUB_TIMEOUT="1"))
    assert result.exit_code == 0
    assert f"warning: no pull request comment: GET {COMMENTS}: no complete answer" in result.stderr
    assert "within 1 s" in result.stderr and "Traceback" not in result.output


def endless(handler: BaseHTTPRequestHandler, seen: Seen) -> bool:
    """A body with no length that never ends (up to 512 MB)."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[")
    try:
        for _ in range(8192):
            handler.wfile.write(b'"x",' * (1 << 14))
    except OSError:
        pass
    return True


def test_an_endless_body_is_cut_at_the_size_cap():
    with FakeGitHub() as github:
        github.raw = endless
        with pytest.raises(GitHubApiError) as cut:
            list(client(github, max_answer_bytes=1 << 20).comments(7))
    assert f"GET {COMMENTS}: the answer is larger than the 1,048,576 bytes archmem reads" in str(cut.value)


def test_a_declared_length_over_the_cap_is_refused_before_reading():
    def huge(handler: BaseHTTPRequestHandler, seen: Seen) -> bool:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n[")
        handler.wfile.flush()
        time.sleep(3)  # and then nothing: a client waiting for it would be cut by the deadline instead
        return True

    with FakeGitHub() as github:
        github.raw = huge
        with pytest.raises(GitHubApiError) as refused:
            list(client(github, timeout=60).comments(7))
    assert "the answer is 1,000,000,000,000 bytes, more than the 33,554,432 archmem reads" in str(refused.value)


def test_the_size_cap_and_the_deadline_are_settings(tmp_path: Path):
    from archmem.config import load_config

    (tmp_path / "archmem.toml").write_text("[github]\ntimeout = 5\nmax_answer_bytes = 1000\n", encoding="utf-8")
    settings = load_config(tmp_path, env={"ARCHMEM_GITHUB_TIMEOUT": "2.5"}).github
    assert (settings.timeout, settings.max_answer_bytes, settings.comment_author) == (2.5, 1000, "github-actions[bot]")


# ---- the token stays on the API's scheme and host ----------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return cert, key


@pytest.fixture
def https_github(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch):
    """The loopback API on https (and plain http on the same port), trusted by clients made now."""
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with FakeGitHub(tls=context) as github:
        github.add_comment(7, "looks good")
        yield github


def redirect_to(location: str, code: int = 301):
    def answer(handler: BaseHTTPRequestHandler, seen: Seen) -> bool:
        if "moved" in seen.query:
            return False
        handler.send_response(code)
        handler.send_header("Location", location.format(path=seen.path))
        handler.send_header("Content-Length", "0")
        handler.end_headers()
        return True

    return answer


def test_https_works_and_a_same_origin_redirect_is_followed(https_github: FakeGitHub):
    https_github.raw = redirect_to(f"{https_github.url}{{path}}?per_page=100&moved=1", 307)
    [comment] = client(https_github).comments(7)
    assert comment.body == "looks good" and comment.author == "someone" and comment.author_type == "User"
    assert [(r.tls, r.headers.get("authorization")) for r in https_github.requests] == [(True, f"Bearer {TOKEN}")] * 2


@pytest.mark.parametrize("target", ["http://{host}", "https://localhost:{port}", "https://127.0.0.2:{port}"])
def test_a_redirect_to_another_scheme_or_host_is_not_followed(https_github: FakeGitHub, target: str):
    port = https_github.host.rsplit(":", 1)[1]
    location = target.format(host=https_github.host, port=port) + "{path}?per_page=100&moved=1"
    https_github.raw = redirect_to(location)
    with pytest.raises(GitHubApiError) as refused:
        list(client(https_github).comments(7))
    origin = target.format(host=https_github.host, port=port)
    assert f"GET {COMMENTS}: redirected (301) to {origin}, not followed: the token goes only to {https_github.url}" \
        in str(refused.value)
    assert [r.tls for r in https_github.requests] == [True]  # nothing else reached, least of all in clear


def test_a_next_page_in_clear_is_not_followed(https_github: FakeGitHub):
    https_github.add_comment(7, "second")
    https_github.add_comment(7, "third")  # page size 2: a next page

    original = https_github.url

    def answer(handler: BaseHTTPRequestHandler, seen: Seen) -> bool:
        if seen.query.get("page"):
            return False
        raw = json.dumps(https_github.comments[7][:2]).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(raw)))
        handler.send_header("Link", f'<http://{https_github.host}{seen.path}?per_page=100&page=2>; rel="next"')
        handler.end_headers()
        handler.wfile.write(raw)
        return True

    https_github.raw = answer
    with pytest.raises(GitHubApiError) as refused:
        list(client(https_github).comments(7))
    assert f"the next page is at http://{https_github.host}, not followed: the token goes only to {original}" \
        in str(refused.value)
    assert [r.tls for r in https_github.requests] == [True]


def test_the_api_url_itself_must_be_https_unless_loopback():
    with pytest.raises(GitHubApiError) as refused:
        GitHubClient(token=TOKEN, repository=REPOSITORY, api_url="http://ghe.example.com/api/v3")
    assert "GITHUB_API_URL must be an https URL (http only to a loopback address)" in str(refused.value)
    for url in ("https://ghe.example.com/api/v3", "http://127.0.0.1:8080", "http://[::1]:8080", "http://localhost"):
        assert GitHubClient(token=TOKEN, repository=REPOSITORY, api_url=url).api_url == url


# ---- answers checked for type; outputs that cannot be forged ---------------------------------------------------


def test_an_id_that_is_not_a_whole_number_is_no_comment():
    with FakeGitHub() as github:
        github.add_comment(7, "<!-- archmem:pr-review -->\nold", "github-actions[bot]")
        github.tamper = lambda seen, data: [{**c, "id": True} for c in data] if isinstance(data, list) else data
        with pytest.raises(GitHubApiError) as listed:
            list(client(github).comments(7))
        assert f"GET {COMMENTS}: the API answered without a comment id (id true)" in str(listed.value)
        github.tamper = lambda seen, data: {**data, "id": "1"} if seen.method == "POST" else data
        with pytest.raises(GitHubApiError) as created:
            client(github).create_comment(7, "hello")
        assert 'the API answered without a comment id (id "1")' in str(created.value)
        github.tamper = lambda seen, data: {**data, "body": ["x"]} if seen.method == "POST" else data
        with pytest.raises(GitHubApiError, match="has a body that is not text"):
            client(github).create_comment(7, "hello")


def test_a_pr_run_never_patches_comment_one_for_an_id_of_true(repo: Path, change, tmp_path: Path):  # noqa: F811
    with FakeGitHub() as github:
        github.add_comment(7, "<!-- archmem:pr-review -->\nold", "github-actions[bot]")
        github.tamper = lambda seen, data: [{**c, "id": True} for c in data] if isinstance(data, list) else data
        result = am(repo, "pr", "--comment", env=github_env(github, event_file(tmp_path, change["base"], change["head"])))
        assert result.exit_code == 0 and "without a comment id (id true)" in result.stderr
        assert github.writes() == []


def test_a_step_output_with_a_line_break_is_delimited_and_reads_back_whole(tmp_path: Path):
    output = tmp_path / "output"
    append_step_files({"GITHUB_OUTPUT": str(output)}, "", {"comment-url": "https://x\ncomment=hijacked", "plain": "1",
                                                          "crlf": "a\r\nb"})
    assert read_outputs(output) == [("comment-url", "https://x\ncomment=hijacked"), ("plain", "1"),
                                    ("crlf", "a\r\nb")]
    assert step_output("k", "v") == "k=v\n"


def test_an_html_url_with_a_newline_forges_no_output_line(repo: Path, change, tmp_path: Path):  # noqa: F811
    output = tmp_path / "output"
    with FakeGitHub() as github:
        github.tamper = lambda seen, data: ({**data, "html_url": "https://github.example/pr/7\nmade-verify=0"}
                                            if seen.method == "POST" else data)
        result = am(repo, "pr", "--comment", "--format", "github",
                    env=github_env(github, event_file(tmp_path, change["base"], change["head"]),
                                   GITHUB_OUTPUT=str(output)))
    assert result.exit_code == 0, result.output
    outputs = read_outputs(output)
    assert [key for key, _ in outputs].count("made-verify") == 1
    assert dict(outputs)["made-verify"] == "1" and dict(outputs)["comment"] == "created"
    assert "made-verify=0" not in dict(outputs)["comment-url"].split("\n")[0]
