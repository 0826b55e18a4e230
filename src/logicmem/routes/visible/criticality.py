"""Is a memory a standing constraint that can change future advice, of what type, and
which knowledge entries does it state?

Without an LLM, in order:

0. A memory of advice or praise given to others (``text.gives_advice``) is never one; nor
   is an illness or injury over, an absence, or the topic of something watched or read
   ("Sam's sprained ankle healed ages ago", "Sam isn't on any medication", "Sam watched a
   documentary about sobriety"); nor a general statement or a report of one ("Sickle
   cell disease runs in families", "Sam read that statins can cause aches": ``holds``),
   unless the rules below make it a value, goal or reason, which are views the user
   holds however they are said.
1. The knowledge resource's fact patterns (``kb.KnowledgeBase.match_facts``: lemmatised,
   in order with optional words, in another order, never across a negation, hypothetical
   or past): a match is critical, with the matched entries.
2. Otherwise a memory reporting a friend's, sibling's or coworker's news
   (``text.reports_other``: "Sam's coworker is on Eliquis") is not; nor is one that states
   the fact of an entry of the type the rules below would give it, or of an entry they
   would link, only as not holding (``kb.KnowledgeBase.refused_facts``: "Sam might try keto
   after the holidays", "Sam isn't lactose intolerant after all", "Sam took blood thinners
   back in 2019"), though not one whose planned event is done ("walked the Camino"):
   the classifier reads the words of a fact, not whether it holds. On the hand-written
   paraphrase set (``benchmarks/recognition.py``) this took near misses judged critical
   from 60.5% to 46.9% and lost no positive.
3. A logistic-regression classifier over sentence embeddings (p >= ``P_MIN``), unless the
   memory is at least ``ORDINARY_VETO`` closer to an ordinary example than to every
   prototype ("Sam is training for a 10k" beside "Sam is training for a marathon"); or a
   prototype close enough on its own (``NEAR_MIN``) and ``NEAR_MARGIN`` closer than to any
   ordinary example. The classifier is trained when first needed, once per process for
   a resource and an embedder (a second or two; the examples' vectors are cached per
   machine), on the prototypes, the fact patterns as written and the authored examples
   (``EXAMPLE_FILES``): standing constraints and ordinary life, values, goals and
   reasons, and conversational talk as a store keeps it ("Let Sam know if you need
   anything", ``data/conversation_examples.json``).

   A memory whose form states a value, a goal or the reason behind a past decision
   (``views.view_kind``: "would sooner repair than replace", "is paying off the van
   first", "since the outage, has kept a power bank in every bag") is personal logic of
   that kind (source ``form``) unless the classifier or a prototype already judges it a
   view: the rules above cannot leave it ordinary, nor type it by a word of its theme
   ("keeps a spare key" is no religious rule). Without a linked entry it takes the keys
   of the closest view of the resource.

4. Last, a duty on fixed days (``schedule.commitment``: "Sam picks up his son from
   daycare every weekday", "Sam volunteers at the shelter on Saturdays"; not a pastime,
   not a duty over, wished for or someone else's): a constraint found above gains its
   days as keys, and a memory judged ordinary with no reason against it becomes a
   ``commitment``, keyed by its days (``duties``). Its days are the memory's own, which
   no knowledge entry can list.

The prototypes are the per-type sentences of ``criticality.json``, every fact pattern
written as a short sentence about the prototypes' subject (``text.fact_sentence``: "takes
warfarin" -> "Sam takes warfarin.", "i'm an er nurse" -> "Sam is an er nurse.") and the
authored sentences that state an entry (``links`` in ``criticality_examples.json``: "Sam's
INR gets checked every couple of weeks because of the Coumadin."). A memory is linked to
an entry when its cosine to that entry's closest exemplar is at least ``LINK_MIN``, at
least ``LINK_MARGIN`` above its cosine to the closest ordinary example, and within
``LINK_SPREAD`` of the best entry (at most ``MAX_LINKS``); a pattern match keeps such
links of its own type. The linked entries give the memory its anticipation keys, and the
first one its type. A memory judged critical that links to no entry borrows the keys of
the entry with its closest exemplar (``NEAREST_LINKS``), marked so: on the paraphrase set
(``benchmarks/recognition.py``) that entry is one the memory states 64-65% of the time
(``NEAREST_PRECISION``; linked entries 90%), and the route counts the borrowed keys for
that much. Without keys only its own similarity to a request could engage it, and a
constraint that decides an answer is rarely similar to the request.

The thresholds were chosen by 5-fold cross-validation on the authored examples, each
held-out fold left out of the prototypes, of the ordinary reference set and of the
classifier's training: the link rule on the ``links`` sentences (a link counted right when
its entry shares a fact pattern with the labelled one) against the ordinary examples the
classifier lets through: exemplar sentences reach link F1 0.89 (precision 0.85, recall
0.93), bare patterns 0.40 at their best thresholds, and the previous rule (cosine 0.5 to a
bare pattern) 0.29; the looser same-type link the previous rule fell back on was dropped,
as its links were right at most 26% of the time (8% as it was). The prototype rule and
the veto were chosen on the critical and ordinary examples (classifier alone F1 0.931,
with both 0.937).

Provenance: the example sentences were authored for logicmem from general knowledge; they
are not independent of the development sets, since some earlier authored entries were
written from descriptions that named development-set misses.
``scripts/decontaminate_examples.py``, run after the examples are edited, removes every
critical and ordinary example whose embedding is close to a development item (a ``links``
sentence is used only while it is still among the critical examples).

With a capable LLM: one batched call per write that also proposes the situations where
each constraint will matter.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from importlib import resources
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from logicmem.errors import ModelError
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM, extract_json
from logicmem.prompting import DATA_NOT_INSTRUCTIONS, block
from logicmem.routes.visible.holds import GENERIC, WHY, not_standing
from logicmem.routes.visible.kb import OTHER, PAST, POLARITY, KnowledgeBase, cased_words
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.routes.visible.schedule import COMMITMENT, binds_now, day_keys, recurring_days, when
from logicmem.routes.visible.text import (
    fact_sentence,
    gives_advice,
    no_persons_age,
    reports_other,
)
from logicmem.routes.visible.views import view_kind
from logicmem.store.base import Store

# Thresholds chosen by 5-fold cross-validation on the authored examples (see the module
# docstring): each held-out fold's sentences are left out of the prototypes, the ordinary
# reference set and the classifier's training.
NEAR_MIN = 0.825  # cosine to the nearest prototype that alone makes a memory critical
NEAR_MARGIN = 0.2  # ... when that much closer than to any ordinary example
P_MIN = 0.3  # default of visibility.critical_min: best F1 in 5-fold CV on the examples
L2 = 0.03  # ridge penalty of the classifier (on the weighted mean loss), chosen by 5-fold CV
ORDINARY_VETO = 0.05  # a classified memory this much closer to an ordinary example than
# to every prototype stays ordinary ("training for a 10k" next to "training for a marathon")
SUPPORT_QUANTILE = 0.005  # of the examples' nearest-neighbour cosines (``support_floor``),
# measured without the first of their shared directions (SUPPORT_COMPONENTS); both chosen
# on half A of five hand-written sets (docs/benchmarks.md, "Kept (2026-12-07, session 50)")
# among 0.05, 0.02, 0.01, 0.005 and 0 with 0, 1 and 2 directions. Before: 0.05 with none
SUPPORT_COMPONENTS = 1  # leading directions the training examples share (``common_directions``)
LINK_MIN = 0.7  # cosine to an entry's best exemplar that links a memory to the entry
LINK_MARGIN = 0.1  # ... when that much closer than to any ordinary example
LINK_SPREAD = 0.02  # ... and within this of the best-linked entry
MAX_LINKS = 3
NEAREST_LINKS = 1  # entries a critical memory that links to none borrows keys from
NEAREST_PRECISION = 0.65  # how often that closest entry is one the memory states: 17 of
# the 26 paraphrase-set positives given one (linked entries: 0.89; benchmarks/recognition.py)
# when it was set; 16 of 25 (0.64) since non-ASCII names are renamed too (one sentence
# fewer borrows); 18 of 29 (0.62) at 62ab8c7. Left at 0.65: one sentence there is 3-4
# points. The next two closest are right for 4 and 2 of those 29 more; borrowing their
# keys too, at those rates, traded dev half A items (docs/benchmarks.md)


NEAR_MISS_WHY = {
    POLARITY: "negated or hypothetical",
    PAST: "no longer so",
    OTHER: "someone else's",
}


@dataclass
class Assessment:
    critical: bool
    score: float = 0.0
    ctype: str = ""
    reason: str = ""
    source: str = ""
    entries: list[str] = field(default_factory=list)
    situations: list[str] = field(default_factory=list)
    days: list[str] = field(default_factory=list)  # ``schedule.day_keys`` of a duty
    borrowed: bool = False  # ``entries`` are the closest, not linked (``NEAREST_LINKS``)


class VectorCache:
    """Embeds texts once per store (the store is bound to one embedder); package data
    (prototypes, fact patterns) once per machine, in the user cache directory."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder

    def shared_vectors(self, texts: list[str]) -> np.ndarray:
        digest = hashlib.sha256("\n".join([self.embedder.name, *texts]).encode()).hexdigest()
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "logicmem" / f"vectors-{digest[:20]}.npy"
        if path.exists():
            try:
                cached = np.load(path)
                if cached.shape == (len(texts), self.embedder.dims):
                    return cached.astype(np.float32)
            except (OSError, ValueError):
                pass  # a damaged cache file is recomputed below
        vectors = self.embedder.embed(texts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, vectors)
            tmp.replace(path)
        except OSError:
            pass  # a read-only cache only costs time
        return vectors

    def vectors(self, texts: list[str], user_id: str) -> np.ndarray:
        """Vectors of texts derived from one user's memories (kept with that user's data)."""
        known = VisibleRepository.of(self.store).cached_vectors(user_id, texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = self.embedder.embed(missing)
            VisibleRepository.of(self.store).cache_vectors(user_id, missing, fresh)
            known.update(zip(missing, fresh, strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dims), dtype=np.float32)
        return np.vstack([known[t] for t in texts]).astype(np.float32)


@dataclass
class Classifier:
    """p(critical | embedding) = sigmoid(v . w + b)."""

    w: np.ndarray
    b: float

    def proba(self, vectors: np.ndarray) -> np.ndarray:
        z = np.clip(vectors @ self.w + self.b, -30.0, 30.0)
        result: np.ndarray = 1.0 / (1.0 + np.exp(-z))
        return result


def train_classifier(x: np.ndarray, y: np.ndarray, l2: float = L2) -> Classifier:
    """Class-balanced, L2-regularised logistic regression by Newton's method: exact,
    deterministic, a few iterations on a few thousand examples of 384 dimensions."""
    n, d = x.shape
    xb = np.hstack([x.astype(np.float64), np.ones((n, 1))])
    pos = float(y.sum())
    weight = np.where(y > 0, n / (2 * max(pos, 1.0)), n / (2 * max(n - pos, 1.0))) / n
    reg = np.full(d + 1, l2 / n)
    reg[-1] = 0.0  # the bias is not penalised
    theta = np.zeros(d + 1)
    for _ in range(25):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ theta, -30, 30)))
        grad = xb.T @ (weight * (p - y)) + reg * theta
        hess = (xb * (weight * p * (1 - p))[:, None]).T @ xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if float(np.abs(step).max()) < 1e-7:
            break
    return Classifier(theta[:-1].astype(np.float32), float(theta[-1]))


