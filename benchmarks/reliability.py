"""Reliability: what a user can check that logicmem keeps its promises about their data.

Five checks, each run through the real CLI or library on the embedded defaults (MiniLM,
no LLM), writing ``docs/reliability.md`` with the figures and this command:

- **kill -9**: ``logicmem ingest`` of a LoCoMo conversation is killed at 10 seeded random
  moments, then re-run; each store must end with the memories of a clean ingest (the same
  count and the same texts).
- **concurrent writers**: 8 processes add 500 distinct facts each to one store; every turn
  and every fact must be there, with no error.
- **forget**: a user with memories, derived keys and their vectors, a profile, RuleMem
  facts and rules and root units is forgotten; the distinctive words of what they said
  are counted in the store file and its ``-wal`` afterwards (target 0).
- **injection**: the hostile memory texts of ``benchmarks/data/hostile_memories.jsonl``
  are stored verbatim and rendered into the answer prompt's context; each must be one
  data line, and no text may end the data block.
- **bad inputs**: each bad input the CLI must refuse, with its exit code and message.

``--backend postgresql`` runs them against PostgreSQL + pgvector instead (a throwaway
``pgserver`` in a temporary folder unless ``--pg URL`` names a server; each store in its
own schema) and writes ``docs/reliability-postgresql.md``. There, forget counts the words
in every row SQL can see, in the planner's statistics, and in the server's files after a
``CHECKPOINT``: the table and index files (``base/``) and the write-ahead log (``pg_wal/``)
apart, since PostgreSQL neither zeroes freed space nor drops WAL segments on a VACUUM.

LoCoMo is read from ``../shared/data/locomo10`` (research data, never copied here). Run:

    .venv/bin/python benchmarks/reliability.py [--kills 10] [--writers 8] [--facts 500]
    .venv/bin/python benchmarks/reliability.py --backend postgresql [--pg URL]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCOMO = ROOT.parent / "shared" / "data" / "locomo10"
CLI = [sys.executable, "-m", "logicmem.cli.main"]
USER = "Caroline"  # LoCoMo conversation 26's first speaker: the user whose memory it is
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LOGICMEM_LLM": "none"}


def _texts(db: Path, user: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT text FROM memories WHERE user_id = ? AND status = 'active'", (user,)
        ).fetchall()
    return sorted(r[0] for r in rows)


def _counts(db: Path) -> tuple[int, int]:
    """(turns, pending turns) in a store, read without opening it through logicmem."""
    if not db.exists():
        return 0, 0
    with sqlite3.connect(db) as conn:
        try:
            row = conn.execute("SELECT COUNT(*), COALESCE(SUM(pending), 0) FROM turns").fetchone()
        except sqlite3.OperationalError:
            return 0, 0
    return int(row[0]), int(row[1])


def _ingest(db: Path, conversation: Path) -> list[str]:
    return [
        *CLI,
        "ingest",
        "--format",
        "locomo",
        str(conversation),
        "--user",
        USER,
        "--store",
        str(db),
    ]


class Sqlite:
    """Stores as files in the run's folder, read with sqlite3."""

    name = "sqlite"

    def __init__(self, work: Path) -> None:
        self.work = work

    def store(self, name: str) -> Path:
        return self.work / f"{name}.db"

    def texts(self, store: Any, user: str) -> list[str]:
        return _texts(Path(store), user)

    def counts(self, store: Any) -> tuple[int, int]:
        return _counts(Path(store))

    def words(self, store: Any) -> dict[str, Any]:
        return _word_bytes(Path(store))

    def names(self) -> dict[str, str]:
        return {}

    def close(self) -> None:
        pass


