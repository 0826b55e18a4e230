"""Readable outputs from results.json: ``report.md``, plots, and ``docs/benchmarks.md``.

``python -m logicmem.bench.report docs DIR... --out docs/benchmarks.md`` renders the
benchmark page from result directories; text between ``<!-- notes -->`` and
``<!-- /notes -->`` in the existing page is kept, so hand-written analysis survives.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

NOTES = re.compile(r"<!-- notes -->.*?<!-- /notes -->", re.S)
_SPECIAL = ("by_group", "latency_ms", "negatives", "n")


def pct(value: Any) -> str:
    return "–" if value is None else f"{100 * float(value):.1f}"


def num(value: Any, digits: int = 1) -> str:
    return "–" if value is None else f"{float(value):.{digits}f}"


def scalar_metrics(block: dict[str, Any]) -> list[str]:
    """Metric names whose per-k values are plain numbers (rates and means)."""
    out = []
    for key, value in block.items():
        if key in _SPECIAL or key.startswith("context_") or not isinstance(value, dict):
            continue
        if all(v is None or isinstance(v, int | float) for v in value.values()):
            out.append(key)
    return out


def ordered(metrics: list[str], main: list[str]) -> list[str]:
    return [m for m in main if m in metrics] + [m for m in metrics if m not in main]


def has_negatives(methods: dict[str, Any]) -> bool:
    return any((b.get("negatives") or {}).get("n") for b in methods.values())


def shown(block: dict[str, Any], k: str) -> str:
    """The negatives' shown rate at ``k`` in %; blank where results predate the key."""
    neg = block.get("negatives") or {}
    return pct(neg["shown"].get(k)) if "shown" in neg else ""


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def method_table(results: dict[str, Any], main: list[str]) -> list[str]:
    """Methods x (metric@k) in percent, the negatives' shown rate, context size, latency."""
    methods = results["methods"]
    if not methods:
        return ["(no methods)"]
    ks = [str(k) for k in results["ks"]]
    first = next(iter(methods.values()))
    names = ordered(scalar_metrics(first), main)
    negatives = has_negatives(methods)
    header = ["method", "n"] + [f"{m} @{k}" for m in names for k in ks]
    header += [f"negatives shown @{k}" for k in ks] if negatives else []
    sliced = any("visible" in b.get("route_items_mean", {}) for b in methods.values())
    header += [f"items @{k}" for k in ks]
    header += [f"visible @{k}" for k in ks] if sliced else []
    header += [f"tokens @{k}" for k in ks] + ["p50 ms", "p95 ms"]
    rows = []
    for name, block in methods.items():
        row = [name, str(block.get("n", ""))]
        for metric in names:
            fmt = num if metric in ("f1", "bleu1") else pct
            values = block.get(metric, {})
            row += [fmt(values.get(k)) if fmt is pct else num(values.get(k), 3) for k in ks]
        row += [shown(block, k) for k in ks] if negatives else []
        row += [num(block["context_items_mean"].get(k)) for k in ks]
        if sliced:
            visible = block.get("route_items_mean", {}).get("visible", {})
            row += [num(visible.get(k)) if visible else "" for k in ks]
        row += [num(block["context_tokens_mean"].get(k), 0) for k in ks]
        row += [num(block["latency_ms"]["p50"]), num(block["latency_ms"]["p95"])]
        rows.append(row)
    return _table(header, rows)


def group_table(results: dict[str, Any], metric: str) -> list[str]:
    """Groups x methods for ``metric`` at the largest k."""
    k = str(max(results["ks"]))
    methods = results["methods"]
    groups = sorted({g for b in methods.values() for g in b.get("by_group", {})})
    if not groups:
        return []
    legend = results.get("groups", {})
    header = ["group", "n", *methods]
    rows = []
    for g in groups:
        blocks = [b.get("by_group", {}).get(g, {}) for b in methods.values()]
        n = next((b.get("n") for b in blocks if b), "")
        label = f"{g} {legend[g]}" if g in legend else g
        rows.append([label, str(n)] + [pct(b.get(metric, {}).get(k)) for b in blocks])
    if has_negatives(methods):
        n = next(b["negatives"]["n"] for b in methods.values() if b.get("negatives"))
        rows.append(["negatives: shown", str(n)] + [shown(b, k) for b in methods.values()])
    return [f"{metric} @{k} by group (%):", "", *_table(header, rows)]


