"""Sentences that name a constraint's topic but state no one's standing fact.

The fact patterns refuse a match that is negated, hypothetical, over or someone else's
(``kb._refusal``), and only where the pattern's words are in place. The classifier reads
the words of a topic, not whether a fact holds. Four shapes of sentence state no fact
that holds for anyone now, whatever topic they name; ``not_standing`` says which:

- a general statement or a report of one: "Gout is more common in men", "Most dogs can't
  digest chocolate", "I read that statins can cause muscle aches", "Ana says lupus is
  hard to diagnose". No person is in the statement: no pronoun but "they", no name, a
  subject without a determiner of its own (a bare plural or mass noun, or a quantifier:
  "most", "lots of") and a verb in the present. "Bad knee here", "Vegan, so no butter"
  (no verb) and "The twins are in daycare" (a determiner) are not general;
- an illness, injury or course that is over and left nothing: "My sprained ankle healed
  ages ago", "Got over the flu and I'm back at work", "The rash cleared up once I
  switched soap". Not where something still holds: "never healed right", "still not
  over it", "healed, but I can't kneel";
- an absence: "I'm not allergic to any foods", "Dev doesn't take any medication", "Ivy
  has never broken a bone", "Her blood work came back normal". Not a rule about what
  the person takes in ("I don't eat any meat", "I can't have anything with gluten").

- the topic of something watched, read or heard, and nothing more: "Sam watched a
  documentary about sobriety", "Ana read a novel about a nurse in the war". Not where the
  sentence goes on ("... after her diagnosis", "... and now keeps a go-bag") or the topic is
  someone's own ("a book about his diabetes").

The word lists were written from English usage, not from any benchmark item.
"""

from __future__ import annotations

import re

from logicmem.routes.visible.text import (
    FIRST_PERSON_WORDS,
    PAST_VERBS,
    present_verb,
    subjectless,
    word_set,
)

GENERIC, OVER, ABSENT, TOPIC = "general", "over", "absent", "topic"
WHY = {
    GENERIC: "a general statement, no one's fact",
    OVER: "over, and left nothing",
    ABSENT: "states an absence",
    TOPIC: "the topic of something watched, read or heard",
}

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d+")

