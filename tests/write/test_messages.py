import pytest

from logicmem.errors import InputError
from logicmem.write.messages import normalize_time, parse_messages


def test_accepts_string_dict_and_list_shapes() -> None:
    one = parse_messages("I have a cat", user_id="ana", session_id="s")
    assert [(t.speaker, t.role, t.text) for t in one] == [("ana", "user", "I have a cat")]
    many = parse_messages(
        [
            {"role": "user", "content": "I have a cat"},
            {"speaker": "Bo", "text": "Cute!", "dia_id": "D1:2"},
            {"role": "system", "content": "ignored"},
            {"role": "assistant", "content": "Noted."},
        ],
        user_id="ana",
        session_id="s",
    )
    assert [t.role for t in many] == ["user", "other", "assistant"]
    assert many[1].turn_id == "D1:2" and many[1].speaker == "Bo"
    assert parse_messages({"content": "x y"}, user_id="a", session_id="s")[0].role == "user"


@pytest.mark.parametrize(
    "messages, match",
    [
        ("   ", "empty"),
        ([], "no messages"),
        ([{"role": "user"}], "empty"),
        ([{"role": "robot", "content": "hi"}], "role 'robot'"),
        ([42], "expected a dict"),
        ([{"role": "system", "content": "only system"}], "only system"),
    ],
)
def test_bad_messages_are_refused_with_a_clear_message(messages: object, match: str) -> None:
    with pytest.raises(InputError, match=match):
        parse_messages(messages, user_id="ana", session_id="s")  # type: ignore[arg-type]


def test_user_id_is_required() -> None:
    with pytest.raises(InputError, match="user_id is required"):
        parse_messages("hello", user_id="", session_id="s")


def test_time_normalisation_keeps_what_it_cannot_parse() -> None:
    assert normalize_time("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00"
    assert normalize_time("2024-01-02") == "2024-01-02T00:00:00"
    assert normalize_time("the day after the party") == "the day after the party"
    assert normalize_time(None) is None
