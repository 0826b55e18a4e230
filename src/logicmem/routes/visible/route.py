"""Query time: which standing constraints earn a place in view for this request.

Every critical memory is scored against the request by ``KeyIndex.match`` (its
anticipation keys named in the request's words or implied by them — a city abroad
implies international travel —, the closest key in embedding space, discounted when many
knowledge entries share it) and by its own similarity to the request; the learned
relevance model (``relevance``) turns these into the probability that the constraint
matters here, times the probability that the memory is a standing constraint at all (the
criticality classifier's, fit on balanced classes, moved to
``visibility.constraint_prior``; a stated fact pattern counts 1); a key the request names
outright counts at least as much as it is specific (``visibility.named_min_specificity``).
A constraint enters the slice only when that probability reaches
``visibility.min_probability``, or a capable LLM's bridge hypothesis names it (see
``bridge``); nothing fills a share for its own sake, so the slice may be empty. A
household member's constraint ("Sam's father uses a wheelchair") counts at least
``visibility.member_weight`` for a request about that member ("my parents' visit",
``text.members_named``), whatever keys it names. For a
question about a named person rather than the speaker's own (``asks_about_someone``), or
about the past or what is true of the speaker (``asks_for_record``: "When did I start
physio?", "What's my sister's address?"), only a key the question names or implies, or a
hypothesis, earns a slot, and the model's
probability counts for ``visibility.recall_weight`` of itself (it is trained on advice
requests; calibrated on such questions). A constraint whose keys are borrowed from its
closest knowledge entry (``criticality.NEAREST_LINKS``) counts them for
``NEAREST_PRECISION``, its own similarity for the rest. The slice takes
at most ``share`` of k, one memory per constraint before a second one, most probable
first; each takes a slot ahead of a semantic hit only when it is more likely to matter
than that hit (``semantic_prior``), so at a small k only strong constraints displace
anything, and at a large k weaker ones take the tail. Only memories valid at the moment
asked about (``RouteEnv.as_of``; now by default) are candidates. Every hit says why it is
there."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any

import numpy as np

from logicmem.context import assembled_hits
from logicmem.routes.base import Method, Proposal, Route, RouteEnv, query_vector, request_date
from logicmem.routes.semantic import SemanticRoute, allowed_ids
from logicmem.routes.visible.bridge import bridges, hypotheses
from logicmem.routes.visible.criticality import NEAREST_PRECISION
from logicmem.routes.visible.expand import dated_days, expansions, place_words_in
from logicmem.routes.visible.intent import record_intent
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.keyindex import KeyIndex, KeyMatch
from logicmem.routes.visible.relevance import (
    FEATURES,
    RelevanceModel,
    features,
    load_model,
    request_windows,
)
from logicmem.routes.visible.repo import MemoryKey, VisibleRepository
from logicmem.routes.visible.term import stated_end
from logicmem.routes.visible.text import (
    ADDRESS_WORDS,
    MEMBER_ROLES,
    member_subject,
    members_named,
    tokens,
)
from logicmem.types import Hit, Scope
from logicmem.write.rules import MONTHS, WEEKDAYS, split_sentences


@dataclass
class _Candidate:
    memory_id: str
    ctype: str
    criticality: float
    why: str
    lexical: str = ""  # the key found in the request's words (or implied by them)
    lexical_weight: float = 0.0  # how specific that key is (less when only implied)
    lexical_specificity: float = 0.0  # ... and its own specificity
    implied_by: str = ""  # set when the request implies the key rather than naming it
    key_ref: str = ""  # the knowledge entry of the named key, else of the closest key
    key_sim: float = 0.0  # the closest key's similarity
    key_score: float = 0.0  # the best key's similarity, discounted when many entries share it
    scored_key: str = ""  # ... that key
    memory_sim: float = 0.0
    hypothesis: str = ""  # the LLM's bridge hypothesis this memory answers
    hypothesis_sim: float = 0.0
    member: str = ""  # the household member the constraint binds, when the request names them
    relevance: float = 0.0  # p(the constraint matters for this request), from the model
    order: int = -1  # position in the store (later = said more recently)
    until: date | None = None  # the last day the memory says it holds (``term.stated_end``)

    @property
    def probability(self) -> float:
        """p(matters) = p(engaged by the request) x p(a standing constraint at all)."""
        return self.relevance * min(1.0, self.criticality)

    @property
    def constraint(self) -> str:
        """What the memory is evidence of: its knowledge entry, else its type."""
        return self.key_ref or self.ctype

    def reason(self) -> str:
        until = f"; holds until {self.until.isoformat()}, as stated" if self.until else ""
        head = f"standing constraint ({self.ctype.replace('_', ' ')}; {self.why}{until})"
        ref = f" ({self.key_ref})" if self.key_ref else ""
        p = f"; p={self.probability:.2f}"
        if self.hypothesis:
            return f"{head}; answers the hypothesis '{self.hypothesis}' ({self.hypothesis_sim:.2f})"
        if self.member and self.lexical_weight == 0.0:
            return f"{head}; the request is about their {self.member}{ref}{p}"
        if self.lexical and self.implied_by:
            return f"{head}; the request implies '{self.lexical}' ({self.implied_by}){ref}{p}"
        if self.lexical:
            return f"{head}; the request mentions '{self.lexical}'{ref}{p}"
        if self.key_score >= self.memory_sim:
            return (
                f"{head}; the request is close to '{self.scored_key}'{ref} ({self.key_sim:.2f}){p}"
            )
        return f"{head}; similar to the request ({self.memory_sim:.2f}){p}"


def without_keys(x: np.ndarray) -> np.ndarray:
    """The relevance features as if the memory had no keys: only its own similarity."""
    out = np.zeros_like(x)
    out[:, FEATURES.index("memory_sim")] = x[:, FEATURES.index("memory_sim")]
    return out


def window_vectors(env: RouteEnv, query: str) -> np.ndarray:
    """The request's vector, then its clauses' when it has several (``request_windows``)."""
    cache = env.cache.setdefault("window_vectors", {})
    if query not in cache:
        if len(cache) > 64:
            cache.clear()
        windows = request_windows(query, env.visibility.max_windows)
        vectors = [query_vector(env, query)[None, :]]
        if windows:
            vectors.append(env.embedder.embed(windows))
        cache[query] = np.vstack(vectors)
    result: np.ndarray = cache[query]
    return result


class _State:
    """What the route reads of one user's store, as arrays, for one version of it: the
    critical memories (id, criticality, type, reason, vector, position in the store) and
    their keys (``KeyIndex``), with each indexed memory's row among the critical ones."""

    def __init__(self, env: RouteEnv, scope: Scope, keys: list[MemoryKey], kmat: np.ndarray):
        rows = VisibleRepository.of(env.store).critical_memories(scope, as_of=env.as_of)
        ids, matrix = env.store.vectors(scope, as_of=env.as_of)
        position = {memory_id: j for j, memory_id in enumerate(ids)}
        rows = [r for r in rows if r.memory_id in position]
        self.rows = rows
        self.at = {r.memory_id: i for i, r in enumerate(rows)}
        self.criticality = np.array([min(1.0, r.score) for r in rows], dtype=np.float32)
        # Which scores are the classifier's probability (fit on balanced classes).
        self.classified = np.array([r.source == "classifier" for r in rows], dtype=bool)
        self.order = np.array([position[r.memory_id] for r in rows], dtype=np.int64)
        dims = matrix.shape[1] if matrix.ndim == 2 and len(ids) else 0
        self.vectors = matrix[self.order] if rows else np.zeros((0, dims), dtype=np.float32)
        self._store = env.store
        self._ends: dict[int, date | None] = {}
        self.index = KeyIndex(keys, kmat, load_kb())
        self.key_rows = np.array(
            [self.at.get(m, -1) for m in self.index.memory_ids], dtype=np.int64
        )
        # Critical memories whose keys are all borrowed from their closest knowledge entry
        # (``criticality.NEAREST_LINKS``): right only ``NEAREST_PRECISION`` of the time.
        self.borrowed = np.zeros(len(rows), dtype=bool)
        if len(self.index):
            nearest = np.array([k.kind == "nearest" for k in self.index.rows])
            every = np.logical_and.reduceat(nearest, self.index.starts)
            indexed = self.key_rows >= 0
            self.borrowed[self.key_rows[indexed]] = every[indexed]

    def ends(self, rows: np.ndarray) -> list[date | None]:
        """The last day each of these critical memories says it holds (``stated_end``),
        read from their texts on first need: only the constraints a request engages."""
        missing = [int(i) for i in rows if int(i) not in self._ends]
        if missing:
            entries = self._store.get_memories([self.rows[i].memory_id for i in missing])
            for i in missing:
                entry = entries.get(self.rows[i].memory_id)
                self._ends[i] = (
                    stated_end(entry.text, entry.said_at or entry.created_at) if entry else None
                )
        return [self._ends[int(i)] for i in rows]

    @cached_property
    def members(self) -> np.ndarray:
        """The household member each constraint binds ("Sam's mother ..."), one column per
        role of ``MEMBER_ROLES``: read from the texts on the first request that names a
        member, not on every rebuild."""
        entries = self._store.get_memories([r.memory_id for r in self.rows])
        out = np.zeros((len(self.rows), len(MEMBER_ROLES)), dtype=bool)
        for i, r in enumerate(self.rows):
            if r.memory_id in entries:
                for role in member_subject(entries[r.memory_id].text):
                    out[i, MEMBER_ROLES.index(role)] = True
        return out


