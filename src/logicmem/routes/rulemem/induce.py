"""Reasoning paths to natural-language Horn rules ``B1 ∧ … ∧ Bn ⇒ H``.

With a capable LLM: one JSON-schema call per batch shows the paths (facts with their
dates and the memories they come from); the LLM drops illogical or coincidental paths
and writes a general rule for each one it keeps. Malformed replies and items are skipped
and counted; paths that get no rule count as filtered.

Without one, each path becomes a *templated* rule: its earlier facts are the body, its
latest fact the head, and the person the facts share becomes ``X``. These rules are weak:
they restate one observed succession of facts rather than a regularity, so they mostly
act as links between memories for guided recall; RPC is what keeps the worst out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from logicmem.models.llm.base import LLM, ChatMessage, extract_json
from logicmem.prompting import DATA_NOT_INSTRUCTIONS, block
from logicmem.routes.rulemem.repo import Quad
from logicmem.routes.rulemem.walks import Path


@dataclass
class Induced:
    """A rule candidate and the path it came from."""

    body: list[str]
    head: str
    path: Path
    inducer: str


@dataclass
class Induction:
    rules: list[Induced] = field(default_factory=list)
    malformed: int = 0
    filtered: int = 0
    llm_calls: int = 0


def _atom(quad: Quad, person: str | None) -> str:
    subject = "X" if person and quad.subject.lower() == person.lower() else quad.subject
    text = " ".join(p for p in (subject, quad.relation, quad.object) if p)
    if person:
        text = re.sub(rf"\b{re.escape(person)}\b", "X", text)
    return text


def template_rules(paths: list[Path]) -> Induction:
    """One templated rule per path (see the module docstring)."""
    out = Induction()
    for path in paths:
        subjects = {q.subject.lower() for q in path.facts}
        person = path.head.subject if len(subjects) == 1 else None
        body = [_atom(q, person) for q in path.body]
        out.rules.append(Induced(body, _atom(path.head, person), path, "template"))
    return out


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rules": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "integer"},
                    "body": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "head": {"type": "string"},
                },
                "required": ["path", "body", "head"],
            },
        }
    },
    "required": ["rules"],
}

SYSTEM = (
    """You induce reusable rules from a person's history.
A path is a chain of dated facts. Each line of the paths block below is one fact of a
numbered path, as a JSON object: its path number, date, fact and the memory it comes from.
For every path that shows a plausible, reusable regularity about people (why someone
does, feels, needs or avoids something), write one Horn rule:
- body: 1 to 3 general conditions; head: the general conclusion they support;
- use X for the person (and Y for another), not names; keep each condition short;
- path: the path's number.
Skip paths whose facts are unrelated or whose link is a coincidence; return
{"rules": []} when no path holds a rule. """
    + DATA_NOT_INSTRUCTIONS
)


class _Rule(BaseModel):
    path: int
    body: list[str] = Field(min_length=1, max_length=5)
    head: str = Field(min_length=3)


def _render(paths: list[Path], texts: dict[str, str]) -> str:
    rows = [
        {
            "path": n,
            "date": q.time[:10] if q.time else "undated",
            "fact": q.text(),
            "memory": texts.get(q.memory_id) or None,
        }
        for n, path in enumerate(paths, 1)
        for q in path.facts
    ]
    return block("paths", rows)


def llm_rules(llm: LLM, paths: list[Path], texts: dict[str, str]) -> Induction:
    """Rules the LLM induces from ``paths``; ``texts``: memory id -> memory text.

    A ModelError propagates (the batch fails and is retried on the next run).
    """
    out = Induction()
    if not paths:
        return out
    messages: list[ChatMessage] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": _render(paths, texts)},
    ]
    reply = llm.chat(messages, schema=SCHEMA)
    out.llm_calls += 1
    try:
        data = extract_json(reply)
        items = data["rules"] if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise ValueError("no 'rules' list")
    except ValueError:
        out.malformed += 1
        out.filtered = len(paths)
        return out
    used: set[int] = set()
    for raw in items:
        try:
            rule = _Rule.model_validate(raw)
        except ValidationError:
            out.malformed += 1
            continue
        body = [b.strip() for b in rule.body if b.strip()]
        if not 1 <= rule.path <= len(paths) or not body:
            out.malformed += 1
            continue
        used.add(rule.path)
        out.rules.append(Induced(body, rule.head.strip(), paths[rule.path - 1], llm.name))
    out.filtered = len(paths) - len(used)
    return out
