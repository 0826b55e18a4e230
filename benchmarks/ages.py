"""Whose number is it: a person's age, or a thing's, an animal's, a span or a measure?

An age is one of the standing facts that most change advice (a toddler in the house, a
user of 80), and a number read as one where none is meant plants a wrong constraint: a
laptop of 5 years is no preschooler, 15 years sober is no teenager. This script writes
each sentence of ``benchmarks/data/ages_eval.jsonl`` (see its README section) through the
library's write path, one user per sentence, and reports how often the memory is typed an
age or a child constraint (``ctype`` ``age`` or ``child``), per kind of number: for a
person's age, how often it is read (recall); for the rest, how often it is misread.
Runs offline on the embedded defaults. Run:

    .venv/bin/python benchmarks/ages.py [--data FILE] [--misses] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from logicmem import Memory
from logicmem.errors import InputError
from logicmem.io.formats import iter_jsonl
from logicmem.routes.visible.criticality import AGES
from logicmem.routes.visible.repo import Criticality, VisibleRepository
from logicmem.routes.visible.text import stated_ages
from logicmem.types import Scope

HERE = Path(__file__).resolve().parent
WHOSE = ("self", "child", "parent", "other_household", "thing", "animal", "span", "measure")


def load_rows(
    path: Path, valid: Callable[[dict[str, Any]], bool], needs: str
) -> list[dict[str, Any]]:
    """The rows of a set of sentences, each with a ``text`` and what ``valid`` checks: exits
    (status 1) naming the line of a malformed one (``needs`` says what a row needs)."""
    rows = []
    try:
        for number, row in iter_jsonl(path):
            if not (isinstance(row.get("text"), str) and row["text"].strip() and valid(row)):
                sys.exit(f"{path}:{number}: needs text, {needs}")
            rows.append(row)
    except InputError as exc:
        sys.exit(f"{exc}")
    return rows


def load(path: Path) -> list[dict[str, Any]]:
    """The rows, checked (``load_rows``)."""
    return load_rows(
        path,
        lambda row: isinstance(row.get("is_age"), bool) and row.get("whose") in WHOSE,
        f"is_age (true/false) and whose {WHOSE}",
    )


@contextmanager
def scratch_memory(name: str) -> Iterator[Memory]:
    """A fresh store in a temporary folder, offline, with no LLM (the rule extractor)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / f"{name}.db", config={"llm": {"provider": "none"}}) as mem,
    ):
        yield mem


def each_written(rows: list[dict[str, Any]]) -> Iterator[tuple[bool, list[Criticality]]]:
    """Each row's text written through the library's write path as one user's message (no
    LLM, the user "user-N"), after the assistant's ``question`` when the row has one:
    whether a memory was stored, and the user's memories judged standing constraints."""
    with scratch_memory("written") as mem:
        repo = VisibleRepository.of(mem.store)
        for i, row in enumerate(rows):
            user = f"user-{i}"
            said = [{"role": "user", "content": row["text"]}]
            if row.get("question"):
                said.insert(0, {"role": "assistant", "content": row["question"]})
            added = mem.add(said, user_id=user).added
            yield bool(added), repo.critical_memories(Scope(user))


def stated(rows: list[dict[str, Any]]) -> list[list[int]]:
    """Per row, the people's ages its stored memories state (``text.stated_ages``), as the
    context reads them to say how old someone is now."""
    out = []
    with scratch_memory("stated") as mem:
        for i, row in enumerate(rows):
            said = [{"role": "user", "content": row["text"]}]
            if row.get("question"):
                said.insert(0, {"role": "assistant", "content": row["question"]})
            added = mem.add(said, user_id=f"user-{i}").added
            out.append([age for m in added for age in stated_ages(m.text)])
    return out


def typed(rows: list[dict[str, Any]]) -> list[bool]:
    """Per row, whether the write path types its memory an age or a child constraint."""
    return [any(c.ctype in AGES for c in found) for _, found in each_written(rows)]


def arguments(description: str, data: Path, *, user: bool = False) -> argparse.Namespace:
    """The options of a script that scores a set of sentences: ``--data`` (default
    ``data``), ``--misses`` and ``--json``; with ``user``, ``--user NAME`` too."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=data)
    if user:
        parser.add_argument(
            "--user", metavar="NAME", help="write every row for NAME, each in its own store"
        )
    parser.add_argument("--misses", action="store_true", help="print the rows read wrong")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__.split("\n")[0], HERE / "data" / "ages_eval.jsonl")
    rows = load(args.data)
    read = typed(rows)
    per: dict[str, dict[str, int]] = {}
    for row, hit in zip(rows, read, strict=True):
        cell = per.setdefault(row["whose"], {"n": 0, "typed": 0})
        cell["n"] += 1
        cell["typed"] += int(hit)
    ages = [hit for row, hit in zip(rows, read, strict=True) if row["is_age"]]
    others = [hit for row, hit in zip(rows, read, strict=True) if not row["is_age"]]
    summary = {
        "ages_read": sum(ages),
        "ages": len(ages),
        "others_misread": sum(others),
        "others": len(others),
        "per_kind": per,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{args.data.name}: {len(rows)} sentences")
    print(f"a person's age typed age/child: {sum(ages)} of {len(ages)}")
    print(f"another number typed age/child: {sum(others)} of {len(others)}")
    print("| kind | n | typed age/child |\n|---|---|---|")
    for kind in WHOSE:
        if kind in per:
            print(f"| {kind} | {per[kind]['n']} | {per[kind]['typed']} |")
    ages_stated = stated(rows)
    right = sum(
        row["is_age"] and row.get("age") in found
        for row, found in zip(rows, ages_stated, strict=True)
    )
    wrong = sum(
        bool(found) and not row["is_age"] for row, found in zip(rows, ages_stated, strict=True)
    )
    noted: dict[str, int] = {}
    for row, found in zip(rows, ages_stated, strict=True):
        noted[row["whose"]] = noted.get(row["whose"], 0) + bool(found)
    print("\n| kind | n | an age read for the note |\n|---|---|---|")
    for kind in WHOSE:
        if kind in per:
            print(f"| {kind} | {per[kind]['n']} | {noted.get(kind, 0)} |")
    print(
        f"\nages read for the context's note (`text.stated_ages`): a person's age read as "
        f"stated {right} of {len(ages)}; another number read as an age {wrong} of {len(others)}"
    )
    if args.misses:
        for row, hit in zip(rows, read, strict=True):
            if hit != row["is_age"]:
                print(("missed: " if row["is_age"] else "misread: ") + row["text"])
        for row, found in zip(rows, ages_stated, strict=True):
            if (row["is_age"] and row.get("age") not in found) or (found and not row["is_age"]):
                print(f"note {'missed' if row['is_age'] else 'misread'} ({found}): {row['text']}")


if __name__ == "__main__":
    main()
