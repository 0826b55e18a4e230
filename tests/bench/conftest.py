"""Tiny synthetic inputs in every bench format, written to a temp dir per test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kit import FakeLLM, HashEmbedder

from logicmem.bench.cache import CachingEmbedder
from logicmem.bench.engine import Engine
from logicmem.bench.methods import resolve
from logicmem.config import load_settings
from logicmem.models.llm.base import LLMS

DATES = [
    "1:56 pm on 8 May, 2023",
    "10:00 am on 1 June, 2023",
    "3:00 pm on 2 July, 2023",
    "9:30 am on 5 August, 2023",
]


def conversation(speaker_a: str = "Ann", speaker_b: str = "Bob") -> dict[str, Any]:
    """Four sessions of three turns, observations citing dia_ids, and three questions."""
    topics = [
        "hiking in the Alps",
        "baking sourdough bread",
        "painting with watercolors",
        "learning the cello",
    ]
    conv: dict[str, Any] = {"speaker_a": speaker_a, "speaker_b": speaker_b, "qa": []}
    for n, topic in enumerate(topics, 1):
        conv[f"session_{n}_date_time"] = DATES[n - 1]
        conv[f"session_{n}"] = [
            {"speaker": speaker_a, "dia_id": f"D{n}:1", "text": f"I have started {topic} lately."},
            {"speaker": speaker_b, "dia_id": f"D{n}:2", "text": f"Wow, {topic} sounds great!"},
            {
                "speaker": speaker_a,
                "dia_id": f"D{n}:3",
                "text": f"My sister Carla taught me {topic} last year.",
            },
        ]
        conv[f"session_{n}_observation"] = {
            speaker_a: [
                [f"{speaker_a} has started {topic}.", f"D{n}:1"],
                [f"{speaker_a}'s sister Carla taught her {topic}.", [f"D{n}:3"]],
            ],
            speaker_b: [[f"{speaker_b} thinks {topic} sounds great.", f"D{n}:2"]],
        }
    conv["qa"] = [
        {
            "question": "Who taught Ann baking sourdough bread?",
            "answer": "Carla",
            "evidence": ["D2:3"],
            "category": 1,
        },
        {
            "question": "What did Ann start in the Alps?",
            "answer": "hiking",
            "evidence": ["D1:1"],
            "category": 4,
        },
        {
            "question": "What did Bob think of painting?",
            "evidence": ["D3:2"],
            "category": 5,
            "adversarial_answer": "boring",
        },
    ]
    return conv


@pytest.fixture
def background(tmp_path: Path) -> Path:
    d = tmp_path / "locomo"
    d.mkdir()
    (d / "1.json").write_text(json.dumps(conversation("Ann", "Bob")))
    (d / "2.json").write_text(json.dumps(conversation("Dan", "Eve")))
    return d


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def inmind_tasks(tmp_path: Path) -> Path:
    rows = []
    for i, (fact, memory, query, kind) in enumerate(
        [
            (
                "I take warfarin for my heart.",
                "{user} takes warfarin.",
                "What pain pill for my back?",
                "positive",
            ),
            (
                "I am allergic to tree nuts.",
                "{user} is allergic to tree nuts.",
                "Give me a macaron recipe.",
                "positive",
            ),
            (
                "My cat is named Tom.",
                "{user} has a cat named Tom.",
                "Plan a lily bouquet.",
                "positive",
            ),
            (
                "I like jazz records.",
                "{user} likes jazz records.",
                "How do I fix a flat tire?",
                "negative",
            ),
        ]
    ):
        rows.append(
            {
                "id": f"t{i}",
                "kind": kind,
                "domain": "health" if i < 2 else "other",
                "fact": fact,
                "fact_memory": memory,
                "ack": "Noted, thanks.",
                "naive_query": f"What did I tell you: {fact}",
                "indirect_query": query,
                "bridge": "b",
                "expect_any": ["warfarin", "nut", "lily"],
            }
        )
    return write_jsonl(tmp_path / "inmind.jsonl", rows)


@pytest.fixture
def inmind_halves(tmp_path: Path) -> Path:
    """Six positives and four negatives whose ids fall in both halves, both kinds in each."""
    hobbies = ["knits", "rows", "paints", "sings", "bakes", "hikes", "swims", "draws", "runs"]
    rows = []
    for n, hobby in enumerate([*hobbies, "skates"]):
        kind = "positive" if n < 6 else "negative"
        rows.append(
            {
                "id": f"p{n}" if n < 6 else f"n{n - 6}",
                "kind": kind,
                "domain": "hobby",
                "fact": f"I {hobby.removesuffix('s')} every week.",
                "fact_memory": f"{{user}} {hobby} every week.",
                "ack": "Nice.",
                "naive_query": "What do I do every week?",
                "indirect_query": f"Plan my week around {n}.",
            }
        )
    return write_jsonl(tmp_path / "halves.jsonl", rows)


@pytest.fixture
def imlogic_items(tmp_path: Path) -> Path:
    rows = []
    for i, (ms, ml, query) in enumerate(
        [
            (
                "{user} wants to try street food in Bangkok.",
                "{user} takes immunosuppressants.",
                "Which street foods should I try in Bangkok?",
            ),
            (
                "{user} wants to start running.",
                "{user} has asthma triggered by cold air.",
                "Plan my first January runs.",
            ),
            (
                "{user} loves red wine.",
                "{user} is expecting a baby in March.",
                "Which wine for dinner tonight?",
            ),
        ]
    ):
        rows.append(
            {
                "id": f"i{i}",
                "category": "State Constraint" if i < 2 else "Others",
                "semantic_memory": ms,
                "logical_memory": ml,
                "semantic_utterance": ms.replace("{user} wants", "I want").replace("{user}", "I"),
                "logical_utterance": ml.replace("{user} has", "I have")
                .replace("{user} is", "I am")
                .replace("{user}", "I"),
                "query": query,
                "options": {
                    "correct": "right",
                    "preference_trap": "pref",
                    "fabrication_trap": "fab",
                    "generic_trap": "gen",
                },
            }
        )
    return write_jsonl(tmp_path / "imlogic.jsonl", rows)


@pytest.fixture
def settings():  # type: ignore[no-untyped-def]
    return load_settings(
        {
            "llm": {"provider": "none"},
            "embedder": {"provider": "hash"},
            "visibility": {"enabled": False},
        }
    )


@pytest.fixture
def make_engine(settings, tmp_path: Path) -> Callable[..., Engine]:  # type: ignore[no-untyped-def]
    def make(
        methods: str = "bm25,dense,hybrid,full,context", ks: tuple[int, ...] = (1, 3), **kw: Any
    ) -> Engine:
        embedder = CachingEmbedder(HashEmbedder())
        return Engine(
            settings, embedder, resolve(methods.split(",")), list(ks), progress=False, **kw
        )

    return make


@pytest.fixture
def fake_mcq_llm() -> FakeLLM:
    llm = FakeLLM()
    llm.default = "A"
    return llm


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, fake_mcq_llm: FakeLLM) -> FakeLLM:
    """The CLI with the hash embedder and a fake LLM that always answers "A"."""
    monkeypatch.setenv("LOGICMEM_EMBEDDER", "hash")
    monkeypatch.setenv("LOGICMEM_LLM", "fakebench")
    # The visibility indexer costs seconds per store; one test turns it back on.
    monkeypatch.setenv("LOGICMEM_VISIBILITY_ENABLED", "false")
    LLMS.register("fakebench", lambda settings: fake_mcq_llm)
    yield fake_mcq_llm
    LLMS.unregister("fakebench")
