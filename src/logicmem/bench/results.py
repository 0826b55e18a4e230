"""The results contract: ``DIR/results.json``, ``DIR/records.jsonl``, ``DIR/report.md``, plots.

``results.json`` = ``{benchmark, level, ks, seed, config, versions, data: {path, sha256,
n}, elapsed_s, methods: {NAME: {n, <metric>: {"<k>": value}, by_group, context_tokens_mean,
context_items_mean, latency_ms: {p50, p95}}}}`` plus adapter extras (``controls``,
``stores``, ``command``). Everything but ``elapsed_s`` and latencies is deterministic for
a given seed, config and data.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import logicmem
from logicmem.bench.engine import Record
from logicmem.config import Settings


@dataclass
class Outcome:
    """What an adapter hands back: the results document and per-probe records."""

    results: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    main_metrics: list[str] = field(default_factory=list)
    """The metrics plotted and shown first (e.g. target_recall, naive_recall)."""


def bench_config(settings: Settings, options: dict[str, Any]) -> dict[str, Any]:
    """Settings (minus the store path and secrets) and the bench's own options."""
    public = settings.public_dict()
    public.pop("store", None)
    return {"bench": options, "settings": public}


def git_revision() -> str | None:
    """``git describe --always --dirty`` of the checkout holding the package, if any."""
    root = Path(logicmem.__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def versions(embedder_name: str, llm_name: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "logicmem": logicmem.__version__,
        "git": git_revision(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "embedder": embedder_name,
    }
    if llm_name:
        out["llm"] = llm_name
    return out


def document(
    *,
    benchmark: str,
    level: str,
    ks: list[int],
    seed: int,
    config: dict[str, Any],
    versions: dict[str, Any],
    data: dict[str, Any],
    methods: dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "benchmark": benchmark,
        "level": level,
        "ks": sorted(ks),
        "seed": seed,
        "config": config,
        "versions": versions,
        "data": data,
        "elapsed_s": None,
        "methods": methods,
    }
    doc.update(extra)
    return doc


def write(out: Path, outcome: Outcome, *, plots: bool = True) -> list[Path]:
    """Write results.json, records.jsonl, report.md and the plots; returns the paths."""
    from logicmem.bench import report  # report imports matplotlib lazily, only for plots

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "records.jsonl", out / "report.md"]
    paths[0].write_text(json.dumps(outcome.results, indent=2, ensure_ascii=False) + "\n")
    with paths[1].open("w", encoding="utf-8") as fh:
        for r in outcome.records:
            fh.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
    paths[2].write_text(report.render(outcome.results, outcome.main_metrics))
    if plots:
        paths += report.plot(outcome.results, outcome.main_metrics, out)
    return paths


def summary(results: dict[str, Any]) -> dict[str, Any]:
    """The headline numbers (``--json``): every per-k metric of every method, no groups."""
    methods = {}
    for name, block in results["methods"].items():
        methods[name] = {
            key: value
            for key, value in block.items()
            if key not in ("by_group", "latency_ms") and not key.startswith("context_")
        }
    return {
        "benchmark": results["benchmark"],
        "level": results["level"],
        "ks": results["ks"],
        "data": results["data"],
        "elapsed_s": results["elapsed_s"],
        "methods": methods,
        **({"controls": results["controls"]} if "controls" in results else {}),
    }


def command_line(argv: list[str] | None = None) -> str:
    args = list(sys.argv[1:] if argv is None else argv)
    return "logicmem " + " ".join(args)