def _authored(name: str) -> dict[str, Any]:
    path = resources.files("logicmem.data").joinpath(name)
    result: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    return result


# The types of personal logic (``personal_logic_examples.json``): a view the user holds. Said
# as a general statement ("Family dinners come before work"), it is still the speaker's.
VIEWS = frozenset(["value", "goal", "reason"])
# The types a stated age gives (``kb``'s age and child entries).
AGES = frozenset(["age", "child"])

# The authored example files: standing constraints, personal logic (values, goals,
# reasons behind past decisions) and conversational talk, each {"critical": {type: [...]},
# "ordinary": [...], "links": {entry id: [...]}}, any part of which may be absent.
EXAMPLE_FILES = (
    "criticality_examples.json",
    "personal_logic_examples.json",
    "conversation_examples.json",
)


def authored_examples() -> dict[str, Any]:
    """Every authored example file merged: critical sentences per type, ordinary ones, and
    the sentences that state a known entry."""
    merged: dict[str, Any] = {"critical": {}, "ordinary": [], "links": {}}
    for name in EXAMPLE_FILES:
        extra = _authored(name)
        for ctype, sentences in extra.get("critical", {}).items():
            merged["critical"].setdefault(ctype, []).extend(sentences)
        merged["ordinary"].extend(extra.get("ordinary", []))
        for entry_id, sentences in extra.get("links", {}).items():
            merged["links"].setdefault(entry_id, []).extend(sentences)
    return merged