def state(env: RouteEnv, scope: Scope) -> _State:
    """The user's ``_State`` at ``env.as_of``, rebuilt only when the store changed: the
    store hands back the same key matrix object until any write (its cache is stamped by
    the database). Each moment is its own view: the "now" state never serves a past one."""
    keys, matrix = VisibleRepository.of(env.store).memory_keys(scope, as_of=env.as_of)
    cache: dict[tuple[Scope, str | None], tuple[np.ndarray, _State]] = env.cache.setdefault(
        "visible_state", {}
    )
    view = (scope, env.as_of)
    held = cache.get(view)
    if held is None or held[0] is not matrix:
        if len(cache) > 32:
            cache.clear()
        held = (matrix, _State(env, scope, keys, matrix))
        cache[view] = held
    return held[1]


def diverse(tier: list[_Candidate], seen: set[str]) -> list[_Candidate]:
    """One memory per constraint first; further evidence of a constraint already shown
    ("the kids" said seven ways) after the others."""
    first: list[_Candidate] = []
    again: list[_Candidate] = []
    for c in tier:
        (again if c.constraint in seen else first).append(c)
        seen.add(c.constraint)
    return first + again


_FIRST_PERSON = re.compile(
    r"\b(?:I|me|my|mine|myself|we|us|our|ours|ourselves|Me|My|Mine|Myself|We|Us|Our|Ours)\b"
)
# A capitalised word inside a sentence, less the household's forms of address ("Mom",
# "Dad"): "What should we get Dad?" is a request of the user's own.
_NAME_INSIDE = re.compile(
    rf"(?<![.?!]\s)\b(?!(?:{'|'.join(w.title() for w in ADDRESS_WORDS)})\b)[A-Z][a-z]+"
)
_IMPERATIVE = re.compile(
    r"^(?:please\s+)?(?:recommend|suggest|give|find|plan|help|show|tell|list|pick|choose|"
    r"write|make|book|compare|draft|create|prepare)\b",
    re.IGNORECASE,
)

