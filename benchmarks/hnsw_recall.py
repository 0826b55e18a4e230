"""Recall@10 of pgvector's HNSW index against exact search, by ``hnsw.ef_search``.

The synthetic first-person turns of ``perf.py`` (``--memories`` of them; the generator
repeats ~11% of its texts at 100k) are embedded with MiniLM (the distinct texts once,
cached in ``--cache``), stored in a PostgreSQL store through the core
(``store.add_memory``, 1,000 per transaction), and 200 queries of ``perf.py`` are
answered through the index (``EXACT_MAX = 0``) at each ``--ef`` and exactly (numpy over
the user's matrix). Twice: with every text, so repeated texts are repeated vectors, and
with each distinct text once, as the write path stores them (it merges duplicates).

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/hnsw_recall.py --pg "postgresql://...?host=DIR"
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import time
import uuid
from pathlib import Path

import numpy as np

from logicmem.config import load_settings
from logicmem.models.factory import build_embedder
from logicmem.store.postgres import PostgresStore, drop_schema
from logicmem.store.url import open_store
from logicmem.types import MemoryEntry, Scope

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", required=True, help="a PostgreSQL URL with pgvector")
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--ef", default="200,400,1000")
    ap.add_argument(
        "--cache",
        default=str(Path.home() / ".cache" / "logicmem" / "bench" / "hnsw-vectors.npy"),
        help="where the distinct texts' vectors are kept between runs",
    )
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("perf", HERE / "perf.py")
    assert spec is not None and spec.loader is not None
    perf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(perf)
    emb = build_embedder(load_settings().embedder)
    texts = perf.synthetic_turns(args.memories)
    distinct = list(dict.fromkeys(texts))
    print("texts", len(texts), "distinct", len(distinct), flush=True)
    os.makedirs(os.path.dirname(args.cache), exist_ok=True)
    if os.path.exists(args.cache):
        vectors = np.load(args.cache)
    else:
        started = time.time()
        vectors = emb.embed(distinct)
        np.save(args.cache, vectors)
        print("embed", round(time.time() - started), flush=True)
    row = {t: i for i, t in enumerate(distinct)}
    queries = emb.embed(perf.queries(200))
    sep = "&" if "?" in args.pg else "?"
    for label, items in (("all", texts), ("distinct", distinct)):
        url = f"{args.pg}{sep}schema=hnsw_{uuid.uuid4().hex[:6]}"
        store = open_store(url)
        assert isinstance(store, PostgresStore)
        store.bind_embedder(emb.name, emb.dims)
        started = time.time()
        for i in range(0, len(items), 1000):
            with store.transaction():
                for j in range(i, min(len(items), i + 1000)):
                    entry = MemoryEntry(id=f"m{j:06d}", user_id="u", text=items[j])
                    store.add_memory(entry, vectors[row[items[j]]], {})
        print(label, "insert", len(items), round(time.time() - started), flush=True)
        scope = Scope("u")
        started = time.time()
        ids, matrix = store.vectors(scope)
        print(label, "load matrix s", round(time.time() - started, 2), flush=True)
        exact = []
        started = time.time()
        for q in queries:
            sims = matrix @ q
            top = np.argsort(-sims)[:10]
            exact.append((set(ids[k] for k in top), sims[top[-1]]))
        per_query = (time.time() - started) / len(queries) * 1000
        print(label, "exact numpy ms/query", round(per_query, 2), flush=True)
        store.EXACT_MAX = 0
        for ef in (int(x) for x in args.ef.split(",")):
            store.EF_SEARCH = ef
            started = time.time()
            got = store.nearest(scope, queries, 10)
            per_query = (time.time() - started) / len(queries) * 1000
            pairs = list(zip(got, exact, strict=True))
            by_id = np.mean([len({m for m, _ in g} & e) / 10 for g, (e, _) in pairs])
            ties = np.mean([sum(c >= t - 1e-6 for _, c in g) / 10 for g, (_, t) in pairs])
            print(label, f"ef{ef}", "recall ids", round(float(by_id), 4), "ties",
                  round(float(ties), 4), "ms/query", round(per_query, 2), flush=True)  # fmt: skip
        store.close()
        drop_schema(url)


if __name__ == "__main__":
    main()
