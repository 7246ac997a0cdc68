"""Configuration: defaults < ``[tool.archmem]`` in pyproject.toml < archmem.toml < ARCHMEM_*.

Every tunable number of archmem lives in one of these sections, with its default.
Environment variables are ``ARCHMEM_<SECTION>_<KEY>`` (``ARCHMEM_MODEL`` for the
top-level ``model``); lists are comma-separated there.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from archmem.config_schema import Problem, Section, SettingsInvalid, build, fields_of, internal, is_section, setting
from archmem.errors import ConfigError, closest

CONFIG_FILE = "archmem.toml"
ENV_PREFIX = "ARCHMEM_"


GENERATED_GLOBS = (
    "**/*_pb2.py", "**/*_pb2_grpc.py", "**/*_pb2.pyi", "**/*.pb.go", "**/*.pb.gw.go", "**/genproto/**",
    "**/vendor/**", "**/node_modules/**",
)
"""Generated and vendored code by name: nobody's drift and nobody's code, always
(``archmem.model.generated`` adds .gitattributes and generator headers)."""


TEST_GLOBS = (
    "**/tests/**", "**/test/**", "**/__tests__/**", "**/testdata/**", "**/test_*.py", "**/*_test.py",
    "**/conftest.py", "**/*_test.go", "**/*.test.ts", "**/*.test.tsx", "**/*.spec.ts", "**/*.spec.tsx",
    "**/*.test.js", "**/*.test.jsx", "**/*.spec.js", "**/*.spec.jsx", "**/*Test.java", "**/*Tests.java",
    "**/*IT.java", "**/*Test.kt", "**/*Tests.kt", "**/*Test.cs", "**/*Tests.cs",
)
"""Test code by name: what it imports is no dependency of the architecture
(``[conformance] test_code`` replaces the list)."""


@dataclass(repr=False, eq=False)
class StoreConfig(Section):
    """``[store]``: where the memory files, the accepts and the index live."""

    memories: str = ".archmem/memories"
    """The committed folder of memory files (the truth a team shares through git)."""
    private_memories: str = ".archmem/private"
    """The git-ignored folder of private memories (``remember --private``)."""
    accepts: str = ".archmem/accepts"
    """The committed folder of drift accepts (``archmem drift accept``): one small file each."""
    private_by_default: bool = False
    """Write new memories to the private folder unless ``--shared`` is given."""
    path: str = ".archmem/archmem.db"
    """The local SQLite index, relative to the repository root."""
    busy_timeout_ms: int = setting(30_000, ge=0)


@dataclass(repr=False, eq=False)
class EmbeddingsConfig(Section):
    """``[embeddings]``: the provider that embeds memories, and how vectors weigh in recall."""

    provider: Literal["none", "openai", "ollama", "local"] = "none"
    model: str = ""
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = setting(10.0, gt=0)
    dimensions: int | None = setting(None, gt=0)
    """The vector size: asked of OpenAI-compatible servers, checked for Ollama; else the first answer's."""


@dataclass(repr=False, eq=False)
class DriftConfig(Section):
    """``[drift]``: how much history drift reads, and when a memory needs verifying."""

    scan_budget: int = setting(500, ge=0)
    """Commits of unread history the start-up hook (``brief``), an agent's ``recall`` and
    MCP answers read on the way; with more, they say drift is not computed yet (and that
    ``archmem drift`` computes it) instead of making the agent wait."""
    min_lines: int = setting(20, ge=0)
    churn_ratio: float = setting(0.25, ge=0)
    min_file_events: int = setting(1, ge=0)
    file_event_ratio: float = setting(0.2, ge=0)
    ignore: list[str] = setting(
        factory=lambda: [
            "**/*.lock", "**/package-lock.json", "**/pnpm-lock.yaml", "**/go.sum",
            "**/*.min.js", "**/*.map", "**/generated/**", *GENERATED_GLOBS,
        ]
    )


