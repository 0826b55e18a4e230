"""Does a message that changes a fact end the old one, and only that one?

A user tells an assistant standing facts over time, then says something that changes one:
a dose raised ("my doctor bumped my sertraline up to 100 mg"), a value corrected ("sorry,
it's 40 mg"), a habit ended ("I quit smoking"), a request to forget ("please forget what I
said about my brother"). The old fact must leave what the assistant is shown, or advice is
given on a dose the user no longer takes. A message that changes one occasion ("moved my
appointment to 3pm"), sets a fact aside for a moment, or tells someone else's change must
end nothing: a fact closed by mistake is lost to every route.

Each row of ``benchmarks/data/updates_eval.jsonl`` (see its README section) holds earlier
``facts``, each written as its own message on its own day, then the message ``said`` a
day later, through the library's write path (no LLM: the rule extractor; one user per
row), and ``ends``, the facts that no longer hold after it. A fact is *closed* when no
current memory was written from its message (a part an ending left of it is one).
Reported per ``kind``:

- ``ended``: facts of ``ends`` closed, of all in ``ends`` (recall);
- ``closed wrongly``: other facts closed, of all other facts (must be 0);
- ``rows right``: rows where exactly the facts of ``ends`` were closed;
- ``request kept``: for a request to forget, rows where a memory of the request itself is
  still current (it names what was to be forgotten);
- ``part kept`` and ``part ended``, for rows whose message ends one part of a fact that
  told several (``keeps``: phrases some current memory written for the facts must still
  say; ``stale``: phrases none may say; matched case-insensitively): the phrases of
  ``keeps`` still said, and those of ``stale`` no longer said, of all.

Facts that stored no memory are counted apart (``not stored``) and left out of both
rates. Each row is its own user, "user-N" in one store; with ``--user NAME``, NAME in a
store of its own per row, as an app that keys users by their first name does (the memory
then reads "NAME's husband" where it read "user-3's husband"). Runs offline on the
embedded defaults. Run:

    .venv/bin/python benchmarks/updates.py [--data FILE] [--user NAME] [--misses] [--json]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from ages import arguments, scratch_memory

from logicmem import Memory
from logicmem.errors import InputError
from logicmem.io.formats import iter_jsonl

HERE = Path(__file__).resolve().parent


def _valid(row: dict[str, Any]) -> bool:
    facts = row.get("facts")
    return (
        isinstance(facts, list)
        and bool(facts)
        and all(isinstance(f, str) and f.strip() for f in facts)
        and isinstance(row.get("said"), str)
        and bool(row["said"].strip())
        and isinstance(row.get("ends"), list)
        and all(isinstance(i, int) and 0 <= i < len(facts) for i in row["ends"])
        and isinstance(row.get("kind"), str)
        and all(
            isinstance(row.get(key, []), list)
            and all(isinstance(p, str) and p.strip() for p in row.get(key, []))
            for key in ("keeps", "stale")
        )
    )


def load(path: Path) -> list[dict[str, Any]]:
    """The rows, checked: exits (status 1) naming the line of a malformed one."""
    rows = []
    try:
        for number, row in iter_jsonl(path):
            if not _valid(row):
                sys.exit(
                    f"{path}:{number}: needs facts (a list of strings), said (a string), "
                    "ends (indices into facts) and kind (a string); keeps and stale, where "
                    "given, are lists of phrases"
                )
            rows.append(row)
    except InputError as exc:
        sys.exit(f"{exc}")
    return rows


def _users(rows: list[dict[str, Any]], name: str | None) -> Iterator[tuple[Memory, str]]:
    """Per row, the store and the user its facts are written for."""
    with ExitStack() as shared:
        mem = shared.enter_context(scratch_memory("updates")) if name is None else None
        for i in range(len(rows)):
            if mem is not None:
                yield mem, f"user-{i}"
                continue
            with scratch_memory(f"updates-{i}") as own:
                yield own, str(name)


def written(rows: list[dict[str, Any]], name: str | None = None) -> list[dict[str, Any]]:
    """Per row: for each fact, whether it stored a memory and whether it is closed after
    the message; and whether a memory of the message itself is current."""
    out = []
    for row, (mem, user) in zip(rows, _users(rows, name), strict=True):
        stored, turns = [], []
        for day, fact in enumerate(row["facts"], 1):
            result = mem.add(fact, user_id=user, timestamp=f"2024-03-{day:02d}")
            stored.append(bool(result.added))
            turns.append(set(result.turns))
        said = mem.add(row["said"], user_id=user, timestamp="2024-03-20").added
        now = mem.get_all(user_id=user)
        current = {m.id for m in now}
        # What is current of each fact's message: a part an ending left of it counts.
        of = [[m for m in now if t & set(m.source_turns)] for t in turns]
        told = " | ".join(m.text for ms in of for m in ms).lower()
        out.append(
            {
                "stored": stored,
                "closed": [s and not ms for s, ms in zip(stored, of, strict=True)],
                "request_current": any(m.id in current for m in said),
                "kept": [p.lower() in told for p in row.get("keeps", [])],
                "stale": [p.lower() in told for p in row.get("stale", [])],
            }
        )
    return out


def score(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    table: dict[str, dict[str, int]] = {}
    for row, res in zip(rows, results, strict=True):
        ends = set(row["ends"])
        for kind in (row["kind"], "all"):
            c = table.setdefault(
                kind,
                {
                    "rows": 0,
                    "rows_right": 0,
                    "to_end": 0,
                    "ended": 0,
                    "others": 0,
                    "closed_wrongly": 0,
                    "not_stored": 0,
                    "requests": 0,
                    "request_kept": 0,
                    "keeps": 0,
                    "kept": 0,
                    "stale": 0,
                    "stale_gone": 0,
                },
            )
            c["rows"] += 1
            right = True
            for j, (stored, closed) in enumerate(zip(res["stored"], res["closed"], strict=True)):
                if not stored:
                    c["not_stored"] += 1
                    continue
                if j in ends:
                    c["to_end"] += 1
                    c["ended"] += int(closed)
                    right &= closed
                else:
                    c["others"] += 1
                    c["closed_wrongly"] += int(closed)
                    right &= not closed
            c["keeps"] += len(res["kept"])
            c["kept"] += sum(res["kept"])
            c["stale"] += len(res["stale"])
            c["stale_gone"] += len(res["stale"]) - sum(res["stale"])
            right &= all(res["kept"]) and not any(res["stale"])
            c["rows_right"] += int(right)
            if row["kind"] == "forget":
                c["requests"] += 1
                c["request_kept"] += int(res["request_current"])
    return table


def main() -> None:
    args = arguments(__doc__.split("\n")[0], HERE / "data" / "updates_eval.jsonl", user=True)
    rows = load(args.data)
    results = written(rows, args.user)
    table = score(rows, results)
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{args.data.name}: {len(rows)} rows")
    parts = table["all"]["keeps"] + table["all"]["stale"] > 0
    print(
        "| kind | rows | rows right | ended | closed wrongly | not stored | request kept |"
        + (" part kept | part ended |" if parts else "")
        + "\n|---|---|---|---|---|---|---|"
        + ("---|---|" if parts else "")
    )
    for kind, c in sorted(table.items(), key=lambda item: (item[0] == "all", item[0])):
        kept = f"{c['request_kept']} / {c['requests']}" if c["requests"] else ""
        part = f" {c['kept']} / {c['keeps']} | {c['stale_gone']} / {c['stale']} |" if parts else ""
        print(
            f"| {kind} | {c['rows']} | {c['rows_right']} | {c['ended']} / {c['to_end']} | "
            f"{c['closed_wrongly']} / {c['others']} | {c['not_stored']} | {kept} |{part}"
        )
    if args.misses:
        for row, res in zip(rows, results, strict=True):
            ends = set(row["ends"])
            wrong = [
                ("not ended" if j in ends else "closed wrongly") + ": " + fact
                for j, (fact, stored, closed) in enumerate(
                    zip(row["facts"], res["stored"], res["closed"], strict=True)
                )
                if stored and closed != (j in ends)
            ]
            pairs = zip(row.get("keeps", []), res["kept"], strict=True)
            wrong += [f"not kept: {p}" for p, k in pairs if not k]
            pairs = zip(row.get("stale", []), res["stale"], strict=True)
            wrong += [f"still said: {p}" for p, k in pairs if k]
            if wrong:
                print(f"\n[{row['kind']}] said: {row['said']}")
                for line in wrong:
                    print("  " + line)


if __name__ == "__main__":
    main()
