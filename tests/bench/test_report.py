"""report.md and the docs page are rendered from results.json; notes survive a re-render."""

from __future__ import annotations

from pathlib import Path

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
