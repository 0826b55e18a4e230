"""PostgreSQL schema: the same numbered migrations as SQLite's (``schema.MIGRATIONS``), in
PostgreSQL's dialect, and the few statements that differ.

The tables and columns are SQLite's, so the core store and the route repositories run the
same statements on both (``schema``, the ``repo_sql`` modules). What is PostgreSQL's
own: identity ``rowid`` columns; memory vectors in pgvector's ``vector`` type (the HNSW
index on them is created when the embedder is bound, since it needs the dimension); the
other vectors as ``bytea``, read into process as on SQLite; no FTS5 (migration 1 creates
none, so migration 6 drops none); and ``user_versions``.

``user_versions`` is how a process knows another one wrote: statement-level triggers on
every table whose rows a process caches (memories and their vectors, visibility keys and
criticality, profiles, root units, RuleMem facts and rules) set the written users'
version to the next value of one sequence, inside the writing transaction. A cache
stamped with a user's version is stale exactly when the version it reads now differs.

Migrations are append-only: never edit one that has shipped, add the next number (the
same number on both backends).
"""

from __future__ import annotations

from logicmem.store import schema as sql

# Tables whose rows a process caches; each gets the version triggers.
VERSIONED = (
    "memories",
    "criticality",
    "memory_keys",
    "text_vectors",
    "profiles",
    "profile_lines",
    "root_units",
    "rulemem_facts",
    "rulemem_rules",
)


def _versioned(*tables: str) -> str:
    """The triggers that bump the written users' versions, per table and kind of write."""
    out = []
    for table in tables:
        for op, ref in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")):
            rows = "new_rows" if ref == "NEW" else "old_rows"
            out.append(
                f"CREATE TRIGGER {table}_{op.lower()}_version AFTER {op} ON {table}\n"
                f"    REFERENCING {ref} TABLE AS {rows}\n"
                f"    FOR EACH STATEMENT EXECUTE FUNCTION logicmem_bump_version();"
            )
    return "\n".join(out)


MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "m001_create_tables",
        f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE turns (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    metadata TEXT NOT NULL DEFAULT '{{}}',
    created_at TEXT NOT NULL,
    UNIQUE (user_id, session_id, turn_id)
);
CREATE INDEX turns_by_user ON turns (user_id, seq);

