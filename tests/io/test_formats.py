import json
from pathlib import Path

import pytest

from logicmem.errors import InputError
from logicmem.io.formats import read_sessions


def _locomo(tmp_path: Path) -> Path:
    data = {
        "speaker_a": "Ana",
        "speaker_b": "Bo",
        "session_2_date_time": "1:00 pm on 9 May, 2023",
        "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "Hi again"}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat."},
            {"speaker": "Bo", "dia_id": "D1:2", "img_url": ["x"]},  # image-only turn
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data))
    return path


def test_locomo_sessions_in_order_with_roles_and_dia_ids(tmp_path: Path) -> None:
    sessions = read_sessions(_locomo(tmp_path), "locomo", "Ana")
    assert [s.session_id for s in sessions] == ["session_1", "session_2"]
    assert sessions[0].timestamp == "1:56 pm on 8 May, 2023"
    [turn] = sessions[0].messages
    assert turn == {"speaker": "Ana", "role": "user", "text": "I adopted a cat.", "turn_id": "D1:1"}
    assert sessions[1].messages[0]["role"] == "other"


def test_locomo_user_must_be_a_speaker(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="speakers are Ana and Bo"):
        read_sessions(_locomo(tmp_path), "locomo", "Cy")


def test_jsonl_requires_fields_and_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"session": "1", "speaker": "a", "text": "fine"}\n{"session": "1"}\n')
    with pytest.raises(InputError, match=r"h\.jsonl:2 lacks speaker, text"):
        read_sessions(path, "jsonl", "a")


def test_jsonl_with_several_conversations_asks_which(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    rows = [
        {"conversation": c, "session": "1", "turn": t, "speaker": "a", "text": "x y z"}
        for c, t in (("c1", 1), ("c2", 1))
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(InputError, match="--conversation"):
        read_sessions(path, "jsonl", "a")
    assert len(read_sessions(path, "jsonl", "a", conversation="c2")) == 1


def test_unknown_format_and_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown format"):
        read_sessions(tmp_path / "x", "csv", "a")
    with pytest.raises(InputError, match="is a folder"):
        read_sessions(tmp_path, "jsonl", "a")
