/*
 * archmem describes itself: its own parts, with the code each owns (archmem.paths).
 * tests/test_self_model.py checks that every module of the package is owned here.
 */
workspace "archmem" "An architecture-aware memory for coding agents." {

    !identifiers hierarchical

    model {
        agent = person "Coding agent" "Claude Code, Codex, Cursor or any MCP client."
        developer = person "Developer" "Uses archmem at a terminal and reviews what it knows."

        archmem = softwareSystem "archmem" "Memories on C4 elements, drift from git, ranked recall and briefings." {

            interfaces = container "Interfaces" "Thin entry points: parse, call Workspace, print." "Python, click" {
                cli = component "CLI" "The archmem command and every subcommand (archmem check and merge-file too): flags, tables, --json, exit codes; the warm command server that runs a command line in a forked worker of an archmem already imported." "click" {
                    properties {
                        "archmem.paths" "archmem/cli/**, archmem/__main__.py, archmem/entry.py, archmem/command_client.py, archmem/command_server.py"
                    }
                }
                reports = component "CI reports" "SARIF 2.1.0 for code scanning and GitLab Code Quality from conformance, drift and check: their findings as one list with stable fingerprints, one module per format." "JSON" {
                    properties {
                        "archmem.paths" "archmem/reporting/**"
                    }
                }
                ciproviders = component "CI providers" "GitHub Actions and GitLab CI behind one interface: where the change is, the API and identity the one comment goes through; GitHub's annotations, job summary and step outputs." {
                    properties {
                        "archmem.paths" "archmem/ci/__init__.py, archmem/ci/github.py, archmem/ci/gitlab.py, archmem/ci/github_review.py, archmem/ci/github_drift.py, archmem/ci/github_conformance.py"
                    }
                }
                mcp = component "MCP server" "archmem mcp: sessions, recall, remember, confirm, briefings and the map as MCP tools over stdio." "MCP SDK (MCPServer)" {
                    properties {
                        "archmem.paths" "archmem/mcp/**"
                    }
                }
            }

            service = container "Workspace" "The one façade: owns config, clock, repository and store." "Python" {
                facade = component "Workspace" "Opens a repository, loads its model, answers every operation." {
                    properties {
                        "archmem.paths" "archmem/workspace/**, archmem/demo.py, archmem/status.py, archmem/initialize.py"
                    }
                }
            }

            foundation = container "Foundation" "What every layer may use: errors, the clock, settings, value types, small words." "Python" {
                config = component "Config" "archmem.toml, [tool.archmem] and ARCHMEM_* settings with their defaults." {
                    properties {
                        "archmem.paths" "archmem/config.py, archmem/config_schema.py, archmem/config_template.py"
                    }
                }
                clock = component "Clock" "The injected clock and the one timestamp format." {
                    properties {
                        "archmem.paths" "archmem/clock.py"
                    }
                }
                errors = component "Errors" "The ArchmemError family: file:line:col, candidates, exit codes." {
                    properties {
                        "archmem.paths" "archmem/errors.py"
                    }
                }
                types = component "Value types" "Element, Relationship, Memory, Commit, the conformance report: the values passed between layers." "pydantic, dataclasses" {
                    properties {
                        "archmem.paths" "archmem/model/types.py, archmem/model/limits.py, archmem/memory/types.py, archmem/recall/types.py, archmem/drift/types.py, archmem/git/types.py, archmem/conformance/types.py, archmem/ci/types.py"
                    }
                }
                values = component "Value methods" "Equality, hashing and printing of every dataclass, written once rather than compiled per class." {
                    properties {
                        "archmem.paths" "archmem/values.py"
                    }
                }
                words = component "Package basics" "The version, the few words every output uses (plurals), patterns compiled at first use." {
                    properties {
                        "archmem.paths" "archmem/__init__.py, archmem/words.py, archmem/patterns.py"
                    }
                }
                atomicwrite = component "Atomic writes" "One way to replace a file: a hidden temporary file renamed over it." {
                    properties {
                        "archmem.paths" "archmem/atomic_write.py"
                    }
                }
                escaping = component "Escaping" "Control characters shown as escapes, Markdown values kept inert, values quoted for TOML and YAML, and the YAML of committed files read back." {
                    properties {
                        "archmem.paths" "archmem/escape.py, archmem/yaml_text.py"
                    }
                }
                confinement = component "Confinement" "The one rule for paths: resolved through symlinks, they stay in the repository; the paths settings name, refused by setting and line." {
                    properties {
                        "archmem.paths" "archmem/confinement.py"
                    }
                }
                jsoninput = component "JSON input" "JSON from clients, files and servers read with a depth limit, so nesting is an error and never a RecursionError." {
                    properties {
                        "archmem.paths" "archmem/json_input.py"
                    }
                }
            }

            domain = container "Model" "Reads the architecture model into elements, relationships and decisions." "Python, pydantic" {
                loader = component "Model loader" "Finds the model file and reads it with the parser its format needs." {
                    properties {
                        "archmem.paths" "archmem/model/loader.py, archmem/model/__init__.py"
                    }
                }
                dsl = component "Structurizr parser" "Lexer and context-stack parser for workspace.dsl, and Structurizr JSON (which workspace extends may name); the parsed model kept in the index until a file it read changes." {
                    properties {
                        "archmem.paths" "archmem/model/dsl/**, archmem/model/dsl_cache.py, archmem/model/structurizr_json.py"
                    }
                }
                likec4 = component "LikeC4 reader" "Lexer and parser for LikeC4 .c4 files, likec4.config.json projects, FQN resolution, kinds mapped to C4 levels." {
                    properties {
                        "archmem.paths" "archmem/model/likec4/**"
                    }
                }
                formats = component "archmem YAML" "The archmem YAML model format." {
                    properties {
                        "archmem.paths" "archmem/model/yaml_model.py, archmem/model/yaml_elements.py, archmem/model/yaml_nodes.py"
                    }
                }
                adrs = component "Decision records" "adrtools, MADR and log4brains folders." {
                    properties {
                        "archmem.paths" "archmem/model/adrs.py"
                    }
                }
                codepaths = component "Code ownership" "Path globs, element ownership, which model-file lines only map code, what a model may name, the model as data." {
                    properties {
                        "archmem.paths" "archmem/model/paths.py, archmem/model/description_lines.py, archmem/model/ownership.py, archmem/model/summary.py, archmem/model/confine.py, archmem/model/external.py, archmem/model/generated.py"
                    }
                }
                onboarding = component "Path suggestions" "archmem paths suggest: where each element's code is, from names, manifests and history; the [paths] table." {
                    properties {
                        "archmem.paths" "archmem/onboarding/**"
                    }
                }
            }

            memory = container "Memory" "Memories on elements: remember, confirm, supersede, links, sessions, review." "Python" {
                lifecycle = component "Memory lifecycle" "Restating confirms, supersede without forks, archive, purge, export and import." {
                    properties {
                        "archmem.paths" "archmem/memory/lifecycle.py, archmem/memory/restatement.py, archmem/memory/linking.py, archmem/memory/transfer.py, archmem/memory/__init__.py"
                    }
                }
                sessions = component "Sessions" "Exposures and citations per session; the review queue." {
                    properties {
                        "archmem.paths" "archmem/memory/sessions.py, archmem/memory/review.py"
                    }
                }
                memoryfiles = component "Memory files" "One Markdown file per memory (the truth in git), the one writer of those files, and the sync that indexes them." {
                    properties {
                        "archmem.paths" "archmem/memory/file_format.py, archmem/memory/files.py, archmem/memory/sync.py, archmem/memory/folder_signature.py"
                    }
                }
                teamfiles = component "Check and merge" "archmem check's rules over the memory files (forks, clashes, links, secrets), and the three-way merge of one memory file." {
                    properties {
                        "archmem.paths" "archmem/memory/check.py, archmem/memory/accept_check.py, archmem/memory/merge.py"
                    }
                }
                textrules = component "Text rules" "Identifier-aware search text, similarity, wikilink grammar, secret detection, kinds." {
                    properties {
                        "archmem.paths" "archmem/memory/text.py, archmem/memory/links.py, archmem/memory/secrets.py, archmem/memory/kinds.py, archmem/memory/fields.py"
                    }
                }
            }

            recall = container "Recall" "Ranks memories for a task: words, elements, meaning, kind, freshness, usage, drift." "Python" {
                scoring = component "Score formula" "Every factor of the score and the weights, in one place." {
                    properties {
                        "archmem.paths" "archmem/recall/score.py"
                    }
                }
                elementmatch = component "Element relevance" "Hints, changed files, named elements and task words matched to elements; evidence spread along the model." {
                    properties {
                        "archmem.paths" "archmem/recall/elements.py, archmem/recall/named.py, archmem/recall/graph.py"
                    }
                }
                decision = component "Answer decision" "Whether recall stands behind an answer, offers it as weak, or says nothing: a fitted model over the evidence." {
                    properties {
                        "archmem.paths" "archmem/recall/decision.py"
                    }
                }
                engine = component "Recall engine" "Candidates from BM25, elements and vectors; link neighbours; explanations." {
                    properties {
                        "archmem.paths" "archmem/recall/engine.py, archmem/recall/semantic.py, archmem/recall/__init__.py"
                    }
                }
                thesaurus = component "Thesaurus" "Words used for one another (shipped groups and the project's own), analysed as the word index analyses text." {
                    properties {
                        "archmem.paths" "archmem/recall/synonyms.py, archmem/recall/synonyms.txt"
                    }
                }
            }

            drift = container "Drift" "When the code under an element moved; which memories to verify." "Python, git" {
                driftindex = component "Drift index" "Prefix sums over per-element changes; stamps; missing code; staleness in words; accept files." {
                    properties {
                        "archmem.paths" "archmem/drift/__init__.py, archmem/drift/index.py, archmem/drift/scan.py, archmem/drift/report.py, archmem/drift/staleness.py, archmem/drift/symbols.py, archmem/drift/view.py, archmem/drift/changes.py, archmem/drift/baselines.py, archmem/drift/accepts.py, archmem/drift/accept_folder.py, archmem/drift/context.py, archmem/drift/head_cache.py, archmem/drift/verify_cache.py, archmem/drift/index_cache.py"
                    }
                }
            }

            conformance = container "Conformance" "Whether the code still has the shape the model draws: imports resolved, lifted to elements, compared with the relationships and rules." "Python, networkx" {
                imports = component "Import reader" "Imports per file (Python ast; a comment- and string-blanking lexer for TypeScript, Go, Java, Kotlin, C#) and their resolution to files." {
                    properties {
                        "archmem.paths" "archmem/conformance/scan.py, archmem/conformance/resolve.py"
                    }
                }
                checker = component "Conformance check" "Lifts imports to an element graph, compares it with the model and the rules, with the calls deployment manifests state; the baseline of frozen findings." "networkx" {
                    properties {
                        "archmem.paths" "archmem/conformance/__init__.py, archmem/conformance/graph.py, archmem/conformance/check.py, archmem/conformance/engine.py, archmem/conformance/baseline.py, archmem/conformance/network.py"
                    }
                }
            }

            review = container "Review" "What a pull request touches, what it makes VERIFY, the memories and drift accepts it changes, and its one comment." "Python, Jinja2" {
                pullrequest = component "Pull request review" "Elements touched with their pitfalls, memories to verify with the diff since confirmed, memory and drift accept files in the diff, annotations and the comment." {
                    properties {
                        "archmem.paths" "archmem/review/**"
                    }
                }
            }

            render = container "Render" "Jinja2 templates: the briefing and the knowledge map." "Python, Jinja2" {
                briefing = component "Briefing" "Task, elements, ranked memories with VERIFY and via neighbours, gaps, budget; the file notes an edit hook shows." {
                    properties {
                        "archmem.paths" "archmem/render/**"
                    }
                }
            }

            adapters = container "Adapters" "The outside world: the repository on disk and its git history." "Python, git" {
                install = component "Agent integration" "The files archmem install writes for Claude Code, Codex and Cursor (MCP entry, session, file and compaction hooks that find archmem or say how to install it, habits), the edit hook's payloads and state, session-end usage from transcripts, and the merge driver for memory files." {
                    properties {
                        "archmem.paths" "archmem/agents/**"
                    }
                }
                git = component "Git" "Everything archmem asks git, in one package: the working tree's files (plain folders too), the first-parent history in one streamed git log, blame of the model file, what changed between two revisions, HEAD, the branch and shallowness read from files, git merge-file and git config for the merge driver, and the commands that build the demo's history." "git" {
                    properties {
                        "archmem.paths" "archmem/git/__init__.py, archmem/git/repository.py, archmem/git/history.py, archmem/git/blame.py, archmem/git/revisions.py, archmem/git/checkout.py, archmem/git/merge_file.py, archmem/git/config.py, archmem/git/commands.py"
                    }
                }
                ciapis = component "CI APIs" "GitHub's pull request comments and GitLab's merge request notes (list paged, create, update; GitLab's token user), errors with their fix, over one HTTP transport with a total deadline, a size cap and the token kept to the API's host." "urllib" {
                    properties {
                        "archmem.paths" "archmem/ci/transport.py, archmem/ci/github_api.py, archmem/ci/gitlab_api.py"
                    }
                }
                embeddings = component "Embeddings" "OpenAI-compatible and Ollama providers; vectors as float32 blobs." {
                    properties {
                        "archmem.paths" "archmem/embeddings.py, archmem/embeddings_local.py"
                    }
                }
                testing = component "Loopback embedding server" "A deterministic fake embedding model over HTTP for tests and benchmarks." {
                    properties {
                        "archmem.paths" "archmem/testing/**"
                    }
                }
                store = component "Store" "Memory folders written atomically, and the SQLite index: WAL, migrations, FTS5, vectors, sessions, history and import caches, audit log." "SQLite, Markdown" {
                    properties {
                        "archmem.paths" "archmem/store/**"
                    }
                }
                folderwatch = component "Folder watch" "The warm server's inotify watch of memory folders: a token per folder that moves with every change below it, handed to each worker, so a served command knows a folder unchanged without git's stat of every file." "inotify" {
                    properties {
                        "archmem.paths" "archmem/folder_watch.py"
                    }
                }
            }
        }

        # people
        agent -> archmem.interfaces.mcp "Starts sessions, recalls and remembers through"
        developer -> archmem.adapters.install "Connects an agent with"
        developer -> archmem.interfaces.cli "Runs"

        # interfaces → the Workspace (and the foundation every layer uses)
        archmem.interfaces -> archmem.foundation "Reports errors and reads settings with"
        archmem.interfaces.cli -> archmem.service.facade "Calls"
        archmem.interfaces.mcp -> archmem.service.facade "Calls"
        archmem.interfaces.cli -> archmem.interfaces.mcp "Starts the MCP server (archmem mcp) with"
        archmem.interfaces.cli -> archmem.adapters.install "Installs agent integrations (archmem install) with"
        archmem.interfaces.cli -> archmem.adapters.store "Reports store failures with"
        archmem.interfaces.cli -> archmem.adapters.folderwatch "Watches the memory folders its workers read (the warm command server) with"
        archmem.service.facade -> archmem.adapters.folderwatch "Asks whether the memory folder changed since an earlier served command, in a served command, with"
        archmem.interfaces.cli -> archmem.adapters.git "Finds the project root for archmem install, and runs git merge-file, with"
        archmem.interfaces.cli -> archmem.domain.loader "Looks for a model file for archmem install with"
        archmem.interfaces.cli -> archmem.interfaces.ciproviders "Asks where the change is and how to comment, and writes GitHub output, with"
        archmem.interfaces.ciproviders -> archmem.adapters.ciapis "Calls the GitHub and GitLab APIs through"
        archmem.interfaces.ciproviders -> archmem.review.pullrequest "Names the change under review, and writes the review and its comment's fate as GitHub output, for"
        archmem.interfaces.ciproviders -> archmem.drift.driftindex "Writes the drift report as GitHub output from"
        archmem.interfaces.cli -> archmem.drift.driftindex "Shows drift changes with"
        archmem.interfaces.mcp -> archmem.adapters.store "Reports store failures with"
        archmem.interfaces.mcp -> archmem.adapters.folderwatch "Watches the memory folder it syncs before every call with"
        archmem.interfaces.mcp -> archmem.adapters.git "Reads HEAD from .git, to know when the model may have changed, with"
        archmem.interfaces.cli -> archmem.interfaces.reports "Prints SARIF and Code Quality reports (--format sarif, codequality) with"
        archmem.interfaces.ciproviders -> archmem.interfaces.reports "Annotates the conformance findings of"
        archmem.interfaces.reports -> archmem.drift.driftindex "Reads the drift report of"
        archmem.interfaces.reports -> archmem.memory.teamfiles "Reads archmem check's findings and rules of"
        archmem.interfaces.cli -> archmem.recall.engine "Shows linked neighbours under the result that named them with"
        archmem.interfaces.mcp -> archmem.recall.engine "Shows linked neighbours under the result that named them with"
        archmem.interfaces.cli -> archmem.conformance.checker "Names the baseline's frozen and fixed findings with"
        archmem.interfaces.cli -> archmem.memory.teamfiles "Merges memory files (archmem merge-file) with"
        archmem.interfaces.cli -> archmem.render.briefing "Answers the edit hook from its prepared file notes with"
        archmem.adapters.install -> archmem.adapters.git "Sets the merge driver in git config through"

        # the Workspace → the domain and the adapters
        archmem.service -> archmem.foundation "Uses errors, clock and settings of"
        archmem.service.facade -> archmem.domain "Loads the model and its ownership through"
        archmem.service.facade -> archmem.memory "Writes, syncs and reviews memories through"
        archmem.service.facade -> archmem.recall "Recalls through"
        archmem.service.facade -> archmem.drift "Measures drift with"
        archmem.service.facade -> archmem.conformance "Checks the code against the model with"
        archmem.service.facade -> archmem.render "Renders briefings and the map with"
        archmem.service.facade -> archmem.adapters.git "Lists and reads files with"
        archmem.service.facade -> archmem.adapters.store "Opens the store with"
        archmem.service.facade -> archmem.adapters.embeddings "Embeds memories and queries with"

        # inside the foundation
        archmem.foundation.config -> archmem.foundation.errors "Reports invalid settings with"
        archmem.foundation.types -> archmem.foundation.errors "Reports unknown names with"
        archmem.foundation.confinement -> archmem.foundation.config "Names the setting and its line with"
        archmem.foundation.confinement -> archmem.foundation.errors "Refuses a path outside the repository with"
        archmem.foundation.types -> archmem.foundation.jsoninput "Measures the nesting of a JSON model with"
        archmem.foundation.escaping -> archmem.foundation.errors "Refuses a value YAML cannot hold with"
        archmem.foundation.types -> archmem.foundation.values "Compares and prints its values with"
        archmem.foundation.errors -> archmem.foundation.values "Prints its source locations with"
        archmem.foundation.config -> archmem.foundation.values "Compares and prints its sections with"
        archmem.foundation.escaping -> archmem.foundation.values "Compares and prints its errors with"
        archmem.foundation.escaping -> archmem.foundation.words "Compiles the patterns it rarely runs at first use with"

        # the model
        archmem.domain -> archmem.foundation "Builds value types with"
        archmem.domain.loader -> archmem.domain.dsl "Parses workspace.dsl with"
        archmem.domain.loader -> archmem.domain.formats "Parses YAML models with"
        archmem.domain.loader -> archmem.domain.likec4 "Finds and parses LikeC4 workspaces with"
        archmem.domain.likec4 -> archmem.domain.codepaths "Confines included folders and names the paths property with"
        archmem.domain.likec4 -> archmem.foundation.jsoninput "Reads likec4.config.json with"
        archmem.domain.loader -> archmem.domain.adrs "Reads docs/adr with"
        archmem.domain.loader -> archmem.domain.codepaths "Resolves code paths with"
        archmem.service.facade -> archmem.domain.onboarding "Suggests element paths with"
        archmem.domain.onboarding -> archmem.domain.codepaths "Matches globs and knows what is outside the code with"
        archmem.domain.onboarding -> archmem.adapters.install "Rewrites archmem.toml atomically with"
        archmem.domain.dsl -> archmem.domain.adrs "Reads !adrs folders with"
        archmem.domain.dsl -> archmem.domain.codepaths "Confines model paths with"
        archmem.domain.formats -> archmem.domain.adrs "Reads decisions with"
        archmem.domain.formats -> archmem.domain.codepaths "Confines model paths with"
        archmem.domain.adrs -> archmem.domain.codepaths "Confines decision folders with"

        # memory
        archmem.memory -> archmem.foundation "Builds memories with"
        archmem.memory -> archmem.adapters.store "Stores memories in"
        archmem.memory.lifecycle -> archmem.memory.textrules "Checks and indexes text with"
        archmem.memory.lifecycle -> archmem.domain "Resolves elements and decisions with"
        archmem.memory.lifecycle -> archmem.adapters.embeddings "Embeds memories with"
        archmem.memory.lifecycle -> archmem.recall.engine "Embeds through the vector index of"
        archmem.memory.memoryfiles -> archmem.memory.textrules "Reads links and kinds with"
        archmem.memory.memoryfiles -> archmem.domain.codepaths "Checks that anchors stay in the repository with"
        archmem.memory.memoryfiles -> archmem.memory.lifecycle "Indexes memory files as memories with"
        archmem.memory.lifecycle -> archmem.memory.memoryfiles "Writes each memory to its file through"
        archmem.memory.sessions -> archmem.memory.lifecycle "Writes session outcomes through"
        archmem.memory.sessions -> archmem.memory.textrules "Finds near-duplicates with"
        archmem.memory.teamfiles -> archmem.memory.memoryfiles "Reads memory files with"
        archmem.memory.teamfiles -> archmem.memory.textrules "Checks links, kinds and secrets with"
        archmem.memory.teamfiles -> archmem.memory.lifecycle "Finds forks and clashes with"
        archmem.memory.teamfiles -> archmem.drift.driftindex "Escapes GitHub annotations and reads drift accept files with"

        # recall
        archmem.recall -> archmem.foundation "Reads settings and values of"
        archmem.recall.engine -> archmem.recall.scoring "Scores with"
        archmem.recall.engine -> archmem.recall.elementmatch "Finds relevant elements with"
        archmem.recall.engine -> archmem.recall.decision "Decides whether to answer with"
        archmem.recall.engine -> archmem.memory.textrules "Tokenizes queries with"
        archmem.recall.engine -> archmem.domain.codepaths "Maps changed files to elements with"
        archmem.recall.engine -> archmem.adapters.store "Searches"
        archmem.recall.engine -> archmem.adapters.embeddings "Embeds queries with"
        archmem.recall.elementmatch -> archmem.memory.textrules "Tokenizes element text with"
        archmem.recall.engine -> archmem.recall.thesaurus "Asks for the synonyms of a task's words in"
        archmem.recall.elementmatch -> archmem.recall.thesaurus "Matches synonyms of a task's words with"
        archmem.recall.thesaurus -> archmem.memory.textrules "Drops stop-words with"
        archmem.recall.elementmatch -> archmem.recall.scoring "Weighs evidence by how specific it is with"
        archmem.recall.elementmatch -> archmem.domain.codepaths "Maps files to elements with"

        # drift
        archmem.drift -> archmem.foundation "Reads settings and values of"
        archmem.drift.driftindex -> archmem.domain.codepaths "Matches changes to elements' paths, and tells the model file's mapping lines from its describing ones, with"
        archmem.drift.driftindex -> archmem.adapters.git "Reads the history, blames the model file and shows what changed since a moment with"
        archmem.drift.driftindex -> archmem.adapters.store "Caches the history in"
        archmem.drift.driftindex -> archmem.adapters.install "Writes accept files atomically with"

        # conformance
        archmem.conformance -> archmem.foundation "Reads rules and builds the report with"
        archmem.conformance.checker -> archmem.conformance.imports "Reads and resolves imports with"
        archmem.conformance.checker -> archmem.domain.codepaths "Lifts files to elements with"

        # render
        archmem.render -> archmem.foundation "Reads values and words of"
        archmem.render.briefing -> archmem.recall "Renders recall results and scores with"
        archmem.render.briefing -> archmem.domain.codepaths "Sizes elements with"

        # adapters
        archmem.adapters -> archmem.foundation "Reports failures and builds values with"
        archmem.adapters.embeddings -> archmem.adapters.store "Stores vectors in"

        # pull requests
        archmem.service.facade -> archmem.review.pullrequest "Reviews pull requests with"
        archmem.review.pullrequest -> archmem.adapters.git "Reads the diff base...head with"
        archmem.review.pullrequest -> archmem.recall.engine "Ranks the touched elements' memories with"
        archmem.service.facade -> archmem.adapters.install "Reads which agents are connected (status), runs their hooks in a clean environment (status), and reads the session-end transcripts with"
        archmem.interfaces.cli -> archmem.review.pullrequest "Reviews pull requests with"
        archmem.interfaces.cli -> archmem.adapters.ciapis "Reports GitHub and GitLab API failures of"
        archmem.review.pullrequest -> archmem.foundation "Reads settings and values of"
        archmem.review.pullrequest -> archmem.domain.codepaths "Maps changed files to elements with"
        archmem.review.pullrequest -> archmem.drift.driftindex "Asks what is VERIFY, and reads the drift accept files of a change, with"
        archmem.review.pullrequest -> archmem.memory.memoryfiles "Reads memory files at base and head with"
        archmem.review.pullrequest -> archmem.recall.elementmatch "Ranks elements with"
        archmem.review.pullrequest -> archmem.render.briefing "Renders the comment with"
    }

    views {
        container archmem {
            include *
            autolayout lr
        }
    }
}
