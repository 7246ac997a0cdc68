"""LikeC4 parsing: tokens of one file → ``Declarations`` (kinds, elements, relationships).

The grammar is LikeC4's: ``specification``, ``model`` (elements written ``name = kind``
or ``kind name``, up to three strings for title, summary and technology, a body of
tags, properties, nested elements and relationships; ``extend fqn { … }``),
``deployment`` (nodes and ``instanceOf``), ``views``, ``global`` and ``likec4lib``.
Views, styles and global rules draw nothing in the model: their blocks are skipped by
their braces, and a view's name is kept. A construct archmem does not know is a
warning naming the place, never a guess.
"""

from __future__ import annotations

from archmem.errors import ModelSyntaxError, SourceLocation
from archmem.model.likec4.deployment import deployment_block, views_block
from archmem.model.likec4.lexer import ARROW, DOTKIND, EOF, ID, NUMBER, PUNCT, RAW, STRING, TAG, Token
from archmem.model.likec4.syntax import (
    OTHER_PROPERTIES,
    STRING_PROPERTIES,
    Declarations,
    ElementDecl,
    KindSpec,
    RelationDecl,
)
from archmem.model.types import Location

TOP_LEVEL = ("specification", "model", "views", "deployment", "global", "likec4lib", "import")
_RELATION_START = frozenset({"->", "-["})


