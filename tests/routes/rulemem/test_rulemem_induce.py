"""Rule induction: templates offline, the LLM's schema call with malformed output counted."""

import json

from kit import FakeLLM

from logicmem.routes.rulemem.induce import llm_rules, template_rules
from logicmem.routes.rulemem.repo import Quad
from logicmem.routes.rulemem.walks import Path

PATH = Path(
    [
        Quad("a", "m1", "Maya", "adopted", "a dog named Rex", "2024-03-01"),
        Quad("b", "m2", "Maya", "walks", "Rex with Maya's sister", "2024-04-01"),
    ],
    ["e:rex"],
    1.0,
)
OTHER = Path(
    [
        Quad("c", "m3", "Maya", "likes", "jazz", "2024-03-01"),
        Quad("d", "m4", "Leo", "plays", "jazz piano", "2024-04-01"),
    ],
    ["w:jazz"],
    0.5,
)


def test_template_rule_generalizes_the_shared_person() -> None:
    out = template_rules([PATH, OTHER])
    first, second = out.rules
    assert first.body == ["X adopted a dog named Rex"]
    assert first.head == "X walks Rex with X's sister"
    assert first.inducer == "template" and first.path is PATH
    # two people: no variable
    assert second.body == ["Maya likes jazz"] and second.head == "Leo plays jazz piano"


def test_llm_rules_filter_paths_and_skip_malformed_items() -> None:
    reply = {
        "rules": [
            {"path": 1, "body": ["X adopts a pet"], "head": "X walks the pet daily"},
            {"path": 7, "body": ["X"], "head": "out of range"},
            {"path": 1, "body": [], "head": "no body"},
            {"body": ["no path"], "head": "X y"},
        ]
    }
    llm = FakeLLM(replies=[json.dumps(reply)])
    out = llm_rules(llm, [PATH, OTHER], {"m1": "Maya adopted a dog named Rex."})
    assert [(r.body, r.head) for r in out.rules] == [(["X adopts a pet"], "X walks the pet daily")]
    assert out.rules[0].inducer == "fake" and out.rules[0].path is PATH
    assert out.malformed == 3 and out.filtered == 1 and out.llm_calls == 1
    prompt = llm.calls[0]["messages"][1]["content"]
    assert '{"path": 1, "date": "2024-03-01", "fact": "Maya adopted a dog named Rex"' in prompt
    assert '"memory": "Maya adopted a dog named Rex."' in prompt


def test_llm_reply_that_is_not_json_is_counted_not_raised() -> None:
    out = llm_rules(FakeLLM(replies=["I cannot find rules."]), [PATH], {})
    assert out.rules == [] and out.malformed == 1 and out.filtered == 1
    assert llm_rules(FakeLLM(), [], {}).llm_calls == 0  # no paths, no call
