"""Deployment statements: environments, deployment groups, nodes, instances, ``-/>``.

Deployment elements become ``DeploymentNode`` values, kept apart from the C4 elements.
Identifiers nest as Structurizr nests them (``live.aws.region.route53`` under
``!identifiers hierarchical``), and relationships between deployment elements are
recorded as written, never replicated between instances.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.model.dsl import blocks, expressions
from archmem.model.dsl.archetypes import RELATIONSHIP, Archetype
from archmem.model.dsl.builder import Entity, add_tags, group_path, split_tags
from archmem.model.dsl.context import ELEMENT, ENV, NOREL, Ctx

if TYPE_CHECKING:
    from archmem.model.dsl.lexer import Token
    from archmem.model.dsl.parser import Parser

INSTANCE_WORDS = {
    "softwaresysteminstance": ("softwareSystemInstance", frozenset({"softwareSystem"}), "software system"),
    "containerinstance": ("containerInstance", frozenset({"container"}), "container"),
    "instanceof": ("instanceOf", frozenset({"softwareSystem", "container"}), "software system or container"),
}
_NODE_PERMITTED = [
    "group",
    "deploymentNode",
    "infrastructureNode",
    "softwareSystemInstance",
    "containerInstance",
    "instanceOf",
    "description",
    "technology",
    "instances",
    "tags",
    "url",
    "properties",
    "perspectives",
    "->",
]
_PERMITTED = {
    "deploymentNode": _NODE_PERMITTED,
    "infrastructureNode": ["description", "technology", "tags", "url", "properties", "perspectives", "->"],
    "softwareSystemInstance": ["description", "tags", "url", "properties", "perspectives", "healthCheck", "->"],
    "containerInstance": ["description", "tags", "url", "properties", "perspectives", "healthCheck", "->"],
    "env": ["group", "deploymentGroup", "deploymentNode", "->", "-/>", "!element", "!elements", "!relationships"],
    "norel": ["<identifier> -> <identifier> [description] [technology] [tags]"],
}


def permitted(ctx: Ctx) -> list[str]:
    """The statements allowed in a deployment context (for "Unexpected tokens")."""
    if ctx.entity is not None:
        return _PERMITTED.get(ctx.entity.kind, [])
    return _PERMITTED.get(ctx.kind, [])


def environment(p: Parser, tokens: list[Token], ident: Token | None) -> None:
    """``[id =] deploymentEnvironment <name> [{]`` (re-opening one by name is allowed)."""
    args, opens = p.opens(tokens)
    p.arity(args, 2, 2, "deploymentEnvironment <name>")
    name = args[1].text
    env = p.b.environments.get(name)
    if env is None:
        env = Entity("deploymentEnvironment", name, file=p.st.file, line=p.st.line)
        p.b.environments[name] = env
        p.b.add(env, ident.text if ident else None, p.loc(ident or args[1]))
        if ident is None:
            env.id = name  # hierarchical ids of its nodes read "Live.web", not "DeploymentEnvironment://Live.web"
    elif ident is not None:
        key = ident.text.lower()
        if env.key == env.canonical.lower():
            env.id, env.key = ident.text, key
        if p.b.by_key.get(key, env) is not env:
            raise p.error(f'The identifier "{key}" is already in use', ident)
        p.b.by_key[key] = env
    if opens:
        p.push(Ctx(ENV, env=env))


def on_environment(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    env = ctx.env
    assert env is not None
    first = tokens[0]
    word = first.text.lower()
    if len(tokens) >= 3 and tokens[1].text == "-/>" and not tokens[1].quoted:
        args, opens = p.opens(tokens)
        grammar = "<identifier> -/> <identifier> [description] {"
        p.arity(args, 3, 4, grammar)
        if not opens:
            raise p.error(f"Expected: {grammar}", tokens[-1])
        source = p.endpoints(ctx, args[0], "source")[0]
        destination = p.endpoints(ctx, args[2], "destination")[0]
        linked = [
            r
            for r in p.b.relationships_between(source.instance_of or source, destination.instance_of or destination)
            if len(args) < 4 or r.description == args[3].text
        ]
        if not linked:
            raise p.error(
                f'A relationship between "{source.canonical}" and "{destination.canonical}" does not exist', args[1]
            )
        p.push(Ctx(NOREL, env=env, linked=linked[0]))
    elif p.relationship_statement(ctx, tokens, ident) or expressions.find_statement(p, ctx, tokens, ident):
        return
    elif word == "deploymentgroup" and not first.quoted:
        args, _ = p.opens(tokens)
        p.arity(args, 2, 2, "deploymentGroup <name>")
        key = (ident.text if ident else args[1].text).lower()
        p.b.deployment_groups[(env.name, key)] = args[1].text
    elif not first.quoted and (kind := p.archetypes.element_type(first.text, ("group", "deploymentNode"))):
        if kind == "group":
            group = p.group(ctx, tokens, ident, None)
            p.push(Ctx(ENV, env=env, group=group))
        else:
            p.create(kind, tokens, ident, None, ctx.group, p.archetypes.get(kind, first.text), env=env)
    else:
        raise p.unexpected(ctx, tokens)


def on_node(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    """Statements inside a deployment node, infrastructure node or instance block."""
    entity = ctx.entity
    assert entity is not None
    first = tokens[0]
    word = first.text.lower()
    if p.relationship_statement(ctx, tokens, ident) or expressions.find_statement(p, ctx, tokens, ident):
        return
    if first.quoted:
        raise p.unexpected(ctx, tokens)
    kind = entity.kind
    attributes = ("description", "tag", "tags", "url", "properties", "perspectives")
    if ctx.group is None and (word in attributes
                              or (word == "technology" and kind in ("deploymentNode", "infrastructureNode"))):
        blocks.attribute(p, ctx, tokens, [entity])
    elif word == "instances" and kind == "deploymentNode" and ctx.group is None:
        p.arity(tokens, 2, 2, "instances <number|range>")
        entity.instances = tokens[1].text
    elif word == "healthcheck" and kind in ("softwareSystemInstance", "containerInstance"):
        args, _ = p.opens(tokens)
        p.arity(args, 3, 5, "healthCheck <name> <url> [interval] [timeout]")
    elif kind == "deploymentNode" and word in INSTANCE_WORDS:
        instance(p, ctx, tokens, ident)
    elif kind == "deploymentNode" and (
        found := p.archetypes.element_type(first.text, ("group", "deploymentNode", "infrastructureNode"))
    ):
        if found == "group":
            group = p.group(ctx, tokens, ident, entity)
            p.push(Ctx(ELEMENT, entity=entity, group=group, env=entity.env))
        else:
            p.create(found, tokens, ident, entity, ctx.group, p.archetypes.get(found, first.text), env=entity.env)
    else:
        raise p.unexpected(ctx, tokens)


def instance(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> Entity:
    """``softwareSystemInstance``/``containerInstance``/``instanceOf <id> [groups] [tags]``."""
    node = ctx.entity
    assert node is not None and node.env is not None
    args, opens = p.opens(tokens)
    word, kinds, label = INSTANCE_WORDS[args[0].text.lower()]
    p.arity(args, 2, 4, f"{word} <identifier> [deploymentGroups] [tags]")
    target = p.find(ctx, args[1], kinds)
    if target is None:
        raise p.error(f'The {label} "{args[1].text}" does not exist', args[1])
    if len(args) > 2:
        for name in split_tags(args[2].text):
            if (node.env.name, name.lower()) not in p.b.deployment_groups:
                # Structurizr ignores unknown deployment groups (older files named environments here)
                p.warn(
                    f'deployment group "{name}" does not exist in "{node.env.name}" and is ignored '
                    '(tags come after deployment groups: write "" for no groups)'
                )
    kind = "softwareSystemInstance" if target.kind == "softwareSystem" else "containerInstance"
    first = p.st.tokens[0]
    entity = Entity(
        kind,
        target.name,
        parent=node,
        env=node.env,
        instance_of=target,
        number=p.b.next_instance_number(node, target),
        file=p.st.file,
        line=p.st.line,
        column=first.column,
        end_line=p.st.end_line,
    )
    if len(args) > 3:
        add_tags(entity.tags, split_tags(args[3].text))
    if ctx.group is not None:
        entity.group = group_path(ctx.group)
    p.b.add(entity, ident.text if ident else None, p.loc(ident or args[1]))
    if opens:
        p.push(Ctx(ELEMENT, entity=entity, defines=entity, env=node.env))
    return entity


def instances_of(p: Parser, target: Entity, env: Entity) -> list[Entity]:
    return [d for d in p.b.deployment if d.instance_of is target and d.env is env]


def on_no_relationship(p: Parser, ctx: Ctx, tokens: list[Token], ident: Token | None) -> None:
    """Inside ``a -/> b { … }``: the relationships that replace the removed one.

    Containers and software systems stand for their instances in this environment;
    a missing description or technology is copied from the removed relationship.
    """
    env, linked = ctx.env, ctx.linked
    assert env is not None and linked is not None
    if not (len(tokens) > 2 and not tokens[1].quoted and p.arrow(tokens[1])):
        raise p.unexpected(ctx, tokens)
    args, opens = p.opens(tokens)
    grammar = "<identifier> -> <identifier> [description] [technology] [tags]"
    p.arity(args, 3, 6, grammar)
    ends: list[list[Entity]] = []
    for token, role in ((args[0], "source"), (args[2], "destination")):
        found = p.endpoints(ctx, token, role)[0]
        if found.kind in ("softwareSystem", "container"):
            replicas = instances_of(p, found, env)
            if not replicas:
                raise p.error(f'"{token.text}" has no instances in the deployment environment "{env.name}"', token)
            ends.append(replicas)
        else:
            ends.append([found])
    archetype = Archetype(RELATIONSHIP, RELATIONSHIP, description=linked.description, technology=linked.technology)
    p.connect(ctx, ends[0], ends[1], args[3:], archetype, ident, opens)