# A request to the assistant ("Can you plan a road trip with Leo?", "Could you suggest a
# cake for Priya?") or for ideas ("Any snack ideas for Leo?", "Gift ideas for Omar?") asks
# for advice about someone, as an instruction does; not "Can Omar swim?".
_ASKS_FOR_ADVICE = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?!ask|tell|remind|remember)|"
    r"any\s+(?:[\w'-]+\s+){0,3}(?:ideas?|suggestions?|tips?|recommendations?|advice)\b|"
    r"(?:[\w'-]+\s+){0,2}(?:ideas?|suggestions?|tips?|recommendations?)\s+for\b)",
    re.IGNORECASE,
)

# Capitalised words that name a time, not a person: "Any ideas for a cabin weekend in
# January?" and "What goes well with ham at Easter?" are requests, not questions about
# someone.
_HOLIDAYS = (
    *("christmas", "easter", "thanksgiving", "halloween"),
    *("hanukkah", "passover", "ramadan", "diwali"),
)
_CALENDAR = frozenset((*MONTHS, *WEEKDAYS, *_HOLIDAYS))


def asks_about_someone(query: str) -> bool:
    """A question about a named person ("What did Priya study in college?"), not a request
    of the speaker's own: no first-person word, not an instruction, and a name inside it;
    a month, a weekday, a holiday or a place (``expand.place_words_in``) is not a name
    ("Any restaurant tips for Lisbon in July?" and "Any brunch spots in Austin?" are
    requests; "What did Austin cook?" asks about someone).
    Standing constraints decide advice; they are not kept in view for such recall
    questions unless the question names or implies one of their keys (similarity alone
    is the semantic route's job)."""
    text = query.strip()
    if _FIRST_PERSON.search(text) or _IMPERATIVE.match(text) or _ASKS_FOR_ADVICE.match(text):
        return False
    places = place_words_in(text)
    return any(_a_name(m.group(), places) for m in _NAME_INSIDE.finditer(text, 1))


