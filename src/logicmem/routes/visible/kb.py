"""The anticipation knowledge resource: standing constraints and where they matter.

Entries live in package data (``logicmem/data/anticipation/*.jsonl``), each with the
phrases that state the constraint (``fact_patterns``: generic and brand drug names, job
titles, phrasal verbs for falling ill, everyday names of conditions), the situations where
it changes advice (``situations``), the public-knowledge bridge (``why``) and its
``source``.

``KnowledgeBase.match_facts`` finds the entries a memory states. Patterns and memories are
read alike (``text.fact_text``): person, possessives, *be* and *have* normalised, negated
auxiliaries split, "works as" read as *is*, and every word lemmatised, so "Sam has been
taking warfarin" meets "takes warfarin", "Sam is diabetic" meets "diabetic", "came down
with strep" meets the pattern as written, "Sam works as an ER nurse" meets "i'm an er
nurse". A pattern may name a kind of person in braces ("caring for {elder}", ``KINDS``),
which stands for each of its words. A pattern then matches in one of three ways:

- *as written*: its words in order, at most one other word between neighbours where it
  has two content words or starts with *be* ("uses home oxygen" for "uses oxygen", "is a
  licensed psychologist" for "i'm a psychologist"), none for possession of one thing ("my
  kids" is not "her fur kids"). A pattern of one content word matches only in this way and
  in its own form: "retired" is not "retiring", "fostering" is not "we foster kittens".
- *with optional words*, for a pattern of two or more content words: its words in order
  with up to two other words between neighbours ("allergic to most tree nuts", "takes a
  low dose of warfarin"); numbers and adverbs between do not count ("has 2 dogs", "is now
  a fully licensed real estate agent"); no new *be* or *have* between them ("Sam's dog has
  allergies" is not "dog allergy"; a passive is fine: "license was suspended").
- *in another order*, for such a pattern without a negation of its own: all its words
  within a short window (its length plus three) of one clause with only linking words
  between ("diagnosed with mono" for "mono diagnosis", "arthritis in both knees" for "knee
  arthritis", "peanuts, I'm really allergic to them"), not after a possessive ("my dog is
  allergic to chicken" is not "allergic to dogs"), and where a verb comes between, only
  with a word referring back ("them", "what", "something").

Whichever way, a match is refused when what it states does not hold for the speaker:

- a negation, hypothetical or cessation between its words or within three words before
  it in its comma-delimited segment ("not allergic", "no longer vegan", "if I were
  pregnant", "would love to get a dog", "stopped taking warfarin", "thinking about going
  vegan"); a first-person subject closes that scope ("I should mention I'm allergic"
  holds) unless "if", "whether" or "unless" precedes it; a pattern's own negation ("don't
  have a car") is its fact; the first part of a hyphenated compound negates nothing ("a
  no-fuss vegan");
- a past state where the pattern states a present one: a past *be*, "used to", "once" or
  a past verb ("was on warfarin", "took Accutane", "lived in Phoenix", "drove for Uber in
  college"), but not a past "started" or "began" ("just started solids"); a past *had*
  only before possession ("had a dog", while "had back surgery"
  still counts); "was diagnosed with", "was prescribed" start a state; a past-event
  pattern ("had a concussion", "came down with the flu") still matches, unless the clause
  goes on to an earlier time of life ("as a kid", "in high school");
- another person as the subject ("my friend is pregnant", "my coworker's dog", "a friend of
  mine takes warfarin"); a topic
  ("a documentary about long-haul truckers"); a modifier of another noun ("a flu shot", "a
  cold brew", "a vegan burger"), or a part of a hyphenated one ("a no-spray yard", "a
  peanut-free school"); an open future ("a half marathon someday");
- an animal's or a thing's age for a person's ("Luna, the cat, is 5", "Sam's laptop is 5
  years old": ``text.person_ages``), and a pattern of numbers only.

Where two entries of one type match and one match's content words lie inside the other's,
the wider match wins ("type 1 diabetes" is not also "diabetic", a type 2 entry).

``KnowledgeBase.refused_facts`` gives the other side: the entries whose fact a memory
states with the words in place but as negated or hypothetical, over, or someone else's
(``_refusal``), and nowhere as holding. The assessor uses it to overrule an embedding
classifier that reads "Turns out I'm not lactose intolerant" as an intolerance.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from itertools import groupby
from operator import itemgetter

from logicmem.routes.visible.text import (
    MARKERS,
    OTHER_PEOPLE_WORDS,
    PERSON_NOUNS,
    FactText,
    fact_text,
    fact_tokens,
    lemma,
)


def _lemmas(words: str) -> frozenset[str]:
    return frozenset(lemma(w) for w in words.split())


# Words that do not count as content when deciding how loosely a pattern may match.
_FUNCTION = _lemmas(
    "to of for in on at with from by and or as about into than do this that these those "
    "some any all so very really too also still quite just"
)
NEGATION = frozenset(["not", "no", "never", "nor", "neither"])
_PREPOSITIONS = _lemmas("to of for in on at with from by about into")
# After a negation, a verb that makes it an idiom of eagerness: "can't wait to", "can't
# stop", "can't help", "can't resist", "doesn't mind".
_EAGER = _lemmas("wait stop help resist mind")
HYPOTHETICAL = _lemmas(
    "if would might could should maybe perhaps whether unless wonder hypothetically suppose "
    "imagine wish considering"
)
CESSATION = _lemmas("stop quit formerly former once")
_CONDITIONAL = _lemmas("if whether unless")
_FORMERLY = frozenset(["was", lemma("formerly"), lemma("once")])
_ADVERBS = _lemmas(
    "always still also really very just only so quite pretty super severely extremely "
    "mildly slightly badly terribly seriously deathly highly incredibly ever already even "
    "both all then now currently fully officially"
)
_RESUMPTIVE = _lemmas("it them those these one ones something what which that thing")
# What may stand between the words of a pattern said in another order: "diagnosed with
# mono", "peanuts, I'm really allergic to them", "warfarin, which I take".
_LINKERS = (
    _ADVERBS
    | _RESUMPTIVE
    | MARKERS
    | _lemmas("to of for with from on in at by about against do i me")
)
# An earlier time of life after a past event: "broke an arm as a child".
_EARLIER = [
    fact_tokens(phrase)
    for phrase in (
        "as a child", "as a kid", "as a teen", "as a teenager", "as a toddler", "as a baby",
        "as a student", "years ago", "back in", "back when", "in high school", "in college",
        "growing up", "when i was", "when younger",
    )
]  # fmt: skip
# How a pattern names its speaker: "i'm a nurse", "my shift" (``_titles``).
_SPEAKER = frozenset(["i", "poss", "be", "we"])
# Where people one knew at an earlier time of life were met: "a flatmate from uni".
_SCHOOL_DAYS = _lemmas("college school university uni camp freshman sophomore army childhood")
# Other people whose facts a memory may report ("my friend is pregnant").
OTHER_PEOPLE = _lemmas(
    f"{OTHER_PEOPLE_WORDS} sister-in-law sisters-in-law brother-in-law brothers-in-law"
)
# People at large, whose fact a relative clause states ("a food drive for people who lost
# their jobs", "knows someone who is allergic to shellfish"); not a comparison ("like many
# people, Sam is ...").
_PEOPLE_WHO = _lemmas(
    "people others someone somebody anyone anybody everyone everybody strangers couple "
    "family families man men woman women guy guys lady ladies person"
)
# People met or seen, whose fact a sentence tells: "saw a blind man with a guide dog".
_STRANGERS = _lemmas("man men woman women guy lady person stranger strangers")
# What may open a sentence before its subject: "and caring for him was ..."
_OPENERS = _lemmas("and but so then honestly frankly")
# What starts a relative clause after a subject: "caring for my dad, who was ill"
_RELATIVE = _lemmas("who whom whose which that where while when")
_SCOPE = 3  # words before a match where a negation or hypothetical still governs it
# After "was", the start of a state: "was diagnosed with celiac", "was prescribed warfarin".
_ONSET = _lemmas("diagnosed prescribed started put told found born")
# A past form of these states that something began and goes on: "just started solids".
_BEGUN = _lemmas("start begin")
# A past form of these before a match ends what it states: "took Accutane as a teenager".
_STATE_VERBS = _lemmas("take use wear live drive work own eat keep follow rent fly ride")
# A word after a match that makes it a modifier of another noun: "flu shot", "cold brew".
_COMPOUND = _lemmas(
    "shot shots vaccine vaccines jab jabs season brew brews snap front plunge weather "
    "toy toys sitter walker park show cafe costume meme video videos butter sauce burger "
    "burgers restaurant restaurants recipe recipes option options dish dishes meal meals menu "
    "cheese sausage bakery brand cookbook friendly friend friends buddy buddies classmate "
    "classmates reunion sweetheart"
)
# A clause that goes on to put the fact off into an open future: "a marathon someday".
_SOMEDAY = _lemmas("someday eventually")
# A way of eating said of a dish is the dish's ("a vegan curry", "vegetarian lasagna"),
# unless what follows is the eater or the diet ("a vegan chef", "a vegetarian diet").
_WAY_OF_EATING = _lemmas("vegan vegetarian pescatarian pescetarian keto plant-based meatless")
_THE_EATER = _lemmas(
    "diet diets lifestyle chef cook eater person household family athlete last next most since ago"
)
# A faith or church named of an occasion, a place or another person is theirs, not the
# speaker's: "a Hindu wedding", "the Buddhist centre", "Catholic school", "a Muslim
# roommate"; still the speaker's before a word of the speaker's own life ("a Hindu
# family", "a practicing Catholic").
_AFFILIATION = _lemmas(
    "muslim hindu catholic buddhist quaker jewish sikh jain mormon christian orthodox coptic "
    "protestant evangelical baptist methodist adventist pentecostal anglican lutheran "
    "presbyterian amish mennonite rastafarian zoroastrian"
)
_OCCASION = _lemmas(
    "wedding weddings funeral funerals service services ceremony ceremonies memorial "
    "celebration celebrations festival festivals holiday holidays temple temples church "
    "churches cathedral mosque mosques synagogue synagogues shrine monastery centre center "
    "school schools college university hospital charity cemetery friend friends roommate "
    "roommates colleague colleagues coworker coworkers neighbour neighbours neighbor "
    "neighbors classmate classmates boss guest guests wedding-guest art architecture music "
    "choir cuisine restaurant restaurants bakery butcher shop shops market calendar tradition "
    "traditions"
)
# A talk or medium whose topic a match is: "a documentary about long-haul truckers".
_MEDIA = _lemmas(
    "documentary article book podcast show movie film video lecture talk class course "
    "story post episode series report news novel memoir biography sitcom drama thriller "
    "play musical essay poem"
)
# People who work for others, named by what they do: after a possessive, the fact said
# of them is theirs ("her son's coach has diabetes", "my yoga teacher is pregnant"; not
# "my doctor put me on Zoloft").
_SERVING = _lemmas(
    "teacher coach instructor trainer tutor professor nurse doctor physician surgeon dentist "
    "hygienist therapist counselor psychologist pharmacist vet veterinarian judge officer cop "
    "detective deputy driver pilot chef cook baker barista bartender waiter waitress server "
    "mechanic plumber electrician contractor lawyer attorney accountant agent realtor broker "
    "banker advisor planner manager supervisor landlord landlady nanny babysitter sitter "
    "walker groomer stylist hairdresser barber priest pastor rabbi imam minister author "
    "writer host captain paramedic firefighter soldier"
)
# Whom a one-word fact before them describes instead of the subject ("tennis with a retired
# judge", "a pregnant woman"), unless said of the subject ("Sam is a retired judge").
_DESCRIBED = (
    _SERVING | OTHER_PEOPLE | _lemmas("man men woman women guy lady person people stranger")
)
# Workplaces, schools and other bodies, whose move or closing is not the speaker's.
_BODIES = _lemmas(
    "company firm office team department school college university gym clinic hospital "
    "store shop business employer church club agency bank restaurant factory"
)
# Prepositions of time and place before someone met: "after a rideshare driver ...".
_TIME_WORDS = _lemmas("after before since during like near behind beside")
# What says the phrase after it is the subject's: "is a nurse", "became", "trained as".
_COPULA = _lemmas("be was become became remain stay as")


# Kinds of people a fact pattern may name in braces: "caring for {elder}" is matched as
# "caring for mother", "caring for grandpa" and so on (``readings``), and read as its first
# reading where a pattern serves as a sentence (the classifier's examples and prototypes).
KINDS: dict[str, tuple[str, ...]] = {
    "elder": (
        "mother", "mom", "mum", "father", "dad", "parent", "grandmother", "grandma", "granny",
        "nana", "grandfather", "grandpa", "grandparent", "aunt", "uncle",
    ),
    "partner": ("husband", "wife", "partner", "spouse"),
}  # fmt: skip
_KIND = re.compile(r"\{(\w+)\}")
_KIND_WORDS = frozenset(lemma(w) for words in KINDS.values() for w in words)
# The household, whose job is theirs, not the user's: "my husband is a nurse".
_HOUSEHOLD = _KIND_WORDS | _lemmas(
    "son daughter kid kids child children boy girl teen teenager stepson stepdaughter"
)


def readings(pattern: str) -> list[str]:
    """The patterns ``pattern`` stands for: itself, or one per word of each kind it names
    in braces ("caring for {partner}" -> "caring for husband", "caring for wife", ...)."""
    found = _KIND.search(pattern)
    if not found:
        return [pattern]
    if found.group(1) not in KINDS:
        raise ValueError(f"unknown kind {found.group(0)} in fact pattern {pattern!r}")
    head, tail = pattern[: found.start()], pattern[found.end() :]
    return [r for w in KINDS[found.group(1)] for r in readings(head + w + tail)]


def _gap(needle: tuple[str, ...]) -> int:
    """Words allowed between a pattern's words: one when it has two content words ("uses
    oxygen" in "uses home oxygen") or is a copula ("is a psychologist" in "is a licensed
    psychologist"); none for possession of one thing ("my kids" is not "her fur kids")."""
    return 1 if len(set(needle) - MARKERS) > 1 or needle[0] in ("be", "was", "had") else 0


