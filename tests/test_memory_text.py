"""Search tokens, FTS5 queries, lexical similarity and backtick paths (archmem.memory.text)."""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.memory.text import (
    FACT_CHANGE_CAP,
    LEXICAL_DUPLICATE,
    LEXICAL_SIMILAR,
    MAX_QUERY_TERMS,
    VECTOR_DUPLICATE,
    VECTOR_SIMILAR,
    backtick_anchors,
    backtick_paths,
    classify_similarity,
    fts5_query,
    query_tokens,
    search_text,
    search_tokens,
    token_set,
    token_set_similarity,
)

from .conftest import ADR, MODEL, write

FAST = settings(max_examples=150, deadline=None)


# ---- search tokens ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("idArgumentResolvers", ["idargumentresolvers", "id", "argument", "resolvers"]),
        ("src/authz/check.go", ["srcauthzcheckgo", "src", "authz", "checkgo", "check", "go"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("getHTTPResponseCode", ["gethttpresponsecode", "get", "http", "response", "code"]),
        ("URLs IDs", ["urls", "ids"]),
        ("utf8Decoder", ["utf8decoder", "utf8", "decoder", "utf", "8"]),
        ("8KB", ["8kb", "8", "kb"]),
        ("snake_case_name", ["snakecasename", "snake", "case", "name"]),
        ("kebab-case", ["kebabcase", "kebab", "case"]),
        ("archmem.paths", ["archmempaths", "archmem", "paths"]),
        ("foo-bar.py", ["foobarpy", "foobar", "foo", "bar", "py"]),
        ("x.a_b", ["xab", "x", "ab", "a", "b"]),
        ("Café 中文API", ["café", "中文api", "中文", "api"]),
        ("__init__", ["init"]),
        ("The gateway, again.", ["the", "gateway", "again"]),
        ('NEAR(a* AND "b")', ["near", "a", "and", "b"]),
        ("", []),
        ("!!! ... ---", []),
    ],
)
def test_search_tokens_split_and_keep_whole(text: str, expected: list[str]) -> None:
    assert search_tokens(text) == expected


def test_search_tokens_keep_term_frequency_but_not_inside_one_word() -> None:
    # "go" twice in the text counts twice; "go.go" is one word and counts its parts once
    assert search_tokens("go go") == ["go", "go"]
    assert search_tokens("go.go") == ["gogo", "go"]


def test_search_tokens_are_nfkc_normalized_and_deterministic() -> None:
    decomposed = "Cafe\u0301 ﬁle"
    assert search_tokens(decomposed) == ["café", "file"]
    assert search_tokens(decomposed) == search_tokens(decomposed)


def test_search_text_joins_every_field_and_skips_empty_ones() -> None:
    assert search_text("Header limits", "", None, "ApiGateway") == "header limits apigateway api gateway"


@given(st.text(max_size=200))
@FAST
def test_search_tokens_never_lose_an_identifier(text: str) -> None:
    normalized = unicodedata.normalize("NFKC", text)
    tokens = set(search_tokens(text))
    for word in re.findall(r"(?<!\w)[A-Za-z_][A-Za-z0-9_]*(?!\w)", normalized):
        whole = word.replace("_", "").lower()
        if whole:
            assert whole in tokens, (word, tokens)
        for part in filter(None, word.lower().split("_")):
            assert part in tokens, (word, part, tokens)


@given(st.text(max_size=200))
@FAST
def test_every_token_is_one_fts5_term(text: str) -> None:
    for token in search_tokens(text):
        assert re.fullmatch(r"[^\W_]+", token), token


WORDS = st.text(st.sampled_from("aAbZzé_-./:1İ'ß ") , max_size=30) | st.text(max_size=30)


@given(st.lists(WORDS, max_size=8).map(" ".join))
@FAST
def test_plain_words_are_split_as_every_word_is(text: str) -> None:
    """Plain words (ASCII letters, lower or capitalized) skip the splitting: the same
    tokens come out as when every word is split level by level."""
    from archmem.memory.text import _CHUNK, _chunk_tokens, _terms

    chunks = _CHUNK.findall(unicodedata.normalize("NFKC", text))
    assert _terms(text) == [term for chunk in chunks for term in _chunk_tokens.__wrapped__(chunk)]


