"""Memories to temporal quadruples (subject, relation, object, time).

With a capable LLM, one JSON-schema call per batch reads them; a malformed reply or item
is skipped and counted. Any memory left without a quadruple (no capable LLM, or the LLM
returned nothing usable: the 135M model answers with empty lists) goes through the
rule-based reader below, so the offline path still yields a graph. It parses the
third-person memory text: clauses (split at ``;``, ``, so``, ``, but``, ``because`` and at
an ``and`` that starts a new verb phrase), subject = the memory's person when a clause
starts with it, else the words before the first verb; relation = the verb phrase
(adverbs, auxiliaries, the verb, and ``to`` + verb); object = the rest; time = the
memory's ``said_at``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from logicmem.models.llm.base import LLM, ChatMessage, extract_json
from logicmem.prompting import DATA_NOT_INSTRUCTIONS, block
from logicmem.routes.rulemem.repo import Quad
from logicmem.types import MemoryEntry
from logicmem.write.rules import reported


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


AUX = _set(
    "is are was were am be been being has have had does did do will would can could "
    "should may might must shall"
)
ADVERBS = _set(
    "also still just really currently recently often always never usually already even "
    "now sometimes finally not actually"
)
IRREGULAR = _set(
    "went got made took gave found felt saw thought knew said told met ran began bought "
    "brought built came did drew ate fell flew forgot grew heard held kept left lost meant "
    "paid put read rode sang sat sent shared slept spent stood swam taught threw understood "
    "won wrote became chose drove spoke"
)
VERBS_3RD = _set(
    "loves likes enjoys wants plans finds feels works lives thinks hopes needs keeps goes "
    "takes makes gets says believes prefers attends volunteers runs reads writes paints "
    "plays owns uses considers tries struggles misses teaches studies visits dreams values "
    "recommends shares describes mentions appreciates practices collects cooks bakes cares "
    "speaks knows sees hates avoids suffers wishes learns helps supports celebrates "
    "organizes joins creates gives has is was"
)
DETERMINERS = _set("a an the his her their its my our your this that these those")
PRONOUNS = _set("she he they it")
_HINT = re.compile(r"\s*\([^()]*=[^()]*\)\s*\.?\s*$")  # "(yesterday = 7 May 2023)" date hints
_SPLIT = re.compile(r";|,\s*(?:so|but|while|which)\s+|\s+because\s+|\.\s+")


@dataclass
class Extracted:
    """Quadruples of a batch and how they were read."""

    quads: list[Quad] = field(default_factory=list)
    by_llm: int = 0
    by_rules: int = 0
    malformed: int = 0
    llm_calls: int = 0


def _words(text: str) -> list[str]:
    return text.split()


def _bare(word: str) -> str:
    return re.sub(r"[^\w'-]", "", word).lower()


def verbish(word: str) -> bool:
    """Whether a word may start a verb phrase (cheap: lists and the -ed ending)."""
    w = _bare(word)
    if not w:
        return False
    return (
        w in AUX or w in IRREGULAR or w in VERBS_3RD or (w.endswith("ed") and len(w) > 4)
    ) and w not in DETERMINERS


def _clauses(text: str) -> list[str]:
    out = []
    for part in _SPLIT.split(text):
        words = _words(part)
        start = 0
        for i, w in enumerate(words):
            # "and" starts a new clause only when a verb phrase follows it.
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if w.lower() == "and" and i > start and (verbish(nxt) or _bare(nxt) in ADVERBS):
                out.append(" ".join(words[start:i]))
                start = i + 1
        out.append(" ".join(words[start:]))
    return [c.strip(" ,.!") for c in out if c.strip(" ,.!")]


def _verb_phrase(words: list[str], i: int) -> int:
    """End index (exclusive) of the verb phrase starting at ``words[i]``."""
    j = i
    while j < len(words) and _bare(words[j]) in ADVERBS:
        j += 1
    if j < len(words) and _bare(words[j]) in AUX:
        j += 1
        while j < len(words) and (_bare(words[j]) in AUX or _bare(words[j]) in ADVERBS):
            j += 1
        nxt = _bare(words[j]) if j < len(words) else ""
        # "is going swimming", "has made"; a last "-ing" word is an adjective ("was amazing")
        participle = nxt.endswith(("ed", "en")) or nxt in IRREGULAR
        if participle or (nxt.endswith("ing") and j + 1 < len(words)):
            j += 1
    elif j < len(words):
        j += 1
    # "plans to visit": keep the infinitive; "went to the beach": "to" starts the object.
    if (
        j + 1 < len(words)
        and _bare(words[j]) == "to"
        and _bare(words[j + 1]) not in DETERMINERS
        and not words[j + 1][:1].isupper()
    ):
        j += 2
    return j


def _clause_quad(clause: str, owner: str, previous: str) -> tuple[str, str, str] | None:
    words = _words(clause)
    if not words:
        return None
    low = clause.lower()
    if low.startswith(owner.lower() + " ") and owner:
        subject, i = owner, len(_words(owner))
    elif _bare(words[0]) in PRONOUNS:
        subject, i = previous or owner, 1
    elif verbish(words[0]) or _bare(words[0]) in ADVERBS:
        subject, i = previous or owner, 0  # the subject was in the previous clause
    else:
        found = next((j for j in range(1, min(len(words), 8)) if verbish(words[j])), None)
        if found is None:
            return (owner, "mentioned", clause) if owner else None
        subject, i = " ".join(words[:found]), found
    end = _verb_phrase(words, i)
    relation = " ".join(words[i:end])
    obj = " ".join(words[end:]).strip(" ,.")
    if not relation:
        return None
    return subject.strip(" ,"), relation, obj


def rule_quads(memory: MemoryEntry) -> list[Quad]:
    """Quadruples read from a memory's text without any model."""
    owner = str(memory.metadata.get("subject") or memory.user_id)
    text = _HINT.sub("", memory.text.strip())
    said = reported(text)
    if said:
        owner, text = said
    out: list[Quad] = []
    previous = ""
    for clause in _clauses(text):
        parsed = _clause_quad(clause, owner, previous)
        if parsed is None:
            continue
        subject, relation, obj = parsed
        previous = subject
        out.append(
            Quad(f"{memory.id}#{len(out)}", memory.id, subject, relation, obj, memory.said_at)
        )
    return out


