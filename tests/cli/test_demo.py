"""The README's main job: the demo, with the real embedder."""

import pytest

from logicmem.cli.main import main


@pytest.mark.slow
def test_demo_runs_offline_and_reports_the_critical_fact(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "search (hybrid, k=5)" in out and "context (all routes, k=8)" in out
    assert "The decisive fact (turn s1-t3)" in out
    # Each side states honestly whether it surfaced the fact; the visible route does.
    assert out.count("found at rank") + out.count("MISSED") == 2
    assert "context  found at rank" in out
    assert "[visible] standing constraint (pet" in out and "[semantic]" in out
