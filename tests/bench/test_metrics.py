"""Metric arithmetic against hand-computed values."""

from __future__ import annotations

import math

import pytest

from logicmem.bench import metrics as m
from logicmem.bench.engine import Record, contains_answer


def rec(probe: str, k: int, hit: bool, tokens: int = 10, extra: dict | None = None) -> Record:
    return Record(
        probe, "dense", k, hit, None, 1 if hit else None, k, tokens, float(k), extra or {}
    )


def test_rate_ignores_none_and_rounds() -> None:
    assert m.rate([True, False, None, True]) == 0.6667
    assert m.rate([None, None]) is None
    assert m.rate([]) is None


def test_percentiles_nearest_rank() -> None:
    assert m.percentiles([float(x) for x in range(1, 21)]) == {"p50": 10.0, "p95": 19.0}
    assert m.percentiles([]) == {"p50": None, "p95": None}


def test_token_f1() -> None:
    # pred {carla, taught, her} vs ref {carla}: P = 1/3, R = 1, F1 = 0.5
    assert m.token_f1("Carla taught her", "Carla") == pytest.approx(0.5)
    assert m.token_f1("The Carla.", "carla") == 1.0  # articles and punctuation dropped
    assert m.token_f1("Bob", "Carla") == 0.0


def test_bleu1() -> None:
    # [cat, sat, on, mat] vs [cat, is, on, mat]: 3/4 clipped, equal length so no penalty
    assert m.bleu1("the cat sat on mat", "the cat is on the mat") == pytest.approx(0.75)
    # one token against three: precision 1, brevity penalty exp(1 - 3/1)
    assert m.bleu1("cat", "cat on mat") == pytest.approx(math.exp(-2))
    # clipping: "cat cat" against "cat" counts one cat
    assert m.bleu1("cat cat", "cat") == pytest.approx(0.5)
    assert m.bleu1("", "cat") == 0.0


def test_outcome_rows() -> None:
    assert [m.outcome(ms, ml) for ms, ml in [(1, 1), (1, 0), (0, 1), (0, 0)]] == list(m.OUTCOMES)


def test_contains_answer_is_word_bounded() -> None:
    assert contains_answer("Ann's sister Carla taught her.", "carla")
    assert contains_answer("on 7 May, 2023", "7 May 2023")
    assert not contains_answer("Carlack", "Carla")
    assert not contains_answer("anything", "")


def test_method_block_by_k_and_group() -> None:
    records = [
        rec("a", 1, True, 5),
        rec("a", 3, True, 15),
        rec("b", 1, False, 5),
        rec("b", 3, True, 15),
        rec("c", 1, False, 5),
        rec("c", 3, False, 15),
        rec("d", 1, False, 5),
        rec("d", 3, False, 15),
    ]
    groups = {"a": "x", "b": "x", "c": "y", "d": "y"}
    block = m.method_block(
        records,
        [1, 3],
        {"recall": lambda rs: m.rate(r.hit for r in rs)},
        n=4,
        group_of=groups.__getitem__,
    )
    assert block["n"] == 4
    assert block["recall"] == {"1": 0.25, "3": 0.5}
    assert block["by_group"]["x"] == {"n": 2, "recall": {"1": 0.5, "3": 1.0}}
    assert block["by_group"]["y"] == {"n": 2, "recall": {"1": 0.0, "3": 0.0}}
    assert block["context_tokens_mean"] == {"1": 5.0, "3": 15.0}
    assert block["context_items_mean"] == {"1": 1.0, "3": 3.0}
    assert block["latency_ms"] == {"p50": 1.0, "p95": 3.0}


def test_method_block_counts_units_not_probes() -> None:
    records = [rec("t1:naive", 1, True), rec("t1:target", 1, False)]
    block = m.method_block(
        records,
        [1],
        {"r": lambda rs: m.rate(r.hit for r in rs)},
        n=1,
        group_of=lambda p: "g",
        unit_of=lambda p: p.split(":")[0],
    )
    assert block["by_group"]["g"]["n"] == 1