ANSWER_MODEL: dict[str, float] = {
    "bias": -3.1884, "strength": 2.5086, "relevance": 2.1052, "lexical": -0.2289, "pointed": 0.1672,
    "named": -0.6044, "known": 4.2106, "gap": 0.671,
}
"""The decision's coefficients, fitted on every labelled set by bench/recall_quality.py (its
bench/recall_defaults.json holds them, with the held-out figures of the same procedure)."""
ANSWER_MODEL_HYBRID: dict[str, float] = {
    "bias": -2.7489, "strength": 2.2807, "relevance": 3.6065, "lexical": 1.3167, "pointed": -0.4345,
    "named": -0.724, "known": 2.8358, "gap": 1.2723,
}
"""The same with meaning mixed in (bench/recall_defaults_hybrid.json)."""


def _synonym_problem(groups: list[list[str]]) -> str | None:
    """Each synonym group holds two words or phrases at least."""
    for number, group in enumerate(groups, 1):
        if len([word for word in group if word.strip()]) < 2:
            return (f"synonym group {number} ({group!r}) needs at least two words or phrases, "
                    'e.g. ["bag", "cart"]')
    return None


@dataclass(repr=False, eq=False)
class RecallConfig(Section):
    """The ranking numbers (docs/architecture.md, "Recall"); archmem/recall/score.py applies them.

    Kind, freshness and usage are raw factors applied with a *strength*
    s in [0, 1]: factor = 1 + s x (raw - 1). At s = 1 they are Archyl's numbers at full
    strength; the defaults are the strengths our labelled benchmark chose
    (bench/recall_quality.py), so relevance dominates and they break near-ties.
    """

    lexical_weight: float = setting(0.45, ge=0, le=1)
    lexical_exponent: float = setting(1.0, gt=0, le=1)
    """Lexical relevance is (BM25 / ceiling) ** exponent: below 1 softens long tasks."""
    semantic_weight: float = setting(0.55, ge=0, le=1)
    semantic_floor: float = setting(0.2, ge=0, lt=1)
    """Cosine at or below this counts as unrelated (embedding models rarely go to 0)."""
    parts_weight: float = setting(0.75, ge=0, le=1)
    """A word found only among the parts of a compound (``letter`` in ``getRandomLetterCode``)
    counts this much of a whole word in BM25."""
    synonym_weight: float = setting(0.7, ge=0, le=1)
    """A word's synonym (``synonyms.txt``, ``synonyms``) counts this much of the word."""
    synonyms: list[list[str]] = setting(factory=list, check=lambda groups: _synonym_problem(groups))
    """The project's own words for one thing, added to the shipped thesaurus:
    ``[["bag", "cart"], ["pdp", "product page"]]``; an entry of two words is a phrase."""
    shipped_synonyms: bool = True
    """Whether the thesaurus archmem ships (archmem/recall/synonyms.txt) is used."""
    element_weight: float = setting(0.8, ge=0, le=1)
    related_element_score: float = setting(0.7, ge=0, le=1)
    """What a child inherits of a relevant parent, times its share of the parent's code."""
    graph: Literal["rules", "pagerank"] = "rules"
    """How evidence spreads along the model from the elements a task points at: fixed
    rules (a child inherits its share, a partner gets ``hop_weight``) or a personalized
    PageRank from them (archmem/recall/graph.py)."""
    graph_alpha: float = setting(0.5, gt=0, lt=1)
    graph_weight: float = setting(0.5, ge=0, le=1)
    hop_weight: float = setting(0.5, ge=0, le=1)
    """An element one declared relationship away from a relevant one counts this much."""
    named_element_weight: float = setting(0.0, ge=0, le=1)
    """An element the task names by identifier or name counts this much, as ``--element``
    counts 1: a name is a pointer, not a word among others."""
    named_title_weight: float = setting(1.0, ge=0, le=1)
    """A memory whose title the task writes out counts this much element evidence, as a
    changed file it anchors counts 1."""
    broad_word_weight: float = setting(0.1, ge=0, le=1)
    """Broad words count this much in matching a task to elements: the words naming the
    whole product (the workspace, its systems), its people (persons) and the verbs a task
    names its kind of work with ("add", "fix", "keep")."""
    min_relevance: float = setting(0.2, ge=0, le=1)
    answer_model: dict[str, float] = setting(factory=lambda: dict(ANSWER_MODEL))
    """The coefficients of the decision to answer (archmem/recall/decision.py): a logistic
    model over the evidence of the best candidates, fitted by bench/recall_quality.py."""
    answer_confidence: float = setting(0.85, ge=0, le=1)
    """Recall stands behind its answer from this confidence on (ranked by words alone)."""
    weak_confidence: float = setting(0.5, ge=0, le=1)
    """From this confidence up to ``answer_confidence`` the best candidates are shown apart,
    as weak; below it, nothing."""
    named_answers: bool = False
    """Whether a task that names an element is always answered with that element's
    memories, as ``--element`` is (chosen held out by bench/recall_quality.py)."""
    weak_limit: int = setting(5, ge=0)
    """How many weak candidates are shown at most."""
    answer_model_hybrid: dict[str, float] = setting(factory=lambda: dict(ANSWER_MODEL_HYBRID))
    """The decision's coefficients when meaning is mixed in, fitted apart (with
    all-MiniLM-L6-v2, bench/recall_quality.py --meaning minilm): text never goes below
    lexical, so hybrid relevances run higher, and meaning vouches for unshared words."""
    answer_confidence_hybrid: float = setting(0.85, ge=0, le=1)
    weak_confidence_hybrid: float = setting(0.3, ge=0, le=1)
    kind_weights: dict[str, float] = setting(
        factory=lambda: {"pitfall": 3.0, "convention": 2.0, "note": 1.5, "session_outcome": 1.0}
    )
    kind_strength: float = setting(0.05, ge=0, le=1)
    half_life_days: float = setting(45.0, gt=0)
    freshness_floor: float = setting(0.3, ge=0, le=1)
    freshness_strength: float = setting(0.1, ge=0, le=1)
    usage_cap: float = setting(1.8, ge=1)
    usage_strength: float = setting(0.2, ge=0, le=1)
    ignored_after: int = setting(5, ge=1)
    ignored_factor: float = setting(0.75, gt=0, le=1)
    drift_factor: float = setting(0.6, gt=0, le=1)
    candidates: int = setting(100, ge=1)
    link_sources: int = setting(3, ge=0)
    """How many of the top results bring their [[linked]] neighbours."""


