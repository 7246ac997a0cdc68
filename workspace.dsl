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
                cli = component "CLI" "The archmem command: flags, tables, --json, exit codes." "click" {
                    properties {
                        "archmem.paths" "archmem/cli.py, archmem/cli_output.py, archmem/cli_demo.py, archmem/words.py, archmem/cli_memory.py, archmem/cli_detail.py, archmem/cli_drift.py, archmem/__main__.py"
                    }
                }
                mcp = component "MCP server" "archmem mcp: sessions, recall, remember, confirm, briefings and the map as MCP tools over stdio." "MCP SDK (MCPServer)" {
                    properties {
                        "archmem.paths" "archmem/cli_mcp.py, archmem/mcp/**"
                    }
                }
                install = component "Agent integration" "archmem install: the MCP entry, SessionStart hook and habits section for Claude Code, Codex and other clients." {
                    properties {
                        "archmem.paths" "archmem/cli_install.py, archmem/cli_hook.py, archmem/agents/**"
                    }
                }
            }

            service = container "Workspace" "The one façade: owns config, clock, repository and store." "Python" {
                facade = component "Workspace" "Opens a repository, loads its model, answers every operation." {
                    properties {
                        "archmem.paths" "archmem/workspace.py, archmem/__init__.py, archmem/demo.py, archmem/status.py, archmem/initialize.py"
                    }
                }
                config = component "Config" "archmem.toml, [tool.archmem] and ARCHMEM_* settings with their defaults." {
                    properties {
                        "archmem.paths" "archmem/config.py"
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
            }

            domain = container "Model" "Reads the architecture model into elements, relationships and decisions." "Python, pydantic" {
                types = component "Model types" "Element, Relationship, Decision, ArchitectureModel; how deep a model may nest." "pydantic" {
                    properties {
                        "archmem.paths" "archmem/model/types.py, archmem/model/__init__.py, archmem/model/limits.py"
                    }
                }
                dsl = component "Structurizr DSL parser" "Lexer and context-stack parser for workspace.dsl." {
                    properties {
                        "archmem.paths" "archmem/model/dsl/**"
                    }
                }
                formats = component "Other model formats" "archmem YAML and Structurizr JSON." {
                    properties {
                        "archmem.paths" "archmem/model/yaml_model.py, archmem/model/structurizr_json.py"
                    }
                }
                adrs = component "Decision records" "adrtools, MADR and log4brains folders." {
                    properties {
                        "archmem.paths" "archmem/model/adrs.py"
                    }
                }
                codepaths = component "Code ownership" "Path globs, element ownership, discovery of the model file, what a model may name." {
                    properties {
                        "archmem.paths" "archmem/model/paths.py, archmem/model/ownership.py, archmem/model/loader.py, archmem/model/summary.py, archmem/model/confine.py"
                    }
                }
            }

            memory = container "Memory" "Memories on elements: remember, confirm, supersede, links, sessions, review." "Python" {
                lifecycle = component "Memory lifecycle" "Restating confirms, supersede without forks, archive, purge, export and import." {
                    properties {
                        "archmem.paths" "archmem/memory/lifecycle.py, archmem/memory/transfer.py, archmem/memory/types.py, archmem/memory/__init__.py"
                    }
                }
                sessions = component "Sessions" "Exposures and citations per session; the review queue." {
                    properties {
                        "archmem.paths" "archmem/memory/sessions.py, archmem/memory/review.py"
                    }
                }
                memoryfiles = component "Memory files" "One Markdown file per memory (the truth in git) and the sync that indexes them." {
                    properties {
                        "archmem.paths" "archmem/memory/file_format.py, archmem/memory/sync.py"
                    }
                }
                textrules = component "Text rules" "Identifier-aware search text, similarity, wikilink grammar, secret detection, kinds." {
                    properties {
                        "archmem.paths" "archmem/memory/text.py, archmem/memory/links.py, archmem/memory/secrets.py, archmem/memory/kinds.py"
                    }
                }
            }

            recall = container "Recall" "Ranks memories for a task: words, elements, meaning, kind, freshness, usage, drift." "Python" {
                scoring = component "Score formula" "Every factor of the score and the weights, in one place." {
                    properties {
                        "archmem.paths" "archmem/recall/score.py"
                    }
                }
                elementmatch = component "Element relevance" "Hints, changed files and task words matched to elements." {
                    properties {
                        "archmem.paths" "archmem/recall/elements.py"
                    }
                }
                engine = component "Recall engine" "Candidates from BM25, elements and vectors; link neighbours; explanations." {
                    properties {
                        "archmem.paths" "archmem/recall/engine.py, archmem/recall/semantic.py, archmem/recall/__init__.py"
                    }
                }
            }

            drift = container "Drift" "When the code under an element moved; which memories to verify." "Python, git" {
                driftindex = component "Drift index" "Prefix sums over per-element changes; stamps; missing code; staleness in words." {
                    properties {
                        "archmem.paths" "archmem/drift/**"
                    }
                }
            }

            render = container "Render" "Jinja2 templates: the briefing and the knowledge map." "Python, Jinja2" {
                briefing = component "Briefing" "Task, elements, ranked memories with VERIFY and via neighbours, gaps, budget." {
                    properties {
                        "archmem.paths" "archmem/render/**"
                    }
                }
            }

            adapters = container "Adapters" "The outside world: the repository on disk and its git history." "Python, git" {
                repo = component "Repository" "Files in the working tree and their sizes." {
                    properties {
                        "archmem.paths" "archmem/repo.py"
                    }
                }
                history = component "History reader" "One streamed git log --numstat pass, cached per commit." "GitPython" {
                    properties {
                        "archmem.paths" "archmem/history.py"
                    }
                }
                embeddings = component "Embeddings" "OpenAI-compatible and Ollama providers; vectors as float32 blobs." {
                    properties {
                        "archmem.paths" "archmem/embeddings.py"
                    }
                }
                testing = component "Loopback embedding server" "A deterministic fake embedding model over HTTP for tests and benchmarks." {
                    properties {
                        "archmem.paths" "archmem/testing/**"
                    }
                }
                store = component "Store" "Memory folders written atomically, and the SQLite index: WAL, migrations, FTS5, vectors, sessions, audit log." "SQLite, Markdown" {
                    properties {
                        "archmem.paths" "archmem/store/**"
                    }
                }
            }
        }

        agent -> archmem.interfaces.mcp "Starts sessions, recalls and remembers through"
        developer -> archmem.interfaces.install "Connects an agent with"
        archmem.interfaces.mcp -> archmem.service.facade "Calls"
        developer -> archmem.interfaces.cli "Runs"
        archmem.interfaces.cli -> archmem.service.facade "Calls"
        archmem.service.facade -> archmem.service.config "Reads settings with"
        archmem.service.facade -> archmem.domain.codepaths "Loads the model through"
        archmem.domain.codepaths -> archmem.domain.dsl "Parses workspace.dsl with"
        archmem.domain.codepaths -> archmem.domain.formats "Parses YAML and JSON models with"
        archmem.domain.dsl -> archmem.domain.adrs "Reads !adrs folders with"
        archmem.service.facade -> archmem.adapters.repo "Lists files with"
        archmem.service.facade -> archmem.memory.lifecycle "Writes memories through"
        archmem.memory.lifecycle -> archmem.memory.textrules "Checks and indexes text with"
        archmem.memory.lifecycle -> archmem.adapters.store "Stores memories in"
        archmem.memory.memoryfiles -> archmem.adapters.store "Indexes memory files in"
        archmem.service.facade -> archmem.memory.memoryfiles "Syncs the index from the files with"
        archmem.memory.sessions -> archmem.adapters.store "Records usage in"
        archmem.service.facade -> archmem.recall.engine "Recalls through"
        archmem.recall.engine -> archmem.recall.scoring "Scores with"
        archmem.recall.engine -> archmem.recall.elementmatch "Finds relevant elements with"
        archmem.recall.engine -> archmem.adapters.store "Searches"
        archmem.service.facade -> archmem.adapters.embeddings "Embeds memories and queries with"
        archmem.service.facade -> archmem.render.briefing "Renders briefings with"
    }

    views {
        container archmem {
            include *
            autolayout lr
        }
    }
}