def outcome_table(results: dict[str, Any]) -> list[str]:
    k = str(max(results["ks"]))
    rows = []
    for name, block in results["methods"].items():
        shares = (block.get("outcomes") or {}).get(k)
        if shares:
            rows.append(
                [name] + [pct(shares[r]) for r in ("both", "ms_only", "ml_only", "neither")]
            )
    if not rows:
        return []
    return [
        f"Outcome table @{k} (% of items):",
        "",
        *_table(["method", "m_s+m_l", "m_s only", "m_l only", "neither"], rows),
    ]


def mcq_tables(results: dict[str, Any]) -> list[str]:
    k = str(max(results["ks"]))
    rows, by_row = [], []
    for name, block in results["methods"].items():
        traps = (block.get("trap_rates") or {}).get(k)
        if not traps:
            continue
        acc = block["mcq_accuracy"][k]
        rows.append(
            [
                name,
                pct(acc),
                pct(traps["preference"]),
                pct(traps["fabrication"]),
                pct(traps["generic"]),
                pct(block["mcq_invalid"][k]),
            ]
        )
        for row, cell in (block.get("mcq_by_outcome") or {}).get(k, {}).items():
            by_row.append(
                [
                    name,
                    row,
                    str(cell["n"]),
                    pct(cell["accuracy"]),
                    pct((cell["trap_rates"] or {}).get("preference")),
                ]
            )
    if not rows:
        return []
    out = [
        f"MCQ @{k} (%):",
        "",
        *_table(
            [
                "method",
                "accuracy",
                "preference trap",
                "fabrication trap",
                "generic trap",
                "invalid",
            ],
            rows,
        ),
    ]
    out += [
        "",
        f"MCQ accuracy by outcome row @{k}:",
        "",
        *_table(["method", "row", "n", "accuracy %", "preference trap %"], by_row),
    ]
    return out


def negatives_table(results: dict[str, Any]) -> list[str]:
    """InMind negatives; ``shown``: the irrelevant fact reached the indirect query's context."""
    ks = [str(k) for k in results["ks"]]
    rows = []
    for name, block in results["methods"].items():
        neg = block.get("negatives")
        if neg and neg.get("n"):
            rows.append(
                [name, str(neg["n"])]
                + [
                    pct(neg.get(m, {}).get(k))
                    for m in ("naive_recall", "target_recall")
                    for k in ks
                ]
                + [shown(block, k) for k in ks]
            )
    if not rows:
        return []
    header = ["method", "n"] + [f"{m} @{k}" for m in ("naive_recall", "target_recall") for k in ks]
    header += [f"shown @{k}" for k in ks]
    return [
        "Negatives (the fact is irrelevant to the indirect query; shown: it reached the "
        "indirect query's context, lower is better) (%):",
        "",
        *_table(header, rows),
    ]


def controls_lines(results: dict[str, Any]) -> list[str]:
    controls = results.get("controls") or {}
    out = []
    for name, block in controls.items():
        if not block.get("n"):
            continue
        cells = ", ".join(f"{key} {pct(v)}%" for key, v in block.items() if key != "n")
        out.append(f"- {name} (n={block.get('n')}): {cells}")
    return ["In-context control (the fact alone in context):", "", *out] if out else []


def options_lines(results: dict[str, Any]) -> list[str]:
    """The dev half, the distractors and opaque user ids, when the run had them: they
    change what n means or what the store was given."""
    bench = (results.get("config") or {}).get("bench") or {}
    parts = [f"half {bench['half']}"] if bench.get("half") else []
    if bench.get("distractors"):
        age = f" ({bench['distractor_age']} age)" if bench.get("distractor_age") else ""
        parts.append(f"distractors {bench['distractors']}{age}")
    if bench.get("user_ids") == "opaque":
        parts.append("opaque user ids")
    return [f"- options: {', '.join(parts)}"] if parts else []


