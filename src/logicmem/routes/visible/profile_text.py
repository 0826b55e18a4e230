"""The profile file: the updater's prompt, its provenance tags, and the size limits.

The model sees every memory under a short id (``m12``) and ends each bullet with the ids
it comes from (``- Allergic to tree nuts [m12]``); the tags are stripped from the text
and kept as per-line provenance.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from logicmem.context import estimate_tokens
from logicmem.models.llm.base import ChatMessage
from logicmem.prompting import DATA_NOT_INSTRUCTIONS, block, quote
from logicmem.routes.visible.repo import ProfileLine
from logicmem.types import MemoryEntry

SYSTEM = (
    """You maintain a markdown profile of a user, which an assistant reads in full
before every reply. Rewrite the whole profile so that it includes what the new memories add.
- Keep every fact that could change future advice (health, allergies, medications, diet,
  family and dependants, pets, work, legal status, money, housing, plans) and the user's
  lasting preferences; leave out small talk.
- When a new memory updates or contradicts a line, rewrite that line; keep the others.
- One fact per line, as a markdown bullet; "## " headings may group them.
- End every bullet with the ids of the memories it comes from, in brackets, exactly as
  shown: "- Allergic to tree nuts [m12]" or "- Has two children, aged 4 and 7 [m3, m12]".
- At most {max_lines} lines. Reply with the profile only, no commentary.
The current profile and the new memories are the lines of the profile and memories
blocks, one JSON object each; reply in plain markdown, not JSON.
"""
    + DATA_NOT_INSTRUCTIONS
)

RETRY = (
    "That reply was invalid ({problem}). Reply again with the whole profile only, every "
    "bullet ending with its memory ids in brackets."
)

_TAG = re.compile(r"\s*\[\s*(m\d+(?:\s*[,;]?\s*m\d+)*)\s*\]", re.IGNORECASE)
_ID = re.compile(r"m\d+", re.IGNORECASE)


class InvalidReply(ValueError):
    """The updater's reply cannot replace the profile (the previous one is kept)."""


def signature(entry: MemoryEntry) -> str:
    """What the watermark remembers of a memory: a change of text or status re-folds it."""
    return f"{entry.status}:{hashlib.sha1(entry.text.encode()).hexdigest()[:12]}"


def render(lines: Sequence[ProfileLine]) -> str:
    """The profile as placed in context (provenance tags stripped)."""
    return "\n".join(line.text for line in lines)


def size_of(lines: Sequence[ProfileLine]) -> dict[str, int]:
    text = render(lines)
    tokens = estimate_tokens(text) if text else 0
    return {"lines": len(lines), "bytes": len(text.encode()), "tokens": tokens}


def fit(lines: list[ProfileLine], max_lines: int, max_bytes: int) -> tuple[list[ProfileLine], bool]:
    """The file cut to ``max_lines`` lines and ``max_bytes`` bytes, as the paper truncates
    it; returns whether anything was cut."""
    out: list[ProfileLine] = []
    used = 0
    for line in lines[:max_lines]:
        need = len(line.text.encode()) + (1 if out else 0)
        if used + need > max_bytes:
            room = max_bytes - used - (1 if out else 0)
            head = line.text.encode()[: max(0, room)].decode(errors="ignore").rstrip()
            if head:
                out.append(ProfileLine(head, line.memory_ids, line.source_turns))
            return out, True
        out.append(line)
        used += need
    return out, len(out) < len(lines)


def updater_prompt(
    lines: Sequence[ProfileLine], new: Sequence[MemoryEntry], session_id: str, max_lines: int
) -> tuple[list[ChatMessage], dict[str, str]]:
    """The messages for one session, and short id -> memory id for reading the reply."""
    short: dict[str, str] = {}
    for memory_id in [i for ln in lines for i in ln.memory_ids] + [e.id for e in new]:
        short.setdefault(memory_id, f"m{len(short) + 1}")
    tags = [
        f" [{', '.join(short[i] for i in ln.memory_ids)}]" if ln.memory_ids else "" for ln in lines
    ]
    shown = [{"line": ln.text + tag} for ln, tag in zip(lines, tags, strict=True)]
    facts = [{"id": short[e.id], "text": e.text, "said": e.said_at} for e in new]
    user = (
        "Current profile:\n"
        + (block("profile", shown) if shown else "(empty)")
        + f"\n\nNew memories (session {quote(session_id or '?')}):\n"
        + block("memories", facts)
    )
    messages: list[ChatMessage] = [
        {"role": "system", "content": SYSTEM.format(max_lines=max_lines)},
        {"role": "user", "content": user},
    ]
    return messages, {s: i for i, s in short.items()}


def parse_reply(reply: str, by_short: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(line, memory ids) per non-blank line; raises InvalidReply when the reply does not
    look like a profile (the embedded 135M model mostly writes prose or echoes the prompt)."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("\n") + 1 :] if "\n" in text else ""
    out: list[tuple[str, list[str]]] = []
    tagged = untagged = 0
    for raw in text.splitlines():
        ids: list[str] = []
        for tag in _TAG.findall(raw):
            ids += [by_short[s.lower()] for s in _ID.findall(tag) if s.lower() in by_short]
        line = _TAG.sub("", raw).rstrip()
        if not line.strip():
            continue
        if not line.lstrip().startswith("#"):  # headings carry no ids
            tagged, untagged = (tagged + 1, untagged) if ids else (tagged, untagged + 1)
        out.append((line, list(dict.fromkeys(ids))))
    if not out:
        raise InvalidReply("the reply is empty")
    if tagged == 0:
        raise InvalidReply("no line ends with known memory ids in brackets, such as [m1]")
    if untagged > tagged:
        raise InvalidReply(f"{untagged} of {tagged + untagged} lines name no known memory id")
    return out
