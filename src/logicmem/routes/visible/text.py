"""Phrase matching that survives plurals, possessives and person: "my cats" ~ "Maya's cat"."""

from __future__ import annotations

import re
import unicodedata

_DROP = frozenset(
    [
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "am",
    ]
)


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("es") and word[-3] in "sxz":
        return word[:-2]
    if len(word) > 4 and word.endswith(("ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def fold(text: str) -> str:
    """Lowercase ASCII: accents dropped ("Cancún"), dotted abbreviations joined ("D.C.")."""
    text = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"\bu\.s\.(a\.)?", "usa", text)
    return re.sub(
        r"\b([a-z])\.([a-z])\.(?:([a-z])\.)?", lambda m: "".join(g or "" for g in m.groups()), text
    )


def tokens(text: str) -> tuple[str, ...]:
    """Lowercase word stems without pronouns, articles or possessive endings."""
    words = re.findall(r"[a-z0-9][a-z0-9&+-]*(?:'[a-z]+)?", fold(text))
    out = []
    for word in words:
        word = re.sub(r"'s$|'$", "", word)
        if word in _DROP:
            continue
        out.append(_stem(word))
    return tuple(out)


def contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """Whether ``needle`` occurs as a contiguous run of ``haystack``."""
    n = len(needle)
    if n == 0 or n > len(haystack):
        return False
    first = needle[0]
    return any(
        haystack[i] == first and haystack[i : i + n] == needle for i in range(len(haystack) - n + 1)
    )


_UNITS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
_TENS_RE, _UNIT_RE = "|".join(_TENS), "|".join(_UNITS[1:10])
_NUMBER_WORD = re.compile(
    rf"\b(?:({_TENS_RE})(?:[- ]({_UNIT_RE}))?|({'|'.join(reversed(_UNITS))}))\b"
)
_AGE = re.compile(
    r"\b(?:i'm|i am|is|am|turning|turned|turns|aged|age)\s+(?:now\s+|only\s+|just\s+)?"
    r"(\d{1,3})\b(?!\s*(?:%|percent|dollars|minutes|hours|miles|pounds|lbs|kg|km|weeks|"
    r"months|days|times|of|and a half|x\b|am\b|pm\b))"
)
# How a fact is said, normalised so "I'm a realtor" ~ "Sam is a licensed realtor" and
# "my daughter" ~ "Sam's daughter" ~ "his daughter", while "our kids" does not match
# "books for kids" (the possessive is kept as a marker instead of being dropped).
# A past *be* or *have* ("was pregnant", "when they were teenagers", "had a dog back in
# Michigan") is kept apart from the present: a pattern of a present state ("i'm a
# teenager", "has a dog") does not match what no longer holds; one of a past event ("had
# a concussion") still does.
MARKERS = frozenset(["poss", "be", "was", "had"])  # what fact_tokens puts for have and be
_FACT_FORMS = {
    **dict.fromkeys(["i", "we", "he", "she", "they", "i'd", "we'd", "i'll", "we'll"], ""),
    **dict.fromkeys(["my", "our", "his", "her", "their", "mine", "ours"], "poss"),
    **dict.fromkeys(["is", "am", "are", "i'm", "we're", "he's", "she's"], "be"),
    **dict.fromkeys(["was", "were"], "was"),
    **dict.fromkeys(["they're", "be", "been", "being"], "be"),
    # "has a toddler" ~ "my toddler": having is possessing, for these patterns.
    **dict.fromkeys(["has", "have", "having", "i've", "we've", "they've"], "poss"),
    "had": "had",
    **dict.fromkeys(["does", "did", "do"], "do"),
    **dict.fromkeys(["a", "an", "the"], ""),
}


# Ages of animals are chatted about as often as children's ("Luna, the cat, is 5").
ANIMALS = re.compile(
    r"\b(?:cats?|kittens?|dogs?|pupp(?:y|ies)|pups?|pets?|horses?|ponies|pony|rabbits?|"
    r"bunn(?:y|ies)|hamsters?|guinea pigs?|parrots?|birds?|fish|turtles?|tortoises?|"
    r"snakes?|lizards?|geckos?|ferrets?|goats?|chickens?)\b"
)


def _digits(match: re.Match[str]) -> str:
    tens, unit, single = match.groups()
    if single:
        return str(_UNITS.index(single))
    return str(_TENS[tens] + (_UNITS.index(unit) if unit else 0))


def fact_tokens(text: str) -> tuple[str, ...]:
    """Word stems for matching a stated fact against knowledge patterns, whoever says it:
    subject pronouns dropped, possessives and *have* as ``poss``, forms of *be* as one word,
    past *be* and *have* as their own words;
    number words as digits; an age stated any common way ("turning three", "is 20",
    "twenty years old") also as "N year old"; hyphenated words split ("two-seater")."""
    text = _NUMBER_WORD.sub(_digits, fold(text))
    if not ANIMALS.search(text):
        text = _AGE.sub(lambda m: f"{m.group(0)} {m.group(1)} year old", text)
    out: list[str] = []
    for word in re.findall(r"[a-z0-9][a-z0-9&+-]*(?:'[a-z]+)?", text):
        if word.endswith("'s") and word not in _FACT_FORMS:
            out.extend([_stem(word[:-2]), "poss"])
            continue
        word = _FACT_FORMS.get(word.rstrip("'"), word.rstrip("'"))
        if word == "had" and out and out[-1] in ("poss", "be"):
            out[-1] = "poss"  # "has had", "she's had": the present perfect still holds
            continue
        out.extend(_stem(part) for part in word.split("-") if part)
    return tuple(out)


def contains_loosely(haystack: tuple[str, ...], needle: tuple[str, ...], gap: int = 1) -> bool:
    """Whether ``needle``'s words occur in order with at most ``gap`` other words between
    neighbours ("uses oxygen" in "uses home oxygen")."""
    if not needle or len(needle) > len(haystack):
        return False
    for start, word in enumerate(haystack):
        if word != needle[0]:
            continue
        at, ok = start, True
        for want in needle[1:]:
            window = haystack[at + 1 : at + 2 + gap]
            if want not in window:
                ok = False
                break
            at = at + 1 + window.index(want)
        if ok:
            return True
    return False


# The subject the criticality prototypes are written about (data/criticality.json).
PROTOTYPE_SUBJECT = "Sam"

_FIRST_PERSON = [
    (re.compile(r"\bI am\b|\bI'm\b|\bI’m\b"), "{s} is"),
    (re.compile(r"\bI have\b|\bI've\b|\bI’ve\b"), "{s} has"),
    (re.compile(r"\bI was\b"), "{s} was"),
    (re.compile(r"\bI\b"), "{s}"),
    (re.compile(r"\b[Mm]y\b"), "{s}'s"),
    (re.compile(r"\b(?:[Mm]e|[Mm]yself)\b"), "{s}"),
]


def sentence_subject(text: str) -> str:
    """Whose fact a standalone sentence states, for data with no user attached (authored
    examples, evaluation sentences): "me" for the first person, else the leading name."""
    if re.match(r"(I|My|I'm|I've)\b", text):
        return "me"
    found = re.match(r"([A-Z][a-z]+)", text)
    return found.group(1) if found else "me"


def neutral_subject(text: str, user_id: str) -> str:
    """The memory as the prototypes phrase it: the user named ``PROTOTYPE_SUBJECT``.

    A sentence embedding carries its subject's name: "Caroline works six days a week" is
    measurably further from every prototype than "Sam works six days a week", enough to
    decide whether a fact counts as critical. Comparing facts in one person's name makes
    the judgement independent of who the user is."""
    out = text
    name = user_id.strip()
    if re.fullmatch(r"[A-Za-z][A-Za-z .'-]{0,40}", name) and name != PROTOTYPE_SUBJECT:
        out = re.sub(rf"\b{re.escape(name)}\b", PROTOTYPE_SUBJECT, out, flags=re.IGNORECASE)
    for pattern, repl in _FIRST_PERSON:
        out = pattern.sub(repl.format(s=PROTOTYPE_SUBJECT), out)
    return out


_ADVICE = re.compile(
    r"^[A-Z][\w-]*(?:'s\s+(?:advice|tips?)\b|\s+(?:(?:also|often|always|strongly|highly)\s+)?"
    r"(?:recommend|suggest|advis|encourag|urg|emphasi[sz]|acknowledg|appreciat|prais|"
    r"congratulat|admir)\w*\b)"
)


def gives_advice(text: str) -> bool:
    """A memory of what its subject recommended, praised or stressed to others ("Sam
    suggests seltzer as a healthier alternative to soda", "Sam's advice for new writers
    ..."): what is said about health or money there is advice, not the subject's own
    standing constraint, whatever words it shares with one."""
    return _ADVICE.match(text.strip()) is not None
