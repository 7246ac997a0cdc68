"""The definition matcher, zero-context diffs, and ``path#Symbol`` anchors in staleness."""

from __future__ import annotations

import difflib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from archmem.drift.index import DriftIndex
from archmem.drift.staleness import EMPTY_TREE, memory_verify
from archmem.drift.symbols import (
    Hunk,
    language_of,
    parse_unified_zero,
    symbol_changed,
    symbol_range,
)
from archmem.drift.types import ElementSize, Thresholds
from archmem.git.types import Commit, FileChange
from archmem.memory.types import Memory

from .conftest import git

PYTHON = '''import os

@decorator
def handle(a,
           b):
    """Doc."""
    x = 1

    return x
# a comment at the margin ends it
class Router:
    def route(self, path):
        if path:
            return 1
        return 2

    def other(self): return 3
def one(): return 1
'''

JS = """import x from "y";
export async function handle(req, res) {
  const s = "}";
  return { a: 1 };
}
export const make = (a, b) => {
  return a + b;
};
const short = (a) => a + 1
class Router {
  route(path) {
    if (path) { return `}${path}`; }
  }
  static other = async (x) => {
    return x;
  }
}
"""

GO = """package main

type Size int

type Server struct {
	name string // }
}

func (s *Server) Serve(addr string,
	opts int) error {
	if x := "{"; x != "" {
		return nil
	}
	return nil
}

func Main() {
}
"""

JAVA = """package a;

public class Router {
    private final Map<String, Handler> routes = new HashMap<>();

    @Override
    public List<String> route(String path,
                              int x) throws IOException {
        if (path == null) { return "}"; }
        return helper(path);
    }

    Router() {
        this.x = 1;
    }

    abstract void later();
}
"""

RUST = """use std::fmt;

#[derive(Debug)]
pub struct Point<'a> {
    x: &'a str,
}

struct Unit;

impl<'a> fmt::Display for Point<'a> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let c = '{';
        write!(f, "{}", self.x)
    }
}

impl<'a> Point<'a> {
    pub fn new(x: &'a str) -> Self {
        Point { x }
    }
}

pub fn free<T>(t: T) -> T
where T: Clone
{
    t
}
"""


@pytest.mark.parametrize(
    ("path", "text", "symbol", "expected"),
    [
        ("a.py", PYTHON, "handle", (3, 9)),
        ("a.py", PYTHON, "Router", (11, 17)),
        ("a.py", PYTHON, "Router.route", (12, 15)),
        ("a.py", PYTHON, "Router.other", (17, 17)),
        ("a.py", PYTHON, "one", (18, 18)),
        ("a.py", PYTHON, "missing", None),
        ("a.ts", JS, "handle", (2, 5)),
        ("a.ts", JS, "make", (6, 8)),
        ("a.js", JS, "short", (9, 9)),
        ("a.tsx", JS, "Router", (10, 17)),
        ("a.ts", JS, "Router.route", (11, 13)),
        ("a.ts", JS, "Router.other", (14, 16)),
        ("a.go", GO, "Size", (3, 3)),
        ("a.go", GO, "Server", (5, 7)),
        ("a.go", GO, "Server.Serve", (9, 15)),
        ("a.go", GO, "(*Server).Serve", (9, 15)),
        ("a.go", GO, "Main", (17, 18)),
        ("A.java", JAVA, "Router", (3, 18)),
        ("A.java", JAVA, "Router.route", (6, 11)),
        ("A.java", JAVA, "later", (17, 17)),
        ("A.java", JAVA, "helper", None),
        ("a.rs", RUST, "Point", (3, 6)),
        ("a.rs", RUST, "Unit", (8, 8)),
        ("a.rs", RUST, "Point::new", (18, 20)),
        ("a.rs", RUST, "Point.fmt", (11, 14)),
        ("a.rs", RUST, "free", (23, 27)),
        ("README.md", "# handle\n", "handle", None),
    ],
)
def test_symbol_range(path, text, symbol, expected):
    assert symbol_range(text, path, symbol) == expected


def test_languages_by_extension():
    assert [language_of(p) for p in ("a.py", "b.mts", "c.go", "D.java", "e.rs", "f.txt")] == [
        "python", "js", "go", "java", "rust", None,
    ]  # fmt: skip