# A request for advice asks what to do, get or choose: a modal, or a word of advice unless
# the speaker asks what they did ("What advice did I give Sam?", "When did we plan to
# visit?") or the word names something of theirs ("my best friend", "our plan").
_MODALS_OF_ADVICE = r"should|shall|ought|can|could|must|needs?"
_MODAL = re.compile(rf"\b(?:{_MODALS_OF_ADVICE}|would|wants?)\b", re.I)
_ADVICE = re.compile(
    r"(?<!\bmy )(?<!\bour )(?<!\bhis )(?<!\bher )(?<!\btheir )"
    r"\b(?:recommend(?:s|ations?)?|suggest(?:s|ions?)?|ideas?|tips?|advice|advise|best|better|"
    r"good|worth|safe|okay|ok|options?|alternatives?|any|how to|what if|is it|are there|plan|"
    r"planning|help)\b",
    re.IGNORECASE,
)
# The speaker with someone named ("Priya and I", "both Omar and I") is still the speaker.
_AND_I = r"(?:(?:both\s+)?[A-Z][a-z]+\s+and\s+)"
_OWN_DOING = re.compile(
    rf"\b(?i:did|didn't|have|haven't|had|hadn't|was|wasn't|were|weren't)\s+{_AND_I}?(?:I|we)\b"
)
# What someone named did ("What did Omar recommend?", "Which dish did my sister suggest?"):
# a word of advice there is what was done, not what is asked for.
_SOMEONE = r"(?:[A-Z][a-z]+\b|(?:my|our|the|his|her|their)\s+\w+)"  # "Omar", "my sister"
_DID_SOMEONE = re.compile(rf"\b(?i:did|didn't)\s+(?!you\b|it\b|there\b){_SOMEONE}")
# What someone named says, thinks or feels now ("What does Omar think of my plan?", "How
# does Lena feel about the move?"): the question is about their words or ways, which the
# record holds, as a question about them in the past is. Only verbs a drug or a brand
# does not take: "How does Ozempic make me feel?" asks for advice.
_PERSON_VERB = (
    r"(?:say|tell|mention|describe|call|think|believe|know|feel|want|hope|plan|like|love|"
    r"hate|enjoy|prefer|admire|remember|recommend|suggest)"
)
_DOES_SOMEONE = re.compile(
    rf"^(?i:what|how|which|why|when|where|who)\b.*\b(?i:does)\s+[A-Z][a-z]+\s+"
    rf"(?:(?:usually|often|always|really|still)\s+)?{_PERSON_VERB}\b"
)
_QUESTION = re.compile(
    r"^(?:what|when|where|who|whom|whose|which|why|how|did|didn't|have|haven't|has|had|"
    r"was|were)\b",
    re.IGNORECASE,
)
# The past: an auxiliary of the past before the speaker (``_OWN_DOING``: "did I", "have
# we", "was I") or someone named ("did Omar", "did my son", "was the"), a verb in the past
# after the speaker ("the book I read", "the hotel we liked"; not a verb that only ends
# so, "I bleed"), or before them as its object ("Who told me", "the vet recommended to
# us"), or before what is theirs when the question word is its subject ("What happened to
# our flight?", "Which storm damaged our roof?"; not a state, "Which shoes are suited to my
# feet?", nor the cause of a trouble, "What caused my rash?", which asks for a diagnosis
# that a standing constraint can give); or the past of "be" right after the question word
# ("What was on the menu?", "Which of our bills were paid?"), or how long it took them
# ("How long did it take me to heal?").
_PAST_VERB = (
    r"(?:(?![a-z]*eed\b)[a-z]{2,}ed|went|saw|made|got|gotten|took|taken|did|done|said|told|"
    r"bought|met|began|read|wrote|ate|gave|given|won|lost|found|left|came|became|felt|"
    r"thought|knew|heard|ran|sent|brought|was|were|had|been|seen|spent|built|taught|sang|"
    r"drew|swam|rode|flew|chose|kept|held|wore|caught|sold|paid|forgot|lent|showed)"
)
_PAST = re.compile(
    _OWN_DOING.pattern
    + r"|\b(?i:did|didn't|was|wasn't|were|weren't|has|hasn't|had|hadn't)\s+(?!you\b|it\b|"
    rf"there\b)(?:I\b|we\b|{_SOMEONE})"
    rf"|\b(?:I|[Ww]e)\s+(?:(?:have|had|'ve|'d)\s+)?{_PAST_VERB}\b(?!'t)"
    rf"|\b{_PAST_VERB}\s+(?:to\s+)?(?:me|us)\b"
    r"|^(?i:what|who|which)(?:\s+(?!(?i:is|are|am|be)\b)[\w'-]+){0,3}?\s+(?:(?:has|have|had)\s+)?"
    rf"(?!(?i:caused|triggered)\b){_PAST_VERB}\s+(?:to\s+)?(?:my|our)\b"
    r"|^(?i:what|which|who|whom|whose|where|when)(?:\s+of\s+(?:my|our)\s+[\w'-]+)?\s+"
    r"(?:was|were)\b"
    r"|\b(?i:did)\s+it\s+take\s+(?:for\s+)?(?:me|us)\b"
)
# ... or what is true of them now, asked with a question word ("What's my sister's new
# address?", "Which gym am I a member of?"), or of what is theirs as the subject ("Which
# bus does my son take?", "What does my tattoo stand for?"; not a drug's doing, "What does
# Advil do to my stomach?"); a yes/no question in the present asks for a judgement ("Is my
# rash anything to worry about?", "Am I too old for braces?"). "One of my ..." is the
# speaker's as much ("Which is one of our favourite trails?").
_OF = r"(?:(?:one|some|any|all|each|either|neither|a\s+few|two|three)\s+of\s+)"
_OWN_NOW = re.compile(
    r"^(?i:what|which|who|whom|whose|where|when|how many|how old)\b.*(?:\b(?i:do|am|have)\s+"
    rf"I\b|\b(?i:do|are|have)\s+(?:we|{_AND_I}I)\b|(?:\b(?i:is|are|does|do)|'s|'re)\s+{_OF}?"
    r"(?:my|our)\b)"
)
# How to do something, or what to do: "How long do I roast a chicken?", "What do I wear?"
_HOW_TO = re.compile(
    r"\bhow\s+(?:(?:long|much|many|often|far|soon|hot|early|late)\s+)?(?:do|can|could|"
    r"should|would|will|am|are|does)\s+(?:I|we|my|our)\b|\bwhat\s+(?:do|can)\s+(?:I|we)\s+do"
    r"\s+(?:about|with|if|when|for|to)\b|^what\s+do\s+(?:I|we)\s+[a-z]+\W*$",
    re.IGNORECASE,
)


