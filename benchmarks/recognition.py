"""How well the write-time assessment recognises standing facts in everyday wording.

Three hand-written sets in ``benchmarks/data`` (see its README.md):

- ``paraphrase_eval.jsonl``: facts the knowledge resource covers, stated the way people talk
  (synonyms, brand names, job titles, phrasal verbs, relatives, dates), each with the entries
  it should link to, plus near misses (hypotheticals, past events, other people's news,
  generic statements, negations). Reports entry-level linking recall (critical and sharing an
  expected entry), "critical" recall, precision, and the recall of the fact patterns alone,
  per style.
- ``ordinary_chat.jsonl``: ordinary chat, plans, hobbies and routines that are not standing
  constraints. Reports the false-positive rate and the precision of the classifier on
  ordinary chat together with the paraphrase positives, with the worst false positives.
- ``personal_logic_eval.jsonl``: values, goals and reasons. Reports how many statements the
  assessor calls critical and, as a baseline of similarity alone, whether the memory is
  closer (cosine of the embedder's vectors) to each of its later requests than to a request
  on another theme, with rank statistics.

- ``views_heldout.jsonl`` and ``views_apart.jsonl``: values, goals and reasons said in
  everyday forms, and near misses that look like them, each written by a helper apart
  from the code. Reports, per kind, how many the assessment judges critical, critical as
  a view (value, goal or reason) and as the right kind; near misses should be none.
- ``near_words_apart.jsonl``: ordinary life near a constraint's words (errands at a
  pharmacy, others' news, documentaries, words that are also abbreviations) beside standing
  facts said the way people talk, written apart from the code. Reports how many ordinary
  sentences the assessment judges critical and how many facts it does, with the
  ordinary sentences judged critical.
- ``scope_eval.jsonl``: sentences that name a constraint's topic but state no standing
  fact (general statements, reports of them, things over, absences), beside standing facts
  said close to them and terse ones. Reports how many of each kind are judged critical.

Then the paraphrase and chat sentences again with the user named otherwise (a name in
another script, an account id, "the user", no subject: ``SUBJECT_FORMS``), as other stores
and memory layers write them: the verdicts should not depend on it.

The data are validated first: the script exits with status 2 naming the file and line of
any malformed row or any entry id the knowledge resource lacks. Runs offline. Run:

    .venv/bin/python benchmarks/recognition.py [--data-dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from logicmem import Memory
from logicmem.errors import InputError
from logicmem.io.formats import iter_jsonl
from logicmem.routes.visible.criticality import VIEWS, CriticalityAssessor, VectorCache
from logicmem.routes.visible.hook import about_user
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.text import PROTOTYPE_SUBJECT, neutral_subject, sentence_subject

HERE = Path(__file__).resolve().parent
STYLES = (
    "synonym",
    "inflection",
    "word_order",
    "job_title",
    "brand_name",
    "phrasal_verb",
    "relative",
    "other",
)
CHAT_STYLES = ("chat", "plan", "hobby", "opinion", "news", "routine", "story")
KINDS = ("value", "goal", "reason")
NAME = "Alex"  # fills {user} in personal-logic memories (neutralised like any subject)
_STOP_WORDS = """a an the and or but if so to of in on at by for with from as is am are was were be
    been being i me my mine we our us you your he she it they them his her their its this
    that these those there here what which who whom whose when where why how should would
    could can will shall may might must do does did done have has had having not no nor than
    then too very just also only even ever never always more most less least much many some
    any all each every other another such own same few one two get got make made let like
    want need about over under into onto out up down off again once now well before after
    i'm i'd i've i'll we're we've we'd it's that's don't won't can't isn't what's ok okay
    anything something everything nothing someone anyone everyone yes per via next last"""
_STOP = frozenset(_STOP_WORDS.split())


class DataError(Exception):
    pass


# ---------------------------------------------------------------- loading and validation


def resource_entries() -> dict[str, str]:
    """Entry id -> type of every entry in the shipped anticipation resource."""
    return {e.id: e.type for e in load_kb().entries.values()}


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, row) of a JSON Lines file, read as the library reads its inputs."""
    try:
        rows = list(iter_jsonl(path))
    except InputError as exc:
        raise DataError(str(exc)) from None
    if not rows:
        raise DataError(f"{path}: no rows")
    return rows


