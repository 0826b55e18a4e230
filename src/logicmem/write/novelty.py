"""Novelty: does a new statement add anything to an old one it embeds close to?

Embeddings blur exactly the tokens that make two facts different: "takes 20 mg of
lisinopril" and "takes 40 mg of lisinopril" score a cosine near 0.99. So a close
neighbour is a duplicate only when the new text has no number, quantity, date, time,
name or content word the old one lacks, and negates the same words. Inflection,
spelling variants ("colour"/"color"), case, punctuation and filler words ("really")
are not new information.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from logicmem.routes.visible.text import OTHER_PEOPLE_WORDS
from logicmem.write.person import MEMBER_WORDS
from logicmem.write.rules import MONTHS, STOPWORDS, WEEKDAYS

VALUE_KINDS = frozenset({"quantity", "time", "number", "date"})

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]  # fmt: skip
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
# "second" is left out: it is also a unit of time.
_ORDINALS = ["first", "", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
             "tenth"]  # fmt: skip
_NUMBER_WORDS = {w: str(n) for n, w in enumerate(_ONES)}
_NUMBER_WORDS |= {w: str(20 + 10 * n) for n, w in enumerate(_TENS)}
_NUMBER_WORDS |= {w: str(n + 1) for n, w in enumerate(_ORDINALS) if w}
_NUMBER_WORDS |= {"hundred": "100", "thousand": "1000", "million": "1000000",
                  "billion": "1000000000", "dozen": "12"}  # fmt: skip

_DATE_WORDS = {w: w for w in [*MONTHS, *WEEKDAYS]}
_DATE_WORDS |= {w: w for w in ["yesterday", "today", "tomorrow", "tonight", "noon", "midnight"]}
# Abbreviations and words that are also ordinary words: dates only when capitalised.
_AMBIGUOUS_DATES = {m[:3]: m for m in MONTHS} | {"sept": "september", "may": "may",
                    "march": "march"} | {d[:3]: d for d in WEEKDAYS}  # fmt: skip
_AMBIGUOUS_DATES |= {"tues": "tuesday", "thurs": "thursday"}
for _word in _AMBIGUOUS_DATES:
    _DATE_WORDS.pop(_word, None)

# Units of measurement (a dose, a weight, a distance, money, a duration, an age): a number
# with one of these measures a state, so a new number there updates the old one.
_UNITS = {
    "mg": "mg", "milligram": "mg", "mcg": "mcg", "microgram": "mcg", "g": "g", "gram": "g",
    "kg": "kg", "kilo": "kg", "kilogram": "kg", "lb": "lb", "lbs": "lb", "pound": "lb",
    "oz": "oz", "ounce": "oz", "ml": "ml", "milliliter": "ml", "millilitre": "ml", "l": "l",
    "liter": "l", "litre": "l", "km": "km", "kilometer": "km", "kilometre": "km", "m": "m",
    "meter": "m", "metre": "m", "cm": "cm", "mm": "mm", "mi": "mile", "mile": "mile",
    "ft": "ft", "foot": "ft", "feet": "ft", "inch": "inch", "yd": "yd",
    "yard": "yd", "%": "%", "percent": "%", "$": "$", "dollar": "$", "usd": "$", "€": "€",
    "euro": "€", "eur": "€", "£": "£", "gbp": "£", "k": "k", "kcal": "kcal", "cal": "kcal",
    "calorie": "kcal", "iu": "iu", "unit": "unit", "pill": "pill", "tablet": "tablet",
    "capsule": "capsule", "dose": "dose", "drop": "drop", "puff": "puff", "cup": "cup",
    "glass": "glass", "serving": "serving", "hour": "hour", "hr": "hour", "h": "hour",
    "minute": "minute", "min": "minute", "sec": "second", "second": "second", "day": "day",
    "week": "week", "month": "month", "year": "year", "yr": "year", "mph": "mph",
    "kph": "kph", "bpm": "bpm", "degree": "degree", "°": "degree", "°c": "degree",
    "°f": "degree",
}  # fmt: skip
_CLOCK = {"am", "pm"}
_CLITICS = ("'m", "'re", "'ve", "'ll", "'d", "'s")
_NEGATORS = {"not", "no", "never", "without", "nobody", "nothing", "none", "neither", "nor",
             "cannot", "nowhere"}  # fmt: skip
_FILLERS = {"actually", "basically", "quite", "totally", "definitely", "honestly", "literally",
            "truly", "super", "absolutely", "certainly", "indeed", "simply", "seriously",
            "sorta", "um", "uh", "anyway"}  # fmt: skip
_QUIET = STOPWORDS | _FILLERS | {"has", "have", "had", "having"}  # no fact of their own
_NEAR_SPELLING = 0.85  # "favourite"/"favorite" 0.94; "jason"/"mason" 0.8

_TOKEN = re.compile(
    r"(?P<cur>[$€£])?(?P<num>\d+(?:[.,:]\d+)*)(?:st|nd|rd|th)?(?P<pct>%|°[cCfF]?)?"
    r"|(?P<word>[^\W\d_]+(?:'[^\W\d_]+)*)"
    r"|(?P<stop>[.!?:;(\"])"
)


@dataclass(frozen=True)
class Token:
    """One meaningful token: ``kind`` is quantity, time, number, date, name, word or neg."""

    kind: str
    norm: str


@dataclass(frozen=True)
class Novelty:
    """What a new text adds to an old one: ``kind`` is "" when nothing."""

    kind: str = ""
    tokens: tuple[str, ...] = ()

    @property
    def adds(self) -> bool:
        return bool(self.kind)


def stem(word: str) -> str:
    """A crude stem, so "takes"/"take"/"taking" and "named"/"name" compare equal."""
    word = word.removesuffix("'s")
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith(("ed", "ses", "xes", "zes", "ches", "shes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _unit(word: str) -> str | None:
    low = word.lower()
    return _UNITS.get(low) or (_UNITS.get(low[:-1]) if low.endswith("s") else None)


def _raw(text: str) -> list[tuple[str, str, bool]]:
    """(kind, text, starts a sentence) for numbers, words and units, in order."""
    out: list[tuple[str, str, bool]] = []
    start = True
    for m in _TOKEN.finditer(text.replace("’", "'")):
        if m.group("stop"):
            start = True
            continue
        if m.group("num"):
            num = m.group("num").replace(",", "")
            out.append(("num", num.lstrip("0") or "0" if num.isdigit() else num, start))
            if m.group("cur"):
                out.append(("unit", m.group("cur"), False))
            if m.group("pct"):
                out.append(("unit", m.group("pct").lower(), False))
        else:
            out.append(("word", m.group("word"), start))
        start = False
    return out


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of ``text`` that carry facts, values normalised ("two kids" -> 2 kid)."""
    raw = _raw(text)
    out: list[Token] = []
    i = 0
    while i < len(raw):
        kind, word, start = raw[i]
        low = word.lower()
        if low.endswith(_CLITICS):
            low = low.rsplit("'", 1)[0]  # "I'm" is "I am", "Maya's" is Maya
        number = word if kind == "num" else _NUMBER_WORDS.get(low)
        if number is not None:
            out.append(_value(number, raw[i + 1][1] if i + 1 < len(raw) else ""))
            i += out[-1].kind in ("quantity", "time")  # the unit is consumed
        elif low in _DATE_WORDS or (low in _AMBIGUOUS_DATES and _is_date(raw, i)):
            out.append(Token("date", _DATE_WORDS.get(low) or _AMBIGUOUS_DATES[low]))
        elif low in _NEGATORS or low.endswith("n't"):
            out.append(Token("neg", "not"))
        elif low == "longer" and out and out[-1].kind == "neg":
            pass  # "no longer smokes" negates "smokes"
        elif word[0].isupper() and not start and low.split("'")[0] != "i":
            out.append(Token("name", low))
        elif low not in _QUIET:
            out.append(Token("word", stem(low)))
        i += 1
    return tuple(out)