# An inference about the speaker, asked with "would" or "might" of them ("Would I enjoy
# a week in Lapland?", "What might my grandfather have done for work?"): what they like,
# are or did, which their record supports. Not with a modal of advice or a word of advice
# ("Would I need a visa?", "What would be a good gift for my niece?"), nor about what they
# can do, which a standing constraint decides ("Would I be able to hike it with my knee?",
# "Would I qualify for the grant?", "Could I afford it?").
_INFERS = re.compile(r"\b(?i:would|might)(?:n't)?\s+(?:I|[Ww]e|[Mm]y|[Oo]ur)\b")
_MODAL_OF_ADVICE = re.compile(rf"\b(?:{_MODALS_OF_ADVICE})\b", re.I)  # not "would", "want"
_CAN_DO = re.compile(
    r"\b(?:able|allowed|eligible|qualify|permitted|afford|manage|cope|handle|survive|risk|"
    r"risky|safe|okay|ok|fine|hurt|harm|sick|react)\b",
    re.IGNORECASE,
)


def _infers(asked: str, text: str) -> bool:
    return (
        _INFERS.search(asked) is not None
        and not _MODAL_OF_ADVICE.search(text)
        and not _ADVICE.search(text)
        and not _CAN_DO.search(asked)
        and not _HOW_TO.search(asked)
    )


# A request to be told again what the record holds: "remind me" or "tell me again" before
# what is asked ("Remind me which hotel we booked"), or "do you remember" ("Do you remember
# what Omar said?"); not a reminder to set ("Remind me to call Omar", "remind me about the
# meeting tomorrow").
_TOLD_AGAIN = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:"
    r"(?:remind\s+me|tell\s+me\s+again)\s*,?\s+(?:what|when|where|who|whom|whose|which|why|how|"
    r"whether|if|of)\b|(?:do\s+)?you\s+(?:still\s+)?remember\s+(?:what|when|where|who|whom|"
    r"whose|which|why|how|whether|if|the|my|our|me|us)\b)",
    re.IGNORECASE,
)


