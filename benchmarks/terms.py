"""Is the end a user states for a fact read right, and never one they did not state?

"I can't drive until March", "I'm on antibiotics for the next 10 days", "no alcohol for me
this month": a standing constraint that holds for a stated term stops engaging requests
after its last day (``routes/visible/term.py``); search and history keep it. Reading an
end that was not stated ("I've been vegetarian for 10 years", "my surgery is on March 3",
"until the cast comes off") would hide a fact that still holds, so that error counts
apart and must stay near 0.

Each row of ``benchmarks/data/terms_eval.jsonl`` (see its README section) holds a message
``text`` said on ``said`` and ``end``, the last day the state it tells holds (null: no
end stated). The message goes through the library's write path (no LLM: the rule
extractor; one user per row), and the end read is the latest ``stated_end`` of the
memories it stored. Reported per ``kind``:

- ``read right``: rows with an end whose end was read within a day (month arithmetic);
- ``read wrong``: rows with an end read as another day;
- ``missed``: rows with an end read as none (the fact is kept in view past its term);
- ``false end``: rows with no end read as having one (a fact hidden while it holds).

Runs offline on the embedded defaults. Run:

    .venv/bin/python benchmarks/terms.py [--data FILE] [--misses] [--json]
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from ages import arguments, load_rows, scratch_memory

from logicmem.routes.visible.term import stated_end

HERE = Path(__file__).resolve().parent


def _valid(row: dict[str, Any]) -> bool:
    try:
        date.fromisoformat(row["said"])
        if row["end"] is not None:
            date.fromisoformat(row["end"])
    except (KeyError, TypeError, ValueError):
        return False
    return isinstance(row.get("kind"), str)


def load(path: Path) -> list[dict[str, Any]]:
    """The rows, checked (``ages.load_rows``)."""
    return load_rows(
        path, _valid, "said (YYYY-MM-DD), end (YYYY-MM-DD or null) and kind (a string)"
    )


def read(rows: list[dict[str, Any]]) -> list[date | None]:
    """Per row, the latest end the memories its message stored state (None: none)."""
    out: list[date | None] = []
    with scratch_memory("terms") as mem:
        for i, row in enumerate(rows):
            added = mem.add(row["text"], user_id=f"user-{i}", timestamp=row["said"]).added
            ends = [e for m in added if (e := stated_end(m.text, m.said_at)) is not None]
            out.append(max(ends) if ends else None)
    return out


def verdict(row: dict[str, Any], end: date | None) -> str:
    if row["end"] is None:
        return "false_end" if end is not None else "no_end_right"
    if end is None:
        return "missed"
    off = abs((end - date.fromisoformat(row["end"])).days)
    return "read_right" if off <= 1 else "read_wrong"


def score(rows: list[dict[str, Any]], ends: list[date | None]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for row, end in zip(rows, ends, strict=True):
        for kind in (row["kind"], "all"):
            cell = table.setdefault(
                kind,
                {"rows": 0, "with_end": 0, "read_right": 0, "read_wrong": 0, "missed": 0,
                 "no_end": 0, "false_end": 0, "no_end_right": 0},
            )  # fmt: skip
            cell["rows"] += 1
            cell["with_end" if row["end"] is not None else "no_end"] += 1
            cell[verdict(row, end)] += 1
    return table


def main() -> None:
    args = arguments(__doc__.split("\n")[0], HERE / "data" / "terms_eval.jsonl")
    rows = load(args.data)
    ends = read(rows)
    table = score(rows, ends)
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{args.data.name}: {len(rows)} rows")
    print("| kind | rows | read right | read wrong | missed | false end |")
    print("|---|---|---|---|---|---|")
    for kind, c in sorted(table.items(), key=lambda item: (item[0] == "all", item[0])):
        with_end = c["with_end"]
        print(
            f"| {kind} | {c['rows']} | {c['read_right']} / {with_end} | "
            f"{c['read_wrong']} / {with_end} | {c['missed']} / {with_end} | "
            f"{c['false_end']} / {c['no_end']} |"
        )
    if args.misses:
        for row, end in zip(rows, ends, strict=True):
            what = verdict(row, end)
            if what in ("read_wrong", "missed", "false_end"):
                print(f"[{row['kind']}] {what}: said {row['said']}, end {row['end']}, read {end}")
                print(f"  {row['text']}")


if __name__ == "__main__":
    main()
