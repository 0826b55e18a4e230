"""Bad input at the command line: one line saying what to do, exit 2, nothing stored or lost."""

import inspect
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from logicmem.cli.main import main
from logicmem.memory import Memory
from logicmem.models.embed.base import EMBEDDERS
from logicmem.models.llm.base import LLMS

pytestmark = pytest.mark.usefixtures("fast_env")


class _Terminal(io.StringIO):
    """stdin as an interactive terminal that answers with the given text."""

    def isatty(self) -> bool:
        return True


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line_error(err: str) -> str:
    assert err.startswith("logicmem: error:") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def _turns(capsys: pytest.CaptureFixture[str]) -> int:
    code, out, _ = _run(capsys, "stats", "--json")
    assert code == 0
    return int(json.loads(out)["turns"])


def _ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[dict[str, Any]]
) -> tuple[int, str]:
    path = tmp_path / "h.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, _, err = _run(capsys, "ingest", str(path), "--format", "jsonl", "--user", "Ana")
    return code, err


ROWS = [
    {"conversation": "c1", "session": "1", "turn": "1", "speaker": "Ana",
     "text": "I adopted a kitten named Pico.", "time": "2024-03-02"},
    {"conversation": "c1", "session": "2", "turn": "2", "speaker": "Ana",
     "text": "I live in Lisbon near the river.", "time": "2024-04-01"},
]  # fmt: skip


# -- times ---------------------------------------------------------------------------------
def test_an_unreadable_time_exits_2_and_stores_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "add", "I have a kitten.", "--user", "maya", "--time", "notadate")
    assert code == 2
    assert "--time 'notadate'" in _one_line_error(err) and "ISO 8601" in err
    assert _turns(capsys) == 0


