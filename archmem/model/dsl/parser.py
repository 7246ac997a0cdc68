"""The Structurizr DSL parser: a stack of contexts, one statement at a time.

Like Structurizr's own parser, each ``{`` opens a context (workspace, model, an element,
a group, a deployment node, …) that decides which statements may follow, and ``}``
closes it. This module holds the loop, the look-ups and the creation of elements and
relationships; ``handlers`` says what each kind of block accepts, and ``deployment``,
``views``, ``directives`` (``!include``, ``!adrs``, …), ``expressions`` (``!elements``)
and ``blocks`` (``properties``, ``tags``, …) hold the rest. Every failure is a
``ModelError`` naming file, line and column.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from archmem.errors import ArchmemError, ModelError, ModelNotFoundError, ModelSyntaxError, SourceLocation, closest
from archmem.model.confine import boundary
from archmem.model.dsl import blocks, deployment, directives, views
from archmem.model.dsl.archetypes import RELATIONSHIP, Archetype, Archetypes
from archmem.model.dsl.builder import (
    DEPLOYMENT_KINDS,
    STATIC_KINDS,
    Builder,
    Entity,
    Rel,
    add_tags,
    group_path,
    may_relate,
    split_tags,
)
from archmem.model.dsl.context import (
    ELEMENT,
    ELEMENTS,
    ENV,
    NOREL,
    PERSP,
    PROPS,
    RELS,
    ROOT,
    SKIP,
    VIEW,
    VIEWS,
    Ctx,
    Session,
)
from archmem.model.dsl.handlers import HANDLERS, PERMITTED, PLACEMENT
from archmem.model.dsl.lexer import Statement, Token, read_text, statements, substitute
from archmem.model.limits import MAX_FILE_DEPTH, MAX_NESTING, too_deep
from archmem.model.types import ArchitectureModel

RELATABLE = STATIC_KINDS | DEPLOYMENT_KINDS
_IDENTIFIER = re.compile(r"\w[a-zA-Z0-9_-]*")

GRAMMARS: dict[str, tuple[str, tuple[str, ...]]] = {
    "person": ("person <name> [description] [tags]", ("description", "tags")),
    "softwareSystem": ("softwareSystem <name> [description] [tags]", ("description", "tags")),
    "container": ("container <name> [description] [technology] [tags]", ("description", "technology", "tags")),
    "component": ("component <name> [description] [technology] [tags]", ("description", "technology", "tags")),
    "element": ("element <name> [metadata] [description] [tags]", ("technology", "description", "tags")),
    "deploymentNode": (
        "deploymentNode <name> [description] [technology] [tags] [instances]",
        ("description", "technology", "tags", "instances"),
    ),
    "infrastructureNode": (
        "infrastructureNode <name> [description] [technology] [tags]",
        ("description", "technology", "tags"),
    ),
}


class AskedEnvironment(dict[str, str]):
    """The environment, remembering every name a ``${NAME}`` asked it for (found or not)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__(env)
        self.asked: set[str] = set()

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str):
            self.asked.add(name)
        return super().__contains__(name)


