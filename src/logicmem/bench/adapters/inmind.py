"""InMind-style tasks: inject a fact, ask the naive and the indirect query.

Memory level: the bank is the conversation's observations plus the task's ``fact_memory``
(and distractors' memories), one task per store. Conversation level: the fact (said by
the user) and the ack (said by the other speaker) end the middle session; the rest of the
dialogue is processed after it. ``target_recall``: the fact's turn is in the context of
the indirect query; ``naive_recall``: the same for the naive query. Positives are
reported under ``methods``; negatives apart, under each method's ``negatives``, whose
``shown`` is the rate at which the irrelevant fact reached the indirect query's context
(lower is better).

Distractors (other positives' facts) are inserted before or after the task's memory at
memory level, and said in sessions before or after the injection at conversation level:
``--distractor-age older`` puts all of them before, ``random`` (default) flips a seeded
coin for each (see ``common.Distractors``). ``--half A|B`` keeps one dev half of the
tasks, positives and negatives alike, by the id hash of ``data.half_of``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from logicmem.bench import answer as ans
from logicmem.bench import metrics as m
from logicmem.bench.adapters import common
from logicmem.bench.data import Conversation, background_files, data_info, read_jsonl, select
from logicmem.bench.engine import AnswerFn, Engine, Plan, Probe, Record, Session
from logicmem.bench.methods import Item
from logicmem.bench.results import Outcome
from logicmem.errors import InputError
from logicmem.models.llm.base import LLM

Options = common.InjectionOptions

REQUIRED = ("id", "kind", "domain", "fact", "fact_memory", "ack", "naive_query", "indirect_query")


def load_tasks(path: Path, limit: int | None, half: str | None = None) -> list[dict[str, Any]]:
    tasks = read_jsonl(path, REQUIRED)
    ids = [str(t["id"]) for t in tasks]
    if len(set(ids)) != len(ids):
        raise InputError(f"{path}: task ids are not unique")
    for t in tasks:
        if t["kind"] not in ("positive", "negative"):
            raise InputError(f"{path}: task {t['id']} has kind {t['kind']!r} (positive|negative)")
    return select(tasks, half, limit)


def _probes(task: dict[str, Any]) -> list[Probe]:
    gold = frozenset({f"inject:{task['id']}:fact"})
    meta = {"task": str(task["id"]), "positive": task["kind"] == "positive"}
    return [
        Probe(
            f"{task['id']}:naive",
            task["naive_query"],
            gold,
            group=task["domain"],
            meta={**meta, "query": "naive"},
        ),
        Probe(
            f"{task['id']}:target",
            task["indirect_query"],
            gold,
            group=task["domain"],
            meta={**meta, "query": "target"},
        ),
    ]


def _memory_turn(task: dict[str, Any], user: str, own: bool) -> dict[str, Any]:
    prefix = "inject" if own else "distract"
    return {
        "speaker": user,
        "role": "user",
        "text": common.fill_user(task["fact_memory"], user),
        "turn_id": f"{prefix}:{task['id']}:fact",
    }


def _utterances(task: dict[str, Any], conv: Conversation, own: bool) -> list[dict[str, Any]]:
    prefix = "inject" if own else "distract"
    return [
        {
            "speaker": conv.speaker_a,
            "role": "user",
            "text": task["fact"],
            "turn_id": f"{prefix}:{task['id']}:fact",
        },
        {
            "speaker": conv.speaker_b,
            "role": "other",
            "text": task["ack"],
            "turn_id": f"{prefix}:{task['id']}:ack",
        },
    ]


def distractors(tasks: list[dict[str, Any]], opt: Options) -> common.Distractors:
    """Candidates are the positives; every task's fact and memory feed the slot rule."""
    texts = {str(t["id"]): [t["fact"], t["fact_memory"]] for t in tasks}
    positives = [str(t["id"]) for t in tasks if t["kind"] == "positive"]
    return common.Distractors(positives, texts, opt)


def plans(tasks: list[dict[str, Any]], convs: list[Conversation], opt: Options) -> Iterator[Plan]:
    pool = distractors(tasks, opt)
    by_id = {str(t["id"]): t for t in tasks}
    owner = common.assign(len(tasks), len(convs))
    for c, conv in enumerate(convs):
        mine = [i for i, o in enumerate(owner) if o == c]
        if opt.level == "memory":
            bank, aliases = common.observation_bank(conv)
            for i in mine:
                task, tid = tasks[i], str(tasks[i]["id"])
                older, newer = pool.split(tid, pool.pick(tid, [tid]))
                turns = [_memory_turn(by_id[o], conv.speaker_a, False) for o in older]
                turns.append(_memory_turn(task, conv.speaker_a, True))
                turns += [_memory_turn(by_id[o], conv.speaker_a, False) for o in newer]
                yield Plan(
                    f"{conv.id}/{tid}",
                    conv.speaker_a,
                    False,
                    bank,
                    [Session("inject", None, turns)],
                    _probes(task),
                    aliases,
                )
            continue
        sessions = common.dialogue(conv)
        n, center = len(sessions), common.middle(len(sessions))
        for group in common.chunks(mine, opt.inject_per_run):
            injections, probes = [], []
            run_ids = [str(tasks[i]["id"]) for i in group]
            wheres = [common.near(center, j, n) for j in range(len(group))]
            for j, i in enumerate(group):
                task = tasks[i]
                injections.append(common.Injection(wheres[j], _utterances(task, conv, True), j))
                others = pool.pick(run_ids[j], run_ids)
                for o, spot, order in pool.spots(run_ids[j], others, min(wheres), max(wheres), n):
                    injections.append(
                        common.Injection(spot, _utterances(by_id[o], conv, False), order)
                    )
                probes += _probes(task)
            background, rest = common.place(sessions, injections)
            key = f"{conv.id}/" + "+".join(run_ids)
            yield Plan(key, conv.speaker_a, True, background, rest, probes)


