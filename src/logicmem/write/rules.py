"""The LLM-free extractor: one memory per informative thought a person says.

It keeps statements (questions and small talk are dropped, but not what a question tells
of the speaker before it asks, "I'm allergic to tree nuts, what can I bake?"; a request
to remember keeps the fact, "Remember that I'm vegan"; a number counts as content, "My
son is 4"), rewrites first person in the third person with the speaker's name (also as
chat types it: "im on warfarin", "i dont eat pork"), and pins relative dates
("yesterday") to the turn's date. A thought is a sentence, joined by the sentences after
it that lean on it ("We adopted a kitten. She chews on every plant she can reach."): cut
apart, the second would say nothing of whom it is about, and a later reader would take it
for the speaker's. A turn that answers another speaker's question keeps that question
with its first thought ("Since I was nine or so." is kept as "Since Maya was nine or so.
(in reply to "How long have you played the cello?")"): an answer means what it means only
beside its question, and the question names the topic in the words a later question will
use.
Quality here does not depend on any language model.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from logicmem.config import ExtractSettings
from logicmem.models.llm.base import LLM
from logicmem.types import Turn
from logicmem.write.answers import answered
from logicmem.write.base import Candidate, Extractor, subject_of
from logicmem.write.person import (
    capital_i,
    household_subject,
    is_first_person,
    straight_apostrophes,
    to_third_person,
)

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "she",
        "it",
        "they",
        "them",
        "their",
        "his",
        "her",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "how",
        "when",
        "where",
        "why",
        "not",
        "no",
        "yes",
        "oh",
        "wow",
        "hey",
        "hi",
        "hello",
        "ok",
        "okay",
        "yeah",
        "yep",
        "just",
        "really",
        "very",
        "so",
        "too",
        "also",
        "much",
        "many",
        "lot",
        "lots",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "about",
        "into",
        "over",
        "than",
        "then",
        "just",
        "up",
        "out",
        "get",
        "got",
        "go",
        "going",
        "gonna",
        "wanna",
        "thing",
        "things",
        "stuff",
        "pretty",
        "kinda",
        "sure",
        "well",
        "lol",
        "haha",
        "lmao",
        "omg",
        "ugh",
    ]
)
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_PHATIC = re.compile(
    r"^(hi|hey|hello|wow|oh|haha|lol|thanks|thank you|congrats|congratulations|awesome|great|"
    r"cool|nice|sounds|that's|that is|good|glad|sorry|bye|see you|take care|omg|yay|aw+)\b",
    re.I,
)
# A sentence that leans on the one before it: its subject is a third-person pronoun, a
# possessive ("Her vet says ...") or a demonstrative standing alone ("That was ...").
_LEANS = re.compile(
    r"^(?:(?:he|she|it|they|his|her|its|their)\b(?!-)"
    r"|(?:this|that|these|those)(?:'s\b|\s+(?:is|was|are|were|has|had|have|will|would|"
    r"can|could|does|did|means|meant|makes|made|helps|helped|keeps|kept|gives|gave)\b)"
    # A span with nothing it is the span of: "I'm pregnant! 8 weeks, only Sam knows."
    r"|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(?:days?|weeks?|months?|years?)(?:\s+(?:old|in|along|now|so far))?\s*(?:[,;:!.-]|$))",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# A sentence that is not in the first person, kept as what the speaker said.
_REPORTED = re.compile(r"^(?P<who>[^:]{1,40}?) said: (?P<what>.+)$")


def _last(weekday: int) -> Callable[[datetime], datetime]:
    """The latest such weekday before the day given (a week before on that weekday)."""
    return lambda d: d - timedelta(days=(d.weekday() - weekday - 1) % 7 + 1)


_RELATIVE = [
    (r"\byesterday\b", lambda d: d - timedelta(days=1), "%d %B %Y"),
    (r"\b(today|this morning|tonight)\b", lambda d: d, "%d %B %Y"),
    (r"\btomorrow\b", lambda d: d + timedelta(days=1), "%d %B %Y"),
    (r"\blast week\b", lambda d: d - timedelta(days=7), "the week of %d %B %Y"),
    (r"\bnext week\b", lambda d: d + timedelta(days=7), "the week of %d %B %Y"),
    (r"\blast month\b", lambda d: d.replace(day=1) - timedelta(days=1), "%B %Y"),
    (r"\blast year\b", lambda d: d.replace(year=d.year - 1), "%Y"),
    (r"\bnext year\b", lambda d: d.replace(year=d.year + 1), "%Y"),
    (r"\blast night\b", lambda d: d - timedelta(days=1), "the night of %d %B %Y"),
    # The weekend of the week before (said on a Sunday too: that weekend is "this" one).
    (r"\blast weekend\b", lambda d: d - timedelta(days=d.weekday() + 2), "the weekend of %d %B %Y"),
    # The coming weekend, or the one under way.
    (
        r"\bthis weekend\b",
        lambda d: d + timedelta(days=5 - d.weekday()) if d.weekday() < 6 else d - timedelta(days=1),
        "the weekend of %d %B %Y",
    ),
    # "last Friday": the latest Friday before the day said. Not "next Friday", which may
    # be the coming one or the one after, nor "on Friday", either way from the day said.
    *((rf"\blast {day}\b", _last(n), "%A %d %B %Y") for n, day in enumerate(WEEKDAYS)),
]


# A subject and its verb spelled out, read as their contraction: "I am vegan" counts as
# "I'm vegan" does (a contraction is one word, not a stopword; its two parts are two
# stopwords), so a statement is kept or dropped however it is typed.
_SPELLED_OUT = re.compile(
    r"\b(?:(i)\s+(am)|(we|you|they)\s+(are)|(he|she|it|that|there|what)\s+(is)|"
    r"(i|we|you|they)\s+(have|will|would)|"
    r"(do|does|did|is|are|was|were|have|has|had|can|could|should|would)\s+(not)|"
    r"(will)\s+(not))\b"
)
_CONTRACTED = {"am": "'m", "are": "'re", "is": "'s", "have": "'ve", "will": "'ll",
               "would": "'d", "not": "n't"}  # fmt: skip


def _contracted(match: re.Match[str]) -> str:
    subject, verb = (part for part in match.groups() if part)
    return {"will": "won't", "can": "can't"}.get(subject) or subject + _CONTRACTED[verb]


def content_words(text: str) -> list[str]:
    """The words that carry content, numbers included ("My son is 4"); a subject and verb
    spelled out count as their contraction ("I am 34" as "I'm 34")."""
    text = _SPELLED_OUT.sub(_contracted, straight_apostrophes(text.lower()))
    return [w for w in re.findall(r"[a-z][a-z'-]*|\d[\w.'-]*", text) if w not in STOPWORDS]


# A hint ``date_hint`` writes: "(yesterday = 7 May 2023)", several joined by ";".
# A time long past, as a word of it: a year, "ago", "years" ("married Tom in 2010", "moved
# here years ago"). The slots and the endings each add their own (``supersede``,
# ``retract``).
LONG_AGO_WORDS = r"(?:19|20)\d\d|ago|years"
DATE_HINTS = re.compile(r"\s*\((?P<hints>[^()]*?\s=\s[^()]*)\)")


def without_hints(text: str) -> str:
    """``text`` without the date hints the write path added (``date_hint``): what was said."""
    return DATE_HINTS.sub("", text)


def date_hint(sentence: str, said_at: str | None) -> str:
    """ "(yesterday = 7 May 2023)" style hints for relative dates, when the turn is dated."""
    if not said_at:
        return ""
    try:
        day = datetime.fromisoformat(said_at)
    except ValueError:
        return ""
    hints = []
    for pattern, shift, fmt in _RELATIVE:
        found = re.search(pattern, sentence, re.I)
        if found:
            hints.append(f"{found.group(0).lower()} = {shift(day).strftime(fmt)}")
    return f" ({'; '.join(hints)})" if hints else ""


# A full stop that ends no sentence (``split_sentences``): after a title ("Dr. Patel", "St.
# Mary's", "Mt. Hood"), "e.g." or "i.e."; an initial after a name or another initial
# ("J. P. Morgan", "John F. Kennedy"; not "vitamin D. It helps"); or before a word in
# lower case, a unit after a number or a short form ("5 mg. of", "8 a.m. before", "vs."),
# or an ellipsis ("allergic to peanuts... and tree nuts").
_TITLE = re.compile(r"(?:^|\s)(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Mt|Ft|Jr|Sr|e\.g|i\.e)\.$", re.I)
_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.$")
_AFTER_NAME = re.compile(r"(?:^|\s)(?:[A-Z]\.|[A-Z][\w'-]+)\s[A-Z]\.$")
_NEXT_INITIAL = re.compile(r"[A-Z]\.(?:\s|$)")
_SHORT = re.compile(
    r"(?:\d\s?(?:mg|mcg|ml|oz|lbs?|kg|g|km|mi|ft|in)|(?:^|\s)(?:[a-z]\.)+[a-z]|"
    r"(?:^|\s)(?:vs|approx|etc|incl|no|dept|apt|ave|rd|blvd))\.$",
    re.I,
)


def split_sentences(text: str) -> list[str]:
    """The text's sentences, split after ".", "!" or "?" and at line breaks, except after
    a full stop that ends no sentence ("I see Dr. Patel for my diabetes", "I take 5 mg. of
    amlodipine")."""
    out: list[str] = []
    start = 0
    for boundary in _SENTENCE.finditer(text):
        piece = text[start : boundary.start()]
        after = text[boundary.end() : boundary.end() + 1]
        joined = "\n" not in boundary.group() and (
            _TITLE.search(piece)
            or (
                _INITIAL.search(piece)
                and after.isupper()
                and (_AFTER_NAME.search(piece) or _NEXT_INITIAL.match(text, boundary.end()))
            )
            or (_SHORT.search(piece) and after.islower())
            or (piece.endswith("...") and after.islower())  # a pause: "peanuts... and"
        )
        if not joined:
            out.append(piece)
            start = boundary.end()
    out.append(text[start:])
    return [s.strip() for s in out if s and s.strip()]


# A list as chat types it: items after a header that ends in a colon, one a line or on one
# line, each opened by a bullet ("My meds:\n- metformin\n- lisinopril", "things to
# remember: - allergic to sulfa - we don't eat beef").
_BULLET = re.compile(r"^\s*[-*\u2022\u00b7\u2013]\s+")
_INLINE_LIST = re.compile(r"^(?P<head>[^:]{1,60}):\s*(?=[-*\u2022\u00b7\u2013]\s)")
_INLINE_ITEM = re.compile(r"\s+[-*\u2022\u00b7\u2013]\s+")
# A header that only announces the list ("Things to remember:", "Some facts about me:"):
# its items stand alone. Any other header is what each item is ("My meds: metformin").
_ANNOUNCES = re.compile(
    r"^(?i:(?:ok(?:ay)?|so|quick|some|a\s+few|few|random|more|important|also|and)[\s,]+)*"
    r"(?i:things?|facts?|notes?|stuff|updates?|reminders?|info|details|points?|about\s+me|fyi|"
    r"for\s+the\s+record|to\s+remember|remember|note\s+to\s+self)\b(?i:[\w\s']*)$"
)


def list_items(sentences: list[str]) -> list[str]:
    """``sentences`` with a list's items each a sentence of its own, without their bullets,
    each with the header it follows unless the header only announces the list."""
    out: list[str] = []
    head = ""
    for sentence in sentences:
        inline = _INLINE_LIST.match(sentence)
        if inline and len(_INLINE_ITEM.findall(" " + sentence[inline.end() :])) >= 2:
            items = _INLINE_ITEM.split(" " + sentence[inline.end() :])
            out.extend(_item(inline.group("head"), i) for i in items if i.strip())
            head = ""
            continue
        if _BULLET.match(sentence) and (head or (out and out[-1].endswith(":"))):
            if not head:
                head = out.pop()[:-1]
            out.append(_item(head, _BULLET.sub("", sentence)))
            continue
        head = ""
        out.append(_BULLET.sub("", sentence))
    return out


def _item(head: str, item: str) -> str:
    item = item.strip()
    if not head.strip() or _ANNOUNCES.match(head.strip()):
        return item[:1].upper() + item[1:]
    return f"{head.strip()}: {item}"


# A statement that a question leans on, in the same sentence: "I'm allergic to tree nuts,
# what dessert can I make?", "Since I'm on warfarin, is ibuprofen okay?", "My daughter is
# 3 - any ideas for her party?", "As a vegan, what should I order?". The question is
# dropped as any question is; the statement is what the speaker told.
_QUESTION_WORDS = (
    r"what|which|who|where|when|why|how|is|are|am|was|were|can|could|should|would|will|do|"
    r"does|did|any"
)
_ASKS = (
    rf"(?:{_QUESTION_WORDS}|have|has|don't|doesn't|didn't|isn't|aren't|haven't|won't|anything|"
    r"anyone|so|and|but|right|ideas?|suggestions?|thoughts?|tips?|recommendations?)\b"
)
# A condition is no statement: "If I take the train, how long is it?"
_OPENS_A_CONDITION = re.compile(
    r"^(?i:if|when|whenever|unless|whether|once|before|after|while|in case|what if|say)\b"
)
# The statement and the question are parted by a comma, a dash or a colon, or only by "so",
# "and" or "but" before a question word ("I'm diabetic so what snacks can I have?").
_THEN_ASKS = re.compile(
    rf"^(?P<told>.+?)(?:\s*[,;:]\s+|\s+-+\s+|\s*[–—]+\s*|\s+(?=(?i:so|and|but)\s+"
    rf"(?i:{_QUESTION_WORDS})\b))(?P<asked>(?i:{_ASKS}).*\?)\s*$"
)
# The speaker as the subject of what is told: "I ...", "we ...", or "My daughter ...".
_SPEAKER_SAYS = re.compile(r"\b(?:I|[Ww]e)\b|^(?i:my|our)\b")
# ... unless what comes first is a question too ("Which train is faster, and is it cheaper?").
_A_QUESTION = re.compile(rf"^(?i:{_QUESTION_WORDS}|whom|whose)\b")
_BECAUSE = re.compile(r"^(?i:since|as|because|given that|now that|seeing as)\s+(?=\w)")
# "As a vegan", "As a type 1 diabetic": the speaker's role; not "As a side note", "As a rough
# estimate": a word about the question (the role's last word is one of ``_NO_ROLE``).
_AS_A = re.compile(r"^(?i:as)\s+(?P<role>an?\s+[\w'-]+(?:\s+[\w'-]+){0,2})$")
_NO_ROLE = frozenset({
    "question", "rule", "note", "aside", "example", "estimate", "experiment", "hypothetical",
    "follow-up", "reminder", "whole", "result", "matter", "fact", "bonus", "favor", "favour",
    "gift", "present", "surprise", "treat", "precaution", "compromise", "alternative", "start",
    "test", "joke", "guess", "tip", "warning",
})  # fmt: skip
# Other ways a question opens with what is true of the speaker: "As someone with celiac",
# "As a person who can't eat gluten", "Being vegan", "With a bad knee", "With my asthma".
_AS_SOMEONE = re.compile(
    r"^(?i:as)\s+(?i:someone|somebody|a\s+person|one)\s+(?P<how>(?i:with|who))\s+(?P<rest>.+)$"
)
# Not a word about how the question is put ("Being honest, ..."), nor a clause whose
# subject "being ..." is ("Being outdoors is so calming, isn't it?").
_BEING = re.compile(
    r"^(?i:being)\s+(?!(?i:honest|frank|blunt|real|realistic|serious|fair|practical|curious|"
    r"nosy)\b)(?!.*\b(?i:is|are|was|were|has|have|makes?|made|helps?|feels?|gives?|seems?|"
    r"sounds?|looks?|takes?|needs?|means?|requires?|can|could|will|would|must|should|may|"
    r"might)\b)(?P<rest>.+)$"
)
_WITH = re.compile(r"^(?i:with)\s+(?P<rest>(?i:an?|my|our)\s+.+)$")
_WHO = [(re.compile(rf"^(?i:{verb})\b"), said) for verb, said in (
    ("is", "am"), ("has", "have"), ("does", "do"), ("doesn't", "don't"),
    ("does not", "do not"))]  # fmt: skip


def _as_told(told: str) -> str | None:
    """What a lead-in that is not a clause tells of the speaker, as their own sentence ("As
    a vegan" -> "I'm a vegan", "As someone with celiac" -> "I have celiac", "As someone who
    is deaf" -> "I am deaf", "Being pregnant" -> "I'm pregnant", "With a bad knee" -> "I
    have a bad knee"); None for any other."""
    role = _AS_A.match(told)
    if role and role.group("role").split()[-1].lower() not in _NO_ROLE:
        return f"I'm {role.group('role')}."
    someone = _AS_SOMEONE.match(told)
    if someone and someone.group("how").lower() == "with":
        return f"I have {someone.group('rest')}."
    if someone:
        rest = someone.group("rest")
        for verb, said in _WHO:
            rest = verb.sub(said, rest, count=1)
        return f"I {rest}."
    being = _BEING.match(told)
    if being:
        return f"I'm {being.group('rest')}."
    having = _WITH.match(told)
    if having:
        return f"I have {having.group('rest')}."
    return None


# Words that lead into a question without telling anything: "I'm curious, ...", "I wanted
# to ask you, ...", "Enough about me, ...".
_LEADS_IN = frozenset(
    {
        "curious", "wondering", "wonder", "ask", "asking", "question", "quick", "enough",
        "mean", "guess", "bet", "know", "see", "think", "say", "tell", "want", "wants",
        "wanted", "sorry", "i'm", "i've", "i'd", "i'll", "speaking", "btw", "anyway", "more",
        "though", "please",
    }
)  # fmt: skip


# Asking the assistant to remember what follows: "Remember that I'm allergic to
# penicillin", "Just so you know, my son is 4", "Can you remind me I have a dentist
# appointment on the 14th?". The memory is what follows, not the request.
_REMEMBER = re.compile(
    r"^(?i:(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:remember|note|keep\s+in\s+mind|"
    r"bear\s+in\s+mind|remind\s+me|don'?t\s+forget|do\s+not\s+forget)(?:\s+that)?|just\s+so\s+"
    r"you\s+know|fyi|for\s+the\s+record|for\s+your\s+information|heads\s+up|"
    r"(?:a\s+)?note\s+to\s+(?:self|you)|reminder|important)[,:]?\s+"
    r"(?=(?:I|[Ww]e|[Mm]y|[Oo]ur)\b)"
)


_ASKS_TO_REMEMBER = re.compile(r"^(?i:can|could|would|will|remember|please\s+remember|remind)\b")
# "Can you forget that I told you about the divorce?" asks nothing: it is a request, kept
# as a statement so that the write path closes what it names (``retract``).
_FORGET_WHAT = (
    r"(?:forget|disregard|delete|erase|remove|ignore)\s+"
    r"(?:that|what|the|everything|all|anything|my|about|I)\b"
)
# A request put to the assistant: "can you", "could u".
CAN_YOU = r"(?:can|could|would|will)\s+(?:you|u)\s+"
_ASKS_TO_FORGET = re.compile(rf"^(?i:{CAN_YOU}(?:please\s+)?{_FORGET_WHAT})")

# A request to forget, however short, is kept, so that the write path closes what it
# names ("delete the DUI thing").
_TO_FORGET = re.compile(
    r"^(?i:(?:(?:please|pls|oh|so|hey|ok(?:ay)?|also|and)[,\s]+)*"
    rf"(?:{CAN_YOU})?(?:please\s+)?"
    rf"(?:{_FORGET_WHAT}|(?:don't|do not|never)\s+(?:remember|store|save|keep|record)\b))"
)


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def told_to_remember(sentence: str) -> str | None:
    """What a request to remember asks to keep ("Remember that I'm vegan." -> "I'm
    vegan."), as a statement; None for any other sentence. Only what the speaker tells of
    themselves: "Remind me to call Mom" asks for a reminder, which is no fact."""
    found = _REMEMBER.match(sentence)
    if not found:
        return None
    told = sentence[found.end() :].rstrip()
    if told.endswith("?") and _ASKS_TO_REMEMBER.match(found.group()):
        # "Remember I had a tattoo of my dogs?", "Can you remember that I'm vegan?": the
        # question is whether the assistant remembers; what follows is the fact. After
        # "FYI" a question stays one ("FYI, I finished a quilt - want to see it?").
        told = told.rstrip("?").rstrip() + "."
    return _capitalised(told)


def told_before_asking(sentence: str) -> str | None:
    """What a question's sentence tells of the speaker before it asks (see ``_THEN_ASKS``),
    in their words; None when it only asks, supposes ("If I ...") or leads in ("I'm
    curious"), or what it tells is not in the first person (a compliment to the listener
    stays small talk). "As a vegan" is "I'm a vegan" (see ``_as_told``)."""
    found = _THEN_ASKS.match(sentence.strip())
    if not found:
        return None
    told = found.group("told").strip()
    lead = _as_told(told)
    if lead:
        return lead
    if _OPENS_A_CONDITION.match(told) or _A_QUESTION.match(told) or not is_first_person(told):
        return None
    told = _BECAUSE.sub("", told)
    if not _SPEAKER_SAYS.search(told):
        return None  # "Plan a trip for me and my kids—what gear ...?" asks; it tells nothing
    if not [w for w in content_words(told) if w not in _LEADS_IN]:
        return None
    return _capitalised(told) + "."


def reported(text: str) -> tuple[str, str] | None:
    """(speaker, what they said) of a memory this extractor wrote as "Maya said: ..."
    (a sentence not in the first person); None for any other text."""
    found = _REPORTED.match(text)
    return (found.group("who").strip(), found.group("what")) if found else None


def small_talk(sentence: str) -> bool:
    """Small talk ("That's awesome, congrats!"), which carries no memory unless it is long."""
    return _PHATIC.match(sentence) is not None and len(content_words(sentence)) < 6


def leans_back(sentence: str) -> bool:
    """Whether a sentence continues the one before it ("She chews on every plant.", "That
    was the week before the move."), so that it means little cut from it."""
    return _LEANS.match(sentence) is not None


# The questions a turn answers, kept with the turn's first thought (``in_reply_to``): at
# most this many words, so a long monologue that ends in a question does not swamp it.
# 15, 25 and 40 gave the same first-person recall on half A of the joined LoCoMo history
# (15 lost one of J's own questions at k = 10); docs/benchmarks.md.
REPLY_MAX_WORDS = 25
# How a memory keeps its questions, written and read in one place.
_REPLY_OPEN, _REPLY_CLOSE = ' (in reply to "', '")'
_REPLY = re.compile(re.escape(_REPLY_OPEN) + ".*" + re.escape(_REPLY_CLOSE))


def in_reply_to(previous: Turn | None, turn: Turn) -> str | None:
    """The questions ``turn`` answers: those of the turn before it, when another speaker
    asked them in the same session; the last ones, as many as fit in ``REPLY_MAX_WORDS``
    words ("How was Oslo? Did you see the fjords?": the answer may take up either)."""
    if previous is None or previous.speaker == turn.speaker:
        return None
    if previous.session_id != turn.session_id:
        return None
    asked = [s for s in split_sentences(previous.text) if s.endswith("?")]
    kept: list[str] = []
    words = 0
    for question in reversed(asked):
        words += len(question.split())
        if words > REPLY_MAX_WORDS:
            break
        kept.insert(0, question)
    return " ".join(kept) or None


# Words that only acknowledge ("Yes.", "Sure, thanks!"): no answer on their own.
_ACKNOWLEDGE = frozenset(
    ("yes", "yeah", "yep", "yup", "no", "nope", "nah", "sure", "thanks", "thank", "ok", "okay",
     "cool", "great", "nice", "awesome", "perfect", "alright", "right", "lol", "haha", "hmm",
     "please", "it", "that", "that's", "it's", "all", "for", "now")
)  # fmt: skip


def an_answer(sentence: str) -> bool:
    """Whether a reply says something besides acknowledging: "Penicillin.", "4 and 7.",
    "None."; not "Yes, thanks!" or "Nope, that's it."."""
    if sentence.endswith("?"):
        return False
    return any(w not in _ACKNOWLEDGE for w in content_words(sentence))


def own_words(text: str) -> str:
    """A memory without the question it answers (see ``in_reply_to``): what the speaker
    said, which is what a reading of their facts judges."""
    return _REPLY.sub("", text)


# What is not asserted as so: a condition ("if they raised Maya's rent to 2000 Maya would
# move", "unless it goes up"), and what its main clause says of it.
_CONDITION = re.compile(r"\b(?:if|unless|suppose|supposing|provided that)\b", re.IGNORECASE)
# "If" that asks whether ("not sure if", "wondering if"), or an aside ("if you can believe
# it", "if I remember right"): its clause is not asserted, its neighbours are.
_IF_ASIDE = re.compile(
    r"\b(?:sure|know|knows|knew|wonder|wondering|wondered|ask|asked|asking|see|check|"
    r"checking|decide|deciding|tell|remember|recall|unclear|idea|doubt|curious)\s+if\b|"
    r"\bif\s+(?:you|so|not|anything|possible|ever|that\s+(?:matters|helps|makes)|"
    r"memory serves|\w+\s+(?:remembers?|recalls?)|\w+(?:'s| is| am)\s+(?:being )?honest|"
    r"\w+(?:'s| is| am)\s+not mistaken)\b",
    re.IGNORECASE,
)
# A time to come, a wish or a plan, from its word on ("Maya will quit in May", "Maya wants
# to stop"); not one that says what no longer holds ("will no longer", "will never").
# Lower case only: "Will" and "May" are names and a month. Not "going to", which is
# also going somewhere ("stopped going to the gym").
_TO_COME = re.compile(
    r"(?:\b(?:would|could|might|should|may|must|shall|will|gonna|plans? to|"
    r"planning to|wants? to|hopes? to|hoping to|tries to|trying to|thinking (?:of|about)|"
    r"considering)|'ll)\b(?!\s+(?:not|no longer|never)\b)"
)
# A clause that opens on a time, which is to come when the sentence says so ("when Maya
# quits smoking, Maya will ...", "once the dose goes up Maya should feel better").
_WHEN = re.compile(
    r"^(?:(?:and|but|so|then|oh|well)\s+)?(?:when|once|as soon as|whenever|the day)\b",
    re.IGNORECASE,
)
_LEAD_WORDS = re.compile(r"^(?:(?:and|but|so|then|oh|well|even|only)\s+)*", re.IGNORECASE)


def _lead_end(clause: str) -> int:
    """Where a clause's own words start, after "and", "but", "even" and the like."""
    found = _LEAD_WORDS.match(clause)
    return found.end() if found else 0


def asserted(text: str) -> str:
    """``text`` without what it does not assert as so: a condition and the clause that
    depends on it, a time to come ("Maya will quit smoking in May", "when Maya quits,
    Maya will ..."), a wish or a plan. A clause left out keeps its mark, so what stays
    reads as it was said: "Maya quit Maya's job, so if you hear of anything, let Maya
    know" keeps "Maya quit Maya's job,"."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        parts = re.split(r"(\s*(?:[,;:\u2014\u2013]|\s-\s)\s*)", sentence)
        clauses, marks = parts[0::2], [*parts[1::2], ""]
        drop = [False] * len(clauses)
        to_come = bool(_TO_COME.search(sentence))
        for i, clause in enumerate(clauses):
            condition = _CONDITION.search(clause)
            if condition and _IF_ASIDE.search(clause):
                drop[i] = True  # an aside asserts nothing of its own
            elif condition and condition.start() <= _lead_end(clause):
                drop[i] = True  # the condition comes first: the next clause depends on it
                drop[i + 1 : i + 2] = [True] * len(drop[i + 1 : i + 2])
            elif condition:
                clauses[i] = clause[: condition.start()]  # "... tomorrow if Maya could"
            if _WHEN.match(clause) and to_come:
                drop[i : i + 2] = [True] * len(drop[i : i + 2])
            found = _TO_COME.search(clauses[i])
            if found:
                clauses[i] = clauses[i][: found.start()]
        kept = (
            ("" if gone else c.rstrip()) + m
            for c, m, gone in zip(clauses, marks, drop, strict=True)
        )
        out.append("".join(kept))
    return " ".join(out)


# Words that tell a thing has ended, which makes a short sentence worth keeping.
_ENDED = re.compile(
    r"\b(?:cleared up|went away|(?:is|are) (?:finally )?(?:gone|over|off)|got cancell?ed|"
    r"expired|healed|"
    # a life's events: "Grandpa died.", "Ziggy passed away.", "Noor was born."
    r"died|passed away|passed on|(?:was|were) born|got (?:married|engaged|divorced|fired|"
    r"laid off)|retired|"
    # a change in someone's life or plans: "Dana moved out.", "The Owls broke up.", "Tom
    # got promoted.", "The trip was cancelled." (not "Lunch was good.")
    r"moved (?:out|in|away|back)|broke up|split up|disbanded|quit(?! (?:it|that|this)\b)|resigned|"
    r"graduated|"
    r"remarried|relapsed|got (?:promoted|hired|sober|sick|hurt|injured|pregnant|"
    r"deployed|discharged|released|adopted)|(?:is|was|got) (?:pregnant|diagnosed|hospitali[sz]ed)|"
    r"(?:was|were|got|is|are|has been|have been) (?:postponed|cancell?ed|called off|"
    r"rescheduled|moved)|"
    # out of a place of care, or home from a stay: "Mom is out of the hospital.", "Gran
    # flew home."
    r"(?:is|are|got|came|was released) (?:out of|home from|from) (?:the )?(?:hospital|icu|"
    r"rehab|jail|prison)|(?:went|flew|headed) (?:back )?home)\b",
    re.IGNORECASE,
)


class RuleExtractor(Extractor):
    name = "rules"

    def __init__(
        self,
        min_words: int = 3,
        join_max_words: int = 60,
        states_a_fact: Callable[[str], bool] | None = None,
    ) -> None:
        self.min_words = min_words
        self.join_max_words = join_max_words
        # Whether a sentence states a standing fact (the knowledge resource's patterns):
        # such a sentence is kept however short ("Allergic to penicillin.", "On warfarin.",
        # "Mom is diabetic."), since it is the memory that decides advice.
        self.states_a_fact = states_a_fact

    def joins(self, sentence: str, thought: list[str]) -> bool:
        """Whether ``sentence`` goes with the thought before it (kept sentences of the same
        turn) rather than standing alone: it leans on it, says something of its own
        (two content words, as a short first-person statement needs) and the thought
        stays within ``join_max_words``."""
        if not thought or sentence.endswith("?") or not leans_back(sentence):
            return False
        if small_talk(sentence):
            return False
        words = sum(len(s.split()) for s in thought) + len(sentence.split())
        return len(content_words(sentence)) >= 2 and words <= self.join_max_words

    @staticmethod
    def _statements(text: str) -> list[str]:
        """The turn's sentences, a question's sentence cut to what it tells first."""
        out = []
        for sentence in map(capital_i, list_items(split_sentences(text))):
            sentence = told_to_remember(sentence) or sentence
            if sentence.endswith("?") and _ASKS_TO_FORGET.match(sentence):
                sentence = sentence.rstrip("?").rstrip() + "."
            told = told_before_asking(sentence) if sentence.endswith("?") else None
            out.append(told or sentence)
        return out

    def keep(self, sentence: str) -> bool:
        if sentence.endswith("?"):
            return False
        if _TO_FORGET.match(sentence):
            return True  # "can u erase the expulsion stuff": short, and what it names must go
        words = content_words(sentence)
        if is_first_person(sentence):
            # "I have a cat." is short and decisive; "I know!" is not.
            long_enough = len(words) >= 2
        else:
            long_enough = len(words) >= self.min_words and not small_talk(sentence)
        ended = _ENDED.search(sentence) is not None  # "The UTI cleared up.": short, and news
        return (
            long_enough
            or ended
            or (self.states_a_fact is not None and self.states_a_fact(sentence))
        )

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        out = []
        for previous, turn in zip([None, *turns], turns, strict=False):
            if turn.role == "assistant":
                continue
            asked = in_reply_to(previous, turn)
            # The assistant asked it ("Any drug allergies?"): the answer, however short
            # ("Penicillin."), is what the user told it, and means it with the question.
            answers = asked is not None and previous is not None and previous.role == "assistant"
            name = subject_of(turn)
            statements = self._statements(turn.text)
            # ... and with its question, it is the user's statement ("Are you vegetarian?"
            # "Yep." -> "I am vegetarian."), which says all the pair says.
            stated = None
            if answers and statements:
                stated = _statement_of_answer(previous, statements[0])
            if stated:
                statements[0] = stated
            thoughts: list[list[str]] = []
            for k, sentence in enumerate(statements):
                if thoughts and self.joins(sentence, thoughts[-1]):
                    thoughts[-1].append(sentence)
                elif self.keep(sentence) or (answers and k == 0 and an_answer(sentence)):
                    thoughts.append([sentence])
                elif thoughts and thoughts[-1]:
                    thoughts.append([])  # a dropped sentence ends the thought before it
            for n, thought in enumerate(filter(None, thoughts)):
                text = " ".join(self._said(s, name, i == 0) for i, s in enumerate(thought))
                if asked and n == 0 and not stated:
                    text += _REPLY_OPEN + asked + _REPLY_CLOSE
                out.append(
                    Candidate(
                        text=text + date_hint(" ".join(thought), turn.said_at),
                        subject=name,
                        source_turns=[turn.turn_id],
                        session_id=turn.session_id,
                        said_at=turn.said_at,
                    )
                )
        return out

    @staticmethod
    def _said(sentence: str, name: str, first: bool) -> str:
        """A sentence in the third person; the thought's first says who said it, unless
        its subject is the speaker's family called as they call them ("Mom is diabetic."
        -> "Maya's mom is diabetic.")."""
        sentence = household_subject(sentence, name) or sentence
        if is_first_person(sentence):
            return to_third_person(sentence, name)
        if _names_the_speaker(sentence, name):
            return sentence
        return f"{name} said: {sentence}" if first else sentence


def _names_the_speaker(sentence: str, name: str) -> bool:
    """Whether ``sentence`` opens with the speaker's name, in any case, as its subject or
    its owner ("Maya observes the Sabbath.", "maya's son is 4."): a statement about the
    speaker as an app or the speaker writes one, which "Maya said:" would make a quote."""
    return re.match(rf"{re.escape(name)}(?:'s)?\b(?![-'])", sentence, re.IGNORECASE) is not None


def _statement_of_answer(asker: Turn | None, reply: str) -> str | None:
    """The user's statement that the reply's first sentence makes with the one question of
    the assistant's turn before it (``answers.answered``), or None."""
    if asker is None:
        return None
    asked = [s for s in split_sentences(asker.text) if s.endswith("?")]
    if len(asked) != 1:
        return None  # "Any allergies? Any medications?" "Penicillin.": which one?
    return answered(asked[0], reply)


def states_a_standing_fact(sentence: str) -> bool:
    """Whether the shipped knowledge resource reads a standing fact in ``sentence`` (its
    fact patterns, as the visibility route reads a memory; read on first use)."""
    from logicmem.routes.visible.kb import load_kb

    return bool(load_kb().match_facts(sentence))


def from_settings(settings: ExtractSettings, llm: Callable[[], LLM | None]) -> RuleExtractor:
    """The ``rules`` extractor of ``EXTRACTORS`` (needs no model)."""
    return RuleExtractor(
        min_words=settings.min_words,
        join_max_words=settings.join_max_words,
        states_a_fact=states_a_standing_fact,
    )