# -- with a capable LLM ---------------------------------------------------------------------
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "memory": {"type": "string"},
                    "subject": {"type": "string"},
                    "relation": {"type": "string"},
                    "object": {"type": "string"},
                    "time": {"type": ["string", "null"]},
                },
                "required": ["memory", "subject", "relation", "object"],
            },
        }
    },
    "required": ["facts"],
}

SYSTEM = (
    """You turn memories about people into temporal facts (quadruples).
The memories are the lines of the memories block, one JSON object each with its label,
its date and its text. For each memory, write its facts as (subject, relation, object, time):
- subject and object: short entity names (a person, place, thing, activity), not clauses;
- relation: a short verb phrase; time: an ISO date when the memory dates the fact, else
  the memory's date, else null;
- memory: the memory's label exactly as shown (m1, m2...).
Use several facts for a memory that says several things. """
    + DATA_NOT_INSTRUCTIONS
)


class _Fact(BaseModel):
    memory: str
    subject: str = Field(min_length=1)
    relation: str = Field(min_length=1)
    object: str = Field(min_length=1)
    time: str | None = None


def llm_quads(llm: LLM, memories: list[MemoryEntry], out: Extracted) -> set[str]:
    """Add the LLM's quadruples for ``memories`` to ``out``; returns the ids it covered.

    A reply that is not JSON, or an item that fails validation or names an unknown
    memory, is skipped and counted in ``out.malformed``. A ModelError propagates: the
    batch fails and is retried on the next run.
    """
    labels = {f"m{i}": m for i, m in enumerate(memories, 1)}
    rows = [
        {"memory": label, "date": m.said_at or "undated", "text": m.text}
        for label, m in labels.items()
    ]
    messages: list[ChatMessage] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": block("memories", rows)},
    ]
    reply = llm.chat(messages, schema=SCHEMA)
    out.llm_calls += 1
    try:
        data = extract_json(reply)
        items = data["facts"] if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise ValueError("no 'facts' list")
    except ValueError:
        out.malformed += 1
        return set()
    covered: set[str] = set()
    counts: dict[str, int] = {}
    for raw in items:
        try:
            fact = _Fact.model_validate(raw)
        except ValidationError:
            out.malformed += 1
            continue
        memory = labels.get(fact.memory.strip("[] "))
        if memory is None:
            out.malformed += 1
            continue
        n = counts.get(memory.id, 0)
        counts[memory.id] = n + 1
        out.quads.append(
            Quad(
                f"{memory.id}#{n}",
                memory.id,
                fact.subject.strip(),
                fact.relation.strip(),
                fact.object.strip(),
                fact.time or memory.said_at,
                "llm",
            )
        )
        out.by_llm += 1
        covered.add(memory.id)
    return covered


def extract(llm: LLM | None, memories: list[MemoryEntry]) -> Extracted:
    """Quadruples for a batch: the LLM's where it gave some, the rule reader's elsewhere."""
    out = Extracted()
    covered = llm_quads(llm, memories, out) if llm is not None else set()
    for memory in memories:
        if memory.id not in covered:
            quads = rule_quads(memory)
            out.quads.extend(quads)
            out.by_rules += len(quads)
    return out
