"""SQLite schema as numbered, recorded migrations (every table, the routes' included), and
the SQL statements the core store runs on every backend (portable SQL with ``?``
placeholders; ``pg_schema`` has PostgreSQL's migrations under the same numbers); each
route repository's statements live in its ``repo_sql`` module.

Migrations are append-only: never edit one that has shipped, add the next number.
"""

from __future__ import annotations

# Migration 7 is the same on every backend (plain types, no vectors).
API_KEYS = """
-- The service's API keys (logicmem serve): only a SHA-256 of each secret is kept.
CREATE TABLE api_keys (
    key_id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant);
"""

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "m001_create_tables",
        """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE turns (
    rowid INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    speaker TEXT NOT NULL,
    role TEXT NOT NULL,
    text TEXT NOT NULL,
    said_at TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    UNIQUE (user_id, session_id, turn_id)
);
CREATE INDEX turns_by_user ON turns (user_id, seq);

CREATE TABLE memories (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    text TEXT NOT NULL,
    category TEXT NOT NULL,
    said_at TEXT,
    session_id TEXT,
    source_turns TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'active',
    superseded_by TEXT,
    embedding BLOB,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX memories_by_user ON memories (user_id, status);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text, content='memories', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;

CREATE TABLE history (
    rowid INTEGER PRIMARY KEY,
    memory_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    event TEXT NOT NULL,
    old_text TEXT,
    new_text TEXT,
    detail TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL
);
CREATE INDEX history_by_memory ON history (memory_id, rowid);
CREATE INDEX history_by_user ON history (user_id);

CREATE TABLE events (
    rowid INTEGER PRIMARY KEY,
    user_id TEXT,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL
);
CREATE INDEX events_by_kind ON events (kind);
""",
    ),
    (
        2,
        "m002_visibility",
        """
CREATE TABLE criticality (
    memory_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    score REAL NOT NULL,
    ctype TEXT NOT NULL,
    reason TEXT NOT NULL,
    source TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX criticality_by_user ON criticality (user_id);

CREATE TABLE memory_keys (
    rowid INTEGER PRIMARY KEY,
    memory_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL DEFAULT '',
    embedding BLOB NOT NULL
);
CREATE INDEX memory_keys_by_user ON memory_keys (user_id);
CREATE INDEX memory_keys_by_memory ON memory_keys (memory_id);

CREATE TABLE text_vectors (text TEXT PRIMARY KEY, embedding BLOB NOT NULL);

CREATE TABLE profiles (
    user_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
""",
    ),
    (
        3,
        "m003_rootmem",
        """
CREATE TABLE root_units (
    rowid INTEGER PRIMARY KEY,
    unit_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    activation TEXT NOT NULL,
    guidance TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '[]',
    event TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}',
    at TEXT NOT NULL,
    UNIQUE (unit_id, version)
);
CREATE INDEX root_units_by_user ON root_units (user_id, unit_id, version);

CREATE TABLE root_marks (
    user_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    state TEXT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL,
    PRIMARY KEY (user_id, scope, memory_id)
);
""",
    ),
    (
        4,
        "m004_rulemem",
        """
CREATE TABLE rulemem_facts (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    relation TEXT NOT NULL,
    object TEXT NOT NULL,
    time TEXT,
    source TEXT NOT NULL,
    embedding BLOB NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX rulemem_facts_by_user ON rulemem_facts (user_id);
CREATE INDEX rulemem_facts_by_memory ON rulemem_facts (memory_id);

CREATE TABLE rulemem_rules (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    body TEXT NOT NULL,
    head TEXT NOT NULL,
    support INTEGER NOT NULL,
    status TEXT NOT NULL,
    delta_self REAL,
    delta_fact REAL,
    score REAL,
    source_memories TEXT NOT NULL DEFAULT '[]',
    inducer TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{}',
    embedding BLOB NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX rulemem_rules_by_user ON rulemem_rules (user_id, status);

CREATE TABLE rulemem_progress (
    user_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    position INTEGER NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (user_id, scope)
);
""",
    ),
    (
        5,
        "m005_profile_lines",
        """
ALTER TABLE profiles ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE profiles ADD COLUMN state TEXT NOT NULL DEFAULT '{}';

CREATE TABLE profile_lines (
    user_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    text TEXT NOT NULL,
    memory_ids TEXT NOT NULL DEFAULT '[]',
    source_turns TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (user_id, line_no)
);
""",
    ),
    (
        6,
        "m006_trustworthy_memory",
        """
-- Resumable extraction: a turn stays pending until the memories extracted from it are
-- committed (in the same transaction); a claim says which process is extracting it.
ALTER TABLE turns ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN claim TEXT;
ALTER TABLE turns ADD COLUMN claim_at TEXT;
ALTER TABLE turns ADD COLUMN infer INTEGER NOT NULL DEFAULT 1;
CREATE INDEX turns_pending ON turns (pending, user_id, seq);

-- Truth over time: valid from when it was said until a later statement replaced it.
ALTER TABLE memories ADD COLUMN valid_from TEXT;
ALTER TABLE memories ADD COLUMN valid_until TEXT;
-- Until the write hooks (the visibility index) have run on a memory, it carries the
-- claim of the process indexing it; NULL: indexed.
ALTER TABLE memories ADD COLUMN index_claim TEXT;
CREATE INDEX memories_unindexed ON memories (index_claim) WHERE index_claim IS NOT NULL;
UPDATE memories SET valid_from = COALESCE(said_at, created_at);
UPDATE memories SET valid_until = COALESCE(
    (SELECT COALESCE(n.said_at, n.created_at) FROM memories n WHERE n.id = memories.superseded_by),
    updated_at)
WHERE status = 'superseded';

-- The keyword index with per-user statistics replaces FTS5, whose shared statistics
-- mixed users and whose segments kept deleted text until a merge.
ALTER TABLE memories ADD COLUMN n_terms INTEGER NOT NULL DEFAULT 0;
CREATE TABLE memory_terms (
    user_id TEXT NOT NULL,
    term TEXT NOT NULL,
    memory_rowid INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (user_id, term, memory_rowid)
) WITHOUT ROWID;
CREATE INDEX memory_terms_by_memory ON memory_terms (memory_rowid);
DROP TRIGGER memories_ai;
DROP TRIGGER memories_ad;
DROP TRIGGER memories_au;
DROP TABLE memories_fts;

-- Derived texts' vectors belong to a user, so forgetting the user removes them.
DROP TABLE text_vectors;
CREATE TABLE text_vectors (
    user_id TEXT NOT NULL,
    text TEXT NOT NULL,
    embedding BLOB NOT NULL,
    PRIMARY KEY (user_id, text)
);
""",
    ),
    (7, "m007_api_keys", API_KEYS),
    # The turn said before a write in its session (``Store.turn_before``): read by the
    # session's own turns, not by every turn of the user.
    (
        8,
        "m008_turns_by_session",
        "CREATE INDEX turns_by_session ON turns (user_id, session_id, seq);",
    ),
    # Which version of the write hooks (their code, data and settings) last indexed a
    # memory (``WritePipeline.index_version``); NULL: indexed before versions were kept.
    (9, "m009_indexed_with", "ALTER TABLE memories ADD COLUMN indexed_with TEXT;"),
]

