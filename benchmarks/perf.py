"""Ingest throughput, search latency, peak RSS and store size at a given scale.

Synthetic first-person turns (names, places, hobbies, numbers) go through the real write
path (rule extractor, MiniLM, SQLite); then each method answers the same queries.
One size per process, so peak RSS is that size's own:

    .venv/bin/python benchmarks/perf.py --memories 10000
    .venv/bin/python benchmarks/perf.py --memories 100000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from logicmem import Memory
from logicmem.config import load_settings

NAMES = [
    "Ana",
    "Bo",
    "Caro",
    "Dev",
    "Eli",
    "Fay",
    "Gus",
    "Hana",
    "Ivo",
    "Jun",
    "Kai",
    "Lea",
    "Max",
    "Noa",
    "Oli",
    "Pia",
    "Raf",
    "Sol",
    "Teo",
    "Uma",
]
PLACES = [
    "Lisbon",
    "Oslo",
    "Lima",
    "Quito",
    "Turin",
    "Porto",
    "Accra",
    "Hanoi",
    "Perth",
    "Cork",
    "Bern",
    "Riga",
    "Split",
]
THINGS = [
    "bike",
    "kayak",
    "piano",
    "garden",
    "kitten",
    "puppy",
    "telescope",
    "camera",
    "novel",
    "guitar",
    "sourdough",
    "marathon",
    "pottery",
    "chess",
    "climbing",
    "violin",
    "aquarium",
    "beehive",
]
TEMPLATES = [
    "I started learning {thing} with {name} in {place} back in {year}.",
    "My friend {name} lent me a {thing} when we were in {place} in {year}.",
    "I spent {n} hours on my {thing} project last month near {place}.",
    "{name} and I plan to visit {place} in {year} to see a {thing} festival.",
    "I paid {n} euros for a used {thing} from a shop in {place}.",
]


def synthetic_turns(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(TEMPLATES).format(
            thing=rng.choice(THINGS),
            name=rng.choice(NAMES),
            place=rng.choice(PLACES),
            year=rng.randint(1990, 2025),
            n=rng.randint(2, 900),
        )
        for _ in range(n)
    ]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=500, help="turns per add() call")
    args = ap.parse_args()
    turns = synthetic_turns(args.memories)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "perf.db"
        # Merging is disabled (threshold above 1) so the store holds exactly N memories;
        # the duplicate check itself still runs on every add.
        settings = load_settings(
            {"llm": {"provider": "none"}, "extract": {"dedup_threshold": 1.01}}
        )
        mem = Memory(path, config=settings)
        mem.embedder.embed(["warm up"])  # model load is not ingest time
        started = time.perf_counter()
        for i in range(0, len(turns), args.batch):
            chunk = [
                {"content": t, "turn_id": f"t{i + j}"}
                for j, t in enumerate(turns[i : i + args.batch])
            ]
            mem.add(chunk, user_id="perf", session_id=f"s{i // args.batch}")
        ingest_s = time.perf_counter() - started
        stored = mem.stats()["memories"]
        rng = random.Random(11)
        queries = [
            f"What did {rng.choice(NAMES)} do with the {rng.choice(THINGS)} "
            f"in {rng.choice(PLACES)}?"
            for _ in range(args.queries)
        ]
        latency = {}
        for method in ("bm25", "dense", "hybrid"):
            mem.search(queries[0], user_id="perf", k=10, method=method)  # warm caches
            times = []
            for q in queries:
                t0 = time.perf_counter()
                mem.search(q, user_id="perf", k=10, method=method)
                times.append((time.perf_counter() - t0) * 1000)
            latency[method] = {
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(percentile(times, 95), 2),
            }
        mem.close()
        size = sum(p.stat().st_size for p in Path(tmp).iterdir())
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "turns": len(turns), "memories_stored": stored,
        "ingest_s": round(ingest_s, 1), "ingest_turns_per_s": round(len(turns) / ingest_s, 1),
        "search_latency": latency, "peak_rss_mb": round(rss_kb / 1024, 1),
        "store_mb": round(size / 2**20, 1), "python": sys.version.split()[0],
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