def linked_examples() -> dict[str, list[str]]:
    """The authored sentences that state a known entry (``links`` of the example files),
    each kept only while it is still among the critical examples (the decontamination
    script prunes those)."""
    extra = authored_examples()
    kept = {s for sentences in extra["critical"].values() for s in sentences}
    return {
        entry_id: [s for s in sentences if s in kept]
        for entry_id, sentences in extra["links"].items()
    }


def prototypes(kb: KnowledgeBase) -> tuple[list[str], list[tuple[str, str]]]:
    """The sentences that name a memory's type and knowledge entries, each with its
    (type, entry id or ""): one short list per type (``criticality.json``), every fact
    pattern of the knowledge resource as a sentence about the prototypes' subject
    (``text.fact_sentence``: "takes warfarin" -> "Sam takes warfarin.") and the authored
    sentences that state an entry (``linked_examples``)."""
    texts: list[str] = []
    labels: list[tuple[str, str]] = []
    for ctype, sentences in _authored("criticality.json")["critical"].items():
        texts.extend(sentences)
        labels.extend((ctype, "") for _ in sentences)
    seen: set[tuple[str, str]] = set()
    for entry in kb.entries.values():
        for pattern in entry.fact_patterns:
            if cased_words(pattern):
                continue  # the embedder reads no capitals: "on ART" would be "on art"
            sentence = fact_sentence(pattern, entry.type)
            if (sentence, entry.id) not in seen:
                seen.add((sentence, entry.id))
                texts.append(sentence)
                labels.append((entry.type, entry.id))
    for entry_id, sentences in linked_examples().items():
        if entry_id in kb.entries:
            texts.extend(sentences)
            labels.extend((kb.entries[entry_id].type, entry_id) for _ in sentences)
    return texts, labels