# --- General statements ------------------------------------------------------------
# Anyone referred to: the speaker, the listener of a stored message, a named or pronoun
# third person. "They", "them" and "their" are left out: a general statement uses them of
# its own subject ("Cats hide it when they're in pain").
# "family" too: the rule extractor writes "we" as "Maya and family" ("We're vegan" ->
# "Maya and family are vegan"), a name and a plural verb like a kind's ("Dogs and cats
# are ..."), and a family is people.
_PERSON_WORDS = FIRST_PERSON_WORDS | word_set(
    "you you're you've you'd you'll your yours yourself he he's he'd he'll him his himself "
    "she she's she'd she'll her hers herself user family"
)
# Openers that address the listener and leave the statement general ("Did you know
# statins ...", "Fun fact: ...").
_OPENER = re.compile(
    r"^\s*(?:(?:did you know|you know what|you know|fun fact|apparently|honestly|"
    r"actually|so|well|turns out|supposedly|reportedly|btw)\b[,:]?\s*)+(?:that\s+)?",
    re.IGNORECASE,
)
_TAG = re.compile(r",?\s*(?:did you know|you know|right|huh|apparently)\s*[?.!]*\s*$", re.I)
# A determiner makes a subject someone's or a particular one ("the twins", "our rent").
_DETERMINERS = word_set(
    "the a an this that these those my our your his her their its each every either neither "
    "one which what whose"
)
# A quantifier makes a subject general ("most kids", "lots of nurses", "half the office").
_QUANTIFIED = re.compile(
    r"^(?:most|many|some|all|few|plenty of|lots of|a lot of|tons of|a ton of|so many|"
    r"so much|more and more|half (?:of )?(?:the|all)|loads of|hardly any|almost all|"
    r"nearly all|everyone|everybody|anyone|anybody|nobody|no one|people|kids these "
    r"days|everyone's|nobody's)\b",
    re.IGNORECASE,
)
# Verbs in the present (with *be*, *have*, modals and do-support) that make a statement
# general; a past verb tells an episode ("Pipes froze last night").
_PRESENT = word_set(
    "is are isn't aren't has have hasn't haven't can can't cannot could couldn't should "
    "shouldn't may might must will won't would wouldn't do don't does doesn't tend tends "
    "seem seems need needs get gets make makes cause causes run runs start starts affect "
    "affects cost costs take takes help helps go goes come comes keep keeps end ends show "
    "shows lead leads develop develops happen happens grow grows last lasts react reacts "
    "mess messes interfere interferes interact interacts raise raises lower lowers "
    "increase increases reduce reduces hurt hurts irritate irritates damage damages "
    "trigger triggers spread spreads"
)
_PLURAL = word_set("are aren't have haven't do don't were")
# Heads of a subject that a terse note leaves without "my" ("Twins start school in the
# fall", "Knees are shot"): household members and body parts.
_OWN_WORDS = word_set(
    "kids kid twins boys girls sons daughters son daughter husband wife partner parents mom "
    "dad mum folks in-laws grandkids baby toddler teens knee knees back hip hips shoulder "
    "shoulders ankle ankles wrist wrists neck feet foot leg legs eye eyes ear ears skin "
    "stomach gut joints teeth tooth lungs heart sinuses hand hands fingers head"
)
_NUMBERS = word_set("one two three four five six seven eight nine ten eleven twelve both")
# Not the first word of a general statement: the infinitive's "to" or a preposition, as
# in a claim that runs on from a verb ("learned to drive ...").
_NOT_FIRST = word_set("to how in on at for with by from about")
# Verbs of saying, thinking and liking that end the subject of a clause ("Tom thinks ...").
_NOT_IN_SUBJECT = word_set(
    "thinks feels knows wants hopes loves likes hates prefers believes finds reckons means "
    "tries says won wins did think feel know want hope love like hate prefer wish believe"
)
_CLAUSE_LINKS = word_set("so but because since when if then which who to")
# A particular time makes a statement an episode ("Allergies are bad today").
_EPISODE = re.compile(
    r"\b(?:today|tonight|this (?:morning|afternoon|evening|week|weekend|month)|again|"
    r"lately|right now|rn|at the moment|yesterday|last (?:night|week|month)|recently)\b",
    re.IGNORECASE,
)
_ADVERBS = word_set(
    "all often usually always never rarely sometimes generally mostly really actually just "
    "also basically typically supposedly apparently totally still only even"
)
# Reporting a general claim: the reporter, a reporting verb, then the claim.
_REPORT = re.compile(
    r"\b(?:says?|said|read|reads|heard|hears|(?:learned|learnt)(?= that)|was told|were told|keeps? "
    r"saying|swears?|claims?|insists?|mentioned|told (?:me|us|him|her|them))"
    r"(?: (?:somewhere|online|once))?"
    r"(?: (?:that|how))?:?\s+",
    re.IGNORECASE,
)
_SO_READ = re.compile(r",\s*(?:or so|according to|at least that's what)\b.*$", re.I)
_ACCORDING = re.compile(r"^\s*according to [^,]+,\s*", re.I)


def _words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(text)]


def _names_someone(text: str) -> bool:
    """A person referred to: a person word, or a capitalised word that is not the first
    and not a place after a preposition ("in Denver")."""
    words = _words(text)
    for i, word in enumerate(words):
        if word.lower() in _PERSON_WORDS:
            return True
        if word[:1].isupper() and "'" in word:
            return True  # "Omar'd rather", "in Ana's family": a person's
        if (
            i > 0
            and word[:1].isupper()
            and word != "I"
            and words[i - 1].lower() not in ("in", "at", "from", "to", "near", "of", "on")
        ):
            return True
    return False


