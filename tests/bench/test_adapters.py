"""A smoke run of each command on tiny inputs, the results contract, and input errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import write_jsonl

from logicmem.bench import answer as ans
from logicmem.bench.cli import main
from logicmem.bench.data import read_jsonl
from logicmem.errors import InputError

TOP = {"benchmark", "level", "ks", "seed", "config", "versions", "data", "elapsed_s", "methods"}
PER_METHOD = {"n", "by_group", "context_tokens_mean", "context_items_mean", "latency_ms"}


def run(tmp_path: Path, name: str, *args: str) -> dict[str, Any]:
    out = tmp_path / name
    code = main([*args, "--out", str(out), "--quiet", "--cache", str(tmp_path / "cache")])
    assert code == 0
    assert (out / "report.md").read_text().startswith("# ")
    assert (out / "recall_by_method.png").stat().st_size > 0
    results = json.loads((out / "results.json").read_text())
    assert set(results) >= TOP
    for block in results["methods"].values():
        assert set(block) >= PER_METHOD
        assert set(block["latency_ms"]) == {"p50", "p95"}
    return results


@pytest.fixture
def generic(tmp_path: Path) -> tuple[Path, Path, Path]:
    history = write_jsonl(
        tmp_path / "history.jsonl",
        [
            {
                "conversation": "c1",
                "session": "s1",
                "turn": "t1",
                "speaker": "ann",
                "text": "I adopted a greyhound called Rocket.",
                "time": "2024-01-02",
            },
            {
                "conversation": "c1",
                "session": "s1",
                "turn": "t2",
                "speaker": "bot",
                "role": "assistant",
                "text": "Congratulations on Rocket!",
            },
            {
                "conversation": "c1",
                "session": "s2",
                "turn": "t3",
                "speaker": "ann",
                "text": "My brother Max lives in Lisbon now.",
                "time": "2024-02-03",
            },
            {
                "conversation": "c2",
                "session": "s1",
                "turn": "t1",
                "speaker": "bo",
                "text": "I am training for the Berlin marathon.",
            },
        ],
    )
    questions = write_jsonl(
        tmp_path / "questions.jsonl",
        [
            {
                "id": "q1",
                "conversation": "c1",
                "user": "ann",
                "query": "What is my dog called?",
                "gold_turns": ["t1"],
                "answer": "Rocket",
                "group": "pets",
            },
            {
                "id": "q2",
                "conversation": "c1",
                "user": "ann",
                "query": "Where does Max live?",
                "gold_sessions": ["s2"],
                "answer": "Lisbon",
                "group": "family",
            },
            {
                "id": "q3",
                "conversation": "c2",
                "user": "bo",
                "query": "Which marathon?",
                "gold_turns": ["t1"],
                "group": "sport",
            },
        ],
    )
    memories = write_jsonl(
        tmp_path / "memories.jsonl",
        [
            {"conversation": "c1", "text": "Ann has a greyhound named Rocket.", "turns": ["t1"]},
            {"conversation": "c1", "text": "Ann's brother Max lives in Lisbon.", "turn": "t3"},
            {"conversation": "c2", "text": "Bo trains for the Berlin marathon.", "turns": ["t1"]},
        ],
    )
    return history, questions, memories


def test_recall_both_levels(cli_env, tmp_path: Path, generic) -> None:
    history, questions, memories = generic
    args = [
        "recall",
        "--history",
        str(history),
        "--questions",
        str(questions),
        "--methods",
        "dense,full,context",
        "--k",
        "1,5",
    ]
    conv = run(tmp_path, "conv", *args)
    mem = run(tmp_path, "mem", *args, "--memories", str(memories))
    assert (conv["level"], mem["level"]) == ("conversation", "memory")
    for results in (conv, mem):
        full = results["methods"]["full"]
        assert full["recall"] == {"1": 1.0, "5": 1.0}
        assert full["n"] == 3 and set(full["by_group"]) == {"pets", "family", "sport"}
        # answer_recall only counts questions with an answer (q1, q2)
        assert full["by_group"]["sport"]["answer_recall"] == {"1": None, "5": None}
    assert mem["methods"]["full"]["answer_recall"] == {"1": 1.0, "5": 1.0}
    assert mem["stores"]["n"] == 2


def test_inmind_memory_level_with_answers(
    cli_env, tmp_path: Path, background: Path, inmind_tasks: Path
) -> None:
    cli_env.default = "Try ibuprofen; also avoid nuts."
    results = run(
        tmp_path,
        "inmind",
        "inmind",
        "--tasks",
        str(inmind_tasks),
        "--background",
        str(background),
        "--methods",
        "bm25,full",
        "--k",
        "2,4",
        "--answer",
    )
    full = results["methods"]["full"]
    assert full["n"] == 3 and full["negatives"]["n"] == 1
    assert full["negatives"]["shown"] == {"2": 1.0, "4": 1.0}
    assert full["target_recall"] == {"2": 1.0, "4": 1.0}
    # "nut" is an expect_any stem of every task here: lexical application is 1.0
    assert full["application_lexical"] == {"2": 1.0, "4": 1.0}
    assert results["controls"]["in_context"] == {"n": 3, "in_context_lexical": 1.0}
    assert set(full["by_group"]) == {"health", "other"}
    # tasks alternate between the two conversations; the user is each one's speaker_a
    prompts = [c["messages"][0]["content"] for c in cli_env.calls]
    assert any("Dan takes warfarin" in p or "Dan is allergic" in p for p in prompts)


def test_inmind_conversation_level_multi_inject(
    cli_env, tmp_path: Path, background: Path, inmind_tasks: Path
) -> None:
    results = run(
        tmp_path,
        "conv",
        "inmind",
        "--tasks",
        str(inmind_tasks),
        "--background",
        str(background),
        "--level",
        "conversation",
        "--inject-per-run",
        "2",
        "--distractors",
        "1",
        "--methods",
        "dense,full",
        "--conversations",
        "1",
    )
    assert results["stores"]["n"] == 2  # 4 tasks, 2 per run, one conversation
    assert results["methods"]["full"]["target_recall"] == {"30": 1.0}
    assert results["config"]["bench"]["distractors"] == 1


def test_imlogic_mcq(cli_env, tmp_path: Path, background: Path, imlogic_items: Path) -> None:
    results = run(
        tmp_path,
        "iml",
        "imlogic",
        "--items",
        str(imlogic_items),
        "--background",
        str(background),
        "--methods",
        "dense,full",
        "--k",
        "5",
        "--mcq",
        "--seed",
        "3",
    )
    full = results["methods"]["full"]
    assert full["recall_ml"] == {"5": 1.0} and full["recall_ms"] == {"5": 1.0}
    assert full["outcomes"]["5"] == {"both": 1.0, "ms_only": 0.0, "ml_only": 0.0, "neither": 0.0}
    # the fake LLM always answers "A": the outcome is the option shuffled to A
    items = read_jsonl(imlogic_items)
    firsts = [ans.shuffled_options(i["options"], 3, i["id"])[0][0] for i in items]
    assert full["mcq_accuracy"]["5"] == round(firsts.count("correct") / 3, 4)
    traps = full["trap_rates"]["5"]
    assert traps["preference"] == round(firsts.count("preference_trap") / 3, 4)
    assert sum(traps.values()) + full["mcq_accuracy"]["5"] == pytest.approx(1.0, abs=1e-3)
    assert full["mcq_by_outcome"]["5"]["both"]["n"] == 3
    assert (tmp_path / "iml" / "trap_rates.png").exists()


def test_imlogic_conversation_level(
    cli_env, tmp_path: Path, background: Path, imlogic_items: Path
) -> None:
    results = run(
        tmp_path,
        "imc",
        "imlogic",
        "--items",
        str(imlogic_items),
        "--background",
        str(background),
        "--level",
        "conversation",
        "--methods",
        "full,context",
    )
    assert results["methods"]["full"]["recall_ml"] == {"30": 1.0}


@pytest.mark.parametrize("level", ["memory", "conversation"])
def test_locomo(cli_env, tmp_path: Path, background: Path, level: str) -> None:
    cli_env.default = "Carla"
    base = [
        "locomo",
        "--data",
        str(background),
        "--level",
        level,
        "--methods",
        "dense,full",
        "--k",
        "1,3",
    ]
    results = run(tmp_path, level, *base, "--qa")
    full = results["methods"]["full"]
    assert full["n"] == 4  # 2 answerable questions x 2 conversations; category 5 left out
    assert full["evidence_recall"] == {"1": 1.0, "3": 1.0}
    assert set(full["by_group"]) == {"1", "4"}
    assert full["by_group"]["1"]["f1"]["3"] == 1.0  # "Carla" is the answer to category 1
    with_adv = run(tmp_path, level + "-adv", *base, "--include-adversarial")
    assert with_adv["methods"]["full"]["n"] == 6


def test_results_are_deterministic(
    cli_env, tmp_path: Path, background: Path, imlogic_items: Path
) -> None:
    args = [
        "imlogic",
        "--items",
        str(imlogic_items),
        "--background",
        str(background),
        "--methods",
        "bm25,dense,hybrid,full,context",
        "--k",
        "1,3",
        "--distractors",
        "2",
    ]

    def stable(results: dict[str, Any]) -> dict[str, Any]:
        results = {k: v for k, v in results.items() if k not in ("elapsed_s", "command")}
        for block in results["methods"].values():
            block.pop("latency_ms")
        return results

    assert stable(run(tmp_path, "a", *args)) == stable(run(tmp_path, "b", *args))


def test_json_summary(cli_env, tmp_path: Path, background: Path, capsys) -> None:
    assert (
        main(
            [
                "locomo",
                "--data",
                str(background),
                "--methods",
                "bm25",
                "--json",
                "--quiet",
                "--no-plots",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["methods"]["bm25"]["evidence_recall"].keys() == {"10", "30"}
    assert "by_group" not in summary["methods"]["bm25"]


def test_malformed_jsonl_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1}\n{not json}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2 is not valid JSON"):
        read_jsonl(path)
    path.write_text('{"id": 1}\n\n{"x": 2}\n')
    with pytest.raises(InputError, match=r"bad.jsonl:3 is missing field\(s\) id"):
        read_jsonl(path, ("id",))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--methods", "nope"], "unknown method"),
        (["--k", "ten"], "--k takes"),
        (["--conversations", "99"], "no conversation 99"),
        (["--judge", "gpt-x"], "--judge grades answers"),
        (["--inject-per-run", "0"], "--inject-per-run must be"),
    ],
)
def test_bad_input_exits_2(
    cli_env,
    tmp_path: Path,
    background: Path,
    inmind_tasks: Path,
    capsys,
    args: list[str],
    message: str,
) -> None:
    code = main(
        [
            "inmind",
            "--tasks",
            str(inmind_tasks),
            "--background",
            str(background),
            "--out",
            str(tmp_path / "o"),
            "--quiet",
            *args,
        ]
    )
    assert code == 2
    assert message in capsys.readouterr().err


def test_missing_file_exits_2(cli_env, tmp_path: Path, background: Path, capsys) -> None:
    code = main(
        [
            "imlogic",
            "--items",
            str(tmp_path / "none.jsonl"),
            "--background",
            str(background),
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ]
    )
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_generic_path_reproduces_locomo(cli_env, tmp_path: Path, background: Path) -> None:
    from logicmem.bench.convert import convert

    counts = convert(background, tmp_path / "generic")
    assert counts == {"history": 24, "questions": 4, "memories": 24}
    common = ["--methods", "bm25,dense", "--k", "1,2"]
    locomo = run(tmp_path, "locomo", "locomo", "--data", str(background), *common)
    generic = run(
        tmp_path,
        "generic",
        "recall",
        "--history",
        str(tmp_path / "generic" / "history.jsonl"),
        "--questions",
        str(tmp_path / "generic" / "questions.jsonl"),
        "--memories",
        str(tmp_path / "generic" / "memories.jsonl"),
        *common,
    )
    for method in ("bm25", "dense"):
        assert generic["methods"][method]["recall"] == locomo["methods"][method]["evidence_recall"]


@pytest.fixture
def fake_judge(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``--judge`` builds an OpenAI-compatible client; here a fake that says yes."""
    from kit import FakeLLM

    from logicmem.models.llm.base import LLMS

    judge = FakeLLM()
    judge.default = "1"
    monkeypatch.setitem(LLMS._entries, "openai", lambda settings: judge)
    monkeypatch.setenv("LOGICMEM_JUDGE_BASE_URL", "http://judge.invalid/v1")
    return judge