class ParseInputs:
    """Everything a parse depended on: the files it read, the environment variables it
    asked for (``None``: unset), and the paths the model named (folders, images, decision
    records: whatever it looked at that is not a file read)."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.env: dict[str, str | None] = {}
        self.named: list[str] = []


class Parser:
    """Parses one workspace (and what it includes or extends) into a ``Builder``."""

    def __init__(self, env: Mapping[str, str], encoding: str | None = None, root: Path | None = None) -> None:
        self.env = AskedEnvironment(env)
        self.encoding = encoding
        self.root = (root or Path.cwd()).resolve()
        """What the model names must stay in (``archmem.model.confine``)."""
        self.b = Builder()
        self.archetypes = Archetypes()
        self.constants: dict[str, str] = {}
        self.fixed: set[str] = set()
        self.stack: list[Ctx] = []
        self.files: list[str] = []
        self.named: list[str] = []
        """Every path the model names (``resolve_local``), read as a file or not."""
        self.active: list[Path] = []
        self.session = Session()
        self.st = Statement("", 0, 0, [])

    # ---- files ------------------------------------------------------------------

    def parse_file(self, path: Path) -> None:
        """A top-level file (the model file, or a workspace it extends)."""
        outer_stack, outer_session, outer_st = self.stack, self.session, self.st
        lines = self.read(path)
        self.stack, self.session = [], Session()
        self.active.append(path.resolve())
        self.run(lines)
        self.active.pop()
        if self.stack:
            ctx = self.stack[-1]
            last = lines[-1] if lines else Statement(str(path), 1, 1, [])
            raise ModelSyntaxError(
                "Unexpected end of DSL content - are one or more closing curly braces missing? "
                f"(the {ctx.describe()} block opened at {Path(ctx.file).name}:{ctx.line} is still open)",
                location=SourceLocation(last.file, last.end_line, 1),
                hint="every { needs a matching } (on a line of its own)",
            )
        if "workspace" not in self.session.seen:
            raise ModelSyntaxError(
                "Unexpected end of DSL content (expected: workspace)",
                location=SourceLocation(str(path), 1, 1),
            )
        self.stack, self.session, self.st = outer_stack, outer_session, outer_st

    def read(self, path: Path) -> list[Statement]:
        """The statements of a file, remembering it was read (and refusing cycles)."""
        path = path.resolve()
        if len(self.active) >= MAX_FILE_DEPTH:
            raise too_deep("included and extended files", MAX_FILE_DEPTH, self.loc(self.st.tokens[0]))
        if path in self.active:
            raise ModelError(
                f"{path.name} includes or extends itself (through {' -> '.join(p.name for p in self.active)})",
                location=self.st.at() if self.st.file else None,
            )
        if not path.is_file():
            raise ModelNotFoundError(f"The file at {path} does not exist", location=self.here())
        text, warnings = read_text(path, self.encoding)
        self.b.warnings.extend(warnings)
        name = str(path)
        if name not in self.files:
            self.files.append(name)
        return statements(text, name)

    def run_file(self, path: Path) -> None:
        """Parse an included file in the current context."""
        lines = self.read(path)
        self.active.append(path.resolve())
        saved = self.st
        try:
            self.run(lines)
        finally:
            self.active.pop()
            self.st = saved

    # ---- the statement loop -----------------------------------------------------

    def run(self, lines: list[Statement]) -> None:
        for st in lines:
            self.st = st
            tokens = st.tokens
            if st.dollar:
                tokens = [
                    Token(substitute(t.text, self.constants, self.env), t.column, t.quoted) if "${" in t.text else t
                    for t in tokens
                ]
            ident: Token | None = None
            if len(tokens) >= 3 and tokens[1].text == "=" and not tokens[1].quoted:
                ident = tokens[0]
                self.validate_identifier(ident)
                tokens = tokens[2:]
            ctx = self.stack[-1] if self.stack else None
            if tokens[0].text == "}" and not tokens[0].quoted:
                self.end(tokens)
                continue
            if tokens[0].text == "{" and not tokens[0].quoted and (ctx is None or ctx.kind not in (SKIP, VIEW)):
                raise self.unexpected(ctx, tokens)
            if ctx is not None and ctx.kind in (PROPS, PERSP):
                if tokens[0].is_("!include"):
                    directives.include(self, tokens)
                elif ctx.kind == PROPS:
                    blocks.property_(self, ctx, tokens)
                else:
                    blocks.perspective(self, ctx, tokens)
                continue
            if directives.handle_global(self, ctx, tokens):
                continue
            HANDLERS[ctx.kind if ctx is not None else ROOT](self, ctx, tokens, ident)  # type: ignore[arg-type]  # ROOT takes None

    def end(self, tokens: list[Token]) -> None:
        if not self.stack:
            raise self.error("Unexpected end of context (a } without a matching {)", tokens[0])
        ctx = self.stack.pop()
        if ctx.defines is not None and ctx.file == self.st.file:
            ctx.defines.end_line = self.st.line
        if len(tokens) > 1:
            self.warn(f"tokens after }} are ignored: {' '.join(t.text for t in tokens[1:])}")

    def push(self, ctx: Ctx) -> None:
        if len(self.stack) >= MAX_NESTING:
            raise too_deep("blocks", MAX_NESTING, self.loc(self.st.tokens[0]))
        ctx.file, ctx.line = self.st.file, self.st.line
        self.stack.append(ctx)

    # ---- helpers ----------------------------------------------------------------

    def here(self, token: Token | None = None) -> SourceLocation | None:
        return self.st.at(token.column if token else None) if self.st.file else None

    def error(
        self,
        message: str,
        token: Token | None = None,
        expected: list[str] | tuple[str, ...] = (),
        hint: str | None = None,
    ) -> ModelSyntaxError:
        return ModelSyntaxError(
            message, location=self.st.at(token.column if token else None), expected=expected, hint=hint
        )

    def unexpected(self, ctx: Ctx | None, tokens: list[Token]) -> ModelSyntaxError:
        if ctx is None:
            expected = [] if "workspace" in self.session.seen else ["workspace"]
        elif ctx.kind == ELEMENT and ctx.entity is not None:
            expected = PERMITTED.get(ctx.entity.kind, deployment.permitted(ctx))
        elif ctx.kind in (ENV, NOREL):
            expected = deployment.permitted(ctx)
        elif ctx.kind == VIEWS:
            expected = views.PERMITTED
        else:
            expected = PERMITTED.get(ctx.kind, [])
        hint = PLACEMENT.get(tokens[0].text.lower()) if not tokens[0].quoted else None
        return self.error("Unexpected tokens", tokens[0], expected, hint=hint)

    def warn(self, message: str) -> None:
        self.b.warnings.append(f"{self.st.file}:{self.st.line}: {message}")

    def loc(self, token: Token | None = None) -> SourceLocation:
        return self.st.at(token.column if token else None)

    @staticmethod
    def opens(tokens: list[Token]) -> tuple[list[Token], bool]:
        if tokens[-1].text == "{" and not tokens[-1].quoted:
            return tokens[:-1], True
        return tokens, False

    def block(self, tokens: list[Token], *, lenient: bool = False) -> None:
        """A ``keyword {`` statement must be exactly that. ``lenient``: for the keywords
        Structurizr's parser opens on the first token alone (``properties``,
        ``perspectives``, ``model``, ``views``, ``configuration``, ``styles``, …), tokens
        around the ``{`` are ignored with a warning at file:line, as it ignores them
        (``properties {    "" "Existing"``); a keyword without any ``{`` is still an error."""
        args, opens = self.opens(tokens)
        if len(args) == 1 and opens:
            return
        brace = next((t for t in tokens[1:] if t.text == "{" and not t.quoted), None)
        if lenient and brace is not None:
            ignored = " ".join(f'"{t.text}"' if t.quoted else t.text for t in tokens[1:] if t is not brace)
            self.warn(f"tokens around `{tokens[0].text} {{` are ignored, as Structurizr ignores them: {ignored}")
            return
        if len(args) > 1:
            raise self.error(f"Too many tokens, expected: {tokens[0].text} {{", args[1])
        raise self.error(f"Expected: {tokens[0].text} {{", tokens[-1])

    def validate_identifier(self, token: Token) -> None:
        if token.text.startswith("-"):
            raise self.error("Identifiers cannot start with a - character", token)
        if not _IDENTIFIER.fullmatch(token.text):
            raise self.error("Identifiers can only contain the following characters: a-zA-Z0-9_-", token)

    def arity(self, tokens: list[Token], least: int, most: int, grammar: str) -> None:
        if len(tokens) > most:
            raise self.error(f"Too many tokens, expected: {grammar}", tokens[most])
        if len(tokens) < least:
            raise self.error(f"Expected: {grammar}", tokens[-1])

    def prefixes(self, ctx: Ctx | None) -> tuple[list[str], str | None]:
        """Keys to look identifiers up relative to (hierarchical scope), and a fallback."""
        if ctx is None:
            return [], None
        if ctx.kind == ELEMENTS and ctx.outer is not None:
            ctx = ctx.outer
        if ctx.kind == ELEMENT and ctx.entity is not None:
            keys: list[str] = []
            node: Entity | None = ctx.entity
            while node is not None:
                keys.append(node.key)
                node = node.parent
            env = ctx.entity.env
            return keys, env.key if env is not None else None
        if ctx.kind in (ENV, NOREL) and ctx.env is not None:
            return [ctx.env.key], None
        return [], None

    def find(self, ctx: Ctx | None, token: Token, kinds: frozenset[str] | set[str] | None = None) -> Entity | None:
        return self.find_text(ctx, token.text, kinds)

    def find_text(self, ctx: Ctx | None, text: str, kinds: frozenset[str] | set[str] | None = None) -> Entity | None:
        """An entity by identifier, looked up relative to the block ``ctx``."""
        keys, fallback = self.prefixes(ctx)
        return self.b.find(text, keys, kinds, fallback)

    # ---- elements ---------------------------------------------------------------

    def create(
        self,
        kind: str,
        tokens: list[Token],
        ident: Token | None,
        parent: Entity | None,
        group: Entity | None,
        archetype: Archetype,
        env: Entity | None = None,
    ) -> Entity:
        args, opens = self.opens(tokens)
        grammar, fields = GRAMMARS[kind]
        self.arity(args, 2, 2 + len(fields), grammar)
        name = args[1].text
        if not name.strip():
            raise self.error(f"A name must be specified, expected: {grammar}", args[1])
        first = self.st.tokens[0]
        entity = Entity(
            kind,
            name,
            parent=parent,
            env=env,
            file=self.st.file,
            line=self.st.line,
            column=first.column,
            end_line=self.st.end_line,
        )
        archetype.apply(entity)
        for name_, token in zip(fields, args[2:], strict=False):
            if name_ == "tags":
                add_tags(entity.tags, split_tags(token.text))
            elif name_ == "instances":
                entity.instances = token.text
            else:
                setattr(entity, name_, token.text)
        if group is not None:
            entity.group = group_path(group)
        self.b.add(entity, ident.text if ident else None, self.loc(ident or args[1]))
        if group is not None:
            group.members.append(entity)
        if opens:
            self.push(Ctx(ELEMENT, entity=entity, defines=entity, env=env))
        return entity

    def group(self, ctx: Ctx, tokens: list[Token], ident: Token | None, anchor: Entity | None) -> Entity:
        """``group <name> {`` in a model, software system, container or deployment block."""
        args, opens = self.opens(tokens)
        if len(args) > 2:
            raise self.error("Too many tokens, expected: group <name> {", args[2])
        if len(args) < 2 or not opens:
            raise self.error("Expected: group <name> {", tokens[-1])
        outer = ctx.group
        group = Entity("group", args[1].text, parent=anchor, outer=outer, file=self.st.file, line=self.st.line)
        self.b.add(group, ident.text if ident else None, self.loc(ident or args[1]))
        if outer is not None:
            outer.members.append(group)
        return group

    # ---- relationships ----------------------------------------------------------

    def relationship_statement(self, ctx: Ctx, tokens: list[Token], ident: Token | None) -> bool:
        """Handle ``a -> b …`` or ``-> b …`` if that is what the statement is."""
        first = tokens[0]
        if len(tokens) > 2 and not tokens[1].quoted and self.arrow(tokens[1]):
            self.relationship(ctx, tokens, ident, implicit=False)
            return True
        if ctx.kind in (ELEMENT, ELEMENTS) and not first.quoted and self.arrow(first):
            self.relationship(ctx, tokens, ident, implicit=True)
            return True
        return False

    def arrow(self, token: Token) -> bool:
        """Is the token ``->`` or ``--archetype->``? (An unknown archetype is an error.)"""
        if token.text == RELATIONSHIP or self.archetypes.is_relationship(token.text):
            return True
        if token.text.startswith("--") and token.text.endswith("->") and len(token.text) > 4:
            raise self.error(f'The relationship archetype "{token.text[2:-2]}" does not exist', token)
        return False

    def relationship(self, ctx: Ctx, tokens: list[Token], ident: Token | None, *, implicit: bool) -> list[Rel]:
        """``a -> b [description] [technology] [tags] [{]`` or, inside an element, ``-> b …``."""
        args, opens = self.opens(tokens)
        grammar = (
            "-> <identifier> [description] [technology] [tags]"
            if implicit
            else "<identifier> -> <identifier> [description] [technology] [tags]"
        )
        arrow = args[0] if implicit else args[1]
        rest = args[1:] if implicit else args[2:]
        if len(rest) > 4:
            raise self.error(f"Too many tokens, expected: {grammar}", rest[4])
        if not rest:
            raise self.error(f"Expected: {grammar}", arrow)
        archetype = self.archetypes.get(RELATIONSHIP, arrow.text)
        if implicit:
            if ctx.kind == ELEMENTS:
                sources = list(ctx.items)
            elif ctx.entity is not None:
                sources = [ctx.entity]
            else:
                raise self.unexpected(ctx, tokens)
        else:
            sources = self.endpoints(ctx, args[0], "source")
        destinations = self.endpoints(ctx, rest[0], "destination")
        return self.connect(ctx, sources, destinations, rest[1:], archetype, ident, opens)

    def endpoints(self, ctx: Ctx, token: Token, role: str) -> list[Entity]:
        if token.text.lower() == "this" and not token.quoted:
            if ctx.kind == ELEMENTS:
                return list(ctx.items)
            if ctx.kind == ELEMENT and ctx.entity is not None:
                return [ctx.entity]
        found = self.find(ctx, token, RELATABLE)
        if found is None:
            candidates = closest(token.text, [e.id for e in self.b.by_key.values() if e.kind in RELATABLE])
            hint = f"did you mean {', '.join(candidates)}?" if candidates else None
            if ctx.kind in (ENV, NOREL) and self.b.hierarchical:
                hint = (hint + " " if hint else "") + "(with hierarchical identifiers, write the full path)"
            raise self.error(f'The {role} element "{token.text}" does not exist', token, hint=hint)
        return [found]

    def connect(
        self,
        ctx: Ctx,
        sources: list[Entity],
        destinations: list[Entity],
        rest: list[Token],
        archetype: Archetype,
        ident: Token | None,
        opens: bool,
    ) -> list[Rel]:
        description = rest[0].text if rest else archetype.description
        technology = rest[1].text if len(rest) > 1 else archetype.technology
        tags = [*archetype.tags, *split_tags(rest[2].text)] if len(rest) > 2 else archetype.tags
        st = self.st
        column = st.tokens[0].column
        rels: list[Rel] = []
        for source in sources:
            for destination in destinations:
                if not may_relate(source, destination):
                    raise self.error(
                        f'A relationship between "{source.canonical}" and "{destination.canonical}" is not permitted',
                        st.tokens[0],
                    )
                rel = self.b.relate(source, destination, description, st.file, st.line, column)
                rel.end_line = st.end_line
                rel.technology = technology
                if tags:
                    add_tags(rel.tags, tags)
                if archetype.properties:
                    rel.properties.update(archetype.properties)
                if archetype.perspectives:
                    rel.perspectives.update(archetype.perspectives)
                rels.append(rel)
        if ident is not None and len(rels) == 1:
            self.b.register_relationship(rels[0], ident.text, self.loc(ident))
        if opens:
            self.push(Ctx(RELS, items=rels, defines=rels[0] if len(rels) == 1 else None))
        return rels


def parse_dsl(
    path: Path,
    *,
    env: Mapping[str, str] | None = None,
    encoding: str | None = None,
    root: Path | None = None,
    inputs: ParseInputs | None = None,
) -> ArchitectureModel:
    """Parse a Structurizr DSL workspace file into an ``ArchitectureModel``.

    ``env`` resolves ``${NAME}`` after ``!const``/``!var`` (default: ``os.environ``);
    ``encoding`` forces a character encoding (default: UTF-8, falling back to
    ISO-8859-1 with a warning); every file or folder the model names must stay inside
    ``root``, the repository (default, and for a model outside it: the model's folder).
    Raises ``ModelError`` (or a subclass) for anything wrong. ``inputs``, when given, is
    filled with what the parse depended on (``archmem.model.dsl_cache`` keys on it).
    """
    path = Path(path)
    if not path.is_file():
        raise ModelNotFoundError(f"model file not found: {path}")
    parser = Parser(os.environ if env is None else env, encoding, boundary(path, root))
    root = path.resolve()
    try:
        with paused_gc():
            parser.parse_file(root)
            model = parser.b.to_model(source=str(root), files=parser.files)
            if inputs is not None:
                inputs.files = list(parser.files)
                inputs.env = {name: parser.env.get(name) for name in sorted(parser.env.asked)}
                inputs.named = list(parser.named)
            return model
    except ArchmemError:
        raise
    except RecursionError:
        raise ModelError("the model nests too deeply to parse", location=parser.here()) from None
    except Exception as exc:  # a parser bug must still reach users as an ArchmemError with a place
        raise ModelError(
            f"internal error of the DSL parser ({type(exc).__name__}: {exc}); please report it",
            location=parser.here(),
        ) from exc


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building a model.

    Parsing allocates hundreds of thousands of small objects that all stay alive, so
    the collector's repeated full passes over them find nothing to free and took about
    40% of the time on a 5,000-element workspace (bench/parse_speed.py).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
