"""Convert LoCoMo to the generic recall format (history, questions, memories JSONL).

``python -m logicmem.bench.convert DIR --out OUT [--single]`` writes OUT/history.jsonl,
OUT/questions.jsonl and OUT/memories.jsonl. ``bench recall`` on them reproduces ``bench
locomo`` through the generic path (a check of the engine), and ``--single`` joins all
conversations into one long history to time the engine at scale. Category 5
(adversarial) is left out unless ``--include-adversarial``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from logicmem.bench.data import dia_ids, load_backgrounds
from logicmem.write.messages import normalize_time


def convert(
    directory: Path, out: Path, *, single: bool = False, include_adversarial: bool = False
) -> dict[str, int]:
    """Write the three files; returns how many records each got."""
    history: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    memories: list[dict[str, Any]] = []
    convs = load_backgrounds(directory)
    user = convs[0].speaker_a
    for conv in convs:
        # Joined conversations need globally unique turn and session ids.
        cid, pre = ("all", f"{conv.id}/") if single else (conv.id, "")
        owner = user if single else conv.speaker_a
        for sid, date, turns in conv.sessions:
            for t in turns:
                row = {
                    "conversation": cid,
                    "session": pre + sid,
                    "turn": pre + t["turn_id"],
                    "speaker": t["speaker"],
                    "text": t["text"],
                }
                if single:
                    row["role"] = "user" if t["speaker"] == conv.speaker_a else "other"
                if date:
                    row["time"] = normalize_time(date)
                history.append(row)
        for sid, date, facts in conv.observations:
            for _, text, ids in facts:
                memories.append(
                    {
                        "conversation": cid,
                        "text": text,
                        "session": pre + sid,
                        "turns": [pre + i for i in ids],
                        **({"time": normalize_time(date)} if date else {}),
                    }
                )
        for n, qa in enumerate(conv.qa):
            category = str(qa.get("category", ""))
            gold = dia_ids(qa.get("evidence") or [])
            if (category == "5" and not include_adversarial) or not gold:
                continue
            answer = qa.get("answer", qa.get("adversarial_answer"))
            questions.append(
                {
                    "id": f"{conv.id}:{n}",
                    "conversation": cid,
                    "user": owner,
                    "query": str(qa["question"]),
                    "gold_turns": [pre + g for g in gold],
                    "group": category,
                    **({"answer": str(answer)} if answer is not None else {}),
                }
            )
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("history", history), ("questions", questions), ("memories", memories)):
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    return {"history": len(history), "questions": len(questions), "memories": len(memories)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m logicmem.bench.convert")
    parser.add_argument("directory", type=Path, help="LoCoMo conversations dir")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--single", action="store_true", help="one joined conversation")
    parser.add_argument("--include-adversarial", action="store_true")
    args = parser.parse_args(argv)
    counts = convert(
        args.directory, args.out, single=args.single, include_adversarial=args.include_adversarial
    )
    print(json.dumps(counts), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
