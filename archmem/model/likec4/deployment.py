"""LikeC4's ``deployment`` and ``views`` blocks: deployment nodes and ``instanceOf`` are
kept apart from the elements (``DeploymentDecl``); views draw nothing in the model, so
only their names are kept. Deployment relationships and ``extend`` of a node are read
past (the latter with a warning)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from archmem.model.likec4.lexer import ARROW, DOTKIND, EOF, ID, NUMBER, PUNCT, RAW, STRING, TAG, Token
from archmem.model.likec4.syntax import PROPERTY_WORDS, DeploymentDecl

if TYPE_CHECKING:
    from archmem.model.likec4.parser import FileParser


def deployment_block(p: FileParser) -> None:
    """A ``deployment { … }`` block: its nodes and instances, kept apart from the elements."""
    p.expect_punct("{")
    _deployment_body(p, None, None)

def _deployment_body(p: FileParser, parent: DeploymentDecl | None, environment: str | None) -> None:
    while True:
        token = p.next()
        if token.type == PUNCT and token.text == "}":
            return
        if token.type == EOF:
            raise p.fail(token, ["'}'"])
        if token.type in (TAG, RAW, STRING, NUMBER) or (token.type == PUNCT and token.text in ",;:"):
            continue
        if token.type != ID:
            if token.type == PUNCT and token.text == "{":
                p.pos -= 1
                p.skip_block()
                continue
            if token.type in (ARROW, DOTKIND):
                p.pos -= 1
                _skip_relation(p)
                continue
            raise p.fail(token, ["a deployment node", "instanceOf", "'}'"])
        following = p.peek()
        if token.text in PROPERTY_WORDS and _is_property_at(p, token):
            p.property(token, None)
            continue
        if following.type in (ARROW, DOTKIND):
            _skip_relation(p)
            continue
        if token.text == "extend" and following.type == ID:
            p.next()
            p.warn(token, f"extend {following.text!r} in the deployment model is not read")
            if p.is_punct("{"):
                p.skip_block()
            continue
        name, kind, instance_of = token.text, "", None
        if token.text == "instanceOf":
            instance_of = p.expect_id("an element").text
            name = instance_of.rsplit(".", 1)[-1]
        elif following.type == PUNCT and following.text == "=":
            p.next()
            kind_token = p.expect_id("a deployment node kind or instanceOf")
            if kind_token.text == "instanceOf":
                instance_of = p.expect_id("an element").text
            else:
                kind = kind_token.text
        elif following.type == ID:
            kind, name = token.text, p.next().text
        else:
            raise p.fail(following, ["a name", "'='", "->"])
        node_id = f"{parent.id}.{name}" if parent else name
        decl = DeploymentDecl(id=node_id, name=name, kind=kind or "instance", environment=environment or name,
                              location=p.at(token), parent=parent.id if parent else None,
                              instance_of=instance_of, display=p.file)
        if p.peek().type == STRING:
            decl.title = p.next().text
        p.out.deployment.append(decl)
        if p.is_punct("{"):
            p.next()
            _deployment_body(p, decl, environment or name)

def _is_property_at(p: FileParser, token: Token) -> bool:
    p.pos -= 1
    try:
        return p.is_property(token)
    finally:
        p.pos += 1

def _skip_relation(p: FileParser) -> None:
    """A deployment relationship from its arrow: the target, strings, tags and body."""
    arrow = p.next()
    if arrow.type == ARROW and arrow.text == "-[":
        p.expect_id("a relationship kind")
        p.next()
    p.expect_id("the target")
    while p.peek().type in (STRING, TAG) or p.is_punct(","):
        p.next()
    if p.is_punct("{"):
        p.skip_block()

def views_block(p: FileParser) -> None:
    """A ``views { … }`` block: the names of its views; they draw nothing in the model."""
    p.expect_punct("{")
    while not p.is_punct("}"):
        token = p.next()
        if token.type == EOF:
            raise p.fail(token, ["'}'"])
        if (token.is_word("view") and p.peek().type == ID and not p.peek().is_word("of")
                and not p.peek().is_word("extends")):
            p.out.views.append(p.peek().text)
        if p.is_punct("{"):
            p.skip_block()
    p.next()