class Postgres:
    """A PostgreSQL server, each store in its own schema: a throwaway pgserver in a short
    temporary folder (its data directory), or the server ``url`` names."""

    name = "postgresql"

    def __init__(self, url: str | None) -> None:
        self.srv: Any = None
        self.folder: str | None = None
        if url is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
                import pgserver

                self.folder = tempfile.mkdtemp(prefix="lmpg")
                self.srv = pgserver.get_server(self.folder, cleanup_mode="stop")
                url = self.srv.get_uri()
        self.url: str = url
        self.run = uuid.uuid4().hex[:8]  # the schemas of this run, beside any others
        self.schemas: list[str] = []
        with self.connect() as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            self.version = conn.execute("SHOW server_version").fetchone()[0]
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            self.pgvector = row.fetchone()[0]
            try:
                data = conn.execute("SHOW data_directory").fetchone()[0]
            except Exception:  # not a superuser: the files are not counted
                data = None
        # The files are read where the server runs on this machine (pgserver: its folder).
        self.data_dir = Path(data) if data and Path(data, "base").is_dir() else None

    def info(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "pgvector": self.pgvector,
            "server": "pgserver (throwaway)" if self.srv is not None else "--pg",
            "data_dir_read": self.data_dir is not None,
        }

    def names(self) -> dict[str, str]:
        """What messages name in place of this machine's server folder and run's schemas."""
        return {self.folder or self.url: "$PG", self.run: "$RUN"}

    def connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.url, autocommit=True, connect_timeout=30)

    def store(self, name: str) -> str:
        schema = f"rel_{name.replace('-', '_')}_{self.run}"
        self.schemas.append(schema)
        return self.url + ("&" if "?" in self.url else "?") + f"schema={schema}"

    @staticmethod
    def schema(store: str) -> str:
        return next(v for k, v in parse_qsl(urlsplit(store).query) if k == "schema")

    def texts(self, store: Any, user: str) -> list[str]:
        from psycopg import sql

        query = sql.SQL("SELECT text FROM {}.memories WHERE user_id = %s AND status = 'active'")
        with self.connect() as conn:
            rows = conn.execute(query.format(sql.Identifier(self.schema(store))), (user,))
            return sorted(r[0] for r in rows.fetchall())

    def counts(self, store: Any) -> tuple[int, int]:
        """(turns, pending turns), read without opening the store through logicmem."""
        import psycopg
        from psycopg import sql

        query = sql.SQL("SELECT COUNT(*), COALESCE(SUM(pending), 0) FROM {}.turns")
        with self.connect() as conn:
            try:
                row = conn.execute(query.format(sql.Identifier(self.schema(store)))).fetchone()
            except psycopg.Error:  # killed before the schema or the table was created
                return 0, 0
        return int(row[0]), int(row[1])

    def words(self, store: Any) -> dict[str, Any]:
        """The distinctive words in every row of the store's schema (``sql``), in the
        planner's statistics of its columns (``pg_stats``), and, after a CHECKPOINT, in the
        server's files: ``base/`` (tables and indexes), ``pg_wal/`` and the rest."""
        from psycopg import sql

        schema = self.schema(store)
        rows = bytearray()
        with self.connect() as conn:
            tables = conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = %s AND table_type = 'BASE TABLE' ORDER BY 1",
                (schema,),
            ).fetchall()
            for (table,) in tables:
                query = sql.SQL("SELECT t::text FROM {}.{} AS t")
                for (text,) in conn.execute(
                    query.format(sql.Identifier(schema), sql.Identifier(table))
                ):
                    rows += text.encode() + b"\n"
            stats = conn.execute(
                "SELECT s::text FROM pg_stats AS s WHERE schemaname = %s", (schema,)
            ).fetchall()
            if self.data_dir is not None:
                conn.execute("CHECKPOINT")  # dirty buffers reach the files
        found: dict[str, Any] = {
            "tables": len(tables),
            "sql": _word_counts(bytes(rows)),
            "pg_stats": _word_counts("\n".join(s for (s,) in stats).encode()),
        }
        if self.data_dir is None:
            return found
        files = {part: {word: 0 for word in DISTINCT} for part in ("base", "pg_wal", "other")}
        sizes = {part: 0 for part in files}
        for path in sorted(self.data_dir.rglob("*")):
            try:
                if path.is_symlink() or not path.is_file():
                    continue
                data = path.read_bytes()
            except OSError:  # a temporary file that went away
                continue
            top = path.relative_to(self.data_dir).parts[0]
            part = top if top in files else "other"
            sizes[part] += len(data)
            for word, n in _word_counts(data).items():  # per file: no word spans two
                files[part][word] += n
        found.update(files)
        found["file_bytes"] = sizes
        return found

    def close(self) -> None:
        try:
            if self.srv is None and self.schemas:  # a server of the user's: tidy up
                from psycopg import sql

                with self.connect() as conn:
                    for schema in self.schemas:
                        conn.execute(
                            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(
                                sql.Identifier(schema)
                            )
                        )
        finally:
            if self.srv is not None:
                self.srv.cleanup()
                shutil.rmtree(str(self.folder), ignore_errors=True)


