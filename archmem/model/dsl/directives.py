"""Directives: ``workspace [extends]``, ``!include``, ``!const``/``!var``, ``!identifiers``,
``!impliedRelationships``, ``!docs``, ``!adrs``/``!decisions``, and the constructs archmem
refuses to run (``!script``, ``!plugin``, ``!components``).

archmem reads a repository it may not trust, so it never executes JVM code and never
fetches over the network, and every path a directive names is confined
(``archmem.model.confine``): inside the repository, and for ``!include`` inside the
including file's folder, as Structurizr has it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from archmem.errors import ModelError, ModelNotFoundError, UnsupportedFeatureError
from archmem.model.adrs import normalize_format, read_decisions
from archmem.model.confine import confine, is_inside
from archmem.model.dsl.builder import Entity
from archmem.model.dsl.context import WORKSPACE, Ctx

if TYPE_CHECKING:
    from archmem.model.dsl.lexer import Token
    from archmem.model.dsl.parser import Parser

_CONSTANT_NAME = re.compile(r"[a-zA-Z0-9_.-]+")
_NEVER_RUN = {
    "!script": "it would run a JVM script (Groovy, Kotlin, Ruby, JavaScript)",
    "!plugin": "it would load and run a Java plugin class",
    "!components": "it would run Structurizr's Java component finder over compiled code",
}
_STRATEGIES = {
    "true": "unless-any",
    "false": "none",
    "com.structurizr.model.defaultimpliedrelationshipsstrategy": "none",
    "com.structurizr.model.createimpliedrelationshipsunlessanyrelationshipexistsstrategy": "unless-any",
    "com.structurizr.model.createimpliedrelationshipsunlesssamerelationshipexistsstrategy": "unless-same",
}


def handle_global(p: Parser, ctx: Ctx | None, tokens: list[Token]) -> bool:
    """Statements allowed in any block; True when the statement was one of them."""
    first = tokens[0]
    text = first.text
    if first.quoted or (text[0] != "!" and not (len(text) == 20 and text.lower() == "impliedrelationships")):
        return False  # the fast path: directives start with "!"
    word = first.text.lower()
    if word == "!include":
        include(p, tokens)
    elif word in ("!const", "!var"):
        constant(p, tokens, fixed=word == "!const")
    elif word == "!constant":
        raise p.error(
            "!constant was previously deprecated, and has now been removed - please use !const or !var instead", first
        )
    elif word in _NEVER_RUN:
        raise UnsupportedFeatureError(
            f"{first.text} is not supported: {_NEVER_RUN[word]}, and archmem never executes code from a model "
            f"(in {p.st.file} at line {p.st.line})",
            location=p.loc(first),
            hint="describe those elements in the DSL itself, or export the workspace to JSON with Structurizr "
            "and point archmem at workspace.json",
        )
    elif word in ("!impliedrelationships", "impliedrelationships"):
        implied_relationships(p, tokens)
    else:
        return False
    return True


def resolve_local(p: Parser, target: str, token: Token, what: str, within: Path | None = None) -> Path:
    """A path written in the DSL, relative to the file it is written in, resolved and
    confined to ``within`` (default: the model's boundary); never a URL."""
    if target.startswith(("https://", "http://")):
        raise UnsupportedFeatureError(
            f"{what} {target} is not supported: archmem never fetches over the network",
            location=p.loc(token),
            hint="download the file into the repository and refer to it by a relative path",
        )
    if "\x00" in target or not target.strip():
        raise p.error(f"{what}: {target!r} is not a path", token)
    label = None if within is None else f"{within}, the folder of the including file"
    path = confine(
        target, base=Path(p.st.file).parent, within=within or p.root, what=what, location=p.loc(token), label=label
    )
    p.named.append(str(path))
    return path


@contextmanager
def file_errors(p: Parser, token: Token, what: str) -> Iterator[None]:
    """Turn what the file system says about a path (too long, not allowed…) into a ModelError."""
    try:
        yield
    except (OSError, ValueError) as exc:
        raise ModelError(f"{what} {token.text}: {exc}", location=p.loc(token)) from None


def include(p: Parser, tokens: list[Token]) -> None:
    """``!include <file|directory>``: its statements are parsed here, in this block."""
    p.arity(tokens, 2, 2, "!include <file|directory>")
    target = tokens[1]
    folder = Path(p.st.file).parent.resolve()
    resolved = resolve_local(p, target.text, target, "!include", within=folder)
    with file_errors(p, target, "!include"):
        if not resolved.exists():
            raise ModelNotFoundError(f"The file at {resolved} does not exist", location=p.loc(target))
        if resolved.is_dir():
            files = sorted(
                f
                for f in resolved.rglob("*")
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(resolved).parts)
            )
        else:
            files = [resolved]
        for file in files:
            if not is_inside(file, folder):
                raise ModelError(
                    f"!include {target.text}: {file.relative_to(resolved).as_posix()} links outside {folder}, "
                    "the folder of the including file",
                    location=p.loc(target),
                    hint="a model may only name files inside the repository (symlinks are followed)",
                )
    for file in files:
        p.run_file(file)


