"""Compare fusions of BM25 and dense on two kinds of requests, in one run.

LoCoMo evidence recall@k (memory level: observations as memories, each with its dia_id;
names and dates, where BM25 is strong) and IMLogic-style dev recall of m_s / m_l (where
requests share no word with the decisive memory). Run:

    .venv/bin/python benchmarks/fusion_sweep.py --shared ../shared --k 10
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from logicmem import Memory
from logicmem.config import load_settings

VARIANTS: list[tuple[str, str, dict[str, Any]]] = [
    ("bm25", "bm25", {}),
    ("dense", "dense", {}),
    ("rrf", "hybrid", {"fusion": "rrf"}),
    *[("anchored w=" + str(w), "hybrid", {"bm25_weight": w}) for w in (0.1, 0.2, 0.3, 0.5)],
]


def _recall(mem: Memory, user: str, query: str, gold: set[str], k: int) -> dict[str, int]:
    out = {}
    base = mem.env.settings
    for name, method, over in VARIANTS:
        mem.env.settings = base.model_copy(update=over)
        hits = mem.search(query, user_id=user, k=k, method=method).hits
        out[name] = int(any(gold & set(h.source_turns) for h in hits))
    mem.env.settings = base
    return out


def locomo(shared: Path, k: int, tmp: Path) -> dict[str, float]:
    totals: dict[str, int] = {}
    n = 0
    for path in sorted((shared / "data" / "locomo10").glob("*.json")):
        data = json.loads(path.read_text())
        user = data["speaker_a"]
        mem = Memory(tmp / f"{path.stem}.db", config=load_settings({"llm": {"provider": "none"}}))
        messages = []
        for key, value in data.items():
            if key.endswith("_observation"):
                for facts in value.values():
                    for fact, dia in facts:
                        dia_id = dia if isinstance(dia, str) else str(dia)
                        messages.append({"content": fact, "turn_id": dia_id})
        mem.add(messages, user_id=user, session_id="obs", infer=False)
        for qa in data["qa"]:
            if qa.get("category") == 5 or not qa.get("evidence"):
                continue
            n += 1
            for name, hit in _recall(mem, user, qa["question"], set(qa["evidence"]), k).items():
                totals[name] = totals.get(name, 0) + hit
        mem.close()
    return {name: round(v / n, 4) for name, v in totals.items()} | {"n": n}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = {
            "locomo_evidence_recall@k": locomo(Path(args.shared), args.k, Path(tmp)),
            "k": args.k,
        }
    result["elapsed_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
