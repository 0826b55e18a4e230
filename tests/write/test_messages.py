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


def test_time_normalisation_refuses_what_it_cannot_parse() -> None:
    assert normalize_time("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00"
    assert normalize_time("2024-01-02") == "2024-01-02T00:00:00"
    assert normalize_time(None) is None and normalize_time("  ") is None
    # a free-text time would be stored and later compared as a string: refused, with the forms
    with pytest.raises(InputError, match=r"--time 'the day after' .*ISO 8601.*08 September 2023"):
        normalize_time("the day after", field="--time")


def test_zoned_times_are_stored_as_naive_utc_so_they_order_as_strings() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    assert normalize_time("2024-03-02T10:00:00+02:00") == "2024-03-02T08:00:00"
    assert normalize_time("2024-03-02T23:30:00Z") == "2024-03-02T23:30:00"
    assert normalize_time(datetime(2024, 3, 2, 1, tzinfo=timezone(timedelta(hours=5)))) == (
        "2024-03-01T20:00:00"
    )
    assert normalize_time(datetime(2024, 3, 2, 1, tzinfo=UTC)) == "2024-03-02T01:00:00"
    assert normalize_time("2024-03-02T01:00:00") == "2024-03-02T01:00:00"  # naive: as given


def test_a_bad_time_names_the_message_and_stores_nothing() -> None:
    with pytest.raises(InputError, match="message 1 time 'soon'"):
        parse_messages(
            [{"content": "a b c"}, {"content": "d e f", "time": "soon"}],
            user_id="ana",
            session_id="s",
        )
    with pytest.raises(InputError, match="timestamp 'later'"):
        parse_messages("a b c", user_id="ana", session_id="s", timestamp="later")


def test_message_size_limit_names_index_length_limit_and_setting() -> None:
    ok = parse_messages([{"content": "x" * 10}], user_id="a", session_id="s", max_chars=10)
    assert len(ok[0].text) == 10
    with pytest.raises(InputError) as exc:
        parse_messages(
            [{"content": "short"}, {"content": "y" * 11}], user_id="a", session_id="s", max_chars=10
        )
    message = str(exc.value)
    assert "message 1 is 11 characters, over the limit of 10" in message
    assert "extract.max_message_chars" in message and "split" in message
    # no limit unless asked; a long system message is dropped, not refused
    assert parse_messages("z" * 100_000, user_id="a", session_id="s")
    system = [{"role": "system", "content": "s" * 50}, {"content": "hi there"}]
    assert len(parse_messages(system, user_id="a", session_id="s", max_chars=10)) == 1
