"""Numbered schema migrations, each applied in one transaction with the row recording it.

Append new steps at the end; never edit one that has shipped. ``migrate`` refuses a
database that is not archmem's, or one written by a newer archmem.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from archmem.errors import StoreError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[int, str, Migration]] = []
MIGRATIONS_TABLE = "archmem_migrations"


def migration(number: int, name: str) -> Callable[[Migration], Migration]:
    def register(function: Migration) -> Migration:
        assert not MIGRATIONS or MIGRATIONS[-1][0] == number - 1, "migrations are numbered in order"
        MIGRATIONS.append((number, name, function))
        return function

    return register


@migration(1, "memories, links, sessions, vectors, audit")
def _m001_initial(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE memories (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            title TEXT,
            title_key TEXT,
            kind TEXT NOT NULL CHECK (kind IN ('pitfall', 'convention', 'note', 'session_outcome')),
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            author TEXT,
            session_id TEXT,
            created_at TEXT NOT NULL,
            confirmed_at TEXT,
            confirmations INTEGER NOT NULL DEFAULT 0,
            supersedes TEXT,
            superseded_by TEXT,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
            status_reason TEXT,
            exposures INTEGER NOT NULL DEFAULT 0,
            citations INTEGER NOT NULL DEFAULT 0,
            search_title TEXT NOT NULL DEFAULT '',
            search_body TEXT NOT NULL DEFAULT ''
        );
        -- one active memory per title, enforced by the database under concurrent writers
        CREATE UNIQUE INDEX memories_active_title ON memories(title_key)
            WHERE status = 'active' AND title_key IS NOT NULL;
        -- a memory is superseded at most once: supersede chains never fork
        CREATE UNIQUE INDEX memories_supersedes ON memories(supersedes) WHERE supersedes IS NOT NULL;
        CREATE INDEX memories_status_kind ON memories(status, kind);
        CREATE INDEX memories_content_hash ON memories(content_hash);

        CREATE TABLE memory_elements (
            memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            element_id TEXT NOT NULL,
            position INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (memory_id, element_id)
        );
        CREATE INDEX memory_elements_element ON memory_elements(element_id);

        CREATE TABLE memory_anchors (
            memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            anchor TEXT NOT NULL,
            position INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (memory_id, anchor)
        );

        CREATE VIRTUAL TABLE memory_fts USING fts5(search_title, search_body, tokenize = 'unicode61');
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
            INSERT INTO memory_fts(rowid, search_title, search_body)
            VALUES (new.seq, new.search_title, new.search_body);
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF search_title, search_body ON memories BEGIN
            UPDATE memory_fts SET search_title = new.search_title, search_body = new.search_body
            WHERE rowid = new.seq;
        END;
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
            DELETE FROM memory_fts WHERE rowid = old.seq;
        END;

        CREATE TABLE links (
            source_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            target_text TEXT NOT NULL,
            target_key TEXT NOT NULL,
            shown TEXT,
            target_kind TEXT CHECK (target_kind IN ('memory', 'element', 'decision')),
            target_id TEXT,
            PRIMARY KEY (source_id, position)
        );
        CREATE INDEX links_pending ON links(target_key) WHERE target_id IS NULL;
        CREATE INDEX links_target ON links(target_id);

        CREATE TABLE embeddings (
            memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dims INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (memory_id, model)
        );

        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            task TEXT NOT NULL,
            agent TEXT,
            elements TEXT NOT NULL DEFAULT '[]',
            started_at TEXT NOT NULL,
            ended_at TEXT,
            outcome_memory_id TEXT
        );
        CREATE TABLE exposures (
            session_id TEXT NOT NULL,
            memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            PRIMARY KEY (session_id, memory_id)
        );
        CREATE TABLE citations (
            session_id TEXT NOT NULL,
            memory_id TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            at TEXT NOT NULL,
            PRIMARY KEY (session_id, memory_id)
        );

        CREATE TABLE audit_log (
            seq INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            action TEXT NOT NULL,
            memory_id TEXT,
            reason TEXT,
            detail TEXT
        );
        """
    )


@migration(2, "term statistics for choosing selective search terms")
def _m002_vocabulary(db: sqlite3.Connection) -> None:
    db.execute("CREATE VIRTUAL TABLE memory_vocab USING fts5vocab(memory_fts, 'row')")


