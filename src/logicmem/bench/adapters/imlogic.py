"""IMLogic-style items: a semantic memory close to the query, a logical one that decides.

Memory level: the bank is the conversation's observations plus m_s and m_l. Conversation
level: the semantic utterance ends the middle session and the logical one a session of
the first third, so the decisive fact is the older one. Metrics: ``recall_ms``,
``recall_ml``, the outcome table (IMLogic Table 6) and, with ``--mcq``, accuracy, trap
rates and accuracy by outcome row, options shuffled by the seed.

Distractors (other items' m_l and m_s) go before or after the item's pair in the bank at
memory level, and into sessions before its m_l or after its m_s at conversation level:
``--distractor-age older`` puts all of them before, ``random`` (default) flips a seeded
coin for each (see ``common.Distractors``). ``--half A|B`` keeps one dev half of the
items by the id hash of ``data.half_of``.
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

REQUIRED = (
    "id",
    "category",
    "semantic_memory",
    "logical_memory",
    "semantic_utterance",
    "logical_utterance",
    "query",
    "options",
)
TRAPS = {
    "preference": "preference_trap",
    "fabrication": "fabrication_trap",
    "generic": "generic_trap",
}


def load_items(path: Path, limit: int | None, half: str | None = None) -> list[dict[str, Any]]:
    items = read_jsonl(path, REQUIRED)
    for item in items:
        options = item["options"]
        if not isinstance(options, dict) or set(ans.OPTION_KEYS) - set(options):
            raise InputError(
                f"{path}: item {item['id']} needs options {', '.join(ans.OPTION_KEYS)}"
            )
    if len({str(i["id"]) for i in items}) != len(items):
        raise InputError(f"{path}: item ids are not unique")
    return select(items, half, limit)


def _probe(item: dict[str, Any]) -> Probe:
    iid = str(item["id"])
    return Probe(
        iid,
        item["query"],
        frozenset({f"inject:{iid}:ml"}),
        group=item["category"],
        also={"ms": frozenset({f"inject:{iid}:ms"})},
    )


def _turns(item: dict[str, Any], user: str, own: bool, memory: bool) -> list[dict[str, Any]]:
    """[m_l turn, m_s turn]: memories (memory level) or the user's utterances."""
    prefix = "inject" if own else "distract"
    out = []
    for tag, mem_key, utt_key in (
        ("ml", "logical_memory", "logical_utterance"),
        ("ms", "semantic_memory", "semantic_utterance"),
    ):
        text = common.fill_user(item[mem_key], user) if memory else item[utt_key]
        out.append(
            {
                "speaker": user,
                "role": "user",
                "text": text,
                "turn_id": f"{prefix}:{item['id']}:{tag}",
            }
        )
    return out


def distractors(items: list[dict[str, Any]], opt: Options) -> common.Distractors:
    keys = ("logical_memory", "semantic_memory", "logical_utterance", "semantic_utterance")
    texts = {str(i["id"]): [i[key] for key in keys] for i in items}
    return common.Distractors(list(texts), texts, opt)


def plans(items: list[dict[str, Any]], convs: list[Conversation], opt: Options) -> Iterator[Plan]:
    pool = distractors(items, opt)
    by_id = {str(i["id"]): i for i in items}
    owner = common.assign(len(items), len(convs))
    for c, conv in enumerate(convs):
        user = conv.speaker_a
        mine = [i for i, o in enumerate(owner) if o == c]
        if opt.level == "memory":
            bank, aliases = common.observation_bank(conv)
            for i in mine:
                item, iid = items[i], str(items[i]["id"])
                older, newer = pool.split(iid, pool.pick(iid, [iid]))
                turns = [t for o in older for t in _turns(by_id[o], user, False, True)]
                turns += _turns(item, user, True, True)
                turns += [t for o in newer for t in _turns(by_id[o], user, False, True)]
                yield Plan(
                    f"{conv.id}/{iid}",
                    user,
                    False,
                    bank,
                    [Session("inject", None, turns)],
                    [_probe(item)],
                    aliases,
                )
            continue
        sessions = common.dialogue(conv)
        n = len(sessions)
        mid, third = common.middle(n), common.first_third(n)
        for group in common.chunks(mine, opt.inject_per_run):
            injections = []
            run_ids = [str(items[i]["id"]) for i in group]
            first = min(common.near(third, j, n) for j in range(len(group)))
            last = max(common.near(mid, j, n) for j in range(len(group)))
            for j, i in enumerate(group):
                ml, ms = _turns(items[i], user, True, False)
                injections.append(common.Injection(common.near(third, j, n), [ml], 2 * j))
                injections.append(common.Injection(common.near(mid, j, n), [ms], 2 * j + 1))
                others = pool.pick(run_ids[j], run_ids)
                for other, spot, order in pool.spots(run_ids[j], others, first, last, n):
                    injections.append(
                        common.Injection(spot, _turns(by_id[other], user, False, False), order)
                    )
            background, rest = common.place(sessions, injections)
            key = f"{conv.id}/" + "+".join(run_ids)
            yield Plan(key, user, True, background, rest, [_probe(items[i]) for i in group])


