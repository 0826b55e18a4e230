"""Storage scale: SQLite and PostgreSQL + pgvector side by side, in one process per scale.

The synthetic first-person turns of ``perf.py`` are stored verbatim (``add(infer=False)``,
merging off, so the store holds N memories, the few that supersession closes counted
apart) through the real write path (the visibility indexer included) into each backend
in turn, from the same texts with the same vectors: every text the write path and the
queries embed is embedded ONCE with MiniLM before either store is opened (its throughput
is reported on its own), and both ingests then read those vectors from an in-memory
cache, so the ingest rate compares the stores, not the model. The visibility indexer's
fact matching against the knowledge base (pure CPU, the same for every store, 10-25 ms a
memory on one core here) is likewise done once per distinct turn (in ``--workers``
processes) and read from memory by both ingests (``--no-match-cache`` keeps it live in
both). These one-off steps dominate a large run on CPUs: 100k is ~190k texts to embed
and ~90k turns to match, 1000x1000 ~1.2M and ~580k.
For each backend it reports:

- ingest: turns/s over the wall time of the ``add`` calls (``--batch`` turns per call);
- latency: p50/p95 ms of ``search`` with bm25, dense and hybrid and of ``context()``,
  k = 10, over the same queries (with several users, each query asks a random user's
  store, the same user on both backends), after a few warm-up queries; query vectors
  come from the cache too, so latency excludes MiniLM (the routes still run their own
  per-request code: the per-call query-vector caches are emptied before every call);
  then PostgreSQL / SQLite for every p50 and p95;
- recall@10 of ``store.nearest`` (pgvector's HNSW index on PostgreSQL when a scope has
  more than the store's ``EXACT_MAX`` memories; exact on SQLite, a check of the measure)
  against the exact top 10 computed in numpy from ``store.vectors``, and its latency per
  query; on a store with ``EXACT_MAX``, again with it set to 0, so the index is measured
  at every size ("index-forced");
- memory and disk per 100k memories: the client's peak RSS during the backend's run
  (the peak is reset before each backend; the embedding cache, shared by both, is in
  the baseline reported apart), the SQLite file with its -wal and -shm, and for
  PostgreSQL the schema's tables with their indexes and TOAST (``pg_total_relation_size``)
  and the server processes' RSS (summed, so shared buffers count once per process).

PostgreSQL is a throwaway ``pgserver`` in a temporary folder unless ``--pg URL`` names
one (with the ``vector`` extension available); the store lives in its own schema,
dropped at the end. One scale per process:

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/stores.py --scale 10k \\
        --out bench-out/stores-10k.json
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/stores.py --scale 100k \\
        --out bench-out/stores-100k.json
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/stores.py --scale 1000x1000 \\
        --out bench-out/stores-1000x1000.json

``--memories N --users U`` sets another size (U users x N memories each), ``--backends
sqlite`` runs one backend, ``--markdown FILE`` appends a ready-to-paste section.

``--ingest core`` loads the memories through the store's core API instead of the write
path (at 100k the write path's own per-memory checks and the indexer's fact matching
take an hour and more per backend here): each turn's text becomes one memory
(``MemoryEntry``, category ``others``, increasing ``said_at``) stored with
``store.add_memory`` inside ``store.transaction()``, one transaction per ``--batch``
memories, then ``store.mark_indexed`` on the batch's ids so none is left "unindexed". No
duplicate check, categorizer, supersession or visibility indexing runs (no criticality,
no anticipation keys): ``context()`` then runs its routes on a store with no standing
constraints (its semantic part and the routes' overheads), which is NOT the pipeline
mode's workload, and the report labels it so. Only the texts themselves (and the queries,
as in the pipeline mode) are embedded, once, and fact matching is skipped. Ingest is
reported as core-ingest memories/s over the wall time of the batches (their
transactions and ``mark_indexed``). With several users, every user holds the SAME N
synthetic texts (perf.py's seed 7), so only N distinct texts are embedded while the store
holds U x N rows:

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/stores.py --scale 100k --ingest core \\
        --out bench-out/stores-100k-core.json
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/stores.py --memories 300 --users 1000 \\
        --ingest core --out bench-out/stores-1000x300-core.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing as mp
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import uuid4

import numpy as np

from logicmem import Memory
from logicmem.bench.cache import CachingEmbedder
from logicmem.config import Settings, load_settings
from logicmem.models.factory import build_embedder
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.relevance import request_windows
from logicmem.routes.visible.text import neutral_subject
from logicmem.types import MemoryEntry, Scope

SCALES = {"10k": (1, 10_000), "100k": (1, 100_000), "1000x1000": (1_000, 1_000)}
BACKENDS = ("sqlite", "postgresql")
METHODS = ("bm25", "dense", "hybrid", "context")
INGESTS = ("pipeline", "core")
CORE_DETAIL = {"extractor": "bench-core"}  # the history row's detail of a core-ingest memory
CORE_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)  # said_at of the first core-ingest memory
K = 10
WARMUP = 5
PER = 100_000  # memory and disk are reported per this many memories


def _load_perf() -> ModuleType:
    """``perf.py`` beside this file (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("_perf", Path(__file__).with_name("perf.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_perf = _load_perf()
synthetic_turns: Callable[..., list[str]] = _perf.synthetic_turns
make_queries: Callable[..., list[str]] = _perf.queries
percentile: Callable[[list[float], float], float] = _perf.percentile


# -- process memory ---------------------------------------------------------------------
def _status_kb(pid: int | str, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _reset_peak() -> bool:
    """Reset this process's peak RSS (VmHWM) so the next backend's peak is its own."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _client_mb(field: str) -> float | None:
    kb = _status_kb("self", field)
    return None if kb is None else round(kb / 1024, 1)


def _server_pids(postmaster: int) -> list[int]:
    """The postmaster and its children (backends, checkpointer, walwriter...)."""
    pids = [postmaster]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields and int(fields[1]) == postmaster:
            pids.append(int(entry.name))
    return pids


def _server_memory(postmaster: int | None) -> dict[str, Any] | None:
    if postmaster is None:
        return None
    pids = _server_pids(postmaster)
    rss = [_status_kb(p, "VmRSS") or 0 for p in pids]
    hwm = [_status_kb(p, "VmHWM") or 0 for p in pids]
    return {
        "processes": len(pids),
        "rss_mb": round(sum(rss) / 1024, 1),
        "peak_rss_mb": round(sum(hwm) / 1024, 1),
    }


# -- PostgreSQL -------------------------------------------------------------------------
class Postgres:
    """A server to benchmark against: a throwaway pgserver, or the one ``url`` names."""

    def __init__(self, url: str | None) -> None:
        self.srv: Any = None
        self.dir: str | None = None
        if url is None:
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
            import pgserver

            self.dir = tempfile.mkdtemp(prefix="lmpg")
            self.srv = pgserver.get_server(self.dir, cleanup_mode="stop")
            url = self.srv.get_uri()
        self.url: str = url
        with self.connect() as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            self.version = conn.execute("SHOW server_version").fetchone()[0]
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            self.pgvector = row.fetchone()[0]
            self.shared_buffers = conn.execute("SHOW shared_buffers").fetchone()[0]
        self.postmaster = self._postmaster()

    def connect(self) -> Any:
        import psycopg

        return psycopg.connect(self.url, autocommit=True)

    def _postmaster(self) -> int | None:
        """The postmaster's pid when the server runs on this machine (readable data dir)."""
        if self.srv is not None:
            pid: int | None = self.srv.get_pid()
            return pid
        try:
            with self.connect() as conn:
                data = conn.execute("SHOW data_directory").fetchone()[0]
            return int(Path(data, "postmaster.pid").read_text().split()[0])
        except Exception:
            return None

    def store_url(self, schema: str) -> str:
        return self.url + ("&" if "?" in self.url else "?") + f"schema={schema}"

    def schema_bytes(self, schema: str) -> int:
        with self.connect() as conn:
            row = conn.execute(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
                (schema,),
            ).fetchone()
        return int(row[0] or 0)

    def relations(self, schema: str) -> dict[str, Any]:
        """The schema's tables (with their indexes and TOAST) and its indexes, in bytes,
        largest first; and which indexes are HNSW."""
        with self.connect() as conn:
            tables = conn.execute(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relkind IN ('r', 'm') ORDER BY 2 DESC",
                (schema,),
            ).fetchall()
            indexes = conn.execute(
                "SELECT i.indexname, pg_relation_size(format('%%I.%%I', i.schemaname, "
                "i.indexname)::regclass), i.indexdef ILIKE '%% USING hnsw %%' "
                "FROM pg_indexes i WHERE i.schemaname = %s ORDER BY 2 DESC",
                (schema,),
            ).fetchall()
        return {
            "tables": {name: int(size) for name, size in tables},
            "indexes": {name: int(size) for name, size, _ in indexes},
            "hnsw_indexes": [name for name, _, hnsw in indexes if hnsw],
        }

    def drop(self, schema: str) -> None:
        with self.connect() as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def close(self) -> None:
        if self.srv is not None:
            self.srv.cleanup()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


# -- workload ---------------------------------------------------------------------------
class Workload:
    """The users, their turns, the queries (each with the user it asks) and warm-ups."""

    def __init__(
        self,
        users: int,
        per_user: int,
        n_queries: int,
        critical_share: float,
        *,
        shared: bool = False,
    ):
        self.users = ["perf"] if users == 1 else [f"user{u:04d}" for u in range(users)]
        # One user: perf.py's own turns (seed 7); several: each user its own seed, or
        # (``shared``, the core ingest) every user the same turns, seed 7's.
        if shared:
            same = synthetic_turns(per_user, critical_share, seed=7)
            self.turns = dict.fromkeys(self.users, same)
        else:
            self.turns = {
                u: synthetic_turns(per_user, critical_share, seed=7 + i)
                for i, u in enumerate(self.users)
            }
        self.queries = make_queries(n_queries)
        rng = random.Random(13)
        self.asks = [rng.choice(self.users) for _ in self.queries]
        self.warmup = make_queries(WARMUP, seed=99)
        self.warmup_users = [rng.choice(self.users) for _ in self.warmup]

    @property
    def n_turns(self) -> int:
        return sum(len(t) for t in self.turns.values())

    def distinct_turns(self) -> list[str]:
        return list(dict.fromkeys(t for turns in self.turns.values() for t in turns))

    def texts(self, max_windows: int, *, rephrased: bool = True) -> list[str]:
        """Every text the write path and the queries will embed, once each: the turns,
        the turns as the visibility indexer rephrases them (``neutral_subject``; not
        with ``rephrased=False``, the core ingest, which has no indexer), the queries
        and their clauses (``request_windows``)."""
        out: dict[str, None] = {}
        if rephrased:
            for user, turns in self.turns.items():
                for text in turns:
                    out[text] = None
                    out[neutral_subject(text, user)] = None
        else:
            out.update(dict.fromkeys(self.distinct_turns()))
        for q in [*self.queries, *self.warmup]:
            out[q] = None
            out.update(dict.fromkeys(request_windows(q, max_windows)))
        return list(out)


def _settings() -> Settings:
    # Merging is disabled (threshold above 1) so the store holds exactly N memories; the
    # duplicate check itself still runs on every add (as in perf.py).
    return load_settings({"llm": {"provider": "none"}, "extract": {"dedup_threshold": 1.01}})


def embed_all(embedder: CachingEmbedder, texts: list[str], log: Callable[[str], None]) -> float:
    """Embed ``texts`` into the cache, in chunks; returns the seconds it took."""
    started = time.perf_counter()
    step = 10_000
    for i in range(0, len(texts), step):
        embedder.embed(texts[i : i + step])
        if len(texts) > step:
            log(f"embedded {min(i + step, len(texts)):,}/{len(texts):,}")
    return time.perf_counter() - started


def _match_ids(texts: list[str]) -> list[list[tuple[str, str]]]:
    """``match_facts`` in a worker process, as (entry id, pattern) pairs."""
    kb = load_kb()
    return [[(entry.id, pattern) for entry, pattern in kb.match_facts(t)] for t in texts]


class FactMatches:
    """The knowledge base's fact matching (``KnowledgeBase.match_facts``), computed once
    per distinct text and then answered from memory, on the process's one shared
    knowledge base. It is pure CPU, the same for every store, and most of what the
    visibility indexer costs per memory, so leaving it in both ingests would bury the
    stores' difference under it (``--no-match-cache`` keeps it live)."""

    def __init__(self) -> None:
        self.kb = load_kb()
        self.inner = self.kb.match_facts
        self.memo: dict[str, list[Any]] = {}
        self.misses = 0

    def fill(self, texts: list[str], workers: int, log: Callable[[str], None]) -> float:
        """Match every text, over ``workers`` forked processes (call it before the model
        loads: forking a process with live inference threads is not safe)."""
        started = time.perf_counter()
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        size = 200
        chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
        step, done = max(len(todo) // 10, 1), 0
        if workers > 1 and len(chunks) > 1 and "fork" in mp.get_all_start_methods():
            with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
                results: Iterator[list[list[tuple[str, str]]]] = pool.map(_match_ids, chunks)
                for chunk, found in zip(chunks, results, strict=True):
                    for text, ids in zip(chunk, found, strict=True):
                        self.memo[text] = [(self.kb.entries[e], pat) for e, pat in ids]
                    done += len(chunk)
                    if len(todo) >= 10_000 and done // step != (done - len(chunk)) // step:
                        log(f"matched {done:,}/{len(todo):,}")
        else:
            for text in todo:
                self.memo[text] = self.inner(text)
        return time.perf_counter() - started

    def __call__(self, text: str) -> list[Any]:
        if text not in self.memo:
            self.misses += 1
            self.memo[text] = self.inner(text)
        return list(self.memo[text])

    def install(self) -> None:
        self.kb.match_facts = self  # type: ignore[method-assign]


def prime(embedder: CachingEmbedder, settings: Settings, work: Workload) -> None:
    """Fill the cache with what a store embeds once (category and criticality prototypes,
    knowledge-base situations) on a throwaway store, so neither backend pays for it."""
    user = work.users[0]
    with Memory(":memory:", config=settings, embedder=embedder) as mem:
        turns = work.turns[user][:20]
        mem.add(
            [{"content": t, "turn_id": f"p{i}"} for i, t in enumerate(turns)],
            user_id=user,
            session_id="prime",
            infer=False,
        )
        for method in METHODS[:3]:
            mem.search(work.warmup[0], user_id=user, k=K, method=method)
        mem.context(work.warmup[0], user_id=user, k=K)


def _summary(times: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(percentile(times, 95), 2),
    }


def ingest(mem: Memory, work: Workload, batch: int, log: Callable[[str], None]) -> dict[str, Any]:
    calls: list[float] = []
    done, next_log = 0, max(work.n_turns // 10, 1)
    for user, turns in work.turns.items():
        for i in range(0, len(turns), batch):
            chunk = [
                {"content": t, "turn_id": f"{user}-t{i + j}"}
                for j, t in enumerate(turns[i : i + batch])
            ]
            t0 = time.perf_counter()
            mem.add(chunk, user_id=user, session_id=f"{user}-s{i // batch}", infer=False)
            calls.append(time.perf_counter() - t0)
            done += len(chunk)
            if done >= next_log and done < work.n_turns:
                log(f"  ingested {done:,}/{work.n_turns:,} ({done / sum(calls):.0f} turns/s)")
                next_log += max(work.n_turns // 10, 1)
    seconds = sum(calls)
    return {
        "turns": work.n_turns,
        "add_calls": len(calls),
        "seconds": round(seconds, 2),
        "turns_per_s": round(work.n_turns / seconds, 1),
        "add_call_s": {
            "p50": round(statistics.median(calls), 3),
            "max": round(max(calls), 3),
            "first": round(calls[0], 3),
            "last": round(calls[-1], 3),
        },
    }


def ingest_core(
    mem: Memory,
    work: Workload,
    batch: int,
    embedder: CachingEmbedder,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Every turn's text as one memory through the store's core API (no write path, no
    visibility indexing): ``add_memory`` in one transaction per ``batch``, then
    ``mark_indexed`` on the batch's ids. Only the store calls are timed (the batch's
    vectors are read from the cache before its clock starts)."""
    store = mem.store
    store.bind_embedder(embedder.name, embedder.dims)
    calls: list[float] = []
    done, total = 0, work.n_turns
    step = max(total // 10, 1)
    next_log = step
    for user, turns in work.turns.items():
        for i in range(0, len(turns), batch):
            chunk = turns[i : i + batch]
            vectors = embedder.embed(chunk)
            entries = [
                MemoryEntry(
                    id=uuid4().hex,
                    user_id=user,
                    text=text,
                    category="others",
                    said_at=(CORE_EPOCH + timedelta(seconds=done + j)).isoformat(
                        timespec="seconds"
                    ),
                    source_turns=[],
                )
                for j, text in enumerate(chunk)
            ]
            t0 = time.perf_counter()
            with store.transaction():
                for entry, vector in zip(entries, vectors, strict=True):
                    store.add_memory(entry, vector, CORE_DETAIL)
            store.mark_indexed([e.id for e in entries])
            calls.append(time.perf_counter() - t0)
            done += len(chunk)
            if done >= next_log and done < total:
                log(f"  stored {done:,}/{total:,} ({done / sum(calls):.0f} memories/s)")
                next_log += step
    seconds = sum(calls)
    with store.errors():  # a check, untimed: mark_indexed left none "unindexed"
        row = store.db.execute(
            "SELECT count(*) AS n FROM memories WHERE index_claim IS NOT NULL"
        ).fetchone()
    return {
        "mode": "core",
        "unindexed_after": int(row["n"]),
        "memories": total,
        "batches": len(calls),
        "seconds": round(seconds, 2),
        "memories_per_s": round(total / seconds, 1),
        "batch_s": {
            "p50": round(statistics.median(calls), 3),
            "max": round(max(calls), 3),
            "first": round(calls[0], 3),
            "last": round(calls[-1], 3),
        },
    }


def latency(mem: Memory, work: Workload) -> dict[str, Any]:
    def call(method: str, query: str, user: str) -> Any:
        for cached in ("query_vectors", "window_vectors"):  # each call runs as a new request
            mem.env.cache.pop(cached, None)  # (the vectors themselves come from the cache)
        if method == "context":
            return mem.context(query, user_id=user, k=K)
        return mem.search(query, user_id=user, k=K, method=method)

    out: dict[str, Any] = {}
    for method in METHODS:
        t0 = time.perf_counter()
        call(method, work.warmup[0], work.warmup_users[0])
        first = (time.perf_counter() - t0) * 1000
        for q, u in zip(work.warmup[1:], work.warmup_users[1:], strict=True):
            call(method, q, u)
        times = []
        for q, u in zip(work.queries, work.asks, strict=True):
            t0 = time.perf_counter()
            call(method, q, u)
            times.append((time.perf_counter() - t0) * 1000)
        out[method] = {**_summary(times), "first_call_ms": round(first, 2)}
    return out


def recall(mem: Memory, work: Workload, embedder: CachingEmbedder) -> dict[str, Any]:
    """``store.nearest`` against the exact top k from ``store.vectors``, per query.

    ``recall_at_10`` counts a returned memory as right when its exact cosine reaches the
    exact 10th best (less 1e-5): the synthetic texts repeat, and equal vectors make the
    exact top 10 ambiguous. ``recall_at_10_ids`` is the plain overlap of ids."""
    vectors = embedder.embed(work.queries)
    for i in range(min(WARMUP, len(work.queries))):
        mem.store.nearest(Scope(work.asks[i]), vectors[i : i + 1], K)
    tie_aware, by_ids, times, worst_cos, short = [], [], [], 0.0, 0
    exact_cache: dict[str, tuple[list[str], dict[str, int], np.ndarray]] = {}
    for q, user in enumerate(work.asks):
        scope = Scope(user)
        t0 = time.perf_counter()
        got = mem.store.nearest(scope, vectors[q : q + 1], K)[0]
        times.append((time.perf_counter() - t0) * 1000)
        if user not in exact_cache:
            if len(exact_cache) > 8:
                exact_cache.clear()
            ids, matrix = mem.store.vectors(scope)
            exact_cache[user] = (ids, {m: j for j, m in enumerate(ids)}, np.asarray(matrix))
        ids, position, matrix = exact_cache[user]
        sims = matrix @ vectors[q]
        kth = min(K, len(sims))
        order = np.argsort(-sims)[:kth]
        floor = float(sims[order[-1]]) - 1e-5
        exact_ids = {ids[j] for j in order}
        short += len(got) < kth
        right = 0
        for memory_id, cosine in got:
            j = position.get(memory_id)
            if j is None:
                continue
            right += float(sims[j]) >= floor
            worst_cos = max(worst_cos, abs(float(sims[j]) - cosine))
        tie_aware.append(right / kth)
        by_ids.append(len(exact_ids & {m for m, _ in got}) / kth)
    return {
        "recall_at_10": round(float(np.mean(tie_aware)), 4),
        "recall_at_10_ids": round(float(np.mean(by_ids)), 4),
        "queries_short_of_10": short,
        "max_cosine_error": round(worst_cos, 6),
        "nearest_latency": _summary(times),
    }


@dataclass
class Target:
    """One backend to run: its store URL, how to size it on disk, and its server's memory."""

    backend: str
    url: str
    disk: Callable[[], int]
    server: Callable[[], dict[str, Any] | None] = lambda: None
    relations: Callable[[], dict[str, Any] | None] = lambda: None


def _warm_models(mem: Memory) -> None:
    """Build the write hooks' one-off state (the criticality prototypes and classifier,
    a transient of several hundred MB) before the peak RSS is reset: it is the same
    for every store and every size, not the store's memory."""
    for hook in mem.pipeline.hooks:
        assessor = getattr(hook, "assessor", None)
        if assessor is not None and hasattr(assessor, "_prototypes"):
            assessor._prototypes()


def run_backend(
    target: Target,
    work: Workload,
    batch: int,
    settings: Settings,
    embedder: CachingEmbedder,
    matches: FactMatches | None,
    log: Callable[[str], None],
    mode: str = "pipeline",
) -> dict[str, Any]:
    backend = target.backend
    out: dict[str, Any] = {"server_before": target.server()}
    t0 = time.perf_counter()
    mem = Memory(target.url, config=settings, embedder=embedder)
    try:
        out["open_s"] = round(time.perf_counter() - t0, 3)
        _warm_models(mem)
        peak_reset = _reset_peak()
        out["client_rss_mb_before"] = _client_mb("VmRSS")
        embedder.misses = 0
        if matches is not None:
            matches.misses = 0
        if mode == "core":
            log(f"[{backend}] core ingest {work.n_turns:,} memories (store.add_memory)")
            out["ingest"] = ingest_core(mem, work, batch, embedder, log)
        else:
            log(f"[{backend}] ingest {work.n_turns:,} turns")
            out["ingest"] = ingest(mem, work, batch, log)
        out["ingest"]["embedder_cache_misses"] = embedder.misses
        if matches is not None:
            out["ingest"]["fact_match_cache_misses"] = matches.misses
        stats = mem.stats()
        out["memories"] = stats.get("memories")
        out["superseded"] = stats.get("superseded")
        log(f"[{backend}] latency over {len(work.queries)} queries")
        embedder.misses = 0
        out["latency"] = latency(mem, work)
        out["latency_embedder_cache_misses"] = embedder.misses
        log(f"[{backend}] nearest recall@{K}")
        out["nearest"] = recall(mem, work, embedder)
        exact_max = getattr(mem.store, "EXACT_MAX", None)
        if exact_max is not None:
            # The store searches a scope of up to EXACT_MAX memories exactly: measure its
            # index too, whatever the size, by lowering the threshold on this instance.
            out["nearest"]["exact_max"] = exact_max
            log(f"[{backend}] nearest recall@{K} through the index (EXACT_MAX = 0)")
            mem.store.EXACT_MAX = 0  # type: ignore[attr-defined]
            try:
                out["nearest_index_forced"] = recall(mem, work, embedder)
            finally:
                del mem.store.EXACT_MAX  # type: ignore[attr-defined]
        out["server_after"] = target.server()
        out["disk_bytes"] = target.disk()
        out["relations"] = target.relations()
        out["client_rss_mb_after"] = _client_mb("VmRSS")
    finally:
        mem.close()
    if peak_reset:
        out["client_peak_rss_mb"] = _client_mb("VmHWM")
    else:  # the process's peak so far, earlier backends included
        out["client_peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
        )
    out["client_peak_is_own"] = peak_reset
    scale = PER / max(out["memories"] or work.n_turns, 1)
    per: dict[str, Any] = {
        "disk_mb": round(out["disk_bytes"] / 2**20 * scale, 1),
        "client_peak_over_baseline_mb": round(
            (out["client_peak_rss_mb"] - (out["client_rss_mb_before"] or 0)) * scale, 1
        ),
        "client_retained_mb": round(
            ((out["client_rss_mb_after"] or 0) - (out["client_rss_mb_before"] or 0)) * scale, 1
        ),
    }
    if out.get("server_after") and out.get("server_before"):
        before, after = out["server_before"], out["server_after"]
        per["server_rss_mb"] = round(after["rss_mb"] * scale, 1)
        per["server_growth_mb"] = round((after["rss_mb"] - before["rss_mb"]) * scale, 1)
        per["server_peak_growth_mb"] = round(
            (after["peak_rss_mb"] - before["peak_rss_mb"]) * scale, 1
        )
    out["per_100k"] = per
    return out


# -- report -----------------------------------------------------------------------------
def _git(*args: str) -> str | None:
    """``git args`` in this checkout, its output stripped (None where git cannot say)."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _git_commit() -> str | None:
    return _git("rev-parse", "--short", "HEAD")


def _git_dirty() -> bool | None:
    """Whether the working tree differs from the commit (then the commit alone does not
    name the code that ran)."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return None if status is None else bool(status)


def _ratios(backends: dict[str, Any]) -> dict[str, Any] | None:
    pg, lite = backends.get("postgresql"), backends.get("sqlite")
    if not pg or not lite or "latency" not in pg or "latency" not in lite:
        return None
    out: dict[str, Any] = {}
    for method in METHODS:
        a, b = pg["latency"][method], lite["latency"][method]
        out[method] = {p: round(a[p] / max(b[p], 1e-9), 2) for p in ("p50_ms", "p95_ms")}
    a, b = pg["nearest"]["nearest_latency"], lite["nearest"]["nearest_latency"]
    out["nearest"] = {p: round(a[p] / max(b[p], 1e-9), 2) for p in ("p50_ms", "p95_ms")}
    rate = "memories_per_s" if "memories_per_s" in pg["ingest"] else "turns_per_s"
    key = "ingest_core_memories_per_s" if rate == "memories_per_s" else "ingest_turns_per_s"
    out[key] = round(pg["ingest"][rate] / max(lite["ingest"][rate], 1e-9), 2)
    return out


def _rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    """(measure, one column per backend[, ratio]) rows of the report table."""
    names = [b for b in BACKENDS if b in result["backends"]]
    ok = {b: result["backends"][b] for b in names if "error" not in result["backends"][b]}
    ratio = result.get("ratio_postgresql_over_sqlite")
    core = result["workload"].get("ingest") == "core"

    def cell(b: str, get: Callable[[dict[str, Any]], Any]) -> str:
        if b not in ok:
            return "error"
        try:
            value = get(ok[b])
        except (KeyError, TypeError):
            return "-"
        return "-" if value is None else f"{value:,}" if isinstance(value, int) else str(value)

    rows: list[tuple[str, ...]] = [("", *names, *(["pg/sqlite"] if ratio else []))]

    def add(label: str, get: Callable[[dict[str, Any]], Any], r: Any = None) -> None:
        extra = [str(r) if r is not None else ""] if ratio else []
        rows.append((label, *(cell(b, get) for b in names), *extra))

    add("memories stored (active)", lambda d: d["memories"])
    add("superseded on the way", lambda d: d["superseded"])
    if core:
        add(
            "core ingest memories/s",
            lambda d: d["ingest"]["memories_per_s"],
            ratio and ratio["ingest_core_memories_per_s"],
        )
        add("ingest embedder cache misses", lambda d: d["ingest"]["embedder_cache_misses"])
    else:
        add(
            "ingest turns/s",
            lambda d: d["ingest"]["turns_per_s"],
            ratio and ratio["ingest_turns_per_s"],
        )
        add("ingest embedder cache misses", lambda d: d["ingest"]["embedder_cache_misses"])
        add(
            "ingest fact-match cache misses",
            lambda d: d["ingest"].get("fact_match_cache_misses"),
        )
    # Core ingest: no visibility index, so context() runs on no standing constraints.
    ctx = "context (no constraints)" if core else "context"
    for method in [*METHODS, "nearest"]:
        name = ctx if method == "context" else method
        for p in ("p50_ms", "p95_ms"):
            add(f"{name} {p[:3]} ms", _latency_of(method, p), ratio and ratio[method][p])
    add(
        f"first {'context() (no constraints)' if core else 'context()'} ms (cold)",
        lambda d: d["latency"]["context"]["first_call_ms"],
    )
    add("nearest recall@10 (ties)", lambda d: d["nearest"]["recall_at_10"])
    add("nearest recall@10 (ids)", lambda d: d["nearest"]["recall_at_10_ids"])
    add(
        "index-forced nearest p50 ms",
        lambda d: d["nearest_index_forced"]["nearest_latency"]["p50_ms"],
    )
    add(
        "index-forced nearest p95 ms",
        lambda d: d["nearest_index_forced"]["nearest_latency"]["p95_ms"],
    )
    add("index-forced recall@10 (ties)", lambda d: d["nearest_index_forced"]["recall_at_10"])
    add("index-forced recall@10 (ids)", lambda d: d["nearest_index_forced"]["recall_at_10_ids"])
    add("disk MB per 100k", lambda d: d["per_100k"]["disk_mb"])
    add("client peak RSS MB (this backend)", lambda d: d["client_peak_rss_mb"])
    add(
        "client peak over baseline MB /100k",
        lambda d: d["per_100k"]["client_peak_over_baseline_mb"],
    )
    add("client retained MB per 100k", lambda d: d["per_100k"]["client_retained_mb"])
    add("server RSS MB (after the run)", lambda d: d["server_after"]["rss_mb"])
    add("server RSS growth MB per 100k", lambda d: d["per_100k"]["server_growth_mb"])
    add("server peak growth MB per 100k", lambda d: d["per_100k"]["server_peak_growth_mb"])
    add("server processes", lambda d: d["server_after"]["processes"])
    return rows


def _latency_of(method: str, p: str) -> Callable[[dict[str, Any]], Any]:
    def get(d: dict[str, Any]) -> Any:
        if method == "nearest":
            return d["nearest"]["nearest_latency"][p]
        return d["latency"][method][p]

    return get


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    )


def markdown(result: dict[str, Any]) -> str:
    rows = _rows(result)
    w = result["workload"]
    e = result["embedding"]
    pg = result.get("postgres")
    server = f", PostgreSQL {pg['version']}, pgvector {pg['pgvector']}" if pg else ""
    head = (
        f"### Stores at {w['users']:,} user(s) x {w['memories_per_user']:,} memories"
        f"{', core ingest' if w.get('ingest') == 'core' else ''} "
        f"({result['date'][:10]}, {result['git_commit']})\n\n"
        f"`{result['command']}` on {result['machine']['cpu_count']} CPUs{server}. "
        f"MiniLM embedded {e['texts']:,} texts once at {e['texts_per_s']:,} texts/s; "
        "both ingests and all queries read those vectors from a cache, so ingest rates "
        f"and latencies (k = {K}, {w['queries']} queries, p50/p95 ms) exclude MiniLM"
        + (
            "; the knowledge base's fact matching of each distinct turn was also done once "
            "and read from memory by both ingests.\n\n"
            if result.get("fact_matching")
            else "; no fact matching (no visibility indexing).\n\n"
            if w.get("ingest") == "core"
            else "; fact matching ran live in both ingests.\n\n"
        )
    )
    note = result.get("ingest_note")
    if note:
        head += f"**Core ingest.** {note}\n\n"
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    lines.insert(1, "|" + "|".join(["---"] + ["---:"] * (len(rows[0]) - 1)) + "|")
    return head + "\n".join(lines) + "\n"


def _core_note(users: int, per_user: int, distinct: int) -> str:
    note = (
        "memories stored through store.add_memory (one transaction per batch, then "
        "mark_indexed), not the write path: no duplicate check, categorizer, supersession "
        "or visibility indexing (no criticality, no anticipation keys). context() thus runs "
        "its routes on a store with no standing constraints (its semantic part and the "
        "routes' overheads): not the pipeline mode's context() workload. Ingest is core "
        "memories/s, not turns/s through the write path."
    )
    if users > 1:
        note += (
            f" Every one of the {users:,} users holds the same {per_user:,} synthetic texts "
            f"(seed 7), so only their {distinct:,} distinct texts were embedded (with the "
            f"queries) while each store holds {users * per_user:,} rows."
        )
    return note


def _sqlite_disk(path: Path) -> int:
    return sum(
        p.stat().st_size for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", choices=sorted(SCALES), help="10k, 100k or 1000x1000")
    ap.add_argument("--memories", type=int, help="memories per user (instead of --scale)")
    ap.add_argument("--users", type=int, default=1, help="users (with --memories)")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated")
    ap.add_argument("--pg", metavar="URL", help="an existing PostgreSQL (default: pgserver)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--batch",
        type=int,
        default=500,
        help="turns per add() call (core: memories per transaction)",
    )
    ap.add_argument(
        "--ingest",
        choices=INGESTS,
        default="pipeline",
        help="pipeline: Memory.add(infer=False), the full write path; core: "
        "store.add_memory in transactions, no write path and no visibility indexing",
    )
    ap.add_argument("--critical-share", type=float, default=0.1, help="turns that are constraints")
    ap.add_argument(
        "--no-match-cache",
        action="store_true",
        help="run the knowledge base's fact matching live in both ingests (see FactMatches)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=len(os.sched_getaffinity(0)),
        help="processes for the one-off fact matching (default: the usable CPUs)",
    )
    ap.add_argument("--out", type=Path, help="write every number to this JSON file")
    ap.add_argument("--markdown", type=Path, help="append a ready-to-paste section here")
    args = ap.parse_args()
    if args.memories is not None:
        users, per_user = args.users, args.memories
    elif args.scale is not None:
        users, per_user = SCALES[args.scale]
    else:
        ap.error("give --scale or --memories")
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown or not backends or users < 1 or per_user < 1 or args.queries < 1:
        ap.error(f"--backends among {', '.join(BACKENDS)}; sizes and --queries at least 1")
    if args.batch < 1:
        ap.error("--batch at least 1")
    core = args.ingest == "core"

    started = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {msg}", file=sys.stderr, flush=True)

    settings = _settings()
    work = Workload(users, per_user, args.queries, args.critical_share, shared=core)
    matches: FactMatches | None = None
    match_s = 0.0
    distinct_turns = work.distinct_turns()
    # First, as its worker processes fork before the model loads; core: no indexer, none.
    if not args.no_match_cache and not core:
        matches = FactMatches()
        log(f"fact matching {len(distinct_turns):,} distinct turns once, {args.workers} workers")
        match_s = matches.fill(distinct_turns, args.workers, log)
        matches.install()
    embedder = CachingEmbedder(build_embedder(settings.embedder))
    embedder.inner.embed(["warm up"])  # model load is not embedding time
    texts = work.texts(settings.visibility.max_windows, rephrased=not core)
    log(f"embedding {len(texts):,} distinct texts once ({work.n_turns:,} turns)")
    embed_s = embed_all(embedder, texts, log)
    prime(embedder, settings, work)
    result: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "git_commit": _git_commit(),
        "git_dirty": _git_dirty(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu_count": os.cpu_count(),
            "cpus_usable": len(os.sched_getaffinity(0)),
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "numpy": np.__version__,
        },
        "workload": {
            "users": users,
            "memories_per_user": per_user,
            "turns": work.n_turns,
            "queries": len(work.queries),
            "batch": args.batch,
            "ingest": args.ingest,
            "distinct_turns": len(distinct_turns),
            "users_share_texts": core and users > 1,
            "critical_share": args.critical_share,
            "k": K,
            "embedder": embedder.name,
        },
        "embedding": {
            "texts": len(texts),
            "seconds": round(embed_s, 1),
            "texts_per_s": round(len(texts) / embed_s, 1),
            "note": "every text embedded once; both backends' ingests and all queries "
            "read the vectors from an in-memory cache, so their numbers exclude MiniLM",
        },
        "fact_matching": None
        if matches is None
        else {
            "texts": len(distinct_turns),
            "seconds": round(match_s, 1),
            "texts_per_s": round(len(distinct_turns) / max(match_s, 1e-9), 1),
            "workers": args.workers,
            "note": "KnowledgeBase.match_facts computed once per distinct turn; both "
            "ingests read it from memory (--no-match-cache: live in both)",
        },
        "ingest_note": _core_note(users, per_user, len(distinct_turns)) if core else None,
        "client_rss_mb_with_cache": _client_mb("VmRSS"),
        "backends": {},
    }
    pg: Postgres | None = None
    tmp = Path(tempfile.mkdtemp(prefix="lmstores"))
    schema = f"bench_{users}x{per_user}_{os.getpid()}"
    failed = False
    try:
        for backend in backends:
            try:
                if backend == "sqlite":
                    path = tmp / "stores.db"
                    target = Target(backend, str(path), partial(_sqlite_disk, path))
                else:
                    pg = Postgres(args.pg)
                    result["postgres"] = {
                        "version": pg.version,
                        "pgvector": pg.pgvector,
                        "shared_buffers": pg.shared_buffers,
                        "server": "pgserver (throwaway)" if args.pg is None else "--pg",
                        "schema": schema,
                    }
                    target = Target(
                        backend,
                        pg.store_url(schema),
                        partial(pg.schema_bytes, schema),
                        partial(_server_memory, pg.postmaster),
                        partial(pg.relations, schema),
                    )
                result["backends"][backend] = run_backend(
                    target, work, args.batch, settings, embedder, matches, log, args.ingest
                )
            except Exception as exc:  # report the failure, still run the other backend
                failed = True
                log(f"[{backend}] FAILED: {type(exc).__name__}: {exc}")
                result["backends"][backend] = {
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(),
                }
    finally:
        if pg is not None:
            try:
                pg.drop(schema)
            except Exception as exc:
                log(f"could not drop schema {schema}: {exc}")
            pg.close()
        shutil.rmtree(tmp, ignore_errors=True)
    result["ratio_postgresql_over_sqlite"] = _ratios(result["backends"])
    result["client_peak_rss_mb_process"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
    )
    result["seconds_total"] = round(time.perf_counter() - started, 1)

    e, f = result["embedding"], result["fact_matching"]
    print(
        f"{users:,} user(s) x {per_user:,} memories, {len(work.queries)} queries, k = {K}, "
        f"batch {args.batch}, ingest {args.ingest}; commit {result['git_commit']}"
        f"{' (uncommitted changes)' if result['git_dirty'] else ''}, {os.cpu_count()} CPUs"
    )
    print(
        f"MiniLM: {e['texts']:,} distinct texts embedded once in {e['seconds']} s "
        f"({e['texts_per_s']:,} texts/s); ingest and latency below read cached vectors "
        "(MiniLM excluded)"
    )
    if f:
        print(
            f"fact matching: {f['texts']:,} distinct turns once in {f['seconds']} s "
            f"({f['texts_per_s']:,}/s); ingest below reads it from memory"
        )
    if result["ingest_note"]:
        print(f"CORE INGEST: {result['ingest_note']}")
    if result.get("postgres"):
        p = result["postgres"]
        print(f"PostgreSQL {p['version']}, pgvector {p['pgvector']}, {p['server']}")
    print(table(_rows(result)))
    print(
        "Client peak RSS: reset (VmHWM) before each backend's ingest, after the store opened; "
        f"the baseline ({result['client_rss_mb_with_cache']} MB before the stores) holds the "
        "model and the vector cache. Server RSS: summed over the postgres processes, so "
        "shared buffers count once per process."
    )
    if users * per_user < 10_000:
        print(
            f"At {users * per_user:,} memories the per-100k figures are mostly fixed costs "
            "scaled up (caches, connections): read them at 10k and above."
        )
    rel = result["backends"].get("postgresql", {}).get("relations")
    if rel:
        top = ", ".join(f"{n} {b / 2**20:.1f}" for n, b in list(rel["tables"].items())[:6])
        print(f"PostgreSQL largest tables (MB, with indexes): {top}")
        print(f"HNSW indexes: {', '.join(rel['hnsw_indexes']) or 'none found'}")
    for backend, data in result["backends"].items():
        if "error" in data:
            print(f"\n{backend} failed:\n{data['traceback']}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    if args.markdown:
        with args.markdown.open("a") as fh:
            fh.write("\n" + markdown(result))
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