# An abbreviation that is also an everyday word is written in the resource in capitals
# ("on ART", antiretroviral therapy; "on PrEP"; "get SNAP"): a text states it only where it
# writes the word so, with two capitals or more. "Working on art for the fair" is no HIV
# medication, "on prep duty" none either.
_CASED = re.compile(r"\b[A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z]*\b")


def cased_words(text: str) -> frozenset[str]:
    """The words ``text`` writes with two capitals or more, in lower case ("on PrEP" ->
    {"prep"}): for a pattern, the abbreviations a text must write so."""
    return frozenset(w.lower() for w in _CASED.findall(text))


@dataclass(frozen=True)
class Pattern:
    """A fact pattern as the matcher reads it."""

    text: str
    read: FactText
    loose: tuple[int, ...]  # indices of the words a looser match needs
    content: int  # how many content words it has
    past: bool  # it states a past event ("had a concussion", "was evicted")
    blockers: frozenset[str]  # negations, hypotheticals, cessations it does not contain
    cased: frozenset[str] = frozenset()  # words a text must write in capitals (``_CASED``)
    title: bool = False  # a job's title ("rideshare driver"), of an occupation entry
    job: bool = False  # of an occupation entry: a household member's job is not the user's

    @property
    def words(self) -> tuple[str, ...]:
        return self.read.words