def training_examples(kb: KnowledgeBase) -> tuple[list[str], list[str]]:
    """(critical, ordinary) sentences the classifier learns from: the prototypes, the fact
    patterns as written, and the larger authored sets (``EXAMPLE_FILES``)."""
    critical, _ = prototypes(kb)
    critical.extend(p for _, p in kb.patterns() if not cased_words(p))
    extra = authored_examples()
    critical.extend(s for sentences in extra["critical"].values() for s in sentences)
    ordinary = [*_authored("criticality.json")["ordinary"], *extra["ordinary"]]
    return list(dict.fromkeys(critical)), list(dict.fromkeys(ordinary))


@dataclass
class _Prototypes:
    critical: np.ndarray  # prototype vectors ...
    labels: list[tuple[str, str]]  # ... with their (type, entry id or "")
    ordinary: np.ndarray  # the ordinary-life examples (criticality.json and the authored set)
    classifier: Classifier
    entries: list[str] = field(default_factory=list)  # the entries the prototypes name ...
    entry_of: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # ... and, per prototype, the index of its entry there (-1 for a per-type sentence)
    support: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    # every critical training example without the ``common`` directions, and the cosine
    # to the closest of them that a sentence needs, measured the same way, before the
    # classifier's word counts (``support_floor``)
    support_min: float = 0.0
    common: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    # the directions every example shares (``common_directions``), taken out of a
    # sentence's vector before its support is measured


def common_directions(x: np.ndarray, n: int = SUPPORT_COMPONENTS) -> np.ndarray:
    """The ``n`` leading right singular vectors of the examples ``x``: what they share
    whatever they state. Every example names the same subject ("Sam takes warfarin",
    "Sam likes jazz"), and that name alone puts any sentence about Sam ("Sam is really
    into board games") close to some critical example."""
    if n <= 0 or len(x) == 0:
        return np.zeros((0, x.shape[1] if x.ndim == 2 else 0), dtype=np.float32)
    _, _, vt = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    return vt[:n].astype(np.float32)