# ---- diffs ----------------------------------------------------------------------------


def test_symbol_changed_uses_new_side_lines():
    symbol = (10, 20)
    assert symbol_changed([Hunk(9, 1, 12, 2)], symbol)
    assert symbol_changed([Hunk(3, 1, 5, 6)], symbol)  # 5..10 reaches the first line
    assert not symbol_changed([Hunk(3, 1, 5, 5)], symbol)  # 5..9 stops before it
    assert not symbol_changed([Hunk(30, 2, 21, 2)], symbol)
    assert symbol_changed([Hunk(15, 2, 14, 0)], symbol)  # lines removed inside
    assert symbol_changed([Hunk(21, 1, 20, 0)], symbol)  # removed right after: maybe its tail
    assert not symbol_changed([Hunk(5, 1, 4, 0)], symbol)
    assert not symbol_changed([], symbol)


def test_parse_unified_zero_of_a_git_style_diff():
    diff = "\n".join(
        [
            "diff --git a/src/app.py b/src/app.py",
            "index 1111111..2222222 100644",
            "--- a/src/app.py",
            "+++ b/src/app.py",
            "@@ -3 +3 @@ def f():",
            "-    return 1",
            "+    return 2",
            "@@ -10,0 +11,2 @@",
            "+--- not a header",
            "++++ nor this",
            "diff --git a/old.go b/old.go",
            "deleted file mode 100644",
            "--- a/old.go",
            "+++ /dev/null",
            "@@ -1,2 +0,0 @@",
            "-package old",
            "-",
            "diff --git a/img.png b/img.png",
            "Binary files a/img.png and b/img.png differ",
        ]
    )
    assert parse_unified_zero(diff) == {
        "src/app.py": [Hunk(3, 1, 3, 1), Hunk(10, 0, 11, 2)],
        "old.go": [Hunk(1, 2, 0, 0)],
        "img.png": [],
    }