def constant(p: Parser, tokens: list[Token], *, fixed: bool) -> None:
    word = "!const" if fixed else "!var"
    p.arity(tokens, 3, 3, f"{word} <name> <value>")
    name, value = tokens[1].text, tokens[2].text
    if not _CONSTANT_NAME.fullmatch(name):
        raise p.error("Constant/variable names must only contain the following characters: a-zA-Z0-9-_.", tokens[1])
    if fixed and name in p.constants:
        raise p.error(f'A constant/variable "{name}" already exists', tokens[1])
    if not fixed and name in p.fixed:
        raise p.error(f'A constant "{name}" already exists', tokens[1])
    p.constants[name] = value
    if fixed:
        p.fixed.add(name)


def identifiers(p: Parser, tokens: list[Token]) -> None:
    p.arity(tokens, 2, 2, "!identifiers <flat|hierarchical>")
    value = tokens[1].text.lower()
    if value not in ("flat", "hierarchical"):
        raise p.error("Expected: !identifiers <flat|hierarchical>", tokens[1], ["flat", "hierarchical"])
    p.b.hierarchical = value == "hierarchical"


def implied_relationships(p: Parser, tokens: list[Token]) -> None:
    p.arity(tokens, 2, 2, "!impliedRelationships <true|false|fully qualified class name>")
    value = tokens[1].text
    strategy = _STRATEGIES.get(value.lower())
    if strategy is None:
        p.warn(
            f"implied relationships strategy {value} is a Java class archmem does not run; keeping the current strategy"
        )
        return
    p.b.implied = strategy


def workspace(p: Parser, tokens: list[Token]) -> None:
    """``workspace [name] [description] {`` or ``workspace extends <file> {``."""
    args, opens = p.opens(tokens)
    if len(args) >= 2 and args[1].is_("extends"):
        p.arity(args, 3, 3, "workspace extends <file> {")
        if not opens:
            raise p.error("Expected: workspace extends <file> {", tokens[-1])
        path = resolve_local(p, args[2].text, args[2], "workspace extends")
        with file_errors(p, args[2], "workspace extends"):
            if not path.is_file():
                raise ModelNotFoundError(f"The file at {path} does not exist", location=p.loc(args[2]))
        if path.suffix.lower() == ".json":
            from archmem.model.structurizr_json import load_into

            p.files.append(str(path))
            load_into(p.b, path)
        else:
            p.parse_file(path)
    else:
        p.arity(args, 1, 3, "workspace [name] [description] {")
        if not opens:
            raise p.error("Expected: workspace [name] [description] {", tokens[-1])
        if len(args) > 1:
            p.b.name = args[1].text
        if len(args) > 2:
            p.b.description = args[2].text
    p.session.seen.add("workspace")
    p.push(Ctx(WORKSPACE))


def docs_or_decisions(p: Parser, tokens: list[Token], entity: Entity | None) -> None:
    """``!docs <path> [importer]`` (accepted, not read) and ``!adrs <path> [format|importer]``."""
    word = tokens[0].text.lower()
    p.arity(tokens, 2, 3, f"{tokens[0].text} <path> [{'importer' if word == '!docs' else 'format|importer'}]")
    path = resolve_local(p, tokens[1].text, tokens[1], tokens[0].text)
    with file_errors(p, tokens[1], tokens[0].text):
        if not path.exists():
            # a folder that moved since the workspace was written (common in real repositories)
            # costs its decisions, never the whole model
            p.warn(f"{tokens[0].text}: the path {tokens[1].text} does not exist; nothing was read from it")
            return
    option = tokens[2].text if len(tokens) > 2 else None
    if word == "!docs":
        if option:
            p.warn(
                f"documentation importer {option} is a Java class; archmem does not read documentation "
                "and does not run it"
            )
        return
    fmt = option
    if fmt is not None and "." in fmt:
        try:
            normalize_format(fmt)
        except ModelError:
            p.warn(
                f"decision importer {fmt} is a Java class archmem does not run; reading {tokens[1].text} "
                "as adrtools records"
            )
            fmt = "adrtools"
    try:
        with file_errors(p, tokens[1], tokens[0].text):
            found = read_decisions(
                path, fmt, element=entity.id if entity is not None else None, within=p.root, warn=p.b.warnings.append
            )
    except ModelError as exc:
        if exc.location is not None:
            raise
        raise ModelError(exc.message, location=p.loc(tokens[-1]), hint=exc.hint) from None
    p.b.decisions.extend(found)
