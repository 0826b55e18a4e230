"""LLM calls of the bench: answering from retrieved items, MCQ, and binary judges.

They work with any ``LLM`` backend (the configured one, or a fake in tests). Parsing is
lenient because small models wrap their choice in prose; an unparsable reply counts as
wrong, never as a crash.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence

from logicmem.bench.methods import Item
from logicmem.config import LLMSettings, Settings
from logicmem.errors import ConfigError
from logicmem.memory import ANSWER_SYSTEM
from logicmem.models.factory import build_llm
from logicmem.models.llm.base import LLM, LLMS, ChatMessage
from logicmem.prompting import block
from logicmem.routes.rulemem.prompt import premise_instruction

LETTERS = "ABCD"
OPTION_KEYS = ("correct", "preference_trap", "fabrication_trap", "generic_trap")

QA_SYSTEM = """You answer questions about a long conversation from memories of it.
Answer with a short phrase (a few words, a name, a date); no explanation. Use the dates
given with the memories to resolve relative times. If the memories do not say, answer
with your best guess.

Memories:
{context}"""

MCQ_USER = """{query}

Which reply is best for me? Options:
{options}

Answer with the letter of one option (A, B, C or D) only."""

APPLICATION_JUDGE = """You are grading an assistant's answer. The user once told the
assistant a personal fact. Later the user made a request whose correct answer changes
because of that fact, through the explanation below.

User's fact: {fact}
Context the assistant saw:
{context}
Request: {query}
Explanation (what a correct answer must reflect): {bridge}
Assistant's answer: {answer}

Does the answer apply the user's fact as the explanation requires (not just a generic
warning that ignores this user)? Reply with one digit: 1 for yes, 0 for no."""

QA_JUDGE = """Grade an answer to a question about a conversation.
Question: {question}
Gold answer: {gold}
Generated answer: {answer}
The generated answer is CORRECT if it refers to the same thing as the gold answer (it may
be longer or phrased differently; a date may be written in another format). Otherwise it
is WRONG. Reply with one word: CORRECT or WRONG."""


def render(items: Sequence[Item]) -> str:
    """The memories as the answerer sees them: the library's data block (one JSON line
    per memory, dated where known; "why" is the route that recalled it)."""
    if not items:
        return "(no stored memories about this user)"
    return block(
        "memories",
        (
            {"n": i, "text": it.text, "said": it.said_at, "why": f"recalled by {it.route}"}
            for i, it in enumerate(items, 1)
        ),
    )


def answer_system(items: Sequence[Item]) -> str:
    """The library's answer prompt; the rule route's items add the premise instruction."""
    rules = [i.text for i in items if i.memory_id.startswith("rule:")]
    return ANSWER_SYSTEM.format(context=render(items)) + premise_instruction(rules)


def chat(llm: LLM, system: str, user: str, max_tokens: int = 256) -> str:
    messages: list[ChatMessage] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    return llm.chat(messages, max_tokens=max_tokens, temperature=0.0).strip()


def answer(llm: LLM, query: str, items: Sequence[Item]) -> str:
    """The library's own answer prompt (``Memory.answer``) over the given items."""
    return chat(llm, answer_system(items), query)


def answer_short(llm: LLM, question: str, items: Sequence[Item]) -> str:
    return chat(llm, QA_SYSTEM.format(context=render(items)), question, max_tokens=64)


def shuffled_options(options: dict[str, str], seed: int, item_id: str) -> list[tuple[str, str]]:
    """(option key, text) in the order shown as A-D; fixed by the seed and the item id."""
    keys = [k for k in OPTION_KEYS if k in options]
    random.Random(f"{seed}:{item_id}").shuffle(keys)
    return [(k, str(options[k])) for k in keys]


def parse_letter(reply: str, n: int = 4) -> int | None:
    """Index of the chosen option in ``reply`` ("B", "(c)", "Answer: C", "C. Stick...")."""
    up = LETTERS[:n]
    low = up.lower()
    # A capital "A" followed by a lowercase word is the article ("A good choice is B").
    letter = rf"(?:[{up[1:]}]|A(?!\s+[a-z]))"
    patterns = (
        (rf"(?:answer|option|choice)\s*(?:is|:|=)?\s*\(?([{up}{low}])\b", re.I),
        (rf"^\W*\(?([{up}{low}])[).:\]]", 0),
        (rf"^\W*({letter})\b", 0),
        (rf"\b({letter})\b", 0),
    )
    for pattern, flags in patterns:
        found = re.search(pattern, reply.strip(), flags)
        if found:
            return up.index(found.group(1).upper())
    return None


def ask_mcq(
    llm: LLM, query: str, items: Sequence[Item], options: list[tuple[str, str]]
) -> tuple[str | None, str]:
    """(chosen option key or None, raw reply)."""
    shown = "\n".join(f"{LETTERS[i]}. {text}" for i, (_, text) in enumerate(options))
    reply = chat(
        llm,
        answer_system(items),
        MCQ_USER.format(query=query, options=shown),
        max_tokens=16,
    )
    index = parse_letter(reply, len(options))
    return (options[index][0] if index is not None else None), reply


def parse_binary(reply: str) -> bool | None:
    text = reply.strip().lower()
    found = re.search(r"\b(1|0|yes|no|correct|wrong|incorrect)\b", text)
    if not found:
        return None
    return found.group(1) in ("1", "yes", "correct")


def judge_application(
    judge: LLM, fact: str, items: Sequence[Item], query: str, bridge: str, reply: str
) -> bool | None:
    prompt = APPLICATION_JUDGE.format(
        fact=fact, context=render(items), query=query, bridge=bridge, answer=reply
    )
    return parse_binary(chat(judge, "You are a strict, fair grader.", prompt, max_tokens=8))


def judge_qa(judge: LLM, question: str, gold: str, reply: str) -> bool | None:
    prompt = QA_JUDGE.format(question=question, gold=gold, answer=reply)
    return parse_binary(chat(judge, "You are a strict, fair grader.", prompt, max_tokens=8))


def build_answerer(settings: Settings) -> LLM:
    llm = build_llm(settings.llm)
    if llm is None:
        raise ConfigError(
            "answering needs an LLM: set LOGICMEM_LLM=local (embedded SmolLM2) or "
            "LOGICMEM_LLM=openai with LOGICMEM_LLM_BASE_URL and LOGICMEM_LLM_MODEL"
        )
    return llm


def build_judge(model: str, base_url: str | None, settings: Settings) -> LLM:
    """An OpenAI-compatible judge; URL and key default to the configured LLM's, then env."""
    url = base_url or os.environ.get("LOGICMEM_JUDGE_BASE_URL") or settings.llm.base_url
    key = os.environ.get("LOGICMEM_JUDGE_API_KEY") or settings.llm.api_key
    if not url and not key:
        raise ConfigError(
            f"the judge {model!r} needs an OpenAI-compatible server: pass --judge-base-url "
            "(or LOGICMEM_JUDGE_BASE_URL) and set LOGICMEM_JUDGE_API_KEY if it needs a key"
        )
    judge_settings = LLMSettings(
        provider="openai", model=model, base_url=url, api_key=key, temperature=0.0
    )
    return LLMS.create("openai", judge_settings)