def without_common(vectors: np.ndarray, common: np.ndarray) -> np.ndarray:
    """``vectors`` with the ``common`` directions taken out, unit length again."""
    if len(common) == 0:
        return vectors
    rest = vectors - (vectors @ common.T) @ common
    norms = np.linalg.norm(rest, axis=1, keepdims=True)
    out: np.ndarray = rest / np.maximum(norms, 1e-9)
    return out.astype(np.float32)


def support_floor(critical: np.ndarray, quantile: float = SUPPORT_QUANTILE) -> float:
    """How close a sentence must be to some critical training example for the classifier's
    probability to mean anything: the ``quantile`` of each example's cosine to its nearest
    other example. A linear classifier extrapolates: far from every example it was trained
    on ("Sounds good, see you at 7") its probability can be near 1 for no reason."""
    if len(critical) < 2:
        return 0.0
    sims = critical @ critical.T
    np.fill_diagonal(sims, -1.0)
    return float(np.quantile(sims.max(axis=1), quantile))


# What an assessor builds depends only on the knowledge resource and the embedder, so one
# process builds it once per pair (seconds) and every assessor of that pair shares it: a
# service that opens a store per tenant, or a test suite that opens hundreds, pays once.
# Keyed by the embedder's name (as the vectors' disk cache is) and the resource object,
# which the entry holds, so that its id is not reused while the entry lasts.
_BUILT: dict[tuple[str, int], tuple[KnowledgeBase, _Prototypes]] = {}
_BUILT_MAX = 4
_BUILT_LOCK = threading.Lock()


