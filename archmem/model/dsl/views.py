"""The ``views`` block: read past it, keeping what archmem needs.

archmem renders no diagrams, so views are read only far enough to (1) collect their
keys (generated ones too, ``SystemLandscape-001`` as Structurizr names them), (2) catch
what the reference parser rejects there (a view of an element that does not exist, an
image file that is not there, a duplicate key), and (3) keep the brace structure
right. Image sources on the network are never fetched: they give a warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.model.dsl.builder import LABELS
from archmem.model.dsl.context import SKIP, VIEW, Ctx
from archmem.model.dsl.directives import file_errors, resolve_local

if TYPE_CHECKING:
    from archmem.model.dsl.lexer import Token
    from archmem.model.dsl.parser import Parser

PERMITTED = [
    "systemLandscape",
    "systemContext",
    "container",
    "component",
    "filtered",
    "dynamic",
    "deployment",
    "custom",
    "image",
    "styles",
    "theme",
    "themes",
    "branding",
    "terminology",
    "properties",
]
# keyword → (key prefix, grammar, kinds the scope may be; None = no scope; "*" allowed?)
_VIEWS: dict[str, tuple[str, str, frozenset[str] | None, bool]] = {
    "systemlandscape": ("SystemLandscape", "systemLandscape [key] [description] {", None, False),
    "systemcontext": (
        "SystemContext",
        "systemContext <software system identifier> [key] [description] {",
        frozenset({"softwareSystem"}),
        False,
    ),
    "container": (
        "Container",
        "container <software system identifier> [key] [description] {",
        frozenset({"softwareSystem"}),
        False,
    ),
    "component": (
        "Component",
        "component <container identifier> [key] [description] {",
        frozenset({"container"}),
        False,
    ),
    "dynamic": (
        "Dynamic",
        "dynamic <*|software system identifier|container identifier> [key] [description] {",
        frozenset({"softwareSystem", "container"}),
        True,
    ),
    "deployment": (
        "Deployment",
        "deployment <*|software system identifier> <environment> [key] [description] {",
        frozenset({"softwareSystem"}),
        True,
    ),
    "custom": ("Custom", "custom [key] [title] [description] {", None, False),
    "image": (
        "Image",
        "image <*|identifier> [key] {",
        frozenset({"person", "softwareSystem", "container", "component", "element"}),
        True,
    ),
}
_IMAGE_SOURCES = ("image", "plantuml", "mermaid", "kroki")


def on_views(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    first = tokens[0]
    word = first.text.lower()
    args, opens = p.opens(tokens)
    if first.quoted:
        raise p.unexpected(ctx, tokens)
    if word in _VIEWS:
        prefix, grammar, kinds, star = _VIEWS[word]
        scope = 0 if kinds is None else (2 if word == "deployment" else 1)
        if len(args) < 1 + scope:
            raise p.error(f"Expected: {grammar}", first)
        if kinds is not None:
            target = args[1]
            if not (star and target.text == "*") and p.b.find(target.text, [], kinds) is None:
                label = " or ".join(LABELS[k] for k in sorted(kinds)) if word != "image" else "element"
                raise p.error(f'The {label} "{target.text}" does not exist', target)
        _add_key(p, prefix, args[1 + scope] if len(args) > 1 + scope else None)
        if opens:
            p.push(Ctx(VIEW, image=word == "image"))
    elif word == "filtered":
        if len(args) < 4:
            raise p.error("Expected: filtered <baseKey> <include|exclude> <tags> [key] [description]", first)
        _add_key(p, "Filtered", args[4] if len(args) > 4 else None)
        if opens:
            p.push(Ctx(VIEW))
    elif word in ("styles", "branding", "terminology", "properties"):
        if opens or any(t.text == "{" and not t.quoted for t in tokens[1:]):
            p.block(tokens, lenient=True)  # Structurizr opens these on the keyword alone
            p.push(Ctx(SKIP))
    elif word not in ("theme", "themes"):
        raise p.unexpected(ctx, tokens)


def _add_key(p: Parser, prefix: str, token: Token | None) -> None:
    if token is not None and token.text:
        if token.text in p.b.views:
            raise p.error(f'A view with the key "{token.text}" already exists', token)
        p.b.views.append(token.text)
        return
    number = 1
    while f"{prefix}-{number:03d}" in p.b.views:
        number += 1
    p.b.views.append(f"{prefix}-{number:03d}")


def on_view(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    """The inside of one view: only image sources are looked at; blocks are skipped."""
    first = tokens[0]
    word = first.text.lower()
    args, opens = p.opens(tokens)
    if ctx.image and not first.quoted and word in ("light", "dark") and opens:
        p.push(Ctx(VIEW, image=True))
    elif ctx.image and not first.quoted and word in _IMAGE_SOURCES:
        need = 3 if word == "kroki" else 2
        if len(args) < need:
            raise p.error(f"Expected: {word} {'<format> ' if word == 'kroki' else ''}<source>", first)
        _check_source(p, args[need - 1])
    elif opens:
        p.push(Ctx(SKIP))


def _check_source(p: Parser, token: Token) -> None:
    source = token.text
    if source.startswith(("https://", "http://")):
        p.warn(f"image view content {source} is not fetched: archmem never fetches over the network")
    elif "\n" in source or source.startswith("data:"):
        return
    else:
        path = resolve_local(p, source, token, "image source")
        with file_errors(p, token, "image source"):
            if not path.exists():
                raise p.error(f"The file at {path} does not exist", token)