@dataclass(repr=False, eq=False)
class CodeConfig(Section):
    """``[code]``: code left out of ownership."""

    ignore: list[str] = setting(factory=list)
    """Globs left out of ownership and of the "code no element owns" list."""


@dataclass(repr=False, eq=False)
class ConformanceRule(Section):
    """``{from = "orders", to = "payments"}``: elements by identifier or name; a rule on
    an element covers everything inside it. ``from`` and ``to`` take one name or a list."""

    sources: list[str] = setting(factory=list, alias="from", one_or_many=True)
    targets: list[str] = setting(factory=list, alias="to", one_or_many=True)
    reason: str = ""


def _at_least(n: int) -> Any:
    return lambda items: None if len(items) >= n else f"list should have at least {n} item{'s' * (n > 1)}"


def _said(text: str) -> str | None:
    return None if text.strip() else "a reason is required: say why this dependency is left out"


@dataclass(repr=False, eq=False)
class LayersRule(Section):
    """``{ order = ["web", "service", ["orders", "payments"], "storage"] }``: top layer
    first; code may depend on the layers below its own, never above. A list is one layer
    whose members may use each other (an ``independent`` rule says they may not)."""

    order: list[str | list[str]] = setting(factory=list, check=_at_least(2))
    reason: str = ""