def kill_and_resume(
    work: Path, conversation: Path, kills: int, seed: int, backend: Any = None
) -> dict[str, Any]:
    backend = backend or Sqlite(work)
    clean = backend.store("clean")
    started = time.perf_counter()
    subprocess.run(_ingest(clean, conversation), env=ENV, check=True, capture_output=True)
    clean_s = time.perf_counter() - started
    expected = backend.texts(clean, USER)
    rng = random.Random(seed)
    runs = []
    for n in range(kills):
        db = backend.store(f"killed-{n}")
        at = rng.uniform(0.05, 0.95) * clean_s
        proc = subprocess.Popen(
            _ingest(db, conversation), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            proc.wait(timeout=at)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        turns, pending = backend.counts(db)
        subprocess.run(_ingest(db, conversation), env=ENV, check=True, capture_output=True)
        got = backend.texts(db, USER)
        runs.append(
            {
                "killed_at_s": round(at, 1),
                "turns_at_kill": turns,
                "pending_at_kill": pending,
                "memories": len(got),
                "equal": got == expected,
            }
        )
        print(f"kill {n + 1}/{kills} at {at:.1f}s: {runs[-1]}", file=sys.stderr)
    return {
        "conversation": conversation.name,
        "clean_seconds": round(clean_s, 1),
        "clean_memories": len(expected),
        "runs": runs,
        "equal": sum(r["equal"] for r in runs),
    }


def _writer(args: tuple[str, int, int]) -> tuple[int, str]:
    path, writer, facts = args
    from logicmem import Memory

    errors = 0
    last = ""
    with Memory(path) as mem:
        for i in range(facts):
            try:
                mem.add(
                    f"I noted fact number {i} from writer {writer} today.",
                    user_id="shared",
                    session_id=f"w{writer}",
                )
            except Exception as exc:  # counted and reported: the check is "0 errors"
                errors += 1
                last = f"{type(exc).__name__}: {exc}"
    return errors, last


def concurrent_writers(work: Path, writers: int, facts: int, backend: Any = None) -> dict[str, Any]:
    backend = backend or Sqlite(work)
    db = backend.store("writers")
    from logicmem import Memory

    Memory(db).close()  # created (and migrated) once, before the writers race
    started = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(writers) as pool:
        results = pool.map(_writer, [(str(db), w, facts) for w in range(writers)])
    seconds = time.perf_counter() - started
    texts = "\n".join(backend.texts(db, "shared"))
    missing = [
        (w, i)
        for w in range(writers)
        for i in range(facts)
        if f"fact number {i} from writer {w} " not in texts
    ]
    turns, pending = backend.counts(db)
    return {
        "writers": writers,
        "facts_each": facts,
        "seconds": round(seconds, 1),
        "turns": turns,
        "pending": pending,
        "memories": len(backend.texts(db, "shared")),
        "missing_facts": len(missing),
        "errors": sum(e for e, _ in results),
        "last_error": next((m for _, m in results if m), ""),
    }


DISTINCT = ["Quorvelline", "Brastomere", "Tindlewick", "Osperanth", "Vexmorrow"]


def forget_leaves_nothing(work: Path, backend: Any = None) -> dict[str, Any]:
    import numpy as np

    from logicmem import Memory
    from logicmem.routes.rootmem.repo import RootMemRepository, RootUnit, UnitEvidence
    from logicmem.routes.rulemem.repo import RuleMemRepository
    from logicmem.routes.visible.repo import VisibleRepository
    from logicmem.types import Scope

    backend = backend or Sqlite(work)
    db = backend.store("forget")
    mem = Memory(db, config={"llm": {"provider": "none"}})
    statements = [
        f"I am allergic to {DISTINCT[0]} pollen and carry an inhaler.",
        f"My cat {DISTINCT[1]} sleeps on the piano.",
        f"I walk to the {DISTINCT[2]} bakery every morning.",
        f"My sister lives on {DISTINCT[3]} Street and visits on Sundays.",
        f"I have been vegetarian since I read about {DISTINCT[4]} farms.",
    ]
    for n, text in enumerate(statements):
        mem.add(text, user_id="fay", session_id=f"s{n}", timestamp=f"2024-0{n + 1}-02")
    mem.add("I keep bees in the garden.", user_id="gus")
    mem.consolidate(user_id="fay")  # profile, RuleMem facts and rules (RootMem needs an LLM)
    memories = mem.get_all(user_id="fay")
    # Root units are built by an LLM; none runs offline, so one is written as a builder
    # would (activation, guidance, evidence quoting the memories), and so are derived
    # texts' vectors (what the LLM anticipation path caches).
    unit = RootUnit(
        unit_id="u-fay",
        user_id="fay",
        activation=f"planning meals or outings with {DISTINCT[1]} at home",
        guidance=f"avoid {DISTINCT[0]} pollen; suggest vegetarian dishes",
        evidence=[UnitEvidence(m.id, m.text) for m in memories],
    )
    visible = VisibleRepository.of(mem.store)
    rules = RuleMemRepository.of(mem.store)
    RootMemRepository.of(mem.store).add_units([unit])
    derived = [f"When gardening near {DISTINCT[0]} plants: mind the allergy"]
    visible.cache_vectors("fay", derived, mem.embedder.embed(derived))
    mem.store.vectors(Scope("fay"))
    profile = visible.load_profile("fay")
    objects = {
        "memories": len(memories),
        "profile_lines": len(profile.lines) if profile else 0,
        "rulemem_facts": len(rules.quads(Scope("fay"))[0]),
        "rulemem_rules": len(rules.rules(Scope("fay"))[0]),
        "root_units": len(RootMemRepository.of(mem.store).units(Scope("fay"))),
        "keys": len(visible.memory_keys(Scope("fay"))[0]),
    }
    before = backend.words(db)
    mem.delete_user("fay")
    after = backend.words(db)
    kept = backend.texts(db, "gus")
    mem.close()
    del np
    return {"objects": objects, "before": before, "after": after, "other_user_kept": len(kept)}


def _word_counts(data: bytes) -> dict[str, int]:
    """Occurrences of each distinctive word, counted as ``_word_bytes`` counts them: the
    exact spelling plus any case (so each exact occurrence counts twice)."""
    lower = data.lower()
    return {w: data.count(w.encode()) + lower.count(w.lower().encode()) for w in DISTINCT}


def _word_bytes(db: Path) -> dict[str, int]:
    found = {}
    for word in DISTINCT:
        total = 0
        for suffix in ("", "-wal"):
            f = Path(str(db) + suffix)
            if f.exists():
                data = f.read_bytes()
                total += data.count(word.encode()) + data.lower().count(word.lower().encode())
        found[word] = total
    return found


def injection(work: Path, backend: Any = None) -> dict[str, Any]:
    from logicmem import Memory
    from logicmem.prompting import check_block

    rows = [json.loads(line) for line in (HERE / "data" / "hostile_memories.jsonl").open()]
    backend = backend or Sqlite(work)
    mem = Memory(backend.store("inject"), config={"llm": {"provider": "none"}})
    failures = []
    for n, row in enumerate(rows):
        user = f"victim-{n}"
        try:
            mem.add(row["text"], user_id=user, infer=False)
            rendered = mem.context(row["text"][:200] or "hello", user_id=user, k=5).render()
        except Exception as exc:  # a store that refuses the text: a failure, with its error
            problem = _named(f"{type(exc).__name__}: {exc}", backend.names())[:300]
            failures.append({"attack": row.get("attack"), "problems": [problem]})
            continue
        problems = check_block(rendered)
        data_lines = [line for line in rendered.splitlines() if line.startswith("{")]
        if problems or len(data_lines) != 1:
            failures.append({"attack": row.get("attack"), "problems": problems})
    mem.close()
    return {"texts": len(rows), "one_line_each": len(rows) - len(failures), "failures": failures}


def bad_inputs(work: Path, backend: Any = None) -> list[dict[str, Any]]:
    backend = backend or Sqlite(work)
    db = backend.store("bad")
    fast = ENV
    subprocess.run(
        [*CLI, "add", "I have a cat.", "--user", "a", "--store", str(db)],
        env=fast,
        check=True,
        capture_output=True,
    )
    locked = work / "locked"
    locked.write_text("a file, not a folder")
    cases: list[tuple[str, list[str], dict[str, str], str | None]] = [
        ("--time notadate", ["add", "hi there all", "--user", "a", "--time", "notadate"], {}, None),
        ("a message over the size limit", ["add", "x" * 40_000, "--user", "a"], {}, None),
        ("export --out under a file",
         ["export", "--user", "a", "--out", f"{locked}/x.jsonl"], {}, None),
        ("LOGICMEM_LLM=bogus", ["stats"], {"LOGICMEM_LLM": "bogus"}, None),
        ("forget without --yes, no terminal", ["forget", "--user", "a"], {}, ""),
        ("add - with empty stdin", ["add", "-", "--user", "a"], {}, ""),
        ("history of another user's id", ["history", "nope", "--user", "b"], {}, None),
        ("search --as-of notadate",
         ["search", "cat", "--user", "a", "--as-of", "notadate"], {}, None),
        ("a store path under a file", ["stats", "--store", f"{locked}/s.db"], {}, None),
    ]  # fmt: skip
    names = {str(work): "$WORK"}
    if backend.name == "postgresql":  # the store-dependent cases, for PostgreSQL's URLs
        gone = f"postgresql://postgres:@/postgres?host={work}/nowhere&schema=s"
        bad_schema = str(db).replace(f"schema={Postgres.schema(str(db))}", "schema=no-such;name")
        cases[-1] = ("a server that is not there", ["stats", "--store", gone], {}, None)
        cases.append(("a schema name that is not a plain name",
                      ["stats", "--store", bad_schema], {}, None))  # fmt: skip
        names = {**names, **backend.names()}
    out = []
    for label, args, extra, stdin in cases:
        if "--store" not in args:
            args = [*args, "--store", str(db)]
        proc = subprocess.run(
            [*CLI, *args],
            env={**fast, **extra},
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
        )
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        out.append(
            {
                "input": label,
                "exit": proc.returncode,
                "lines": len(lines),
                # The throwaway folder is named, not its path on this machine.
                "message": _named(lines[-1], names)[:160] if lines else "",
                "traceback": "Traceback" in proc.stderr,
            }
        )
    return out


def _named(text: str, names: dict[str, str]) -> str:
    for value, name in names.items():
        text = text.replace(value, name)
    return text


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def _report(results: dict[str, Any], command: str, commit: str | None = None) -> str:
    commit = commit or _commit()
    pg = results.get("postgresql")
    lines = [
        "# Reliability",
        "",
        f"Generated by `benchmarks/reliability.py` at commit {commit}, on the embedded",
        "defaults (MiniLM, no LLM); rerun it to check these figures on your machine:",
        "",
        f"    {command}",
        "",
    ]
    if pg:
        server = "a throwaway pgserver" if pg["server"] != "--pg" else "the server --pg names"
        lines = [
            "# Reliability on PostgreSQL",
            "",
            "Generated by `benchmarks/reliability.py --backend postgresql` at commit "
            f"{commit}, on the embedded defaults (MiniLM, no LLM), against PostgreSQL "
            f"{pg['version']} with pgvector {pg['pgvector']} ({server}), each store in its "
            "own schema; rerun it to check these figures on your machine:",
            "",
            f"    {command}",
            "",
            "The same checks on SQLite: [reliability.md](reliability.md).",
            "",
        ]
    k = results.get("kill")
    if k:
        lines += [
            "## kill -9 of `ingest`, then a re-run",
            "",
            f"LoCoMo conversation {k['conversation']}; a clean ingest took {k['clean_seconds']} s "
            f"and stored {k['clean_memories']} memories. Equal to the clean ingest (count and "
            f"texts) after the re-run: **{k['equal']} / {len(k['runs'])}**.",
            "",
            "| kill at (s) | turns stored at the kill | of them pending | memories after re-run "
            "| equal |",
            "|---|---|---|---|---|",
        ]
        for r in k["runs"]:
            lines.append(
                f"| {r['killed_at_s']} | {r['turns_at_kill']} | {r['pending_at_kill']} | "
                f"{r['memories']} | {'yes' if r['equal'] else 'NO'} |"
            )
        lines.append("")
    w = results.get("writers")
    if w:
        lines += [
            "## Concurrent writers on one store",
            "",
            f"{w['writers']} processes x {w['facts_each']} distinct facts, {w['seconds']} s: "
            f"{w['turns']} turns ({w['pending']} pending), {w['memories']} memories, "
            f"**{w['missing_facts']} facts missing, {w['errors']} errors**"
            + (f" (last: {w['last_error']})" if w["last_error"] else "")
            + ".",
            "",
        ]
    f = results.get("forget")
    if f and pg:
        lines += _forget_postgresql(f)
    elif f:
        lines += [
            "## Forget",
            "",
            "The user had: "
            + ", ".join(f"{v} {name.replace('_', ' ')}" for name, v in f["objects"].items())
            + ". Occurrences of their distinctive words in the store file and its `-wal`:",
            "",
            "| word | before forget | after forget |",
            "|---|---|---|",
        ]
        for word in DISTINCT:
            lines.append(f"| {word} | {f['before'][word]} | **{f['after'][word]}** |")
        lines += ["", f"The other user's memories kept: {f['other_user_kept']}.", ""]
    i = results.get("injection")
    if i:
        lines += [
            "## Stored text as data",
            "",
            f"{i['texts']} hostile memory texts stored verbatim: **{i['one_line_each']} / "
            f"{i['texts']}** render as exactly one data line inside an intact data block.",
            "",
        ]
        for fail in i["failures"]:
            lines.append(f"- failed: {fail['attack']}: {fail['problems']}")
        if i["failures"]:
            lines.append("")
    b = results.get("bad")
    if b:
        lines += [
            "## Bad inputs",
            "",
            "| input | exit code | lines on stderr | traceback | message |",
            "|---|---|---|---|---|",
        ]
        if pg:
            lines[-2:-2] = [
                "The store-dependent cases run against PostgreSQL (the store is created by an "
                "`add`; forget's count and history's lookup read it); SQLite's 'a store path "
                "under a file' is replaced by two bad PostgreSQL store URLs. The rest are the "
                "CLI's own checks, the same on both backends.",
                "",
            ]
        for r in b:
            message = r["message"].replace("|", "\\|")
            lines.append(
                f"| {r['input']} | {r['exit']} | {r['lines']} | {'yes' if r['traceback'] else 'no'}"
                f" | {message} |"
            )
        lines.append("")
    return "\n".join(lines)


def _forget_postgresql(f: dict[str, Any]) -> list[str]:
    before, after = f["before"], f["after"]
    files = "base" in after
    places = ["sql", "pg_stats", *(["base", "pg_wal", "other"] if files else [])]
    heads = ["SQL rows", "pg_stats", "`base/`", "`pg_wal/`", "other files"][: len(places)]
    lines = [
        "## Forget",
        "",
        "The user had: "
        + ", ".join(f"{v} {name.replace('_', ' ')}" for name, v in f["objects"].items())
        + ". `forget` deletes their rows in one transaction, then VACUUMs the tables it "
        "touched. Occurrences of their distinctive words before → after it: in every row of "
        f"the store's {after['tables']} tables as SQL sees them, in the planner's statistics "
        "of those tables (`pg_stats`)"
        + (
            ", and, after a `CHECKPOINT`, in the bytes of the server's files: the table and "
            "index files (`base/`), the write-ahead log (`pg_wal/`) and the rest of the data "
            "directory"
            if files
            else " (the server's files were not read: its data directory is not on this "
            "machine, or the role may not see it)"
        )
        + ". Each exact-case occurrence counts twice, as in the SQLite report.",
        "",
        "| word | " + " | ".join(heads) + " |",
        "|---|" + "---|" * len(places),
    ]

    def count(counts: dict[str, int], word: str) -> int:
        return sum(counts.values()) if word == "total" else counts[word]

    for word in [*DISTINCT, "total"]:
        cells = [f"{count(before[p], word)} → **{count(after[p], word)}**" for p in places]
        lines.append(f"| {word} | " + " | ".join(cells) + " |")
    total = {p: sum(after[p].values()) for p in places}
    lines += ["", f"After the forget: **{total['sql']} in what SQL can see**, {total['pg_stats']} "]
    if files:
        mb = {p: round(v / 1e6, 1) for p, v in after["file_bytes"].items()}
        lines[-1] += (
            f"in `pg_stats`; in the files, **{total['pg_wal']} occurrences in `pg_wal/` and "
            f"{total['base']} in `base/` after VACUUM** (and CHECKPOINT), {total['other']} "
            f"elsewhere (the server's files then: `base/` {mb['base']} MB, `pg_wal/` "
            f"{mb['pg_wal']} MB, the rest {mb['other']} MB). PostgreSQL does not zero the "
            "space VACUUM frees, and the write-ahead log keeps the rows until its segment is "
            "recycled: [operations.md](operations.md#forgetting-on-postgresql) says how to "
            "take them off the disk."
        )
    else:
        lines[-1] += "in `pg_stats`."
    lines += ["", f"The other user's memories kept: {f['other_user_kept']}.", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--facts", type=int, default=500)
    parser.add_argument("--conversation", default="26")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--only", nargs="*", choices=["kill", "writers", "forget", "injection", "bad"]
    )
    parser.add_argument(
        "--backend",
        choices=["sqlite", "postgresql"],
        default="sqlite",
        help="the store backend the checks run on (default: sqlite)",
    )
    parser.add_argument(
        "--pg",
        metavar="URL",
        help="a PostgreSQL server for --backend postgresql (default: pgserver)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="the report (default: docs/reliability.md, docs/reliability-postgresql.md)",
    )
    args = parser.parse_args(argv)
    if args.out is None:
        name = "reliability.md" if args.backend == "sqlite" else "reliability-postgresql.md"
        args.out = ROOT / "docs" / name
    only = set(args.only or ["kill", "writers", "forget", "injection", "bad"])
    conversation = LOCOMO / f"{args.conversation}.json"
    if "kill" in only and not conversation.exists():
        print(f"error: {conversation} not found (LoCoMo beside the checkout)", file=sys.stderr)
        return 2
    results: dict[str, Any] = {}
    commit = _commit()  # the code measured: a HEAD that moves during the run is named too
    with tempfile.TemporaryDirectory(prefix="logicmem-reliability-") as tmp:
        work = Path(tmp)
        backend: Sqlite | Postgres = Sqlite(work) if args.backend == "sqlite" else Postgres(args.pg)
        if isinstance(backend, Postgres):
            results["postgresql"] = backend.info()
        try:
            if "bad" in only:
                results["bad"] = bad_inputs(work, backend)
            if "injection" in only:
                results["injection"] = injection(work, backend)
            if "forget" in only:
                results["forget"] = forget_leaves_nothing(work, backend)
            if "writers" in only:
                results["writers"] = concurrent_writers(work, args.writers, args.facts, backend)
            if "kill" in only:
                results["kill"] = kill_and_resume(
                    work, conversation, args.kills, args.seed, backend
                )
        finally:
            backend.close()
    command = ".venv/bin/python benchmarks/reliability.py " + " ".join(argv or sys.argv[1:])
    end = _commit()
    report = _report(
        results,
        command.strip(),
        commit if end == commit else f"{commit} (HEAD at {end} by the end)",
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report + "\n")
    (args.out.with_suffix(".json")).write_text(json.dumps(results, indent=1) + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
