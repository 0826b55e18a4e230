"""Where the criticality classifier may speak: its support floor, per half of five sets.

The classifier's probability counts only for a memory close enough to one of its critical
examples (``criticality.support_floor``), measured without the leading directions every
example shares (``criticality.common_directions``: the examples all name one subject, and
that name alone puts any sentence about it close to some example). This script scores the
whole write-time assessment on the hand-written labelled sets of ``benchmarks/data``
(``paraphrase_eval``, ``ordinary_chat``, ``chat_eval``, ``talk_eval``,
``criticality_eval``), each split in two halves by the SHA-256 of a row's text (A: the
first eight hex digits even), for each pair of directions removed and floor quantile
given: choose on half A, report half B beside it.

With ``--store`` and ``--history``, it also counts the memories of a store (for example
one built from LoCoMo's conversations joined as one history, through the write path) that
each variant judges critical, by source: a store holds no labels, so this is a count, not
a score. The names of the history's turns of role ``user`` are the user's.

    .venv/bin/python benchmarks/support.py 0:0.05 1:0.05 1:0.02 1:0.01 1:0.005 1:0 \\
        [--store STORE.db --history J/history.jsonl --user USER]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
from collections import Counter
from pathlib import Path

SETS = ("paraphrase_eval", "ordinary_chat", "chat_eval", "talk_eval", "criticality_eval")
HERE = Path(__file__).resolve().parent


def half(text: str) -> str:
    return "AB"[int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+", help="DIRECTIONS:QUANTILE, e.g. 1:0.005")
    parser.add_argument("--store", type=Path)
    parser.add_argument("--history", type=Path)
    parser.add_argument("--user", default="")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from logicmem import Memory
    from logicmem.routes.visible import criticality as c
    from logicmem.routes.visible.kb import load_kb
    from logicmem.routes.visible.text import neutral_subject, sentence_subject
    from logicmem.write.rules import own_words

    rows = {
        name: [
            json.loads(line) for line in (HERE / "data" / f"{name}.jsonl").open() if line.strip()
        ]
        for name in SETS
    }
    stored: list[str] = []
    if args.store:
        names = sorted(
            {
                json.loads(line)["speaker"]
                for line in args.history.open()
                if json.loads(line).get("role") == "user"
            }
        )
        with sqlite3.connect(args.store) as db:
            texts = [
                t for (t,) in db.execute("SELECT text FROM memories WHERE valid_until IS NULL")
            ]
        stored = [neutral_subject(own_words(t), args.user, names) for t in texts]
    print(
        "| directions | quantile | floor | A precision / recall / F1 | B precision / recall / F1 |"
        + (" store: critical (classifier) |" if stored else "")
    )
    print("|---|---|---|---|---|" + ("---|" if stored else ""))
    with Memory(":memory:", config={"llm": {"provider": "none"}}) as mem:
        embedder = mem.env.embedder
        vectors = {}
        for name, rs in rows.items():
            texts = [
                neutral_subject(
                    r["text"],
                    (r.get("subject") if r.get("subject") != "me" else None)
                    or sentence_subject(r["text"]),
                )
                for r in rs
            ]
            vectors[name] = (texts, embedder.embed(texts))
        if stored:
            vectors["store"] = (stored, embedder.embed(stored))
        for variant in args.variants:
            directions, quantile = variant.split(":")
            c.SUPPORT_COMPONENTS, c.SUPPORT_QUANTILE = int(directions), float(quantile)
            c._BUILT.clear()
            assessor = c.CriticalityAssessor(load_kb(), c.VectorCache(mem.store, embedder))
            counts: dict[str, Counter[str]] = {h: Counter() for h in "AB"}
            for name, rs in rows.items():
                texts, v = vectors[name]
                for r, a in zip(rs, assessor.assess(texts, v), strict=True):
                    truth, said = bool(r["critical"]), a.critical
                    key = "tp" if truth and said else "fp" if said else "fn" if truth else "tn"
                    counts[half(r["text"])][key] += 1
            cells = []
            for h in "AB":
                n = counts[h]
                p = n["tp"] / max(n["tp"] + n["fp"], 1)
                rec = n["tp"] / max(n["tp"] + n["fn"], 1)
                cells.append(f"{p:.3f} / {rec:.3f} / {2 * p * rec / max(p + rec, 1e-9):.3f}")
            line = (
                f"| {directions} | {quantile} | {assessor._prototypes().support_min:.3f} | "
                + " | ".join(cells)
                + " |"
            )
            if stored:
                texts, v = vectors["store"]
                found = assessor.assess(texts, v)
                line += (
                    f" {sum(a.critical for a in found)} "
                    f"({sum(a.critical and a.source == 'classifier' for a in found)}) |"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
