"""Rule Perplexity Consistency: does a rule's body, and then the evidence, make its head
more predictable to a language model?

    Δself = ℓ(H | ∅) − ℓ(H | B)          Δfact = ℓ(H | B) − ℓ(H | B ⊕ E)

ℓ is the negative log-likelihood of the head H per *word* of H (natural log; whitespace
words, not model tokens, because backends tokenise differently and the LLM interface
returns a sum), so a Δ is a log ratio of per-word perplexities.

Normalization: each Δ goes through the logistic function, σ(Δ) = PPL_before /
(PPL_before + PPL_after), the chance that the head reads as better explained with the
extra context than without it (a Bradley-Terry comparison of the two perplexities). It
lies in (0, 1) and is 0.5 when the context changes nothing. The score is
α·σ(Δself) + (1 − α)·σ(Δfact), admitted at ``score ≥ τ``: with τ = 0.5 a rule passes when
body and evidence together make its head more predictable, weighting the evidence (1 − α
= 0.6) over the model's own prior.

E is held out: the memories closest to the body that the rule was *not* induced from
(see build.py). Evidence taken from the path itself would contain the head's own fact
almost verbatim and admit every templated rule.

The prompts are fixed frames (``frames``) that differ only by what is conditioned on.
Every frame first declares the rule variables ("X and Y are people."), so the body does
not get credit merely for making the token "X" predictable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from logicmem.config import LLMSettings
from logicmem.errors import ConfigError, ModelError
from logicmem.models.llm.base import LLM, LLMS


@dataclass(frozen=True)
class RPCScore:
    nll_empty: float
    nll_body: float
    nll_evidence: float
    delta_self: float
    delta_fact: float
    score: float

    def detail(self) -> dict[str, float]:
        return {k: round(v, 6) for k, v in self.__dict__.items()}


def rpc_score(
    ll_empty: float, ll_body: float, ll_evidence: float, n_words: int, alpha: float
) -> RPCScore:
    """The RPC arithmetic from the head's summed log-likelihoods (see the module doc)."""
    n = max(1, n_words)
    l0, l1, l2 = -ll_empty / n, -ll_body / n, -ll_evidence / n
    d_self, d_fact = l0 - l1, l1 - l2
    score = alpha * _sigmoid(d_self) + (1 - alpha) * _sigmoid(d_fact)
    return RPCScore(l0, l1, l2, d_self, d_fact, score)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


VARIABLES = "X and Y are people.\n"


def frames(body: Sequence[str], evidence: Sequence[str]) -> tuple[str, str, str]:
    """Prefixes for ℓ(H|∅), ℓ(H|B) and ℓ(H|B⊕E); the continuation is ``" " + head``."""
    premises = "Premises: " + "; ".join(body) + ".\n"
    facts = "Facts: " + " ".join(e.rstrip(".") + "." for e in evidence) + "\n" if evidence else ""
    return (
        VARIABLES + "Conclusion:",
        VARIABLES + premises + "Conclusion:",
        VARIABLES + facts + premises + "Conclusion:",
    )


class Unavailable(Exception):
    """No backend could give log-likelihoods."""


class Logliks:
    """Log-likelihoods from the configured LLM when it has them, else from the
    ``rpc_provider`` backend (built on first need). A backend that raises ModelError is
    dropped for the rest of the run and the call goes to the next; ``record`` reports it."""

    def __init__(
        self, llm: LLM | None, provider: str, record: Callable[[str, dict[str, Any]], None]
    ) -> None:
        self._backends: list[LLM] = [llm] if llm is not None and llm.supports_loglik else []
        self._provider = provider
        self._built = provider == "none"
        self._record = record
        self.calls = 0

    def _fallback(self) -> None:
        self._built = True
        try:
            backend = LLMS.create(self._provider, LLMSettings(provider=self._provider))
        except (ConfigError, ModelError) as exc:
            self._record("rulemem_rpc_unavailable", {"provider": self._provider, "error": str(exc)})
            return
        if backend.supports_loglik:
            self._backends.append(backend)

    def __call__(self, prefix: str, continuation: str) -> float:
        while True:
            if not self._backends and not self._built:
                self._fallback()
            if not self._backends:
                raise Unavailable("no log-likelihood backend")
            backend = self._backends[0]
            try:
                value = backend.loglik(prefix, continuation)
            except ModelError as exc:
                self._backends.pop(0)
                self._record("rulemem_rpc_backend_failed", {"llm": backend.name, "error": str(exc)})
                continue
            self.calls += 1
            return value


def validate(
    loglik: Logliks,
    body: Sequence[str],
    head: str,
    evidence: Sequence[str],
    alpha: float,
    empty_cache: dict[str, float] | None = None,
) -> RPCScore:
    """Score one rule; ℓ(H|∅) is shared by rules with the same head through ``empty_cache``.
    Raises Unavailable when no backend is left."""
    p_empty, p_body, p_evidence = frames(body, evidence)
    cont = " " + head
    cache = empty_cache if empty_cache is not None else {}
    if head not in cache:
        cache[head] = loglik(p_empty, cont)
    ll_body = loglik(p_body, cont)
    ll_evidence = loglik(p_evidence, cont) if evidence else ll_body
    return rpc_score(cache[head], ll_body, ll_evidence, len(head.split()), alpha)
