"""Re-opening and bulk-editing: ``!element``, ``!relationship``, ``!elements``, ``!relationships``.

``!elements``/``!relationships`` take Structurizr expressions: an identifier (a group
stands for its elements), ``element.parent==x``, ``element.type==container``,
``element.tag==A,B`` / ``!=``, ``element.technology==…`` / ``!=``,
``element.properties[name]==value``, ``->x``/``x->`` (with couplings), ``a->b``,
``*->*``, ``relationship.tag==…``, ``relationship.source==…``/``destination==``,
joined by `` && `` or `` || ``. Like Structurizr they see implied relationships too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from archmem.model.dsl.builder import Entity, Rel, group_members
from archmem.model.dsl.context import ELEMENT, ELEMENTS, ENV, RELS, Ctx

if TYPE_CHECKING:
    from archmem.model.dsl.lexer import Token
    from archmem.model.dsl.parser import Parser

Item = Entity | Rel
_DEFAULT_TAGS = {
    "person": ("Element", "Person"),
    "softwareSystem": ("Element", "Software System"),
    "container": ("Element", "Container"),
    "component": ("Element", "Component"),
    "element": ("Element",),
    "deploymentNode": ("Element", "Deployment Node"),
    "infrastructureNode": ("Element", "Infrastructure Node"),
    "softwareSystemInstance": ("Software System Instance",),
    "containerInstance": ("Container Instance",),
}
_ELEMENT_PROPERTY = re.compile(r"^element\.properties\[(.+)\]==(.*)$", re.IGNORECASE)
_RELATIONSHIP_PROPERTY = re.compile(r"^relationship\.properties\[(.+)\]==(.*)$", re.IGNORECASE)
_PREFIXES = (
    "element==",
    "element.parent==",
    "element.type==",
    "element.tag==",
    "element.tag!=",
    "element.technology==",
    "element.technology!=",
    "relationship==",
    "relationship.tag==",
    "relationship.tag!=",
    "relationship.source==",
    "relationship.destination==",
)


def find_statement(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> bool:
    """Handle ``!element``/``!relationship``/``!elements``/``!relationships``; False otherwise."""
    first = tokens[0]
    word = first.text.lower()
    if first.quoted or word not in ("!element", "!relationship", "!elements", "!relationships", "!ref", "!extend"):
        return False
    if word in ("!ref", "!extend"):
        raise p.error(
            f"{first.text} was previously deprecated, and has now been removed - please use !element or "
            "!relationship instead",
            first,
        )
    args, opens = p.opens(tokens)
    p.arity(args, 2, 2, f"{word} <{'identifier' if word in ('!element', '!relationship') else 'expression'}> {{")
    target = args[1]
    if word == "!element":
        found = p.find(ctx, target) or p.b.find_canonical(target.text)
        if found is None or found.kind == "group":
            raise p.error(f'The element "{target.text}" does not exist', target)
        if ident is not None:  # `x = !element "SoftwareSystem://A"` names an element found by name
            key = ident.text.lower()
            if p.b.by_key.get(key, found) is not found or key in p.b.rel_by_key:
                raise p.error(f'The identifier "{key}" is already in use', ident)
            p.b.by_key[key] = found
        if opens:
            if found.kind == "deploymentEnvironment":
                p.push(Ctx(ENV, env=found))
            else:
                p.push(Ctx(ELEMENT, entity=found, env=found.env))
    elif word == "!relationship":
        rel = p.b.rel_by_key.get(target.text.lower())
        if rel is None:
            raise p.error(f'The relationship "{target.text}" does not exist', target)
        if opens:
            p.push(Ctx(RELS, items=[rel]))
    else:
        items = evaluate(p, ctx, target)
        want = Entity if word == "!elements" else Rel
        chosen = [item for item in items if isinstance(item, want)]
        if not chosen:
            noun = "elements" if word == "!elements" else "relationships"
            raise p.error(f'No {noun} found for expression "{target.text}"', target)
        if opens:
            p.push(Ctx(ELEMENTS, items=chosen, outer=ctx) if want is Entity else Ctx(RELS, items=chosen))
    return True


def evaluate(p: Parser, ctx: Ctx, token: Token) -> list[Item]:
    """The model items an expression selects, in model order, without duplicates."""
    expr = token.text.strip()
    if " && " in expr:
        parts = [_evaluate(p, ctx, token, part.strip()) for part in expr.split(" && ")]
        keep = set.intersection(*({id(i) for i in part} for part in parts))
        return [item for item in parts[0] if id(item) in keep]
    if " || " in expr:
        merged: dict[int, Item] = {}
        for part in expr.split(" || "):
            for item in _evaluate(p, ctx, token, part.strip()):
                merged.setdefault(id(item), item)
        return list(merged.values())
    return _evaluate(p, ctx, token, expr)


def _universe(p: Parser) -> list[Entity]:
    return [*p.b.entities, *p.b.deployment]


def _has_tags(item: Item, tags: list[str]) -> bool:
    own = set(item.tags)
    if isinstance(item, Entity):
        own.update(_DEFAULT_TAGS.get(item.kind, ()))
        if item.instance_of is not None:
            own.update(item.instance_of.tags)
            own.update(_DEFAULT_TAGS.get(item.instance_of.kind, ()))
    else:
        own.add("Relationship")
    return all(tag.strip() in own for tag in tags)


def _is_expression(text: str) -> bool:
    low = text.lower()
    return "->" in text or low.startswith(_PREFIXES) or bool(_ELEMENT_PROPERTY.match(text))


def _elements(p: Parser, ctx: Ctx, token: Token, text: str) -> list[Entity]:
    """An identifier as elements: a group gives its members."""
    found = p.find_text(ctx, text)
    if found is None:
        return []
    if found.kind == "group":
        return group_members(found)
    if found.kind == "deploymentEnvironment":
        return []
    return [found]


def _evaluate(p: Parser, ctx: Ctx, token: Token, expr: str) -> list[Item]:
    low = expr.lower()
    while low.startswith(("element==", "relationship==")):  # a loop: the prefixes may repeat
        relationship = low.startswith("relationship==")
        rest = expr[len("relationship==" if relationship else "element==") :]
        if relationship and rest == "*":
            rest = "*->*"
        if not _is_expression(rest):
            return _identifier(p, ctx, token, rest)
        expr, low = rest, rest.lower()
    if expr == "->":
        raise p.error('Unexpected identifier "->"', token)
    if expr.startswith("->") or (expr.endswith("->") and "->" not in expr[:-2]):
        return _couplings(p, ctx, token, expr)
    if "->" in expr:
        source, _, destination = (part.strip() for part in expr.partition("->"))
        rels = p.b.all_relationships()
        if source != "*":
            sources = {id(e) for e in _endpoint(p, ctx, token, source)}
            rels = [r for r in rels if id(r.source) in sources]
        if destination != "*":
            destinations = {id(e) for e in _endpoint(p, ctx, token, destination)}
            rels = [r for r in rels if id(r.destination) in destinations]
        return list(rels)
    if low.startswith("element.parent=="):
        parent = p.find_text(ctx, expr[len("element.parent==") :])
        if parent is None:
            raise p.error(f'The parent element "{expr[len("element.parent==") :]}" does not exist', token)
        return [e for e in _universe(p) if e.parent is parent]
    if low.startswith("element.type=="):
        wanted = expr[len("element.type==") :].strip().lower()
        wanted = "element" if wanted == "custom" else wanted
        return [e for e in _universe(p) if e.kind.lower() == wanted]
    if low.startswith(("element.tag==", "element.tag!=")):
        tags = expr[len("element.tag==") :].split(",")
        keep = low.startswith("element.tag==")
        return [e for e in _universe(p) if _has_tags(e, tags) == keep]
    if low.startswith(("element.technology==", "element.technology!=")):
        technology = expr[len("element.technology==") :]
        keep = low.startswith("element.technology==")
        return [
            e
            for e in _universe(p)
            if e.kind in ("container", "component", "deploymentNode", "infrastructureNode", "containerInstance")
            and ((e.instance_of.technology if e.instance_of else e.technology) == technology) == keep
        ]
    if match := _ELEMENT_PROPERTY.match(expr):
        name, value = match.group(1), match.group(2)
        return [
            e
            for e in _universe(p)
            if e.properties.get(name) == value
            or (e.instance_of is not None and e.instance_of.properties.get(name) == value)
        ]
    if low.startswith(("relationship.tag==", "relationship.tag!=")):
        tags = expr[len("relationship.tag==") :].split(",")
        keep = low.startswith("relationship.tag==")
        return [r for r in p.b.all_relationships() if _has_tags(r, tags) == keep]
    if match := _RELATIONSHIP_PROPERTY.match(expr):
        return [r for r in p.b.all_relationships() if r.properties.get(match.group(1)) == match.group(2)]
    if low.startswith(("relationship.source==", "relationship.destination==")):
        is_source = low.startswith("relationship.source==")
        rest = expr[len("relationship.source==") :] if is_source else expr[len("relationship.destination==") :]
        ends = {id(e) for e in _endpoint(p, ctx, token, rest)}
        return [r for r in p.b.all_relationships() if id(r.source if is_source else r.destination) in ends]
    return _identifier(p, ctx, token, expr)


def _endpoint(p: Parser, ctx: Ctx, token: Token, text: str) -> list[Entity]:
    if _is_expression(text):
        return [i for i in _evaluate(p, ctx, token, text) if isinstance(i, Entity)]
    found = _elements(p, ctx, token, text)
    if not found:
        raise p.error(f'The element "{text}" does not exist', token)
    return found


def _couplings(p: Parser, ctx: Ctx, token: Token, expr: str) -> list[Item]:
    afferent, efferent = expr.startswith("->"), expr.endswith("->")
    name = expr[2:] if afferent else expr
    name = name[:-2] if efferent and name.endswith("->") else name
    name = name.strip()
    elements = _endpoint(p, ctx, token, name)
    result: dict[int, Item] = {}
    for element in elements:
        result.setdefault(id(element), element)
        for rel in p.b.all_relationships():
            if afferent and rel.destination is element:
                result.setdefault(id(rel.source), rel.source)
            if efferent and rel.source is element:
                result.setdefault(id(rel.destination), rel.destination)
    return list(result.values())


def _identifier(p: Parser, ctx: Ctx, token: Token, text: str) -> list[Item]:
    items: list[Item] = list(_elements(p, ctx, token, text))
    rel = p.b.rel_by_key.get(text.lower())
    if rel is not None:
        items.append(rel)
    if not items:
        raise p.error(f'The element/relationship "{text}" does not exist', token)
    return items
