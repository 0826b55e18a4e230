"""Real embedder, real SQLite file: ingest a LoCoMo conversation through the CLI."""

import json
from pathlib import Path

import pytest

from logicmem.cli.main import main

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def locomo_store(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    store = tmp_path_factory.mktemp("locomo") / "locomo.db"
    code = main(["ingest", str(shared_dir / "data/locomo10/26.json"), "--format", "locomo",
                 "--user", "Caroline", "--store", str(store)])  # fmt: skip
    assert code == 0
    return store


def _search(store: Path, query: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    capsys.readouterr()
    assert main(["search", query, "--user", "Caroline", "--store", str(store), "--json",
                 *extra]) == 0  # fmt: skip
    return json.loads(capsys.readouterr().out)


def test_search_returns_hits_traced_to_locomo_dia_ids(
    locomo_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _search(locomo_store, "adoption agencies", capsys)
    turns = [t for h in result["hits"] for t in h["source_turns"]]
    assert result["hits"] and all(t.startswith("D") and ":" in t for t in turns)
    assert any("adopt" in h["text"].lower() for h in result["hits"][:3])


def test_a_question_finds_its_evidence_turn(
    locomo_store: Path, capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    data = json.loads((shared_dir / "data/locomo10/26.json").read_text())
    qa = data["qa"][0]  # the first annotated question of the conversation
    result = _search(locomo_store, qa["question"], capsys)
    found = {t for h in result["hits"] for t in h["source_turns"]}
    assert found & set(qa["evidence"]), (qa, result["hits"][:3])


def test_sessions_keep_their_dates(locomo_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    main(["list", "--user", "Caroline", "--store", str(locomo_store), "--json"])
    memories = json.loads(capsys.readouterr().out)
    assert memories[0]["said_at"] == "2023-05-08T13:56:00"
    assert {m["metadata"]["subject"] for m in memories} == {"Caroline", "Melanie"}