def body(results: dict[str, Any], main: list[str]) -> list[str]:
    """Tables of one results document (no title)."""
    stores = results.get("stores") or {}
    lines = [
        f"- data: `{results['data']['path']}` (n={results['data']['n']}, "
        f"sha256 {results['data']['sha256'][:12]}…)",
        f"- level: {results['level']}, k: {', '.join(map(str, results['ks']))}, "
        f"seed: {results['seed']}, embedder: {results['versions'].get('embedder')}"
        + (f", code: `{results['versions']['git']}`" if results["versions"].get("git") else ""),
        f"- wall time: {num(results.get('elapsed_s'))} s"
        + (
            f"; stores: {stores.get('n')}, memories per store {num(stores.get('memories_mean'))}"
            if stores
            else ""
        ),
    ]
    lines += options_lines(results)
    if results.get("command"):
        lines.append(f"- command: `{results['command']}`")
    lines += ["", "Rates in %; items and tokens are context means; latency per retrieval.", ""]
    lines += method_table(results, main)
    first: dict[str, Any] = next(iter(results["methods"].values()), {})
    metric = ordered(scalar_metrics(first), main)[:1]
    for part in (
        group_table(results, metric[0]) if metric else [],
        outcome_table(results),
        mcq_tables(results),
        negatives_table(results),
        controls_lines(results),
    ):
        if part:
            lines += ["", *part]
    return lines


def render(results: dict[str, Any], main: list[str] | None = None) -> str:
    title = f"# {results['benchmark']} ({results['level']} level)"
    return "\n".join([title, "", *body(results, main or [])]) + "\n"


def plot(results: dict[str, Any], main: list[str], out: Path) -> list[Path]:
    """recall_by_method.png, recall_by_group.png and (with MCQ) trap_rates.png."""
    from logicmem.bench import plots

    return plots.draw(results, main, out)


# -- docs/benchmarks.md -------------------------------------------------------------------
def summary_table(runs: list[dict[str, Any]]) -> list[str]:
    """One row per run: its first main metric at the largest k, for every method."""
    methods = list(dict.fromkeys(m for r in runs for m in r["methods"]))
    rows = []
    for r in runs:
        k = str(max(r["ks"]))
        metric = (r.get("main_metrics") or scalar_metrics(next(iter(r["methods"].values()))))[0]
        label = f"{r['benchmark']}, {r['level']}" + (f" ({r['label']})" if r.get("label") else "")
        cells = [
            pct(r["methods"][m].get(metric, {}).get(k)) if m in r["methods"] else ""
            for m in methods
        ]
        rows.append([label, f"{metric} @{k}", *cells, num(r.get("elapsed_s"), 0)])
        if has_negatives(r["methods"]):
            cells = [shown(r["methods"][m], k) if m in r["methods"] else "" for m in methods]
            rows.append([label, f"negatives shown @{k}", *cells, ""])
    return [
        "## Summary",
        "",
        "The first metric of each run at its largest k (%), and its wall time (s).",
        "",
        *_table(["run", "metric", *methods, "s"], rows),
    ]


def docs(dirs: list[Path], out: Path, preamble: str = "") -> str:
    """The benchmarks page from result directories, keeping the notes of the old page."""
    docs_list = []
    for d in dirs:
        path = d / "results.json" if d.is_dir() else d
        if not path.is_file():
            print(f"skipping {d}: no results.json", file=sys.stderr)
            continue
        docs_list.append(json.loads(path.read_text()))
    docs_list.sort(key=lambda r: (r["benchmark"], r["level"] != "memory", r.get("label", "")))
    old = out.read_text() if out.exists() else ""
    kept = NOTES.search(old)
    notes = kept.group(0) if kept else "<!-- notes -->\n<!-- /notes -->"
    lines = [
        "# Benchmarks",
        "",
        "Generated by `python -m logicmem.bench.report docs` from the results.json files",
        "of the runs below; the notes section is written by hand.",
        "",
    ]
    if preamble:
        lines += [preamble, ""]
    lines += [notes, "", *summary_table(docs_list), ""]
    for r in docs_list:
        label = f" — {r['label']}" if r.get("label") else ""
        lines += [f"## {r['benchmark']}, {r['level']} level{label}", ""]
        lines += body(r, r.get("main_metrics", []))
        lines.append("")
    text = "\n".join(lines)
    out.write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m logicmem.bench.report")
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("docs", help="render docs/benchmarks.md from result directories")
    d.add_argument("dirs", nargs="+", type=Path)
    d.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    r = sub.add_parser("render", help="re-render DIR/report.md and plots from DIR/results.json")
    r.add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "docs":
        docs(args.dirs, args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        results = json.loads((args.dir / "results.json").read_text())
        main_metrics = results.get("main_metrics", [])
        (args.dir / "report.md").write_text(render(results, main_metrics))
        plot(results, main_metrics, args.dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
