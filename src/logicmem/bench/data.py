"""Reading benchmark inputs with clear errors: JSONL files, LoCoMo conversations, hashes.

Dev halves (``--half A|B``): an item belongs to half A when sha256 of
``logicmem-half:<id>`` is even, B when odd. The split depends on the id alone, not on
file order or ``--seed``, so tuning on A and checking on B stays honest when the file
is reordered or grows.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from logicmem.errors import InputError
from logicmem.io.formats import iter_jsonl

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")


def read_jsonl(path: str | Path, required: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Objects of a JSONL file; a bad line raises InputError naming the file and line."""
    p = Path(path)
    rows = []
    for number, row in iter_jsonl(p):
        missing = [key for key in required if row.get(key) in (None, "")]
        if missing:
            raise InputError(f"{p}:{number} is missing field(s) {', '.join(missing)}")
        rows.append(row)
    if not rows:
        raise InputError(f"{p} has no records")
    return rows


HALVES = ("A", "B")
_HALF_SALT = "logicmem-half:"


def half_of(item_id: str) -> str:
    """ "A" or "B": the parity of sha256 over the salted id (even -> A)."""
    digest = hashlib.sha256(f"{_HALF_SALT}{item_id}".encode()).hexdigest()
    return HALVES[int(digest, 16) % 2]


def select(rows: list[dict[str, Any]], half: str | None, limit: int | None) -> list[dict[str, Any]]:
    """The rows of ``half`` (all when None), then the first ``limit`` of them.

    The half comes first so that ``--half A --limit N`` takes N items of A, not the
    A-items among the file's first N.
    """
    if half is not None:
        if half not in HALVES:
            raise InputError(f"half {half!r}: choose {' or '.join(HALVES)}")
        kept = [r for r in rows if half_of(str(r["id"])) == half]
        if not kept:
            raise InputError(f"none of the {len(rows)} items falls in half {half}")
        rows = kept
    return rows[:limit] if limit else rows


def file_digest(paths: list[Path]) -> str:
    """sha256 over the files' bytes, in the given order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def data_info(paths: list[Path], n: int) -> dict[str, Any]:
    shown = str(paths[0]) if len(paths) == 1 else str(paths[0].parent)
    return {"path": shown, "sha256": file_digest(paths), "n": n}


def dia_ids(value: Any) -> list[str]:
    """Normalised LoCoMo turn ids from an evidence/observation field ("D1:3", "D8:6; D9:17")."""
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        for a, b in _DIA_ID.findall(str(item)):
            out.append(f"D{a}:{b}")
    return list(dict.fromkeys(out))


@dataclass
class Conversation:
    """One background dialogue: ordered sessions of turns, plus LoCoMo's extras."""

    id: str
    speaker_a: str
    speaker_b: str
    sessions: list[tuple[str, str | None, list[dict[str, Any]]]]
    """(session id, date text, turns); each turn has speaker, text, turn_id."""
    observations: list[tuple[str, str | None, list[tuple[str, str, list[str]]]]] = field(
        default_factory=list
    )
    """(session id, date text, [(speaker, fact, dia_ids)]) in session order."""
    qa: list[dict[str, Any]] = field(default_factory=list)

    def role(self, speaker: str) -> str:
        return "user" if speaker == self.speaker_a else "other"


def load_locomo_file(path: Path) -> Conversation:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(raw, dict) or "speaker_a" not in raw or "speaker_b" not in raw:
        raise InputError(f"{path}: not a LoCoMo conversation (no speaker_a/speaker_b)")
    numbers = sorted(int(m.group(1)) for key in raw if (m := _SESSION_KEY.match(key)))
    if not numbers:
        raise InputError(f"{path}: no session_N lists")
    conv = Conversation(path.stem, str(raw["speaker_a"]), str(raw["speaker_b"]), [])
    for n in numbers:
        sid, date = f"session_{n}", raw.get(f"session_{n}_date_time")
        turns = [
            {"speaker": t["speaker"], "text": t["text"], "turn_id": t["dia_id"]}
            for t in raw[sid]
            if isinstance(t, dict) and str(t.get("text") or "").strip()
        ]
        conv.sessions.append((sid, date, turns))
        facts = []
        for speaker, entries in (raw.get(f"{sid}_observation") or {}).items():
            for entry in entries:
                if isinstance(entry, list) and len(entry) == 2 and str(entry[0]).strip():
                    facts.append((str(speaker), str(entry[0]).strip(), dia_ids(entry[1])))
        conv.observations.append((sid, date, facts))
    conv.qa = list(raw.get("qa") or [])
    return conv


def load_backgrounds(directory: str | Path, only: list[str] | None = None) -> list[Conversation]:
    """LoCoMo conversations of ``directory`` in file-name order (``only``: those stems)."""
    d = Path(directory)
    if not d.is_dir():
        raise InputError(f"{d} is not a directory of LoCoMo conversation files (*.json)")
    files = sorted(d.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    if only:
        wanted = [s.strip() for s in only if s.strip()]
        unknown = sorted(set(wanted) - {p.stem for p in files})
        if unknown:
            raise InputError(
                f"no conversation {', '.join(unknown)} in {d}: choose among "
                + ", ".join(p.stem for p in files)
            )
        files = [p for p in files if p.stem in wanted]
    if not files:
        raise InputError(f"{d} holds no *.json conversation files")
    return [load_locomo_file(p) for p in files]


def background_files(directory: str | Path, convs: list[Conversation]) -> list[Path]:
    return [Path(directory) / f"{c.id}.json" for c in convs]