def asks_for_record(query: str) -> bool:
    """A question about the past ("When did I start physio?", "Which hotel did we like in
    Rome?", "What was the book I read on the train?", "What did the vet tell us?", "How
    long have I lived here?", "What did Omar suggest for the tap?"), about what someone
    named says or thinks ("What does Omar think of my plan?"), about what is true of the
    speaker or of what is theirs, asked with a question word ("What's my sister's new
    address?", "Which bus does my son take?"), or for an inference about them ("Would I
    enjoy a week in Lapland?"), not a request for advice ("What should I cook?", "Can I
    take ibuprofen with this?", "Any ideas for a gift I forgot to buy?", "How long do I
    roast a chicken?", "Is my rash anything to worry about?", "Would I be able to hike it
    with my knee?"). Like a question about a named person (``asks_about_someone``), it
    asks for evidence that the semantic route finds, and a standing constraint earns a
    slot there only by a key it names or implies. So is a request to be told again what
    was said ("Remind me what the vet said about the stitches", "Do you remember when we
    moved in?"; not "Remind me to call the vet")."""
    text = query.strip()
    asked = asked_sentence(text)
    if _TOLD_AGAIN.match(asked):
        return True
    if not is_question(asked):
        return False
    if _infers(asked, text):
        return True
    if _MODAL.search(text):
        return False
    if _ADVICE.search(text) and not (_OWN_DOING.search(asked) or _DID_SOMEONE.search(asked)):
        return False
    if _HOW_TO.search(asked):
        # How to do something asks for advice, whatever the request tells before it asks
        # ("I bought a cast-iron pan last week, how do I season it?").
        return False
    if _PAST.search(asked) or _DOES_SOMEONE.search(asked):
        return True
    return _OWN_NOW.search(asked) is not None


def asked_sentence(query: str) -> str:
    """The question's own sentence: what a request tells before it asks ("We moved in
    May. What plants suit a north window?") is context, not what is asked."""
    text = query.strip()
    return (split_sentences(text) or [text])[-1]


def is_question(sentence: str) -> bool:
    """Whether a sentence asks: a question word or auxiliary first, or a question mark."""
    return bool(_QUESTION.match(sentence) or sentence.endswith("?"))


# The speaker, in any case as chat types it ("where did i park"); "US", the country, is not.
_SPEAKER = re.compile(r"\b(?i:i|me|my|mine|myself|we|our|ours|ourselves)\b|\bus\b")


def open_to_intent(query: str) -> bool:
    """Whether the learned reading (``intent``) may judge a request: a question about the
    speaker (a first-person word in it; "Why is the sky blue?" asks for neither), with no
    modal of advice ("Can you get me tickets for Friday?", "Which house should we see
    first?"), as the rules read those too."""
    return _open(asked_sentence(query), query)


def _open(asked: str, query: str) -> bool:
    """``open_to_intent`` of a request whose question's own sentence is ``asked``."""
    return (
        is_question(asked)
        and _SPEAKER.search(asked) is not None
        and not _MODAL_OF_ADVICE.search(query)
    )


def reads_as_record(env: RouteEnv, query: str) -> bool:
    """Whether a request of the speaker's own asks for the record: the rules of
    ``asks_for_record``, or, for a question about the speaker they do not read so
    (``open_to_intent``), the learned reading of ``intent`` at
    ``VisibilitySettings.record_intent`` (1.0: the rules alone)."""
    if asks_for_record(query):
        return True
    threshold = env.visibility.record_intent
    if threshold >= 1.0:
        return False
    asked = asked_sentence(query)
    if not _open(asked, query):
        return False
    model = record_intent(env.store, env.embedder)
    # One sentence: the request's own vector, which the routes compute anyway.
    vector = query_vector(env, query if asked == query.strip() else asked)
    return float(model.probability(vector)[0]) >= threshold


def _a_name(word: str, places: frozenset[str]) -> bool:
    """Whether a capitalised word can be a person's name: not a time, nor a word of a
    place the question names (``places``)."""
    folded = tokens(word)
    return word.lower() not in _CALENDAR and bool(folded) and folded[0] not in places


def shifted(p: np.ndarray, prior: float) -> np.ndarray:
    """A probability fit on balanced classes, moved to the stated prior: its odds times
    ``prior / (1 - prior)`` (0.5 leaves it as it is)."""
    if prior == 0.5:
        return p
    q = np.clip(p.astype(np.float64), 1e-9, 1 - 1e-9)
    odds = q / (1 - q) * (prior / (1 - prior))
    return (odds / (1 + odds)).astype(np.float32)