def run_script(db: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one (``executescript`` would commit the open transaction)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        db.execute(statement)


def current_version(db: sqlite3.Connection) -> int | None:
    """The newest applied migration, or None when the database is not archmem's (yet)."""
    has_table = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)
    ).fetchone()
    if not has_table:
        return None
    row = db.execute(f"SELECT MAX(id) FROM {MIGRATIONS_TABLE}").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def migrate(db: sqlite3.Connection, path: str, *, now: str) -> list[int]:
    """Bring the schema up to date; returns the migrations applied.

    ``db`` must be in autocommit mode (``isolation_level=None``): each step runs in its
    own ``BEGIN IMMEDIATE`` so two processes opening a new store never both migrate.
    """
    applied: list[int] = []
    db.execute("BEGIN")  # one snapshot: another process may be migrating this new file right now
    try:
        version = current_version(db)
        foreign = db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 3"
        ).fetchall()
    finally:
        db.execute("COMMIT")
    if version is None and foreign:
        names = ", ".join(row[0] for row in foreign)
        raise StoreError(
            f"{path} is a SQLite database but not an archmem store (it has tables {names}); nothing was changed",
            hint="point [store] path in archmem.toml at another file",
        )
    newest = MIGRATIONS[-1][0]
    if version is not None and version > newest:
        raise StoreError(
            f"{path} was written by a newer archmem (schema {version}; this version knows up to {newest}); nothing was changed",
            hint="upgrade archmem (pip install -U archmem)",
        )
    for number, name, function in MIGRATIONS:
        if version is not None and number <= version:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            # another process may have applied it while we waited for the lock
            latest = current_version(db)
            if latest is not None and number <= latest:
                db.execute("ROLLBACK")
                continue
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE}"
                " (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            function(db)
            db.execute(f"INSERT INTO {MIGRATIONS_TABLE} (id, name, applied_at) VALUES (?, ?, ?)", (number, name, now))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:  # SQLITE_FULL and I/O errors have rolled back already
                db.execute("ROLLBACK")
            raise
        applied.append(number)
    return applied


@migration(3, "git history cache: first-parent commits and their file changes")
def _m003_history(db: sqlite3.Connection) -> None:
    # Written by archmem.store.commits.CommitCache; seq orders commits oldest → newest.
    # A commit's changes are kept twice, in one transaction: as JSON on the commit row
    # (loading the whole history is one query and one json.loads per commit) and as
    # rows of history_changes (queries by path). No foreign key on commit_seq: checking
    # it makes inserting a long history three times slower, and both tables are only
    # ever written and cleared together.
    run_script(
        db,
        """
        CREATE TABLE history_commits (
            seq INTEGER PRIMARY KEY,
            sha TEXT NOT NULL UNIQUE,
            time INTEGER NOT NULL,
            author TEXT NOT NULL,
            parents TEXT NOT NULL DEFAULT '',
            changes TEXT NOT NULL DEFAULT '[]'
        );
        CREATE TABLE history_changes (
            commit_seq INTEGER NOT NULL,
            position INTEGER NOT NULL,
            path TEXT NOT NULL,
            added INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('A', 'D', 'M', 'R')),
            old_path TEXT,
            PRIMARY KEY (commit_seq, position)
        ) WITHOUT ROWID;
        CREATE INDEX history_changes_path ON history_changes(path);
        CREATE TABLE history_meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """
    )


@migration(4, "accepted drift")
def _m004_drift_accepts(db: sqlite3.Connection) -> None:
    run_script(
        db,
        """
        CREATE TABLE drift_accepts (
            seq INTEGER PRIMARY KEY,
            element_id TEXT NOT NULL,
            at TEXT NOT NULL,
            note TEXT
        );
        CREATE INDEX drift_accepts_element ON drift_accepts(element_id, at);
        """,
    )


