"""Dev half A beside half B: one markdown table from ``logicmem bench`` result directories.

Each run was made with ``--half A`` or ``--half B`` (the split is a hash of the item id,
``logicmem.bench.data.half_of``). Dials are chosen on A; B is reported beside it. Run:

    .venv/bin/python benchmarks/halves.py bench-out/i12/{inmind,inmind-d20,imlogic,imlogic-d10}
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

METRICS = ("target_recall", "naive_recall", "recall_ml", "recall_ms", "evidence_recall")


def _cell(block: dict, metric: str) -> str:
    values = block.get(metric)
    if not isinstance(values, dict):
        return ""
    return " / ".join(
        "–" if values[k] is None else f"{100 * values[k]:.1f}" for k in sorted(values, key=int)
    )


def rows(stem: Path) -> list[str]:
    out = []
    halves = {h: json.loads((stem.parent / f"{stem.name}-{h}" / "results.json").read_text())
              for h in ("A", "B")}  # fmt: skip
    methods = list(halves["A"]["methods"])
    for metric in METRICS:
        if metric not in halves["A"]["methods"][methods[0]]:
            continue
        for method in methods:
            a = halves["A"]["methods"][method]
            b = halves["B"]["methods"][method]
            out.append(f"| {stem.name} | {metric} | {method} | {_cell(a, metric)} | "
                       f"{_cell(b, metric)} |")  # fmt: skip
        if metric == "target_recall":
            for method in methods:
                a = halves["A"]["methods"][method].get("negatives", {})
                b = halves["B"]["methods"][method].get("negatives", {})
                out.append(f"| {stem.name} | negatives shown | {method} | "
                           f"{_cell(a, 'shown')} (n={a.get('n')}) | "
                           f"{_cell(b, 'shown')} (n={b.get('n')}) |")  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stems", nargs="+", type=Path, help="DIR for DIR-A and DIR-B")
    args = parser.parse_args()
    print("| run | metric | method | half A @10 / @30 | half B @10 / @30 |")
    print("|---|---|---|---|---|")
    for stem in args.stems:
        print("\n".join(rows(stem)))


if __name__ == "__main__":
    main()
