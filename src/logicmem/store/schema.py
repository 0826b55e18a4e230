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
    "DELETE FROM turns WHERE user_id = ?",
    "DELETE FROM memories WHERE user_id = ?",
    "DELETE FROM history WHERE user_id = ?",
    "DELETE FROM events WHERE user_id = ?",
)
RESET = (
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