def semantic_prior(p1: float, rank: int, decay: float) -> float:
    """The probability that the semantic hit of this rank is the memory that matters:
    ``p1`` at rank 1, falling as 1/rank**decay (``VisibilitySettings.semantic_decay``, or
    ``recall_decay`` for a question about a named person)."""
    return p1 / float(max(rank, 1)) ** decay


def quota(k: int, share: float) -> int:
    return max(1, math.floor(k * share)) if share > 0 else 0


class VisibleRoute(Route):
    name = "visible"
    priority = 10

    def propose(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> Proposal:
        cfg = env.visibility
        if not cfg.enabled:
            return Proposal([], quota=0)
        recall = (cfg.recall_named_only and asks_about_someone(query)) or (
            cfg.recall_own_past and reads_as_record(env, query)
        )
        engaged = self._engaged(env, query, scope, filters, recall)
        # Ties (constraints engaged through the same key) go to the more recently stated.
        engaged.sort(key=lambda c: (-c.probability, -c.hypothesis_sim, -c.order))
        chosen = diverse(engaged, set())
        n = min(quota(k, cfg.share), len(chosen))
        # The relevance model judges whether a constraint matters to advice; a recall
        # question asks for evidence, which a constraint rarely is: there it competes with
        # the slower envelope ``recall_decay``.
        decay = cfg.recall_decay if recall else cfg.semantic_decay
        return Proposal(
            self._hits(env, chosen[:n]),
            quota=n,
            probabilities=[c.probability for c in chosen[:n]],
            prior=lambda rank: semantic_prior(cfg.semantic_p1, rank, decay),
        )

    def _engaged(
        self,
        env: RouteEnv,
        query: str,
        scope: Scope,
        filters: dict[str, Any] | None,
        recall: bool,
    ) -> list[_Candidate]:
        """The constraints this request engages, scored over arrays; only those become
        candidates (with a bridge hypothesis's, when a capable LLM gave any)."""
        cfg = env.visibility
        st = state(env, scope)
        today = request_date(env)
        out: dict[str, _Candidate] = {}
        allowed = allowed_ids(env, scope, filters)
        if st.rows:
            model = load_model()
            x, match = self._features(env, query, st, model)
            pool = len(st.rows) if cfg.store_pool else 0
            relevance = model.probability(x, pool)
            specific = match.lexical_specificity >= cfg.named_min_specificity
            # A recall question about a named person is the semantic route's job: a
            # constraint merely similar to it, or sharing an everyday word with it ("Which
            # restaurant did Rosa pick?" names 'restaurant', a situation of dozens of
            # entries), would take a slot from the evidence. Only a specific key the
            # question names or implies engages one, and only as far as the model says.
            if not recall:
                # In a request of the user's own, a key named outright that few entries
                # share is evidence on its own however the rest of the request reads.
                relevance = np.maximum(
                    relevance, np.where(specific, match.lexical_specificity, 0.0)
                )
            if st.borrowed.any():
                # Borrowed keys are the memory's own with probability NEAREST_PRECISION;
                # otherwise only its similarity to the request speaks for it.
                b = st.borrowed
                alone = model.probability(without_keys(x[b]), pool)
                relevance[b] = NEAREST_PRECISION * relevance[b] + (1 - NEAREST_PRECISION) * alone
            named = members_named(query) if cfg.member_weight > 0 and not recall else frozenset()
            asked = np.array([role in named for role in MEMBER_ROLES], dtype=bool)
            member = (st.members & asked).any(axis=1) if named else np.zeros(len(st.rows), bool)
            if member.any():
                # A constraint of the household member the request is about.
                relevance = np.maximum(relevance, np.where(member, cfg.member_weight, 0.0))
            if recall:
                # Calibrated on such questions (``VisibilitySettings.recall_weight``).
                relevance = relevance * cfg.recall_weight
            criticality = st.criticality.copy()
            classified = st.classified
            criticality[classified] = shifted(criticality[classified], cfg.constraint_prior)
            probability = relevance * criticality
            ok = probability >= cfg.min_probability
            if recall:
                ok &= specific
            engaged = np.flatnonzero(ok)
            # A constraint whose stated term ended before the day of the request ("can't
            # drive until March", asked in May) holds no more; search still finds it.
            ends = st.ends(engaged)
            for i, until in zip(engaged, ends, strict=True):
                r = st.rows[i]
                if allowed is not None and r.memory_id not in allowed:
                    continue
                if until is not None and until < today:
                    continue
                c = _Candidate(r.memory_id, r.ctype, float(criticality[i]), r.reason)
                c.memory_sim, c.relevance, c.order = (
                    float(x[i, 3]),
                    float(relevance[i]),
                    int(st.order[i]),
                )
                c.key_score, c.key_sim = float(x[i, 0]), float(x[i, 1])
                c.lexical_weight = float(x[i, 2])
                c.until = until
                if member[i]:
                    c.member = MEMBER_ROLES[int(np.argmax(st.members[i] & asked))]
                self._describe(c, st, match, int(i))
                out[c.memory_id] = c
        if hypotheses(env, query, scope):
            ids, matrix = env.store.vectors(scope, as_of=env.as_of)
            position = {memory_id: j for j, memory_id in enumerate(ids)}
            for memory_id, bridge in bridges(env, query, scope, ids, matrix).items():
                if allowed is not None and memory_id not in allowed:
                    continue
                bridged = out.get(memory_id)
                at = st.at.get(memory_id)
                until = st.ends(np.array([at]))[0] if at is not None else None
                if until is not None and until < today:
                    continue
                if bridged is None:
                    bridged = (
                        _Candidate(memory_id, "bridge", 0.5, "named by a bridge hypothesis")
                        if at is None
                        else _Candidate(
                            memory_id,
                            st.rows[at].ctype,
                            float(st.criticality[at]),
                            st.rows[at].reason,
                        )
                    )
                    out[memory_id] = bridged
                bridged.hypothesis, bridged.hypothesis_sim = bridge.hypothesis, bridge.similarity
                # A capable LLM named this fact as deciding: its closeness is the evidence.
                bridged.relevance = max(bridged.relevance, bridge.similarity)
                bridged.order = position.get(memory_id, -1)
        return list(out.values())

    @staticmethod
    def _features(
        env: RouteEnv, query: str, st: _State, model: RelevanceModel
    ) -> tuple[np.ndarray, KeyMatch]:
        """The relevance model's features for every critical memory, and the key match
        aligned with them (a critical memory without keys matches none)."""
        match = st.index.match(
            window_vectors(env, query),
            tokens(query, request=True),
            {tokens(phrase): why for phrase, why in expansions(query)},
            discount=model.discount,
            implied_weight=model.implied_weight,
            dated={(day,): why for day, why in dated_days(query, request_date(env))},
        ).aligned(st.key_rows, len(st.rows))
        return features(match, st.vectors @ query_vector(env, query)), match

    @staticmethod
    def _describe(c: _Candidate, st: _State, match: KeyMatch, i: int) -> None:
        """The keys behind a candidate's score, for its reason."""
        rows = st.index.rows
        if match.scored_row[i] >= 0:
            c.scored_key = rows[match.scored_row[i]].key
            c.key_ref = rows[match.sim_row[i]].ref
        if match.lexical_row[i] >= 0:
            row = rows[match.lexical_row[i]]
            c.lexical, c.key_ref = row.key, row.ref
            c.lexical_specificity = float(match.lexical_specificity[i])
            c.implied_by = match.implied_by.get(i, "")

    @staticmethod
    def _hits(env: RouteEnv, chosen: list[_Candidate]) -> list[Hit]:
        entries = env.store.get_memories([c.memory_id for c in chosen])
        hits = []
        for rank, c in enumerate(chosen, 1):
            entry = entries.get(c.memory_id)
            if entry is None:
                continue
            hits.append(
                Hit(
                    id=entry.id,
                    text=entry.text,
                    score=round(c.probability, 6),
                    score_kind="visibility(p(matters))",
                    route="visible",
                    reason=c.reason(),
                    source_turns=entry.source_turns,
                    session_id=entry.session_id,
                    category=entry.category,
                    said_at=entry.said_at,
                    rank=rank,
                    extras={
                        "constraint_type": c.ctype,
                        "key": c.lexical or c.scored_key,
                        "knowledge_entry": c.key_ref,
                        "probability": round(c.probability, 4),
                    },
                )
            )
        return hits


class VisibleMethod(Method):
    """Semantic retrieval plus the visible slice, as ``context()`` assembles them."""

    name = "visible"

    def search(
        self, env: RouteEnv, query: str, scope: Scope, k: int, filters: dict[str, Any] | None
    ) -> list[Hit]:
        return assembled_hits([SemanticRoute(), VisibleRoute()], env, query, scope, k, filters)
