"""The generic recall format: ``history.jsonl`` + ``questions.jsonl`` [+ ``memories.jsonl``].

history: ``conversation, session, turn, speaker, text`` [``time``, ``role``].
questions: ``id, conversation, user, query`` and ``gold_turns`` and/or ``gold_sessions``
[``answer``, ``group``]. memories (memory level): ``conversation, text`` and ``turns`` (or
``turn``: the source turn ids) [``id``, ``session``, ``time``, ``user``: only that user's].
One store per (conversation, user) asked about. ``recall``: an item of the first k traces
to a gold turn (to a gold session when only sessions are given); ``answer_recall``: that
item also contains the answer (questions with an answer only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from logicmem.bench import metrics as m
from logicmem.bench.data import data_info, read_jsonl
from logicmem.bench.engine import Engine, Plan, Probe, Session
from logicmem.bench.results import Outcome
from logicmem.errors import InputError

_ROLES = ("user", "assistant", "other")


def _ids(value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    return frozenset(str(v) for v in (value if isinstance(value, list) else [value]))


def _history(path: Path) -> dict[str, list[Session]]:
    """Sessions of each conversation, in order of first appearance."""
    rows = read_jsonl(path, ("conversation", "session", "turn", "speaker", "text"))
    convs: dict[str, dict[str, Session]] = {}
    seen: set[tuple[str, str]] = set()
    for n, row in enumerate(rows, 1):
        conv, sid, tid = str(row["conversation"]), str(row["session"]), str(row["turn"])
        if (conv, tid) in seen:
            raise InputError(f"{path}: record {n}: turn {tid!r} repeats in conversation {conv!r}")
        if row.get("role") is not None and row["role"] not in _ROLES:
            raise InputError(f"{path}: record {n}: role {row['role']!r} (user|assistant|other)")
        seen.add((conv, tid))
        sessions = convs.setdefault(conv, {})
        session = sessions.setdefault(sid, Session(sid, row.get("time"), []))
        turn = {"speaker": str(row["speaker"]), "text": str(row["text"]), "turn_id": tid}
        for key in ("role", "time"):
            if row.get(key) is not None:
                turn[key] = row[key]
        session.turns.append(turn)
    return {c: list(s.values()) for c, s in convs.items()}


def load_questions(path: Path, limit: int | None) -> list[dict[str, Any]]:
    rows = read_jsonl(path, ("id", "conversation", "user", "query"))
    for n, row in enumerate(rows, 1):
        if not row.get("gold_turns") and not row.get("gold_sessions"):
            raise InputError(f"{path}: record {n} ({row['id']}): no gold_turns or gold_sessions")
    if len({str(r["id"]) for r in rows}) != len(rows):
        raise InputError(f"{path}: question ids are not unique")
    return rows[:limit] if limit else rows


def _for_user(sessions: list[Session], user: str) -> list[Session]:
    """The dialogue as ``user`` lives it: their turns are the user's, others' are other."""
    out = []
    for s in sessions:
        turns = [
            {**t, "role": t.get("role") or ("user" if t["speaker"] == user else "other")}
            for t in s.turns
        ]
        out.append(Session(s.id, s.date, turns))
    return out


def _bank(
    path: Path, rows: list[dict[str, Any]], conv: str, user: str
) -> tuple[list[Session], dict[str, list[str]]]:
    sessions: dict[str, Session] = {}
    aliases: dict[str, list[str]] = {}
    for n, row in enumerate(rows, 1):
        if str(row["conversation"]) != conv or row.get("user") not in (None, user):
            continue
        turns = sorted(_ids(row.get("turns", row.get("turn"))))
        if not turns:
            raise InputError(f"{path}: record {n}: no source 'turns' for this memory")
        tid = f"memory:{row.get('id', n)}"
        aliases[tid] = turns
        sid = str(row.get("session") or "memories")
        session = sessions.setdefault(sid, Session(sid, row.get("time"), []))
        session.turns.append(
            {"speaker": user, "role": "user", "text": str(row["text"]), "turn_id": tid}
        )
    return list(sessions.values()), aliases


def plans(history: Path, questions: list[dict[str, Any]], memories: Path | None) -> Iterator[Plan]:
    convs = _history(history)
    rows = read_jsonl(memories, ("conversation", "text")) if memories is not None else []
    pairs = list(dict.fromkeys((str(q["conversation"]), str(q["user"])) for q in questions))
    for conv, user in pairs:
        if conv not in convs:
            raise InputError(f"{history}: no turns of conversation {conv!r}, which questions ask")
        probes = [
            Probe(
                str(q["id"]),
                str(q["query"]),
                _ids(q.get("gold_turns")),
                _ids(q.get("gold_sessions")),
                None if q.get("answer") is None else str(q["answer"]),
                str(q.get("group") or "all"),
            )
            for q in questions
            if (str(q["conversation"]), str(q["user"])) == (conv, user)
        ]
        if memories is None:
            yield Plan(f"{conv}/{user}", user, True, _for_user(convs[conv], user), [], probes)
        else:
            bank, aliases = _bank(memories, rows, conv, user)
            # Gold sessions are found through the history's turns, not the entries' sessions.
            where = {str(t["turn_id"]): s.id for s in convs[conv] for t in s.turns}
            yield Plan(f"{conv}/{user}", user, False, bank, [], probes, aliases, where)


def run(
    history: Path,
    questions_path: Path,
    memories: Path | None,
    engine: Engine,
    limit: int | None = None,
) -> Outcome:
    questions = load_questions(questions_path, limit)
    group = {str(q["id"]): str(q.get("group") or "all") for q in questions}
    n_plans = len({(str(q["conversation"]), str(q["user"])) for q in questions})
    records = engine.run(plans(history, questions, memories), total=n_plans, desc="recall")
    metrics: dict[str, m.MetricFn] = {
        "recall": lambda rs: m.rate(r.hit for r in rs),
        "answer_recall": lambda rs: m.rate(r.answer_hit for r in rs),
    }
    methods = {
        name: m.method_block(
            m.for_method(records, name),
            engine.ks,
            metrics,
            n=len(questions),
            group_of=group.__getitem__,
        )
        for name in dict.fromkeys(r.method for r in records)
    }
    data = data_info([questions_path], len(questions))
    data["history"] = data_info([history], sum(1 for _ in history.open()))
    if memories:
        data["memories"] = data_info([memories], sum(1 for _ in memories.open()))
    return Outcome({"data": data, "methods": methods}, records, ["recall", "answer_recall"])
