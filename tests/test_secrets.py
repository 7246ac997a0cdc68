"""Credential detection (archmem.memory.secrets).

Every fake credential here is assembled at run time from a prefix and seeded random
characters, so this file holds nothing a secret scanner should flag.
"""

from __future__ import annotations

import json
import random
import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.errors import InvalidInputError, SecretFoundError
from archmem.memory.secrets import (
    check_fields,
    check_no_secret,
    find_secret,
    find_secrets,
    shannon_entropy,
)

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def rand(n: int, alphabet: str = ALNUM, *, seed: int = 7) -> str:
    """Deterministic random-looking characters: letters and digits mixed, no long runs."""
    rng = random.Random(f"{seed}-{n}-{alphabet}")
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        mixed = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
        if mixed or not (any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)):
            return value


def begin(kind: str) -> str:
    return "-----BEGIN " + (kind + " " if kind else "") + "PRIVATE" + " KEY-----"


PEM_BODY = "\n".join(rand(64, B64, seed=i) for i in range(3))
JWT = "eyJ" + rand(30, seed=1) + ".eyJ" + rand(40, seed=2) + "." + rand(43, seed=3)

DETECTED = [
    # (kind, text, line, column)
    (
        "private key block",
        "the deploy key:\n" + begin("RSA") + "\n" + PEM_BODY + "\n-----END RSA PRIVATE KEY-----",
        2,
        1,
    ),
    ("private key block", "  " + begin("OPENSSH") + "\n" + PEM_BODY, 1, 3),
    ("private key block", "x\ny\n" + begin("EC") + "\r\n" + PEM_BODY, 3, 1),
    ("private key block", begin("") + "\n" + PEM_BODY, 1, 1),
    ("private key block", begin("ENCRYPTED") + "\n" + PEM_BODY, 1, 1),
    ("private key block", "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + PEM_BODY, 1, 1),
    ("private key block", 'key = "' + begin("") + "\\n" + rand(64, B64) + '\\n"', 1, 8),
    (
        "GCP service account key",
        '{\n  "type": "service_account",\n  "project_id": "demo",\n  "private_key": "'
        + begin("")
        + "\\n"
        + rand(64, B64)
        + '\\n"\n}',
        4,
        3,
    ),
    ("AWS access key id", "use key " + "AKIA" + rand(16, UPPER) + " for uploads", 1, 9),
    ("AWS access key id", "temporary: " + "ASIA" + rand(16, UPPER, seed=3), 1, 12),
    ("AWS secret access key", "[default]\naws_secret_access_key = " + rand(40, B64), 2, 25),
    ("AWS secret access key", '"SecretAccessKey": "' + rand(40, B64, seed=9) + '"', 1, 21),
    ("Google API key", "maps: " + "AIza" + rand(35, ALNUM + "_-"), 1, 7),
    ("GitHub token", "push with " + "ghp_" + rand(36), 1, 11),
    ("GitHub token", "gho_" + rand(36, seed=2), 1, 1),
    ("GitHub token", "app token\n\tghs_" + rand(36, seed=3), 2, 2),
    ("GitHub token", "github_" + "pat_" + rand(22, seed=4) + "_" + rand(59, seed=5), 1, 1),
    ("Slack token", "bot: " + "xoxb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24), 1, 6),
    (
        "Slack webhook URL",
        "post to https://hooks.slack.com/services/T" + rand(8, UPPER) + "/B" + rand(10, UPPER) + "/" + rand(24),
        1,
        9,
    ),
    ("OpenAI API key", "OPENAI_API_KEY=" + "sk-" + rand(48), 1, 16),
    ("OpenAI API key", "key sk-" + "proj-" + rand(64, ALNUM + "_-"), 1, 5),
    ("Anthropic API key", "sk-" + "ant-api03-" + rand(93, ALNUM + "_-") + "AA", 1, 1),
    ("Stripe live key", "billing uses " + "sk_" + "live_" + rand(24), 1, 14),
    ("JSON Web Token", "cookie session=" + JWT, 1, 16),
    ("password or token assigned in the text", "DB_PASSWORD=" + rand(20, ALNUM + "!#%"), 1, 13),
    ("password or token assigned in the text", "db:\n  password: '" + rand(16) + "'", 2, 14),
    ("password or token assigned in the text", '{"api_key": "' + rand(32, HEX) + '"}', 1, 14),
    ("password or token assigned in the text", "secret=" + rand(24), 1, 8),
    ("password or token assigned in the text", 'export SERVICE_TOKEN="' + rand(30) + '"', 1, 23),
    ("password or token assigned in the text", "passwd: " + rand(14, ALNUM + "&$!"), 1, 9),
    ("password or token assigned in the text", "GET /report?token=" + rand(28), 1, 19),
    ("bearer token", "curl -H 'Authorization: Bearer " + rand(40, ALNUM + "._-") + "' api/x", 1, 32),
    ("password in a URL", "DATABASE_URL uses postgres://app:" + rand(18) + "@db:5432/app", 1, 34),
]


@pytest.mark.parametrize(
    ("kind", "text", "line", "column"), DETECTED, ids=[f"{i}-{d[0]}" for i, d in enumerate(DETECTED)]
)
def test_each_kind_is_detected_where_it_starts(kind: str, text: str, line: int, column: int) -> None:
    assert find_secret(text) == (found := find_secret(text))
    assert found is not None
    assert (found.kind, found.line, found.column) == (kind, line, column)


BENIGN = [
    "Users can trigger a password reset from the login page; the reset link expires after 1 hour.",
    "The token bucket rate limiter allows 100 requests per second per tenant.",
    "The API key is read from OPENAI_API_KEY at start-up, never from the config file.",
    "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b; see also a94a8fe5.",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed with 503",
    "the header value is aGVsbG8= (base64 of hello)",
    "password: changeme",
    "token: ${GITHUB_TOKEN}",
    "api_key = '<redacted>'",
    "secret=****************",
    "PASSWORD=xxxxxxxxxxxxxxxxxxxx",
    "token: your-token-here",
    "password = os.environ['DB_PASSWORD']",
    "The loader wants PKCS#8: a file starting with " + begin("") + ", not " + begin("RSA") + ".",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "AWS documents the key id " + "AKIA" + "IOSFODNN7" + "EXAMPLE" + " in its examples.",
    "github_token: ${{ secrets.GITHUB_TOKEN }}",
    "password_min_length: 12\ntoken_ttl_seconds = 3600",
    "secret_key_base = Rails.application.credentials.secret_key_base",
    "const token = await getAccessToken(user2FactorId)",
    'password: "correct horse battery staple"',
    "Use scikit-learn (sk-learn) for the ranking experiments; risk-assessment-framework v2.",
    "| token | string | the session token, 32 bytes |",
    "token: $SLACK_BOT_TOKEN",
    "OPENAI_API_KEY=sk-...",
    "The JWT header starts with eyJ and has three dot-separated parts.",
    "Authorization: Bearer <token>",
    "postgres://app:password@localhost/app and postgres://user:${DB_PASS}@db/app",
    "xoxb-your-bot-token and https://hooks.slack.com/services/XXX/YYY/ZZZ",
    "secret: ghp_" + "x" * 36,
    "api_key=PLACEHOLDER_1234567890abcdef",
    "secretName: api-gateway-tls-2024\ntokenizer: bert-base-uncased-v2",
    "token = refreshToken2 if expired else accessTokenForUser42",
    "token_url: https://auth.corp.io/oauth2/token\npassword_file: /run/secrets/db-pass-2",
]


@pytest.mark.parametrize("text", BENIGN)
def test_benign_text_is_not_a_secret(text: str) -> None:
    assert find_secret(text) is None
    check_no_secret(text)


def test_check_no_secret_raises_with_kind_and_place_but_not_the_value() -> None:
    token = "ghp_" + rand(36)
    with pytest.raises(SecretFoundError) as caught:
        check_no_secret("line one\nthe token is " + token)
    error = caught.value
    assert isinstance(error, InvalidInputError)
    assert (error.secret_kind, error.line, error.column) == ("GitHub token", 2, 14)
    assert token not in str(error) and token[4:] not in str(error.to_dict())


def test_find_secrets_lists_every_place_in_reading_order() -> None:
    text = "a " + "AKIA" + rand(16, UPPER) + "\nb " + "ghp_" + rand(36) + "\nc " + JWT
    assert [(m.kind, m.line, m.column) for m in find_secrets(text)] == [
        ("AWS access key id", 1, 3),
        ("GitHub token", 2, 3),
        ("JSON Web Token", 3, 3),
    ]


def test_a_provider_pattern_wins_over_the_generic_assignment() -> None:
    match = find_secret("OPENAI_API_KEY='sk-" + rand(48) + "'")
    assert match is not None and match.kind == "OpenAI API key"


def test_shannon_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == 2.0


FRAGMENTS = st.sampled_from(
    ["ghp_", "sk-", "sk-ant-", "AKIA", "AIza", "xoxb-1-", "eyJ", ".", "-----BEGIN ", "PRIVATE KEY-----", "\\n", "\n",
     "password", "=", ":", '"', "'", " ", "token", "Bearer ", "://", "@", "a1B2c3D4e5F6g7H8", "_", "-", "/", "+"]
)  # fmt: skip


@given(st.text(max_size=300) | st.lists(FRAGMENTS, max_size=40).map("".join))
@settings(max_examples=200, deadline=None)
def test_find_secret_never_raises(text: str) -> None:
    found = find_secret(text)
    if found is not None:
        assert 1 <= found.line <= text.count("\n") + 1
        assert found.column >= 1


@pytest.mark.parametrize(
    "text",
    ["a_" * 10_000 + "password", "password" * 2_500, ("-----BEGIN " * 2_000), "eyJ" + "a" * 19_000,
     "x=" * 10_000, "token:" + " " * 19_000, "https://" + "a:" * 9_000],
)  # fmt: skip
def test_adversarial_input_is_fast(text: str) -> None:
    started = time.perf_counter()
    find_secrets(text)
    assert time.perf_counter() - started < 1.0


# ---- shapes that are credentials whatever their entropy (issue 17, item 6) ----------

SLACK_LETTERS = "xoxb-" + "123456789012-1234567890123-" + "aBcDeFgHiJkLmNoPqRsTuVwX"
SLACK_USER = "xoxp-" + "-".join(rand(n, string.digits, seed=n) for n in (10, 11, 12)) + "-" + rand(32, HEX)
STRUCTURAL = [
    # (kind, text, where the match is reported): a Slack token whose last part is all
    # letters, a URL password with an empty user, URL passwords that are plain words
    ("Slack token", "bot " + SLACK_LETTERS, SLACK_LETTERS),
    ("Slack token", SLACK_USER, SLACK_USER),
    ("password in a URL", "cache at redis://:" + rand(16) + "@cache:6379", rand(16)),
    ("password in a URL", "prod is postgres://admin:" + "hunter2" + "@db.internal:5432/prod", "hunter2@"),
    ("password in a URL", "mysql://root:" + "s3cr3t" + "@db/app", "s3cr3t"),
    ("password in a URL", "amqp://app:" + "Tr0ub4dor" + "@[::1]:5672/", "Tr0ub4dor"),
    ("password in a URL", "jdbc:postgresql://db/app?user=app&password=" + "hunter2", "hunter2"),
]


@pytest.mark.parametrize(("kind", "text", "where"), STRUCTURAL, ids=[f"{i}-{s[0]}" for i, s in enumerate(STRUCTURAL)])
def test_structural_credentials_are_found_whatever_their_entropy(kind: str, text: str, where: str) -> None:
    found = find_secret(text)
    assert found is not None and (found.kind, found.line, found.column) == (kind, 1, text.index(where) + 1)


URL_PLACEHOLDERS = [
    "postgres://localhost/db",
    "https://user@host/path",
    "http://example.com:8080/health",
    "postgres://app:${PGPASSWORD}@db/app",
    "postgres://user:password@host/db",
    "postgres://USER:PASSWORD@HOST:5432/DB",
    "mongodb+srv://myUser:myPassword@cluster0.mongodb.net/",
    "postgres://app:$DB_PASS@db/app and postgres://app:DB_PASS@db/app",
    "redis://:pass@cache:6379 and redis://:****@cache",
    "postgres://u:{password}@h/d and postgres://u:%(pw)s@h/d and postgres://u:%s@h/d",
    "postgres://user:<password>@host/db",
    "amqp://guest:guest@localhost:5672/ (the broker's default) and postgres://postgres:postgres@localhost/app",
    "postgres://u:pw@h/d",
    "https://api.example.com/login?password=${API_PASSWORD}",
    "ssh://git@github.com:22/org/repo.git",
    "https://example.com:8080/users/a@b.com",
    "xoxb-000000000000-0000000000000-XXXXXXXXXXXXXXXXXXXXXXXX",
    "Slack bot tokens look like xoxb-<workspace>-<bot>-<secret>",
]


@pytest.mark.parametrize("text", URL_PLACEHOLDERS)
def test_url_placeholders_and_urls_without_a_password_pass(text: str) -> None:
    assert find_secret(text) is None


@given(
    st.one_of(
        st.uuids().map(str),
        st.binary(min_size=4, max_size=32).map(bytes.hex),
        st.binary(min_size=20, max_size=20).map(lambda b: "commit " + b.hex()),
        st.binary(min_size=32, max_size=32).map(lambda b: "sha256:" + b.hex()),
        st.from_regex(r"\$\{\{ secrets\.[A-Z][A-Z0-9_]{0,30} \}\}", fullmatch=True),
    )
)
@settings(max_examples=300, deadline=None)
def test_hashes_ids_digests_and_action_secrets_never_fire(text: str) -> None:
    assert find_secret(text) is None
    assert find_secret(f"fixed in {text}; see postgres://app:${{PGPASSWORD}}@db/app") is None


def test_check_fields_names_the_field_and_never_the_value() -> None:
    key = "AKIA" + rand(16, UPPER)
    with pytest.raises(SecretFoundError) as caught:
        check_fields({"content": "fine", "title": None, "author": f"ci/{key}"})
    error = caught.value
    assert (error.field, error.secret_kind, error.line, error.column) == ("author", "AWS access key id", 1, 4)
    assert "the author looks like it holds a secret" in str(error)
    assert key not in str(error) and key not in json.dumps(error.to_dict())
    check_fields({"content": "fine", "count": 3, "none": None})


def every_pattern_run(text: str) -> list:
    """``find_secrets`` with every pattern run over the text (no needle looked for first)."""
    from archmem.memory import secrets

    needles, first = secrets._holds_any, secrets._may_hold_a_secret
    secrets._holds_any = lambda *args: True  # type: ignore[assignment]
    secrets._may_hold_a_secret = lambda *args: True  # type: ignore[assignment]
    try:
        return find_secrets(text)
    finally:
        secrets._holds_any, secrets._may_hold_a_secret = needles, first


NEEDLE_FRAGMENTS = st.sampled_from(
    ["ghp_", "gho_", "github_pat_", "sk-", "sk-ant-", "sk_live_", "rk_live_", "AKIA", "ASIA", "A3T", "AIza", "xoxb-",
     "xoxp-", "xapp-1-", "https://hooks.slack.com/services/", "eyJ", ".", "-----BEGIN ", "RSA ", "PRIVATE KEY-----",
     '"private_key"', '"type": "service_account"', "\\n", "\n", "password", "PassWord", "PASSWD", "paſsword",
     "pwd", "Passphrase", "secret", "SECRET", "ſecret", "token", "TOKEN", "tokEn", "api_key", "apı-key", "APIKEY",
     "access_key", "Access-Key", "auth_key", "AUTHKEY", "credentials", "CREDENTİAL", "aws", "AWS_", "Bearer ",
     "bEARER ", "postgres://", "redis://", "://", "?password=", "&pwd=", "@db", "@", "=", ":=", "=>", ":", '"', "'",
     " ", "\t", "a1B2c3D4e5F6g7H8", "Zq9Xw8Vu7Ts6Rq5P", "4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e", "guest", "_",
     "-", "/", "+", "0123456789"]
)  # fmt: skip


@given(st.lists(NEEDLE_FRAGMENTS, max_size=30).map("".join) | st.text(max_size=200))
@settings(max_examples=600, deadline=None)
def test_looking_for_needles_first_finds_what_every_pattern_finds(text: str) -> None:
    """A pattern is skipped only when the text holds none of the texts every match of it
    holds, so the reader refuses exactly what running every pattern refuses."""
    assert find_secrets(text) == every_pattern_run(text)


@pytest.mark.parametrize("case", [str, str.upper, str.lower, str.swapcase])
def test_the_needles_skip_no_known_credential(case) -> None:
    for _, text, *_ in DETECTED + STRUCTURAL:
        for variant in (text, case(text), text.replace("s", "ſ"), text.replace("i", "ı")):
            assert find_secrets(variant) == every_pattern_run(variant)


def test_a_plain_memory_file_runs_no_pattern() -> None:
    """What every memory file holds (an author, times, elements, prose) names no needle:
    reading it looks for the needles and runs none of the patterns."""
    from archmem.memory import secrets

    text = ("---\nid: m-0123456789\nkind: decision\ntitle: Retry budget\nelements:\n  - c1\nauthor: claude-code/sarah\n"
            "created: 2026-01-01T00:00:00Z\n---\n\nThe gateway authenticates each call and retries twice; see "
            "`services/s1/handler_2.py` and [[Timeouts]].\n")
    folded = text.translate(secrets._FOLD).lower()
    ran = [kind for kind, _, needles, without_case in secrets._PATTERNS
           if secrets._holds_any(needles, without_case, text, folded)]
    assert ran == [] and not secrets._holds_any(secrets._ASSIGNMENT_WORDS, True, text, folded)


def test_every_needle_holds_a_text_the_first_search_looks_for() -> None:
    """The first search looks for fewer, shorter texts than the patterns' needles (``key``
    for ``api_key``): each needle, alone, passes it, so any text holding one does."""
    from archmem.memory import secrets

    needles = [needle for _, _, found, _ in secrets._PATTERNS for needle in found] + list(secrets._ASSIGNMENT_WORDS)
    for needle in needles:
        assert secrets._may_hold_a_secret(needle, needle.lower()), needle
    assert not secrets._may_hold_a_secret("Retry the orders call", "retry the orders call")