def _level_by_level(chunk: str) -> tuple[tuple[str, bool], ...]:
    """``_chunk_tokens`` as first written: every piece goes down every level, split or not."""
    from archmem.memory.text import _LETTER_DIGIT, _LEVELS, _PART_LEVEL, _TERM, _camel_parts

    found: dict[str, bool] = {}

    def add(token: str, is_part: bool) -> None:
        found[token] = found.get(token, True) and is_part

    def emit(piece: str, level: int, is_part: bool) -> None:
        add("".join(_LETTER_DIGIT.findall(piece)).lower(), is_part)
        if level < len(_LEVELS):
            parts = [p for p in _LEVELS[level].split(piece) if p]
            split_here = len(parts) > 1
            for part in parts if split_here else [piece]:
                emit(part, level + 1, is_part or (split_here and level >= _PART_LEVEL))
            return
        words = _camel_parts(piece)
        cased = is_part or sum(1 for word in words if not word.isdigit()) > 1
        for word in words:
            add(word.lower(), cased)
        for word in words:
            runs = _LETTER_DIGIT.findall(word)
            if len(runs) > 1:
                for run in runs:
                    add(run.lower(), cased)

    emit(chunk, 0, False)
    return tuple((token, is_part) for token, is_part in found.items() if _TERM.fullmatch(token))


@given(st.lists(WORDS | st.text(st.sampled_from("aB9²_-./:#@'İß中"), max_size=12), max_size=8).map(" ".join))
@FAST
def test_a_run_of_letters_and_digits_skips_the_levels(text: str) -> None:
    """A piece that is one run of letters and digits goes straight to its case and digit
    parts (no level can split it): the same tokens as going down every level."""
    from archmem.memory.text import _CHUNK, _chunk_tokens

    for chunk in _CHUNK.findall(unicodedata.normalize("NFKC", text)):
        assert _chunk_tokens.__wrapped__(chunk) == _level_by_level(chunk), chunk


def test_a_separator_at_a_pieces_edge_is_no_term() -> None:
    # found by the property above: "_" came out of "0/_0"
    assert search_tokens("0/_0") == ["00", "0"]
    assert search_tokens("a/_b") == ["ab", "a", "b"]


# ---- queries ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("how do I speed up the checkout", ["speed", "up", "checkout"]),
        ("scale down the workers", ["scale", "down", "workers"]),
        ("why does it not retry before the deploy?", ["not", "retry", "before", "deploy"]),
        ("check.go check.go CHECK.GO", ["checkgo", "check", "go"]),
        ("user's v2 limit", ["users", "user", "v2", "2", "limit"]),
        ("the a of", []),
    ],
)
def test_query_tokens(text: str, expected: list[str]) -> None:
    assert query_tokens(text) == expected


@pytest.mark.parametrize(
    "text",
    ['"', '""', "*", "a*", "NEAR(a b)", "x AND y", "OR", "NOT", "(", ")", "-x", "^x", "col:val",
     "{a b}: c", "'", "\\", "\x00", "é 中文 ﬁ", "+", "", "   ", "a" * 5000, "\ufffd\u0301"],
)  # fmt: skip
def test_fts5_query_never_breaks_fts5(fts: sqlite3.Connection, text: str) -> None:
    query = fts5_query(text)
    if query:
        fts.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()


def test_fts5_query_is_empty_when_nothing_is_left() -> None:
    assert fts5_query("") == ""
    assert fts5_query("how do I") == ""
    assert fts5_query('"*" ( ) -') == ""


def test_fts5_query_quotes_operators_as_words() -> None:
    assert fts5_query('NEAR ordering AND "payments"*') == '"near" OR "ordering" OR "payments"'


def test_fts5_query_keeps_at_most_max_terms() -> None:
    text = " ".join(f"word{i}x" for i in range(MAX_QUERY_TERMS * 3))
    assert fts5_query(text).count(" OR ") == MAX_QUERY_TERMS - 1


