"""How often a constraint the visible route puts in view is the evidence a recall question
asks for, against the probability the relevance model gave it.

The relevance model is trained on advice requests written from the knowledge resource.
A question about a named person ("When did Rosa move to Lyon?") asks for evidence
instead. This script runs such questions through the route with
``visibility.recall_weight = 1`` (the model's own probabilities), takes the constraints it
proposes at k, and counts how many trace back to a gold turn of the question. The ratio of
that rate to the mean probability is what ``recall_weight`` should be for the
probabilities to be calibrated there (calibration in the large).

Reads a history and questions in the bench's generic format (``python -m
logicmem.bench.convert ../shared/data/locomo10 --out bench-out/locomo-generic``):

    .venv/bin/python benchmarks/recall_calibration.py \\
        --history bench-out/locomo-generic/history.jsonl \\
        --questions bench-out/locomo-generic/questions.jsonl --conversations 26,30,41,42,43
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from logicmem.bench.adapters import recall
from logicmem.bench.cache import CachingEmbedder, default_cache_dir
from logicmem.bench.engine import Engine
from logicmem.bench.methods import Item
from logicmem.config import load_settings
from logicmem.models.factory import build_embedder
from logicmem.routes.visible.route import VisibleRoute, asks_about_someone
from logicmem.types import Scope


def measure(history: Path, questions: Path, conversations: list[str] | None, k: int) -> dict:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = load_settings(
        overrides={"llm": {"provider": "none"}, "visibility": {"recall_weight": 1.0}}
    )
    embedder = CachingEmbedder(
        build_embedder(settings.embedder), default_cache_dir() / "embeddings.db"
    )
    rows = recall.load_questions(questions, None)
    if conversations:
        rows = [q for q in rows if str(q["conversation"]) in conversations]
    tally: dict[str, dict[str, Any]] = {
        kind: {"questions": 0, "items": 0, "evidence": 0, "p_sum": 0.0}
        for kind in ("recall", "other")
    }
    with Engine(settings, embedder, [], [k], progress=False) as engine:
        for plan, mem, tracer in engine.stores(recall.plans(history, rows, None)):
            scope = Scope(plan.user_id)
            for probe in plan.probes:
                kind = "recall" if asks_about_someone(probe.query) else "other"
                t = tally[kind]
                t["questions"] += 1
                proposal = VisibleRoute().propose(mem.env, probe.query, scope, k, None)
                for hit, p in zip(proposal.hits, proposal.probabilities, strict=True):
                    t["items"] += 1
                    t["p_sum"] += p
                    t["evidence"] += tracer.is_gold(probe, Item.of_hit(hit))
    out = {}
    for kind, t in tally.items():
        n = t["items"]
        mean_p = t["p_sum"] / n if n else None
        rate = t["evidence"] / n if n else None
        out[kind] = {
            "questions": t["questions"],
            "items": n,
            "evidence": t["evidence"],
            "evidence_rate": rate,
            "mean_probability": mean_p,
            "weight": rate / mean_p if n and mean_p else None,
        }
    return {"k": k, "conversations": conversations, "by_kind": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", type=Path, required=True)
    ap.add_argument("--questions", type=Path, required=True)
    ap.add_argument("--conversations", default="", help="comma-separated; default: all")
    ap.add_argument("--k", type=int, default=30)
    args = ap.parse_args()
    convs = [c for c in args.conversations.split(",") if c] or None
    print(json.dumps(measure(args.history, args.questions, convs, args.k), indent=2))


if __name__ == "__main__":
    main()
