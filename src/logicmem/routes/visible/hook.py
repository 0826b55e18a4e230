"""Write time: assess each new memory's criticality and record where it will matter."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence

import numpy as np

from logicmem.config import Settings, VisibilitySettings
from logicmem.errors import ModelError
from logicmem.models.embed.base import Embedder
from logicmem.models.llm.base import LLM
from logicmem.routes.visible.criticality import (
    Assessment,
    CriticalityAssessor,
    VectorCache,
    assess_with_llm,
    duties,
)
from logicmem.routes.visible.kb import KnowledgeBase, load_kb
from logicmem.routes.visible.repo import Criticality, MemoryKey, VisibleRepository
from logicmem.routes.visible.schedule import DAY_KIND
from logicmem.routes.visible.text import (
    neutral_subject,
    subjectless,
    user_names,
    whole_name,
    word_set,
)
from logicmem.store.base import Store
from logicmem.types import MemoryEntry, Scope
from logicmem.write.base import package_digest
from logicmem.write.rules import own_words, reported

MAX_KEYS = 400  # anticipation keys kept per memory


# A capitalised word in any script, hyphenated or not ("Lena", "Raúl", "Ji-ho"), then a
# possessive or a lowercase word.
_NAMED_SUBJECT = re.compile(r"^(?P<name>[^\W\d_](?:[^\W\d_]|-(?=[^\W\d_]))+)(?:'s\b|\s+[a-z])")
# Capitalised sentence starters that are not a person's name.
_NOT_NAMES = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "in",
        "on",
        "at",
        "after",
        "before",
        "when",
        "while",
        "if",
        "during",
        "since",
        "last",
        "next",
        "every",
        "each",
        "both",
        "some",
        "many",
        "most",
        "all",
        "one",
        "two",
        "her",
        "his",
        "their",
        "our",
        "my",
        "your",
        "there",
        "here",
        "today",
        "yesterday",
        "tomorrow",
        "recently",
        "also",
        "and",
        "but",
        "for",
        "from",
        "with",
        "as",
        "to",
        "of",
        "by",
        "everyone",
        "someone",
        "nobody",
        "user",
        "family",
        "friends",
        "people",
        "another",
        "other",
        "once",
        "now",
        "then",
        # adverbs, conjunctions and determiners that open a sentence about the speaker
        "even",
        "ever",
        "no",
        "not",
        "just",
        "only",
        "still",
        "never",
        "always",
        "usually",
        "sometimes",
        "often",
        "apparently",
        "honestly",
        "because",
        "though",
        "although",
        "unless",
        "until",
        "so",
        "such",
        "maybe",
        "perhaps",
        "probably",
        "really",
        "imagine",
        "anyone",
        "nothing",
        "everything",
        "something",
        "between",
        "about",
        "around",
        "without",
        "within",
        "despite",
        "under",
        "over",
        "through",
        "among",
        "along",
        "besides",
        "except",
        "like",
        "unlike",
        "what",
        "why",
        "how",
        "who",
        "where",
        "which",
        "whose",
    ]
)

# A thing, not a person, as the subject ("Peanuts make me break out in hives", "Milk and
# ice cream leave me bloated", "Keeping things simple matters to me", "Honesty matters
# more to me than ..."): a person's name does not end in -ing or an abstract noun's
# suffix, nor head a plural subject ("Lena and her husband have" stops at "her").
_GERUND_OR_ABSTRACT = re.compile(r"^[A-Z][a-z]+(?:ing|ness|ity|ism|ment|tion|sion)$")
_PLURAL_VERBS = word_set(
    "are were have do don't make give leave keep bring trigger cause send help matter "
    "mean terrify scare stress wake bother irritate affect"
)
_NOT_IN_A_SUBJECT = word_set(
    "the a an this that these those her his their my our your its i you he she we they "
    "it me him them us who which says said thinks thought knows believes feels hopes "
    "wants reckons insists claims told"
)
# A thing acting on the body or mind of whoever follows ("Shrimp makes me break out in
# hives", "Dairy gives Omar migraines", "Smoke triggers my asthma").
_CAUSATIVE = re.compile(r"(?:makes|gives|triggers|causes)$")
# The user as the one something matters to ("Tradition matters to me", "Safety comes
# first for Omar", "Convenience is worth paying for when it saves me time").
_EXPERIENCER = re.compile(
    r"\b(?:matters?|means? (?:a lot|everything|the world)|(?:is|are) (?:more |most |so |"
    r"really |very )?important|comes? first|(?:is|are) worth)\b"
)


def thing_subject(text: str) -> bool:
    """Whether a capitalised first word is a thing rather than a person: a gerund or an
    abstract noun, the head of a plural subject (lowercase words and "and" up to a plural
    verb), or what the user values (``_EXPERIENCER``)."""
    words = text.split()
    if not words or words[0].endswith(("'s", "’s")):
        return False  # "Lena's twins are ...": a person's
    if _GERUND_OR_ABSTRACT.match(words[0]):
        return True
    if (
        len(words) > 2
        and _CAUSATIVE.match(words[1])
        and re.match(r"(?:me|my|us|our|[A-Z])", words[2])
    ):
        return True  # "Shrimp makes me break out", "Dairy gives Omar migraines"
    for word in words[1:7]:
        if word in _PLURAL_VERBS:
            return True
        if not re.fullmatch(r"[a-z][a-z-]*", word) or word in _NOT_IN_A_SUBJECT:
            break
    return _EXPERIENCER.search(text) is not None


def acts_on_user(text: str, user_id: str, aliases: Sequence[str] = ()) -> bool:
    """Another person's act towards the user ("Lena lent Omar her car", "Ravi sent a
    birthday card to Omar", said by Omar: "Lena lent me her car"): a name, a verb and,
    within a few plain words, the user (``user_id`` or one of the ``aliases``, the names
    the user speaks under) as its object. Not "Pollen sets off Omar's hay fever" (the
    user's own thing) nor "Heads-up: Omar's dentist ..." (no plain verb after the first
    word)."""
    names = "|".join(re.escape(n) for n in user_names(user_id, aliases))
    user = rf"(?i:{names})(?!'s)|me|us"
    pattern = rf"^[A-Z][a-z]+\s+(?!and\b|or\b)[a-z]+\s+(?:[a-z]+\s+){{0,6}}(?:{user})\b"
    return re.match(pattern, text) is not None


# The speaker, or the user as other memory layers name them ("The user moved to Denver").
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|me|my|mine|myself|we|us|our|[Tt]he user|User)\b")
# Someone named later as a subject or an owner ("... and Brendan's heart races", "If Caleb
# had a dog"), not a place ("... here in Tucson.", "The lease in Denver forbids pets").
_LATER_NAME = re.compile(r"(?:^|(?<=\s))(\S+)\s+([^\W\d_a-z][^\W\d_]*)(?:['’]s\b|\s+[a-z])")
_PLACE_BEFORE = word_set(
    "in at to from of on for with near by into around outside inside across through over "
    "under between via towards toward past beyond behind"
)


def _someone_named_later(text: str) -> bool:
    return any(
        m.group(1).lower() not in _PLACE_BEFORE
        for m in _LATER_NAME.finditer(text)
        if m.start(2) > 0
    )


# What the speaker said of someone else (``rules.reported``: "Omar said: ..."): one whose
# subject is "she" or "his ..." is not about the speaker, who would have said "I" or "my",
# after a word that only links it to what came before ("But she retired years ago").
_ANOTHER = re.compile(
    r"(?:(?:and|but|so|or|because|though|well|oh|yeah|yes|no)\b,?\s+)?"
    r"(?:he|she|they|him|them|his|her|their)\b",
    re.I,
)
# The speaker as the subject near the start ("We adopted ...", "Ever since I ...",
# "Please note I'm ...", "Lena and I ..."): a capitalised first word there is not another
# person's fact.
_SPEAKER_EARLY = re.compile(r"^(?:\S+\s+){0,4}?(?:I|I'm|I've|I'd|We|we|My|my|Our|our)\b")


def _name_like(word: str) -> bool:
    """A hyphenated word is a name when each part is capitalised ("Anne-Marie") or both
    are short syllables ("Ji-ho", "Seo-yeon"), not a compound ("Gluten-free")."""
    head, _, tail = word.partition("-")
    return not tail or tail[:1].isupper() or (len(head) <= 3 and len(tail) <= 4)


def about_user(text: str, user_id: str, aliases: Sequence[str] = ()) -> bool:
    """Whether a memory can be the user's own standing constraint: a store also holds what
    other people said about themselves ("Lena has three kids" in Omar's memory) and
    what they did to the user (``acts_on_user``). The user is ``user_id`` or any of the
    ``aliases``: the names the user's own turns give as speaker, which is how memories
    name the user when the id is an account id ("u-1842" speaking as "Omar")."""
    if subjectless(text):
        return True  # "Takes warfarin daily.": a memory layer's note about its user
    said = reported(text)
    if said and _ANOTHER.match(said[1]):
        return False
    names = user_names(user_id, aliases)
    found = _NAMED_SUBJECT.match(text)
    word = found.group("name") if found else ""
    name = word.lower() if word[:1].isupper() and word[1:2].islower() and _name_like(word) else ""
    capitalised = bool(name) and name not in _NOT_NAMES and name not in {n.lower() for n in names}
    other = capitalised and not thing_subject(text)
    if other and acts_on_user(text, user_id, aliases):
        return False
    if any(whole_name(n).search(text) for n in names):
        return True  # "Omar", "Omar's", "Omar'll"
    if _SPEAKER_EARLY.match(text):
        return True
    if other:
        return False
    # No name first ("Latex gloves make Yuki's hands blister", "If Caleb had a dog ..."):
    # the user's unless someone else is named and the speaker is not.
    return _FIRST_PERSON.search(text) is not None or not _someone_named_later(text)


# What the indexer's verdicts follow besides its settings: the route's code, the write
# path's reading of sentences it borrows, the prompts, and the data it learns from. Any
# change to these makes a new ``VisibilityIndexer.version``.
INDEX_SOURCES = (
    "routes/visible",
    "write",
    "prompting.py",
    "data/anticipation",
    "data/criticality.json",
    "data/criticality_examples.json",
    "data/personal_logic_examples.json",
    "data/conversation_examples.json",
    "data/medicine_names.json",
    "data/places.json",
)


class VisibilityIndexer:
    """A write hook: criticality rows and anticipation keys for every new memory."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm: Callable[[], LLM | None],
        settings: VisibilitySettings,
        kb: KnowledgeBase | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self._llm = llm
        self.kb = kb or load_kb()
        self.cache = VectorCache(store, embedder)
        self.assessor = CriticalityAssessor(self.kb, self.cache, settings.critical_min)

    @property
    def version(self) -> str:
        """``visibility-`` and 12 hex digits of a SHA-256 over the package's
        ``INDEX_SOURCES`` and the settings the verdicts follow (the criticality floor, and
        the LLM that judges, when one may and is capable). A store stamps it on each memory indexed
        (``Store.indexed_otherwise``): after an upgrade or a changed setting, the memories
        indexed before are counted, and ``Memory.reindex`` judges them again."""
        llm = self._llm() if self.settings.use_llm != "never" else None
        return self._version(llm.name if llm is not None and llm.capable else "")

    def _version(self, judge: str) -> str:
        """The version of verdicts that ``judge`` (an LLM's name; "" for none) took part in."""
        decides = {"critical_min": self.settings.critical_min, "llm": judge}
        text = f"{package_digest(*INDEX_SOURCES)}\0{json.dumps(decides, sort_keys=True)}"
        return "visibility-" + hashlib.sha256(text.encode()).hexdigest()[:12]

    def warm_up(self) -> None:
        """Build the criticality classifier now rather than on the first write."""
        if self.settings.enabled:
            self.assessor.warm_up()

    def on_added(self, scope: Scope, entries: list[MemoryEntry], vectors: np.ndarray) -> str | None:
        """Index ``entries``; returns the version that judged them when it is not
        ``version``: the rules' alone, when the LLM that should have judged with them
        failed (so the store counts them as indexed otherwise, and ``reindex`` with
        ``stale`` judges them again once the LLM answers)."""
        if not entries or not self.settings.enabled:
            return None
        # Judged again (``Memory.reindex``): an earlier judgement of them goes first.
        VisibleRepository.of(self.store).clear([e.id for e in entries])
        aliases, others = self._speakers(scope, entries)
        # What the user said, without the question it answers (``rules.own_words``): a
        # question's words ("Are you allergic to anything?") state no fact of theirs.
        said = {e.id: own_words(e.text) for e in entries}
        keep = [
            i
            for i, e in enumerate(entries)
            if e.id not in others and about_user(said[e.id], scope.user_id, aliases[e.id])
        ]
        entries = [entries[i] for i in keep]
        if not entries:
            return None
        # Judged as the prototypes phrase it, the user renamed (``neutral_subject``): the
        # rules read "u-1842 takes warfarin", with an account id for a subject, as a
        # general statement, no one's fact.
        texts = [neutral_subject(said[e.id], scope.user_id, aliases[e.id]) for e in entries]
        found = self.assessor.assess(texts, self._neutral_vectors(entries, texts, vectors[keep]))
        # A capable LLM reads the question too: "Yes, shellfish" needs it.
        judged = self._with_llm(scope, [e.text for e in entries], found)
        stamp = self._version("") if judged is None else None
        found = found if judged is None else judged
        rows = []
        for entry, a in zip(entries, found, strict=True):
            if not a.critical:
                continue
            rows.append(Criticality(entry.id, a.score, a.ctype, a.reason, a.source))
            keys, vectors = self._keys(entry, a)
            if keys:
                VisibleRepository.of(self.store).add_keys(scope.user_id, keys, vectors)
        if rows:
            VisibleRepository.of(self.store).set_criticality(scope.user_id, rows)
        return stamp

    def _speakers(
        self, scope: Scope, entries: list[MemoryEntry]
    ) -> tuple[dict[str, list[str]], set[str]]:
        """Who said each memory, from the turns it came from.

        First, per memory, the names the user speaks under there: the speaker of each
        source turn that is the user's own (role ``user``). A deployment's user id is
        seldom the name its memories use ("u-1842" for the turns of "Omar", whose
        memories read "Omar takes warfarin").

        Second, the memories that came only from other people's turns (role ``other`` or
        ``assistant``). A standing constraint is what the user says of themselves: another
        speaker talks of their own life ("Honestly, I could never keep a dog in my
        studio", written "Honestly, Lena could never ..." in the user's store) or echoes
        the user ("Noted, I'll remember you're on warfarin"), whose own words are stored
        already. Neither is a constraint of the user's, however its words read. A memory
        whose turns are not in the store (written directly) is judged by its words."""
        wanted = list(dict.fromkeys(t for e in entries for t in e.source_turns))
        turns = {turn.turn_id: turn for turn in self.store.get_turns(scope, turn_ids=wanted)}
        names: dict[str, list[str]] = {}
        others: set[str] = set()
        for e in entries:
            said = [turns[t] for t in e.source_turns if t in turns]
            own = [t.speaker for t in said if t.role == "user"]
            names[e.id] = list(dict.fromkeys(s for s in own if s))
            if said and not own:
                others.add(e.id)
        return names, others

    def _neutral_vectors(
        self, entries: list[MemoryEntry], texts: list[str], vectors: np.ndarray
    ) -> np.ndarray:
        """The vectors of ``texts`` (the ``entries``' own words with the user renamed as in
        the prototypes, ``neutral_subject``); only texts that differ from the stored ones
        are embedded again."""
        changed = [i for i, (e, t) in enumerate(zip(entries, texts, strict=True)) if e.text != t]
        if not changed:
            return vectors
        out = np.array(vectors, dtype=np.float32, copy=True)
        out[changed] = self.cache.embedder.embed([texts[i] for i in changed])
        return out

    def _keys(self, entry: MemoryEntry, a: Assessment) -> tuple[list[MemoryKey], np.ndarray]:
        """Keys from the model (embedded per store) and from the linked knowledge entries
        (embedded once per machine, per entry)."""
        memory_id = entry.id
        keys: dict[str, MemoryKey] = {}
        vectors: dict[str, np.ndarray] = {}
        if a.situations:
            fresh = self.cache.vectors(a.situations, entry.user_id)
            for situation, vector in zip(a.situations, fresh, strict=True):
                keys.setdefault(situation, MemoryKey(memory_id, situation, "llm", a.source))
                vectors.setdefault(situation, vector)
        # The days of a duty (``schedule``) are its own keys, engaged only when a request
        # names one: every day's name is close to every other's, so a day key is never
        # matched by similarity (its vector is zero).
        for day in a.days:
            if day not in keys:
                keys[day] = MemoryKey(memory_id, day, DAY_KIND, DAY_KIND)
                vectors[day] = np.zeros(self.cache.embedder.dims, dtype=np.float32)
        # Keys of an entry the memory is only closest to, not linked to, say so.
        kind = "nearest" if a.borrowed else "kb"
        per_entry = []
        for entry_id in a.entries:
            situations = list(self.kb.entries[entry_id].situations)
            per_entry.append((entry_id, situations, self.cache.shared_vectors(situations)))
        # Round-robin over the linked entries, so a cap never drops one entry entirely.
        for i in range(max((len(s) for _, s, _ in per_entry), default=0)):
            for entry_id, situations, vecs in per_entry:
                if i < len(situations) and situations[i] not in keys:
                    keys[situations[i]] = MemoryKey(memory_id, situations[i], kind, entry_id)
                    vectors[situations[i]] = vecs[i]
        chosen = list(keys)[:MAX_KEYS]
        if not chosen:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [keys[k] for k in chosen], np.vstack([vectors[k] for k in chosen])

    def _with_llm(
        self, scope: Scope, texts: list[str], found: list[Assessment]
    ) -> list[Assessment] | None:
        """The rules' verdicts ``found`` with a capable LLM's merged in (unchanged when no
        LLM may judge); None when the LLM failed (recorded as an event)."""
        if self.settings.use_llm == "never":
            return found
        llm = self._llm()
        if llm is None or not llm.capable:
            return found
        try:
            judged = assess_with_llm(llm, texts)
        except ModelError as exc:
            self.store.record_event(
                "criticality_llm_failure", scope.user_id, {"error": str(exc)[:300]}
            )
            return None
        merged = []
        for rule, model in zip(found, judged, strict=True):
            if model is None or not model.critical:
                merged.append(rule)  # the knowledge resource still counts
            elif rule.critical:
                rule.situations = model.situations
                merged.append(rule)
            else:
                merged.append(model)
        return duties(texts, merged)  # a duty the model found keeps its days


def from_settings(
    store: Store, embedder: Embedder, llm: Callable[[], LLM | None], settings: Settings
) -> VisibilityIndexer | None:
    """The ``visibility`` hook of ``WRITE_HOOKS``, on while ``visibility.enabled``."""
    if not settings.visibility.enabled:
        return None
    return VisibilityIndexer(store, embedder, llm, settings.visibility)