def mcq_fn(llm: LLM, by_id: dict[str, dict[str, Any]], seed: int) -> AnswerFn:
    def run(probe: Probe, method: str, k: int, items: list[Item]) -> dict[str, Any]:
        options = ans.shuffled_options(by_id[probe.id]["options"], seed, probe.id)
        choice, reply = ans.ask_mcq(llm, probe.query, items, options)
        return {"choice": choice, "reply": reply}

    return run


def _outcomes(rs: list[Record]) -> dict[str, float | None] | None:
    if not rs:
        return None
    rows = [m.outcome(bool(r.extra.get("hit_ms")), r.hit) for r in rs]
    return {row: m.rate(x == row for x in rows) for row in m.OUTCOMES}


def _traps(rs: list[Record]) -> dict[str, float | None] | None:
    if not rs:
        return None
    return {name: m.rate(r.extra.get("choice") == key for r in rs) for name, key in TRAPS.items()}


def _by_outcome(rs: list[Record]) -> dict[str, Any] | None:
    """Accuracy and trap rates within each outcome row (IMLogic Table 6)."""
    if not rs:
        return None
    out: dict[str, Any] = {}
    for row in m.OUTCOMES:
        chosen = [r for r in rs if m.outcome(bool(r.extra.get("hit_ms")), r.hit) == row]
        out[row] = {
            "n": len(chosen),
            "accuracy": m.rate(r.extra.get("choice") == "correct" for r in chosen),
            "trap_rates": _traps(chosen),
        }
    return out


def metrics(mcq: bool) -> dict[str, m.MetricFn]:
    out: dict[str, m.MetricFn] = {
        "recall_ms": lambda rs: m.rate(r.extra.get("hit_ms") for r in rs),
        "recall_ml": lambda rs: m.rate(r.hit for r in rs),
        "outcomes": _outcomes,
    }
    if mcq:
        out["mcq_accuracy"] = lambda rs: m.rate(r.extra.get("choice") == "correct" for r in rs)
        out["mcq_invalid"] = lambda rs: m.rate(r.extra.get("choice") is None for r in rs)
        out["trap_rates"] = _traps
        out["mcq_by_outcome"] = _by_outcome
    return out


def run(
    items_path: Path,
    background: Path,
    convs: list[Conversation],
    engine: Engine,
    opt: Options,
    *,
    llm: LLM | None = None,
) -> Outcome:
    items = load_items(items_path, opt.limit, opt.half)
    by_id = {str(i["id"]): i for i in items}
    category = {str(i["id"]): str(i["category"]) for i in items}
    owner = common.assign(len(items), len(convs))
    n_plans = (
        len(items)
        if opt.level == "memory"
        else sum(
            len(common.chunks([i for i, o in enumerate(owner) if o == c], opt.inject_per_run))
            for c in range(len(convs))
        )
    )
    fn = mcq_fn(llm, by_id, opt.seed) if llm is not None else None
    records = engine.run(plans(items, convs, opt), answer_fn=fn, total=n_plans, desc="imlogic")
    chosen = metrics(llm is not None)
    methods = {
        name: m.method_block(
            m.for_method(records, name),
            engine.ks,
            chosen,
            n=len(items),
            group_of=category.__getitem__,
        )
        for name in dict.fromkeys(r.method for r in records)
    }
    data = data_info([items_path], len(items))
    data["background"] = data_info(background_files(background, convs), len(convs))
    return Outcome(
        {"data": data, "methods": methods},
        records,
        ["recall_ml", "recall_ms"] + (["mcq_accuracy"] if llm is not None else []),
    )
