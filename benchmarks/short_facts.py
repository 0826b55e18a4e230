"""Is a fact said in a few words kept? Short chat messages, written through the write path.

People tell an assistant what matters in very few words, and in many spellings: "I am
lactose intolerant.", "i'm on insulin", "Allergic to latex.", "Meds: lisinopril.", "Dad
uses a cane." A message the extractor drops is lost to every route, and the fact that
decides advice is the one most often said this briefly. This script writes each message
of ``benchmarks/data/short_facts.jsonl`` (see its README section) through the library's
write path, one user per message and no LLM (the rule extractor), and reports, per class
and per form of the message:

A row may hold the assistant's ``question`` that the message answers (the intake sets,
``intake_answers.jsonl`` and ``intake_heldout.jsonl``): it is written first, as the
assistant's turn, and the message after it.

- ``stored``: a memory was written for it;
- ``typed``: the memory was judged a standing constraint (any type).

For a message that states a standing fact both should hold; for small talk, ``typed`` is a
false alarm (``stored`` is not: a passing mood is still something said). Runs offline on
the embedded defaults. Run:

    .venv/bin/python benchmarks/short_facts.py [--data FILE] [--misses] [--json]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ages import arguments, each_written, load_rows

HERE = Path(__file__).resolve().parent


def load(path: Path) -> list[dict[str, Any]]:
    """The rows, checked (``ages.load_rows``)."""
    return load_rows(
        path,
        lambda row: (
            isinstance(row.get("states_fact"), bool)
            and isinstance(row.get("form"), str)
            and bool(row["form"])
            and isinstance(row.get("question", "?"), str)
        ),
        "states_fact (true/false), a form and, if any, a question (a string)",
    )


def written(rows: list[dict[str, Any]]) -> list[tuple[bool, bool]]:
    """Per row, (a memory was stored, it was judged a standing constraint)."""
    return [(stored, bool(found)) for stored, found in each_written(rows)]


def main() -> None:
    args = arguments(__doc__.split("\n")[0], HERE / "data" / "short_facts.jsonl")
    rows = load(args.data)
    results = written(rows)
    table: dict[str, dict[str, dict[str, int]]] = {}
    for row, (stored, typed) in zip(rows, results, strict=True):
        side = "facts" if row["states_fact"] else "small_talk"
        for form in (row["form"], "all"):
            cell = table.setdefault(side, {}).setdefault(form, {"n": 0, "stored": 0, "typed": 0})
            cell["n"] += 1
            cell["stored"] += int(stored)
            cell["typed"] += int(typed)
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{args.data.name}: {len(rows)} messages")
    print("| class | form | n | stored | typed a standing constraint |\n|---|---|---|---|---|")
    for side, forms in table.items():
        for form, c in sorted(forms.items(), key=lambda item: item[0] == "all"):
            print(f"| {side} | {form} | {c['n']} | {c['stored']} | {c['typed']} |")
    if args.misses:
        for row, (stored, typed) in zip(rows, results, strict=True):
            if row["states_fact"] and not typed:
                print(("not typed: " if stored else "dropped: ") + row["text"])
            elif not row["states_fact"] and typed:
                print("typed: " + row["text"])


if __name__ == "__main__":
    main()
