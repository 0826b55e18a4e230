"""Schema checks for the packaged anticipation knowledge base (logicmem/data/anticipation)."""

from __future__ import annotations

import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

import pytest

from logicmem.routes.visible.kb import cased_words

ALLOWED_TYPES = {
    "allergy",
    "intolerance",
    "medication",
    "condition",
    "pregnancy",
    "breastfeeding",
    "pet",
    "child",
    "dependant",
    "diet",
    "religion",
    "disability",
    "sensory",
    "mobility",
    "recovery",
    "mental_health",
    "legal_status",
    "immigration",
    "occupation",
    "financial",
    "housing",
    "vehicle",
    "injury",
    "fitness",
    "sleep",
    "age",
    "plan",
    "goal",
    "role",
    "environment",
    "resource",
    "value",
    "reason",
    "other",
}
ALLOWED_DOMAINS = {
    "health",
    "food",
    "family",
    "pets",
    "legal",
    "work",
    "money",
    "home",
    "travel",
    "mobility",
    "other",
}
STRING_FIELDS = ("id", "type", "domain", "why", "advice", "source")
LIST_FIELDS = ("fact_patterns", "situations")
MIN_PATTERNS = 5
MIN_SITUATIONS = 20


def _kb_dir() -> Traversable:
    return files("logicmem.data") / "anticipation"


def _jsonl_files() -> list[Traversable]:
    return sorted(
        (f for f in _kb_dir().iterdir() if f.is_file() and f.name.endswith(".jsonl")),
        key=lambda f: f.name,
    )


def _load(f: Traversable) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for lineno, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:  # pragma: no cover - failure path
            pytest.fail(f"{f.name}:{lineno}: invalid JSON: {exc}")
        assert isinstance(obj, dict), f"{f.name}:{lineno}: line is not a JSON object"
        rows.append((lineno, obj))
    return rows


FILES = _jsonl_files()


def test_knowledge_base_is_packaged() -> None:
    assert (_kb_dir() / "__init__.py").is_file()
    assert len(FILES) >= 10, [f.name for f in FILES]


@pytest.mark.parametrize("f", FILES, ids=lambda f: f.name)
def test_entries_are_well_formed(f: Traversable) -> None:
    rows = _load(f)
    assert rows, f"{f.name} is empty"
    for lineno, obj in rows:
        where = f"{f.name}:{lineno} ({obj.get('id')})"
        for field in STRING_FIELDS:
            assert isinstance(obj.get(field), str), f"{where}: {field} must be a string"
            assert obj[field].strip(), f"{where}: {field} is empty"
        for field in LIST_FIELDS:
            value = obj.get(field)
            assert isinstance(value, list), f"{where}: {field} must be a list"
            assert all(isinstance(v, str) and v.strip() for v in value), (
                f"{where}: {field} must hold non-empty strings"
            )
            # lower case, but for a fact pattern's abbreviation that is also a word ("on ART")
            cased = field == "fact_patterns"
            uncased = [
                " ".join(w for w in v.split() if not (cased and cased_words(w))) for v in value
            ]
            assert all(v == v.lower() for v in uncased), f"{where}: {field} must be lowercase"
            assert all(v == v.strip() for v in value), f"{where}: {field} has padded strings"
            assert len(set(value)) == len(value), f"{where}: {field} has duplicates"
        assert obj["type"] in ALLOWED_TYPES, f"{where}: unknown type {obj['type']!r}"
        assert obj["domain"] in ALLOWED_DOMAINS, f"{where}: unknown domain {obj['domain']!r}"
        assert len(obj["fact_patterns"]) >= MIN_PATTERNS, f"{where}: too few fact_patterns"
        assert len(obj["situations"]) >= MIN_SITUATIONS, f"{where}: too few situations"


def test_ids_are_unique_across_files() -> None:
    seen: dict[str, str] = {}
    for f in FILES:
        for lineno, obj in _load(f):
            entry_id = obj["id"]
            assert entry_id not in seen, (
                f"duplicate id {entry_id!r} in {f.name}:{lineno} and {seen[entry_id]}"
            )
            seen[entry_id] = f"{f.name}:{lineno}"
    assert len(seen) >= 200