def _need(path: Path, number: int, row: dict[str, Any], key: str, kind: type) -> Any:
    value = row.get(key)
    if not isinstance(value, kind) or (kind is str and not value.strip()):
        raise DataError(f"{path}:{number}: field '{key}' must be a non-empty {kind.__name__}")
    return value


def _one_of(path: Path, number: int, row: dict[str, Any], key: str, choices: Any) -> Any:
    value = row.get(key)
    if value not in choices:
        raise DataError(f"{path}:{number}: {key} must be one of {', '.join(choices)}")
    return value


def validate_paraphrase(path: Path, ids: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for number, row in read_jsonl(path):
        _need(path, number, row, "text", str)
        critical = row.get("critical")
        if not isinstance(critical, bool):
            raise DataError(f"{path}:{number}: field 'critical' must be true or false")
        entries = row.get("entries")
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise DataError(f"{path}:{number}: field 'entries' must be a list of ids")
        for entry in entries:
            if entry not in ids:
                raise DataError(f"{path}:{number}: unknown entry id '{entry}'")
        if critical:
            if not entries:
                raise DataError(f"{path}:{number}: a critical row needs at least one entry")
            _one_of(path, number, row, "style", STYLES)
            if row.get("type") != ids[entries[0]]:
                raise DataError(
                    f"{path}:{number}: type '{row.get('type')}' is not the type "
                    f"'{ids[entries[0]]}' of entry '{entries[0]}'"
                )
        elif entries:
            raise DataError(f"{path}:{number}: a non-critical row lists no entries")
        out.append(row)
    return out


def validate_chat(path: Path) -> list[dict[str, Any]]:
    out = []
    for number, row in read_jsonl(path):
        _need(path, number, row, "text", str)
        if row.get("critical") is not False:
            raise DataError(f"{path}:{number}: ordinary chat must have critical false")
        _one_of(path, number, row, "style", CHAT_STYLES)
        out.append(row)
    return out


def content_words(text: str) -> set[str]:
    def stem(word: str) -> str:
        for suffix in ("ing", "ers", "er", "ed", "es", "s", "ly"):
            if len(word) > 4 and word.endswith(suffix):
                return word[: -len(suffix)]
        return word

    words = re.findall(r"[a-z][a-z'’-]*", text.lower())
    return {stem(w.strip("'’")) for w in words if w not in _STOP and len(w) > 2}


def validate_logic(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    out, warnings, seen = [], [], set()
    for number, row in read_jsonl(path):
        gid = _need(path, number, row, "id", str)
        if gid in seen:
            raise DataError(f"{path}:{number}: duplicate id '{gid}'")
        seen.add(gid)
        _one_of(path, number, row, "kind", KINDS)
        statement = _need(path, number, row, "statement", str)
        if "{user}" not in _need(path, number, row, "memory", str):
            raise DataError(f"{path}:{number}: the memory needs a {{user}} placeholder")
        for key in ("requests", "unrelated"):
            items = row.get(key)
            if (
                not isinstance(items, list)
                or not items
                or not all(isinstance(s, str) and s.strip() for s in items)
            ):
                raise DataError(f"{path}:{number}: field '{key}' must be a list of requests")
        shared_words = content_words(statement)
        for request in row["requests"]:
            if shared := shared_words & content_words(request):
                warnings.append(f"{path}:{number}: request shares {sorted(shared)} with statement")
        out.append(row)
    return out, warnings


# ---------------------------------------------------------------- measuring


def neutral(text: str, subject: str | None) -> str:
    return neutral_subject(text, subject or sentence_subject(text))


def _ids(matches: list[Any]) -> set[str]:
    return {str(getattr(m[0], "id", m[0])) for m in matches}


def _rate(hits: int, n: int) -> float:
    return round(hits / n, 3) if n else 0.0


def measure(
    paraphrase: list[dict[str, Any]],
    chat: list[dict[str, Any]],
    logic: list[dict[str, Any]],
    held_out: list[dict[str, Any]],
    scope: list[dict[str, Any]],
    views: dict[str, list[dict[str, Any]]],
    near: list[dict[str, Any]],
) -> dict[str, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    kb = load_kb()
    with (
        tempfile.TemporaryDirectory() as tmp,
        Memory(Path(tmp) / "r.db", config={"llm": {"provider": "none"}}) as mem,
    ):
        embedder = mem.env.embedder
        assessor = CriticalityAssessor(kb, VectorCache(mem.store, embedder))
        para_texts = [neutral(r["text"], r.get("subject")) for r in paraphrase]
        chat_texts = [neutral(r["text"], r.get("subject")) for r in chat]
        stmt_texts = [neutral(r["statement"], "me") for r in logic]
        scope_texts = [neutral(r["text"], r["subject"]) for r in scope]
        texts = para_texts + chat_texts + stmt_texts + scope_texts
        vectors = embedder.embed(texts)
        found = assessor.assess(texts, vectors)
        n_p, n_c, n_s = len(para_texts), len(chat_texts), len(stmt_texts)
        para_found, chat_found = found[:n_p], found[n_p : n_p + n_c]
        stmt_found = found[n_p + n_c : n_p + n_c + n_s]
        scope_found = found[n_p + n_c + n_s :]
        patterns = [_ids(kb.match_facts(t)) for t in para_texts]
        result = {
            "paraphrase": _paraphrase(paraphrase, para_found, patterns),
            "ordinary_chat": _chat(chat, chat_found, paraphrase, para_found),
            "personal_logic": _logic(logic, stmt_found, embedder),
            "subject_forms": _subject_forms(assessor, embedder, paraphrase, para_texts, chat_texts),
            "whose": _whose(paraphrase, chat, logic, held_out),
            "scope": _scope(scope, scope_found),
            "views": {},
        }
        for name, rows in views.items():
            view_texts = [neutral(r["text"], r.get("subject")) for r in rows]
            view_found = assessor.assess(view_texts, embedder.embed(view_texts))
            result["views"][name] = _views(rows, view_found)
        near_texts = [neutral(r["text"], None) for r in near]
        result["near_words"] = _near(near, assessor.assess(near_texts, embedder.embed(near_texts)))
    return result


def validate_whose(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, row in read_jsonl(path):
        _need(path, number, row, "text", str)
        _need(path, number, row, "mine", bool)
        if row.get("form") not in ("said", "stored"):
            raise DataError(f"{path}:{number}: 'form' must be 'said' or 'stored'")
        rows.append(row)
    return rows


SCOPE_KINDS = {
    "generic": False,
    "reported": False,
    "over": False,
    "absence": False,
    "standing": True,
    "telegraphic": True,
}


def validate_scope(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, row in read_jsonl(path):
        _need(path, number, row, "text", str)
        _need(path, number, row, "subject", str)
        kind = _one_of(path, number, row, "kind", SCOPE_KINDS)
        if row.get("holds") is not SCOPE_KINDS[kind]:
            raise DataError(f"{path}:{number}: 'holds' must be {SCOPE_KINDS[kind]} for {kind}")
        rows.append(row)
    return rows


NEAR_LABELS = ("ordinary", "constraint")


def validate_near(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, row in read_jsonl(path):
        _need(path, number, row, "text", str)
        _need(path, number, row, "theme", str)
        _one_of(path, number, row, "label", NEAR_LABELS)
        rows.append(row)
    return rows


def _near(rows, found) -> dict[str, Any]:
    """Ordinary sentences judged critical (should be none) and standing facts judged
    critical (should be all), with the ordinary ones judged critical."""
    out: dict[str, Any] = {}
    for label in NEAR_LABELS:
        pairs = [(a, r) for a, r in zip(found, rows, strict=True) if r["label"] == label]
        critical = [(a, r) for a, r in pairs if a.critical]
        out[label] = {"n": len(pairs), "critical": len(critical)}
    out["ordinary_critical"] = [
        {"text": r["text"], "type": a.ctype, "source": a.source, "score": round(a.score, 3)}
        for a, r in zip(found, rows, strict=True)
        if r["label"] == "ordinary" and a.critical
    ]
    return out


VIEW_SETS = ("views_heldout.jsonl", "views_apart.jsonl")
VIEW_KINDS = ("value", "goal", "reason", "none")


def validate_views(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, row in read_jsonl(path):
        _need(path, number, row, "text", str)
        _one_of(path, number, row, "kind", VIEW_KINDS)
        rows.append(row)
    return rows


def _views(rows, found) -> dict[str, Any]:
    """Per kind, how many sentences are judged critical, critical as a view (``VIEWS``),
    and as the kind written; the near misses (``none``) should be none of these."""
    out = {k: {"n": 0, "critical": 0, "view": 0, "right": 0} for k in VIEW_KINDS}
    for a, r in zip(found, rows, strict=True):
        m = out[r["kind"]]
        m["n"] += 1
        m["critical"] += bool(a.critical)
        m["view"] += bool(a.critical and a.ctype in VIEWS)
        m["right"] += bool(a.critical and a.ctype == r["kind"])
    return {k: m for k, m in out.items() if m["n"]}


def _scope(rows, found) -> dict[str, Any]:
    """Per kind of ``scope_eval.jsonl``, how many sentences are judged critical: the near
    misses should not be, the standing facts should."""
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for a, r in zip(found, rows, strict=True):
        by_kind[r["kind"]][0] += 1
        by_kind[r["kind"]][1] += bool(a.critical)
    out = {k: {"n": n, "critical": c, "holds": SCOPE_KINDS[k]} for k, (n, c) in by_kind.items()}
    for label, holds in (("near misses", False), ("standing facts", True)):
        n = sum(v["n"] for v in out.values() if v["holds"] is holds)
        c = sum(v["critical"] for v in out.values() if v["holds"] is holds)
        out[label] = {"n": n, "critical": c, "holds": holds}
    return out


def _whose(paraphrase, chat, logic, held_out) -> dict[str, Any]:
    """Whether ``about_user`` reads each sentence as the user's own (subject "me") or as
    someone else's (a named subject), as said (first person; the user id names no one in
    it) and as stored (the first person rewritten to the user's name, as the write path
    does)."""
    # (text, the user's own?, group, form, the user's name); neutral_subject with the
    # prototypes' subject as the id renames only the first person, as the write path does
    rows = [
        (written, r["subject"] == "me", group, form, PROTOTYPE_SUBJECT)
        for group, rs in (("paraphrase", paraphrase), ("chat", chat))
        for r in rs
        for form, written in (
            ("said", r["text"]),
            ("stored", neutral_subject(r["text"], PROTOTYPE_SUBJECT)),
        )
    ]
    rows += [
        (written, True, "personal logic", form, PROTOTYPE_SUBJECT)
        for r in logic
        for form, written in (
            ("said", r["statement"]),
            ("stored", neutral_subject(r["statement"], PROTOTYPE_SUBJECT)),
        )
    ]
    # written apart from the rules (benchmarks/data/README.md): the user is "Omar"
    rows += [(r["text"], r["mine"], "held out", r["form"], "Omar") for r in held_out]
    out: dict[str, Any] = {}
    for text, mine, group, form, user in rows:
        cell = out.setdefault(
            f"{group}, {'the user' if mine else 'someone else'}, {form}", {"n": 0, "right": 0}
        )
        cell["n"] += 1
        cell["right"] += about_user(text, user) is mine
    for cell in out.values():
        cell["rate"] = _rate(cell["right"], cell["n"])
    return out


# How a store names its user, as (label, the user id the library is given, the subject as
# written). The library renames the user to the prototypes' subject (``neutral_subject``);
# these check that the verdicts do not depend on how the memories name the user.
SUBJECT_FORMS = (
    ("the prototypes' subject (Sam)", PROTOTYPE_SUBJECT, PROTOTYPE_SUBJECT),
    ("a name in another script (Zoë)", "Zoë", "Zoë"),
    ("an account id (u-1842)", "u-1842", "u-1842"),
    ("'the user'", "u-1842", "The user"),
    ("no subject ('Takes ...')", "u-1842", ""),
)


def _as_written(text: str, subject: str) -> str:
    """A sentence in the prototypes' subject rewritten with ``subject`` ("" drops a leading
    subject: "Sam takes warfarin." -> "Takes warfarin.")."""
    if subject:
        return re.sub(r"\bSam\b", subject, text)
    found = re.match(r"^Sam (\w)", text)
    return found.group(1).upper() + text[found.end() :] if found else text


def _subject_forms(assessor, embedder, paraphrase, para_texts, chat_texts) -> dict[str, Any]:
    """Per subject form: critical recall on the paraphrase positives, the share of near
    misses and of ordinary chat judged critical, and how many sentences the form changed."""
    groups = {
        "positives": [t for t, r in zip(para_texts, paraphrase, strict=True) if r["critical"]],
        "near_misses": [
            t for t, r in zip(para_texts, paraphrase, strict=True) if not r["critical"]
        ],
        "chat": chat_texts,
    }
    out: dict[str, Any] = {}
    for label, user_id, subject in SUBJECT_FORMS:
        row: dict[str, Any] = {}
        for name, texts in groups.items():
            written = [_as_written(t, subject) for t in texts]
            renamed = [neutral_subject(t, user_id) for t in written]
            found = assessor.assess(renamed, embedder.embed(renamed))
            row[name] = _rate(sum(bool(a.critical) for a in found), len(texts))
            row[f"{name}_rewritten"] = sum(w != t for w, t in zip(written, texts, strict=True))
        out[label] = row
    return out


def _paraphrase(rows, found, patterns) -> dict[str, Any]:
    by_style: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    sources: dict[str, int] = defaultdict(int)
    misses, neg_fp = [], defaultdict(lambda: [0, 0])
    tp = fp = 0
    linked_right = [0, 0]  # critical positives linked to entries: [n, sharing an expected one]
    borrowed_right = [0, 0]  # ... given only the closest entries (``NEAREST_LINKS``)
    by_rank: dict[int, int] = defaultdict(int)  # ... whose first expected one is that close
    for row, a, pat in zip(rows, found, patterns, strict=True):
        expected = set(row["entries"])
        critical = bool(a.critical)
        if row["critical"]:
            linked = critical and bool(expected & set(getattr(a, "entries", []) or []))
            stats = [1, int(linked), int(critical), int(bool(expected & pat))]
            for table, key in ((by_style, row["style"]), (by_type, row["type"])):
                table[key] = [x + y for x, y in zip(table[key], stats, strict=True)]
            tp += critical
            if critical:
                sources[getattr(a, "source", "") or "?"] += 1
                if getattr(a, "entries", None):
                    tally = borrowed_right if getattr(a, "borrowed", False) else linked_right
                    tally[0] += 1
                    tally[1] += linked
                    if getattr(a, "borrowed", False) and linked:
                        ranks = [i for i, e in enumerate(a.entries, 1) if e in expected]
                        by_rank[ranks[0]] += 1
            if not linked:
                misses.append(
                    {
                        "text": row["text"],
                        "expected": row["entries"],
                        "critical": critical,
                        "got": list(getattr(a, "entries", []) or [])[:3],
                        "reason": getattr(a, "reason", ""),
                    }
                )
        else:
            kind = row.get("near_miss", "other")
            neg_fp[kind][0] += 1
            neg_fp[kind][1] += critical
            fp += critical

    def rates(table: dict[str, list[int]]) -> dict[str, dict[str, float]]:
        return {
            k: {
                "n": v[0],
                "linked_recall": _rate(v[1], v[0]),
                "critical_recall": _rate(v[2], v[0]),
                "pattern_recall": _rate(v[3], v[0]),
            }
            for k, v in sorted(table.items())
        }

    total = [sum(v[i] for v in by_style.values()) for i in range(4)]
    n_neg = sum(v[0] for v in neg_fp.values())
    return {
        "positives": total[0],
        "negatives": n_neg,
        "linked_recall": _rate(total[1], total[0]),
        "critical_recall": _rate(total[2], total[0]),
        "pattern_recall": _rate(total[3], total[0]),
        "precision": _rate(tp, tp + fp),
        "negative_fp_rate": _rate(fp, n_neg),
        "link_precision": _rate(linked_right[1], linked_right[0]),
        "borrowed": borrowed_right[0],
        "borrowed_precision": _rate(borrowed_right[1], borrowed_right[0]),
        "borrowed_precision_by_rank": {
            str(r): _rate(by_rank.get(r, 0), borrowed_right[0])
            for r in range(1, max(by_rank, default=0) + 1)
        },
        "critical_by_source": dict(sorted(sources.items())),
        "by_style": rates(by_style),
        "by_type": rates(by_type),
        "negatives_by_kind": {
            k: {"n": v[0], "false_positives": v[1]} for k, v in sorted(neg_fp.items())
        },
        "misses": misses,
    }


def _chat(rows, found, paraphrase, para_found) -> dict[str, Any]:
    fps = [(a, r) for a, r in zip(found, rows, strict=True) if a.critical]
    by_style: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for a, r in zip(found, rows, strict=True):
        by_style[r["style"]][0] += 1
        by_style[r["style"]][1] += bool(a.critical)
    tp = sum(bool(a.critical) for a, r in zip(para_found, paraphrase, strict=True) if r["critical"])
    worst = sorted(fps, key=lambda x: -float(getattr(x[0], "score", 0.0) or 0.0))[:15]
    return {
        "n": len(rows),
        "false_positives": len(fps),
        "fp_rate": _rate(len(fps), len(rows)),
        "precision_with_paraphrase_positives": _rate(tp, tp + len(fps)),
        "fp_rate_by_style": {
            k: {"n": v[0], "fp_rate": _rate(v[1], v[0])} for k, v in sorted(by_style.items())
        },
        "worst": [
            {
                "text": r["text"],
                "type": getattr(a, "ctype", ""),
                "source": getattr(a, "source", ""),
                "score": round(float(getattr(a, "score", 0.0) or 0.0), 3),
                "reason": getattr(a, "reason", ""),
            }
            for a, r in worst
        ],
    }


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def _logic(rows, found, embedder) -> dict[str, Any]:
    critical: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row, a in zip(rows, found, strict=True):
        critical[row["kind"]][0] += 1
        critical[row["kind"]][1] += bool(a.critical)
    memories = [neutral(r["memory"].replace("{user}", NAME), NAME) for r in rows]
    pool: list[str] = []  # every request and unrelated request, the candidates to rank
    own: list[list[int]] = []
    other: list[list[int]] = []
    for row in rows:
        own.append(list(range(len(pool), len(pool) + len(row["requests"]))))
        pool.extend(row["requests"])
        other.append(list(range(len(pool), len(pool) + len(row["unrelated"]))))
        pool.extend(row["unrelated"])
    m_vec = _unit(np.asarray(embedder.embed(memories), dtype=np.float32))
    p_vec = _unit(np.asarray(embedder.embed(pool), dtype=np.float32))
    sims = m_vec @ p_vec.T
    per_kind: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for i, row in enumerate(rows):
        order = np.argsort(-sims[i])
        rank = np.empty(len(pool), dtype=int)
        rank[order] = np.arange(1, len(pool) + 1)
        best_other = max(float(sims[i, j]) for j in other[i])
        wins = [float(sims[i, j]) > best_other for j in own[i]]
        for key in (row["kind"], "all"):
            d = per_kind[key]
            d["pair_win"].extend(float(w) for w in wins)
            d["group_win"].append(float(all(wins)))
            d["rank"].extend(float(rank[j]) for j in own[i])
            d["top10"].extend(float(rank[j] <= 10) for j in own[i])
            d["cos_request"].extend(float(sims[i, j]) for j in own[i])
            d["cos_unrelated"].append(best_other)
    summary = {}
    for key in (*KINDS, "all"):
        d = per_kind.get(key)
        if not d:
            continue
        summary[key] = {
            "groups": len(d["group_win"]),
            "request_beats_unrelated": round(float(np.mean(d["pair_win"])), 3),
            "both_beat_unrelated": round(float(np.mean(d["group_win"])), 3),
            "mean_rank": round(float(np.mean(d["rank"])), 1),
            "median_rank": float(np.median(d["rank"])),
            "recall_at_10": round(float(np.mean(d["top10"])), 3),
            "mean_cos_request": round(float(np.mean(d["cos_request"])), 3),
            "mean_cos_unrelated": round(float(np.mean(d["cos_unrelated"])), 3),
        }
    return {
        "candidates": len(pool),
        "statements_critical": {
            k: {"n": v[0], "critical": v[1]} for k, v in sorted(critical.items())
        },
        "similarity": summary,
    }


# ---------------------------------------------------------------- reporting


def _print_table(result: dict[str, Any]) -> None:
    p = result["paraphrase"]
    print(f"## Paraphrase set: {p['positives']} positives, {p['negatives']} near misses\n")
    print("| measure | value |\n|---|---|")
    for key, label in (
        ("linked_recall", "linked recall (critical and shares an expected entry)"),
        ("critical_recall", "critical recall"),
        ("pattern_recall", "fact-pattern recall (match_facts alone)"),
        ("precision", "precision of critical (positives + near misses)"),
        ("negative_fp_rate", "near misses judged critical"),
    ):
        print(f"| {label} | {p[key]:.3f} |")
    print(f"| linked entries that are expected ones | {p['link_precision']:.3f} |")
    print(
        f"| one of the closest entries is an expected one (NEAREST_LINKS; {p['borrowed']}"
        f" positives) | {p['borrowed_precision']:.3f} |"
    )
    ranks = ", ".join(f"{r}: {v:.3f}" for r, v in p["borrowed_precision_by_rank"].items())
    print(f"| closest entries by rank: the first expected one (NEAREST_PRECISION) | {ranks} |")
    sources = ", ".join(f"{k} {v}" for k, v in p["critical_by_source"].items())
    print(f"\ncritical positives by source: {sources}\n")
    print("| style | n | linked | critical | patterns |\n|---|---|---|---|---|")
    for style, m in p["by_style"].items():
        print(
            f"| {style} | {m['n']} | {m['linked_recall']:.3f} | {m['critical_recall']:.3f} "
            f"| {m['pattern_recall']:.3f} |"
        )
    print("\n| type | n | linked | critical | patterns |\n|---|---|---|---|---|")
    for ctype, m in p["by_type"].items():
        print(
            f"| {ctype} | {m['n']} | {m['linked_recall']:.3f} | {m['critical_recall']:.3f} "
            f"| {m['pattern_recall']:.3f} |"
        )
    print("\n| near miss | n | judged critical |\n|---|---|---|")
    for kind, m in p["negatives_by_kind"].items():
        print(f"| {kind} | {m['n']} | {m['false_positives']} |")

    c = result["ordinary_chat"]
    print(f"\n## Ordinary chat: {c['n']} sentences\n")
    print("| measure | value |\n|---|---|")
    print(f"| false-positive rate | {c['fp_rate']:.3f} ({c['false_positives']}) |")
    print(
        "| precision on chat + paraphrase positives | "
        f"{c['precision_with_paraphrase_positives']:.3f} |"
    )
    print("\n| style | n | FP rate |\n|---|---|---|")
    for style, m in c["fp_rate_by_style"].items():
        print(f"| {style} | {m['n']} | {m['fp_rate']:.3f} |")
    print("\nWorst false positives:\n\n| text | type | source | score | reason |")
    print("|---|---|---|---|---|")
    for w in c["worst"]:
        print(f"| {w['text']} | {w['type']} | {w['source']} | {w['score']:.2f} | {w['reason']} |")

    forms = result["subject_forms"]
    print("\n## The same sentences, the user named otherwise\n")
    print(
        "| subject as written | positives judged critical | near misses | chat "
        "| sentences rewritten (positives / near misses / chat) |\n|---|---|---|---|---|"
    )
    for label, m in forms.items():
        print(
            f"| {label} | {m['positives']:.3f} | {m['near_misses']:.3f} | {m['chat']:.3f} "
            f"| {m['positives_rewritten']} / {m['near_misses_rewritten']} / "
            f"{m['chat_rewritten']} |"
        )

    print("\n## Whose fact: the user's own or someone else's (`about_user`)\n")
    print("| sentences, whose, form | n | read right |\n|---|---|---|")
    for key, m in result["whose"].items():
        print(f"| {key} | {m['n']} | {m['rate']:.3f} |")

    print("\n## Near misses of scope: general, over, absent (`scope_eval.jsonl`)\n")
    print("| kind | holds | n | judged critical |\n|---|---|---|---|")
    for kind, m in result["scope"].items():
        print(
            f"| {kind} | {m['holds']} | {m['n']} | {m['critical']} ({m['critical'] / m['n']:.3f}) |"
        )

    nw = result["near_words"]
    print("\n## Near a constraint's words, written apart (`near_words_apart.jsonl`)\n")
    print("| label | n | judged critical |\n|---|---|---|")
    for label in NEAR_LABELS:
        m = nw[label]
        print(f"| {label} | {m['n']} | {m['critical']} ({_rate(m['critical'], m['n']):.3f}) |")
    if nw["ordinary_critical"]:
        print("\nOrdinary sentences judged critical:\n\n| text | type | source | score |")
        print("|---|---|---|---|")
        for w in nw["ordinary_critical"]:
            print(f"| {w['text']} | {w['type']} | {w['source']} | {w['score']:.2f} |")

    for name, by_kind in result["views"].items():
        print(f"\n## Views and near misses written apart (`{name}`)\n")
        print("| kind | n | judged critical | as a view | as this kind |\n|---|---|---|---|---|")
        for kind, m in by_kind.items():
            print(f"| {kind} | {m['n']} | {m['critical']} | {m['view']} | {m['right']} |")

    pl = result["personal_logic"]
    print(
        f"\n## Personal logic: {sum(v['n'] for v in pl['statements_critical'].values())} groups\n"
    )
    print("| kind | statements judged critical |\n|---|---|")
    for kind, m in pl["statements_critical"].items():
        print(f"| {kind} | {m['critical']}/{m['n']} |")
    print(
        f"\nSimilarity baseline (memory vs its requests, {pl['candidates']} candidate requests):\n"
    )
    print(
        "| kind | request > unrelated | both > unrelated | mean rank | median rank "
        "| recall@10 | cos request | cos unrelated |\n|---|---|---|---|---|---|---|---|"
    )
    for kind, m in pl["similarity"].items():
        print(
            f"| {kind} | {m['request_beats_unrelated']:.3f} | {m['both_beat_unrelated']:.3f} "
            f"| {m['mean_rank']:.1f} | {m['median_rank']:.1f} | {m['recall_at_10']:.3f} "
            f"| {m['mean_cos_request']:.3f} | {m['mean_cos_unrelated']:.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument(
        "--validate-only", action="store_true", help="check the data and exit (no model)"
    )
    args = parser.parse_args()
    try:
        ids = resource_entries()
        paraphrase = validate_paraphrase(args.data_dir / "paraphrase_eval.jsonl", ids)
        chat = validate_chat(args.data_dir / "ordinary_chat.jsonl")
        logic, warnings = validate_logic(args.data_dir / "personal_logic_eval.jsonl")
        held_out = validate_whose(args.data_dir / "whose_eval.jsonl")
        scope = validate_scope(args.data_dir / "scope_eval.jsonl")
        views = {name: validate_views(args.data_dir / name) for name in VIEW_SETS}
        near = validate_near(args.data_dir / "near_words_apart.jsonl")
    except (DataError, OSError) as exc:
        print(f"invalid evaluation data: {exc}", file=sys.stderr)
        sys.exit(2)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.validate_only:
        print(f"ok: {len(paraphrase)} paraphrase rows, {len(chat)} chat rows, {len(logic)} groups")
        return
    result = measure(paraphrase, chat, logic, held_out, scope, views, near)
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return
    _print_table(result)


if __name__ == "__main__":
    main()
