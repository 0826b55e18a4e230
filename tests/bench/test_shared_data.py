"""Runs on the real dev files beside the checkout (../shared); skipped when absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logicmem.bench.cli import main
from logicmem.bench.data import load_backgrounds


def test_locomo_files_load(shared_dir: Path) -> None:
    convs = load_backgrounds(shared_dir / "data" / "locomo10")
    assert len(convs) == 10
    assert sum(len(t) for c in convs for _, _, t in c.sessions) == 5882
    assert sum(len(q) for c in convs for q in [c.qa]) == 1986


def test_inmind_memory_level_bank(cli_env, shared_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    code = main(
        [
            "inmind",
            "--tasks",
            str(shared_dir / "bench" / "inmind_style_dev.jsonl"),
            "--background",
            str(shared_dir / "data" / "locomo10"),
            "--limit",
            "4",
            "--methods",
            "full",
            "--out",
            str(out),
            "--quiet",
            "--no-plots",
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    assert results["methods"]["full"]["target_recall"] == {"30": 1.0}
    assert 150 < results["stores"]["memories_mean"] < 330  # ~180-320 observations a bank


@pytest.mark.slow
def test_minilm_smoke(shared_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real embedder end to end: naive queries find their fact, as in the reference."""
    monkeypatch.setenv("LOGICMEM_LLM", "none")
    monkeypatch.setenv("LOGICMEM_VISIBILITY_ENABLED", "false")
    out = tmp_path / "o"
    code = main(
        [
            "inmind",
            "--tasks",
            str(shared_dir / "bench" / "inmind_style_dev.jsonl"),
            "--background",
            str(shared_dir / "data" / "locomo10"),
            "--conversations",
            "26",
            "--limit",
            "3",
            "--methods",
            "dense",
            "--k",
            "10",
            "--out",
            str(out),
            "--quiet",
            "--no-plots",
        ]
    )
    assert code == 0
    results = json.loads((out / "results.json").read_text())
    assert results["versions"]["embedder"].startswith("minilm")
    assert results["methods"]["dense"]["naive_recall"]["10"] >= 0.5
