"""What goes inside element, relationship and archetype blocks: ``description``,
``technology``, ``tag``/``tags``, ``url``, ``properties { }`` and ``perspectives { }``.

Shared by every kind of block (and by ``!elements``/``!relationships``, which apply a
statement to many targets at once); properties and perspectives are kept as written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from archmem.model.dsl.builder import add_tags, split_tags
from archmem.model.dsl.context import PERSP, PROPS, Ctx

if TYPE_CHECKING:
    from archmem.model.dsl.lexer import Token
    from archmem.model.dsl.parser import Parser


def attribute(p: Parser, ctx: Ctx, tokens: list[Token], targets: list[Any]) -> bool:
    """``description``/``technology``/``tag(s)``/``url``/``properties``/``perspectives``
    applied to every target; False when the statement is none of these."""
    word = tokens[0].text.lower()
    if word in ("tag", "tags"):
        if len(tokens) < 2:
            raise p.error(f"Expected: {word} <tags> [tags]", tokens[0])
        for target in targets:
            for token in tokens[1:]:
                add_tags(target.tags, split_tags(token.text))
    elif word in ("description", "technology", "url"):
        p.arity(tokens, 2, 2, f"{word} <{word}>")
        for target in targets:
            setattr(target, word, tokens[1].text)
    elif word in ("properties", "perspectives"):
        p.block(tokens, lenient=True)
        kind = PROPS if word == "properties" else PERSP
        p.push(Ctx(kind, targets=[getattr(t, word) for t in targets]))
    else:
        return False
    return True


def property_(p: Parser, ctx: Ctx, tokens: list[Token]) -> None:
    """``<name> <value>`` inside ``properties { }``."""
    p.arity(tokens, 2, 2, "<name> <value>")
    for target in ctx.targets:
        target[tokens[0].text] = tokens[1].text


def perspective(p: Parser, ctx: Ctx, tokens: list[Token]) -> None:
    """``<name> <description> [value]`` inside ``perspectives { }`` (the value is not kept)."""
    p.arity(tokens, 2, 3, "<name> <description> [value]")
    for target in ctx.targets:
        target[tokens[0].text] = tokens[1].text