def test_parse_unified_zero_of_a_real_git_diff(git_repo):
    root: Path = git_repo(
        {
            "src/app.py": "a\nb\nc\nd\n",
            "src/gone.py": "x\n",
            "src/moved.py": "1\n2\n3\n4\n5\n6\n7\n8\n",
            "docs/with space é.py": "p\n",
        }
    )
    base = git(root, "rev-parse", "HEAD").strip()
    (root / "src/app.py").write_text("a\nB\nc\nd\ne\n")
    (root / "src/gone.py").unlink()
    git(root, "mv", "src/moved.py", "src/renamed.py")
    (root / "src/renamed.py").write_text("1\n2\n3\n4\n5\n6\n7\nEIGHT\n")
    (root / "docs/with space é.py").write_text("q\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "change")
    hunks = parse_unified_zero(git(root, "diff", "-U0", "-M", base, "HEAD"))
    assert hunks["src/app.py"] == [Hunk(2, 1, 2, 1), Hunk(4, 0, 5, 1)]
    assert hunks["src/gone.py"] == [Hunk(1, 1, 0, 0)]
    assert hunks["src/renamed.py"] == [Hunk(8, 1, 8, 1)]
    assert hunks["docs/with space é.py"] == [Hunk(1, 1, 1, 1)]


# ---- path#Symbol anchors in memory staleness, one pair per language ---------------------

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = T0 + timedelta(days=3)

CASES = {
    # language: (path, the file before, (what one commit replaced, with what), changed symbol, unchanged symbol)
    "python": (
        "svc/app.py",
        "import os\n\n\ndef changed(a):\n    return a + 1\n\n\ndef kept(b):\n    return b * 2\n",
        ("    return a + 1\n", "    a = abs(a)\n    return a + 1\n"),
        "changed",
        "kept",
    ),
    "js": (
        "web/app.ts",
        "export function changed(a) {\n  return a + 1;\n}\n\nclass Kept {\n  method(b) {\n    return b;\n  }\n}\n",
        ("  return a + 1;", "  a = Math.abs(a);\n  return a + 1;"),
        "changed",
        "Kept.method",
    ),
    "go": (
        "svc/server.go",
        "package svc\n\nfunc Changed(a int) int {\n\treturn a + 1\n}\n\nfunc (s *Server) Kept() int {\n\treturn 2\n}\n",
        ("a + 1", "a + 2"),
        "Changed",
        "Server.Kept",
    ),
    "java": (
        "src/Router.java",
        "class Router {\n    int changed(int a) {\n        return a + 1;\n    }\n\n"
        "    int kept(int b) {\n        return b;\n    }\n}\n",
        ("a + 1", "a - 1"),
        "Router.changed",
        "Router.kept",
    ),
    "rust": (
        "src/lib.rs",
        "fn changed(a: u32) -> u32 {\n    a + 1\n}\n\nimpl Point {\n    fn kept(&self) -> u32 {\n        2\n    }\n}\n",
        ("    a + 1\n", "    let b = a;\n    b + 1\n"),
        "changed",
        "Point::kept",
    ),
}


def anchored(path: str, old: str, edit: tuple[str, str], symbol: str, **kw) -> str | None:
    """Verify a memory anchored at ``path#symbol`` written before one commit that made ``edit``."""
    new = old.replace(*edit)
    assert new != old
    diff = "\n".join(
        difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", n=0, lineterm="")
    )
    commits = [
        Commit("b" * 40, T0, "dev", changes=(FileChange(path, len(old.splitlines()), 0, "A"),)),
        Commit("c" * 40, T0 + timedelta(days=1), "dev", changes=(FileChange(path, 1, 1),)),
    ]
    index = DriftIndex.build(commits, {})
    bases: list[str] = []

    def hunks(p: str, base: str) -> list[Hunk]:
        bases.append(base)
        return parse_unified_zero(diff).get(p, [])

    mem = Memory(id="m", kind="note", content="c", anchors=[f"{path}#{symbol}"], created_at=T0 + timedelta(hours=1))
    options = {"anchor_hunks": hunks, "file_text": {path: new}.get, **kw}
    reason = memory_verify(mem, index=index, model=None, sizes={}, thresholds=Thresholds(), now=NOW, **options)
    assert bases in ([], ["b" * 40])  # diffed from the last commit before the memory
    return reason


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_changed_symbol_flags_the_memory_and_an_unchanged_one_does_not(language):
    path, old, edit, changed, kept = CASES[language]
    assert anchored(path, old, edit, changed) == (
        f"{path}#{changed} changed since this was written: 1 commit to its file, last 2 days ago (ccccccc)"
    )
    assert anchored(path, old, edit, kept) is None


def test_a_symbol_that_is_not_found_counts_the_whole_file():
    path, old, edit, _, _ = CASES["python"]
    assert anchored(path, old, edit, "nowhere") == (
        "svc/app.py changed since this was written (nowhere was not found there, so the whole file counts): "
        "1 commit, last 2 days ago (ccccccc)"
    )


def test_without_a_way_to_read_the_diff_the_whole_file_counts():
    path, old, edit, changed, _ = CASES["python"]
    reason = anchored(path, old, edit, changed, anchor_hunks=None)
    assert reason is not None and "(changed could not be checked, so the whole file counts)" in reason
    gone = anchored(path, old, edit, changed, file_text=lambda p: None)
    assert gone is not None and gone.startswith("svc/app.py changed since this was written (its file is gone)")


def test_a_memory_older_than_the_history_diffs_from_the_empty_tree():
    commits = [Commit("c" * 40, T0 + timedelta(days=1), "dev", changes=(FileChange("a.py", 3, 0, "A"),))]
    seen: list[str] = []
    mem = Memory(id="m", kind="note", content="c", anchors=["a.py#f"], created_at=T0)
    reason = memory_verify(
        mem,
        index=DriftIndex.build(commits, {}),
        model=None,
        sizes={"x": ElementSize(0, 0)},
        thresholds=Thresholds(),
        now=NOW,
        anchor_hunks=lambda p, base: seen.append(base) or [Hunk(0, 0, 1, 3)],
        file_text=lambda p: "def f():\n    return 1\n",
    )
    assert seen == [EMPTY_TREE] and reason is not None and reason.startswith("a.py#f changed")