CREATE_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL
)"""
APPLIED_MIGRATIONS = "SELECT number FROM schema_migrations"
RECORD_MIGRATION = "INSERT INTO schema_migrations (number, name, applied_at) VALUES (?, ?, ?)"

META_GET = "SELECT value FROM meta WHERE key = ?"
META_SET = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = ?"

INSERT_TURN = """
INSERT INTO turns (user_id, agent_id, run_id, session_id, turn_id, seq, speaker,
    role, text, said_at, metadata, created_at, pending, claim, claim_at, infer)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)
ON CONFLICT DO NOTHING"""
NEXT_TURN_SEQ = "SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM turns WHERE user_id = ?"
TURN_COLUMNS = (
    "user_id, agent_id, run_id, session_id, turn_id, seq, speaker, role, text, said_at, metadata"
)
SELECT_TURNS = f"SELECT {TURN_COLUMNS} FROM turns WHERE user_id = ?"
# Pending turns nobody is extracting: unclaimed, or claimed by a process that is gone.
SELECT_PENDING = f"""
SELECT rowid, claim, claim_at, infer, {TURN_COLUMNS} FROM turns WHERE pending = 1"""
CLAIM_TURN = """
UPDATE turns SET claim = ?, claim_at = ?
WHERE rowid = ? AND pending = 1 AND claim IS NOT DISTINCT FROM ?"""
FINISH_TURN = (
    "UPDATE turns SET pending = 0, claim = NULL, claim_at = NULL "
    "WHERE user_id = ? AND session_id = ? AND turn_id = ?"
)
COUNT_PENDING = "SELECT COUNT(*) AS n FROM turns WHERE pending = 1"

MEMORY_COLUMNS = (
    "id, user_id, agent_id, run_id, text, category, said_at, session_id, source_turns,"
    " metadata, status, superseded_by, created_at, updated_at, valid_from, valid_until"
)
INSERT_MEMORY = f"""
INSERT INTO memories ({MEMORY_COLUMNS}, n_terms, index_claim, embedding)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING rowid"""
SELECT_UNINDEXED = """
SELECT id, user_id, agent_id, run_id, index_claim, updated_at FROM memories
WHERE index_claim IS NOT NULL AND status = 'active'"""
SELECT_INDEXABLE_IN = f"""
SELECT {MEMORY_COLUMNS}, embedding FROM memories WHERE id IN ({{marks}}) AND status = 'active'"""
CLAIM_INDEX = """
UPDATE memories SET index_claim = ?, updated_at = ?
WHERE id = ? AND index_claim IS NOT DISTINCT FROM ?"""
MARK_INDEXED = "UPDATE memories SET index_claim = NULL, indexed_with = ? WHERE id IN ({marks})"
# Active memories the current write hooks' version did not index (``Store.indexed_otherwise``).
COUNT_INDEXED_OTHERWISE = """
SELECT COUNT(*) AS n FROM memories WHERE status = 'active' AND index_claim IS NULL
    AND indexed_with IS DISTINCT FROM ? AND substr(user_id, 1, ?) = ?"""
# Index again: every active memory of a user unindexed and unclaimed (''; a write leaves
# its own claim), so ``claim_unindexed`` hands it to whoever resumes.
MARK_UNINDEXED = "UPDATE memories SET index_claim = '' WHERE user_id = ? AND status = 'active'"
# Only those another version of the write hooks indexed (``mark_unindexed(other_than=)``).
MARK_UNINDEXED_OTHERWISE = MARK_UNINDEXED + " AND indexed_with IS DISTINCT FROM ?"
SELECT_MEMORY = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?"
SELECT_MEMORIES_IN = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({{marks}})"
SELECT_MEMORIES = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ?"
# Incremental consumers (RuleMem) read active memories after a position (rowid) watermark.
SELECT_MEMORIES_AFTER = f"""
SELECT rowid, {MEMORY_COLUMNS} FROM memories
WHERE user_id = ? AND status = 'active' AND rowid > ?"""
SELECT_VECTORS = "SELECT id, embedding FROM memories WHERE user_id = ?"
DELETE_MEMORY = "DELETE FROM memories WHERE id = ?"
MEMORY_ROWID = "SELECT rowid FROM memories WHERE id = ?"

# The keyword index: one posting per (user, stemmed term, memory) with its frequency.
INSERT_TERMS = "INSERT INTO memory_terms (user_id, term, memory_rowid, tf) VALUES (?, ?, ?, ?)"
DELETE_TERMS = "DELETE FROM memory_terms WHERE memory_rowid = ?"
# BM25 scored inside SQLite: the document frequency of each term, then one pass that sums
# idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg)) per memory, rounded to 9
# decimals so that equal scores are equal whatever order a backend sums in; ties go to the
# memory stored first, so a ranking does not depend on random ids or the backend.
POSTINGS_FROM = """
FROM memory_terms t JOIN memories m ON m.rowid = t.memory_rowid
WHERE t.user_id = ? AND t.term IN ({marks})"""
TERM_FREQUENCIES = "SELECT t.term AS term, COUNT(*) AS df {postings} GROUP BY t.term"
BM25_SCORES = """
SELECT m.id AS id, ROUND(CAST(
    SUM((CASE t.term {cases} END) * t.tf * ? / (t.tf + ? * (? + ? * m.n_terms))) AS NUMERIC), 9)
    AS score {postings} GROUP BY m.rowid ORDER BY score DESC, m.rowid LIMIT ?"""
KEYWORD_STATS = (
    "SELECT COUNT(*) AS docs, COALESCE(SUM(n_terms), 0) AS length FROM memories WHERE user_id = ?"
)

INSERT_HISTORY = """
INSERT INTO history (memory_id, user_id, event, old_text, new_text, detail, at)
VALUES (?, ?, ?, ?, ?, ?, ?)"""
SELECT_HISTORY = """
SELECT memory_id, user_id, event, old_text, new_text, detail, at FROM history
WHERE memory_id = ? ORDER BY rowid"""
TURN_CITED = "SELECT 1 FROM memories WHERE user_id = ? AND source_turns LIKE ? LIMIT 1"
REDACT_TURN = """
UPDATE turns SET text = '', metadata = '{"redacted": true}', pending = 0
WHERE user_id = ? AND turn_id = ?"""
# delete(id) keeps one tombstone: the rows stay, their texts and details go.
REDACT_HISTORY = (
    "UPDATE history SET old_text = NULL, new_text = NULL, detail = '{}' WHERE memory_id = ?"
)

INSERT_EVENT = "INSERT INTO events (user_id, kind, detail, at) VALUES (?, ?, ?, ?)"
COUNT_EVENTS = "SELECT kind, COUNT(*) AS n FROM events GROUP BY kind"
SELECT_ANONYMOUS_EVENTS = "SELECT kind, detail, at FROM events WHERE user_id IS NULL ORDER BY rowid"

# The core's tables; each route's repository deletes its own (``Repository.delete_user``).
DELETE_USER = (
    "DELETE FROM memory_terms WHERE user_id = ?",
    "DELETE FROM turns WHERE user_id = ?",
    "DELETE FROM memories WHERE user_id = ?",
    "DELETE FROM history WHERE user_id = ?",
    "DELETE FROM events WHERE user_id = ?",
)
RESET = (
    "DELETE FROM memory_terms",
    "DELETE FROM turns",
    "DELETE FROM memories",
    "DELETE FROM history",
    "DELETE FROM events",
)
USER_EXISTS = """
SELECT 1 FROM turns WHERE user_id = ? UNION ALL SELECT 1 FROM memories WHERE user_id = ? LIMIT 1"""
LIST_USERS = "SELECT user_id FROM turns UNION SELECT user_id FROM memories ORDER BY 1"
STATS = """
SELECT (SELECT COUNT(*) FROM turns) AS turns,
    (SELECT COUNT(*) FROM memories WHERE status = 'active') AS active,
    (SELECT COUNT(*) FROM memories WHERE status = 'superseded') AS superseded,
    (SELECT COUNT(*) FROM (SELECT user_id FROM turns UNION SELECT user_id FROM memories) AS u)
        AS users,
    (SELECT COUNT(*) FROM history) AS history,
    (SELECT COUNT(*) FROM turns WHERE pending = 1) AS pending"""
COUNT_USER_MEMORIES = "SELECT COUNT(*) AS n FROM memories WHERE user_id = ?"
DATA_VERSION = "PRAGMA data_version"
LIST_MIGRATIONS = "SELECT number, name FROM schema_migrations ORDER BY 1"
SET_TERM_COUNT = "UPDATE memories SET n_terms = ? WHERE rowid = ?"