CREATE TABLE memories (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    text TEXT NOT NULL,
    category TEXT NOT NULL,
    said_at TEXT,
    session_id TEXT,
    source_turns TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '{{}}',
    status TEXT NOT NULL DEFAULT 'active',
    superseded_by TEXT,
    embedding vector,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX memories_by_user ON memories (user_id, status);

CREATE TABLE history (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    event TEXT NOT NULL,
    old_text TEXT,
    new_text TEXT,
    detail TEXT NOT NULL DEFAULT '{{}}',
    at TEXT NOT NULL
);
CREATE INDEX history_by_memory ON history (memory_id, rowid);
CREATE INDEX history_by_user ON history (user_id);

CREATE TABLE events (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id TEXT,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{{}}',
    at TEXT NOT NULL
);
CREATE INDEX events_by_kind ON events (kind);

-- Cache invalidation across processes (see the module docstring).
CREATE SEQUENCE user_version_seq;
CREATE TABLE user_versions (user_id TEXT PRIMARY KEY, version BIGINT NOT NULL);
CREATE FUNCTION logicmem_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO user_versions AS v (user_id, version)
        SELECT w.user_id, nextval('user_version_seq')
        FROM (SELECT DISTINCT user_id FROM old_rows) AS w
        ON CONFLICT (user_id) DO UPDATE SET version = nextval('user_version_seq');
    ELSE
        INSERT INTO user_versions AS v (user_id, version)
        SELECT w.user_id, nextval('user_version_seq')
        FROM (SELECT DISTINCT user_id FROM new_rows) AS w
        ON CONFLICT (user_id) DO UPDATE SET version = nextval('user_version_seq');
    END IF;
    RETURN NULL;
END $$;
{_versioned("memories")}
""",
    ),
    (
        2,
        "m002_visibility",
        f"""
CREATE TABLE criticality (
    memory_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    score DOUBLE PRECISION NOT NULL,
    ctype TEXT NOT NULL,
    reason TEXT NOT NULL,
    source TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX criticality_by_user ON criticality (user_id);

CREATE TABLE memory_keys (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    memory_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL DEFAULT '',
    embedding BYTEA NOT NULL
);
CREATE INDEX memory_keys_by_user ON memory_keys (user_id);
CREATE INDEX memory_keys_by_memory ON memory_keys (memory_id);

CREATE TABLE profiles (
    user_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
{_versioned("criticality", "memory_keys", "profiles")}
""",
    ),
    (
        3,
        "m003_rootmem",
        f"""
CREATE TABLE root_units (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    detail TEXT NOT NULL DEFAULT '{{}}',
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
{_versioned("root_units")}
""",
    ),
    (
        4,
        "m004_rulemem",
        f"""
CREATE TABLE rulemem_facts (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    relation TEXT NOT NULL,
    object TEXT NOT NULL,
    time TEXT,
    source TEXT NOT NULL,
    embedding BYTEA NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX rulemem_facts_by_user ON rulemem_facts (user_id);
CREATE INDEX rulemem_facts_by_memory ON rulemem_facts (memory_id);

CREATE TABLE rulemem_rules (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    agent_id TEXT,
    run_id TEXT,
    body TEXT NOT NULL,
    head TEXT NOT NULL,
    support INTEGER NOT NULL,
    status TEXT NOT NULL,
    delta_self DOUBLE PRECISION,
    delta_fact DOUBLE PRECISION,
    score DOUBLE PRECISION,
    source_memories TEXT NOT NULL DEFAULT '[]',
    inducer TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{{}}',
    embedding BYTEA NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX rulemem_rules_by_user ON rulemem_rules (user_id, status);

CREATE TABLE rulemem_progress (
    user_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    position BIGINT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (user_id, scope)
);
{_versioned("rulemem_facts", "rulemem_rules")}
""",
    ),
    (
        5,
        "m005_profile_lines",
        f"""
ALTER TABLE profiles ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE profiles ADD COLUMN state TEXT NOT NULL DEFAULT '{{}}';

CREATE TABLE profile_lines (
    user_id TEXT NOT NULL,
    line_no INTEGER NOT NULL,
    text TEXT NOT NULL,
    memory_ids TEXT NOT NULL DEFAULT '[]',
    source_turns TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (user_id, line_no)
);
{_versioned("profile_lines")}
""",
    ),
    (
        6,
        "m006_trustworthy_memory",
        f"""
ALTER TABLE turns ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN claim TEXT;
ALTER TABLE turns ADD COLUMN claim_at TEXT;
ALTER TABLE turns ADD COLUMN infer INTEGER NOT NULL DEFAULT 1;
CREATE INDEX turns_pending ON turns (pending, user_id, seq);

ALTER TABLE memories ADD COLUMN valid_from TEXT;
ALTER TABLE memories ADD COLUMN valid_until TEXT;
ALTER TABLE memories ADD COLUMN index_claim TEXT;
CREATE INDEX memories_unindexed ON memories (index_claim) WHERE index_claim IS NOT NULL;

ALTER TABLE memories ADD COLUMN n_terms INTEGER NOT NULL DEFAULT 0;
CREATE TABLE memory_terms (
    user_id TEXT NOT NULL,
    term TEXT NOT NULL,
    memory_rowid BIGINT NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (user_id, term, memory_rowid)
);
CREATE INDEX memory_terms_by_memory ON memory_terms (memory_rowid);

CREATE TABLE text_vectors (
    user_id TEXT NOT NULL,
    text TEXT NOT NULL,
    embedding BYTEA NOT NULL,
    PRIMARY KEY (user_id, text)
);
{_versioned("text_vectors")}
""",
    ),
    (7, "m007_api_keys", sql.API_KEYS),
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

# Cosine distance on the memory vectors, exact (a scan of the scope's rows) or through the
# HNSW index (``{dims}``: the index is on embedding::vector(dims)).
HNSW_INDEX = """
CREATE INDEX IF NOT EXISTS memories_hnsw ON memories
USING hnsw ((embedding::vector({dims})) vector_cosine_ops)"""
NEAREST_EXACT = """
SELECT id, 1 - (embedding <=> ?) AS cosine FROM memories WHERE user_id = ?{clause}
ORDER BY embedding <=> ?, rowid LIMIT ?"""
NEAREST_HNSW = """
SELECT id, 1 - (embedding::vector({dims}) <=> ?) AS cosine FROM memories
WHERE user_id = ?{clause} ORDER BY embedding::vector({dims}) <=> ? LIMIT ?"""
COSINES = """
SELECT id, 1 - (embedding <=> ?) AS cosine FROM memories WHERE user_id = ? AND id = ANY(?)"""
USER_VERSION = "SELECT version FROM user_versions WHERE user_id = ?"
ALL_VERSIONS = "SELECT COALESCE(MAX(version), 0) AS v, COUNT(*) AS n FROM user_versions"
COUNT_LIVE = "SELECT COUNT(*) AS n FROM memories WHERE user_id = ? AND status = 'active'"
LOCK_USER = "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))"
# Forgetting a user drops their version row too (it names them); reset drops every row.
DELETE_USER_VERSION = "DELETE FROM user_versions WHERE user_id = ?"
RESET_VERSIONS = "DELETE FROM user_versions"
SCHEMA_BYTES = """
SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm', 'S')"""
