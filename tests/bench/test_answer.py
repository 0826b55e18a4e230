"""Option shuffling, reply parsing and the prompts' inputs."""

from __future__ import annotations

from kit import FakeLLM

from logicmem.bench import answer as ans
from logicmem.bench.methods import Item

OPTIONS = {"correct": "c", "preference_trap": "p", "fabrication_trap": "f", "generic_trap": "g"}


def test_shuffle_is_deterministic_per_seed_and_item() -> None:
    first = ans.shuffled_options(OPTIONS, 0, "il-001")
    assert first == ans.shuffled_options(dict(reversed(OPTIONS.items())), 0, "il-001")
    assert sorted(k for k, _ in first) == sorted(OPTIONS)
    orders = {tuple(k for k, _ in ans.shuffled_options(OPTIONS, s, "il-001")) for s in range(20)}
    assert len(orders) > 1  # the seed matters
    per_item = {tuple(k for k, _ in ans.shuffled_options(OPTIONS, 0, f"i{n}")) for n in range(20)}
    assert len(per_item) > 1  # so does the item: the correct option is not always at one letter


def test_correct_option_position_is_balanced() -> None:
    letters = [
        next(
            i
            for i, (k, _) in enumerate(ans.shuffled_options(OPTIONS, 0, f"i{n}"))
            if k == "correct"
        )
        for n in range(400)
    ]
    assert all(60 < letters.count(i) < 140 for i in range(4))


def test_parse_letter() -> None:
    assert ans.parse_letter("B") == 1
    assert ans.parse_letter("(c) because...") == 2
    assert ans.parse_letter("D. Stick to hot dishes") == 3
    assert ans.parse_letter("A good choice is option B") == 1
    assert ans.parse_letter("The answer is c.") == 2
    assert ans.parse_letter("I think C") == 2
    assert ans.parse_letter("none of them") is None
    assert ans.parse_letter("E") is None


def test_parse_binary() -> None:
    assert ans.parse_binary("1") is True
    assert ans.parse_binary("0.") is False
    assert ans.parse_binary("CORRECT") is True
    assert ans.parse_binary("Wrong, it misses the date") is False
    assert ans.parse_binary("maybe") is None


def test_mcq_prompt_shows_context_and_options() -> None:
    llm = FakeLLM(replies=["C"])
    options = ans.shuffled_options(OPTIONS, 0, "x")
    items = [Item("m1", "Ann takes immunosuppressants.", [], None, "2023-05-08T13:56:00", 5, "r")]
    choice, reply = ans.ask_mcq(llm, "Which food?", items, options)
    assert choice == options[2][0] and reply == "C"
    system, user = (m["content"] for m in llm.calls[0]["messages"])
    assert (
        '{"n": 1, "text": "Ann takes immunosuppressants.", "said": "2023-05-08T13:56:00"' in system
    )
    assert all(
        f"{letter}. {text}" in user for letter, (_, text) in zip("ABCD", options, strict=True)
    )
