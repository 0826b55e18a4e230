"""How well the form reader (``routes.visible.views.view_kind``) reads personal logic.

Recall and kind on ``views_eval.jsonl`` (the rule's development set: values, goals,
reasons and near misses, written by hand from everyday life) and, held out from the rule,
on the statements of ``personal_logic_eval.jsonl`` (written before the rule), on
``views_heldout.jsonl`` (written by a helper after it, apart from the code) and on
``views_apart.jsonl`` (written later by another helper, also apart from it); the misses
of all three are not listed, so that nothing is tuned on them. False positives: sentences it reads
as a view among the rows labelled not critical of ``ordinary_chat.jsonl``,
``habits_eval.jsonl``, ``chat_eval.jsonl``, ``talk_eval.jsonl`` and ``scope_eval.jsonl``
(counts only for the held-out ones), and, where the shared data is beside the checkout,
how many turns and observations of the ten LoCoMo conversations it reads as one (they are
unlabelled: many are real goals). Whether a view then comes into view for requests on its
theme is ``benchmarks/personal_logic.py``. See benchmarks/data/README.md. Runs in a second:

    .venv/bin/python benchmarks/views.py [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from logicmem.bench.data import load_backgrounds
from logicmem.routes.visible.views import view_kind

HERE = Path(__file__).resolve().parent / "data"
LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10"
# Sets written apart from the rule, whose rows are counted and never listed.
HELD_OUT = ("chat_eval.jsonl", "talk_eval.jsonl", "scope_eval.jsonl")


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line.strip()]


def _not_critical(row: dict) -> bool:
    return row.get("critical", row.get("holds", True)) is False


def run() -> dict[str, dict]:
    out: dict[str, dict] = {}
    dev = _rows("views_eval.jsonl")
    found = [(r, view_kind(r["text"])) for r in dev]
    kinds = Counter(r["kind"] for r in dev)
    out["views_eval.jsonl"] = {
        "n": len(dev),
        "read": {k: sum(1 for r, got in found if r["kind"] == k and got) for k in kinds},
        "of": dict(kinds),
        "right_kind": sum(1 for r, got in found if got and got == r["kind"]),
        "wrong": [f"{r['kind']} -> {got or '-'}: {r['text']}" for r, got in found
                  if (r["kind"] == "none") != (got == "")],
    }  # fmt: skip
    for name, field in (
        ("personal_logic_eval.jsonl", "memory"),
        ("views_heldout.jsonl", "text"),
        ("views_apart.jsonl", "text"),
    ):
        held = _rows(name)
        read = Counter(r["kind"] for r in held if view_kind(r[field].replace("{user}", "Sam")))
        out[name] = {
            "n": len(held),
            "read": dict(read),
            "of": dict(Counter(r["kind"] for r in held)),
        }
    for name in ("ordinary_chat.jsonl", "habits_eval.jsonl", *HELD_OUT):
        texts = [r["text"] for r in _rows(name) if _not_critical(r)]
        wrong = [t for t in texts if view_kind(t)]
        row: dict = {"n": len(texts), "false_positives": len(wrong)}
        if name not in HELD_OUT:
            row["read_as_view"] = wrong
        out[name] = row
    # Each sentence is read alone and cut at MAX_SENTENCE characters: the worst of a few
    # texts built to make the lazy patterns work hardest (seconds, 200k-420k characters).
    long = ["I would rather " * 20000, "so now so now " * 20000, "since a b c, " * 20000 + "always",
            "after getting " * 30000, "I save. " * 50000]  # fmt: skip
    worst = 0.0
    for text in long:
        start = time.perf_counter()
        view_kind(text)
        worst = max(worst, time.perf_counter() - start)
    out["long texts"] = {"n": len(long), "worst_seconds": round(worst, 3)}
    if LOCOMO.is_dir():
        convs = load_backgrounds(LOCOMO)
        turns = [t["text"] for c in convs for _, _, ts in c.sessions for t in ts]
        facts = [f for c in convs for _, _, fs in c.observations for _, f, _ in fs]
        for name, texts in (("locomo10 turns", turns), ("locomo10 observations", facts)):
            out[name] = {
                "n": len(texts),
                "read": dict(Counter(k for k in map(view_kind, texts) if k)),
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    result = run()
    if parser.parse_args().json:
        print(json.dumps(result, indent=1))
        return
    for name, row in result.items():
        if "of" in row:
            parts = ", ".join(
                f"{k} {row['read'].get(k, 0)}/{n}" for k, n in sorted(row["of"].items())
            )
            print(f"{name}: read as a view: {parts}")
            if "right_kind" in row:
                print(f"  read as the right kind: {row['right_kind']}")
            for text in row.get("wrong", []):
                print(f"  wrong: {text}")
        elif "false_positives" in row:
            print(f"{name}: {row['false_positives']} of {row['n']} not critical read as a view")
            for text in row.get("read_as_view", []):
                print(f"  read: {text}")
        elif "worst_seconds" in row:
            print(f"{name}: worst {row['worst_seconds']:.3f} s of {row['n']}")
        else:
            print(f"{name}: {sum(row['read'].values())} of {row['n']} read as a view {row['read']}")


if __name__ == "__main__":
    main()