@given(
    st.text(max_size=120)
    | st.lists(st.sampled_from(['"', "*", "NEAR", "AND", "OR", "NOT", "(", ")", "-", "^", ":", "é", "x", " "])).map(
        "".join
    )
)
@FAST
def test_fts5_query_never_raises_in_sqlite(text: str) -> None:
    query = fts5_query(text)
    if query:
        with _fts_connection() as connection:
            connection.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()


@pytest.mark.parametrize(
    "query",
    ["check.go", "authz", "src/authz/check.go", "idArgumentResolvers", "argument resolvers", "id_argument_resolvers"],
)
def test_identifier_and_path_queries_hit_the_memory(fts: sqlite3.Connection, query: str) -> None:
    fts.execute(
        "INSERT INTO t(rowid, x) VALUES (10, ?), (11, ?)",
        (
            search_text("Resolver order", "src/authz/check.go registers idArgumentResolvers first"),
            search_text("Unrelated", "the billing worker replays invoices"),
        ),
    )
    rows = fts.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (fts5_query(query),)).fetchall()
    assert rows and rows[0][0] == 10


def _fts_connection() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    connection.execute("INSERT INTO t(x) VALUES ('hello world near and or')")
    return connection


@pytest.fixture
def fts() -> sqlite3.Connection:
    return _fts_connection()


# ---- similarity -------------------------------------------------------------------

DUPLICATES = [
    ("The gateway strips headers over 8KB.", "the Gateway strips headers over 8 KB"),
    ("Use `idArgumentResolvers` to register resolvers.", "use id_argument_resolvers to register resolvers"),
    ("Retries are disabled in the payment client.", "In the payment client, retries are disabled."),
    ("The cache key includes the tenant id.", "Cache keys include tenant IDs"),
    ("The worker doesn't retry on HTTP 503.", "the worker does not retry on http 503"),
    ("Session tokens expire after 15 minutes.", "The session token expires after 15 min"),
    ("Run `make migrate` before `make test`.", "run make migrate before make test"),
    ("Config is loaded from src/config/loader.py", "config is loaded from `src/config/loader.py`."),
    (
        "When the billing worker restarts it replays every queued invoice event from the outbox table.",
        "When the billing worker restarts, it replays every queued invoice event from the outbox table again.",
    ),
    ("- Never call the ledger API from a request handler", "never call the Ledger API from request handlers."),
    (
        "The orders service's connection pool holds 20 connections",
        "orders service connection pool holds 20 connections",
    ),
    ("Upload limit is 8,192 bytes", "upload limit is 8192 bytes"),
    ("Café menu sync runs at 02:00 UTC", "cafe menu sync runs at 2:00 utc"),
    ("Timeout is 1.5s", "timeout is 1.50 seconds"),
    (
        "ApiGateway caches JWKS keys for one hour and refreshes them lazily",
        "The ApiGateway caches the JWKS keys for one hour and refreshes them lazily",
    ),
]
SIMILAR = [
    ("The gateway strips headers over 8KB.", "The gateway strips headers over 16KB."),
    ("The payment client retries on 503.", "The payment client never retries on 503."),
    ("ApiGateway strips headers over 8KB.", "AuthService strips headers over 8KB."),
    ("Session tokens expire after 15 minutes.", "Refresh tokens expire after 15 minutes."),
    ("Session tokens expire after 15 minutes.", "Session tokens expire after 15 seconds."),
    (
        "Increase the connection pool size of the orders database to 50",
        "Decrease the connection pool size of the orders database to 50",
    ),
    ("Run migrations before deploying the API", "Run migrations after deploying the API"),
    ("Uploads larger than 10MB are rejected", "Uploads larger than 10GB are rejected"),
    ("The retry policy lives in src/payments/retry.py", "The retry policy lives in src/orders/retry.py"),
    ("The export job runs nightly", "The export job runs nightly and locks the reports table for ten minutes"),
    ("archmem requires Python 3.11", "archmem requires Python 3.12"),
    ("Scale up the checkout workers during sales", "Scale down the checkout workers during sales"),
    ("The gateway strips custom headers", "The gateway strips custom headers and cookies"),
]
# long texts where a single changed number or negation would otherwise pass as a restatement
LONG = (
    "When the billing worker restarts it replays queued invoice events from the outbox table, "
    "oldest first, skipping events older than {n} hours and logging each replayed invoice id"
)
CAPPED = [
    (LONG.format(n=24), LONG.format(n=48)),
    (LONG.format(n=24), LONG.format(n=24).replace("skipping", "never skipping")),
    (LONG.format(n=24), LONG.format(n=24).replace("hours", "minutes")),
]
DIFFERENT = [
    ("The gateway strips headers over 8KB.", "Use ruff for formatting, not black."),
    ("The gateway strips headers over 8KB.", "The gateway logs every request to stdout."),
    ("Payment retries are disabled.", "The checkout page caches prices for 5 minutes."),
    ("OrderService must not call BillingService synchronously.", "OrderService stores orders in PostgreSQL."),
    ("Never run the integration tests against production.", "The staging database is reset every Monday."),
    (
        "Tenant ids are UUIDv7 so they sort by creation time.",
        "Feature flags are read once at start-up; restart the pod.",
    ),
    ("src/authz/check.go evaluates policies in order", "The frontend bundles are built with esbuild."),
    ("Use the outbox pattern for events", "Use the inbox pattern for commands from partners"),
    ("", "The gateway strips headers over 8KB."),
    ("Session tokens expire after 15 minutes.", "Refresh tokens are rotated on every use and stored hashed."),
]


