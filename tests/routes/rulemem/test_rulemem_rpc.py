"""RPC arithmetic against hand-computed log-likelihoods, and its backend fallbacks."""

import math

import pytest
from kit import FakeLLM

from logicmem.errors import ModelError
from logicmem.routes.rulemem import rpc

BODY = ["X broke a leg"]
HEAD = "X skips the hike"  # 4 words
EVIDENCE = ["Maya's cast comes off in June."]


def sig(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def test_rpc_score_by_hand() -> None:
    # ℓ per word: 20/4 = 5, 10/4 = 2.5, 4/4 = 1
    s = rpc.rpc_score(-20.0, -10.0, -4.0, 4, alpha=0.4)
    assert (s.nll_empty, s.nll_body, s.nll_evidence) == (5.0, 2.5, 1.0)
    assert (s.delta_self, s.delta_fact) == (2.5, 1.5)
    # 0.4 * σ(2.5) + 0.6 * σ(1.5) = 0.4 * 0.924142 + 0.6 * 0.817574
    assert s.score == pytest.approx(0.860202, abs=1e-6)
    # nothing changes: exactly 0.5, admitted at the default τ = 0.5 (a tie passes)
    assert rpc.rpc_score(-9.0, -9.0, -9.0, 3, 0.4).score == pytest.approx(0.5)
    # the body helps a little (Δself 0.5), the evidence hurts more (Δfact -0.5)
    s = rpc.rpc_score(-6.0, -5.0, -6.0, 2, 0.4)
    assert (s.delta_self, s.delta_fact) == (0.5, -0.5)
    assert s.score == pytest.approx(0.4 * 0.622459 + 0.6 * 0.377541, abs=1e-6)
    assert s.score < 0.5
    # σ(Δ) = PPL_before / (PPL_before + PPL_after)
    ppl0, ppl1 = math.exp(5.0), math.exp(2.5)
    assert rpc.rpc_score(-20.0, -10.0, -10.0, 4, 1.0).score == pytest.approx(ppl0 / (ppl0 + ppl1))


def test_validate_uses_the_frames_and_caches_the_empty_score() -> None:
    llm = FakeLLM()
    empty, body, evidence = rpc.frames(BODY, EVIDENCE)
    assert empty == "X and Y are people.\nConclusion:"
    assert body == "X and Y are people.\nPremises: X broke a leg.\nConclusion:"
    assert evidence == (
        "X and Y are people.\nFacts: Maya's cast comes off in June.\n"
        "Premises: X broke a leg.\nConclusion:"
    )
    cont = " " + HEAD
    llm.logliks = {(empty, cont): -24.0, (body, cont): -8.0, (evidence, cont): -2.0}
    source = rpc.Logliks(llm, "none", lambda kind, detail: None)
    cache: dict[str, float] = {}
    s = rpc.validate(source, BODY, HEAD, EVIDENCE, 0.4, cache)
    # ℓ: 6, 2, 0.5 -> Δself 4, Δfact 1.5
    assert (s.delta_self, s.delta_fact) == (4.0, 1.5)
    assert s.score == pytest.approx(0.4 * sig(4.0) + 0.6 * sig(1.5))
    rpc.validate(source, BODY, HEAD, EVIDENCE, 0.4, cache)
    assert source.calls == 5  # ℓ(H|∅) was asked once for the two validations
    # no evidence: ℓ(H|B⊕E) = ℓ(H|B), Δfact = 0 and σ(0) = 0.5
    s = rpc.validate(source, BODY, HEAD, [], 0.4, cache)
    assert s.delta_fact == 0.0 and s.score == pytest.approx(0.4 * sig(4.0) + 0.3)


class _NoLoglik(FakeLLM):
    supports_loglik = False


def test_falls_back_to_the_rpc_provider_and_records_failures() -> None:
    events: list[str] = []
    record = lambda kind, detail: events.append(kind)  # noqa: E731
    # the generating LLM has no log-likelihoods and the provider does not exist
    source = rpc.Logliks(_NoLoglik(), "no-such-provider", record)
    with pytest.raises(rpc.Unavailable):
        source("Conclusion:", " x")
    assert events == ["rulemem_rpc_unavailable"]
    # a backend that fails at call time is dropped, the call goes to the next
    broken = FakeLLM()  # no logliks set: raises ModelError
    source = rpc.Logliks(broken, "fake", record)
    with pytest.raises(rpc.Unavailable):
        source("Conclusion:", " x")  # the provider "fake" has no loglik for it either
    assert events[1:] == ["rulemem_rpc_backend_failed", "rulemem_rpc_backend_failed"]


def test_model_error_type_is_what_backends_raise() -> None:
    with pytest.raises(ModelError):
        FakeLLM().loglik("a", "b")


def test_settings_defaults_and_env() -> None:
    from logicmem.config import load_settings

    cfg = load_settings(env={}).rulemem
    assert (cfg.alpha, cfg.tau, cfg.rpc_provider) == (0.4, 0.5, "local")
    env = {"LOGICMEM_RULEMEM_TAU": "0.7", "LOGICMEM_RULEMEM_RPC_PROVIDER": "none"}
    cfg = load_settings(env=env).rulemem
    assert cfg.tau == 0.7 and cfg.rpc_provider == "none"
