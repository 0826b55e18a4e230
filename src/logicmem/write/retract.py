"""Retractions: statements that end an earlier fact instead of adding one.

"I quit smoking", "I'm not allergic to penicillin anymore", "I was wrong, it's 40 mg":
``detect`` reads what such a statement ends, its *content* ("smoking", "allergic to
penicillin", or for a correction the new value "40 mg"), from general patterns: a verb
of ending with the speaker as its subject, a negation closed by "anymore" or "after all"
(or opened by "no longer"), a correction. A plain negation ("I don't like olives") ends
nothing. ``retracted`` then finds the stored fact the content ends, and asks for both a
close lexical match and a close meaning:

- every content lemma is in the fact, and where the content ends on a noun the fact's
  word is not a modifier of another noun ("olives" does not end "likes olive oil", "the
  flu" does not end "got a flu shot");
- the fact states something current, not a past event ("visited Boston last year" stays
  true after "I moved away from Boston"), unless it states a slot or a beginning;
- the content's embedding is close to the fact's predicate (the fact without its subject);
- an ending of a slot (leaving a job at a named employer, moving out of a named place,
  breaking up) ends only a fact that fills that slot (``supersede.slots_of``).

The fact must be the subject's own ("Maya is...", "Maya's car..."), as must the ending
("Maya said: Tom quit smoking" ends nothing of Maya's). A verb of ending with a long
object ("sold cookies at the school bake sale") tells an event, not an ending. A
correction instead ends the one fact that has the same frame (its words other than
values) with a different value: "takes 20 mg of lisinopril" for "it's 40 mg".
Thresholds were set on MiniLM (all-MiniLM-L6-v2); see tests/write/test_retract.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from logicmem.routes.visible.text import fold, lemma, word_form
from logicmem.types import MemoryEntry
from logicmem.write.person import MEMBER_WORDS
from logicmem.write.rules import STOPWORDS, own_words
from logicmem.write.supersede import slots_of

MIN_SIMILARITY = 0.45  # cosine(content, fact predicate) for an ending or a negation
MIN_CORRECTION_SIMILARITY = 0.3  # a correction's content is only a value and its unit
# A verb of ending ends one thing ("smoking", "taking lisinopril", "my job at Google"); an
# object of more content words than this tells an event with its circumstances instead.
MAX_ENDED_WORDS = 3

Kind = Literal["ending", "negation", "correction", "change", "forget", "death"]


@dataclass(frozen=True)
class Retraction:
    """What a statement ends: ``content`` is the ended fact's wording (for a correction,
    the new value); ``verbal`` is set when the content is a verb phrase ("smoking", "doesn't
    smoke"), so its last word is no noun that could modify another."""

    kind: Kind
    cue: str
    content: str
    verbal: bool = False


# Words allowed between the subject and the cue: auxiliaries and adverbs of time or degree.
_AUX = (
    r"(?:is|are|am|was|has|have|had|did|does|do|can|ca|could|will|wo|would|just|finally|"
    r"recently|also|officially|completely|fully|now|already|actually|eventually|totally|"
    r"basically|mostly|really|since|then|lately|pretty much)"
)
# Only completed endings: a habit or a plan ("sells the scarves she knits", "is quitting
# next month", "stops by on Fridays") ends nothing yet.
_ENDING = (
    r"quit|stopped|gave up|given up|sold|moved out of|moved away from|recovered from|"
    r"got over|gotten over|broke up with|broken up with|split up with|divorced|retired from|"
    r"left (?:(?:\w+'s|my|her|his|their|the)\s+)?(?:job|position|role|post|work|company)"
    r"\s+(?:at|with|for)"
)
_CLAUSE_START = r"(?:^|[.;:!?,]\s*|\b(?:and|but|so|now)\s+)"
_NEGATION = r"no longer|not|never|n't"
_PLAIN_NEGATION_END = r"any\s?more|after all"
_CORRECTION = (
    r"(?:was|were) wrong|misspoke|got (?:it|that|this) wrong|had (?:it|that) wrong|"
    r"made a mistake|stand corrected|was mistaken"
)
# A measured thing changed to a new value, by whoever changed it ("the doctor raised my
# metformin to 1000 mg", "my rent went up to 1,500"): a change of the value, not an event.
# Not "moved" or "switched": "moved the meeting to 3 pm" changes one occasion.
_CHANGE = (
    r"raised|increased|upped|bumped(?: up)?|lowered|reduced|decreased|cut(?: back)?|"
    r"dropped|doubled|halved|tripled|adjusted|changed|titrated(?: up| down)?"
)
_CHANGE_INTRANSITIVE = rf"(?:(?:went|gone|goes|go) (?:up|down)|{_CHANGE})"
_THING = r"(?P<thing>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)(?:\s+(?:dose|dosage))?"
_NEW_VALUE = (
    r"(?:\s+from\s+[^,.;]+?)?\s+to\s+(?P<value>\$?\d[\d,]*(?:\.\d+)?)(?:\s*(?P<unit>%|[a-zA-Z]+))?"
)
# Words that follow a number without being its unit ("to 20 a week").
_NOT_UNIT = frozenset(["a", "an", "per", "each", "every", "and", "or", "but", "now", "since"])
# A request to the assistant to forget something the speaker said: closes what it names.
# Not a set-aside for the moment ("forget that I'm vegetarian for tonight").
_FORGET = (
    r"(?:(?:please|so|oh|also|actually|ok(?:ay)?|hey|and)[,\s]+)*"
    r"(?:(?:can|could|would) you\s+)?(?:please\s+)?"
    r"(?P<cue>forget|disregard|delete|erase|remove)\s+"
    r"(?:that|the (?:fact|part|bit|note|memory) (?:that|about)|what \w+ (?:said|told you|"
    r"mentioned) about)\s+(?P<rest>.+)"
)
# A death ends what was current of the one who died ("our dog Biscuit passed away", "we lost
# Grandpa in May"): someone of the household or a pet, or one named.
_PETS = (
    "dog|cat|puppy|kitten|hamster|rabbit|bunny|parrot|bird|budgie|fish|horse|pony|"
    "guinea pig|turtle|tortoise|lizard|snake|ferret|gerbil|rat|mouse"
)
_DIED = r"passed away|passed on|died|was put down|was put to sleep|crossed the rainbow bridge"
_LOST = r"lost|put down|put to sleep|said goodbye to|had to say goodbye to|buried"
_FOR_NOW = re.compile(
    r"\b(?:for (?:now|a (?:sec|second|moment|minute|bit)|today|tonight|this (?:week|time|once))|"
    r"just this once)\b",
    re.IGNORECASE,
)
# Where a content phrase ends: punctuation, a new clause, or when it happened.
_CONTENT_END = re.compile(
    r"\s*(?:[.,;:!?()\u2013\u2014]|\s-\s|\b(?:because|since|so|but|and|or|after|before|"
    r"when|while|which|who|until|last|this|next|ago|yesterday|today|tonight|recently|"
    r"earlier|lately|any\s?more|after all|for (?:good|now|years|months|weeks|a|the|\d+|"
    r"two|three|several|some)|(?:in|on|back in) (?:\d{4}|january|february|march|april|may|"
    r"june|july|august|september|october|november|december)|a (?:few|couple)|\d+ "
    r"(?:days|weeks|months|years))\b)",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"^(?:sure|certain|know|remember|think|care|mind|matter)\b", re.I)
_PREPOSITION = re.compile(r"^(?:by|at|in|on|to|for|off|over|into|with|from|through|out)\b", re.I)
_IT_IS = r"(?:it's|it is|it was|that's|that is|the right \w+ is)"
# Words that are not content: function words, auxiliaries split off by the tokenizer,
# the cue words themselves; and words that, following a noun, do not make it a modifier.
_FUNCTION = STOPWORDS | {
    *("doesn", "don", "didn", "isn", "wasn", "aren", "won"),
    *("hasn", "haven", "couldn", "ca", "t", "s", "ve", "ll", "d", "m", "re", "anymore"),
    *("longer", "any", "more", "after", "all", "actually", "never", "every", "each", "per"),
    *("daily", "weekly", "nightly", "monthly", "yearly", "still", "again", "ago", "since"),
    *("until", "now", "lately", "often", "sometimes", "always", "usually", "regularly"),
    *("last", "next", "since", "who", "whose", "one"),
}
_HAVE = frozenset(["has", "have", "had", "having", "'ve"])
# Place and manner adverbs that may follow the thing itself ("runs a bakery downtown").
_ADVERBS = frozenset(
    ["downtown", "nearby", "abroad", "home", "away", "together", "alone", "online", "too",
     "well", "here", "there", "overseas", "upstate", "locally", "remotely", "part-time",
     "full-time"]
)  # fmt: skip
_BEGINNING = frozenset(
    lemma(w)
    for w in ("started", "began", "took", "adopted", "joined", "bought", "got", "became",
              "moved", "married", "enrolled", "signed", "switched")
)  # fmt: skip


def _subject_pattern(subject: str) -> str:
    # Not "she" or "they": in a memory the speaker is named, a pronoun is someone else.
    return rf"(?:{re.escape(subject)}|I)" if subject else "I"


@lru_cache(maxsize=8192)
def detect(text: str, subject: str) -> Retraction | None:
    """The fact ``text`` ends, if it says that one of ``subject``'s facts no longer holds:
    in the speaker's own words, not the question an answer keeps (``rules.in_reply_to``:
    "Do you still smoke?" ends nothing)."""
    text = own_words(text)
    subj = _subject_pattern(subject)
    forget = _forget(text, subj) if text else None
    if forget is not None:
        return forget  # "Can you forget that ...?" is a request, whatever its mark
    if not text or text.rstrip().endswith("?"):
        return None
    flags = re.IGNORECASE
    # The speaker must be the one who stopped: "Maya said: Tom quit smoking" ends nothing
    # of Maya's. The subject opens a clause; only auxiliaries and adverbs follow it.
    # Not "'s": "Maya's divorced parents" is a possessive.
    lead = rf"{_CLAUSE_START}(?:\w+,?\s+)??{subj}\b(?:\s+{_AUX}|'ve|'m)*\s*"
    found = re.search(lead + rf"(?P<cue>{_CORRECTION})\b", text, flags) or re.search(
        rf"(?:^|[.;:!?]\s*)(?P<cue>actually)[\s,]+(?:{_IT_IS}\s+|(?={subj}\s))", text, flags
    )
    if found is not None:
        rest = re.sub(rf"^[\s,;:.-]*(?:{_IT_IS}\s+)?", "", text[found.end() :], flags=flags)
        rest = re.sub(rf"^{subj}\s+(?:meant\s+)?", "", rest, flags=flags)
        content = _cut(rest, correction=True)
        if content and _values(content, subject):
            return Retraction("correction", found.group("cue").lower(), content)
        return None
    change = _change(text, subject)
    if change is not None:
        return change
    death = _death(text, subject)
    if death is not None:
        return death
    found = re.search(lead + rf"(?P<cue>{_ENDING})\s+(?P<rest>.+)", text, flags)
    if found is not None:
        content = _cut(found.group("rest"))
        if not content or _PREPOSITION.match(content):
            return None  # "stopped by the bakery" is a visit
        if len(content_lemmas(content, subject)) > MAX_ENDED_WORDS:
            return None  # "sold cookies at the school bake sale": an event, told in full
        head = content.split()[-1].lower()
        return Retraction("ending", _norm(found.group("cue")), content, head.endswith("ing"))
    found = re.search(lead + rf"(?P<cue>{_NEGATION})\b\s*(?P<rest>.+)", text, flags)
    if found is None:
        return None
    cue, rest = found.group("cue").lower(), found.group("rest")
    closed = re.search(rf"\b(?:{_PLAIN_NEGATION_END})\b", rest, flags)
    if cue != "no longer" and closed is None:
        return None  # "I don't like olives": a negation, but nothing ended
    content = _cut(rest[: closed.start()] if closed else rest)
    if not content or _HEDGE.match(content):
        return None
    words = content.split()
    # "doesn't smoke anymore": after do-support the content starts with a verb.
    before = text[: found.start("cue")].rstrip().lower()
    do_support = cue in ("n't", "not") and re.search(r"\b(?:do|does|did)$", before)
    verbal = (len(words) == 1 and bool(do_support)) or words[-1].lower().endswith("ing")
    return Retraction("negation", cue, content, verbal)


def _forget(text: str, subj: str) -> Retraction | None:
    """A request to forget what the speaker said ("Please forget that I'm vegetarian",
    "Disregard what I said about my sister"): its content is what it names."""
    found = re.search(rf"(?:^|[.;:!?,]\s*){_FORGET}", text, re.IGNORECASE)
    if found is None or _FOR_NOW.search(found.group("rest")):
        return None
    rest = re.sub(
        rf"^{subj}\s+(?:(?:told you|said|mentioned)\s+(?:about\s+|that\s+)?)?(?=\w)",
        "",
        found.group("rest"),
        flags=re.IGNORECASE,
    )
    content = _cut(rest)
    if not content:
        return None
    return Retraction("forget", found.group("cue").lower(), content, content.endswith("ing"))


def _change(text: str, subject: str) -> Retraction | None:
    """A measured thing of the speaker's (or a household member's) changed to a new value:
    "the doctor raised my metformin to 1000 mg", "my rent went up to $1,500", "my hours
    were cut to 20 a week". The content is the thing, the member named, and the new
    value."""
    name = rf"|{re.escape(subject)}'s" if subject else ""
    owner = rf"(?:my|our{name})(?:\s+(?P<member>[a-z]+)'s)?"
    flags = re.IGNORECASE
    found = re.search(
        rf"\b(?P<cue>{_CHANGE})\s+(?:the\s+(?:dose|dosage|amount)\s+of\s+)?{owner}\s+{_THING}{_NEW_VALUE}",
        text,
        flags,
    ) or re.search(
        rf"\b{owner}\s+{_THING}\s+(?:(?:was|were|has been|have been|got|has|have|just|"
        rf"recently|now)\s+)*(?P<cue>{_CHANGE_INTRANSITIVE}){_NEW_VALUE}",
        text,
        flags,
    )
    if found is None:
        return None
    thing = found.group("thing")
    if not content_lemmas(thing, subject):
        return None  # "raised it to 5": nothing named
    value, unit = found.group("value").rstrip(","), found.group("unit") or ""
    if unit and unit.lower() not in _NOT_UNIT and unit.lower() not in _FUNCTION:
        value = f"{value} {unit}"
    member = found.group("member") or ""
    content = " ".join(w for w in (member, thing, value) if w)
    return Retraction("change", _norm(found.group("cue")), content)


def _death(text: str, subject: str) -> Retraction | None:
    """A death of the speaker's own ("Maya's dog Biscuit passed away", "we lost Grandpa",
    "Biscuit died last night"): the content is who died, a word of the household or a
    pet, or a name. Not someone else's ("the neighbour's cat died")."""
    name = rf"|{re.escape(subject)}'s" if subject else ""
    kin = "|".join(sorted(_MEMBERS))
    own = rf"(?i:(?:my|our{name})\s+(?:(?:old|dear|sweet|beloved|little|late)\s+)?)"
    being = rf"(?P<who>{own}(?i:{_PETS}|{kin})s?\b|[A-Z][a-z]+\b)"
    speaker = rf"(?i:we|I|{re.escape(subject)}(?: and family)?)" if subject else r"(?i:we|I)"
    adverbs = r"(?i:(?:has|had|have|just|sadly|recently|finally|unexpectedly|to)\s+)*"
    found = (
        re.search(
            rf"{being}\s+{adverbs}(?P<cue>(?i:{_DIED}))\b(?!\s+(?i:laughing|of\s+embarr))", text
        )
        or re.search(rf"\b{speaker}\s+{adverbs}(?P<cue>(?i:{_LOST}))\s+{being}", text)
        or re.search(
            rf"\b{speaker}\s+{adverbs}(?P<cue>(?i:put))\s+{being}\s+(?i:down|to sleep)\b", text
        )
    )
    if found is None or re.search(r"(?i:almost|nearly)\s+$", text[: found.start("cue")]):
        return None  # "nearly died of fright" is no death
    who = re.sub(rf"^{own}", "", found.group("who")).strip()
    if fold(who) == fold(subject) or fold(who) in _FUNCTION:
        return None  # the speaker, or a pronoun ("She passed away": whose is unclear)
    return Retraction("death", _norm(found.group("cue")), who)


def _norm(cue: str) -> str:
    return re.sub(r"\s+", " ", cue.lower())


def _cut(rest: str, *, correction: bool = False) -> str:
    """The content phrase: ``rest`` up to where its clause (or its time phrase) ends."""
    rest = re.sub(r"\s*\([^)]*\)", "", rest)  # the rule extractor's date hints
    if correction:
        end = re.search(r"\s*(?:[.;!?()]|\bnot\b|\bbut\b)", rest)
    else:
        end = _CONTENT_END.search(rest)
    phrase = rest[: end.start()] if end else rest
    phrase = re.sub(r"^(?:(?:my|her|his|their|the|a|an|\w+'s)\s+)+", "", phrase.strip(), flags=re.I)
    return phrase.strip(" ,.'\"")


def _words(text: str) -> list[str]:
    """Lowercase word tokens, possessive endings dropped, hyphenated words kept whole."""
    return [re.sub(r"'s$|'$", "", w) for w in re.findall(r"[a-z0-9][a-z0-9'-]*", fold(text))]


@lru_cache(maxsize=16384)
def content_lemmas(text: str, subject: str) -> tuple[str, ...]:
    """``text``'s content words as lemmas, without function words or the subject's name
    (cached: a write compares each new memory with the same neighbours)."""
    name = fold(subject)
    # *have* is kept, as one word: "doesn't have a cat" ends "has a cat", not "is allergic
    # to cats".
    words = ["have" if w in _HAVE else w for w in _words(text)]
    return tuple(lemma(w) for w in words if w not in _FUNCTION and w != name)


def _values(text: str, subject: str) -> set[str]:
    """Numbers and proper names in ``text`` (the values a correction can change)."""
    found = set(re.findall(r"\d+(?:[.,]\d+)?", text))
    for match in re.finditer(r"(?<![.!?]\s)\b[A-Z][\w'-]+", text):
        low = fold(re.sub(r"'s$", "", match.group(0)))
        if match.start() == 0:
            continue  # a sentence's first word is capitalised whatever it is
        if low != fold(subject) and low not in _FUNCTION:
            found.add(low)
    return found


def _owner(subject: str) -> str:
    """The subject opening a statement of its own: the name ("Maya", "Maya's"), or the
    first person of a memory stored verbatim ("I'm", "My")."""
    name = rf"{re.escape(subject)}(?:'s)?|" if subject else ""
    return rf"(?:{name}I'm|I've|I|My)"


def predicate(text: str, subject: str) -> str:
    """``text`` without its subject: what is embedded against a retraction's content."""
    stripped = re.sub(rf"^\s*{_owner(subject)}\s+", "", text, flags=re.IGNORECASE)
    return stripped or text


def _about(fact: str, subject: str) -> bool:
    """Whether ``fact`` is a statement of the subject's own ("Maya is...", "Maya's car
    is..."), not about someone else ("Tom is Maya's brother") or reported ("Maya said:")."""
    pattern = rf"\s*{_owner(subject)}\b(?!\s+said\b)"
    return re.match(pattern, fact, re.IGNORECASE) is not None


def _current(fact: str, subject: str) -> bool:
    """Whether ``fact`` states something that holds now rather than a past event: its
    first verb is not a simple past, or it states a slot or a beginning ("moved to
    Denver", "started smoking", "adopted a cat")."""
    words = _words(predicate(fact, subject))
    skip = {"recently", "just", "finally", "also", "actually", "once", "then", "often"}
    first = next((w for w in words if w not in skip), "")
    if word_form(first) != "past":
        return True
    return bool(slots_of(fact)) or lemma(first) in _BEGINNING


def _modifier_only(fact: str, head: str, content: set[str]) -> bool:
    """Whether every occurrence of ``head`` in ``fact`` only modifies a noun that follows
    ("olive" in "olive oil", "penicillin allergy" in "penicillin allergy test") rather than
    being the thing itself ("olives on pizza")."""
    words = _words(fact)
    places = [i for i, w in enumerate(words) if lemma(w) == head]
    if not places:
        return True
    for i in places:
        j = i + 1
        while j < len(words) and lemma(words[j]) in content:
            j += 1
        after = words[j] if j < len(words) else ""
        if not after or after in _FUNCTION or after in _ADVERBS or not after.isalpha():
            return False
        if word_form(after) in ("past", "ing"):
            return False  # "a cat named Luna", "a bakery selling bread"
    return True


_MEMBERS = frozenset(
    lemma(w)
    for words in (*MEMBER_WORDS.values(), "sister brother kid child children")
    for w in words.split()
)


def _members_fact(fact: str, subject: str) -> bool:
    """Whether ``fact`` is a household member's ("Maya's husband takes ...")."""
    found = re.match(rf"\s*(?:{re.escape(subject)}'s|my)\s+(\w+)", fact, re.IGNORECASE)
    return found is not None and lemma(fold(found.group(1))) in _MEMBERS


def ended_slot(retraction: Retraction) -> tuple[str, str] | None:
    """(slot, value) when ``retraction`` ends a slot of ``supersede``: leaving a job at a
    named employer, moving out of or retiring from a named place, ending a relationship
    (value "": any, with the person named). Such a retraction ends only a fact filling
    that slot ("left my job at Google" ends "works at Google", not "hosts the family at
    Christmas"; "broke up with Tom" ends "is dating Tom", not "plays tennis with Tom")."""
    content, first = retraction.content, retraction.cue.split()[0]
    if first in ("broke", "broken", "split", "divorced", "divorcing"):
        return "relationship", ""  # with the person named: "is dating Tom", "married to Tom"
    job = re.match(r"(?:job|position|role|post)\s+(?:at|with|for)\s+(.+)", content, re.I)
    named = content[:1].isupper()
    value = re.sub(r"\s+", " ", job.group(1) if job else content).strip(" .,").lower()
    if job or first == "left":
        return "employer", value
    if named and first in ("moved", "moving"):
        return "residence", value
    if named and first in ("retired", "retiring"):
        return "employer", value
    return None


def lexical_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` states what an ending, a negation or a request to forget ends,
    word for word (a request to forget may name a past event too)."""
    if not _about(fact, subject):
        return False
    slot = ended_slot(retraction) if retraction.kind == "ending" else None
    if slot is not None:
        value = slots_of(fact).get(slot[0])
        if value is None or (slot[1] and value != slot[1]):
            return False
        if slot[1]:
            return True
    wanted = content_lemmas(retraction.content, subject)
    if not wanted:
        return False
    have = set(content_lemmas(fact, subject))
    if not set(wanted) <= have:
        return False
    if not retraction.verbal and _modifier_only(fact, wanted[-1], set(wanted)):
        return False
    return retraction.kind == "forget" or _current(fact, subject)


# The words for one relative: "we lost Grandma" ends "my grandmother lives with us".
_SAME_KIN = (
    ("grandmother", "grandma", "granny", "nana", "gran"),
    ("grandfather", "grandpa", "granddad", "grandad"),
    ("mother", "mom", "mum", "mommy", "mama"),
    ("father", "dad", "daddy", "papa"),
)


def death_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` holds now of the one who died: names them (a name, or the pet's or
    relative's word), not as the owner of something else ("Grandma's recipe")."""
    if not _about(fact, subject) or not _current(fact, subject):
        return False
    who = retraction.content.lower()
    names = next((group for group in _SAME_KIN if who in group), (who,))
    either = "|".join(map(re.escape, names))
    return re.search(rf"\b(?:{either})s?\b(?!'s|')", fact, re.IGNORECASE) is not None


def correction_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` has the correction's (or the change's) frame with a different
    value. A change of the speaker's own thing does not change a household member's
    ("my dose" is not "my husband's dose")."""
    if not _about(fact, subject):
        return False
    values = _values(retraction.content, subject)
    # A number's digits are its value, however it is grouped ("1,500" is one value).
    frame = [
        w
        for w in content_lemmas(retraction.content, subject)
        if w not in values and not w[:1].isdigit()
    ]
    if not frame or not set(frame) <= set(content_lemmas(fact, subject)):
        return False
    if retraction.kind == "change" and not set(frame) & _MEMBERS and _members_fact(fact, subject):
        return False
    old = _values(fact, subject)
    return bool(old) and not (old & values)


def retracted(
    retraction: Retraction,
    subject: str,
    candidates: Sequence[MemoryEntry],
    embed: Callable[[list[str]], np.ndarray],
) -> list[tuple[MemoryEntry, float]]:
    """The candidates ``retraction`` ends, with the similarity that decided it: every
    match for an ending or a negation, the single best one for a correction."""
    valued = retraction.kind in ("correction", "change")
    match = correction_match if valued else lexical_match
    said = {m.id: own_words(m.text) for m in candidates}
    if retraction.kind == "death":
        found = [m for m in candidates if death_match(retraction, said[m.id], subject)]
        names = {
            n for m in found for n in re.findall(r"\b(?:named|called)\s+([A-Z]\w+)", said[m.id])
        }
        # "Our dog died" with two dogs named: which one is not said.
        return [] if len(names) > 1 else [(m, 1.0) for m in found]
    lexical = [m for m in candidates if match(retraction, said[m.id], subject)]
    if not lexical:
        return []
    vectors = embed([retraction.content, *(predicate(said[m.id], subject) for m in lexical)])
    sims = vectors[1:] @ vectors[0]
    if valued:
        best = int(np.argmax(sims))
        if sims[best] < MIN_CORRECTION_SIMILARITY:
            return []
        return [(lexical[best], float(sims[best]))]
    return [(m, float(s)) for m, s in zip(lexical, sims, strict=True) if s >= MIN_SIMILARITY]
