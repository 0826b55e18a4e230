"""Train the visibility route's relevance model: ``data/link.npz``, then
``data/relevance.json``.

The training pairs come from the shipped knowledge resource alone (see
``logicmem.routes.visible.link`` and ``relevance``); nothing of any benchmark is read.
First the learned similarity (``link``) is fit five times, each without one fifth of the
entries (by entry), and once on all; the ranking of each held-out fifth's situations by
plain and by learned similarity is reported. The relevance model's requests are scored
with the fit that did not see their entry. Then 5-fold cross-validation grouped by entry
(a request is never scored by a model that saw its entry), then a fit on everything.
Deterministic for a seed on one machine (8-10 minutes on two cores). Run:

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/train_relevance.py [--check]

``--check`` trains and compares with the shipped files instead of writing them (exit 1
when the weights differ by more than 1e-3).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib import resources
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from logicmem.config import load_settings
from logicmem.models.factory import build_embedder
from logicmem.routes.visible.criticality import linked_examples, train_classifier, training_examples
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.link import fit_link, plain, ranking_auc, save_link
from logicmem.routes.visible.relevance import (
    FEATURES,
    TEMPLATES,
    RelevanceModel,
    prior_shift,
    training_set,
)


def _metrics(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    eps = 1e-6
    logloss = float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))
    order = np.argsort(-p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(len(p))
    npos, nneg = y.sum(), len(y) - y.sum()
    auc = float(1 - (ranks[y > 0].sum() - npos * (npos - 1) / 2) / max(npos * nneg, 1))
    pred = p >= 0.5
    tp = float((pred & (y > 0)).sum())
    precision = tp / max(float(pred.sum()), 1.0)
    recall = tp / max(float(npos), 1.0)
    return {
        "logloss": round(logloss, 4),
        "auc": round(auc, 4),
        "precision@0.5": round(precision, 3),
        "recall@0.5": round(recall, 3),
        "mean_p_pos": round(float(p[y > 0].mean()), 3),
        "mean_p_neg": round(float(p[y == 0].mean()), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-entry", type=int, default=3)
    parser.add_argument("--negatives", type=int, default=20)
    parser.add_argument("--out", type=Path, help="default: the package's data/relevance.json")
    parser.add_argument("--link-out", type=Path, help="default: the package's data/link.npz")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    kb = load_kb()
    embedder = build_embedder(load_settings(env={}).embedder)
    memo: dict[str, np.ndarray] = {}

    def embed(texts: list[str]) -> np.ndarray:
        """The embedder, each text embedded once in the run."""
        new = [t for t in dict.fromkeys(texts) if t not in memo]
        if new:
            memo.update(zip(new, embedder.embed(new), strict=True))
        return np.vstack([memo[t] for t in texts])

    # The link sees facts as memories are said (the authored sentences that state an
    # entry too) and the authored everyday talk, which should bind no situation.
    linked = linked_examples()
    ordinary = training_examples(kb)[1]
    ids = list(kb.entries)
    fold_of = {e: i % 5 for i, e in enumerate(ids)}  # the grouping of the CV below
    links, held_out = [], []
    for f in range(5):
        rest = [e for e in ids if fold_of[e] != f]
        out = [e for e in ids if fold_of[e] == f]
        links.append(
            fit_link(kb, embed, entries=rest, linked=linked, ordinary=ordinary, seed=args.seed)
        )
        dims = links[-1].dimensions
        held_out.append(
            (
                ranking_auc(kb, embed, plain(dims), out, linked),
                ranking_auc(kb, embed, links[-1], out, linked),
            )
        )
    link_auc = np.mean(held_out, axis=0)
    link = fit_link(
        kb, embed, linked=linked, ordinary=ordinary, seed=args.seed, embedder=embedder.name
    )
    link.meta.update(
        trained_by="scripts/train_relevance.py",
        held_out_fifth_auc={
            "plain": round(float(link_auc[0]), 4),
            "learned": round(float(link_auc[1]), 4),
        },
    )
    print(json.dumps(link.meta, indent=1))
    data = training_set(
        kb,
        embed,
        embed,
        lambda source: links[fold_of[source]],
        per_entry=args.per_entry,
        negatives=args.negatives,
        seed=args.seed,
    )
    shift = prior_shift(args.negatives)
    folds = data.groups % 5
    p_cv = np.zeros(len(data.y))
    for f in range(5):
        train, test = folds != f, folds == f
        model = train_classifier(data.x[train], data.y[train], l2=1e-3)
        z = data.x[test] @ model.w + model.b + shift
        p_cv[test] = 1 / (1 + np.exp(-z))
    # The model without the link (values, goals and reasons; other embedders): memories
    # said as the resource's fragments, as it was fit before the link.
    fragments = training_set(
        kb,
        embed,
        embed,
        lambda source: links[fold_of[source]],
        per_entry=args.per_entry,
        negatives=args.negatives,
        seed=args.seed,
        sentences=False,
    )
    plain_x = fragments.x[:, : FEATURES.index("memory_link")]
    p_plain = np.zeros(len(fragments.y))
    for f in range(5):
        train, test = fragments.groups % 5 != f, fragments.groups % 5 == f
        model = train_classifier(plain_x[train], fragments.y[train], l2=1e-3)
        p_plain[test] = 1 / (1 + np.exp(-(plain_x[test] @ model.w + model.b + shift)))
    fitted_plain = train_classifier(plain_x, fragments.y, l2=1e-3)
    plain_model = RelevanceModel(
        np.append(fitted_plain.w, 0.0).astype(np.float32), float(fitted_plain.b + shift)
    )
    fitted = train_classifier(data.x, data.y, l2=1e-3)
    model = RelevanceModel(
        fitted.w.astype(np.float32),
        float(fitted.b + shift),
        meta={
            "trained_by": "scripts/train_relevance.py",
            "embedder": embedder.name,
            "seed": args.seed,
            "requests_per_entry": args.per_entry,
            "prior_negatives": args.negatives,
            "templates": len(TEMPLATES),
            "entries": len(kb),
            "pairs": len(data.y),
            "positives": int(data.y.sum()),
            "cv_grouped_by_entry": _metrics(p_cv, data.y),
            "cv_grouped_by_entry_plain": _metrics(p_plain, fragments.y),
        },
        plain=plain_model,
    )
    result = model.to_json()
    print(json.dumps(result, indent=1))
    data_dir = Path(str(resources.files("logicmem.data")))
    target = args.out or data_dir / "relevance.json"
    link_target = args.link_out or data_dir / "link.npz"
    if args.check:
        shipped = json.loads(target.read_text())
        diff = np.abs(np.array(shipped["weights"]) - np.array(result["weights"])).max()
        diff = max(float(diff), abs(shipped["bias"] - result["bias"]))
        plain_diff = np.array(shipped["plain_weights"]) - np.array(result["plain_weights"])
        diff = max(diff, float(np.abs(plain_diff).max()))
        with np.load(link_target) as raw:
            for name, fitted_matrix in (("u", link.u), ("v", link.v)):
                diff = max(diff, float(np.abs(raw[name] - fitted_matrix).max()))
        print(f"largest difference from {target} and {link_target}: {diff:.2e}")
        return 0 if diff <= 1e-3 else 1
    save_link(link, link_target)
    target.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {link_target} and {target} ({len(FEATURES)} features)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
