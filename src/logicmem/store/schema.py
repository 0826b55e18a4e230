"""SQLite schema as numbered, recorded migrations, and every SQL statement the store runs.

Migrations are append-only: never edit one that has shipped, add the next number.
"""

from __future__ import annotations

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
]

CREATE_MIGRATIONS_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL
)"""
APPLIED_MIGRATIONS = "SELECT number FROM schema_migrations"
RECORD_MIGRATION = "INSERT INTO schema_migrations (number, name, applied_at) VALUES (?, ?, ?)"

META_GET = "SELECT value FROM meta WHERE key = ?"
META_SET = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = ?"

INSERT_TURN = """
INSERT OR IGNORE INTO turns (user_id, agent_id, run_id, session_id, turn_id, seq, speaker,
    role, text, said_at, metadata, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
NEXT_TURN_SEQ = "SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE user_id = ?"
SELECT_TURNS = """
SELECT user_id, agent_id, run_id, session_id, turn_id, seq, speaker, role, text, said_at,
    metadata FROM turns WHERE user_id = ?"""

MEMORY_COLUMNS = (
    "id, user_id, agent_id, run_id, text, category, said_at, session_id, source_turns,"
    " metadata, status, superseded_by, created_at, updated_at"
)
INSERT_MEMORY = f"""
INSERT INTO memories ({MEMORY_COLUMNS}, embedding)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
SELECT_MEMORY = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?"
SELECT_MEMORIES = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE user_id = ?"
SELECT_VECTORS = "SELECT id, embedding FROM memories WHERE user_id = ? AND status = 'active'"
DELETE_MEMORY = "DELETE FROM memories WHERE id = ?"

BM25_SEARCH = """
SELECT m.id, -bm25(memories_fts) AS score
FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid
WHERE memories_fts MATCH ? AND m.user_id = ? AND m.status = 'active'"""

INSERT_HISTORY = """
INSERT INTO history (memory_id, user_id, event, old_text, new_text, detail, at)
VALUES (?, ?, ?, ?, ?, ?, ?)"""
SELECT_HISTORY = """
SELECT memory_id, event, old_text, new_text, detail, at FROM history
WHERE memory_id = ? ORDER BY rowid"""

INSERT_EVENT = "INSERT INTO events (user_id, kind, detail, at) VALUES (?, ?, ?, ?)"
COUNT_EVENTS = "SELECT kind, COUNT(*) FROM events GROUP BY kind"

DELETE_USER = (
    "DELETE FROM criticality WHERE user_id = ?",
    "DELETE FROM memory_keys WHERE user_id = ?",
    "DELETE FROM profiles WHERE user_id = ?",
    "DELETE FROM turns WHERE user_id = ?",
    "DELETE FROM memories WHERE user_id = ?",
    "DELETE FROM history WHERE user_id = ?",
    "DELETE FROM events WHERE user_id = ?",
)
RESET = (
    "DELETE FROM criticality",
    "DELETE FROM memory_keys",
    "DELETE FROM profiles",
    "DELETE FROM turns",
    "DELETE FROM memories",
    "DELETE FROM history",
    "DELETE FROM events",
)
USER_EXISTS = """
SELECT 1 FROM turns WHERE user_id = ? UNION ALL SELECT 1 FROM memories WHERE user_id = ? LIMIT 1"""
LIST_USERS = "SELECT user_id FROM turns UNION SELECT user_id FROM memories ORDER BY 1"
STATS = """
SELECT (SELECT COUNT(*) FROM turns), (SELECT COUNT(*) FROM memories WHERE status = 'active'),
    (SELECT COUNT(*) FROM memories WHERE status = 'superseded'),
    (SELECT COUNT(DISTINCT user_id) FROM memories), (SELECT COUNT(*) FROM history)"""

DELETE_ANNOTATIONS = (
    "DELETE FROM criticality WHERE memory_id = ?",
    "DELETE FROM memory_keys WHERE memory_id = ?",
)
UPSERT_CRITICALITY = """
INSERT INTO criticality (memory_id, user_id, score, ctype, reason, source, at)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(memory_id) DO UPDATE SET score = excluded.score, ctype = excluded.ctype,
    reason = excluded.reason, source = excluded.source, at = excluded.at"""
SELECT_CRITICAL = """
SELECT c.memory_id, c.score, c.ctype, c.reason, c.source
FROM criticality c JOIN memories m ON m.id = c.memory_id
WHERE c.user_id = ? AND m.status = 'active'"""
INSERT_KEY = """
INSERT INTO memory_keys (memory_id, user_id, key, kind, ref, embedding) VALUES (?, ?, ?, ?, ?, ?)"""
SELECT_KEYS = """
SELECT k.memory_id, k.key, k.kind, k.ref, k.embedding
FROM memory_keys k JOIN memories m ON m.id = k.memory_id
WHERE k.user_id = ? AND m.status = 'active'"""
DATA_VERSION = "PRAGMA data_version"
SELECT_PROFILE = "SELECT text, version, updated_at FROM profiles WHERE user_id = ?"
UPSERT_PROFILE = """
INSERT INTO profiles (user_id, text, version, updated_at) VALUES (?, ?, 1, ?)
ON CONFLICT(user_id) DO UPDATE SET text = excluded.text, version = profiles.version + 1,
    updated_at = excluded.updated_at"""
SELECT_TEXT_VECTORS = "SELECT text, embedding FROM text_vectors WHERE text IN ({marks})"
INSERT_TEXT_VECTOR = "INSERT OR REPLACE INTO text_vectors (text, embedding) VALUES (?, ?)"
