"""report.md and the docs page are rendered from results.json; notes survive a re-render."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from logicmem.bench import report
from logicmem.bench.cli import main


def test_docs_page_keeps_notes(cli_env, tmp_path: Path, background: Path) -> None:
    out = tmp_path / "run"
    assert (
        main(
            [
                "locomo",
                "--data",
                str(background),
                "--methods",
                "bm25,full",
                "--quiet",
                "--no-plots",
                "--label",
                "tiny",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    page = tmp_path / "benchmarks.md"
    page.write_text("old\n<!-- notes -->\nHand-written analysis.\n<!-- /notes -->\nold tables\n")
    text = report.docs([out], page)
    assert "Hand-written analysis." in text and "old tables" not in text
    assert "## locomo, memory level — tiny" in text
    assert "| full | 4 | 100.0 | 100.0 |" in text
    assert "command: `logicmem bench locomo --data" in text
    assert report.main(["render", str(out)]) == 0
    assert (out / "recall_by_method.png").exists()


def inmind_results(with_shown: bool) -> dict[str, Any]:
    """A synthetic InMind results document; older ones had no negatives.shown."""
    negatives: dict[str, Any] = {
        "n": 2,
        "naive_recall": {"10": 1.0},
        "target_recall": {"10": 0.5},
    }
    if with_shown:
        negatives["shown"] = {"10": 0.5}
    block = {
        "n": 3,
        "naive_recall": {"10": 1.0},
        "target_recall": {"10": 0.25},
        "by_group": {"health": {"n": 3, "target_recall": {"10": 0.25}}},
        "context_items_mean": {"10": 10.0},
        "context_tokens_mean": {"10": 120.0},
        "latency_ms": {"p50": 1.0, "p95": 2.0},
        "negatives": negatives,
    }
    return {
        "benchmark": "inmind",
        "level": "memory",
        "ks": [10],
        "seed": 0,
        "versions": {"embedder": "hash"},
        "data": {"path": "tasks.jsonl", "n": 5, "sha256": "0" * 64},
        "methods": {"dense": block},
        "main_metrics": ["target_recall", "naive_recall"],
    }


def test_negatives_shown_is_in_every_target_recall_table() -> None:
    text = report.render(inmind_results(True), ["target_recall", "naive_recall"])
    method_row = next(line for line in text.splitlines() if line.startswith("| dense | 3 |"))
    assert "negatives shown @10" in text and "| 25.0 | 100.0 | 50.0 |" in method_row
    assert "| negatives: shown | 2 | 50.0 |" in text  # the by-group table
    assert "| dense | 2 | 100.0 | 50.0 | 50.0 |" in text  # the negatives table
    summary = report.summary_table([inmind_results(True)])
    assert "| inmind, memory | negatives shown @10 | 50.0 |  |" in summary


def test_results_without_shown_render_blank() -> None:
    old = inmind_results(False)
    text = report.render(old, ["target_recall"])
    method_row = next(line for line in text.splitlines() if line.startswith("| dense | 3 |"))
    assert "| 25.0 | 100.0 |  | 10.0 |" in method_row
    assert "| negatives: shown | 2 |  |" in text
    assert "| dense | 2 | 100.0 | 50.0 |  |" in text
    assert "| inmind, memory | negatives shown @10 |  |  |" in report.summary_table([old])