@dataclass(repr=False, eq=False)
class IndependentRule(Section):
    """``{ elements = ["orders", "payments"] }``: no dependency among them, either way."""

    elements: list[str] = setting(factory=list, check=_at_least(2))
    reason: str = ""


@dataclass(repr=False, eq=False)
class AcyclicRule(Section):
    """``{ within = "shop" }``: the elements inside ``within`` form no cycle, even one the
    model draws."""

    within: list[str] = setting(factory=list, one_or_many=True, check=_at_least(1))
    reason: str = ""


@dataclass(repr=False, eq=False)
class IgnoredDependencyRule(Section):
    """``{ from = "web", to = "sync", reason = "…" }``: a dependency left out of every
    finding; the reason is required, so whoever reads the rule knows why."""

    sources: list[str] = setting(factory=list, alias="from", one_or_many=True)
    targets: list[str] = setting(factory=list, alias="to", one_or_many=True)
    reason: str = setting("", check=_said)


@dataclass(repr=False, eq=False)
class ConformanceConfig(Section):
    """``archmem conformance``: the code's imports against the model's relationships."""

    ignore: list[str] = setting(factory=list)
    """Globs of files whose imports are not read (generated code, fixtures)."""
    test_code: list[str] = setting(factory=lambda: list(TEST_GLOBS))
    """Globs of test files: their imports are no dependency between elements."""
    python_roots: list[str] = setting(factory=list)
    """Extra folders absolute Python imports start from (besides each top-level package's parent)."""
    forbid: list[ConformanceRule] = setting(factory=list)
    """Code of ``from`` may not import code of ``to``, whatever the model draws."""
    only: list[ConformanceRule] = setting(factory=list)
    """Only code of ``from`` (and of ``to`` itself) may import code of ``to``."""
    layers: list[LayersRule] = setting(factory=list)
    """Ordered layers: code depends only on the layers below its own."""
    independent: list[IndependentRule] = setting(factory=list)
    """Sets of elements with no dependency among them."""
    acyclic: list[AcyclicRule] = setting(factory=list)
    """Elements whose children form no cycle, drawn or not."""
    ignore_dependencies: list[IgnoredDependencyRule] = setting(factory=list)
    """Dependencies left out of every finding, each with its required reason."""
    briefings: bool = True
    """A briefing names the undeclared dependencies of its elements."""
    network: bool = True
    """Read calls between services from deployment manifests (Kubernetes, compose) as dependencies."""
    baseline: str = ".archmem/conformance-baseline.json"
    """The committed file of frozen findings (``archmem conformance --update-baseline``)."""


@dataclass(repr=False, eq=False)
class LikeC4Config(Section):
    """Reading LikeC4 models: which C4 level a free-form element kind is."""

    kinds: dict[str, Literal["person", "softwareSystem", "container", "component"]] = setting(factory=dict)
    """LikeC4 element kind → its C4 level, before the built-in rule (``archmem.model.likec4.kinds``)."""


@dataclass(repr=False, eq=False)
class GitHubConfig(Section):
    """``archmem pr --comment``: the GitHub API client, and whose comment is archmem's."""

    comment_author: str = setting("github-actions[bot]", pattern=r"^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$")
    """The login of the token's identity: only a comment it wrote (a ``Bot`` for a login
    ending in ``[bot]``, a user otherwise) is archmem's to update. The default is
    ``GITHUB_TOKEN``'s; a GitHub App token writes as ``<app-slug>[bot]``, a personal
    token as its user."""
    timeout: float = setting(30.0, gt=0)
    """Seconds one API request may take in all: connecting, sending, the whole answer."""
    max_answer_bytes: int = setting(32 << 20, gt=0)
    """An answer larger than this is not read on."""