def _value(number: str, following: str) -> Token:
    low = following.lower()
    if low in _CLOCK:
        return Token("time", f"{number} {low}")
    if ":" in number:
        return Token("time", number)
    unit = _unit(following)
    if unit:
        return Token("quantity", f"{number} {unit}")
    return Token("number", number)


def _is_date(raw: list[tuple[str, str, bool]], i: int) -> bool:
    """An ambiguous month or weekday ("May", "Sat") counts when capitalised mid-sentence
    or beside a number ("may 3")."""
    _, word, start = raw[i]
    beside_number = any(0 <= j < len(raw) and raw[j][0] == "num" for j in (i - 1, i + 1))
    return beside_number or (word[0].isupper() and not start)


def negated(toks: tuple[Token, ...]) -> frozenset[str]:
    """The words a negation applies to: the next name or content word ("" at the end)."""
    out = set()
    for i, tok in enumerate(toks):
        if tok.kind == "neg":
            after = next((t.norm for t in toks[i + 1 :] if t.kind in ("word", "name")), "")
            out.add(after)
    return frozenset(out)


def what_is_new(new: str, old: str) -> Novelty:
    """What ``new`` states that ``old`` does not (``Novelty().adds`` is False: nothing)."""
    new_toks, old_toks = tokens(new), tokens(old)
    old_norms = {t.norm for t in old_toks}
    shared = {t.norm for t in new_toks} & old_norms
    # Negation matters on a word both texts mention ("" is a negation with no word after).
    flipped = {w for w in negated(new_toks) ^ negated(old_toks) if w in shared or w == ""}
    if flipped:
        return Novelty("negation", tuple(sorted(flipped)))
    new_values, old_values = _values(new_toks), _values(old_toks)
    values = Counter(new_values) - Counter(old_values)  # "number 1, writer 1" has two 1s
    if values or _swapped(new_toks, old_toks):
        return Novelty("value", tuple(sorted(values or new_values)))
    # A name counts as said before when the old text has the word in any case.
    names = {t.norm for t in new_toks if t.kind == "name"}
    names = {n for n in names if n not in old_norms and stem(n) not in old_norms}
    if names:
        return Novelty("name", tuple(sorted(names)))
    # Whose fact: "Maya is allergic to peanuts" after "Maya's son is allergic to peanuts"
    # leaves out the person the old one is about, and is a fact of another person.
    people = (old_norms & _PEOPLE) - {t.norm for t in new_toks}
    if people:
        return Novelty("person", tuple(sorted(people)))
    words = {t.norm for t in new_toks if t.kind == "word"} - old_norms
    words -= {stem(t.norm) for t in old_toks if t.kind == "name"}
    gone = old_norms - {t.norm for t in new_toks}
    words = {w for w in words if not _respelt(w, gone)}
    return Novelty("word", tuple(sorted(words))) if words else Novelty()