@pytest.mark.parametrize(("a", "b"), DUPLICATES)
def test_restatements_are_duplicates(a: str, b: str) -> None:
    score = token_set_similarity(a, b)
    assert classify_similarity(score, lexical=True) == "duplicate", score


@pytest.mark.parametrize(("a", "b"), SIMILAR + CAPPED)
def test_near_but_different_facts_are_similar(a: str, b: str) -> None:
    score = token_set_similarity(a, b)
    assert classify_similarity(score, lexical=True) == "similar", score


@pytest.mark.parametrize(("a", "b"), CAPPED)
def test_a_changed_number_unit_or_negation_caps_a_long_match(a: str, b: str) -> None:
    assert token_set_similarity(a, b) == FACT_CHANGE_CAP
    assert LEXICAL_SIMILAR <= FACT_CHANGE_CAP < LEXICAL_DUPLICATE


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_unrelated_memories_are_different(a: str, b: str) -> None:
    score = token_set_similarity(a, b)
    assert classify_similarity(score, lexical=True) == "different", score


def test_the_calibration_table_leaves_a_gap_around_each_threshold() -> None:
    duplicates = [token_set_similarity(a, b) for a, b in DUPLICATES]
    similar = [token_set_similarity(a, b) for a, b in SIMILAR + CAPPED]
    different = [token_set_similarity(a, b) for a, b in DIFFERENT]
    assert len(DUPLICATES) + len(SIMILAR) + len(CAPPED) + len(DIFFERENT) >= 30
    assert min(duplicates) - LEXICAL_DUPLICATE >= 0.04
    assert LEXICAL_DUPLICATE - max(similar) >= 0.01
    assert min(similar) - LEXICAL_SIMILAR >= 0.01
    assert LEXICAL_SIMILAR - max(different) >= 0.1


def test_word_order_is_invisible_to_a_bag_of_words() -> None:
    # a known limit, kept visible: vectors (or the writer's `similar_to` check) must catch it
    assert token_set_similarity("migrate orders from MySQL to Postgres", "migrate orders from Postgres to MySQL") == 1.0


def test_similarity_is_symmetric_and_bounded() -> None:
    for a, b in DUPLICATES + SIMILAR + DIFFERENT:
        assert token_set_similarity(a, b) == token_set_similarity(b, a)
        assert 0.0 <= token_set_similarity(a, b) <= 1.0


def test_empty_texts() -> None:
    assert token_set_similarity("", "") == 1.0
    assert token_set_similarity("the", "THE ") == 1.0
    assert token_set_similarity("the", "a") == 0.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Gateway strips headers over 8 KB!", {"gateway", "strip", "header", "over", "8", "kb"}),
        ("doesn't retry, can't wait, won't scale, isn’t", {"not", "retry", "wait", "scale"}),
        ("retries caches classes status", {"retry", "cache", "class", "status"}),
        ("idArgumentResolvers", {"id", "argument", "resolver"}),
        ("007 and 7", {"7"}),
    ],
)
def test_token_set(text: str, expected: set[str]) -> None:
    assert token_set(text) == expected


