"""LoCoMo: evidence recall by category, and optionally QA (token F1, BLEU-1, judge).

Memory level stores the observations (each traces to its ``dia_id``s); conversation level
ingests the raw sessions through the write path. A question is hit at k when one of the
first k items traces to one of its evidence turns. Category 5 (adversarial, no answer)
is left out unless ``include_adversarial``, as in mem0's harness.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logicmem.bench import answer as ans
from logicmem.bench import metrics as m
from logicmem.bench.adapters import common
from logicmem.bench.data import Conversation, background_files, data_info, dia_ids
from logicmem.bench.engine import AnswerFn, Engine, Plan, Probe, Record
from logicmem.bench.methods import Item
from logicmem.bench.results import Outcome
from logicmem.models.llm.base import LLM

CATEGORIES = {
    "1": "multi-hop",
    "2": "temporal",
    "3": "open-domain",
    "4": "single-hop",
    "5": "adversarial",
}


@dataclass
class Options:
    level: str = "memory"
    include_adversarial: bool = False
    limit: int | None = None


def questions(conv: Conversation, opt: Options) -> tuple[list[Probe], int]:
    """The conversation's probes, and how many questions had no usable evidence."""
    probes, skipped = [], 0
    for n, qa in enumerate(conv.qa):
        category = str(qa.get("category", ""))
        if category == "5" and not opt.include_adversarial:
            continue
        gold = dia_ids(qa.get("evidence") or [])
        if not gold or not str(qa.get("question") or "").strip():
            skipped += 1
            continue
        answer = qa.get("answer", qa.get("adversarial_answer"))
        probes.append(
            Probe(
                f"{conv.id}:{n}",
                str(qa["question"]),
                frozenset(gold),
                group=category,
                meta={"answer": None if answer is None else str(answer)},
            )
        )
    if opt.limit:
        probes = probes[: opt.limit]
    return probes, skipped


def plans(convs: list[Conversation], opt: Options) -> Iterator[Plan]:
    for conv in convs:
        probes, _ = questions(conv, opt)
        if opt.level == "memory":
            bank, aliases = common.observation_bank(conv)
            yield Plan(conv.id, conv.speaker_a, False, bank, [], probes, aliases)
        else:
            yield Plan(conv.id, conv.speaker_a, True, common.dialogue(conv), [], probes)


def qa_fn(llm: LLM, judge: LLM | None) -> AnswerFn:
    def run(probe: Probe, method: str, k: int, items: list[Item]) -> dict[str, Any]:
        gold = probe.meta.get("answer")
        reply = ans.answer_short(llm, probe.query, items)
        out: dict[str, Any] = {"answer": reply}
        if gold is not None:
            out["f1"] = round(m.token_f1(reply, gold), 4)
            out["bleu1"] = round(m.bleu1(reply, gold), 4)
            if judge is not None:
                out["judge"] = ans.judge_qa(judge, probe.query, gold, reply)
        return out

    return run


def metrics(qa: bool, judged: bool) -> dict[str, m.MetricFn]:
    out: dict[str, m.MetricFn] = {"evidence_recall": lambda rs: m.rate(r.hit for r in rs)}
    if qa:
        out["f1"] = lambda rs: m.mean(r.extra.get("f1") for r in rs)
        out["bleu1"] = lambda rs: m.mean(r.extra.get("bleu1") for r in rs)
        if judged:
            out["judge_accuracy"] = lambda rs: m.rate(r.extra.get("judge") for r in rs)
    return out


def run(
    data_dir: Path,
    convs: list[Conversation],
    engine: Engine,
    opt: Options,
    *,
    llm: LLM | None = None,
    judge: LLM | None = None,
) -> Outcome:
    group: dict[str, str] = {}
    skipped = 0
    for conv in convs:
        probes, dropped = questions(conv, opt)
        skipped += dropped
        group.update({p.id: p.group for p in probes})
    fn = qa_fn(llm, judge) if llm is not None else None
    records: list[Record] = engine.run(
        plans(convs, opt), answer_fn=fn, total=len(convs), desc="locomo"
    )
    chosen = metrics(llm is not None, judge is not None)
    methods = {
        name: m.method_block(
            m.for_method(records, name), engine.ks, chosen, n=len(group), group_of=group.__getitem__
        )
        for name in dict.fromkeys(r.method for r in records)
    }
    data = data_info(background_files(data_dir, convs), len(group))
    data["conversations"] = len(convs)
    data["skipped_no_evidence"] = skipped
    return Outcome(
        {"data": data, "methods": methods, "groups": CATEGORIES},
        records,
        ["evidence_recall"] + (["f1"] if llm is not None else []),
    )