def _general(clause: str, claim: bool = False) -> bool:
    """Whether ``clause`` is a general statement: see the module docstring. A ``claim``
    runs on from a verb of saying ("says lupus is ..."): one word in lower case there is
    no name, and a capitalised word is one ("says Omar has to ...")."""
    if claim and clause.lstrip()[:1].isupper():
        return False
    clause = _TAG.sub("", _OPENER.sub("", clause.strip()))
    if clause.rstrip().endswith("?") or _EPISODE.search(clause) or _names_someone(clause):
        return False
    head = _words(re.split(r"[,;:()]| - | – | — ", clause, maxsplit=1)[0])
    if len(head) < 3 or head[0].lower() in _DETERMINERS or head[0].lower() in _NOT_FIRST:
        return False
    quantified = _QUANTIFIED.match(clause) is not None
    subject: list[str] = []
    for i, word in enumerate(head):
        low = word.lower()
        if i and (low in _PRESENT or present_verb(low)):
            break
        if (
            low in _CLAUSE_LINKS
            or low in _NOT_IN_SUBJECT
            or low in PAST_VERBS
            or low.endswith(("ed", "'s"))
        ):
            return False  # "Vegan, so ...", "Tom thinks the ...", "Gave up ...", "Ana's"
        if low in _DETERMINERS and low not in ("the", "this", "a", "an") and not quantified:
            return False
        if low not in _ADVERBS:
            subject.append(low)
    else:
        return False  # no verb in the present: "Severe peanut allergy here"
    if not subject or len(subject) > 4:
        return False  # a short noun phrase, not a clause: "Lin thinks the new café's ..."
    verb = head[i].lower()
    after = head[i + 1].lower() if i + 1 < len(head) else ""
    if not quantified:
        if (
            len(subject) == 1
            and not claim
            and (verb not in _PLURAL or not subject[0].endswith("s"))
        ):
            return False  # one word, not a plural: a name as often ("Omar is ...")
        if subject[0].endswith("ing"):
            return False  # "Working nights is rough": the speaker's own life, as often
        if subject[-1] in _OWN_WORDS:
            return False  # "Both knees are shot", "Twins start school": the user's own
        if after.endswith("ing") and after not in _ADVERBS:
            return False  # "Allergies are acting up": an episode
    return not (after.isdigit() or after in _NUMBERS)  # "Kids are 5 and 8": particular ones


def states_general(text: str) -> bool:
    """A general statement, or one reported by the speaker or someone else: see the module
    docstring. A statement naming anyone is not, nor a subjectless note ("Takes warfarin
    daily"), which a memory layer writes about its user."""
    text = text.strip()
    if not text or subjectless(text):
        return False
    body = _SO_READ.sub("", text)
    if body != text and _general(body):
        return True  # "Grapes are toxic to dogs, or so I read"
    body = _ACCORDING.sub("", text)
    if body != text and _general(body, claim=True):
        return True  # "According to my vet, ..."
    found = _REPORT.search(text)
    if found and found.start() > 0:
        # The reporter is named before the verb; the claim must name no one. After a
        # colon it is a sentence of its own ("Omar said: Statins ..."), its first word
        # capitalised as any sentence's.
        quoted = found.group().rstrip().endswith(":")
        return _general(text[found.end() :], claim=not quoted)
    return _general(text)


# --- Over ----------------------------------------------------------------------------
_RESOLVED = re.compile(
    r"\b(?:healed(?: up)?|cleared up|went away|got over|all better|(?:is|am|'m|feels?|"
    r"felt|are|'re) (?:totally |completely |perfectly )?(?:fine|great|okay|ok|back to "
    r"normal) (?:now|again)|(?:has|have|'s|'ve) been fine(?: ever)? since|no (?:problems|"
    r"issues|trouble) since|(?:hasn't|haven't|has not|have not) (?:bothered|flared up|come "
    r"back)|finished (?:the|my|his|her|their|a) (?:course of|round of|antibiotics))",
    re.IGNORECASE,
)
# Something still holds: the resolution does not close the memory. What keeps it
# resolved ("fine now that I'm on metformin", "thanks to the inhaler") holds too; a
# recovery ("recovered from an eating disorder") and a removal ("my gallbladder is gone")
# are standing facts, and no resolution here.
_STILL = re.compile(
    r"\b(?:still|ever since|anymore|any more|can't|cannot|couldn't|won't|never (?:healed|"
    r"fully|really|quite|went|cleared)|not (?:over|healed|gone|fully|better|yet)|"
    r"(?:hasn't|haven't|didn't|doesn't|isn't|never) (?:healed|cleared|gone away|gone|"
    r"recovered|gotten over|got over|went away|been (?:fine|the same|right))|except|"
    r"apart from|other than|but|though|although|takes|taking|on|with|uses?|using|now that|"
    r"thanks to|as long as|chronic|for life|lifelong|permanent|again and again|keeps? "
    r"coming back|flares? up)\b",
    re.IGNORECASE,
)


def states_over(text: str) -> bool:
    """An illness, injury or course that is over and left nothing: see the module
    docstring."""
    return _RESOLVED.search(text) is not None and _STILL.search(text) is None


