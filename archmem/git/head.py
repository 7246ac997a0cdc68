"""Where HEAD points, read from the files under ``.git`` (a few small reads, no
process): for the questions asked on every answer, where starting git would cost more
than the answer. Worktrees, symbolic refs and packed refs are followed."""

from __future__ import annotations

from pathlib import Path


def git_dirs(root: Path) -> tuple[Path, Path] | None:
    """(git dir, common dir) of the checkout holding ``root`` (worktrees included)."""
    for folder in (root, *root.parents):
        dot = folder / ".git"
        if dot.is_dir():
            gitdir = dot
            break
        if dot.is_file():
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text[len("gitdir:"):].strip()).resolve()
            break
    else:
        return None
    common = gitdir
    pointer = gitdir / "commondir"
    if pointer.is_file():
        common = (gitdir / pointer.read_text(encoding="utf-8").strip()).resolve()
    return gitdir, common


def git_head(root: Path) -> str | None:
    """The commit HEAD points at (or HEAD's text for an unborn branch); a few file reads."""
    dirs = git_dirs(root)
    if dirs is None:
        return None
    gitdir, common = dirs
    try:
        head = (gitdir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head
    ref = head[len("ref:"):].strip()
    for base in (gitdir, common):
        try:
            return (base / ref).read_text(encoding="utf-8").strip()
        except OSError:
            continue
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8")
    except OSError:
        return head
    for line in packed.splitlines():
        if line.endswith(" " + ref):
            return line.split(" ", 1)[0]
    return head