@pytest.mark.parametrize(
    ("score", "lexical", "expected"),
    [
        (0.95, False, "duplicate"),
        (VECTOR_DUPLICATE, False, "similar"),
        (VECTOR_SIMILAR, False, "similar"),
        (0.81, False, "different"),
        (-0.2, False, "different"),
        (1.0, True, "duplicate"),
        (LEXICAL_DUPLICATE, True, "similar"),
        (LEXICAL_SIMILAR, True, "similar"),
        (LEXICAL_SIMILAR - 0.01, True, "different"),
        (float("nan"), True, "different"),
    ],
)
def test_classify_similarity(score: float, lexical: bool, expected: str) -> None:
    assert classify_similarity(score, lexical=lexical) == expected


def test_design_numbers() -> None:
    assert (VECTOR_DUPLICATE, VECTOR_SIMILAR) == (0.94, 0.82)


# ---- Markdown code and backtick paths ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see `src/a.py` and `lib/b.go`", ["src/a.py", "lib/b.go"]),
        ("`a.py` then `a.py` again", ["a.py"]),
        ("`src/a.py#Foo` `./lib/b.go:12` `tests/t.py::test_y` `README.md#L10-L20`",
         ["src/a.py", "lib/b.go", "tests/t.py", "README.md"]),
        ("`Makefile` `.env` `config.toml` `src\\win\\path.cs`", ["Makefile", ".env", "config.toml", "src/win/path.cs"]),
        ("`https://x.com/a.py` `make test` `--flag=x.py` `$HOME/x.py` `~/.bashrc`", []),
        ("`/etc/hosts` `../up.py` `src/**/*.py` `e.g.` `1.5` `0.5s` `v1.2` `a@b.com` `foo()`", []),
        ("`make` `git` `README` `x` ` `", []),
        ("```\n`inside/fence.py`\n```\n``double/tick.py`` `after/fence.py`", ["after/fence.py"]),
        ("`unclosed/path.py", []),
    ],
)  # fmt: skip
def test_backtick_paths(text: str, expected: list[str]) -> None:
    assert backtick_paths(text) == expected


def test_backtick_anchors_keep_symbols_and_drop_lines() -> None:
    text = "`src/a.py#Foo` `src/a.py` `lib/b.go:12:3` `tests/t.py::test_y` `x.rs#L3`"
    assert backtick_anchors(text) == ["src/a.py#Foo", "src/a.py", "lib/b.go", "tests/t.py#test_y", "x.rs"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("`docs/My Notes/ü.md` and `docs/naïve.md`", ["docs/My Notes/ü.md", "docs/naïve.md"]),
        ("`src/日本 語/x.py#Foo` `Read Me.txt`", ["src/日本 語/x.py", "Read Me.txt"]),
        ("`make test` `docs/ notes.md` `docs/a \tb.md` `a b`", []),
    ],
)
def test_backtick_paths_with_spaces_and_letters_of_any_script(text: str, expected: list[str]) -> None:
    assert backtick_paths(text) == expected


def test_a_backticked_path_with_a_space_and_an_umlaut_becomes_an_anchor(tmp_path: Path) -> None:
    from archmem.workspace import Workspace

    write(tmp_path, {"archmem.yaml": MODEL, "docs/adr/0017-use-the-body.md": ADR, "docs/My Notes/ü.md": "notes\n"})
    with Workspace.open(tmp_path, env={}) as ws:
        result = ws.remember("The runbook is `docs/My Notes/ü.md`, not `docs/Other Notes/ö.md`.", kind="note")
    assert result.anchors == ["docs/My Notes/ü.md"]


def test_a_short_text_split_once_is_split_the_same_again() -> None:
    """Short texts (element names) are split once a process; each caller gets its own lists."""
    from archmem.memory.text import _split, split_tokens

    first = split_tokens("ApiGateway v2")
    first[0].append("mutated")
    assert split_tokens("ApiGateway v2") == _split("ApiGateway v2") == (["apigateway", "v2", "v", "2"], ["api", "gateway"])