@migration(5, "the word index holds active memories only")
def _m005_active_fts(db: sqlite3.Connection) -> None:
    """Recall and restatement only ever rank active memories. With superseded and archived
    ones out of the word index, a search needs no join to filter them, and term
    statistics (IDF) describe what can actually be returned."""
    run_script(
        db,
        """
        DROP TRIGGER memories_fts_insert;
        DROP TRIGGER memories_fts_update;
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories WHEN new.status = 'active' BEGIN
            INSERT INTO memory_fts(rowid, search_title, search_body)
            VALUES (new.seq, new.search_title, new.search_body);
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF search_title, search_body, status ON memories BEGIN
            DELETE FROM memory_fts WHERE rowid = old.seq;
            INSERT INTO memory_fts(rowid, search_title, search_body)
            SELECT new.seq, new.search_title, new.search_body WHERE new.status = 'active';
        END;
        DELETE FROM memory_fts WHERE rowid IN (SELECT seq FROM memories WHERE status != 'active');
        """,
    )


@migration(6, "a version number per embedding model")
def _m006_embedding_versions(db: sqlite3.Connection) -> None:
    """Recall keeps each model's vectors in memory; asking whether they changed by
    counting them cost a scan of the table on every recall (tens of ms at 100k)."""
    run_script(
        db,
        """
        CREATE TABLE embedding_versions (
            model TEXT PRIMARY KEY,
            version INTEGER NOT NULL
        );
        INSERT INTO embedding_versions (model, version) SELECT model, 1 FROM embeddings GROUP BY model;
        CREATE TRIGGER embeddings_version_insert AFTER INSERT ON embeddings BEGIN
            INSERT INTO embedding_versions (model, version) VALUES (new.model, 1)
            ON CONFLICT (model) DO UPDATE SET version = version + 1;
        END;
        CREATE TRIGGER embeddings_version_update AFTER UPDATE ON embeddings BEGIN
            INSERT INTO embedding_versions (model, version) VALUES (new.model, 1)
            ON CONFLICT (model) DO UPDATE SET version = version + 1;
        END;
        CREATE TRIGGER embeddings_version_delete AFTER DELETE ON embeddings BEGIN
            INSERT INTO embedding_versions (model, version) VALUES (old.model, 1)
            ON CONFLICT (model) DO UPDATE SET version = version + 1;
        END;
        """,
    )


@migration(7, "the word index stems words (Porter)")
def _m007_porter(db: sqlite3.Connection) -> None:
    """Stemming won on the recall quality set once term statistics were looked up by
    stem too (archmem/store/words.py). The index is rebuilt from the active memories."""
    run_script(
        db,
        """
        DROP TABLE memory_vocab;
        DROP TABLE memory_fts;
        CREATE VIRTUAL TABLE memory_fts USING fts5(search_title, search_body, tokenize = 'porter unicode61');
        CREATE VIRTUAL TABLE memory_vocab USING fts5vocab(memory_fts, 'row');
        INSERT INTO memory_fts(rowid, search_title, search_body)
            SELECT seq, search_title, search_body FROM memories WHERE status = 'active';
        """,
    )


@migration(8, "exposures count only sessions that ended")
def _m008_exposures_of_ended_sessions(db: sqlite3.Connection) -> None:
    """A memory shown to a session that never ended (the agent forgot end_session) is no
    evidence that it was ignored. Take those sessions' exposures out of the counters; the
    rows stay, and count when their session ends. Imported counts are kept."""
    run_script(
        db,
        """
        UPDATE memories SET exposures = MAX(0, exposures - (
            SELECT COUNT(*) FROM exposures e JOIN sessions s ON s.id = e.session_id
            WHERE e.memory_id = memories.id AND s.ended_at IS NULL
        ));
        """,
    )