def compile_pattern(text: str) -> Pattern:
    read = fact_text(text)
    words = read.words
    loose = [i for i, w in enumerate(words) if w != "do"]
    content = sum(1 for w in words if w not in MARKERS and w not in _FUNCTION)
    past = any(read.past) or any(w in ("was", "had") for w in words)
    blockers = (NEGATION | HYPOTHETICAL | CESSATION) - set(words)
    if set(words) & NEGATION:
        blockers -= NEGATION  # a pattern that carries its own polarity ("not 21 yet")
    return Pattern(text, read, tuple(loose), content, past, frozenset(blockers), cased_words(text))


@dataclass(frozen=True)
class Entry:
    id: str
    type: str
    domain: str
    fact_patterns: tuple[str, ...]
    situations: tuple[str, ...]
    why: str
    source: str
    pattern_tokens: tuple[tuple[str, ...], ...] = field(default=(), repr=False)
    compiled: tuple[Pattern, ...] = field(default=(), repr=False)
    ages: tuple[int, int] | None = None  # ``age_range`` of its patterns


def _in_order(words: tuple[str, ...], needle: list[str], gap: int) -> Iterator[list[int]]:
    """Positions of ``needle``'s words in order, at most ``gap`` words between neighbours
    (the earliest such run from each start)."""
    for start, word in enumerate(words):
        if word != needle[0]:
            continue
        at = [start]
        for want in needle[1:]:
            nxt, skipped = None, 0
            for j in range(at[-1] + 1, len(words)):
                if words[j] == want:
                    nxt = j
                    break
                # a number or an adverb does not count: "has 2 dogs", "is now a fully ..."
                if not words[j].isdigit() and words[j] not in _ADVERBS:
                    skipped += 1
                if skipped > gap:
                    break
            if nxt is None:
                break
            at.append(nxt)
        else:
            yield at


def _any_order(words: tuple[str, ...], needle: list[str], span: int) -> Iterator[list[int]]:
    """Positions of all of ``needle``'s words within ``span`` words, not in its order."""
    wanted = set(needle)
    for start, word in enumerate(words):
        if word not in wanted:
            continue
        used: set[int] = set()
        at: list[int] = []
        for want in needle:
            nxt = next(
                (j for j in range(start, min(len(words), start + span))
                 if words[j] == want and j not in used),
                None,
            )  # fmt: skip
            if nxt is None:
                break
            used.add(nxt)
            at.append(nxt)
        else:
            if min(at) == start and at != sorted(at):
                yield at


def _earlier(text: FactText, hi: int) -> bool:
    """Whether the clause goes on, within a few words, to an earlier time of life."""
    words = text.words
    end = hi + 1
    while end < len(words) and end <= hi + 8 and text.clause[end] == text.clause[hi]:
        end += 1
    tail = words[hi + 1 : end]
    return any(
        tail[i : i + len(phrase)] == phrase
        for phrase in _EARLIER
        for i in range(len(tail) - len(phrase) + 1)
    )


