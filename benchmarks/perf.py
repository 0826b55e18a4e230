"""Ingest throughput, search and context latency, reindexing, peak RSS and store size at a
scale.

Synthetic first-person turns (names, places, hobbies, numbers) go through the real write
path (rule extractor, MiniLM, SQLite, the visibility indexer); ``--critical-share`` of
them state standing constraints (allergies, medications, pets, children, jobs...), so the
visibility route has critical memories and anticipation keys to match, as a real history
has. Then bm25, dense, hybrid and ``context()`` answer the same queries (half recall
questions, half requests for advice), k = 10, each with its own query embedding (no
cache), and the ratio of context to hybrid is reported from the same run. One size per
process, so peak RSS is that size's own:

    .venv/bin/python benchmarks/perf.py --memories 1000
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
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.types import Scope

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


# Standing constraints, stated in varied words (general knowledge, no benchmark text).
CONSTRAINTS = [
    "I'm allergic to {food}, so I check every label.",
    "My doctor has me on {drug} now, {n} mg every morning.",
    "We adopted a {pet} named {name} last spring.",
    "My daughter {name} turns {age} in {place} next month.",
    "I work night shifts as a {job} in {place}.",
    "I can't drive since my licence was suspended in {year}.",
]
FOODS = ["peanuts", "shellfish", "sesame", "tree nuts", "gluten", "eggs", "soy", "kiwi"]
DRUGS = ["warfarin", "lisinopril", "metformin", "sertraline", "levothyroxine", "lithium"]
PETS = ["cat", "kitten", "puppy", "rabbit", "parrot", "dog"]
JOBS = ["nurse", "pilot", "paramedic", "truck driver", "police officer", "baker"]
REQUESTS = [
    "Any ideas for a {thing} weekend in {place}?",
    "What should I cook for {name}'s dinner party on Saturday?",
    "Which flowers should I put on the table for {name}?",
    "Can you plan a road trip to {place} for me?",
    "What can I take for a bad headache tonight?",
]


def synthetic_turns(n: int, critical_share: float = 0.1, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        critical = rng.random() < critical_share
        out.append(
            rng.choice(CONSTRAINTS if critical else TEMPLATES).format(
                thing=rng.choice(THINGS),
                name=rng.choice(NAMES),
                place=rng.choice(PLACES),
                year=rng.randint(1990, 2025),
                n=rng.randint(2, 900),
                food=rng.choice(FOODS),
                drug=rng.choice(DRUGS),
                pet=rng.choice(PETS),
                age=rng.randint(1, 17),
                job=rng.choice(JOBS),
            )
        )
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        template = (
            "What did {name} do with the {thing} in {place}?" if i % 2 else rng.choice(REQUESTS)
        )
        out.append(
            template.format(
                name=rng.choice(NAMES), thing=rng.choice(THINGS), place=rng.choice(PLACES)
            )
        )
    return out


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=500, help="turns per add() call")
    ap.add_argument("--critical-share", type=float, default=0.1, help="turns that are constraints")
    ap.add_argument(
        "--verbatim",
        action="store_true",
        help="store each turn as one memory (add(infer=False)): the retrieval side at scale "
        "without the extractor's cost",
    )
    args = ap.parse_args()
    turns = synthetic_turns(args.memories, args.critical_share)
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
            mem.add(
                chunk, user_id="perf", session_id=f"s{i // args.batch}", infer=not args.verbatim
            )
        ingest_s = time.perf_counter() - started
        stored = mem.stats()["memories"]
        asked = queries(args.queries)
        latency = {}
        calls = {
            "bm25": lambda q: mem.search(q, user_id="perf", k=10, method="bm25"),
            "dense": lambda q: mem.search(q, user_id="perf", k=10, method="dense"),
            "hybrid": lambda q: mem.search(q, user_id="perf", k=10, method="hybrid"),
            "context": lambda q: mem.context(q, user_id="perf", k=10),
        }
        visible = 0
        for method, call in calls.items():
            call("warm up the caches")
            times = []
            for q in asked:
                for cached in ("query_vectors", "window_vectors"):  # every call embeds its own
                    mem.env.cache.pop(cached, None)  # query, as a new request does
                t0 = time.perf_counter()
                result = call(q)
                times.append((time.perf_counter() - t0) * 1000)
                if method == "context":
                    visible += result.routes.get("visible", 0)
            latency[method] = {
                "p50_ms": round(statistics.median(times), 2),
                "p95_ms": round(percentile(times, 95), 2),
            }
        ratio = latency["context"]["p50_ms"] / max(latency["hybrid"]["p50_ms"], 1e-9)
        critical = len(VisibleRepository.of(mem.store).critical_memories(Scope("perf")))
        keys = len(VisibleRepository.of(mem.store).memory_keys(Scope("perf"))[0])
        # Judging every stored memory again, as after an upgrade: the same judgements.
        t0 = time.perf_counter()
        reindexed = mem.reindex(user_id="perf")
        reindex_s = time.perf_counter() - t0
        again = len(VisibleRepository.of(mem.store).critical_memories(Scope("perf")))
        mem.close()
        size = sum(p.stat().st_size for p in Path(tmp).iterdir())
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "turns": len(turns), "verbatim": args.verbatim, "memories_stored": stored,
        "ingest_s": round(ingest_s, 1), "ingest_turns_per_s": round(len(turns) / ingest_s, 1),
        "critical_memories": critical, "key_rows": keys,
        "reindex_s": round(reindex_s, 1), "reindexed": reindexed,
        "critical_after_reindex": again,
        "search_latency": latency, "context_over_hybrid_p50": round(ratio, 2),
        "visible_items_per_context": round(visible / len(asked), 2),
        "peak_rss_mb": round(rss_kb / 1024, 1),
        "store_mb": round(size / 2**20, 1), "python": sys.version.split()[0],
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