def test_judged_application_and_qa(
    cli_env, fake_judge, tmp_path: Path, background: Path, inmind_tasks: Path
) -> None:
    results = run(
        tmp_path,
        "inm",
        "inmind",
        "--tasks",
        str(inmind_tasks),
        "--background",
        str(background),
        "--methods",
        "dense",
        "--k",
        "3",
        "--answer",
        "--judge",
        "m",
    )
    assert results["methods"]["dense"]["application_judge"] == {"3": 1.0}
    assert results["controls"]["in_context"]["in_context_judge"] == 1.0
    prompt = fake_judge.calls[0]["messages"][1]["content"]
    assert "Explanation (what a correct answer must reflect): b" in prompt
    fake_judge.default = "WRONG"
    results = run(
        tmp_path,
        "loc",
        "locomo",
        "--data",
        str(background),
        "--methods",
        "dense",
        "--qa",
        "--judge",
        "m",
    )
    assert results["methods"]["dense"]["judge_accuracy"] == {"10": 0.0, "30": 0.0}


def test_context_uses_every_enabled_route(
    cli_env, tmp_path: Path, generic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGICMEM_VISIBILITY_ENABLED", "true")
    history, questions, _ = generic
    results = run(
        tmp_path,
        "ctx",
        "recall",
        "--history",
        str(history),
        "--questions",
        str(questions),
        "--methods",
        "context",
        "--k",
        "5",
    )
    assert results["config"]["settings"]["visibility"]["enabled"] is True
    assert results["methods"]["context"]["n"] == 3


def _inmind_run(out: Path, tasks: Path, background: Path, *args: str) -> dict[str, Any]:
    """An InMind-style run at k = 2 without plots or cache; its results.json."""
    base = ["inmind", "--tasks", str(tasks), "--background", str(background)]
    common = ["--k", "2", "--no-plots", "--quiet", "--no-cache"]
    assert main([*base, *common, *args, "--out", str(out)]) == 0
    return dict(json.loads((out / "results.json").read_text()))


def test_half_age_and_negatives_shown_are_recorded(
    cli_env, tmp_path: Path, background: Path, inmind_halves: Path
) -> None:
    def results(name: str, *args: str) -> dict[str, Any]:
        return _inmind_run(tmp_path / name, inmind_halves, background, "--methods", "full", *args)

    a = results("a", "--half", "A", "--distractors", "2", "--distractor-age", "older")
    b = results("b", "--half", "B", "--distractors", "2")
    assert (a["config"]["bench"]["half"], a["config"]["bench"]["distractor_age"]) == ("A", "older")
    assert (b["config"]["bench"]["half"], b["config"]["bench"]["distractor_age"]) == ("B", "random")
    assert a["data"]["n"] + b["data"]["n"] == 10
    for run in (a, b):
        negatives = run["methods"]["full"]["negatives"]
        assert negatives["n"] == 2
        # "full" puts every memory in context: the irrelevant fact is always shown
        assert negatives["shown"] == negatives["target_recall"] == {"2": 1.0}
    text = (tmp_path / "b" / "report.md").read_text()
    assert "negatives shown @2" in text and "- options: half B, distractors 2 (random age)" in text


def test_opaque_user_ids_store_and_ask_under_the_same_id(
    cli_env, tmp_path: Path, background: Path, inmind_halves: Path
) -> None:
    """--user-ids opaque: the turns keep the user's name, the store files them under an
    account-style id, and every probe asks under that id (a probe asked under the name
    would find nothing)."""

    def results(name: str, *args: str) -> dict[str, Any]:
        methods = ("--methods", "full,dense")
        return _inmind_run(tmp_path / name, inmind_halves, background, *methods, *args)

    named, opaque = results("named"), results("opaque", "--user-ids", "opaque")
    assert (named["config"]["bench"]["user_ids"], opaque["config"]["bench"]["user_ids"]) == (
        "name",
        "opaque",
    )
    for method in ("full", "dense"):
        assert (
            opaque["methods"][method]["target_recall"] == named["methods"][method]["target_recall"]
        )
    assert opaque["methods"]["full"]["target_recall"]["2"] > 0
    assert "- options: opaque user ids" in (tmp_path / "opaque" / "report.md").read_text()
    assert "opaque user ids" not in (tmp_path / "named" / "report.md").read_text()


@pytest.mark.parametrize(
    "benchmark",
    [
        ["inmind", "--tasks", "{tasks}", "--background", "{bg}"],
        ["imlogic", "--items", "{items}", "--background", "{bg}"],
        ["locomo", "--data", "{bg}"],
        ["recall", "--history", "{tasks}", "--questions", "{tasks}"],
    ],
)
def test_missing_matplotlib_fails_before_any_work(
    cli_env,
    tmp_path: Path,
    background: Path,
    inmind_tasks: Path,
    imlogic_items: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
    benchmark: list[str],
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real(name, *a),
    )
    paths = {"{tasks}": inmind_tasks, "{items}": imlogic_items, "{bg}": background}
    args = [str(paths.get(a, a)) for a in benchmark]
    out = tmp_path / "o"
    assert main([*args, "--out", str(out), "--quiet", "--methods", "bm25"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'logicmem[bench]'" in err and "--no-plots" in err
    assert not out.exists()
    if benchmark[0] == "locomo":  # without plots the same run goes ahead
        assert main([*args, "--out", str(out), "--quiet", "--methods", "bm25", "--no-plots"]) == 0