def answer_fn(
    llm: LLM, judge: LLM | None, by_id: dict[str, dict[str, Any]], user_of: dict[str, str]
) -> AnswerFn:
    """Answers the indirect query from each method's items; lexical and judged application."""

    def run(probe: Probe, method: str, k: int, items: list[Item]) -> dict[str, Any]:
        if probe.meta["query"] != "target":
            return {}
        task = by_id[probe.meta["task"]]
        reply = ans.answer(llm, probe.query, items)
        out: dict[str, Any] = {"answer": reply, "application_lexical": lexical(task, reply)}
        if judge is not None:
            fact = common.fill_user(task["fact_memory"], user_of[str(task["id"])])
            out["application_judge"] = ans.judge_application(
                judge, fact, items, probe.query, str(task.get("bridge", "")), reply
            )
        return out

    return run


def lexical(task: dict[str, Any], reply: str) -> bool:
    low = reply.lower()
    return any(str(stem).lower() in low for stem in task.get("expect_any") or [])


def in_context_control(
    tasks: list[dict[str, Any]], user_of: dict[str, str], llm: LLM, judge: LLM | None
) -> dict[str, Any]:
    """The backbone with the fact alone in context (does it know the bridge?)."""
    out: dict[str, Any] = {}
    for kind in ("positive", "negative"):
        lex, jud = [], []
        for task in (t for t in tasks if t["kind"] == kind):
            fact = common.fill_user(task["fact_memory"], user_of[str(task["id"])])
            item = Item("fact", fact, [], None, None, 0, "control")
            reply = ans.answer(llm, task["indirect_query"], [item])
            lex.append(lexical(task, reply))
            if judge is not None:
                jud.append(
                    ans.judge_application(
                        judge,
                        fact,
                        [item],
                        task["indirect_query"],
                        str(task.get("bridge", "")),
                        reply,
                    )
                )
        block: dict[str, Any] = {"n": len(lex), "in_context_lexical": m.rate(lex)}
        if judge is not None:
            block["in_context_judge"] = m.rate(jud)
        out["in_context" if kind == "positive" else "in_context_negatives"] = block
    return out


def aggregate(
    records: list[Record], tasks: list[dict[str, Any]], ks: list[int], answered: bool, judged: bool
) -> dict[str, Any]:
    kinds = {str(t["id"]): t["kind"] for t in tasks}
    domain = {str(t["id"]): str(t["domain"]) for t in tasks}

    def task_of(probe: str) -> str:
        return probe.rsplit(":", 1)[0]

    def metric(query: str, field: str | None = None) -> m.MetricFn:
        def fn(rs: list[Record]) -> Any:
            chosen = [r for r in rs if r.probe.endswith(f":{query}")]
            return m.rate(r.hit if field is None else r.extra.get(field) for r in chosen)

        return fn

    metrics: dict[str, m.MetricFn] = {
        "naive_recall": metric("naive"),
        "target_recall": metric("target"),
    }
    if answered:
        metrics["application_lexical"] = metric("target", "application_lexical")
        if judged:
            metrics["application_judge"] = metric("target", "application_judge")
    methods: dict[str, Any] = {}
    for name in dict.fromkeys(r.method for r in records):
        mine = m.for_method(records, name)
        pos = [r for r in mine if kinds[task_of(r.probe)] == "positive"]
        neg = [r for r in mine if kinds[task_of(r.probe)] == "negative"]
        block = m.method_block(
            pos,
            ks,
            metrics,
            n=len({task_of(r.probe) for r in pos}),
            group_of=lambda p: domain[task_of(p)],
            unit_of=task_of,
        )
        block["negatives"] = {"n": len({task_of(r.probe) for r in neg})} | {
            key: m.by_k(neg, ks, fn) for key, fn in metrics.items()
        }
        # A negative's target_recall is the irrelevant fact shown: named for what it means.
        block["negatives"]["shown"] = dict(block["negatives"]["target_recall"])
        methods[name] = block
    return methods


def run(
    tasks_path: Path,
    background: Path,
    convs: list[Conversation],
    engine: Engine,
    opt: Options,
    *,
    llm: LLM | None = None,
    judge: LLM | None = None,
) -> Outcome:
    tasks = load_tasks(tasks_path, opt.limit, opt.half)
    owner = common.assign(len(tasks), len(convs))
    user_of = {str(t["id"]): convs[owner[i]].speaker_a for i, t in enumerate(tasks)}
    by_id = {str(t["id"]): t for t in tasks}
    fn = answer_fn(llm, judge, by_id, user_of) if llm is not None else None
    n_plans = (
        len(tasks)
        if opt.level == "memory"
        else sum(
            len(common.chunks([i for i, o in enumerate(owner) if o == c], opt.inject_per_run))
            for c in range(len(convs))
        )
    )
    records = engine.run(plans(tasks, convs, opt), answer_fn=fn, total=n_plans, desc="inmind")
    methods = aggregate(records, tasks, engine.ks, llm is not None, judge is not None)
    extra: dict[str, Any] = {}
    if llm is not None:
        extra["controls"] = in_context_control(tasks, user_of, llm, judge)
    data = data_info([tasks_path], len(tasks))
    data["background"] = data_info(background_files(background, convs), len(convs))
    return Outcome(
        {"data": data, "methods": methods, **extra},
        records,
        ["target_recall", "naive_recall"] + (["application_lexical"] if llm is not None else []),
    )
