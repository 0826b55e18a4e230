"""Which requests does the visibility route read as questions for the record?

On ``benchmarks/data/intent_eval.jsonl`` (300 requests a user types to an assistant with
memory, 150 asking for the record and 150 for advice, written by a helper apart from the
code and from the model's examples; see benchmarks/data/README.md). A request read as one
for the record asks for evidence: a standing constraint earns a slot there only by a key
the request names (``VisibilitySettings.recall_own_past``). A request for advice read so
loses the constraints that should decide it, so precision comes first.

Reports, for the rules alone (``route.asks_for_record``) and for the rules with the
learned reading (``route.reads_as_record``: ``intent.RecordIntent`` on the questions about
the speaker that the rules leave open) at several thresholds, the record questions read
so (recall), the advice requests read so, and the recall per kind. Runs offline on the
embedded defaults:

    .venv/bin/python benchmarks/intent.py [--data FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from logicmem import Memory
from logicmem.routes.visible.intent import record_intent
from logicmem.routes.visible.route import asked_sentence, asks_for_record, open_to_intent

DATA = Path(__file__).resolve().parent / "data" / "intent_eval.jsonl"
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)


def run(path: Path = DATA) -> dict[str, object]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for n, row in enumerate(rows, 1):
        if row.get("intent") not in ("record", "advice") or not str(row.get("text", "")).strip():
            raise SystemExit(f"{path}:{n}: needs a text and an intent of record or advice")
    texts = [str(r["text"]) for r in rows]
    record = np.array([r["intent"] == "record" for r in rows])
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "i.db", config={"llm": {"provider": "none"}}) as mem,
    ):
        model = record_intent(mem.store, mem.env.embedder)
        default = mem.env.visibility.record_intent
        p = model.probability(mem.env.embedder.embed([asked_sentence(t) for t in texts]))
    rules = np.array([asks_for_record(t) for t in texts])
    open_ = np.array([open_to_intent(t) for t in texts]) & ~rules
    readings = {"rules alone": rules}
    for t in sorted({*THRESHOLDS, default}):
        mark = " (default)" if t == default else ""
        readings[f"rules + learned, p >= {t:.2f}{mark}"] = rules | (open_ & (p >= t))
    out: dict[str, object] = {"n_record": int(record.sum()), "n_advice": int((~record).sum())}
    kinds = sorted({str(r.get("kind", "")) for r in rows if r["intent"] == "record"})
    for name, read in readings.items():
        per_kind: dict[str, list[int]] = defaultdict(list)
        for row, hit in zip(rows, read, strict=True):
            if row["intent"] == "record":
                per_kind[str(row.get("kind", ""))].append(int(hit))
        out[name] = {
            "record_recall": round(float(read[record].mean()), 3),
            "advice_read_as_record": int(read[~record].sum()),
            "precision": round(float(record[read].mean()), 3) if read.any() else None,
            "recall_by_kind": {k: round(sum(v) / len(v), 3) for k in kinds if (v := per_kind[k])},
        }
    out["left_open_to_the_model"] = {
        "record": int(open_[record].sum()),
        "advice": int(open_[~record].sum()),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.data)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{result['n_record']} record questions, {result['n_advice']} requests for advice; "
          f"left open by the rules: {result['left_open_to_the_model']}")  # fmt: skip
    print("| reading | record read so | advice read so | precision |")
    print("|---|---|---|---|")
    for name, m in result.items():
        if isinstance(m, dict) and "record_recall" in m:
            print(f"| {name} | {m['record_recall']:.3f} | {m['advice_read_as_record']} | "
                  f"{m['precision']} |")  # fmt: skip


if __name__ == "__main__":
    main()