def _verb(text: FactText, j: int) -> bool:
    """A *be* or the verb *have* (not a possessive determiner)."""
    word = text.words[j]
    return word in ("be", "was", "had") or (word == "poss" and text.have[j])


def _before(text: FactText, lo: int, same: tuple[int, ...]) -> Iterator[int]:
    """The words before position ``lo`` in its clause or segment (``same``), nearest first:
    up to ``_SCOPE`` words that are not function words, and the function words between."""
    counted = 0
    for j in range(lo - 1, -1, -1):
        if same[j] != same[lo] or counted >= _SCOPE:
            return
        yield j
        if text.words[j] not in _FUNCTION and text.words[j] not in MARKERS:
            counted += 1


def _blocks(text: FactText, j: int, pattern: Pattern) -> bool:
    """Whether the word at ``j`` negates, puts off or ends ``pattern``'s fact: one of its
    blockers, and not the first part of a compound, which modifies the compound's own
    head ("a no-fuss vegan" is vegan)."""
    return text.words[j] in pattern.blockers and not text.joined[j]


# Why a match does not state the fact as holding for the speaker (``_refusal``): its words
# do not form the fact (a compound, another predicate, a topic); or they do, and the fact
# is negated or put off, over (a state that ended), or someone else's, which make the
# sentence a near miss of the fact (``KnowledgeBase.refused_facts``); or the pattern's
# event is done ("walked the Camino" for "walking the camino"), which is no near miss: what
# it led to may well hold.
STRUCTURE, POLARITY, PAST, OTHER = "structure", "polarity", "past", "other"
DONE = "done"  # a past event the pattern states as pending: it may have left a new state
NEAR_MISS = frozenset([POLARITY, PAST, OTHER])


def _of_a_dish(text: FactText, at: list[int], hi: int) -> bool:
    """Whether a one-word way of eating is said of the dish that follows it."""
    words = text.words
    if not any(words[j] in _WAY_OF_EATING for j in at) or hi + 1 >= len(words):
        return False
    nxt = words[hi + 1]
    return (
        text.clause[hi + 1] == text.clause[hi]
        and nxt.isalpha()
        and nxt not in _FUNCTION
        and nxt not in MARKERS
        and nxt not in _ADVERBS
        and nxt not in NEGATION
        and nxt not in _THE_EATER
    )


def _of_an_occasion(text: FactText, at: list[int], hi: int) -> bool:
    """Whether a match that ends in a faith's name is said of the occasion, place or
    person that follows it (``_OCCASION``)."""
    words = text.words
    return (
        words[hi] in _AFFILIATION
        and hi + 1 < len(words)
        and words[hi + 1] in _OCCASION
        and text.clause[hi + 1] == text.clause[hi]
    )


def _apart(text: FactText, at: list[int], pattern: Pattern, idx: list[int]) -> bool:
    """Whether a looser match's words belong to two phrases: a negation that makes an idiom
    of eagerness with the next verb ("can't wait to drive" is no "don't drive"; "not
    allowed to drive" still is), or a preposition whose object comes before the pattern's
    next word ("in Denver with a high-school friend" is no "in high school"; "is married
    to a nurse" is no "is a nurse")."""
    words = text.words
    for n in range(len(at) - 1):
        between = [w for w in words[at[n] + 1 : at[n + 1]] if w not in _ADVERBS]
        if not between:
            continue
        word = pattern.words[idx[n]]
        if word in NEGATION and between[0] in _EAGER:
            return True
        if word in _PREPOSITIONS and any(w in _PREPOSITIONS for w in between):
            return True
        if word == "be" and any(w in _PREPOSITIONS for w in between):
            return True  # "is married to a police officer" is no "is a police officer"
    return False


def _told_as_past(text: FactText, lo: int, hi: int) -> bool:
    """Whether a match that opens with a verb in -ing is the subject of a past *be* or
    *have* that follows it: "caring for my mother was the hardest year" tells of a time
    that is over ("caring for my mother is hard" does not; nor does a relative clause
    between, "caring for my dad, who was ill, ...")."""
    words = text.words
    if text.form[lo] != "ing" or any(
        words[j] not in _ADVERBS and words[j] not in _OPENERS
        for j in range(lo)
        if text.segment[j] == text.segment[lo]
    ):
        return False  # not the sentence's subject: "I'm caring for my mother"
    for j in range(hi + 1, min(len(words), hi + 6)):
        if text.clause[j] != text.clause[hi] or words[j] in _RELATIVE:
            return False
        if words[j] in ("was", "had"):
            return True
        if _verb(text, j) or text.past[j] or text.form[j] == "past":
            return False
    return False


def _said_of_another(text: FactText, at: list[int], pattern: Pattern) -> bool:
    """Whether a match has someone outside the household inside it, not joined to
    the pattern's person by "and": "my mom said her neighbor has dementia" is the
    neighbor's dementia, not "mom has dementia"."""
    words = text.words
    lo, hi = min(at), max(at)
    for j in range(lo + 1, hi):
        if j in at or words[j] not in OTHER_PEOPLE or words[j] in pattern.words:
            continue
        if not any(words[k] in ("and", "or") for k in range(lo + 1, j)):
            return True
    return False