@migration(9, "memory files are the truth: the index tracks them, and chains may fork")
def _m009_memory_files(db: sqlite3.Connection) -> None:
    """Memories became committed Markdown files and this database their local index.

    - ``memory_files`` records each file's size, mtime and hash (an unchanged file is
      recognized without reading it) and any error reading it;
    - ``file_status`` is what a file says (active or archived); ``status`` adds what follows
      from the other files (superseded when one supersedes it);
    - two branches may each supersede one memory or take one title: merged, that is a fork
      or a clash for ``archmem check`` to report, so those unique indexes become plain ones
      (a writer here still checks both under the write lock);
    - ``private`` marks memories kept in the git-ignored folder;
    - an existing store's memories are written out as files on the next open
      (``store_meta.files_export``)."""
    run_script(
        db,
        """
        DROP INDEX memories_supersedes;
        CREATE INDEX memories_supersedes ON memories(supersedes) WHERE supersedes IS NOT NULL;
        DROP INDEX memories_active_title;
        CREATE INDEX memories_active_title ON memories(title_key) WHERE status = 'active' AND title_key IS NOT NULL;
        ALTER TABLE memories ADD COLUMN file_status TEXT NOT NULL DEFAULT 'active'
            CHECK (file_status IN ('active', 'archived'));
        ALTER TABLE memories ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
        UPDATE memories SET file_status = 'archived' WHERE status = 'archived';
        CREATE TABLE memory_files (
            path TEXT PRIMARY KEY,
            memory_id TEXT,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            error TEXT,
            error_line INTEGER
        );
        CREATE INDEX memory_files_memory ON memory_files(memory_id);
        CREATE TABLE store_meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        INSERT INTO store_meta (key, value) SELECT 'files_export', 'pending' WHERE EXISTS (SELECT 1 FROM memories);
        """,
    )


@migration(10, "imports per file content, for conformance")
def _m010_code_imports(db: sqlite3.Connection) -> None:
    """What each file imports, keyed by its content hash (git's blob id) and the
    extractor (language and version): a later run reads only files whose content is new.
    ``seen`` is the last run that needed the row, so rows no branch needs can go."""
    run_script(
        db,
        """
        CREATE TABLE code_imports (
            blob TEXT NOT NULL,
            extractor TEXT NOT NULL,
            imports TEXT NOT NULL,
            seen INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (blob, extractor)
        ) WITHOUT ROWID;
        """,
    )


@migration(11, "compounds keep their weight: identifier parts in a column of their own")
def _m011_search_parts(db: sqlite3.Connection) -> None:
    """``add_on`` was indexed as ``addon add on``, so "add" in a task matched it as much
    as a memory about adding. The parts of identifiers (``_`` and case changes) now live
    in ``search_parts``, ranked below whole words (archmem/memory/text.py). The search
    text of existing memories is re-derived by the domain on the next open
    (``store_meta.search_text``). Anchors get an index: a changed file finds the memories
    that anchor it."""
    run_script(
        db,
        """
        ALTER TABLE memories ADD COLUMN search_parts TEXT NOT NULL DEFAULT '';
        DROP TRIGGER memories_fts_insert;
        DROP TRIGGER memories_fts_update;
        DROP TABLE memory_vocab;
        DROP TABLE memory_fts;
        CREATE VIRTUAL TABLE memory_fts USING fts5(search_title, search_body, search_parts,
            tokenize = 'porter unicode61');
        CREATE VIRTUAL TABLE memory_vocab USING fts5vocab(memory_fts, 'row');
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories WHEN new.status = 'active' BEGIN
            INSERT INTO memory_fts(rowid, search_title, search_body, search_parts)
            VALUES (new.seq, new.search_title, new.search_body, new.search_parts);
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF search_title, search_body, search_parts, status
        ON memories BEGIN
            DELETE FROM memory_fts WHERE rowid = old.seq;
            INSERT INTO memory_fts(rowid, search_title, search_body, search_parts)
            SELECT new.seq, new.search_title, new.search_body, new.search_parts WHERE new.status = 'active';
        END;
        INSERT INTO memory_fts(rowid, search_title, search_body, search_parts)
            SELECT seq, search_title, search_body, search_parts FROM memories WHERE status = 'active';
        CREATE INDEX memory_anchors_anchor ON memory_anchors(anchor);
        INSERT INTO store_meta (key, value) SELECT 'search_text', 'stale' WHERE EXISTS (SELECT 1 FROM memories);
        """,
    )


@migration(12, "a confirmation says who and why, as its memory file does")
def _m012_confirmed_by(db: sqlite3.Connection) -> None:
    """``confirmed_by`` and ``confirm_reason`` are written to the memory file with
    ``confirmed``, so a teammate's index rebuilt from the files has them too. A file
    pulled before this version was indexed without them (an unknown key): every file is
    read again on the next open (sizes and hashes forgotten, the folder's signature too)."""
    run_script(
        db,
        """
        ALTER TABLE memories ADD COLUMN confirmed_by TEXT;
        ALTER TABLE memories ADD COLUMN confirm_reason TEXT;
        UPDATE memory_files SET size = -1, sha256 = '';
        DELETE FROM store_meta WHERE key = 'files_signature';
        """,
    )


