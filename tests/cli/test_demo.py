"""The README's main job: the demo, with the real embedder."""

import re
import shutil
from pathlib import Path

import pytest

from logicmem.cli.main import main


@pytest.mark.slow
def test_demo_runs_offline_and_reports_the_critical_fact(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--keep"]) == 0
    out = capsys.readouterr().out
    # --keep leaves the store on disk (a TemporaryDirectory's finalizer used to delete it).
    kept = Path(re.search(r"Kept the store: (\S+)", out)[1])  # type: ignore[index]
    try:
        assert main(["stats", "--store", str(kept), "--json"]) == 0
        assert '"memories": 0' not in capsys.readouterr().out
    finally:
        shutil.rmtree(kept.parent)
    assert "search (hybrid, k=5)" in out and "context (all routes, k=8)" in out
    assert "The decisive fact (turn s1-t3)" in out
    # Each side states honestly whether it surfaced the fact; the visible route does.
    assert out.count("found at rank") + out.count("MISSED") == 2
    assert "context  found at rank" in out
    assert "[visible] standing constraint (pet" in out and "[semantic]" in out
