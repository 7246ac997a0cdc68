"""Statement handlers for the workspace, model, element, relationship and archetype blocks.

One function per kind of block: given the block (``Ctx``) and a statement's tokens, it
creates what the statement says or raises ``Unexpected tokens`` with the statements
that block permits. ``HANDLERS`` maps every block kind to its handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.model.dsl import blocks, deployment, directives, expressions, views
from archmem.model.dsl.archetypes import ELEMENT_TYPES, RELATIONSHIP
from archmem.model.dsl.builder import DEPLOYMENT_KINDS
from archmem.model.dsl.context import (
    ARCHETYPE,
    ARCHETYPES,
    ELEMENT,
    ELEMENTS,
    ENV,
    MODEL,
    NOREL,
    PROPS,
    RELS,
    ROOT,
    SKIP,
    VIEW,
    VIEWS,
    WORKSPACE,
    Ctx,
)

if TYPE_CHECKING:
    from archmem.model.dsl.lexer import Token
    from archmem.model.dsl.parser import Parser

_COMMON = ["description", "tags", "url", "properties", "perspectives", "->"]
PERMITTED: dict[str, list[str]] = {
    "workspace": [
        "name",
        "description",
        "properties",
        "!docs",
        "!decisions",
        "!identifiers",
        "!impliedRelationships",
        "model",
        "views",
        "configuration",
    ],
    "model": [
        "!identifiers",
        "!impliedRelationships",
        "!element",
        "!elements",
        "!relationship",
        "!relationships",
        "archetypes",
        "properties",
        "group",
        "person",
        "softwareSystem",
        "element",
        "deploymentEnvironment",
        "->",
    ],
    "person": _COMMON,
    "element": _COMMON,
    "softwareSystem": ["!docs", "!decisions", "group", "container", *_COMMON],
    "container": [
        "!docs",
        "!decisions",
        "group",
        "component",
        "description",
        "technology",
        "tags",
        "url",
        "properties",
        "perspectives",
        "->",
    ],
    "component": [
        "!docs",
        "!decisions",
        "group",
        "description",
        "technology",
        "tags",
        "url",
        "properties",
        "perspectives",
        "->",
    ],
    "rels": ["description", "technology", "tags", "url", "properties", "perspectives"],
    "elements": ["description", "technology", "tags", "url", "properties", "perspectives", "->"],
    "archetypes": ["<name> = <element type or archetype> {", "-> {"],
    "archetype": ["metadata", "description", "technology", "tag", "tags", "properties", "perspectives"],
}

PLACEMENT = {
    "container": "a container is defined inside a softwareSystem { } block",
    "component": "a component is defined inside a container { } block",
    "person": "people, software systems and custom elements are defined in the model { } block",
    "softwaresystem": "people, software systems and custom elements are defined in the model { } block",
    "deploymentnode": "a deploymentNode is defined inside a deploymentEnvironment { } or deploymentNode { } block",
    "infrastructurenode": "an infrastructureNode is defined inside a deploymentNode { } block",
    "softwaresysteminstance": "instances are defined inside a deploymentNode { } block",
    "containerinstance": "instances are defined inside a deploymentNode { } block",
    "instanceof": "instances are defined inside a deploymentNode { } block",
    "technology": "technology is set on containers, components, deployment and infrastructure nodes",
    "{": "a { goes at the end of the line that opens the block, not on a line of its own",
}


# ---- context handlers --------------------------------------------------------------


def on_root(p: Parser, ctx: Ctx | None, tokens: list[Token], ident: Token | None) -> None:
    if tokens[0].is_("workspace"):
        if "workspace" in p.session.seen:
            raise p.error("Multiple workspaces are not permitted in a DSL definition", tokens[0])
        directives.workspace(p, tokens)
        return
    raise p.unexpected(None, tokens)


def on_workspace(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    word = tokens[0].text.lower()
    if word in ("name", "description") and not tokens[0].quoted:
        p.arity(tokens, 2, 2, f"{word} <{word}>")
        setattr(p.b, word, tokens[1].text)
    elif word == "properties":
        p.block(tokens, lenient=True)
        p.push(Ctx(PROPS, targets=[p.b.workspace_properties]))
    elif word in ("model", "views", "configuration"):
        if word in p.session.seen and word != "configuration":
            label = "models" if word == "model" else "view sets"
            raise p.error(f"Multiple {label} are not permitted in a DSL definition", tokens[0])
        p.block(tokens, lenient=True)
        p.session.seen.add(word)
        kind = {"model": MODEL, "views": VIEWS, "configuration": SKIP}[word]
        p.push(Ctx(kind))
    elif word == "!identifiers":
        directives.identifiers(p, tokens)
    elif word in ("!docs", "!adrs", "!decisions"):
        directives.docs_or_decisions(p, tokens, None)
    else:
        raise p.unexpected(ctx, tokens)


def on_model(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    first = tokens[0]
    word = first.text.lower()
    if p.relationship_statement(ctx, tokens, ident):
        return
    if word == "!identifiers":
        directives.identifiers(p, tokens)
    elif word == "properties" and not first.quoted:
        p.block(tokens, lenient=True)
        p.push(Ctx(PROPS, targets=[p.b.model_properties]))
    elif word == "archetypes" and not first.quoted:
        p.block(tokens)
        p.push(Ctx(ARCHETYPES))
    elif word == "enterprise":
        raise p.error(
            "The enterprise keyword was previously deprecated, and has now been removed - please use group "
            "instead (https://docs.structurizr.com/dsl/language#group)",
            first,
        )
    elif word == "deploymentenvironment":
        deployment.environment(p, tokens, ident)
    elif not first.quoted and (
        kind := p.archetypes.element_type(first.text, ("group", "element", "person", "softwareSystem"))
    ):
        if kind == "group":
            group = p.group(ctx, tokens, ident, None)
            p.push(Ctx(MODEL, group=group))
        else:
            p.create(kind, tokens, ident, None, ctx.group, p.archetypes.get(kind, first.text))
    elif not expressions.find_statement(p, ctx, tokens, ident):
        raise p.unexpected(ctx, tokens)


def on_element(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    entity = ctx.entity
    assert entity is not None
    if entity.kind in DEPLOYMENT_KINDS:
        deployment.on_node(p, ctx, tokens, ident)
        return
    first = tokens[0]
    word = first.text.lower()
    if p.relationship_statement(ctx, tokens, ident) or expressions.find_statement(p, ctx, tokens, ident):
        return
    kind = entity.kind
    if word in ("!docs", "!adrs", "!decisions") and kind in ("softwareSystem", "container", "component"):
        directives.docs_or_decisions(p, tokens, entity)
        return
    if word == "technology" and kind not in ("container", "component"):
        raise p.unexpected(ctx, tokens)
    if ctx.group is None and blocks.attribute(p, ctx, tokens, [entity]):
        return
    if first.quoted:
        raise p.unexpected(ctx, tokens)
    child = {"softwareSystem": "container", "container": "component"}.get(kind)
    if child and (found := p.archetypes.element_type(first.text, ("group", child))):
        if found == "group":
            group = p.group(ctx, tokens, ident, entity)
            p.push(Ctx(ELEMENT, entity=entity, group=group))
        else:
            p.create(child, tokens, ident, entity, ctx.group, p.archetypes.get(child, first.text))
    elif kind == "component" and word == "group":
        p.arity(tokens, 2, 2, "group <name>")
        entity.group = f"{entity.group}/{tokens[1].text}" if entity.group else tokens[1].text
    else:
        raise p.unexpected(ctx, tokens)


def on_rels(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    if tokens[0].quoted or not blocks.attribute(p, ctx, tokens, ctx.items):
        raise p.unexpected(ctx, tokens)


def on_elements(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    if p.relationship_statement(ctx, tokens, ident):
        return
    if tokens[0].quoted or not blocks.attribute(p, ctx, tokens, ctx.items):
        raise p.unexpected(ctx, tokens)


def on_archetypes(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    args, opens = p.opens(tokens)
    first = args[0]
    if first.quoted or len(args) > 1:
        raise p.unexpected(ctx, tokens)
    if p.archetypes.is_relationship(first.text):
        type_: str | None = RELATIONSHIP
    else:
        type_ = p.archetypes.element_type(first.text, ELEMENT_TYPES)
    if type_ is None:
        raise p.unexpected(ctx, tokens)
    archetype = p.archetypes.define(type_, ident.text if ident else None, first.text)
    if opens:
        p.push(Ctx(ARCHETYPE, archetype=archetype))


def on_archetype(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    archetype = ctx.archetype
    assert archetype is not None
    word = tokens[0].text.lower()
    if word == "metadata" and not tokens[0].quoted:
        p.arity(tokens, 2, 2, "metadata <metadata>")
        archetype.metadata = tokens[1].text
    elif tokens[0].quoted or word == "url" or not blocks.attribute(p, ctx, tokens, [archetype]):
        raise p.unexpected(ctx, tokens)


def on_skip(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    """Inside blocks archmem does not read (configuration, styles, view bodies)."""
    if tokens[-1].text == "{" and not tokens[-1].quoted:
        p.push(Ctx(SKIP))


HANDLERS = {
    ROOT: on_root,
    WORKSPACE: on_workspace,
    MODEL: on_model,
    ELEMENT: on_element,
    ENV: deployment.on_environment,
    NOREL: deployment.on_no_relationship,
    RELS: on_rels,
    ELEMENTS: on_elements,
    ARCHETYPES: on_archetypes,
    ARCHETYPE: on_archetype,
    VIEWS: views.on_views,
    VIEW: views.on_view,
    SKIP: on_skip,
}
