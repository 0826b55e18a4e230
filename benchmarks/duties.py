"""How well the duty rules (``routes.visible.schedule``) read duties on fixed days.

Recall: the share of memories in ``obligation_eval.jsonl`` and ``obligation_heldout.jsonl``
that ``schedule.commitment`` reads as a duty, and whose days ``recurring_days`` reads.
False positives: sentences it reads as a duty among pastimes and routines on fixed days
(``habits_eval.jsonl``), ordinary chat (``ordinary_chat.jsonl``) and, where the shared
data is beside the checkout, every turn of the ten LoCoMo conversations (listed, since
they are unlabelled). Whether a duty then comes into view for requests on its days is
``benchmarks/personal_logic.py --set obligation_eval.jsonl`` (or ``obligation_heldout.jsonl``).
See benchmarks/data/README.md for how each set was written. Runs in a second:

    .venv/bin/python benchmarks/duties.py [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from logicmem.bench.data import load_backgrounds
from logicmem.routes.visible.schedule import commitment, recurring_days

HERE = Path(__file__).resolve().parent / "data"
LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10"


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line.strip()]


def _locomo_turns() -> list[str]:
    convs = load_backgrounds(LOCOMO)
    return [t["text"] for c in convs for _, _, turns in c.sessions for t in turns]


def run() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name in ("obligation_eval.jsonl", "obligation_heldout.jsonl"):
        texts = [r["memory"].replace("{user}", "Sam") for r in _rows(name)]
        read = [t for t in texts if commitment(t)]
        out[name] = {"n": len(texts), "recall": round(len(read) / len(texts), 3),
                     "missed": [t for t in texts if t not in read]}  # fmt: skip
    for name in ("habits_eval.jsonl", "ordinary_chat.jsonl"):
        texts = [r["text"] for r in _rows(name)]
        wrong = [t for t in texts if commitment(t)]
        out[name] = {"n": len(texts), "with_days": sum(bool(recurring_days(t)) for t in texts),
                     "false_positives": len(wrong), "read_as_duty": wrong}  # fmt: skip
    # A long memory is read in time linear in its length: the worst of a few texts built
    # to make list-following and bounded gaps work hardest (seconds, 100k-200k chars).
    long = ["I pick up groceries every Saturday and visit friends. " * 2000,
            "Mondays, " * 20000, "monday and " * 20000 + "every tuesday",
            "visit " * 20000 + "every Monday"]  # fmt: skip
    worst = 0.0
    for text in long:
        start = time.perf_counter()
        commitment(text)
        worst = max(worst, time.perf_counter() - start)
    out["long texts"] = {"n": len(long), "worst_seconds": round(worst, 3)}
    if LOCOMO.is_dir():
        texts = _locomo_turns()
        read = [t for t in texts if commitment(t)]
        out["locomo10 turns"] = {"n": len(texts), "read_as_duty": read}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    result = run()
    if parser.parse_args().json:
        print(json.dumps(result, indent=1))
        return
    for name, row in result.items():
        if "recall" in row:
            print(f"{name}: recall {row['recall']:.3f} of {row['n']}")
            for text in row["missed"]:
                print(f"  missed: {text}")
        elif "false_positives" in row:
            print(f"{name}: {row['false_positives']} of {row['n']} read as a duty "
                  f"({row['with_days']} name a recurrence)")  # fmt: skip
            for text in row["read_as_duty"]:
                print(f"  read as a duty: {text}")
        elif "worst_seconds" in row:
            print(f"{name}: the slowest of {row['n']} read in {row['worst_seconds']:.3f} s")
        else:
            print(f"{name}: {len(row['read_as_duty'])} of {row['n']} read as a duty")
            for text in row["read_as_duty"]:
                print(f"  {text[:120]}")


if __name__ == "__main__":
    main()
