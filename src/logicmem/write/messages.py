"""Turn whatever ``add`` receives into validated turns, with clear errors for bad input."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
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


def _accepted_forms() -> str:
    example = datetime(2023, 9, 8, 13, 56)  # a day and month that show every field
    return "; ".join(f"'{example.strftime(fmt)}'" for fmt in _DATE_FORMATS)


def _iso(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds")


def normalize_time(value: str | datetime | None, *, field: str = "time") -> str | None:
    """The time as naive ISO 8601 (``YYYY-MM-DDTHH:MM:SS``), or None when there is none.

    Accepts ISO 8601 or one of ``_DATE_FORMATS`` (LoCoMo's "1:56 pm on 8 May, 2023",
    "8 May 2023"...). A time with a zone is converted to UTC and stored without it, so
    that stored times compare correctly as strings; a time without a zone is kept as
    given. Anything else raises ``InputError`` naming ``field`` and the accepted forms:
    a time stored as free text would later be compared as a string and order wrongly.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return _iso(value)
    text = str(value).strip()
    if not text:
        return None
    try:
        return _iso(datetime.fromisoformat(text))
    except ValueError:
        pass
    cleaned = re.sub(r"\s+", " ", text)
    for fmt in _DATE_FORMATS:
        try:
            return _iso(datetime.strptime(cleaned, fmt))
        except ValueError:
            continue
    raise InputError(
        f"{field} {text!r} is not a time logicmem can read: use ISO 8601 "
        "('2023-09-08', '2023-09-08T13:56:00', optionally with 'Z' or '+02:00') "
        f"or one of {_accepted_forms()}"
    )


def _field(message: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if message.get(name) is not None:
            return message[name]
    return None


def clean_text(text: str) -> str:
    """A message's text as stored: NUL characters (U+0000) removed. They carry nothing a
    person wrote, and PostgreSQL cannot store them in text, so both backends keep the
    same text."""
    return text.replace("\x00", "")


def _check_id(value: object, name: str) -> None:
    if isinstance(value, str) and "\x00" in value:
        raise InputError(f"{name} contains a NUL character (\\x00): pass a plain string")


def parse_messages(
    messages: str | Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    user_id: str,
    session_id: str,
    timestamp: str | datetime | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    max_chars: int | None = None,
) -> list[Turn]:
    """Accept a string, one message, or a list of ``{role|speaker, content|text}`` dicts.

    A message may also carry ``turn_id`` (or LoCoMo's ``dia_id``), ``time`` and ``metadata``;
    a turn id seen before in the same session is not stored again (re-ingesting is safe).
    A plain string is one user turn. The user's own turns get the user id as speaker
    unless a ``speaker`` name is given. A message longer than ``max_chars`` characters
    (``extract.max_message_chars`` in ``Memory.add``) is refused, as is a time that
    ``normalize_time`` cannot read; nothing is stored when any message is refused.
    """
    if not user_id or not str(user_id).strip():
        raise InputError("user_id is required: pass user_id='alice' (or --user in the CLI)")
    for name, value in (("user_id", user_id), ("session_id", session_id),
                        ("agent_id", agent_id), ("run_id", run_id)):  # fmt: skip
        _check_id(value, name)
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
    said_at = normalize_time(timestamp, field="timestamp")
    turns = []
    for i, message in enumerate(items):
        if isinstance(message, str):
            message = {"role": "user", "content": message}
        if not isinstance(message, Mapping):
            raise InputError(f"message {i} is a {type(message).__name__}, expected a dict")
        text = _field(message, "content", "text")
        if isinstance(text, str):
            text = clean_text(text)
        if not isinstance(text, str) or not text.strip():
            raise InputError(
                f"message {i} is empty: each message needs non-empty 'content' or 'text'"
            )
        text = text.strip()
        role_name = str(_field(message, "role") or "").lower()
        speaker = _field(message, "speaker", "name")
        if role_name and role_name not in _ROLES and role_name != "system":
            raise InputError(
                f"message {i} has role {role_name!r}: use user, assistant, other or system"
            )
        if role_name == "system":
            continue
        if max_chars is not None and len(text) > max_chars:
            raise InputError(
                f"message {i} is {len(text):,} characters, over the limit of {max_chars:,}: "
                "split it into smaller messages, or raise extract.max_message_chars "
                "(LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS)"
            )
        role: Role = _ROLES.get(role_name) or (
            "user" if speaker is None or str(speaker) == user_id else "other"
        )
        if speaker is None:
            speaker = user_id if role == "user" else role
        turn_id = _field(message, "turn_id", "dia_id", "turn", "id")
        _check_id(speaker, f"message {i}'s speaker")
        _check_id(turn_id, f"message {i}'s turn_id")
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
                text=text,
                said_at=normalize_time(
                    _field(message, "time", "timestamp"), field=f"message {i} time"
                )
                or said_at,
                metadata=extra,
            )
        )
    if not turns:
        raise InputError("only system messages were given: nothing to remember")
    return turns
