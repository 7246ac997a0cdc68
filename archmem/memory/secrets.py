"""Credential detection: content that looks like a secret is refused before it is stored.

Two kinds of rule. Shapes a provider gives its keys (a PEM private key block, ``AKIA…``,
``ghp_…``, ``xoxb-…``, ``sk-ant-…``, a JWT) match by pattern. A value assigned to a
word such as ``password``, ``secret``, ``token`` or ``api_key`` (``key=value``,
``key: value``, ``"key": "value"``, ``KEY="value"``) counts only when it looks random:
at least 12 characters, letters and digits mixed, Shannon entropy of at least 3 bits
a character, and none of the placeholder forms (``<redacted>``, ``${TOKEN}``,
``changeme``, ``****``, ``your-token-here``, …). So prose about a password reset or a
token bucket, a git SHA, a UUID in a log line or ``api_key = os.environ[...]`` pass.

A few shapes are credentials by their structure alone, whatever their entropy: a
Slack token (``xoxb-<digits>-<digits>-<letters>``, its last part may be all letters)
and the password of a connection URL (``postgres://admin:hunter2@db``,
``redis://:pw@cache``, ``?password=…``). Those pass only as a documentation
placeholder (``password``, ``${PGPASSWORD}``, ``<pw>``, ``****``) or a password equal
to its user (``guest:guest``, a well-known default).

A match names the kind and the 1-based line and column where it starts; the secret
itself is never kept, returned or logged. ``check_fields`` is the one entry point for
every way a memory comes in (remember, import, a memory file as the reader decodes it):
every text field goes through it, named in the error, *after* decoding, so a key spelled
with YAML or JSON escapes (``\u0041KIA…``, ``gh\x70_…``) or folded over two lines is
judged as the text it stands for.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from archmem.errors import SecretFoundError
from archmem.values import Value

MIN_VALUE_LENGTH = 12
"""Shorter assigned values (``hunter2``, ``changeme``) are words, not generated secrets."""
MIN_ENTROPY_BITS = 3.0
"""Bits per character; random base64/hex sits near 4–6, words and identifiers lower."""
MIN_URL_PASSWORD_LENGTH = 4
"""``u:p@h`` and ``a:pw@b`` are sketches in prose; ``hunter2`` in a URL is a password."""

_PLACEHOLDER = re.compile(
    r"redact|changeme|change[_-]me|placeholder|example|sample|dummy|fake|your|here|"
    r"insert|replace|(.)\1{5}|\.\.\.|^<.*>$|\$\{|\$\(|\{\{|%\(|^\$[A-Za-z_]|env\(|getenv|environ",
    re.IGNORECASE,
)
_NAME_WORDS = r"password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|credentials?"
_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9])[\"']?[A-Za-z0-9_.-]{0,40}?(?:" + _NAME_WORDS + r")[A-Za-z0-9_.-]{0,40}[\"']?"
    r"[ \t]*(?::=|=>|[:=])[ \t]*"
    r"(?:\"(?P<dq>[^\"\n]{1,512})\"|'(?P<sq>[^'\n]{1,512})'|(?P<bare>[^\s\"'`,;]{1,512}))",
    re.IGNORECASE,
)
_URL_PLACEHOLDER = re.compile(
    r"^(?i:pass(?:word|wd|phrase)?|pwd?|secret|token|key|x+|\*+|\.+|-+|#+|%s|\{[^{}]*\}|:[a-z_]+)$|"
    r"(?i:pass(?:word|wd)|secret)|^[A-Z][A-Z0-9]*_[A-Z0-9_]*$"
)
"""URL passwords that stand for one: ``password``, ``{password}``, ``:pass``, ``****``,
``%s``, ``mypassword``, ``my-secret``, ``DB_PASS``; anything else in a URL is a password."""
_PEM = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----[ \t]*(?:\r?\n|\\n)"
    r"(?:[A-Za-z-]+:[^\n]{0,200}(?:\r?\n|\\n)){0,6}(?:\r?\n|\\n)?[ \t]*[A-Za-z0-9+/=]{20,}"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str], tuple[str, ...], bool], ...] = (
    # (kind, pattern, texts one of which every match holds, whether matched without case:
    # ``_holds_any``), more specific kinds first. A ``body`` group must look random and
    # the match is reported where it starts; a ``value`` group must look random and is
    # reported itself (the words before it are only context).
    ("private key block", _PEM, ('-----BEGIN',), False),
    ("GCP service account key", re.compile(r"\"private_key\"\s*:\s*\"-----BEGIN[^\"]{40,}"), ('"private_key"',), False),
    ("AWS access key id", re.compile(r"(?<![A-Z0-9])(?P<body>(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16})(?![A-Z0-9])"), ('AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'A3T'), False),
    ("AWS secret access key", re.compile(
        r"(?i:aws|secret)[A-Za-z0-9_.-]{0,40}[\"']?[ \t]*(?::=|=>|[:=])[ \t]*[\"']?(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
    ), ('aws', 'secret'), True),
    ("Google API key", re.compile(r"(?<![\w-])AIza(?P<body>[0-9A-Za-z_-]{35})(?![\w-])"), ('AIza',), False),
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9_])gh[pousr]_(?P<body>[A-Za-z0-9]{36,255})(?![A-Za-z0-9_])"), ('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'), False),
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9_])github_pat_(?P<body>[A-Za-z0-9_]{50,255})"), ('github_pat_',), False),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9-])xox[abeoprs]-(?P<shape>\d{6,}-\d{6,}(?:-\d{6,})?-[0-9A-Za-z]{20,200})(?![0-9A-Za-z])"), ('xox',), False),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9-])xox[abprs]-(?P<body>\d+-[0-9A-Za-z][0-9A-Za-z-]{8,200})"), ('xox',), False),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9-])xapp-(?P<body>\d-[A-Z0-9]+-\d+-[0-9a-f]{20,200})"), ('xapp-',), False),
    ("Slack webhook URL", re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/(?P<body>[A-Za-z0-9_/]{20,200})"), ('https://hooks.slack.com/',), False),
    ("Anthropic API key", re.compile(r"(?<![\w-])sk-ant-(?P<body>[A-Za-z0-9_-]{32,300})"), ('sk-ant-',), False),
    ("OpenAI API key", re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?(?P<body>[A-Za-z0-9_-]{20,300})"), ('sk-',), False),
    ("Stripe live key", re.compile(r"(?<![\w-])(?:sk|rk)_live_(?P<body>[A-Za-z0-9]{20,200})"), ('_live_',), False),
    ("JSON Web Token", re.compile(r"(?<![\w-])(?P<body>eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{16,2000})"), ('eyJ',), False),
    ("bearer token", re.compile(r"(?i:\bbearer)[ \t]+(?P<value>[A-Za-z0-9._~+/-]{16,2000}=*)"), ('bearer',), True),
    ("password in a URL", re.compile(
        r"\b[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s/:@\"'<>]{0,64}):(?P<password>[^\s/@\"'<>]{1,128})@[\w.\[-]",
        re.IGNORECASE,
    ), ('://',), False),
    ("password in a URL", re.compile(
        r"\b[a-z][a-z0-9+.-]{1,20}://[^\s\"'<>]{1,512}?[?&;](?:password|passwd|pwd)=(?P<password>[^\s&;#\"'<>]{1,128})",
        re.IGNORECASE,
    ), ('://',), False),
)  # fmt: skip
_SERVICE_ACCOUNT = re.compile(r"\"type\"\s*:\s*\"service_account\"")
_ASSIGNMENT_WORDS = ("passw", "passphrase", "pwd", "secret", "token", "apikey", "api_key", "api-key", "accesskey",
                     "access_key", "access-key", "authkey", "auth_key", "auth-key", "credential")
"""Texts one of which every match of ``_ASSIGNMENT`` holds, without case."""
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})
"""The letters ``re.IGNORECASE`` matches to an ASCII one that ``str.lower`` does not
lower to it (dotted and dotless i, long s)."""


_CASE_NEEDLES = ("://", "-----", "private_key", "_live_", "eyJ", "sk-", "xox", "xapp-", "github_pat_")
_FOLDED_NEEDLES = ("key", "aws", "bearer", "credential", "pass", "pwd", "secret", "token")
_AWS_NEEDLE = re.compile("A(?:3T|GPA|IDA|IPA|Iza|KIA|NPA|NVA|ROA|SIA)")
_GITHUB_NEEDLE = re.compile("gh[pousr]_")
"""Texts one of which every pattern's needles hold (as written, lowered, or matched from a
first literal that the search skips to): a text that holds none, as most do, runs no
pattern. Fewer and shorter than the needles themselves (``key`` for ``api_key`` and
``authkey``): 17 plain substring searches and two patterns that start with a literal,
where one alternation of all 43 needles tried every one at every character (10 µs a
memory file)."""


def _may_hold_a_secret(text: str, folded: str) -> bool:
    return (any(map(text.__contains__, _CASE_NEEDLES)) or _AWS_NEEDLE.search(text) is not None
            or _GITHUB_NEEDLE.search(text) is not None or any(map(folded.__contains__, _FOLDED_NEEDLES)))


def _holds_any(needles: tuple[str, ...], without_case: bool, text: str, folded: str) -> bool:
    """Whether ``text`` holds one of ``needles`` (in ``folded``, lowered as ``re.IGNORECASE``
    matches, when ``without_case``): a pattern none of whose needles is there cannot match,
    and is not run. Most text holds none: looking costs a few microseconds, running every
    pattern over a memory two hundred (most of reading its file)."""
    within = folded if without_case else text
    return any(needle in within for needle in needles)


@dataclass(frozen=True, repr=False, eq=False)
class SecretMatch(Value):
    """What matched and where (1-based line and column); never the value itself."""

    kind: str
    line: int
    column: int


def find_secret(text: str) -> SecretMatch | None:
    """The first thing in ``text`` that looks like a credential, or None."""
    found = find_secrets(text)
    return found[0] if found else None


def find_secrets(text: str) -> list[SecretMatch]:
    """Every credential-looking thing in ``text``, in reading order, one per place."""
    hits: dict[int, str] = {}
    folded = (text if text.isascii() else text.translate(_FOLD)).lower()  # _FOLD maps letters past ASCII only
    if not _may_hold_a_secret(text, folded):
        return []
    for kind, pattern, needles, without_case in _PATTERNS:
        if not _holds_any(needles, without_case, text, folded):
            continue
        for match in pattern.finditer(text):
            groups = match.groupdict()
            if groups.get("body") is not None and not _looks_random(groups["body"], min_length=16):
                continue
            if groups.get("value") is not None and not _looks_random(groups["value"]):
                continue
            if groups.get("shape") is not None and _PLACEHOLDER.search(groups["shape"]):
                continue
            if groups.get("password") is not None and not _is_url_password(groups["password"], groups.get("user")):
                continue
            if kind == "GCP service account key" and not _SERVICE_ACCOUNT.search(text):
                kind = "private key block"
            where = next((match.start(g) for g in ("value", "password") if groups.get(g) is not None), match.start())
            hits.setdefault(where, kind)
    for match in _ASSIGNMENT.finditer(text) if _holds_any(_ASSIGNMENT_WORDS, True, text, folded) else ():
        group = next(name for name in ("dq", "sq", "bare") if match[name] is not None)
        if _looks_random(match[group]):
            hits.setdefault(match.start(group), "password or token assigned in the text")
    return [SecretMatch(kind, *_line_column(text, offset)) for offset, kind in sorted(hits.items())]


def check_no_secret(text: str, field: str = "content") -> None:
    """Raise ``SecretFoundError`` (kind, line, column) when ``text`` holds a credential."""
    check_fields({field: text})


def check_fields(fields: Mapping[str, object]) -> None:
    """Raise ``SecretFoundError`` for the first named field holding a credential; the
    error names the field, the kind and the place, never the value. A list or a
    mapping (elements, anchors, a YAML value of any shape) is judged one text a line;
    values that are not text (None, a number a later check refuses) are skipped."""
    for name, value in fields.items():
        if not isinstance(value, str):
            value = "\n".join(_texts(value))
        if value:
            found = find_secret(value)
            if found:
                raise SecretFoundError(found.kind, found.line, found.column, field=name)


def check_decoded(values: Mapping[str, object], source: str) -> None:
    """``check_fields`` for values decoded from ``source`` (YAML front matter) after
    ``source`` itself was scanned: only a value ``source`` does not show as it is
    (written with escapes, folded over lines) can hide what that scan missed."""
    hidden = {name: value for name, value in values.items()
              if not all(text in source for text in _texts(value))}
    if hidden:
        check_fields(hidden)


def _texts(value: object) -> list[str]:
    """Every text in a decoded value, keys included, in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for key, item in value.items() for text in (*_texts(key), *_texts(item))]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in _texts(item)]
    return []


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` by its own character frequencies."""
    if not value:
        return 0.0
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str, *, min_length: int = MIN_VALUE_LENGTH) -> bool:
    """Long, letters and digits mixed, high entropy, and not a placeholder or expression."""
    value = value.strip()
    if len(value) < min_length or _PLACEHOLDER.search(value) or re.search(r"\s|[()\[\]{}<>]", value):
        return False
    if not (re.search(r"\d", value) and re.search(r"[A-Za-z]", value)):
        return False
    if "EXAMPLE" in value.upper() or "://" in value or value[0] in "/~." or _looks_like_a_name(value):
        return False
    return shannon_entropy(value) >= MIN_ENTROPY_BITS


def _is_url_password(password: str, user: str | None) -> bool:
    """A connection URL's password is a credential whatever its entropy, unless it is a
    placeholder, a variable, or the user name again (``guest:guest``, a known default)."""
    if len(password) < MIN_URL_PASSWORD_LENGTH or _PLACEHOLDER.search(password) or _URL_PLACEHOLDER.search(password):
        return False
    return not (user and user.casefold() == password.casefold())


def _looks_like_a_name(value: str) -> bool:
    """``tls-cert-2024``, ``bert-base-v2``, ``refreshToken2``: words people chose, not
    generated characters (segments of words or numbers, or mostly pronounceable parts)."""
    segments = [s for s in re.split(r"[-_./:]+", value) if s]
    if len(segments) > 1 and all(s.isalpha() or s.isdigit() or len(s) <= 4 for s in segments):
        return True
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", value) or not re.search(r"_|[a-z][A-Z]", value):
        return False  # only code identifiers (camelCase, snake_case) get the word test
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", value)
    wordy = sum(len(p) for p in parts if len(p) >= 3 and _pronounceable(p))
    return wordy >= 0.6 * sum(ch.isalnum() for ch in value)


def _pronounceable(word: str) -> bool:
    """A part of an identifier that reads like a word: enough vowels, short consonant runs."""
    lower = word.lower()
    vowels = sum(ch in "aeiouy" for ch in lower)
    return lower.isalpha() and vowels >= 0.25 * len(lower) and not re.search(r"[^aeiouy]{4}", lower)


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