@dataclass(repr=False, eq=False)
class GitLabConfig(Section):
    """``archmem pr --comment`` in GitLab CI: the GitLab API client and its token."""

    token_variable: str = setting("GITLAB_TOKEN", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The CI/CD variable that holds the access token (api scope); never the token itself."""
    timeout: float = setting(30.0, gt=0)
    """Seconds one API request may take in all: connecting, sending, the whole answer."""
    max_answer_bytes: int = setting(32 << 20, gt=0)
    """An answer larger than this is not read on."""


@dataclass(repr=False, eq=False)
class Config(Section):
    """Every setting, by section, with where it came from."""

    model: str | None = None
    """The model file, relative to the repository root; else it is discovered."""
    store: StoreConfig = setting(factory=StoreConfig)
    embeddings: EmbeddingsConfig = setting(factory=EmbeddingsConfig)
    drift: DriftConfig = setting(factory=DriftConfig)
    recall: RecallConfig = setting(factory=RecallConfig)
    code: CodeConfig = setting(factory=CodeConfig)
    conformance: ConformanceConfig = setting(factory=ConformanceConfig)
    github: GitHubConfig = setting(factory=GitHubConfig)
    gitlab: GitLabConfig = setting(factory=GitLabConfig)
    likec4: LikeC4Config = setting(factory=LikeC4Config)
    paths: dict[str, list[str]] = setting(factory=dict)
    """Element id → globs of its code, united with the model's own (``archmem paths
    suggest --write`` records here, so a generated or shared DSL stays untouched)."""

    source: str | None = internal(None)
    """Which file the settings came from (for messages), if any."""
    env_settings: frozenset[str] = internal(frozenset())
    """The settings the environment gave (``store.path`` for ``ARCHMEM_STORE_PATH``)."""


def load_config(root: Path, env: Mapping[str, str] | None = None) -> Config:
    """The effective configuration for a repository root."""
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    source: str | None = None
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        tool = _read_toml(pyproject).get("tool", {})
        if isinstance(tool, dict) and isinstance(tool.get("archmem"), dict):
            data = _merge(data, tool["archmem"])
            source = str(pyproject)
    own = root / CONFIG_FILE
    if own.is_file():
        data = _merge(data, _read_toml(own))
        source = str(own)
    given = _from_env(env)
    data = _merge(data, given)
    try:
        config = build(Config, data)
    except SettingsInvalid as exc:
        raise ConfigError(_describe(exc.problems, source)) from None
    config.source = source
    config.env_settings = frozenset(
        f"{section}.{key}" for section, value in given.items() if isinstance(value, dict) for key in value
    ) | {name for name, value in given.items() if not isinstance(value, dict)}
    return config


def line_of_key(path: str | Path | None, key: str) -> int | None:
    """The line of ``path`` (a config file) where ``key`` is given in its ``[paths]``
    table, for messages that point at the line; None when it cannot be told."""
    return _line_of_setting(str(path) if path is not None else None, ["paths"], key)


def where_given(root: Path, sections: list[str], key: str) -> str | None:
    """``file:line`` of the config file under ``root`` that gives ``key`` in the table
    ``sections`` (archmem.toml first, as it wins), None when neither does."""
    for name in (CONFIG_FILE, "pyproject.toml"):
        path = root / name
        line = _line_of_setting(str(path), sections, key) if path.is_file() else None
        if line is not None:
            return f"{path}:{line}"
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only with a settings file: most repositories have none

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        # tomllib says "... (at line 3, column 7)": lift it to file:line:col
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        where = f"{path}:{match.group(1)}:{match.group(2)}" if match else str(path)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(f"{where}: invalid TOML: {reason}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


PROCESS_VARIABLES = ("ARCHMEM_SERVER", "ARCHMEM_SERVER_IDLE", "ARCHMEM_RUNTIME_DIR")
"""Variables that are not settings: they say how the ``archmem`` process runs (the warm
command server: whether to use it, its idle time, the folder of its socket)."""


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """ARCHMEM_STORE_PATH=x → {"store": {"path": "x"}}; unknown names are an error."""
    if not any(name.upper().startswith(ENV_PREFIX) for name in env):
        return {}
    sections = {spec.name: spec.annotation for spec in fields_of(Config) if is_section(spec.annotation)}
    known = ["ARCHMEM_MODEL"]
    for name, annotation in sections.items():
        known += [f"ARCHMEM_{name}_{spec.name}".upper() for spec in fields_of(annotation)]
    data: dict[str, Any] = {}
    for raw_name, value in env.items():
        name = raw_name.upper()
        if not name.startswith(ENV_PREFIX) or name in PROCESS_VARIABLES:
            continue
        if name not in known:
            raise ConfigError(
                f"unknown environment variable {raw_name}",
                hint=("did you mean " + ", ".join(closest(name, known)) + "?") if closest(name, known) else
                "see `archmem init --print` for every setting",
            )
        if name == "ARCHMEM_MODEL":
            data["model"] = value
            continue
        rest = name[len(ENV_PREFIX):].lower()
        section = next(s for s in sections if rest.startswith(s + "_"))
        key = rest[len(section) + 1:]
        annotation = next(spec.annotation for spec in fields_of(sections[section]) if spec.name == key)
        is_list = getattr(annotation, "__origin__", None) is list
        parsed: Any = [p.strip() for p in value.split(",") if p.strip()] if is_list else value
        data.setdefault(section, {})[key] = parsed
    return data


def _describe(problems: list[Problem], source: str | None) -> str:
    where = source or "configuration"
    lines = [f"{where}: invalid settings"]
    for problem in problems:
        loc = list(problem.loc)
        path = _dotted(loc)
        if problem.unknown:
            parents, key = loc[:-1], loc[-1]
            guess = closest(key, _allowed_keys(parents))
            line = _line_of_setting(source, parents, key)
            lines.append(
                (f"  line {line}: " if line else "  ") + f"unknown setting {path!r}"
                + (f"; did you mean {', '.join(repr(_dotted([*parents, g])) for g in guess)}?" if guess else "")
                + (" (a table of element paths is [paths], at the top level)" if parents and "." in key else "")
            )
        else:
            line = _line_of_setting(source, loc[:1], loc[1]) if len(loc) > 1 else None
            lines.append((f"  line {line}: " if line else "  ") + f"{path}: {problem.message} (got {problem.value!r})")
    return "\n".join(lines)


def _line_of_setting(source: str | None, sections: list[str], key: str) -> int | None:
    """The line of a config file that gives ``key`` in the table ``sections`` (in
    pyproject.toml, under ``[tool.archmem...]``); None when it cannot be told."""
    if source is None:
        return None
    try:
        lines = Path(source).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    prefix = ["tool", "archmem"] if source.endswith("pyproject.toml") else []
    table = ".".join(prefix + sections)
    header = re.compile(r"^\s*\[\s*([^\]]*?)\s*\]\s*(?:#.*)?$")
    given = re.compile(r"^\s*(?:" + re.escape(key) + r"|[\"']" + re.escape(key) + r"[\"'])\s*=")
    current = ""
    for number, line in enumerate(lines, 1):
        found = header.match(line)
        if found:
            current = found.group(1).replace(" ", "")
        elif current == table and given.match(line):
            return number
    return None


def _dotted(loc: list[str]) -> str:
    """A setting's path as TOML writes it: a key that holds a dot is quoted."""
    return ".".join(f'"{part}"' if "." in part or not part else part for part in loc)


def _allowed_keys(sections: list[str]) -> list[str]:
    section: type = Config
    for part in sections:
        annotation = next((spec.annotation for spec in fields_of(section) if spec.key == part), None)
        if not is_section(annotation):
            return []
        section = annotation
    return [spec.key for spec in fields_of(section)]
