"""Questions about the user, asked by the user: ordinary recall over a long history.

LoCoMo's questions name the person they are about ("When did Priya start her pottery
class?", in their style), so on the ten conversations joined as one user's history the
visibility route treats every one as a question about a named person. A user asks about
their own past in the first person ("When did I start my pottery class?"), and that is
where ``context()`` must not fall below the hybrid search it contains.

``write`` rewrites each question that names its conversation's user (the speaker of role
``user`` there) into the first person, mechanically: "Priya's" becomes "my", "did Priya"
"did I", "does Priya" "do I", "Priya and Omar" "Omar and I", "Priya and her family" "I and
my family", other mentions "me", and, when no other speaker is named, "she"/"he" "I" and
"her"/"his" "my". The grammar is rough in places (a "me" left as a subject, a verb left
in the third person); both methods read the same text.

``halves`` reads one or more ``logicmem bench recall`` runs and reports evidence recall per
half of the conversations (A: 26, 30, 41, 42, 43; B: 44, 47, 48, 49, 50), to choose on
one half and check the other.

    .venv/bin/python -m logicmem.bench.convert ../shared/data/locomo10 --single --out J
    .venv/bin/python benchmarks/first_person.py write J FP
    .venv/bin/logicmem bench recall --history J/history.jsonl \\
        --questions FP/questions.jsonl --methods hybrid,context --k 10,30 --out RUN
    .venv/bin/python benchmarks/first_person.py halves RUN [RUN ...]

Nothing of LoCoMo is kept in the repository: the questions are written where asked.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

HALF_A = ("26", "30", "41", "42", "43")
# An auxiliary before the user's name, and its form before "I".
_AUX = {
    "does": "do",
    "has": "have",
    "is": "am",
    **{a: a for a in ("did", "was", "would", "will", "can", "could", "should", "might", "had")},
}


def _conversation(question_id: str) -> str:
    return question_id.split(":", 1)[0]


def _users(history: Path) -> tuple[dict[str, str], set[str]]:
    """Per conversation, the speaker of role ``user``; and every speaker."""
    users: dict[str, str] = {}
    speakers: set[str] = set()
    for line in history.read_text().splitlines():
        if line.strip():
            turn = json.loads(line)
            speakers.add(turn["speaker"])
            if turn.get("role") == "user":
                users[str(turn["turn"]).split("/", 1)[0]] = turn["speaker"]
    return users, speakers


def first_person(question: str, user: str, others: bool) -> str:
    """``question`` as ``user`` would ask it (see the module docstring); ``others``: the
    question names another speaker too, so its pronouns are left as they are."""
    name = re.escape(user)
    s = re.sub(rf"\b{name}['’]s\b", "my", question)
    s = re.sub(rf"\b{name} and ([A-Z][a-z]+)\b(?! [A-Z])", r"\1 and I", s)
    s = re.sub(rf"\b([A-Z][a-z]+) and {name}\b", r"\1 and I", s)
    for aux, own in _AUX.items():
        s = re.sub(
            rf"\b({aux}) {name}\b",
            lambda m, own=own: (own if m.group(1).islower() else own.capitalize()) + " I",
            s,
            flags=re.IGNORECASE,
        )
    s = re.sub(rf"^{name}\b", "I", s)
    s = re.sub(rf"\b(that|who|which|where|when|do|have) {name}\b", r"\1 I", s)
    s = re.sub(rf"\b{name}\b", "me", s)
    if not others:
        s = re.sub(r"\b(?:she|he|She|He)\b", "I", s)
        s = re.sub(r"\b(?:her|his)\b", "my", s)
        s = re.sub(r"\bhim\b", "me", s)
        s = re.sub(r"\b(?:herself|himself)\b", "myself", s)
    return s


def write(joined: Path, out: Path) -> int:
    users, speakers = _users(joined / "history.jsonl")
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    with (out / "questions.jsonl").open("w") as f:
        for line in (joined / "questions.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            q = json.loads(line)
            user = users.get(_conversation(q["id"]))
            if not user or not re.search(rf"\b{re.escape(user)}\b", q["query"]):
                continue
            others = any(
                p != user and re.search(rf"\b{re.escape(p)}\b", q["query"]) for p in speakers
            )
            own = first_person(q["query"], user, others)
            f.write(json.dumps({**q, "query": own, "asked_as": q["query"]}) + "\n")
            n += 1
    return n


def halves(runs: list[Path]) -> None:
    print("| run | method | half | n | recall @10 | recall @30 |")
    print("|---|---|---|---|---|---|")
    for run in runs:
        hits: dict[tuple[str, str, int], list[int]] = defaultdict(list)
        for line in (run / "records.jsonl").read_text().splitlines():
            r = json.loads(line)
            half = "A" if _conversation(r["probe"]) in HALF_A else "B"
            hits[(r["method"], half, r["k"])].append(int(r["hit"]))
        for method in dict.fromkeys(m for m, _, _ in hits):
            for half in "AB":
                at10, at30 = hits[(method, half, 10)], hits[(method, half, 30)]
                print(
                    f"| {run.name} | {method} | {half} | {len(at10)} | "
                    f"{100 * sum(at10) / len(at10):.1f} | {100 * sum(at30) / len(at30):.1f} |"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write the first-person questions")
    w.add_argument("joined", type=Path, help="the converter's --single output directory")
    w.add_argument("out", type=Path)
    h = sub.add_parser("halves", help="evidence recall per half of the conversations")
    h.add_argument("runs", type=Path, nargs="+", help="output directories of bench recall")
    args = parser.parse_args()
    if args.command == "write":
        print(f"wrote {write(args.joined, args.out)} questions to {args.out / 'questions.jsonl'}")
    else:
        halves(args.runs)


if __name__ == "__main__":
    main()
