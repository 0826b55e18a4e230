"""Train the visibility route's relevance model and write ``data/relevance.json``.

The training pairs come from the shipped knowledge resource alone (see
``logicmem.routes.visible.relevance``); nothing of any benchmark is read. Reports 5-fold
cross-validation grouped by knowledge entry (a request is never scored by a model that
saw its entry), then fits on everything. Deterministic for a seed. Run:

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/train_relevance.py [--check]

``--check`` trains and compares with the shipped file instead of writing it (exit 1 when
the weights differ by more than 1e-3).
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
from logicmem.routes.visible.criticality import train_classifier
from logicmem.routes.visible.kb import load_kb
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
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    kb = load_kb()
    embedder = build_embedder(load_settings(env={}).embedder)
    data = training_set(
        kb,
        embedder.embed,
        embedder.embed,
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
        },
    )
    result = model.to_json()
    print(json.dumps(result, indent=1))
    target = args.out or Path(str(resources.files("logicmem.data").joinpath("relevance.json")))
    if args.check:
        shipped = json.loads(target.read_text())
        diff = np.abs(np.array(shipped["weights"]) - np.array(result["weights"])).max()
        diff = max(float(diff), abs(shipped["bias"] - result["bias"]))
        print(f"largest difference from {target}: {diff:.2e}")
        return 0 if diff <= 1e-3 else 1
    target.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {target} ({len(FEATURES)} features)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
