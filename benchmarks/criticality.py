"""How well the write-time assessment tells standing constraints from ordinary memories.

Measured on ``benchmarks/data/criticality_eval.jsonl``: sentences authored separately from
the classifier's training examples (other wording, other names, a third in first person),
each labelled critical or not. Reports precision, recall and F1 of the assessment the
library makes (knowledge-resource match, then the classifier), per probability
threshold, beside the nearest-prototype rule it replaced, and, for a set whose rows have a
``kind``, the verdicts per kind. With ``--write-path``, each row is instead said by its
``subject`` through ``Memory.add`` (the rule extractor, no LLM), as a user's message is,
and judged by what the visibility route keeps. Run:

    .venv/bin/python benchmarks/criticality.py [--data FILE] [--write-path] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from logicmem import Memory
from logicmem.routes.visible.criticality import (
    NEAR_MARGIN,
    NEAR_MIN,
    P_MIN,
    Assessment,
    CriticalityAssessor,
    VectorCache,
)
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.routes.visible.text import neutral_subject, sentence_subject
from logicmem.types import Scope

HERE = Path(__file__).resolve().parent


def scores(
    rows: list[dict], thresholds: list[float]
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """Precision, recall and F1 per rule, and the library's verdicts per row ``kind``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "c.db", config={"llm": {"provider": "none"}}) as mem,
    ):
        kb = load_kb()
        assessor = CriticalityAssessor(kb, VectorCache(mem.store, mem.env.embedder))
        # The user is renamed as the library renames them: by the row's subject when it gives one.
        texts = [
            neutral_subject(r["text"], r.get("subject") or sentence_subject(r["text"]))
            for r in rows
        ]
        vectors = mem.env.embedder.embed(texts)
        truth = np.array([bool(r["critical"]) for r in rows])
        found = assessor.assess(texts, vectors)
        by_kb = np.array([a.source == "kb" for a in found])
        protos = assessor._prototypes()
        proba = protos.classifier.proba(vectors)
        sims = vectors @ protos.critical.T
        best_c, best_o = sims.max(axis=1), (vectors @ protos.ordinary.T).max(axis=1)
        near = (best_c >= NEAR_MIN) & (best_c - best_o >= NEAR_MARGIN)
        out = {"knowledge resource only": _prf(by_kb, truth)}
        out[f"+ nearest prototype ({NEAR_MIN}, margin {NEAR_MARGIN}), the old rule"] = _prf(
            by_kb | near, truth
        )
        for t in thresholds:
            out[f"+ classifier p>={t:.2f}"] = _prf(by_kb | (proba >= t), truth)
        out[f"library: resource, classifier p>={P_MIN:.2f} or prototype"] = _prf(
            np.array([a.critical for a in found]), truth
        )
        return out, by_kind(rows, found)


def through_write_path(rows: list[dict]) -> list[Assessment]:
    """The verdict a user gets: each row said by its subject (``subject``: "me" is a user
    "ana", a name is that user) through ``Memory.add`` with no LLM, then the standing
    constraints the visibility route keeps for that user. A row whose memories hold no
    constraint is not critical."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    users = ["ana" if r.get("subject", "me") == "me" else r["subject"].lower() for r in rows]
    judged: dict[int, Assessment] = {}
    with Memory(":memory:", config={"llm": {"provider": "none"}}) as mem:
        for i, (row, user) in enumerate(zip(rows, users, strict=True)):
            mem.add(row["text"], user_id=user, metadata={"row": i})
        repo = VisibleRepository.of(mem.store)
        for user in sorted(set(users)):
            kept = {c.memory_id: c for c in repo.critical_memories(Scope(user_id=user))}
            for memory in mem.get_all(user_id=user):
                c = kept.get(memory.id)
                if c is not None:
                    judged.setdefault(memory.metadata["row"], Assessment(True, c.score, c.ctype))
    return [judged.get(i, Assessment(False)) for i in range(len(rows))]


def by_kind(rows: list[dict], found: list) -> dict[str, dict[str, int]]:
    """Per ``kind`` of row (where the set gives one): how many rows, how many are labelled
    critical, how many the library judges critical, and of the labelled critical ones how
    many it judges critical with the labelled ``type``."""
    out: dict[str, dict[str, int]] = {}
    for row, a in zip(rows, found, strict=True):
        if "kind" not in row:
            continue
        k = out.setdefault(
            row["kind"], {"rows": 0, "labelled critical": 0, "judged critical": 0, "as typed": 0}
        )
        k["rows"] += 1
        k["labelled critical"] += bool(row["critical"])
        k["judged critical"] += bool(a.critical)
        k["as typed"] += bool(row["critical"] and a.critical and a.ctype == row.get("type"))
    return out


def _prf(pred: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    tp = float((pred & truth).sum())
    precision = tp / max(float(pred.sum()), 1.0)
    recall = tp / max(float(truth.sum()), 1.0)
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    return {"precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "data" / "criticality_eval.jsonl")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--write-path",
        action="store_true",
        help="judge each row as a user's message through Memory.add (see through_write_path)",
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    thresholds = sorted({0.2, 0.3, 0.4, 0.5, P_MIN})
    if args.write_path:
        found = through_write_path(rows)
        truth = np.array([bool(r["critical"]) for r in rows])
        name = "library, through the write path"
        result = {name: _prf(np.array([a.critical for a in found]), truth)}
        kinds = by_kind(rows, found)
    else:
        result, kinds = scores(rows, thresholds)
    if args.json:
        print(json.dumps({"rules": result, "by kind": kinds}, indent=1))
        return
    n_crit = sum(bool(r["critical"]) for r in rows)
    print(f"{len(rows)} sentences, {n_crit} critical; library threshold p>={P_MIN:.2f}")
    print("| rule | precision | recall | F1 |\n|---|---|---|---|")
    for name, m in result.items():
        print(f"| {name} | {m['precision']:.3f} | {m['recall']:.3f} | {m['f1']:.3f} |")
    if kinds:
        print("\n| kind | rows | labelled critical | judged critical | as typed |")
        print("|---|---|---|---|---|")
        for kind, k in kinds.items():
            print(
                f"| {kind} | {k['rows']} | {k['labelled critical']} | {k['judged critical']} "
                f"| {k['as typed']} |"
            )


if __name__ == "__main__":
    main()
