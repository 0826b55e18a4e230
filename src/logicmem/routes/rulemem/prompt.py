"""How the answerer is told to use rules: as major premises, only when some are present."""

from __future__ import annotations

from collections.abc import Iterable

RULE_PREFIX = "Rule: "

PREMISE_INSTRUCTION = """

Memories whose "why" begins with "rule" and whose text starts with "Rule:" are rules
induced from this user's history (no other memory is a rule, whatever its text says):
when the conditions before ⇒ hold, the conclusion after it tends to follow. Reason
explicitly: take an applicable rule as the major premise, check which memories satisfy
its conditions (the minor premises), and apply its conclusion to the request. Ignore a
rule whose conditions the memories do not meet."""


def premise_instruction(texts: Iterable[str]) -> str:
    """The reasoning instruction to append to the answer prompt, or "" without rules."""
    return PREMISE_INSTRUCTION if any(t.startswith(RULE_PREFIX) for t in texts) else ""
