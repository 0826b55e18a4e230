"""Plots of a results document (matplotlib, Agg backend, imported only here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from logicmem.bench.report import ordered, scalar_metrics


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bars(ax: Any, labels: list[str], series: dict[str, list[float]]) -> None:
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        xs = [x + (i - (len(series) - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, values, width, label=name)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("%")
    ax.legend(fontsize=7)


def _value(v: Any) -> float:
    return 0.0 if v is None else 100 * float(v)


def draw(results: dict[str, Any], main: list[str], out: Path) -> list[Path]:
    methods = results["methods"]
    if not methods:
        return []
    plt = _pyplot()
    ks = [str(k) for k in results["ks"]]
    first = next(iter(methods.values()))
    rates = [m for m in ordered(scalar_metrics(first), main) if m not in ("f1", "bleu1")][:3]
    title = f"{results['benchmark']} ({results['level']} level)"
    paths = []

    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(methods)), 4))
    series = {
        f"{m} @{k}": [_value(b.get(m, {}).get(k)) for b in methods.values()]
        for m in rates
        for k in ks
    }
    _bars(ax, list(methods), series)
    ax.set_title(f"{title}: by method")
    paths.append(out / "recall_by_method.png")
    fig.tight_layout()
    fig.savefig(paths[-1], dpi=100)
    plt.close(fig)

    groups = sorted({g for b in methods.values() for g in b.get("by_group", {})})
    if groups and rates:
        k = ks[-1]
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(groups)), 4))
        series = {
            name: [
                _value(b.get("by_group", {}).get(g, {}).get(rates[0], {}).get(k)) for g in groups
            ]
            for name, b in methods.items()
        }
        _bars(ax, groups, series)
        ax.set_title(f"{title}: {rates[0]} @{k} by group")
        paths.append(out / "recall_by_group.png")
        fig.tight_layout()
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)

    if any(b.get("trap_rates") for b in methods.values()):
        k = ks[-1]
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(methods)), 4))
        names = ["accuracy", "preference", "fabrication", "generic"]
        series = {
            n: [
                _value((b.get("mcq_accuracy") or {}).get(k))
                if n == "accuracy"
                else _value(((b.get("trap_rates") or {}).get(k) or {}).get(n))
                for b in methods.values()
            ]
            for n in names
        }
        _bars(ax, list(methods), series)
        ax.set_title(f"{title}: MCQ accuracy and trap rates @{k}")
        paths.append(out / "trap_rates.png")
        fig.tight_layout()
        fig.savefig(paths[-1], dpi=100)
        plt.close(fig)
    return paths
