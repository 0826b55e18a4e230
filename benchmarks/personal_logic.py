"""Does personal logic reach the context when a request touches its theme?

On ``benchmarks/data/personal_logic_eval.jsonl`` (values, goals and reasons behind past
decisions, each with two requests on its theme that share no content word with it and one
unrelated request; written by hand from general knowledge). One user's background is
every sentence of ``ordinary_chat.jsonl`` (376 memories of ordinary chat); each group's
memory is added to it, its three requests are asked through ``hybrid`` search and
``context()`` at k = 10 and 30, and the memory is deleted again. Reports how often the
memory is in the first k for its own requests (recall) and for the unrelated one (shown),
for all groups and without the three marked ``seeded`` (see benchmarks/data/README.md).
Runs offline on the embedded defaults:

    .venv/bin/python benchmarks/personal_logic.py [--json] [--set member_eval.jsonl]

``--set`` reads another set of the same shape: ``member_eval.jsonl`` holds household
members' standing facts ("{user}'s father uses a wheelchair"), two requests about that
member each, one about another member (``other_member``, reported as ``other``) and one
about no one.

``--history FILE`` puts a real conversation history in place of the chat sentences: a
``history.jsonl`` of the generic recall format (``python -m logicmem.bench.convert
../shared/data/locomo10 --out DIR`` writes the ten LoCoMo conversations; with ``--single``,
joined as one user's history), stored through the write path. Each conversation is a
user of its own: its turns of role ``user``, or, where it gives no roles, its first
speaker's. Every group is then said in every conversation by its user as a turn of its
own (its ``statement``, through the same write path, under the name the user speaks under
most), or, for sets without statements, added as its memory; every memory the turn
yields counts, and a statement the write path drops is a miss.

``--half A|B`` keeps every other group (A: the first, third, ...), to choose on one half
and check the other.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from logicmem import Memory

HERE = Path(__file__).resolve().parent / "data"
KS = (10, 30)
USER = "Sam"


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line.strip()]


@dataclass
class _User:
    """One user of the store: an id, the sessions of their history and the name they
    speak under most."""

    id: str
    speaker: str = USER
    sessions: dict[str, list[dict]] = field(default_factory=dict)


def _users(path: Path) -> list[_User]:
    """One user per conversation of a generic-format history. The user is every turn of
    role ``user``; where a conversation gives no roles, its first speaker."""
    convs: dict[str, list[dict]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            t = json.loads(line)
            convs.setdefault(str(t["conversation"]), []).append(t)
    users = []
    for conv, turns in convs.items():
        first = turns[0]["speaker"]
        user = _User(f"{USER}-{conv}" if len(convs) > 1 else USER)
        names: Counter[str] = Counter()
        for t in turns:
            role = t.get("role") or ("user" if t["speaker"] == first else "other")
            names[t["speaker"]] += role == "user"
            user.sessions.setdefault(str(t["session"]), []).append(
                {"speaker": t["speaker"], "role": role, "text": t["text"],
                 "turn_id": str(t["turn"]), "time": t.get("time")}
            )  # fmt: skip
        user.speaker = names.most_common(1)[0][0]
        users.append(user)
    return users


def run(
    name: str = "personal_logic_eval.jsonl", history: Path | None = None, half: str = ""
) -> dict[str, dict[str, dict[str, float]]]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    groups = _rows(name)
    if half:
        groups = groups["AB".index(half) :: 2]
    seeded = any(g.get("seeded") for g in groups)
    counts: dict[str, dict[str, list[int]]] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "p.db", config={"llm": {"provider": "none"}}) as mem,
    ):
        if history is None:
            users = [_User(USER)]
            chat = [r["text"] for r in _rows("ordinary_chat.jsonl")]
            mem.add([{"content": t, "turn_id": f"bg{i}"} for i, t in enumerate(chat)],
                    user_id=USER, session_id="background", infer=False)  # fmt: skip
        else:
            users = _users(history)
            for user in users:
                for sid, turns in user.sessions.items():
                    mem.add(turns, user_id=user.id, session_id=sid, timestamp=turns[0]["time"])
        for user in users:
            for g in groups:
                memory_ids = _say(mem, g, user, said=history is not None)
                for subset in ("all", "unseeded") if seeded and not g.get("seeded") else ("all",):
                    for method in ("hybrid", "context"):
                        row = counts.setdefault(f"{subset}:{method}", {})
                        for k in KS:
                            for query, kind in _queries(g):
                                ids = _ids(mem, user.id, method, query, k)
                                row.setdefault(f"{kind}@{k}", []).append(
                                    int(bool(memory_ids & ids))
                                )
                for memory_id in memory_ids:
                    mem.delete(memory_id, user_id=user.id)
    return {
        key: {metric: round(sum(v) / len(v), 3) for metric, v in row.items()}
        for key, row in counts.items()
    }


def _say(mem: Memory, group: dict, user: _User, said: bool) -> set[str]:
    """Add the group's fact for the user: its statement as the user's turn through the
    write path (``said``, when the set has statements), else its memory as written."""
    if said and "statement" in group:
        turn = {"speaker": user.speaker, "role": "user", "text": group["statement"]}
        added = mem.add([{**turn, "turn_id": f"pl-{group['id']}"}], user_id=user.id,
                        session_id=group["id"])  # fmt: skip
    else:
        # Said under the user's name, as the memory names them: a memory naming someone
        # the store does not know the user speaks as is another person's fact.
        turn = {"speaker": user.speaker, "role": "user", "content": group["memory"].replace(
            "{user}", user.speaker), "turn_id": f"pl-{group['id']}"}  # fmt: skip
        added = mem.add([turn], user_id=user.id, session_id=group["id"], infer=False)
    return {m.id for m in added.added}


def _queries(group: dict) -> list[tuple[str, str]]:
    """(request, what it measures): its own requests, then the unrelated and other ones."""
    unrelated = group["unrelated"]
    out = [(q, "recall") for q in group["requests"]]
    out += [(q, "shown") for q in ([unrelated] if isinstance(unrelated, str) else unrelated)]
    if "other_member" in group:
        out.append((group["other_member"], "other"))
    return out


def _ids(mem: Memory, user_id: str, method: str, query: str, k: int) -> set[str]:
    if method == "context":
        return {i.memory_id for i in mem.context(query, user_id=user_id, k=k).items}
    return {h.id for h in mem.search(query, user_id=user_id, k=k, method=method).hits}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--set", default="personal_logic_eval.jsonl",
                        help="a file of benchmarks/data of the same shape")  # fmt: skip
    parser.add_argument("--history", type=Path,
                        help="a history.jsonl (generic recall format)")  # fmt: skip
    parser.add_argument("--half", choices=("A", "B"), default="")
    args = parser.parse_args()
    result = run(args.set, args.history, args.half)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    other = any("other@10" in m for m in result.values())
    head = "| groups | method | recall @10 | recall @30 | unrelated shown @10 | shown @30 |"
    print(head + (" other member shown @10 | @30 |" if other else ""))
    print("|---|---|---|---|---|---|" + ("---|---|" if other else ""))
    for key, m in result.items():
        subset, method = key.split(":")
        line = (f"| {subset} | {method} | {m['recall@10']:.3f} | {m['recall@30']:.3f} | "
                f"{m['shown@10']:.3f} | {m['shown@30']:.3f} |")  # fmt: skip
        if other:
            line += f" {m['other@10']:.3f} | {m['other@30']:.3f} |"
        print(line)


if __name__ == "__main__":
    main()
