"""The command line: happy paths with the hash embedder, and every bad input -> exit 2."""

import json
import sqlite3
from pathlib import Path

import pytest

from logicmem.cli.main import main
from logicmem.write.pipeline import WritePipeline

pytestmark = pytest.mark.usefixtures("fast_env")


def _history(tmp_path: Path) -> Path:
    rows = [
        {"conversation": "c1", "session": "1", "turn": "1", "speaker": "Ana",
         "text": "I adopted a kitten named Pico.", "time": "2024-03-02"},
        {"conversation": "c1", "session": "1", "turn": "2", "speaker": "Bo",
         "text": "Pico is a lovely name for a cat!", "time": "2024-03-02"},
        {"conversation": "c1", "session": "2", "turn": "3", "speaker": "Ana",
         "text": "I live in Lisbon near the river.", "time": "2024-04-01"},
    ]  # fmt: skip
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ingest_search_context_list_export_forget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _history(tmp_path)
    code, out, _ = _run(capsys, "ingest", str(path), "--format", "jsonl", "--user", "Ana",
                        "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["turns"] == 3
    code, out, _ = _run(capsys, "search", "kitten", "--user", "Ana", "--json")
    hits = json.loads(out)["hits"]
    assert hits and hits[0]["source_turns"] == ["1"] and json.loads(out)["budget"] == {"k": 10}
    code, out, _ = _run(capsys, "context", "cat", "--user", "Ana", "-k", "2", "--json")
    data = json.loads(out)
    assert len(data["items"]) == 2 and all(i["reason"] for i in data["items"])
    code, out, _ = _run(capsys, "list", "--user", "Ana", "--json")
    assert {m["metadata"]["subject"] for m in json.loads(out)} == {"Ana", "Bo"}
    out_file = tmp_path / "export.jsonl"
    assert _run(capsys, "export", "--user", "Ana", "--out", str(out_file))[0] == 0
    kinds = [json.loads(line)["kind"] for line in out_file.read_text().splitlines()]
    assert kinds.count("turn") == 3 and "memory" in kinds
    code, out, _ = _run(capsys, "stats", "--json")
    assert json.loads(out)["turns"] == 3
    assert _run(capsys, "forget", "--user", "Ana", "--yes")[0] == 0
    code, _, err = _run(capsys, "search", "kitten", "--user", "Ana")
    assert code == 2 and "no memories for user 'Ana'" in err


def test_reindex_restores_and_shows_a_statement_merged_as_a_repeat(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _run(capsys, "add", "My wife is vegetarian.", "--user", "Ana")
    with monkeypatch.context() as patch:  # an older version's merge: "nothing new"
        patch.setattr(
            WritePipeline,
            "_duplicate_of",
            staticmethod(lambda text, vector, near, existing, *_: next(iter(existing), None)),
        )
        code, out, _ = _run(capsys, "add", "I'm vegetarian.", "--user", "Ana")
    assert code == 0 and "no new memory" in out
    code, out, _ = _run(capsys, "reindex", "--user", "Ana")
    assert code == 0 and "restored" in out and "Ana is vegetarian." in out
    listed = [m["text"] for m in json.loads(_run(capsys, "list", "--user", "Ana", "--json")[1])]
    assert sorted(listed) == ["Ana is vegetarian.", "Ana's wife is vegetarian."]
    code, out, _ = _run(capsys, "reindex", "--user", "Ana", "--json")
    assert json.loads(out)["statements_restored"] == 0


@pytest.mark.slow
def test_add_shows_what_an_ending_kept_of_the_memory_it_closed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_EMBEDDER", "minilm")  # the endings' thresholds were set on it
    monkeypatch.setenv("LOGICMEM_VISIBILITY_ENABLED", "false")  # not read here
    _run(capsys, "add", "I take 20 mg of lisinopril and I'm allergic to penicillin.",
         "--user", "Ana", "--time", "2024-01-10")  # fmt: skip
    code, out, _ = _run(capsys, "add", "I stopped taking lisinopril.", "--user", "Ana",
                        "--time", "2024-03-01")  # fmt: skip
    [kept] = [line for line in out.splitlines() if "kept from" in line]
    assert code == 0 and kept.startswith("+ Ana is allergic to penicillin.")
    listed = [m["text"] for m in json.loads(_run(capsys, "list", "--user", "Ana", "--json")[1])]
    assert listed == ["Ana stopped taking lisinopril.", "Ana is allergic to penicillin."]


def test_add_says_when_a_request_to_forget_found_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _run(capsys, "add", "I have a cat named Miso.", "--user", "Ana", "--time", "2024-01-10")
    code, out, _ = _run(capsys, "add", "Forget my address.", "--user", "Ana")
    assert code == 0 and "found no memory to close: nothing was forgotten" in out
    code, out, _ = _run(capsys, "add", "Forget my address.", "--user", "Ana", "--json")
    assert len(json.loads(out)["unmatched_forgets"]) == 1


def test_context_shows_what_time_has_changed_since_a_memory_was_said(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _run(capsys, "add", "I'm 8 weeks pregnant!", "--user", "Ana", "--time", "2024-01-10")
    code, out, _ = _run(capsys, "context", "What should I eat for lunch?", "--user", "Ana")
    assert code == 0 and "pregnant" in out
    assert "now: said to hold until 2024-09-04; that day has passed" in out


def test_reindex_one_user_or_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "ingest", str(_history(tmp_path)), "--format", "jsonl", "--user", "Ana")
    _run(capsys, "add", "I take warfarin.", "--user", "Bo")
    active = len(json.loads(_run(capsys, "list", "--user", "Ana", "--json")[1]))
    code, out, _ = _run(capsys, "reindex", "--user", "Ana", "--json")
    assert code == 0 and json.loads(out) == {
        "user": "Ana",
        "memories_reindexed": active,
        "statements_restored": 0,
    }
    code, out, _ = _run(capsys, "reindex", "--all-users")
    assert code == 0 and out == f"reindexed {active + 1} memories of every user\n"
    code, out, err = _run(capsys, "stats")
    assert code == 0 and "indexed_otherwise': 0" in out and "reindex" not in err


def test_stats_says_to_reindex_memories_indexed_under_other_settings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _run(capsys, "add", "I take warfarin.", "--user", "Bo")
    monkeypatch.setenv("LOGICMEM_VISIBILITY_CRITICAL_MIN", "0.9")
    code, out, err = _run(capsys, "stats", "--json")
    assert code == 0 and json.loads(out)["index"]["indexed_otherwise"] == 1
    assert "1 memory was indexed by another version" in err
    assert "logicmem reindex --all-users --stale" in err
    _run(capsys, "add", "I painted the fence.", "--user", "Ana")  # indexed as now
    code, out, _ = _run(capsys, "reindex", "--all-users", "--stale")
    assert code == 0 and out == "reindexed 1 memory indexed by another version of every user\n"
    code, out, err = _run(capsys, "stats", "--json")
    assert json.loads(out)["index"]["indexed_otherwise"] == 0 and err == ""
    code, out, _ = _run(capsys, "reindex", "--user", "Bo", "--stale", "--json")
    assert code == 0 and json.loads(out)["memories_reindexed"] == 0
    with pytest.raises(SystemExit) as exc:  # one of --user / --all-users
        main(["reindex"])
    assert exc.value.code == 2 and "--all-users" in capsys.readouterr().err


def test_reingesting_the_same_file_adds_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _history(tmp_path)
    _run(capsys, "ingest", str(path), "--format", "jsonl", "--user", "Ana")
    _code, out, _ = _run(capsys, "ingest", str(path), "--format", "jsonl", "--user", "Ana",
                        "--json")  # fmt: skip
    assert json.loads(out)["turns"] == 0 and json.loads(out)["memories"] == 0


def test_add_and_config_show(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "add", "I'm allergic to tree nuts.", "--user", "maya", "--json")
    assert code == 0 and json.loads(out)["added"][0]["category"]
    code, out, _ = _run(capsys, "config", "show", "--json")
    assert json.loads(out)["embedder"]["provider"] == "hash"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["ingest", "missing.jsonl", "--format", "jsonl", "--user", "a"], "does not exist"),
        (["ingest", "BAD", "--format", "jsonl", "--user", "a"], ":2 is not valid JSON"),
        (["ingest", "BAD", "--format", "locomo", "--user", "a"], "not valid JSON"),
        (["ingest", "GOOD", "--format", "jsonl", "--user", "Ana", "--conversation", "zz"],
         "no turns of conversation 'zz'"),
        (["add", "   ", "--user", "a"], "empty"),
        (["search", "x", "--user", "nobody"], "no memories for user 'nobody'"),
        (["history", "nope", "--user", "a"], "no memory with id"),
        (["reindex", "--user", "nobody"], "no memories for user 'nobody'"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session": 1, "speaker": "a", "text": "ok"}\n{not json}\n')
    argv = [str(bad) if a == "BAD" else str(_history(tmp_path)) if a == "GOOD" else a
            for a in argv]  # fmt: skip
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert message in err and err.startswith("logicmem: error:")


def test_unknown_format_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["ingest", "x", "--format", "csv", "--user", "a"])
    assert exc.value.code == 2
    assert "invalid choice: 'csv'" in capsys.readouterr().err


def test_unreachable_llm_server_exits_2_and_keeps_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _run(capsys, "add", "I have a kitten.", "--user", "maya")
    monkeypatch.setenv("LOGICMEM_LLM", "openai")
    monkeypatch.setenv("LOGICMEM_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens
    monkeypatch.setenv("LOGICMEM_LLM_MODEL", "m")
    code, _, err = _run(capsys, "ask", "flowers?", "--user", "maya")
    assert code == 2 and "127.0.0.1:9" in err
    # extraction with the unreachable server falls back and still stores the turn
    code, out, _ = _run(capsys, "add", "I moved to Porto.", "--user", "maya", "--json")
    assert code == 0 and json.loads(out)["failures"] == 1
    monkeypatch.setenv("LOGICMEM_LLM", "none")
    code, out, _ = _run(capsys, "stats", "--json")
    # every LLM step failed and each is counted: the query-time bridge hypotheses (ask),
    # extraction and the criticality judgement (add)
    assert json.loads(out)["events"] == {
        "bridge_llm_failure": 1,
        "extraction_failure": 1,
        "criticality_llm_failure": 1,
    }
    assert json.loads(out)["turns"] == 2


def test_locked_store_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _run(capsys, "add", "I have a kitten.", "--user", "maya")
    store = Path(str(tmp_path / "store.db"))
    other = sqlite3.connect(store, isolation_level=None, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        code, _, err = _run(capsys, "add", "I have a dog.", "--user", "maya")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert code == 2 and "locked" in err


def test_cli_reference_is_current() -> None:
    from logicmem.cli.reference import render

    doc = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
    assert doc.read_text() == render(), "regenerate: python -m logicmem.cli.reference > docs/cli.md"


def test_store_urls_work_in_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite://{tmp_path / 'url.db'}"  # sqlite:///abs/path
    assert _run(capsys, "add", "I have a cat.", "--user", "Ana", "--store", url)[0] == 0
    code, out, _ = _run(capsys, "stats", "--store", url, "--json")
    stats = json.loads(out)
    assert code == 0 and stats["turns"] == 1 and stats["path"] == str(tmp_path / "url.db")
    code, _, err = _run(capsys, "stats", "--store", "postgresql://u:pw@db/mem")
    # no server at that host here: one line, the password masked
    assert code == 2 and "cannot reach PostgreSQL" in err and "pw" not in err
