"""Turn whatever ``add`` receives into validated turns, with clear errors for bad input."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import uuid4

from logicmem.errors import InputError
from logicmem.types import Role, Turn

_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "other": "other"}
_DATE_FORMATS = (
    "%I:%M %p on %d %B, %Y",  # LoCoMo: "1:56 pm on 8 May, 2023"
    "%I:%M %p on %d %b, %Y",
    "%d %B %Y",
    "%d %B, %Y",
    "%B %d, %Y",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d",
)


def normalize_time(value: str | datetime | None) -> str | None:
    """ISO 8601 for what we can parse; the input unchanged otherwise (never drop a date)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    text = str(value).strip()
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).isoformat(timespec="seconds")
    except ValueError:
        pass
    cleaned = re.sub(r"\s+", " ", text)
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).isoformat(timespec="seconds")
        except ValueError:
            continue
    return text


def _field(message: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if message.get(name) is not None:
            return message[name]
    return None


def parse_messages(
    messages: str | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    user_id: str,
    session_id: str,
    timestamp: str | datetime | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> list[Turn]:
    """Accept a string, one message, or a list of ``{role|speaker, content|text}`` dicts.

    A message may also carry ``turn_id`` (or LoCoMo's ``dia_id``), ``time`` and ``metadata``;
    a turn id seen before in the same session is not stored again (re-ingesting is safe).
    A plain string is one user turn. The user's own turns get the user id as speaker
    unless a ``speaker`` name is given.
    """
    if not user_id or not str(user_id).strip():
        raise InputError("user_id is required: pass user_id='alice' (or --user in the CLI)")
    if isinstance(messages, str):
        items: list[Any] = [{"role": "user", "content": messages}]
    elif isinstance(messages, Mapping):
        items = [messages]
    elif isinstance(messages, Sequence):
        items = list(messages)
    else:
        raise InputError(
            f"messages must be a string, a dict or a list of dicts, not {type(messages).__name__}"
        )
    if not items:
        raise InputError("no messages to add: pass at least one non-empty message")
    said_at = normalize_time(timestamp)
    turns = []
    for i, message in enumerate(items):
        if isinstance(message, str):
            message = {"role": "user", "content": message}
        if not isinstance(message, Mapping):
            raise InputError(f"message {i} is a {type(message).__name__}, expected a dict")
        text = _field(message, "content", "text")
        if not isinstance(text, str) or not text.strip():
            raise InputError(
                f"message {i} is empty: each message needs non-empty 'content' or 'text'"
            )
        role_name = str(_field(message, "role") or "").lower()
        speaker = _field(message, "speaker", "name")
        if role_name and role_name not in _ROLES and role_name != "system":
            raise InputError(
                f"message {i} has role {role_name!r}: use user, assistant, other or system"
            )
        if role_name == "system":
            continue
        role: Role = _ROLES.get(role_name) or (
            "user" if speaker is None or str(speaker) == user_id else "other"
        )
        if speaker is None:
            speaker = user_id if role == "user" else role
        turn_id = _field(message, "turn_id", "dia_id", "turn", "id")
        extra = dict(metadata or {})
        extra.update(message.get("metadata") or {})
        turns.append(
            Turn(
                user_id=user_id,
                agent_id=agent_id,
                run_id=run_id,
                session_id=session_id,
                turn_id=str(turn_id) if turn_id is not None else f"{session_id}:{uuid4().hex[:12]}",
                speaker=str(speaker),
                role=role,
                text=text.strip(),
                said_at=normalize_time(_field(message, "time", "timestamp")) or said_at,
                metadata=extra,
            )
        )
    if not turns:
        raise InputError("only system messages were given: nothing to remember")
    return turns