def _refusal(text: FactText, at: list[int], pattern: Pattern, idx: list[int], mode: str) -> str:
    """Why a match at ``at`` (of the pattern's words ``idx``) does not state the fact as
    holding for the speaker, or "" when it does: see the module docstring."""
    words = text.words
    lo, hi = min(at), max(at)
    matched = set(at)
    inside = [j for j in range(lo, hi + 1) if j not in matched]
    if any(text.joined[j] and j + 1 not in matched for j in at):
        return STRUCTURE  # a part of a compound: "a no-spray lawn" is not "no lawn"
    needed = set(pattern.words)
    verbs = [
        j
        for j in inside
        if _verb(text, j)
        and words[j] not in needed
        # a passive is not a new predicate: "license was suspended"
        and not (words[j] in ("be", "was") and j + 1 in matched and text.form[j + 1] == "past")
    ]
    if mode != "reversed" and verbs:
        return STRUCTURE  # "Sam's dog has allergies" is not "dog allergy"
    if mode == "ordered" and any(words[j] == "your" for j in inside):
        # The listener's thing between the words, beyond the pattern's own gap: they
        # belong to two phrases ("sorry to hear about your loss" is no "hearing loss").
        return STRUCTURE
    if mode != "exact" and text.clause[lo] != text.clause[hi]:
        return STRUCTURE
    if mode == "ordered" and _apart(text, at, pattern, idx):
        return STRUCTURE
    if mode == "reversed":
        if lo > 0 and words[lo - 1] == "poss":
            return STRUCTURE  # "my dog is allergic to chicken" is not "allergic to dogs"
        if any(words[j] not in _LINKERS for j in inside):
            return STRUCTURE  # "a phone chat with an old friend" is not "old phone"
        after = range(lo, min(len(words), hi + 3))
        if verbs and not any(words[j] in _RESUMPTIVE for j in after):
            return STRUCTURE
        if not pattern.past and any(words[j] in _FORMERLY for j in inside):
            return STRUCTURE
    if (
        hi + 1 < len(words)
        and words[hi + 1] in _COMPOUND
        and text.clause[hi + 1] == text.clause[hi]
    ):
        return STRUCTURE  # "a flu shot", "a cold brew", "the dog park"
    if any(
        words[j] in _KIND_WORDS
        and j + 1 < len(words)
        and j + 1 not in matched
        and words[j + 1] == "poss"
        and not text.have[j + 1]
        for j in at
    ):
        # a relative's own thing or person: "looks after her mom's dog" is not "looks after
        # her mom", "my husband's grandmother passed away" not "my husband passed away"
        return STRUCTURE
    if _said_of_another(text, at, pattern):
        return OTHER
    if _said_of_a_place(text, lo, hi):
        return STRUCTURE  # "the company is moving to a new office": the company moves
    if pattern.title and _owned(text, lo) and _ends_phrase(text, hi):
        return OTHER  # "Sam's rideshare driver", "my son's bus driver": who works for them
    if pattern.title and _met(text, lo):
        return OTHER  # "met a police officer", "is married to a nurse"
    if (
        pattern.content == 1
        and hi + 1 < len(words)
        and words[hi + 1] in _DESCRIBED
        and text.segment[hi + 1] == text.segment[hi]
        and not _predicated(text, lo)
    ):
        return STRUCTURE  # "tennis with a retired judge": the judge is retired
    if pattern.content == 1 and _of_a_dish(text, at, hi):
        return STRUCTURE  # "got Sam a vegan curry"
    if _of_an_occasion(text, at, hi):
        return STRUCTURE  # "a guest at a Hindu wedding"
    # Negations, hypotheticals and cessations just before the match.
    conditional = False
    if text.first_person[lo]:
        scope = [lo - 1] if lo > 0 and text.segment[lo - 1] == text.segment[lo] else []
    else:
        scope = []
        for j in _before(text, lo, text.segment):
            scope.append(j)
            if text.first_person[j]:
                if (
                    j > 0
                    and words[j - 1] in _CONDITIONAL
                    and text.segment[j - 1] == text.segment[j]
                ):
                    conditional = True  # "if I'm ..."
                break
    if (
        any(words[j] == "about" and j > 0 and words[j - 1] in _MEDIA for j in scope)
        and pattern.words[0] != "poss"
    ):
        return STRUCTURE  # the topic of a documentary, not the speaker's fact
    if pattern.content == 1:
        for j, i in zip(at, idx, strict=True):
            if pattern.words[i] not in MARKERS and text.form[j] != pattern.read.form[i]:
                return STRUCTURE  # one word, in its own form: "retired" is not "retiring"
    # The words state the fact; whether it holds for the speaker now is what follows.
    if conditional or any(_blocks(text, j, pattern) for j in (*inside, *scope)):
        return POLARITY
    tail = range(hi + 1, min(len(words), hi + 8))
    if any(words[j] in _SOMEDAY and text.clause[j] == text.clause[hi] for j in tail):
        return POLARITY
    # A past state or event, where the pattern states a present one: "was on warfarin",
    # "used to be vegan", "had a dog" (a past *had* still counts before an event: "had back
    # surgery"; "was diagnosed with" and "was prescribed" start a state), a past verb
    # ("took Accutane", "lived in Phoenix").
    if not pattern.past:
        done = [j for j in at if text.past[j] and words[j] not in _BEGUN]
        if any(words[j] in _STATE_VERBS for j in done):
            return PAST  # "took blood thinners": a state that ended
        if _told_as_past(text, lo, hi):
            return PAST
        if done:
            # "walked the Camino", "got back from the trip": an event done, which may have
            # left a state of its own; unless at an earlier time of life.
            return PAST if _earlier(text, hi) else DONE
        for j in _before(text, lo, text.clause):
            if words[j] in _FORMERLY or (words[j] == "had" and pattern.words[0] == "poss"):
                nxt = next((k for k in range(j + 1, lo) if words[k] not in _ADVERBS), lo)
                if words[j] != "was" or words[nxt] not in _ONSET:
                    return PAST
            if text.past[j] and words[j] in _STATE_VERBS:
                return PAST
            if words[j] not in _ADVERBS and (
                text.past[j] or _verb(text, j) or text.first_person[j]
            ):
                break
    else:
        for j, i in zip(at, idx, strict=True):
            if text.past[j] and not pattern.read.past[i] and pattern.words[i] not in MARKERS:
                return PAST
    if (any(text.past[j] for j in at) or any(words[j] in ("was", "had") for j in at)) and (
        _earlier(text, hi)
    ):
        return PAST  # "broke an arm as a child", "had a concussion in high school"
    if (
        words[hi] in OTHER_PEOPLE
        and words[hi + 1 : hi + 2] == ("from",)
        and any(w in _SCHOOL_DAYS for w in words[hi + 2 : hi + 5])
    ):
        return PAST  # "a roommate from college" lived with the speaker then
    if any(words[max(0, lo - 1) : hi + 1] == phrase for phrase in _EARLIER):
        return PAST  # "as a teenager" is a time of life, not a present age
    # Someone else's fact: "my friend is pregnant", "my coworker's dog".
    if not text.first_person[lo]:
        j, counted = lo - 1, 0
        while j >= 0 and counted < 4 and text.clause[j] == text.clause[lo]:
            if text.first_person[j]:
                if j > 0 and words[j - 1] == "of":
                    j -= 2  # "a friend of mine" is still the friend: "of mine" is skipped
                    continue
                break  # "I", "my": the speaker's own
            if (
                words[j] in OTHER_PEOPLE
                or (pattern.job and words[j] in _HOUSEHOLD)
                or (words[j] in _STRANGERS and not _predicated(text, j))
                or (words[j] in ("who", "that") and j > 0 and words[j - 1] in _PEOPLE_WHO)
                or (
                    words[j] in _SERVING
                    and _owned(text, j)
                    and all(words[k] in _ADVERBS or _verb(text, k) for k in range(j + 1, lo))
                )
            ):
                return OTHER
            j, counted = j - 1, counted + 1
    return ""