def test_a_zoned_time_is_stored_in_utc(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["add", "I have a kitten.", "--user", "maya", "--time", "2024-03-02T01:00:00+02:00"]
    assert _run(capsys, *argv)[0] == 0
    _, out, _ = _run(capsys, "export", "--user", "maya")
    turn = next(json.loads(line) for line in out.splitlines() if '"turn"' in line)
    assert turn["time"] == "2024-03-01T23:00:00"


def test_ingest_with_an_unreadable_time_ingests_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [ROWS[0], {**ROWS[1], "time": "the next day"}]
    code, err = _ingest(tmp_path, capsys, rows)
    assert code == 2
    _one_line_error(err)
    assert "session 2" in err and "'the next day'" in err and "nothing was ingested" in err
    assert _turns(capsys) == 0


@pytest.mark.parametrize("command", ["search", "context"])
def test_a_bad_as_of_exits_2(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, command, "kitten", "--user", "maya", "--as-of", "yesterday")
    assert code == 2 and "--as-of 'yesterday'" in _one_line_error(err)


@pytest.mark.parametrize("command", ["search", "context"])
def test_as_of_reaches_the_library_normalised(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    method = getattr(Memory, command)
    calls: list[dict[str, Any]] = []

    def spy(self: Memory, *args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return method(self, *args, **kwargs)

    monkeypatch.setattr(Memory, command, spy)
    _run(capsys, "add", "I have a kitten.", "--user", "maya")
    assert _run(capsys, command, "kitten", "--user", "maya")[0] == 0
    assert "as_of" not in calls[-1]  # not passed unless asked: older libraries lack it
    if "as_of" not in inspect.signature(method).parameters:
        pytest.skip(f"Memory.{command} has no as_of parameter yet")
    argv = [command, "kitten", "--user", "maya", "--as-of", "2024-03-02T10:00:00+02:00"]
    assert _run(capsys, *argv)[0] == 0
    assert calls[-1]["as_of"] == "2024-03-02T08:00:00"


# -- message size --------------------------------------------------------------------------
def test_an_oversize_message_exits_2_and_stores_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = _run(capsys, "add", "x" * 32_001, "--user", "maya")
    assert code == 2
    _one_line_error(err)
    assert "32,001 characters, over the limit of 32,000" in err
    assert "LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS" in err and "split" in err
    assert _turns(capsys) == 0


def test_the_limit_is_a_setting(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS", "20")
    assert _run(capsys, "add", "I have a small kitten.", "--user", "maya")[0] == 2
    monkeypatch.setenv("LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS", "40000")
    assert _run(capsys, "add", "I have a kitten. " + "z" * 33_000, "--user", "maya")[0] == 0
    assert _turns(capsys) == 1


def test_ingest_with_an_oversize_message_ingests_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS", "100")
    rows = [ROWS[0], {**ROWS[1], "text": "I live in Lisbon. " * 10}]
    code, err = _ingest(tmp_path, capsys, rows)
    assert code == 2
    _one_line_error(err)
    assert "session 2" in err and "over the limit of 100" in err
    assert _turns(capsys) == 0


# -- add - ---------------------------------------------------------------------------------
def test_add_dash_reads_the_message_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("I adopted a kitten\nnamed Pico.\n"))
    assert _run(capsys, "add", "-", "--user", "maya", "--json")[0] == 0
    _, out, _ = _run(capsys, "export", "--user", "maya")
    texts = [json.loads(line)["text"] for line in out.splitlines() if '"turn"' in line]
    assert texts == ["I adopted a kitten\nnamed Pico."]


def test_add_dash_with_empty_stdin_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(" \n"))
    code, _, err = _run(capsys, "add", "-", "--user", "maya")
    assert code == 2 and "stdin is empty" in _one_line_error(err)
    assert _turns(capsys) == 0


# -- files the CLI writes ------------------------------------------------------------------
def test_export_to_an_unwritable_path_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _ingest(tmp_path, capsys, ROWS)[0] == 0
    blocker = tmp_path / "a-file"
    blocker.write_text("keep me")
    code, _, err = _run(capsys, "export", "--user", "Ana", "--out", str(blocker / "x.jsonl"))
    assert code == 2
    assert f"cannot write {blocker / 'x.jsonl'}" in _one_line_error(err)
    assert "is a file, not a folder" in err and blocker.read_text() == "keep me"
    code, _, err = _run(capsys, "export", "--user", "Ana", "--out", str(tmp_path))
    assert code == 2 and "it is a folder" in _one_line_error(err)
    # a missing folder is created
    deep = tmp_path / "new" / "deep" / "x.jsonl"
    assert _run(capsys, "export", "--user", "Ana", "--out", str(deep))[0] == 0
    assert deep.read_text().count('"kind": "turn"') == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write a read-only folder")
def test_export_into_a_read_only_folder_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _ingest(tmp_path, capsys, ROWS)[0] == 0
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        code, _, err = _run(capsys, "export", "--user", "Ana", "--out", str(locked / "x.jsonl"))
    finally:
        locked.chmod(0o700)
    assert code == 2 and "permission denied" in _one_line_error(err)


def test_bench_checks_its_output_folder_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    missing = str(tmp_path / "missing.jsonl")
    argv = ["bench", "recall", "--history", missing, "--questions", missing, "--no-plots",
            "--no-cache"]  # fmt: skip
    code, _, err = _run(capsys, *argv, "--out", str(blocker / "out"))
    assert code == 2 and "cannot write" in _one_line_error(err)  # not the missing history
    code, _, err = _run(capsys, *argv, "--out", str(blocker))
    assert code == 2 and "it is a file, not a folder" in _one_line_error(err)
    out = tmp_path / "runs" / "one"
    assert _run(capsys, *argv, "--out", str(out))[0] == 2  # the history is missing...
    assert out.is_dir()  # ...but the folder was made (and checked) first


# -- settings ------------------------------------------------------------------------------
def test_an_unknown_llm_lists_every_choice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_LLM", "bogus")
    code, _, err = _run(capsys, "stats")
    assert code == 2 and "unknown LLM 'bogus'" in _one_line_error(err)
    assert "LOGICMEM_LLM" in err
    for name in [*LLMS.names(), "none"]:
        assert name in err.split("choose one of")[1]


def test_an_unknown_embedder_lists_every_choice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_EMBEDDER", "bogus")
    code, _, err = _run(capsys, "add", "I have a kitten.", "--user", "maya")
    assert code == 2 and "unknown embedder 'bogus'" in _one_line_error(err)
    for name in EMBEDDERS.names():
        assert name in err.split("choose one of")[1]


# -- forget --------------------------------------------------------------------------------
def _memories(capsys: pytest.CaptureFixture[str], user: str) -> int:
    code, out, _ = _run(capsys, "list", "--user", user, "--json")
    return len(json.loads(out)) if code == 0 else 0


def test_forget_without_yes_off_a_terminal_exits_2_and_keeps_the_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _ingest(tmp_path, capsys, ROWS)[0] == 0
    before = _memories(capsys, "Ana")
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # a pipe, not a terminal
    code, _, err = _run(capsys, "forget", "--user", "Ana")
    assert code == 2 and "--yes" in _one_line_error(err)
    assert before > 0 and _memories(capsys, "Ana") == before
    assert _run(capsys, "forget", "--user", "Ana", "--yes")[0] == 0
    assert _memories(capsys, "Ana") == 0 and _turns(capsys) == 0


def test_forget_on_a_terminal_asks_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _ingest(tmp_path, capsys, ROWS)[0] == 0
    before = _memories(capsys, "Ana")
    monkeypatch.setattr(sys, "stdin", _Terminal("n\n"))
    code, _, err = _run(capsys, "forget", "--user", "Ana")
    assert code == 1 and f"remove every trace of user Ana ({before} memories)? [y/N]" in err
    assert _memories(capsys, "Ana") == before
    monkeypatch.setattr(sys, "stdin", _Terminal("y\n"))
    assert _run(capsys, "forget", "--user", "Ana")[0] == 0
    assert _memories(capsys, "Ana") == 0


# -- by-id commands take the user ----------------------------------------------------------
def test_history_of_another_users_memory_is_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _ingest(tmp_path, capsys, ROWS)[0] == 0
    assert _run(capsys, "add", "I have a dog named Rex.", "--user", "Bo")[0] == 0
    _, out, _ = _run(capsys, "list", "--user", "Ana", "--json")
    memory_id = json.loads(out)[0]["id"]
    code, out, _ = _run(capsys, "history", memory_id, "--user", "Ana", "--json")
    assert code == 0 and json.loads(out)[0]["event"] == "ADD"
    code, _, err = _run(capsys, "history", memory_id, "--user", "Bo")
    assert code == 2 and "no memory with id" in _one_line_error(err)


def test_history_requires_the_user(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["history", "some-id"])
    assert exc.value.code == 2 and "--user" in capsys.readouterr().err