# --- Absence -------------------------------------------------------------------------
_ABSENCE = re.compile(
    r"(?:\b(?:am|'m|is|'s|are|'re|isn't|aren't) not\b|\b(?:isn't|aren't|not)\b)\s+"
    r"(?:(?:really|currently|even|actually)\s+)?(?:allergic|intolerant|sensitive) to "
    r"(?:anything|any)\b"
    r"|(?:\bnot|n't|\bnever)\s+(?:been\s+)?(?:on|taking|take|takes|took|have|has|had|got)\s+"
    r"(?:any|anything)\b(?!\s+(?:with|that has|containing|made with))"
    r"|\bno (?:known |real |regular |major |medical |health |food |drug |chronic |dietary )?"
    r"(?:allergies|meds|medications|medication|prescriptions|health (?:issues|problems|"
    r"conditions)|conditions|intolerances|restrictions|phobias|disabilities|pets|kids|"
    r"children)\b(?! (?:allowed|policy|rule|here|in))"
    r"|(?:\bnot|n't)\s+(?:have|has|got)\s+(?:kids|children|pets|allergies)\b"
    r"|(?:\bnot|n't)\s+(?:need|needs|use|uses)\s+any\s+(?:mobility |walking )?(?:aids?|"
    r"help|support)\b"
    r"|\b(?:has|have|'s|'ve)\s+never\s+(?:had|broken|needed|been (?:diagnosed|"
    r"hospitali[sz]ed|sick|on))\b"
    r"|\bnothing (?:wrong|serious) with\b"
    r"|\b(?:came back|tested|test was|tests were|results? (?:was|were))\s+(?:totally |"
    r"completely |perfectly |all )?(?:normal|clear|negative)\b",
    re.IGNORECASE,
)
_INTAKE = re.compile(
    r"\b(?:eat|eats|drink|drinks|can't|cannot|can not|shouldn't|mustn't|won't|avoid|"
    r"allowed|allow|allows|supposed to|says|said|lease|rules?|policy)\b",
    re.IGNORECASE,
)


_ABSENT_KIND = re.compile(r"^\s*(?:chronic|long-term|ongoing|regular|daily|prescription)\b", re.I)


def states_absence(text: str) -> bool:
    """An absence of any condition, medication, allergy or history: see the module
    docstring. A rule about intake is a constraint, not an absence, and so is a rule
    someone else sets ("the landlord says no pets")."""
    found = _ABSENCE.search(text)
    if found is None:
        return False
    # Something else holds ("... though I'm on statins"); the absence's own words ("isn't
    # on any", "not taking any") and what it qualifies ("any chronic conditions") are not
    # that.
    after = _ABSENT_KIND.sub("", text[found.end() :])
    if _STILL.search(text[: found.start()] + " " + after):
        return False
    return _INTAKE.search(text[: found.end()]) is None


# --- A topic ------------------------------------------------------------------------
_MEDIUM = (
    r"(?:documentary|docuseries|book|novel|memoir|biography|article|podcast|episode|series|"
    r"show|film|movie|talk|lecture|essay|story|report|play|musical|video|ted talk)"
)
_ABOUT = re.compile(
    r"^\s*(?:[\w'’-]+\s+){1,3}?(?:\w+ly\s+)?(?:watched|watches|is watching|read|reads|is reading|"
    r"listened to|listens to|is listening to|saw|streamed|binged|binge-watched|finished|"
    r"loved|enjoyed|liked)\s+(?:(?:a|an|the|this|that|another|some)\s+)?(?:[\w'’-]+\s+){0,3}?"
    + _MEDIUM
    + r"s?\s+(?:about|on)\s+(?P<topic>[^.;!?]+)[.!]?\s*$",
    re.IGNORECASE,
)
# What makes the topic more than a topic: the sentence goes on, or the topic is someone's.
_GOES_ON = re.compile(
    r"\b(?:after|since|because|so|and|but|which|when|while|now|then|as|until|"
    r"my|mine|his|her|hers|their|our|own|i|me|we|us|he|she|they)\b",
    re.IGNORECASE,
)


def states_topic(text: str) -> bool:
    """The topic of something the subject watched, read or heard, and nothing more: see
    the module docstring."""
    found = _ABOUT.match(text)
    return found is not None and not _GOES_ON.search(found.group("topic"))


def not_standing(text: str) -> str:
    """Why ``text`` states no standing fact that holds for anyone now (``GENERIC``,
    ``OVER``, ``ABSENT`` or ``TOPIC``), or "" when it may state one."""
    if states_topic(text):
        return TOPIC
    if states_general(text):
        return GENERIC
    if states_over(text):
        return OVER
    if states_absence(text):
        return ABSENT
    return ""