def _alignments(
    text: FactText, pattern: Pattern, present: frozenset[str]
) -> Iterator[tuple[list[int], list[int], str]]:
    """Where ``pattern``'s words occur in ``text``, in the order they are tried: in order
    with its own gap ("exact"), then its looser words in order ("ordered") and in another
    order ("reversed"); each with the pattern's word indices and the mode."""
    words = pattern.words
    if not any(w.isalpha() for w in words):
        return  # numbers only ("i'm 20" once the subject is dropped)
    idx = list(range(len(words)))
    if set(words) <= present:
        for at in _in_order(text.words, list(words), _gap(words)):
            yield at, idx, "exact"
    loose = list(pattern.loose)
    needle = [words[i] for i in loose]
    if (
        pattern.content < 2
        or not needle
        or any(w.isdigit() for w in words)
        or not set(needle) <= present
    ):
        return
    for at in _in_order(text.words, needle, 2):
        yield at, loose, "ordered"
    if set(words) & NEGATION:
        return  # a pattern's own polarity depends on where its words are
    for at in _any_order(text.words, needle, len(needle) + 3):
        yield at, loose, "reversed"


def match_at(
    text: FactText, pattern: Pattern, present: frozenset[str] | None = None
) -> list[int] | None:
    """Where ``text`` states ``pattern``'s fact (the positions of its words), or None (see
    the module docstring)."""
    present = present if present is not None else frozenset(text.words)
    for at, idx, mode in _alignments(text, pattern, present):
        if not _refusal(text, at, pattern, idx, mode):
            return at
    return None


def matches(text: str, pattern: str) -> bool:
    """Whether ``text`` states the fact of ``pattern``."""
    compiled = compile_pattern(pattern)
    if not compiled.cased <= cased_words(text):
        return False
    return match_at(fact_text(text), compiled) is not None


def required_words(pattern: Pattern) -> frozenset[str]:
    """Words a text must contain for ``match_at`` to find ``pattern`` in any of its three
    ways: the words of the looser match (every word but *do*), or all of them where that
    leaves none."""
    needle = frozenset(pattern.words[i] for i in pattern.loose)
    return needle or frozenset(pattern.words)