class CriticalityAssessor:
    def __init__(self, kb: KnowledgeBase, cache: VectorCache, threshold: float = P_MIN) -> None:
        self.kb = kb
        self.cache = cache
        self.threshold = threshold
        self._protos: _Prototypes | None = None

    def warm_up(self) -> None:
        self._prototypes()

    def _prototypes(self) -> _Prototypes:
        if self._protos is not None:
            return self._protos
        key = (self.cache.embedder.name, id(self.kb))
        # A service's threads share the build: the first to need it builds (seconds of
        # training) and the others wait, instead of each training its own.
        with _BUILT_LOCK:
            built = _BUILT.get(key)
            if built is None:
                while len(_BUILT) >= _BUILT_MAX:
                    del _BUILT[next(iter(_BUILT))]
                built = _BUILT[key] = (self.kb, self._build_prototypes())
            self._protos = built[1]
        return self._protos

    def _build_prototypes(self) -> _Prototypes:
        texts, labels = prototypes(self.kb)
        critical, ordinary = training_examples(self.kb)
        # One embedding pass: the prototypes and the ordinary prototypes are part of
        # the training examples.
        x = self.cache.shared_vectors(critical + ordinary)
        row = {t: i for i, t in enumerate(critical + ordinary)}
        y = np.r_[np.ones(len(critical)), np.zeros(len(ordinary))]
        entries = list(dict.fromkeys(e for _, e in labels if e))
        index = {e: i for i, e in enumerate(entries)}
        common = common_directions(x, SUPPORT_COMPONENTS)
        support = without_common(x[: len(critical)], common)
        return _Prototypes(
            x[[row[t] for t in texts]],
            labels,
            x[[row[t] for t in ordinary]],
            train_classifier(x, y),
            entries,
            np.array([index[e] if e else -1 for _, e in labels], dtype=np.int64),
            support,
            support_floor(support, SUPPORT_QUANTILE),
            common,
        )

    def assess(self, texts: list[str], vectors: np.ndarray) -> list[Assessment]:
        """Per memory, whether it is a standing constraint (see the module docstring),
        then whether it is a duty on fixed days (``duties``)."""
        return duties(texts, self._assess(texts, vectors))

    def _assess(self, texts: list[str], vectors: np.ndarray) -> list[Assessment]:
        if not texts:
            return []
        protos = self._prototypes()
        labels = protos.labels
        crit_sims = vectors @ protos.critical.T
        ord_best = (vectors @ protos.ordinary.T).max(axis=1)
        probs = protos.classifier.proba(vectors)
        near_support = without_common(vectors, protos.common) @ protos.support.T
        supported = near_support.max(axis=1) >= protos.support_min
        out = []
        for i, text in enumerate(texts):
            if gives_advice(text):
                out.append(Assessment(False, 0.0))
                continue
            why = not_standing(text)
            if why and why != GENERIC:
                out.append(Assessment(False, 0.0, reason=WHY[why]))
                continue
            best = self.entry_similarities(crit_sims[i])
            linked = self._linked_entries(best, float(ord_best[i]))
            matches = self.kb.match_facts(text)
            if matches and why:
                out.append(Assessment(False, 0.0, reason=WHY[why]))
                continue
            if matches:
                # Embedding neighbours join a stated match only when of the same type:
                # "on probation" is not "in my probationary period" at a new job.
                types = {e.type for e, _ in matches}
                same = [j for j in linked if self.kb.entries[j].type in types]
                entries = list(dict.fromkeys([e.id for e, _ in matches] + same))
                entry, pattern = matches[0]
                out.append(Assessment(True, 1.0, entry.type, f"states '{pattern}'", "kb", entries))
                continue
            p = float(probs[i])
            form = view_kind(text)
            if reports_other(text):
                out.append(Assessment(False, p))  # news about a friend or a coworker
                continue
            # Either rule: the classifier, or a prototype close enough on its own.
            j = int(np.argmax(crit_sims[i]))
            near = float(crit_sims[i, j])
            ctype = self.kb.entries[linked[0]].type if linked else labels[j][0]
            kind = ctype.replace("_", " ")
            vetoed = float(ord_best[i]) - near >= ORDINARY_VETO
            if form and ctype not in VIEWS:
                # The form states a view; an embedding's guess of another type, often from
                # a word of the view's theme, does not stand against it.
                ctype = form
                assessment = Assessment(True, 1.0, form, f"states a {form} by its form", "form")
            elif p >= self.threshold and not vetoed and supported[i]:
                assessment = Assessment(
                    True, p, ctype, f"classified as a {kind} constraint (p={p:.2f})", "classifier"
                )
            elif near >= NEAR_MIN and near - float(ord_best[i]) >= NEAR_MARGIN:
                assessment = Assessment(
                    True, near, ctype, f"resembles a {kind} constraint ({near:.2f})", "prototype"
                )
            elif form:
                assessment = Assessment(True, 1.0, form, f"states a {form} by its form", "form")
            else:
                out.append(Assessment(False, p))
                continue
            if why and ctype not in VIEWS:
                out.append(Assessment(False, p, ctype, WHY[why]))
                continue
            if ctype in AGES and no_persons_age(text):
                # "Our mattress is 11 years old" reads to the embedding like a child's age.
                out.append(Assessment(False, p, ctype, "an age of no person (a thing's, a span)"))
                continue
            refused = self._refused(text, ctype, linked)
            if refused:
                out.append(Assessment(False, p, ctype, refused))
                continue
            # A constraint no entry is close enough to link still gets the closest entry's
            # keys: without keys only its own similarity to a request can engage it, and a
            # constraint that decides an answer is rarely similar to the request.
            assessment.entries = linked or self._nearest_entries(
                best, VIEWS if assessment.source == "form" else None
            )
            assessment.borrowed = not linked
            out.append(assessment)
        return out

    def _refused(self, text: str, ctype: str, linked: list[str]) -> str:
        """Why a memory the embedding rules judge a constraint of ``ctype`` (linking
        ``linked``) is none: the resource reads the fact it resembles there, as not holding
        for the speaker ("I'm thinking about going vegan"); "" when it does not."""
        for entry, pattern, why in self.kb.refused_facts(text):
            if entry.type == ctype or entry.id in linked:
                return f"states '{pattern}' as not holding ({NEAR_MISS_WHY[why]})"
        return ""

    def entry_similarities(self, sims: np.ndarray) -> np.ndarray:
        """Per entry (``_Prototypes.entries``), the cosine of a memory to its closest
        exemplar, given the memory's cosines to every prototype."""
        protos = self._prototypes()
        best = np.full(len(protos.entries), -1.0)
        mask = protos.entry_of >= 0
        np.maximum.at(best, protos.entry_of[mask], sims[mask])
        return best

    def _nearest_entries(self, best: np.ndarray, types: frozenset[str] | None = None) -> list[str]:
        """The ``NEAREST_LINKS`` entries with the closest exemplars (``best``: per entry,
        from ``entry_similarities``), for a critical memory ``_linked_entries`` links to
        none; only entries of ``types`` when given (a view read by its form takes the keys
        of the closest view)."""
        protos = self._prototypes()
        closest = (protos.entries[k] for k in np.argsort(-best))
        if types is not None:
            closest = (e for e in closest if self.kb.entries[e].type in types)
        return list(islice(closest, NEAREST_LINKS))

    def _linked_entries(self, best: np.ndarray, ordinary: float) -> list[str]:
        """The entries a memory states by its embedding: an entry's closest exemplar at
        least ``LINK_MIN``, at least ``LINK_MARGIN`` closer than the closest ordinary
        example, and within ``LINK_SPREAD`` of the best entry (at most ``MAX_LINKS``)."""
        protos = self._prototypes()
        if not len(best):
            return []
        order = np.argsort(-best)[: MAX_LINKS * 4]
        top = float(best[order[0]])
        return [
            protos.entries[k]
            for k in order
            if best[k] >= LINK_MIN
            and best[k] - ordinary >= LINK_MARGIN
            and best[k] >= top - LINK_SPREAD
        ][:MAX_LINKS]