@migration(13, "titles of every status, and when each active memory was confirmed, from indexes")
def _m013_title_and_since_indexes(db: sqlite3.Connection) -> None:
    """A title is looked up among all memories too (a link or ``supersedes`` naming a
    superseded one), and the index covered active ones only: a scan of the table at every
    such lookup. Counting the memories to VERIFY reads each active memory's id and
    confirmation time: from an index that holds them, not from rows that hold the content."""
    run_script(
        db,
        """
        DROP INDEX IF EXISTS memories_active_title;
        CREATE INDEX IF NOT EXISTS memories_title ON memories(title_key) WHERE title_key IS NOT NULL;
        CREATE INDEX IF NOT EXISTS memories_status_since ON memories(status, id, confirmed_at, created_at);
        """,
    )


@migration(14, "the store writes a new memory's words itself, many rows in one statement")
def _m014_words_written_by_the_store(db: sqlite3.Connection) -> None:
    """A trigger's statement savepoint made FTS5 write a segment a row (a rebuild wrote
    and merged segments without end); ``insert_memory`` and ``upsert_from_files`` write it."""
    run_script(db, "DROP TRIGGER IF EXISTS memories_fts_insert;")


@migration(15, "the files that failed, from an index")
def _m015_file_problems_index(db: sqlite3.Connection) -> None:
    """Every open lists the files that could not be indexed: without an index that walked
    every file's row in path order (a tenth of a second at 50,000 files) to find none."""
    run_script(db, "CREATE INDEX IF NOT EXISTS memory_files_problems ON memory_files(path) WHERE error IS NOT NULL;")


@migration(16, "how many memories are active, and when anchors last changed, kept by triggers")
def _m016_counters(db: sqlite3.Connection) -> None:
    """Every recall counted the active memories (N for IDF: 2 ms at 50,000, an index scan)
    and read every distinct anchor to know its history pathspecs unchanged (6 ms). Triggers
    keep the count, and a number that moves whenever an anchor row does, in ``store_meta``
    (a microsecond a row written); ``memory_total`` and the pathspecs read one row each."""
    run_script(
        db,
        """
        INSERT OR REPLACE INTO store_meta (key, value)
            SELECT 'active_memories', COUNT(*) FROM memories WHERE status = 'active';
        INSERT OR IGNORE INTO store_meta (key, value) VALUES ('anchors_generation', 0);
        UPDATE store_meta SET value = value + 1 WHERE key = 'anchors_generation';
        CREATE TRIGGER IF NOT EXISTS memories_active_insert AFTER INSERT ON memories WHEN new.status = 'active' BEGIN
            UPDATE store_meta SET value = value + 1 WHERE key = 'active_memories';
        END;
        CREATE TRIGGER IF NOT EXISTS memories_active_delete AFTER DELETE ON memories WHEN old.status = 'active' BEGIN
            UPDATE store_meta SET value = value - 1 WHERE key = 'active_memories';
        END;
        CREATE TRIGGER IF NOT EXISTS memories_active_update AFTER UPDATE OF status ON memories
        WHEN (old.status = 'active') != (new.status = 'active') BEGIN
            UPDATE store_meta SET value = value + (new.status = 'active') - (old.status = 'active')
            WHERE key = 'active_memories';
        END;
        CREATE TRIGGER IF NOT EXISTS memory_anchors_insert AFTER INSERT ON memory_anchors BEGIN
            UPDATE store_meta SET value = value + 1 WHERE key = 'anchors_generation';
        END;
        CREATE TRIGGER IF NOT EXISTS memory_anchors_delete AFTER DELETE ON memory_anchors BEGIN
            UPDATE store_meta SET value = value + 1 WHERE key = 'anchors_generation';
        END;
        CREATE TRIGGER IF NOT EXISTS memory_anchors_update AFTER UPDATE ON memory_anchors BEGIN
            UPDATE store_meta SET value = value + 1 WHERE key = 'anchors_generation';
        END;
        """,
    )