class _PatternIndex:
    """An inverted index from a word to the fact patterns that need it (each pattern
    filed under its rarest required word), so that a memory is tried only against the
    patterns all of whose required words it contains, instead of every pattern of every
    entry: the same matches, in the same order, for a fraction of the work."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        df: dict[str, int] = {}
        required: list[tuple[int, int, frozenset[str]]] = []
        for e, entry in enumerate(entries):
            for p, pattern in enumerate(entry.compiled):
                need = required_words(pattern)
                required.append((e, p, need))
                for word in need:
                    df[word] = df.get(word, 0) + 1
        self.by_word: dict[str, list[tuple[int, int, frozenset[str]]]] = {}
        for e, p, need in required:
            if need:  # a pattern of no words matches nothing
                rarest = min(need, key=lambda w: (df[w], w))
                self.by_word.setdefault(rarest, []).append((e, p, need))

    def candidates(self, present: frozenset[str]) -> Iterator[tuple[Entry, list[Pattern]]]:
        """Per entry, in the resource's order, the patterns whose required words are all
        in ``present`` (in the entry's order)."""
        hits = sorted(
            (e, p)
            for word in present
            for e, p, need in self.by_word.get(word, ())
            if need <= present
        )
        for e, group in groupby(hits, key=itemgetter(0)):
            entry = self.entries[e]
            yield entry, [entry.compiled[p] for _, p in group]


class KnowledgeBase:
    def __init__(self, entries: list[Entry]) -> None:
        self.entries = {e.id: e for e in entries}
        df: dict[str, int] = {}
        for entry in entries:
            for situation in set(entry.situations):
                df[situation] = df.get(situation, 0) + 1
        self._df = df
        self._index = _PatternIndex(list(self.entries.values()))
        self._ranged = [e for e in entries if e.ages is not None]

    def specificity(self, situation: str) -> float:
        """1 for a situation only one entry names ("lilies"), near 0 for one that most
        entries name ("travel"): a shared key is weak evidence for any one constraint."""
        n = max(2, len(self.entries))
        df = self._df.get(situation, 1)
        return max(0.0, 1.0 - math.log(df) / math.log(n))

    def __len__(self) -> int:
        return len(self.entries)

    def match_facts(self, text: str) -> list[tuple[Entry, str]]:
        """Entries whose fact patterns ``text`` states, each with its widest matching
        pattern. An entry whose matched content words lie inside those of a wider match
        of another entry of its type gives way to it: "type 1 diabetes" is not also
        "diabetic" (type 2); "recently retired" (a role) still is "retired" (an age)."""
        read = fact_text(text)
        present = frozenset(read.words)
        capitals = cased_words(text)
        found: list[tuple[Entry, str, frozenset[int]]] = []
        for entry, candidates in self._index.candidates(present):
            best: tuple[str, frozenset[int]] | None = None
            for pattern in candidates:
                if not pattern.cased <= capitals:
                    continue  # "on art" is not "on ART"
                at = match_at(read, pattern, present)
                if at is None:
                    continue
                content = frozenset(j for j in at if read.words[j] not in MARKERS)
                if best is None or len(content) > len(best[1]):
                    best = (pattern.text, content)
            if best is not None:
                found.append((entry, *best))
        found.extend(self._ages_in_range(read, present, {e.id for e, _, _ in found}))
        return [
            (entry, pattern)
            for entry, pattern, at in found
            if not any(at < other and e.type == entry.type for e, _, other in found)
        ]

    def _ages_in_range(
        self, read: FactText, present: frozenset[str], matched: set[str]
    ) -> list[tuple[Entry, str, frozenset[int]]]:
        """The entries whose ``age_range`` holds a person's age that ``read`` states (a
        number read as "N year old": ``text.person_ages``) but no pattern of theirs lists
        ("Sam is 83" of an entry listing 75, 80, 85 and "over 75"), each as "N years old";
        refused as any pattern is (negated, past, someone else's)."""
        words = read.words
        stated = {
            int(words[j])
            for j in range(len(words) - 2)
            if words[j].isdigit() and words[j + 1 : j + 3] == ("year", "old")
        }
        out: list[tuple[Entry, str, frozenset[int]]] = []
        for age in sorted(stated):
            holding = [
                e
                for e in self._ranged
                if e.id not in matched and e.ages and e.ages[0] <= age <= e.ages[1]
            ]
            pattern = _aged(age)
            at = match_at(read, pattern, present) if holding else None
            if at is None:
                continue
            content = frozenset(j for j in at if words[j] not in MARKERS)
            for entry in holding:
                matched.add(entry.id)
                out.append((entry, pattern.text, content))
        return out

    def refused_facts(self, text: str) -> list[tuple[Entry, str, str]]:
        """Entries whose fact ``text`` states only as not holding for the speaker (negated,
        hypothetical, over, or someone else's: a ``NEAR_MISS`` reason of ``_refusal``) and
        nowhere as holding, each with the first such pattern and why: "I'm thinking about
        going vegan" of a vegan diet. Each alignment of each pattern is judged once."""
        read = fact_text(text)
        present = frozenset(read.words)
        capitals = cased_words(text)
        out: list[tuple[Entry, str, str]] = []
        for entry, candidates in self._index.candidates(present):
            first: tuple[str, str] | None = None
            holds = False
            for pattern in candidates:
                if not pattern.cased <= capitals:
                    continue
                for at, idx, mode in _alignments(read, pattern, present):
                    reason = _refusal(read, at, pattern, idx, mode)
                    if not reason:
                        holds = True  # stated as holding: no near miss of this entry
                        break
                    if first is None and reason in NEAR_MISS:
                        first = (pattern.text, reason)
                if holds:
                    break
            if first is not None and not holds:
                out.append((entry, *first))
        return out

    def patterns(self) -> list[tuple[str, str]]:
        """(entry id, pattern) for every fact pattern, for embedding-based matching."""
        return [(e.id, p) for e in self.entries.values() for p in e.fact_patterns]


# A person's age as a pattern states it on its own: "i'm 75", "turned 65", "78 years old",
# "over 75" (``age_range``).
_AGE_PATTERN = re.compile(
    r"(?:i'm|i am|just turned|turned|turning|about to turn) (\d{1,3})|(\d{1,3}) years old"
    r"|over (\d{1,3})"
)
_NO_AGE_ABOVE = 130


def age_range(patterns: tuple[str, ...]) -> tuple[int, int] | None:
    """The ages of a person an entry's patterns list, as a range: from the least to the
    greatest ("i'm 22", "i'm 24" -> 22 to 24), with no top where one says "over N" ("i'm
    75", "82 years old", "over 75" -> 75 and up). None where no pattern states an age on its
    own. An age said in other words than the listed ones ("I'm 83") is read by its range."""
    listed: list[int] = []
    top = False
    for pattern in patterns:
        m = _AGE_PATTERN.fullmatch(pattern)
        if m:
            listed.append(int(m.group(1) or m.group(2) or m.group(3)))
            top = top or m.group(3) is not None
    if not listed:
        return None
    return min(listed), _NO_AGE_ABOVE if top else max(listed)


@lru_cache(maxsize=256)
def _aged(age: int) -> Pattern:
    """A person's age as the pattern "N years old" (read as every age pattern is)."""
    return compile_pattern(f"{age} years old")


def _owned(text: FactText, lo: int) -> bool:
    """Whether a possessive (not *have*) opens the phrase at ``lo``, up to two words that
    describe it before it: "my son's school bus driver"; not "I'm a school bus driver"."""
    words = text.words
    for j in range(lo - 1, max(-1, lo - 4), -1):
        if text.segment[j] != text.segment[lo]:
            return False
        if words[j] == "poss":
            return not text.have[j]
        if words[j] in _FUNCTION or words[j] in MARKERS or _verb(text, j) or text.form[j]:
            return False
    return False


def _word_before(text: FactText, lo: int) -> int:
    """The position of the word before the phrase at ``lo``, past the adverbs of its
    segment (-1 at the start of the text)."""
    j = lo - 1
    while j >= 0 and text.words[j] in _ADVERBS and text.segment[j] == text.segment[lo]:
        j -= 1
    return j


def _predicated(text: FactText, lo: int) -> bool:
    """Whether the phrase at ``lo`` is said of the clause's subject: after *be*, *become*,
    *as* (adverbs between), or set off as an apposition ("Sam, a retired nurse, ...");
    not after another verb or a preposition ("met a nurse", "with a retired judge"), a
    possessive or *have* ("my retired neighbor", "has a vegan girlfriend"), or nothing."""
    j = _word_before(text, lo)
    if j < 0:
        return False
    return text.segment[j] != text.segment[lo] or text.words[j] in _COPULA


def _said_of_a_place(text: FactText, lo: int, hi: int) -> bool:
    """Whether the match's subject is a workplace, school or other body, just before it
    with only *be* or *have* between ("Nina's company is moving to a new office", "our
    school is closing"), and no first-person word in or just after it ("my company is
    relocating me")."""
    words = text.words
    if any(text.first_person[j] for j in range(lo, min(len(words), hi + 3))):
        return False
    j, verb = lo - 1, _verb(text, lo)  # the match's own "is": "company is moving to"
    while j >= 0 and text.clause[j] == text.clause[lo] and (words[j] in _ADVERBS or _verb(text, j)):
        verb = verb or _verb(text, j)
        j -= 1
    # a verb between: "a school nurse" is the nurse's school, not its move
    return verb and j >= 0 and text.clause[j] == text.clause[lo] and words[j] in _BODIES


def _met(text: FactText, lo: int) -> bool:
    """Whether the phrase at ``lo`` is the object of a verb in the past or -ing form, or of
    a preposition, other than *be*, *become* or *as*: someone met or dealt with ("met a
    police officer", "married to a nurse"), not the subject's own title."""
    words = text.words
    j = _word_before(text, lo)
    if j < 0 or text.segment[j] != text.segment[lo] or words[j] in _COPULA:
        return False
    return text.form[j] in ("past", "ing") or words[j] in _FUNCTION or words[j] in _TIME_WORDS


def _ends_phrase(text: FactText, hi: int) -> bool:
    """Whether the noun at ``hi`` ends its phrase: the clause ends, or a verb or a function
    word follows ("my bus driver was late"; not "my national guard unit")."""
    j = hi + 1
    return (
        j >= len(text.words)
        or text.segment[j] != text.segment[hi]
        or text.words[j] in _FUNCTION
        or _verb(text, j)
        or text.form[j] in ("past", "ing")
    )


def _titles(pattern: Pattern) -> bool:
    """Whether an occupation's pattern is a job's title alone: it names no speaker and ends
    in a word for a person ("rideshare driver", "tax accountant"; not "i'm a nurse", "work
    laptop")."""
    return pattern.words[0] not in _SPEAKER and pattern.text.split()[-1] in PERSON_NOUNS


def _entry(row: dict[str, object]) -> Entry:
    written = [str(p) for p in row["fact_patterns"]]  # type: ignore[attr-defined]
    patterns = tuple(readings(p)[0] for p in written)
    compiled = tuple(compile_pattern(r) for p in written for r in readings(p))
    if row["type"] == "occupation":
        compiled = tuple(replace(c, title=_titles(c), job=True) for c in compiled)
    return Entry(
        id=str(row["id"]),
        type=str(row["type"]),
        domain=str(row.get("domain", "other")),
        fact_patterns=patterns,
        situations=tuple(str(s) for s in row["situations"]),  # type: ignore[attr-defined]
        why=str(row.get("why", "")),
        source=str(row.get("source", "")),
        pattern_tokens=tuple(p.words for p in compiled),
        compiled=compiled,
        ages=age_range(patterns),
    )


@lru_cache(maxsize=1)
def load_kb() -> KnowledgeBase:
    """The shipped knowledge resource (read once per process)."""
    folder = resources.files("logicmem.data").joinpath("anticipation")
    entries = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith(".jsonl"):
            for line in item.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entries.append(_entry(json.loads(line)))
    return KnowledgeBase(entries)


@lru_cache(maxsize=1)
def drug_classes() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Per medication entry whose fact patterns name its class, (its class words, the names
    of its drugs), lower case: "insulin" and {"lantus", "humalog", ...}. A class word is
    the drug word of a two-word pattern ("on statins", "takes insulin") that no one-word
    pattern gives and that is a plural ("statins", "benzos") or the one word the entry is
    named after ("med-insulin"); "takes tacrolimus", beside cyclosporine, names a drug."""
    out = {}
    for entry in load_kb().entries.values():
        if entry.type != "medication":
            continue
        names = {p.lower() for p in entry.fact_patterns if len(p.split()) == 1}
        classes = {
            words[1]
            for words in (p.lower().split() for p in entry.fact_patterns)
            if len(words) == 2 and words[0] in ("takes", "taking", "on", "uses")
            and len(words[1]) >= 5 and words[1] not in names
            and (re.search(r"[^sui]s$", words[1]) or entry.id == f"med-{words[1]}")
        }  # fmt: skip
        if classes and names:
            out[entry.id] = (frozenset(classes), frozenset(names))
    return out


@lru_cache(maxsize=1)
def medicine_names() -> dict[str, str]:
    """Each brand name of a single-substance medicine, and each other generic name of one,
    lower case, with its generic name (``data/medicine_names.json``): "advil" and
    "motrin" -> "ibuprofen", "paracetamol" -> "acetaminophen"."""
    text = resources.files("logicmem.data").joinpath("medicine_names.json").read_text("utf-8")
    names: dict[str, list[str]] = json.loads(text)["names"]
    return {other: generic for generic, others in names.items() for other in others}


@lru_cache(maxsize=1)
def drug_kinds() -> dict[str, str]:
    """Each medicine ``drug_names`` gives, lower case, with the medication entry that names
    it ("vyvanse" and "adderall" -> "med-adhd-stimulant"); a brand of ``medicine_names``
    has its generic's entry. A name two entries give is left out."""
    seen: dict[str, set[str]] = {}
    for entry in load_kb().entries.values():
        if entry.type != "medication":
            continue
        for pattern in entry.fact_patterns:
            words = pattern.lower().split()
            if len(words) == 1 or (
                len(words) == 2 and words[0] in ("takes", "taking", "on", "uses")
            ):
                seen.setdefault(words[-1], set()).add(entry.id)
    for other, generic in medicine_names().items():
        for name, of in ((other, generic), (generic, other)):
            if name not in seen and of in seen:
                seen[name] = set(seen[of])
    return {name: next(iter(ids)) for name, ids in seen.items() if len(ids) == 1}


def drug_names() -> frozenset[str]:
    """The medicines the resource names, lower case: each medication entry's one-word
    fact patterns ("sertraline", "coumadin") and the drug of its two-word ones ("takes
    insulin"), that word at least five letters long ("on prep" names no drug), and every
    name of ``medicine_names``."""
    names = set(medicine_names()) | set(medicine_names().values())
    for entry in load_kb().entries.values():
        if entry.type != "medication":
            continue
        for pattern in entry.fact_patterns:
            words = pattern.lower().split()
            if len(words) == 1:
                names.add(words[0])
            elif (
                len(words) == 2
                and words[0] in ("takes", "taking", "on", "uses")
                and len(words[1]) >= 5
            ):
                names.add(words[1])
    return frozenset(names)