LLM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer"},
                    "critical": {"type": "boolean"},
                    "type": {"type": "string"},
                    "situations": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["index", "critical"],
            },
        }
    },
    "required": ["items"],
}

LLM_PROMPT = (
    """For each memory about a user (the lines of the memories block below, one JSON
object each with its index), decide whether it is a standing constraint that can change
future advice (health conditions, allergies, medications, pregnancy, disabilities,
dietary or religious rules, dependants and their ages, pets, legal or immigration status,
rules of their job, financial obligations, recovery, housing rules, vehicles...). For
each critical one give its type (one or two words) and 10-30 short everyday situations,
objects, foods, products or activities in which it will matter even though a request
would not mention it (e.g. tree-nut allergy: macarons, pesto, baklava, granola). Reply
as JSON {"items": [{"index", "critical", "type", "situations"}]}. """
    + DATA_NOT_INSTRUCTIONS
    + "\n\n"
)


def duties(texts: list[str], found: list[Assessment]) -> list[Assessment]:
    """``found`` with every duty on fixed days (``schedule.commitment``) keyed by its days:
    a constraint already found gains them; a memory judged ordinary with no reason against
    it (not stated as over, absent or general, not someone else's news, not advice)
    becomes a ``commitment``, as certain as a stated pattern: its days are stated."""
    out = []
    for text, a in zip(texts, found, strict=True):
        days = recurring_days(text)
        if not days or not binds_now(text):
            out.append(a)
            continue
        if a.critical:
            a.days = day_keys(days)
        elif not a.reason and not (not_standing(text) or reports_other(text) or gives_advice(text)):
            a = Assessment(
                True,
                1.0,
                COMMITMENT,
                f"a standing duty {when(days)}",
                "schedule",
                days=day_keys(days),
            )
        out.append(a)
    return out


def assess_with_llm(llm: LLM, texts: list[str]) -> list[Assessment | None]:
    """The LLM's judgement per text (None where it said nothing). Raises ModelError."""
    listed = block("memories", ({"index": i, "text": t} for i, t in enumerate(texts)))
    reply = llm.chat([{"role": "user", "content": LLM_PROMPT + listed}], schema=LLM_SCHEMA)
    try:
        items = extract_json(reply)["items"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"criticality reply was not valid JSON: {exc}") from None
    out: list[Assessment | None] = [None] * len(texts)
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("index"), int):
            continue
        i = item["index"]
        if 0 <= i < len(texts):
            situations = [str(s).strip().lower() for s in item.get("situations") or []]
            ctype = str(item.get("type") or "other").strip().lower().replace(" ", "_")
            out[i] = Assessment(
                bool(item.get("critical")),
                1.0 if item.get("critical") else 0.0,
                ctype,
                f"judged a {ctype.replace('_', ' ')} constraint by {llm.name}",
                "llm",
                [],
                [s for s in situations if s][:40],
            )
    return out
