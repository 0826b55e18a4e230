"""Metric arithmetic: rates per k, breakdowns by group, token F1 and BLEU-1, percentiles.

Every rate is a fraction in [0, 1] rounded to 4 places; ``None`` when nothing was
measured (so an empty group never reads as 0%).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from logicmem.bench.engine import Record

MetricFn = Callable[[list[Record]], Any]
_ARTICLES = {"a", "an", "the"}


def rate(values: Iterable[bool | None]) -> float | None:
    """Share of true values, ignoring None; None when there are none."""
    kept = [bool(v) for v in values if v is not None]
    return round(sum(kept) / len(kept), 4) if kept else None


def mean(values: Iterable[float | None]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return round(statistics.fmean(kept), 4) if kept else None


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    """p50 and p95 by the nearest-rank method."""
    if not values:
        return {"p50": None, "p95": None}
    ordered = sorted(values)

    def nearest(p: float) -> float:
        return round(ordered[max(0, math.ceil(p * len(ordered)) - 1)], 3)

    return {"p50": nearest(0.50), "p95": nearest(0.95)}


def tokens(text: str) -> list[str]:
    """Lowercase word tokens, punctuation and articles dropped (as LoCoMo/mem0 score)."""
    return [t for t in re.findall(r"\w+", str(text).lower()) if t not in _ARTICLES]


def token_f1(prediction: str, reference: str) -> float:
    pred, ref = tokens(prediction), tokens(reference)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def bleu1(prediction: str, reference: str) -> float:
    """Sentence BLEU with unigrams only: clipped precision times the brevity penalty."""
    pred, ref = tokens(prediction), tokens(reference)
    if not pred or not ref:
        return 0.0
    clipped = sum((Counter(pred) & Counter(ref)).values())
    precision = clipped / len(pred)
    brevity = 1.0 if len(pred) > len(ref) else math.exp(1 - len(ref) / len(pred))
    return brevity * precision


OUTCOMES = ("both", "ms_only", "ml_only", "neither")


def outcome(ms: bool, ml: bool) -> str:
    """The IMLogic Table 6 row for what the context held."""
    if ms and ml:
        return "both"
    if ms:
        return "ms_only"
    return "ml_only" if ml else "neither"


def by_k(records: list[Record], ks: list[int], fn: MetricFn) -> dict[str, Any]:
    return {str(k): fn([r for r in records if r.k == k]) for k in ks}


def method_block(
    records: list[Record],
    ks: list[int],
    metrics: dict[str, MetricFn],
    *,
    n: int,
    group_of: Callable[[str], str | None] | None = None,
    unit_of: Callable[[str], str] = lambda probe: probe,
    usage: Callable[[Record], bool] = lambda r: True,
) -> dict[str, Any]:
    """``{n, <metric>: {k: v}, by_group, context_tokens_mean, context_items_mean, latency_ms}``.

    ``unit_of`` maps a probe to what ``n`` counts (a task may ask two probes); ``usage``
    picks the records whose context size and latency are reported.
    """
    block: dict[str, Any] = {"n": n}
    for name, fn in metrics.items():
        block[name] = by_k(records, ks, fn)
    if group_of is not None:
        groups: dict[str, list[Record]] = {}
        for r in records:
            g = group_of(r.probe)
            if g is not None:
                groups.setdefault(g, []).append(r)
        block["by_group"] = {
            g: {"n": len({unit_of(r.probe) for r in rs})}
            | {name: by_k(rs, ks, fn) for name, fn in metrics.items()}
            for g, rs in sorted(groups.items())
        }
    used = [r for r in records if usage(r)]
    block["context_tokens_mean"] = by_k(used, ks, lambda rs: mean(r.tokens for r in rs))
    block["context_items_mean"] = by_k(used, ks, lambda rs: mean(r.items for r in rs))
    routes = sorted({name for r in used for name in r.routes})
    if len(routes) > 1 or "visible" in routes:
        # How the budget was shared: the visible slice's mean size is a reported number.
        block["route_items_mean"] = {name: by_k(used, ks, _route_mean(name)) for name in routes}
    block["latency_ms"] = percentiles([r.latency_ms for r in used])
    return block


def _route_mean(route: str) -> MetricFn:
    return lambda rs: mean(r.routes.get(route, 0) for r in rs)


def for_method(records: list[Record], method: str) -> list[Record]:
    return [r for r in records if r.method == method]