# The people a fact may be about other than the speaker, as ``tokens`` writes them.
_PEOPLE = frozenset(
    stem(w + suffix)
    for w in (
        " ".join(MEMBER_WORDS.values()) + " " + OTHER_PEOPLE_WORDS + " kid kids child children"
    ).split()
    for suffix in ("", "s")
)


def _values(toks: tuple[Token, ...]) -> tuple[str, ...]:
    return tuple(t.norm for t in toks if t.kind in VALUE_KINDS)


def _swapped(new: tuple[Token, ...], old: tuple[Token, ...]) -> bool:
    """The same values in other slots of the same words ("3 of 4" for "4 of 3")."""
    words = [tuple(t.norm for t in toks if t.kind not in VALUE_KINDS) for toks in (new, old)]
    return words[0] == words[1] and _values(new) != _values(old)


def adds_information(new: str, old: str) -> bool:
    """True when ``new`` states something ``old`` does not, so they must not merge."""
    return what_is_new(new, old).adds


def _respelt(word: str, candidates: set[str]) -> bool:
    """``word`` is a spelling variant of one of ``candidates`` ("colour" for "color")."""
    if len(word) < 5:
        return False
    return any(
        len(c) >= 5 and SequenceMatcher(None, word, c).ratio() >= _NEAR_SPELLING for c in candidates
    )