class FileParser:
    """Parses one file's tokens into ``out``; ``kinds`` are the element kinds of every
    file's specification (read first), so ``kind name`` is told from other statements."""

    def __init__(self, tokens: list[Token], file: str, out: Declarations, path: str = "") -> None:
        self.tokens = tokens
        self.file = file
        self.path = path or file
        """The file as the model's locations name it (absolute: git blames it)."""
        self.out = out
        self.pos = 0

    # ---- tokens -----------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        index = min(self.pos + ahead, len(self.tokens) - 1)
        return self.tokens[index]

    def next(self) -> Token:
        token = self.tokens[self.pos]
        if token.type != EOF:
            self.pos += 1
        return token

    def at(self, token: Token) -> Location:
        return Location(file=self.path, line=token.line, column=token.column)

    def fail(self, token: Token, expected: list[str], what: str = "") -> ModelSyntaxError:
        found = token.describe()
        return ModelSyntaxError(
            what or f"unexpected {found}",
            location=SourceLocation(self.file, token.line, token.column),
            expected=expected,
        )

    def expect_punct(self, char: str) -> Token:
        token = self.next()
        if token.type != PUNCT or token.text != char:
            raise self.fail(token, [repr(char)])
        return token

    def expect_id(self, what: str) -> Token:
        token = self.next()
        if token.type != ID:
            raise self.fail(token, [what])
        return token

    def is_punct(self, char: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token.type == PUNCT and token.text == char

    def skip_separator(self) -> None:
        while self.is_punct(";") or self.is_punct(","):
            self.next()

    def skip_block(self) -> None:
        """From ``{`` to its ``}``, whatever is inside."""
        opening = self.expect_punct("{")
        depth = 1
        while depth:
            token = self.next()
            if token.type == EOF:
                raise self.fail(token, ["'}'"], f"the block opened at line {opening.line} is never closed")
            if token.type == PUNCT and token.text == "{":
                depth += 1
            elif token.type == PUNCT and token.text == "}":
                depth -= 1

    def warn(self, token: Token, message: str) -> None:
        self.out.warnings.append(f"{self.file}:{token.line}:{token.column}: {message}")

    # ---- top level --------------------------------------------------------------

    def parse(self, *, specification: bool) -> None:
        """The specification blocks (``specification=True``) or everything else."""
        while self.peek().type != EOF:
            token = self.next()
            if token.type != ID or token.text not in TOP_LEVEL:
                raise self.fail(token, list(TOP_LEVEL))
            if token.text == "views" and self.peek().type == STRING:
                self.next()  # a title for the views' folder
            if token.text == "import":
                self.skip_import(token, warn=not specification)
            elif token.text == "specification" and specification:
                self.specification()
            elif token.text == "model" and not specification:
                self.model_block()
            elif token.text == "deployment" and not specification:
                deployment_block(self)
            elif token.text == "views" and not specification:
                views_block(self)
            else:
                self.skip_block()

    def skip_import(self, token: Token, *, warn: bool) -> None:
        while not (self.peek().type == STRING or self.peek().type == EOF):
            self.next()
        if self.next().type == EOF:
            raise self.fail(self.peek(), ["from 'project'"])
        if warn:
            self.warn(token, "an import from another LikeC4 project is not read; relationships to its elements "
                             "are left out")

    # ---- specification ----------------------------------------------------------

    def specification(self) -> None:
        self.expect_punct("{")
        while not self.is_punct("}"):
            token = self.next()
            if token.type != ID:
                raise self.fail(token, ["element", "tag", "relationship", "color", "deploymentNode", "'}'"])
            if token.text == "color":  # color name #hex | rgb(…) | rgba(…)
                self.next()
                if self.next().type == ID and self.is_punct("("):
                    while not self.is_punct(")") and self.peek().type != EOF:
                        self.next()
                    self.expect_punct(")")
                continue
            name = self.expect_id(f"a name for the {token.text}").text
            if token.text == "element":
                spec = self.out.kinds.setdefault(name, KindSpec(name))
                if self.is_punct("{"):
                    self.kind_body(spec)
            else:
                if token.text == "tag":
                    self.out.tags.add(name)
                elif token.text == "relationship":
                    self.out.relationship_kinds.add(name)
                elif token.text == "deploymentNode":
                    self.out.deployment_kinds.add(name)
                else:
                    self.warn(token, f"{token.text!r} in the specification is not read")
                if self.is_punct("{"):
                    self.skip_block()
            self.skip_separator()
        self.next()

    def kind_body(self, spec: KindSpec) -> None:
        self.expect_punct("{")
        while not self.is_punct("}"):
            token = self.next()
            if token.type == EOF:
                raise self.fail(token, ["'}'"])
            if token.type == ID and token.text in ("notation", "technology") and self.string_follows():
                value = self.string_value()
                if token.text == "notation":
                    spec.notation = value
                else:
                    spec.technology = value
            elif token.is_word("style") and self.is_punct("{"):
                spec.shape = self.style_shape() or spec.shape
            elif self.is_punct("{"):
                self.skip_block()
        self.next()

    def style_shape(self) -> str:
        self.expect_punct("{")
        shape, depth = "", 1
        while depth:
            token = self.next()
            if token.type == EOF:
                raise self.fail(token, ["'}'"])
            if token.type == PUNCT and token.text in "{}":
                depth += 1 if token.text == "{" else -1
            elif token.is_word("shape") and self.peek().type == ID:
                shape = self.next().text
        return shape

    # ---- strings and properties -------------------------------------------------

    def string_follows(self) -> bool:
        return self.peek().type == STRING or (self.is_punct(":") and self.peek(1).type == STRING)

    def string_value(self) -> str:
        if self.is_punct(":"):
            self.next()
        token = self.next()
        if token.type != STRING:
            raise self.fail(token, ["a string"])
        if self.is_punct(";"):
            self.next()
        return token.text

    def tags(self) -> list[str]:
        found: list[str] = []
        while self.peek().type == TAG or (self.is_punct(",") and self.peek(1).type == TAG):
            token = self.next()
            if token.type == TAG:
                found.append(token.text)
        if self.is_punct(";"):
            self.next()
        return found

    def metadata(self) -> dict[str, list[str]]:
        self.expect_punct("{")
        values: dict[str, list[str]] = {}
        while not self.is_punct("}"):
            key = self.next()
            if key.type != ID:
                raise self.fail(key, ["a metadata key", "'}'"])
            if self.is_punct(":"):
                self.next()
            if self.is_punct("["):
                self.next()
                items: list[str] = []
                while not self.is_punct("]"):
                    item = self.next()
                    if item.type in (STRING, ID, NUMBER):
                        items.append(item.text)
                    elif not (item.type == PUNCT and item.text == ","):
                        raise self.fail(item, ["a string", "']'"])
                self.next()
            elif self.peek().type in (STRING, NUMBER, ID):
                items = [self.next().text]
            else:
                raise self.fail(self.peek(), ["a string", "'['"])
            values.setdefault(key.text, []).extend(items)
            self.skip_separator()
        self.next()
        return values

    def link(self) -> str:
        if self.is_punct(":"):
            self.next()
        token = self.next()
        if token.type not in (RAW, STRING):
            raise self.fail(token, ["a URI"])
        if self.peek().type == STRING:
            self.next()
        if self.is_punct(";"):
            self.next()
        return token.text

    def property(self, token: Token, decl: ElementDecl | RelationDecl | None) -> None:
        """A property after its keyword ``token``; ``decl`` takes what it describes."""
        word = token.text
        if word in STRING_PROPERTIES:
            value = self.string_value()
            if decl is None:
                return
            if word == "summary" and isinstance(decl, ElementDecl):
                decl.summary = value
            elif word == "notation" and isinstance(decl, ElementDecl):
                decl.notation = value
            elif word in ("title", "description", "technology") and not getattr(decl, word):
                setattr(decl, word, value)  # what the element's line says comes first
        elif word == "link":
            url = self.link()
            if decl is not None:
                decl.links.append(url)
        elif word == "metadata":
            values = self.metadata()
            if decl is not None:
                for key, items in values.items():
                    decl.metadata.setdefault(key, []).extend(items)
        elif word == "style":
            self.skip_block()
        else:  # icon, navigateTo: one word
            if self.is_punct(":"):
                self.next()
            self.next()
            if self.is_punct(";"):
                self.next()

    def is_property(self, token: Token) -> bool:
        following = self.peek(1)
        if token.text in STRING_PROPERTIES:
            return following.type == STRING or (following.type == PUNCT and following.text == ":")
        if token.text in ("style", "metadata"):
            return following.type == PUNCT and following.text == "{"
        if token.text in ("link", "icon"):
            return following.type in (RAW, STRING) or (following.type == PUNCT and following.text == ":")
        return token.text == "navigateTo" and following.type == ID

    # ---- model ------------------------------------------------------------------

    def model_block(self) -> None:
        self.expect_punct("{")
        self.body(None, top=True)

    def body(self, scope: ElementDecl | None, *, top: bool = False) -> None:
        """Statements up to the closing ``}`` of a model, element or ``extend`` block."""
        fqn = scope.fqn if scope is not None else None
        while True:
            token = self.peek()
            if token.type == PUNCT and token.text == "}":
                self.next()
                return
            if token.type == EOF:
                raise self.fail(token, ["'}'"])
            if token.type == TAG:
                tags = self.tags()
                if scope is not None:
                    scope.tags.extend(tags)
                continue
            if token.type in (ARROW, DOTKIND):
                if fqn is None or (token.type == ARROW and token.text not in _RELATION_START):
                    raise self.fail(token, ["an element", "a relationship with its source"])
                self.relation(fqn, None)
                continue
            if token.type != ID:
                raise self.fail(token, ["an element", "a relationship", "a property", "'}'"])
            following = self.peek(1)
            if token.text == "extend" and following.type == ID and self.peek(2).type in (ARROW, DOTKIND):
                self.next()
                self.warn(token, "extend of a relationship is not read (its tags and metadata are left out)")
                self.next()
                self.relation(fqn, following.text, keep=False)
            elif token.text == "extend" and following.type == ID:
                self.extend()
            elif following.type == PUNCT and following.text == "=":
                self.element(fqn)
            elif following.type == DOTKIND or (following.type == ARROW and following.text in _RELATION_START):
                self.next()
                source = None if token.text in ("it", "this") else token.text
                if source is None and fqn is None:
                    raise self.fail(token, ["an element"], f"{token.text!r} names no element at the model's top")
                self.relation(fqn, source)
            elif self.is_property(token):
                self.next()
                self.property(token, scope)
            elif following.type == ID and token.text not in OTHER_PROPERTIES:
                self.element(fqn)
            elif following.type == PUNCT and following.text == "{":
                self.next()
                self.warn(token, f"{token.text!r} blocks are not read")
                self.skip_block()
            else:
                raise self.fail(following if token.text in self.out.kinds else token,
                                ["an element", "a relationship", "a property", "'}'"])

    def element(self, parent: str | None) -> None:
        first = self.next()
        if self.is_punct("="):
            self.next()
            name, kind = first, self.expect_id("an element kind")
        else:
            kind, name = first, self.expect_id("an element name")
        if "." in name.text:
            raise self.fail(name, ["a name without dots"])
        if kind.text not in self.out.kinds:
            self.warn(kind, f"element kind {kind.text!r} is not in the specification")
        fqn = f"{parent}.{name.text}" if parent else name.text
        decl = ElementDecl(fqn=fqn, name=name.text, kind=kind.text, location=self.at(name), display=self.file)
        strings = []
        while self.peek().type == STRING:
            strings.append(self.next().text)
        if len(strings) > 3:
            self.warn(name, f"element {fqn!r}: strings after the title, summary and technology are not read")
        for attribute, value in zip(("title", "summary", "technology"), strings, strict=False):
            setattr(decl, attribute, value)
        decl.tags.extend(self.tags())
        self.out.elements.append(decl)
        if self.is_punct("{"):
            self.next()
            self.body(decl)
            decl.end_line = self.peek(-1).line
        self.skip_separator()

    def extend(self) -> None:
        self.next()
        target = self.expect_id("the element's full name")
        decl = ElementDecl(fqn=target.text, name=target.text.rsplit(".", 1)[-1], kind="", location=self.at(target),
                           extend=True, display=self.file)
        self.out.elements.append(decl)
        self.expect_punct("{")
        self.body(decl)

    def relation(self, scope: str | None, source: str | None, *, keep: bool = True) -> None:
        arrow = self.next()
        kind = ""
        if arrow.type == DOTKIND:
            kind = arrow.text
        elif arrow.text == "-[":
            kind = self.expect_id("a relationship kind").text
            closing = self.next()
            if closing.type != ARROW or closing.text != "]->":
                raise self.fail(closing, ["']->'"])
        target = self.next()
        if target.type != ID:
            raise self.fail(target, ["the target element"])
        decl = RelationDecl(scope=scope, source=source, target=target.text, location=self.at(arrow), kind=kind,
                              display=self.file)
        strings = []
        while self.peek().type == STRING:
            strings.append(self.next().text)
        for attribute, value in zip(("title", "description", "technology"), strings, strict=False):
            setattr(decl, attribute, value)
        decl.tags.extend(self.tags())
        if self.is_punct("{"):
            self.next()
            while not self.is_punct("}"):
                token = self.next()
                if token.type == TAG:
                    decl.tags.append(token.text)
                elif token.type == PUNCT and token.text in ",;":
                    continue
                elif token.type == ID and (token.text in STRING_PROPERTIES or token.text in OTHER_PROPERTIES):
                    self.property(token, decl)
                else:
                    raise self.fail(token, ["a relationship property", "'}'"])
            self.next()
        if keep:
            self.out.relations.append(decl)
        self.skip_separator()
