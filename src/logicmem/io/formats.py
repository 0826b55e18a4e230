"""Conversation files -> sessions of messages ready for ``Memory.add``.

Two formats: LoCoMo conversation JSON (``session_N`` lists of ``{speaker, dia_id, text}``
with ``session_N_date_time``), and the generic history JSONL of the bench README (one
turn per line: conversation, session, turn, speaker, text, optional time and role).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from logicmem.errors import InputError

FORMATS = ("locomo", "jsonl")


@dataclass
class Session:
    session_id: str
    timestamp: str | None
    messages: list[dict[str, Any]] = field(default_factory=list)


def _read_text(path: Path) -> str:
    if not path.exists():
        raise InputError(f"file {path} does not exist: check the path")
    if path.is_dir():
        raise InputError(f"{path} is a folder: pass a file")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text: pass a JSON or JSONL file") from None


def read_sessions(
    path: str | Path, fmt: str, user: str, conversation: str | None = None
) -> list[Session]:
    path = Path(path)
    if fmt == "locomo":
        return locomo_sessions(path, user)
    if fmt == "jsonl":
        return jsonl_sessions(path, user, conversation)
    raise InputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")


def locomo_sessions(path: Path, user: str) -> list[Session]:
    try:
        data = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON ({exc}); pass a LoCoMo conversation") from None
    if isinstance(data, dict) and "conversation" in data and "speaker_a" not in data:
        data = data["conversation"]  # the original release nests the conversation
    if not isinstance(data, dict) or "speaker_a" not in data:
        raise InputError(
            f"{path} is not a LoCoMo conversation (no speaker_a / session_N keys); "
            "use --format jsonl for generic histories"
        )
    speakers = {data.get("speaker_a"), data.get("speaker_b")}
    if user not in speakers:
        raise InputError(
            f"--user {user!r} is not a speaker of {path.name}: its speakers are "
            f"{' and '.join(sorted(s for s in speakers if s))}"
        )
    numbers = sorted(int(m.group(1)) for key in data if (m := re.fullmatch(r"session_(\d+)", key)))
    sessions = []
    for n in numbers:
        turns = data[f"session_{n}"]
        if not isinstance(turns, list):
            raise InputError(f"{path}: session_{n} is not a list of turns")
        session = Session(f"session_{n}", data.get(f"session_{n}_date_time"))
        for i, turn in enumerate(turns):
            if not isinstance(turn, dict) or not turn.get("text"):
                continue  # LoCoMo has a few image-only turns with no text
            session.messages.append(
                {
                    "speaker": turn.get("speaker"),
                    "role": "user" if turn.get("speaker") == user else "other",
                    "text": turn["text"],
                    "turn_id": turn.get("dia_id") or f"session_{n}:{i}",
                }
            )
        if session.messages:
            sessions.append(session)
    if not sessions:
        raise InputError(f"{path} has no sessions with text")
    return sessions


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for lineno, line in enumerate(_read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{lineno} is not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputError(f"{path}:{lineno} is not a JSON object")
        yield lineno, row


def jsonl_sessions(path: Path, user: str, conversation: str | None = None) -> list[Session]:
    sessions: dict[str, Session] = {}
    conversations: set[str] = set()
    for lineno, row in iter_jsonl(path):
        if row.get("kind", "turn") != "turn":
            continue  # exported memory lines are re-derived from the turns
        conv = str(row.get("conversation", ""))
        if conversation is not None and conv != conversation:
            continue
        conversations.add(conv)
        missing = [k for k in ("session", "speaker", "text") if row.get(k) in (None, "")]
        if missing:
            raise InputError(
                f"{path}:{lineno} lacks {', '.join(missing)}: each line needs conversation, "
                "session, turn, speaker and text"
            )
        key = str(row["session"])
        session = sessions.setdefault(key, Session(key, row.get("time")))
        role = row.get("role") or ("user" if row["speaker"] == user else "other")
        session.messages.append(
            {
                "speaker": row["speaker"],
                "role": role,
                "text": row["text"],
                "turn_id": str(row.get("turn", f"{key}:{len(session.messages)}")),
                "time": row.get("time"),
            }
        )
    if not sessions:
        which = f" of conversation {conversation!r}" if conversation is not None else ""
        raise InputError(f"{path} has no turns{which}")
    if len(conversations) > 1:
        raise InputError(
            f"{path} holds {len(conversations)} conversations "
            f"({', '.join(sorted(conversations)[:5])}...): "
            "pass --conversation ID to ingest one of them for this user"
        )
    return list(sessions.values())
