"""Personal logic in the anticipation knowledge resource (``personal_logic.jsonl``): a
user's values ("rather have a short commute"), goals ("paying off the car before anything
else") and the reasons behind past decisions ("never book the last flight of the day").

Fast checks: the entries' schema, that each fact pattern states its own entry, and the
authored example sentences (``personal_logic_examples.json``). Slow checks, with the real
embedder: a memory of personal logic comes into view (route ``visible``) for a later
request on the same theme that shares no content word with it, and stays out of view for
an unrelated request. The statements and requests below were written for this test; none
is copied from the resource or the examples.
"""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from test_anticipation_kb import ALLOWED_DOMAINS
from test_anticipation_kb import LIST_FIELDS as SCHEMA_LISTS
from test_anticipation_kb import STRING_FIELDS as SCHEMA_STRINGS

from logicmem import Memory
from logicmem.routes.visible.kb import load_kb

TYPES = {"value", "goal", "reason"}
# The resource's schema, as the resource-wide test states it.
DOMAINS, STRING_FIELDS, LIST_FIELDS = ALLOWED_DOMAINS, SCHEMA_STRINGS, SCHEMA_LISTS


def _kb_dir() -> Any:
    return files("logicmem.data") / "anticipation"


def _rows() -> list[dict[str, Any]]:
    text = (_kb_dir() / "personal_logic.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _examples() -> dict[str, Any]:
    path = files("logicmem.data") / "personal_logic_examples.json"
    result: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return result


ROWS = _rows()
IDS = [row["id"] for row in ROWS]


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_entry_is_well_formed(row: dict[str, Any]) -> None:
    where = row.get("id")
    for name in STRING_FIELDS:
        assert isinstance(row.get(name), str) and row[name].strip(), f"{where}: {name}"
    for name in LIST_FIELDS:
        value = row.get(name)
        assert isinstance(value, list), f"{where}: {name} must be a list"
        assert all(isinstance(v, str) and v == v.strip().lower() and v for v in value), (
            f"{where}: {name} must hold trimmed lowercase strings"
        )
        assert len(set(value)) == len(value), f"{where}: {name} has duplicates"
    assert row["type"] in TYPES, f"{where}: type {row['type']!r}"
    assert row["domain"] in DOMAINS, f"{where}: domain {row['domain']!r}"
    assert row["id"].startswith(f"{row['type']}-"), f"{where}: id should start with its type"
    assert 8 <= len(row["fact_patterns"]) <= 15, f"{where}: fact_patterns"
    assert 20 <= len(row["situations"]) <= 40, f"{where}: situations"
    assert all(len(s.split()) <= 4 for s in row["situations"]), f"{where}: long situation"
    assert "no benchmark" in row["source"], f"{where}: source should say how it was written"


def test_types_are_balanced() -> None:
    counts = {t: sum(row["type"] == t for row in ROWS) for t in TYPES}
    assert all(12 <= n <= 18 for n in counts.values()), counts


def test_ids_are_unique_across_the_resource() -> None:
    kb = load_kb()
    lines = 0
    for item in _kb_dir().iterdir():
        if item.name.endswith(".jsonl"):
            text = item.read_text(encoding="utf-8")
            lines += sum(1 for line in text.splitlines() if line.strip())
    assert len(kb) == lines, "an id is used twice across the resource's files"
    for entry_id in IDS:
        assert kb.entries[entry_id].type in TYPES


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_fact_patterns_state_their_entry(row: dict[str, Any]) -> None:
    kb = load_kb()
    for pattern in row["fact_patterns"]:
        said = pattern if re.match(r"(i|i'm|i'd|my|our|we|we're)\b", pattern) else f"i {pattern}"
        found = {e.id for e, _ in kb.match_facts(pattern)} | {e.id for e, _ in kb.match_facts(said)}
        assert row["id"] in found, f"{row['id']}: {pattern!r} does not state its entry"


def test_examples_are_well_formed() -> None:
    examples = _examples()
    critical = examples["critical"]
    assert set(critical) == TYPES
    for ctype, sentences in critical.items():
        assert len(sentences) >= 50, ctype
        assert sum("Sam" in s for s in sentences) >= len(sentences) // 4, ctype
    ordinary = examples["ordinary"]
    assert len(ordinary) >= 100
    every = [s for sentences in critical.values() for s in sentences] + ordinary
    assert len(set(every)) == len(every), "a sentence is listed twice"
    assert all(s.strip() == s and s[-1] in ".!?" for s in every)
    stated = {s for sentences in critical.values() for s in sentences}
    for entry_id, sentences in examples.get("links", {}).items():
        assert entry_id in IDS, entry_id
        assert set(sentences) <= stated, entry_id


def test_ordinary_examples_state_no_personal_logic() -> None:
    kb = load_kb()
    mine = set(IDS)
    for sentence in _examples()["ordinary"]:
        found = [e.id for e, _ in kb.match_facts(sentence) if e.id in mine]
        assert not found, f"{sentence!r} states {found}"


# (statement said by the user, a later request on its theme, an unrelated request)
CASES = {
    "value-commute": (
        "I'd take a shorter commute over a bigger paycheck any day.",
        "Should I accept the relocation package they offered me in Denver?",
        "What's a good recipe for banana bread?",
    ),
    "value-privacy": (
        "I really value my privacy and hate companies collecting information about me.",
        "Which smart speaker should I get for the kitchen?",
        "What's a fun board game for four players?",
    ),
    "goal-debt": (
        "I'm paying off my car loan before I spend money on anything else.",
        "What should I do with my work bonus this year?",
        "How do I get red wine out of a carpet?",
    ),
    "goal-parks": (
        "I'm trying to visit every national park in the country.",
        "Where should we go for our honeymoon?",
        "How do I descale a kettle?",
    ),
    "reason-connection": (
        "I never book the evening's final flight since a missed connection stranded me "
        "overnight in Atlanta.",
        "Can you help me choose between these two itineraries to Lisbon?",
        "Give me a stretching routine for my lower back.",
    ),
    "reason-contractor": (
        "I always get three written quotes now, since a contractor took our deposit and vanished.",
        "Any advice on replacing the roof this summer?",
        "How long should I boil an egg?",
    ),
}
_STOPWORDS = (
    "a an the and or but so of to in on at for with from by about into over than then this "
    "that these those it its is are was were be been am do does did have has had i i'm i'd "
    "me my we our us you your they their he she what which who how where when why should "
    "could would can will any some every each now since before after there here just really "
    "not no never always anything something get got take made make"
)
_STOP = frozenset(_STOPWORDS.split())


def _content(text: str) -> set[str]:
    words = re.findall(r"[a-z']+", text.lower())
    return {w.removesuffix("'s").rstrip("s") for w in words if w not in _STOP and len(w) > 2}


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_requests_share_no_content_word(case: tuple[str, str, str]) -> None:
    statement, ask, _ = case
    assert not _content(statement) & _content(ask), _content(statement) & _content(ask)


def _visible(mem: Memory, query: str) -> list[str]:
    context = mem.context(query, user_id="sam", k=10)
    return [item.text for item in context.items if item.route == "visible"]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_personal_logic_comes_into_view_by_theme(
    case: tuple[str, str, str],
    tmp_path: Path,
    model_cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    statement, ask, unrelated = case
    with Memory(tmp_path / "sam.db", config={"llm": {"provider": "none"}}) as mem:
        mem.add(statement, user_id="sam", infer=False)
        assert _visible(mem, ask) == [statement], f"not in view for {ask!r}"
        assert _visible(mem, unrelated) == [], f"in view for the unrelated {unrelated!r}"
