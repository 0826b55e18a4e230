"""Text normalisation for the visibility route.

- ``tokens``/``contains``: query-time phrase matching that survives plurals, possessives
  and person ("my cats" ~ "Maya's cat"), with a crude plural stemmer.
- ``fact_text``/``fact_tokens``: how a stated fact is read for the knowledge resource's
  fact patterns (``kb.KnowledgeBase.match_facts``): person, possessives, *be* and *have*
  normalised, and every word through ``lemma``, a light dependency-free lemmatiser (the
  inflectional steps of Porter2 plus tables of irregular forms, "took" -> take, "caught"
  -> catch, and of derivations that state the same fact, "allergic" ~ "allergy",
  "diabetic" ~ "diabetes", "pregnancy" ~ "pregnant"); per word also its clause, whether it
  states the past, and whether it came from a first-person word.
- ``fact_sentence``: a fact pattern as a short sentence about ``PROTOTYPE_SUBJECT`` ("takes
  warfarin" -> "Sam takes warfarin."), the exemplars memories are embedded against.
- ``neutral_subject``, ``sentence_subject``: memories compared in one person's name.
- ``gives_advice``, ``reports_other``: memories of advice given to others, and of news
  about a friend, a sibling or a coworker ("Sam's coworker is on Eliquis").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

from logicmem.write.person import ADDRESS_WORDS, MEMBER_WORDS, base_verb_s, is_first_person
from logicmem.write.rules import MONTHS, WEEKDAYS, reported

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


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words whose final -s is not a plural the stemmer may strip: nouns used only in the
# plural, or whose plural names another thing than the singular, which is a common word of
# its own ("news" is not "new", "glasses" are not "glass", "shorts" are not "short").
# Stripped, the key "news" was named by every request that says "new".
_WHOLE = word_set(
    "news goods means series species politics physics economics athletics gymnastics "
    "mathematics ethics glasses eyeglasses shorts clothes customs others spirits sweets "
    "lights matches leaves dates"
)


def _stem(word: str) -> str:
    if word in _WHOLE:
        return word
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


# Words after which "will" in a request is the document, not the auxiliary: an article, a
# possessive, a modifier, a preposition or a verb that takes it as its object. Not a word
# that is also a subject ("this will help", "the plan will work", "a draft that will do").
_WILL_NOUN_AFTER = word_set(
    "a an the my our your his her their living last new written updated for about of on "
    "with into write writing make making"
)


# Words the resource lists as keys in their noun sense (a theatre play, a wristwatch, a
# train, the mineral iron, the season) that are also everyday verbs ("we could play
# cards", "I train on Sundays", "how to iron a shirt").
_NOUN_KEYS_ALSO_VERBS = word_set("play plays watch watches train trains iron irons fall falls")
# Words after which such a word is the verb: the infinitive's "to", a subject pronoun, a
# modal or an auxiliary, a negation or an adverb of frequency.
_VERB_AFTER = word_set(
    "to i we you they he she can could should would will might must may shall i'll we'll "
    "you'll they'll he'll she'll let's do does did don't doesn't didn't not never also "
    "usually often always sometimes"
)


def tokens(text: str, *, request: bool = False) -> tuple[str, ...]:
    """Lowercase word stems without pronouns, articles or possessive endings. For a
    ``request``, also without the words that do not mean the key they spell:
    - the auxiliary *will* ("What will I need?", "Will it rain?"): the resource's key
      'will' (twelve entries list it) means the document, and only "my will", "a living
      will", "questions about the will" name it;
    - a noun key used as a verb ("we could play chess", "I train on Sundays"): only "a
      play", "the train", "my watch" name it;
    - *course* in "of course"."""
    words = re.findall(r"[a-z0-9][a-z0-9&+-]*(?:'[a-z]+)?", fold(text))
    out = []
    before = ""
    for word in words:
        word = re.sub(r"'s$|'$", "", word)
        not_key = request and (
            (word == "will" and before not in _WILL_NOUN_AFTER)
            or (word in _NOUN_KEYS_ALSO_VERBS and before in _VERB_AFTER)
            or (word == "course" and before == "of")
        )
        before = word
        if word in _DROP or not_key:
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
# What a number after "is" measures when it is not an age: a unit ("is 6 feet tall", "is
# 40 minutes from the hospital", "is 2 hours late") or a span of years that goes on to what
# it is a span of ("is 15 years sober", "is 20 years into a teaching career", "is 5 years
# cancer-free"), where "years old" and "years of age" state an age.
_MEASURE = (
    r"%|percent\b|dollars?\b|bucks\b|euros?\b|cents?\b|grand\b|k\b|"
    r"seconds?\b|secs?\b|minutes?\b|mins?\b|hours?\b|hrs?\b|days?\b|weeks?\b|months?\b|"
    r"miles?\b|km\b|kilomet(?:er|re)s?\b|met(?:er|re)s?\b|feet\b|foot\b|ft\b|inch(?:es)?\b|"
    r"cm\b|pounds?\b|lbs?\b|kg\b|kilos?\b|stone\b|grams?\b|ounces?\b|oz\b|degrees?\b|"
    r"centimet(?:er|re)s?\b|millimet(?:er|re)s?\b|floors?\b|stor(?:e?ys|y|ies)\b|levels?\b|"
    r"laps?\b|reps?\b|steps?\b|blocks?\b|"
    r"times\b|points?\b|of\b|and a half|x\b|am\b|pm\b|"
    r"(?:years?|yrs?)\s+(?!old\b|young\b|of\s+age\b)[a-z]"
)
# The verb an age is said with ("is 20", "turned 65", "aged 4"); not "age" after a
# preposition, which says when something happened or applies ("at age 15", "since age 6",
# "under age 18"), not how old anyone is now.
_TIME_OF_LIFE = "".join(
    rf"(?<!\b{p} )"
    for p in sorted(word_set("at by since until till from before after around about under over"))
)
_AGE_VERB = (
    rf"\b(?:i'm|i am|is|am|turning|turned|turns|aged|{_TIME_OF_LIFE}age)\s+"
    r"(?:now\s+|only\s+|just\s+)?"
)
_AGE = re.compile(rf"{_AGE_VERB}(\d{{1,3}})\b(?!\s*(?:{_MEASURE}))")
# Ages of animals are chatted about as often as children's ("Luna, the cat, is 5").
ANIMALS = re.compile(
    r"\b(?:cats?|kittens?|dogs?|pupp(?:y|ies)|pups?|pets?|horses?|ponies|pony|rabbits?|"
    r"bunn(?:y|ies)|hamsters?|guinea pigs?|parrots?|birds?|fish|turtles?|tortoises?|"
    r"snakes?|lizards?|geckos?|ferrets?|goats?|chickens?)\b"
)

# Whose an age is: a person's ("Sam's son is 4", "Sam is 80", "a 4-year-old and a baby"),
# or an animal's or a thing's ("Luna, the cat, is 5", "Sam's laptop is 5 years old", "a
# 15-year-old pickup"), which no entry for a person's age may read. Decided per mention,
# by the noun the age is said of: a word after a possessive or an article is a thing unless
# it names a person. Only these words name one; a bare name or a pronoun is a person.
_PERSONS = word_set(
    "i me he she we they you who whom son daughter kid child children baby toddler infant "
    "newborn boy girl twin teen teenager youngest oldest eldest middle firstborn one ones "
    "little husband wife partner spouse fiance fiancee boyfriend girlfriend mom mother mum "
    "mommy mama dad father daddy papa parent grandma grandmother grandpa grandfather "
    "granddad grandad nana granny grandparent grandson granddaughter grandchild grandkid "
    "brother sister sibling stepson stepdaughter stepmom stepmother stepdad stepfather "
    "niece nephew cousin aunt uncle law godson goddaughter man woman guy lady person "
    "friend roommate neighbor neighbour boss coworker colleague client patient student self"
)
_OWNERS = word_set("the a an my our your his her their its this that these those")
_ARTICLES = word_set("a an the this that")
_THINGS = word_set("it this that which")
# Words after "a 4-year-old" that leave it standing for a child: "a 4-year-old and a baby".
_AFTER_A_PERSON = word_set(
    "and or but who whose that which is was are has had have at in on with to for of from by "
    "since because so yet"
)
_AUXILIARIES = word_set("is am are was were be been being just now only still 'm 's")
_REACH = 4  # words back from an age's verb to the possessive or article of its noun
_SAID_OF = re.compile(_AGE_VERB + "$")
_ITS = re.compile(r"\b(?:it|that|this|which)'s\s+(?:now\s+|only\s+|just\s+)?$")
_YEARS_OLD = re.compile(
    r"\b(\d{1,3})(?:\s*-\s*|\s+)(?:years?|yrs?|months?|weeks?)(?:\s*-\s*|\s+)old\b"
)


def _person(word: str, persons: frozenset[str] = _PERSONS) -> bool:
    """Whether a noun names a person (one of ``persons``, or its plural: "sons", "twins")."""
    return word in persons or (word.endswith("s") and word[:-1] in persons)


def _said_of_a_thing(before: str) -> bool:
    """Whether the age a clause goes on to state ("... is 5") is an animal's or a thing's,
    judged by the words of the clause before its verb (``before``): the noun phrase after
    the nearest possessive or article within ``_REACH`` words ("our washing machine", "the
    house Sam rents", "our puppy Luna", "my daughter Mia") is an animal's when a word of it
    names one, a person's when a word names a person, else a thing's; without one, a lone
    animal, "it" or "this" is no person, and a name or a pronoun is one."""
    clause = re.split(r"[.;!?]", before)[-1]
    words = [w for w in re.findall(r"[a-z0-9']+", clause) if w not in _AUXILIARIES]
    if not words:
        return False
    for at in range(len(words) - 1, max(-1, len(words) - 1 - _REACH), -1):
        if words[at] in _OWNERS or (words[at].endswith("'s") and at < len(words) - 1):
            phrase = words[at + 1 :]
            if any(ANIMALS.fullmatch(w) for w in phrase):
                return True
            return not any(_person(w) for w in phrase)
    word = words[-1].removesuffix("'s")
    return bool(ANIMALS.fullmatch(word)) or word in _THINGS


def _thing_aged(text: str, m: re.Match[str]) -> bool:
    """Whether the "N years old" or "N-year-old" at ``m`` is an animal's or a thing's."""
    before = text[: m.start()]
    if _ITS.search(before):
        return True  # "it's 12 years old", "that's 9 years old"
    verb = _SAID_OF.search(before)
    if verb:
        return _said_of_a_thing(before[: verb.start()])
    after = re.match(r"\s*([a-z]+)", text[m.end() :])
    noun = after.group(1) if after else ""
    if not noun or _person(noun) or noun in _AFTER_A_PERSON:
        return False
    if ANIMALS.fullmatch(noun):
        return True
    det = re.findall(r"[a-z']+", before)[-1:]
    return bool(det) and det[0] in _ARTICLES


# What an age-like number after "is" measures instead ("is 170 centimeters", "is 15 years
# sober"), and the person words that name someone in particular (not "I", "one", "a woman").
_MEASURED = re.compile(rf"{_AGE_VERB}(\d{{1,3}})\s*(?:{_MEASURE})")
_KIN = _PERSONS - word_set(
    "i me he she we they you who whom one ones little middle self person man woman guy lady"
)


# Ages listed after "ages" ("the twins, ages 5 and 8", "the girls are ages 4, 7 and 9"):
# each read as "aged N" is.
_AGES_LISTED = re.compile(r"\bages\s+(\d{1,3}(?:(?:\s*,\s*|\s*,?\s+(?:and|&)\s+)\d{1,3})+)\b")


def _each_aged(text: str) -> str:
    """``text`` with a list of people's ages after "ages" written one by one ("our boys,
    ages 2 and 9" -> "... aged 2 and aged 9"); a list of an animal's or a thing's ages
    ("two cats, ages 2 and 5") as it is, which no age entry reads."""
    return _AGES_LISTED.sub(
        lambda m: (
            m.group(0)
            if _said_of_a_thing(text[: m.start()])
            else " and ".join(f"aged {n}" for n in re.findall(r"\d+", m.group(1)))
        ),
        text,
    )


def no_persons_age(text: str) -> bool:
    """Whether ``text`` states an age-like number only of an animal or a thing, or as a span
    or a measure ("Our mattress is 11 years old", "I'm 170 centimeters"), and names no
    person an age could be of: the embedding classifier reads "11 years old" as a child's."""
    folded = _each_aged(_NUMBER_WORD.sub(_digits, fold(text)))
    other = bool(_MEASURED.search(folded))
    for m in _YEARS_OLD.finditer(folded):
        if not _thing_aged(folded, m):
            return False
        other = True
    for m in _AGE.finditer(folded):
        if not _said_of_a_thing(folded[: m.start()]):
            return False
        other = True
    words = re.findall(r"[a-z]+", folded)
    return other and not any(_person(w, _KIN) for w in words)


_LISTED_BEFORE = re.compile(r"(?<![\d.,])(?:\d{1,3}\s*(?:,\s*(?:and\s+|&\s+)?|and\s+|&\s+))+$")


def stated_ages(text: str) -> list[int]:
    """The ages in years ``text`` states of people, in order ("Sam's son is 6", "a
    4-year-old", "Sam turned 67", "the twins, ages 5 and 8", "Sam is seventy-eight"); not an
    animal's or a thing's age, a span or a measure ("Sam's laptop is 5 years old", "15 years
    sober"), by the rules of ``person_ages``. An infant's months or weeks are no years."""
    folded = _each_aged(_NUMBER_WORD.sub(_digits, fold(text)))
    # "'s" before a number is "is": "Sam's daughter's 13", "he's 20".
    folded = re.sub(r"(?<=[a-z])'s\s+(?=\d{1,3}\b)", " is ", folded)
    found: dict[int, int] = {}
    for m in _YEARS_OLD.finditer(folded):
        if re.search(r"\by(?:ea)?rs?\b", m.group(0)) and not _thing_aged(folded, m):
            found[m.start(1)] = int(m.group(1))
            # The ages listed before it: "Sam's kids are 4 and 9 years old".
            listed = _LISTED_BEFORE.search(folded[: m.start()])
            if listed:
                for n in re.finditer(r"\d{1,3}", listed.group(0)):
                    found[listed.start() + n.start()] = int(n.group(0))
    for m in _AGE.finditer(folded):
        after = folded[m.end() :]
        if re.match(r"\s*-?\s*(?:months?|weeks?|days?)\b", after):
            continue
        if not _said_of_a_thing(folded[: m.start()]):
            found[m.start(1)] = int(m.group(1))
    return [age for _, age in sorted(found.items())]


def person_ages(text: str) -> str:
    """``text`` (folded) with each age stated of a person also as "N year old" ("Sam is
    20" -> "... 20 20 year old", as patterns are read), and each age of an animal or a thing
    without its "old" ("Sam's car is 16 years old" -> "... 16 years"), so that neither a
    child's nor an adult's age entry reads it (see ``_said_of_a_thing``)."""
    text = _each_aged(text)
    text = _YEARS_OLD.sub(
        lambda m: (
            m.group(0)[: m.group(0).rindex("old")].rstrip(" -")
            if _thing_aged(text, m)
            else m.group(0)
        ),
        text,
    )
    return _AGE.sub(
        lambda m: (
            m.group(0)
            if _said_of_a_thing(text[: m.start()])
            else f"{m.group(0)} {m.group(1)} year old"
        ),
        text,
    )


def _digits(match: re.Match[str]) -> str:
    tens, unit, single = match.groups()
    if single:
        return str(_UNITS.index(single))
    return str(_TENS[tens] + (_UNITS.index(unit) if unit else 0))


# --- A light lemmatiser for fact matching ------------------------------------------------
# Regular inflections follow the first and last steps of the Porter2 ("English Snowball")
# stemmer: plurals and third persons (-s, -es, -ies), participles (-ing, -ed, a doubled
# consonant undone, a silent e restored on a short stem: "taking" -> take, "running" ->
# run, "hoping" -> hope but "hopping" -> hop) and a final silent e ("diagnose" and
# "diagnosed" -> diagnos). Its derivational steps (-ation, -ness, -ive ...) are left out:
# they conflate too much ("organ" ~ "organic"). What the rules cannot see comes from two
# tables: common irregular forms ("took", "caught", "flew") and the derivations that
# state the same fact ("allergic" ~ "allergy", "diabetic" ~ "diabetes").

_IRREGULAR_PAST = {
    **dict.fromkeys(["took", "taken"], "take"),
    **dict.fromkeys(["got", "gotten"], "get"),
    **dict.fromkeys(["ate", "eaten"], "eat"),
    **dict.fromkeys(["fell", "fallen"], "fall"),
    **dict.fromkeys(["drove", "driven"], "drive"),
    **dict.fromkeys(["flew", "flown"], "fly"),
    **dict.fromkeys(["broke", "broken"], "break"),
    **dict.fromkeys(["went", "gone"], "go"),
    **dict.fromkeys(["gave", "given"], "give"),
    **dict.fromkeys(["began", "begun"], "begin"),
    **dict.fromkeys(["wore", "worn"], "wear"),
    **dict.fromkeys(["tore", "torn"], "tear"),
    **dict.fromkeys(["rode", "ridden"], "ride"),
    **dict.fromkeys(["wrote", "written"], "write"),
    **dict.fromkeys(["woke", "woken"], "wake"),
    **dict.fromkeys(["drank", "drunk"], "drink"),
    **dict.fromkeys(["chose", "chosen"], "choose"),
    **dict.fromkeys(["froze", "frozen"], "freeze"),
    **dict.fromkeys(["grew", "grown"], "grow"),
    **dict.fromkeys(["knew", "known"], "know"),
    **dict.fromkeys(["threw", "thrown"], "throw"),
    **dict.fromkeys(["swam", "swum"], "swim"),
    **dict.fromkeys(["stole", "stolen"], "steal"),
    **dict.fromkeys(["spoke", "spoken"], "speak"),
    **dict.fromkeys(["hid", "hidden"], "hide"),
    **dict.fromkeys(["forgot", "forgotten"], "forget"),
    **dict.fromkeys(["underwent", "undergone"], "undergo"),
    **dict.fromkeys(["shook", "shaken"], "shake"),
    **dict.fromkeys(["swore", "sworn"], "swear"),
    **dict.fromkeys(["drew", "drawn"], "draw"),
    **dict.fromkeys(["blew", "blown"], "blow"),
    **dict.fromkeys(["saw", "seen"], "see"),
    **dict.fromkeys(["struck", "stricken"], "strike"),
    **dict.fromkeys(["did", "done"], "do"),
    "caught": "catch", "came": "come", "made": "make", "ran": "run", "felt": "feel",
    "kept": "keep", "lost": "lose", "sold": "sell", "bought": "buy", "told": "tell",
    "found": "find", "brought": "bring", "fought": "fight", "spent": "spend",
    "slept": "sleep", "became": "become", "paid": "pay", "held": "hold", "fed": "feed",
    "breastfed": "breastfeed", "bled": "bleed", "sat": "sit", "stood": "stand",
    "met": "meet", "thought": "think", "taught": "teach", "heard": "hear", "meant": "mean",
    "built": "build", "sent": "send", "led": "lead", "dealt": "deal", "stuck": "stick",
    "hung": "hang", "dug": "dig", "overcame": "overcome", "withdrew": "withdraw",
    "sought": "seek", "fled": "flee", "bitten": "bite",
}  # fmt: skip
_IRREGULAR = {
    **_IRREGULAR_PAST,
    "goes": "go", "quitting": "quit", "dying": "die", "lying": "lie", "tying": "tie",
    "children": "child", "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth",
    "mice": "mouse", "geese": "goose", "wives": "wife", "knives": "knife",
    "people": "person", "grandchildren": "grandchild", "stepchildren": "stepchild",
}  # fmt: skip
# Words the rules would cut but that are not inflected.
_INVARIANT = frozenset(["news", "bias", "series", "species", "lens", "always", "perhaps"])

# Derivations that state the same fact ("Sam is diabetic" ~ "Sam has diabetes"): each is
# read as its canonical word, in patterns and in texts, so the two meet.
_DERIVED = {
    **dict.fromkeys(["allergic", "allergies"], "allergy"),
    **dict.fromkeys(["diabetic", "diabetics"], "diabetes"),
    **dict.fromkeys(["pregnancy", "pregnancies"], "pregnant"),
    **dict.fromkeys(["epileptic", "epileptics"], "epilepsy"),
    **dict.fromkeys(["asthmatic", "asthmatics"], "asthma"),
    **dict.fromkeys(["veganism", "vegans"], "vegan"),
    **dict.fromkeys(["vegetarianism", "vegetarians"], "vegetarian"),
    **dict.fromkeys(["pescatarianism", "pescatarians", "pescetarian"], "pescatarian"),
    "arthritic": "arthritis",
    **dict.fromkeys(["anemic", "anaemic", "anaemia"], "anemia"),
    **dict.fromkeys(["coeliac", "coeliacs", "celiacs"], "celiac"),
    "autistic": "autism",
    "dyslexic": "dyslexia",
    **dict.fromkeys(["diagnosis", "diagnoses", "diagnosing", "diagnosed"], "diagnose"),
    **dict.fromkeys(["intolerance", "intolerances"], "intolerant"),
    **dict.fromkeys(["sensitivity", "sensitivities"], "sensitive"),
    "hypertensive": "hypertension",
    **dict.fromkeys(["depressed", "depressive"], "depression"),
    "sobriety": "sober",
    **dict.fromkeys(["addicted", "addiction", "addictions", "addicts"], "addict"),
    **dict.fromkeys(["alcoholism", "alcoholics"], "alcoholic"),
    "infertile": "infertility",
    **dict.fromkeys(["insomniac", "insomniacs"], "insomnia"),
    "narcoleptic": "narcolepsy",
    "anorexic": "anorexia",
    "bulimic": "bulimia",
    **dict.fromkeys(["paralysed", "paralyzed"], "paralysis"),
    "claustrophobia": "claustrophobic",
    "schizophrenic": "schizophrenia",
    "osteoporotic": "osteoporosis",
    "hypothyroid": "hypothyroidism",
    "hyperthyroid": "hyperthyroidism",
    "immunosuppressed": "immunocompromised",
    **dict.fromkeys(["teetotaller", "teetotaler", "teetotalers", "teetotallers"], "teetotal"),
}  # fmt: skip

_VOWEL = frozenset("aeiou")


def _vowel(word: str, i: int) -> bool:
    """Porter's vowels: a, e, i, o, u, and y after a consonant."""
    char = word[i]
    return char in _VOWEL or (char == "y" and i > 0 and not _vowel(word, i - 1))


def _region(word: str, start: int) -> int:
    """Where Porter's R1 (``start`` 0) or R2 (``start`` R1) begins: after the first
    consonant that follows a vowel."""
    for i in range(start + 1, len(word)):
        if not _vowel(word, i) and _vowel(word, i - 1):
            return i + 1
    return len(word)


def _short_syllable(word: str) -> bool:
    """Ends consonant-vowel-consonant (the last not w, x or y), or is vowel-consonant."""
    n = len(word)
    if n == 2:
        return _vowel(word, 0) and not _vowel(word, 1)
    return (
        n > 2
        and not _vowel(word, n - 3)
        and _vowel(word, n - 2)
        and not _vowel(word, n - 1)
        and word[-1] not in "wxy"
    )


def _inflection(word: str) -> str:
    """Porter2's steps 1a-1c and 5: inflections, then a silent e."""
    if len(word) <= 2 or not word.isalpha() or word in _INVARIANT:
        return word
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith(("ied", "ies")):
        word = word[:-2] if len(word) > 4 else word[:-1]
    elif word.endswith(("us", "ss")):
        pass
    elif word.endswith("s") and any(_vowel(word, i) for i in range(len(word) - 2)):
        word = word[:-1]
    if not word.endswith("eed"):  # "need", "breastfeed" (Porter's "agreed" -> agree aside)
        for suffix in ("ingly", "edly", "ing", "ed"):
            if not word.endswith(suffix):
                continue
            base = word[: -len(suffix)]
            if any(_vowel(base, i) for i in range(len(base))):
                word = base
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif len(word) > 3 and word[-1] == word[-2] and word[-1] in "bdgmnprt":
                    word = word[:-1]
                elif _short_syllable(word) and _region(word, 0) >= len(word):
                    word += "e"
            break
    if len(word) > 2 and word[-1] == "y" and word[-2] not in "aeiouy":
        word = word[:-1] + "i"
    if word.endswith("e") and len(word) > 3:
        r1 = _region(word, 0)
        end = len(word) - 1
        if end >= _region(word, r1) or (end >= r1 and not _short_syllable(word[:-1])):
            word = word[:-1]
    return word


def lemma(word: str) -> str:
    """A word's matching form: irregular and derived forms read as their base ("took" ->
    take, "asthmatic" -> asthma), then regular inflections removed ("takes", "taking",
    "take" -> take; "allergies", "allergy", "allergic" -> allergi)."""
    word = _IRREGULAR.get(word, word)
    return _inflection(_DERIVED.get(word, word))


def word_form(word: str) -> str:
    """ "past" for a simple past or past participle ("took", "lived"), "ing" for a present
    participle, else "" (derived words such as "diagnosed" or "depressed" are states)."""
    if word in _IRREGULAR_PAST:
        return "past"
    if word in _DERIVED or word in _IRREGULAR or not word.isalpha():
        return ""
    if word.endswith("ed") and not word.endswith("eed") and _inflection(word) != word:
        return "past"
    if word.endswith("ing") and _inflection(word) != word:
        return "ing"
    return ""


# How a fact is said, normalised so "I'm a realtor" ~ "Sam is a licensed realtor" and
# "my daughter" ~ "Sam's daughter" ~ "his daughter", while "our kids" does not match
# "books for kids" (the possessive is kept as a marker instead of being dropped).
# A past *be* or *have* ("was pregnant", "when they were teenagers", "had a dog back in
# Michigan") is kept apart from the present: a pattern of a present state ("i'm a
# teenager", "has a dog") does not match what no longer holds; one of a past event ("had
# a concussion") still does.
MARKERS = frozenset(["poss", "be", "was", "had"])  # what fact_tokens puts for have and be
_FIRST = ["i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "we'd", "we'll"]
_FIRST += ["me", "my", "mine", "myself", "our", "ours", "us", "ourselves"]
FIRST_PERSON_WORDS = frozenset(_FIRST)
_FACT_FORMS = {
    **dict.fromkeys(["i", "we", "he", "she", "they", "i'll", "we'll"], ""),
    **dict.fromkeys(["i'd", "we'd", "he'd", "she'd", "they'd", "you'd"], "would"),
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
_HAVE_VERB = frozenset(["has", "have", "having", "i've", "we've", "they've"])
# Negated auxiliaries are split, so "doesn't have a car" ~ "does not have a car"; so is
# the *be* of "it's" (not a possessive).
_SPLIT = {
    **dict.fromkeys(["don't", "doesn't", "didn't", "dont", "doesnt", "didnt"], ("do", "not")),
    **dict.fromkeys(["can't", "cannot", "cant", "couldn't"], ("can", "not")),
    **dict.fromkeys(["won't", "wouldn't"], ("would", "not")),
    **dict.fromkeys(["isn't", "aren't", "ain't"], ("be", "not")),
    **dict.fromkeys(["wasn't", "weren't"], ("was", "not")),
    **dict.fromkeys(["haven't", "hasn't"], ("poss", "not")),
    "hadn't": ("had", "not"),
    "shouldn't": ("should", "not"),
    **{f"{w}'s": (w, "be") for w in ("it", "that", "there", "what", "who", "here", "where")},
}
# Where a clause ends, for the looser matches (commas do not end one: "Peanuts, I'm
# allergic to them"); where a segment ends, for the scope of a negation ("No, I'm vegan").
_CLAUSE_END = re.compile(r"[.!?;\n]+")
_SEGMENT_END = re.compile(r"[,:()\u2013\u2014]+|\s-\s")
_CLAUSE_WORDS = frozenset(["but", "although", "though", "whereas", "however", "except"])


class FactText(NamedTuple):
    """A text as fact matching reads it: ``words`` (see ``fact_tokens``), and per word its
    clause and segment number, its ``form`` as written ("past", "ing" or "", see
    ``word_form``), whether it states the past (a past form not after *have* or *be*:
    "took", not "has taken" or "is diagnosed"), whether it came from a first-person word
    ("I", "my", "me"...), whether a ``poss`` is the verb *have*, and whether it is joined
    by a hyphen to the next word, which is not a number ("no" in "a no-spray lawn",
    "peanut" in "a peanut-free school"; not "covid" in "covid-19")."""

    words: tuple[str, ...]
    clause: tuple[int, ...]
    segment: tuple[int, ...]
    form: tuple[str, ...]
    past: tuple[bool, ...]
    first_person: tuple[bool, ...]
    have: tuple[bool, ...]
    joined: tuple[bool, ...]


# Framings that put what follows into a possible future, read as "considering" (a
# hypothetical): "thinking about going vegan", "dreaming of owning a horse", "toying with
# the idea of moving". Only before a verb in -ing: "thinking about my diagnosis" is a fact.
_MULLING = re.compile(
    r"\b(?:think(?:s|ing)?|thought|dream(?:s|ing|t|ed)?)\s+(?:about|of)\s+(?=[a-z]+ing\b)"
    r"|\btoy(?:s|ing|ed)?\s+with\s+the\s+idea\s+of\b"
    # a time still to come that something is made ready for: "a library for when she has
    # kids", "savings for whenever we buy a house"
    r"|\bfor\s+when(?:ever)?\b"
)


def fact_text(text: str) -> FactText:
    """Read ``text`` for fact matching (see ``fact_tokens`` for the words)."""
    text = _NUMBER_WORD.sub(_digits, fold(text))
    text = person_ages(text)
    text = re.sub(r"\bused to\b", "formerly", text)
    text = _MULLING.sub("considering ", text)
    # "works as a nurse" states what "is a nurse" does; "worked as" what "was" does.
    text = re.sub(r"\b(?:works?|working|employed|serves?|serving) as\b", "is", text)
    text = re.sub(r"\b(?:worked|served) as\b", "was", text)
    words: list[str] = []
    clause: list[int] = []
    segment: list[int] = []
    form: list[str] = []
    past: list[bool] = []
    first: list[bool] = []
    have: list[bool] = []
    joined: list[bool] = []
    c = s = 0
    pending_first = False

    def put(word: str, shape: str = "", mine: bool = False, verb: bool = False) -> None:
        nonlocal pending_first
        # "has taken", "is diagnosed": a present perfect or a state, not the past
        past.append(shape == "past" and not (words and words[-1] in ("poss", "be")))
        words.append(word)
        clause.append(c)
        segment.append(s)
        form.append(shape)
        first.append(mine or pending_first)
        have.append(verb)
        joined.append(False)
        pending_first = False

    pos = 0
    for match in re.finditer(r"[a-z0-9][a-z0-9&+-]*(?:'[a-z]+)?", text):
        between = text[pos : match.start()]
        pos = match.end()
        if _CLAUSE_END.search(between):
            c, s = c + 1, s + 1
        elif _SEGMENT_END.search(between):
            s += 1
        word = match.group(0)
        if word in _CLAUSE_WORDS:
            c, s = c + 1, s + 1
        mine = word in FIRST_PERSON_WORDS
        if word.endswith("'s") and word not in _FACT_FORMS and word not in _SPLIT:
            put(lemma(word[:-2]), mine=mine)
            put("poss")
            continue
        if word in _SPLIT:
            for part in _SPLIT[word]:
                put(part, mine=mine)
            continue
        plain = word.rstrip("'")
        mapped = _FACT_FORMS.get(plain, plain)
        if mapped == "":
            pending_first = pending_first or mine
            continue
        if mapped == "had" and words and words[-1] in ("poss", "be"):
            words[-1] = "poss"  # "has had", "she's had": the present perfect still holds
            have[-1] = True
            continue
        if mapped != plain:
            put(mapped, mine=mine, verb=plain in _HAVE_VERB)
            continue
        parts = [p for p in plain.split("-") if p]
        for n, part in enumerate(parts):
            put(lemma(part), word_form(part), mine=mine)
            joined[-1] = n + 1 < len(parts) and not parts[n + 1].isdigit()
    return FactText(
        tuple(words),
        tuple(clause),
        tuple(segment),
        tuple(form),
        tuple(past),
        tuple(first),
        tuple(have),
        tuple(joined),
    )


def fact_tokens(text: str) -> tuple[str, ...]:
    """Word lemmas for matching a stated fact against knowledge patterns, whoever says it:
    subject pronouns dropped, possessives and *have* as ``poss``, forms of *be* as one word,
    past *be* and *have* as their own words, negated auxiliaries split ("can't" -> can
    not), "used to" as ``formerly``; number words as digits; a person's age stated any common
    way ("turning three", "is 20", "twenty years old") also as "N year old", and an
    animal's or a thing's without its "old" (``person_ages``); hyphenated words
    split ("two-seater"); every word through ``lemma``."""
    return fact_text(text).words


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
    # how other memory layers name whoever the memories are about
    (re.compile(r"\b(?:[Tt]he user|User)\b"), "{s}"),
]


# Capitalised words that open a sentence without naming anyone: "Every Monday, Nina ...",
# "At 15, Leo ...", "Last autumn, Rui ...", "Dr. Varga ...". Not ``write.rules.STOPWORDS``:
# that list holds words that are also names ("Will", "May").
_NOT_A_NAME = frozenset(
    [
        *("a", "an", "the", "this", "that", "these", "those", "every", "each", "any", "some"),
        *("no", "not", "all", "both", "most", "many", "few", "one", "two", "three", "twice"),
        *("at", "on", "in", "by", "for", "from", "to", "of", "with", "without", "about"),
        *("after", "before", "during", "since", "until", "till", "once", "when", "while"),
        *("because", "if", "unless", "though", "although", "as", "so", "and", "but", "or"),
        *("ever", "last", "next", "just", "still", "now", "then", "today", "tonight"),
        *("yesterday", "tomorrow", "honestly", "apparently", "maybe", "also", "only"),
        *("mr", "mrs", "ms", "dr", "aunt", "uncle", "grandma", "grandpa"),
        *MONTHS,
        *WEEKDAYS,
    ]
)
# Months that are also given names: the subject when they open the sentence.
_MONTH_NAMES = frozenset(["april", "may", "june", "august"])


def sentence_subject(text: str) -> str:
    """Whose fact a standalone sentence states, for data with no user attached (authored
    examples, evaluation sentences): "me" when the speaker speaks of themself anywhere
    ("Shellfish gives me hives": not someone named "Shellfish"), else the first capitalised
    word that can be a name ("On Thursdays Nina coaches a rugby team": Nina)."""
    if is_first_person(text):
        return "me"  # "Our cat ...": the speaker's household, not someone named "Our"
    for i, word in enumerate(re.findall(r"\b[A-Z][a-z]+\b", text)):
        low = word.lower().removesuffix("s") if word.endswith("days") else word.lower()
        if low not in _NOT_A_NAME or (i == 0 and low in _MONTH_NAMES):
            return word  # "June is a nurse", but "In June, Priya ..."
    return "me"


def user_names(user_id: str, aliases: Sequence[str] = ()) -> list[str]:
    """The user's id and the names the user speaks under, each once (whatever the case),
    longest first, so a longer name is matched before a name inside it."""
    found = {n.strip().lower(): n.strip() for n in (user_id, *aliases) if n and n.strip()}
    return sorted(found.values(), key=lambda n: (-len(n), n))


def whole_name(name: str) -> re.Pattern[str]:
    """``name`` as a whole token in any script, whatever the case: "Omar" in "Omar's" and
    "Omar'll", not in "Omari"; ids that are not names too ("u-1842")."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)


def neutral_subject(text: str, user_id: str, aliases: Sequence[str] = ()) -> str:
    """The memory as the prototypes phrase it: the user (``user_id``, or one of the
    ``aliases``: the names the user speaks under) named ``PROTOTYPE_SUBJECT``.

    A sentence embedding carries its subject's name: "Priya works six days a week" is
    measurably further from every prototype than "Sam works six days a week", enough to
    decide whether a fact counts as critical. Comparing facts in one person's name makes
    the judgement independent of who the user is."""
    out = text
    for name in user_names(user_id, aliases):
        if 2 <= len(name) <= 80 and name != PROTOTYPE_SUBJECT:
            # Whole words in any script, and ids that are not names ("u-1842",
            # "ana@example.com"): an unrenamed subject costs the classifier half its recall.
            out = whole_name(name).sub(PROTOTYPE_SUBJECT, out)
    for pattern, repl in _FIRST_PERSON:
        out = pattern.sub(repl.format(s=PROTOTYPE_SUBJECT), out)
    if subjectless(out):
        verb = "is " if out.split()[0].lower() in _ADJECTIVES else ""
        out = f"{PROTOTYPE_SUBJECT} {verb}{out[0].lower()}{out[1:]}"
    return out


def subjectless(text: str) -> bool:
    """A memory written without its subject, as some memory layers store them ("Is
    allergic to peanuts", "Takes warfarin daily", "Allergic to penicillin"): a statement
    that opens with a verb of the third person or an adjective of state and a
    preposition."""
    words = text.split()
    if not words or not words[0][:1].isupper() or text.rstrip().endswith("?"):
        return False
    first = words[0].lower()
    second = words[1].lower() if len(words) > 1 else ""
    if second in ("like", "as", "if"):
        return False  # "Looks like rain", "Seems as if ...": no one's state
    stem = first[:-2] if first.endswith("es") else ""
    return (
        first in ("is", "has", "was", "had")
        or (first.endswith("s") and first[:-1] in _BASE_VERBS)
        or (stem in _BASE_VERBS and stem.endswith(("s", "sh", "ch", "x", "z", "o")))
        or (first in _ADJECTIVES and second in _PREPOSITIONS)
    )


# --- Fact patterns as sentences -------------------------------------------------------
# A pattern ("takes warfarin", "i'm a nurse", "peanut allergy") is a phrase; a memory is a
# sentence about its subject. ``fact_sentence`` writes the pattern as a short sentence in
# the prototypes' subject ("Sam takes warfarin.", "Sam is a nurse.", "Sam has peanut
# allergy."), which embeds much closer to memories stating the same fact.
_BASE_VERBS = word_set(
    "have use take wear live keep eat drive work get go need own rent run fly ride carry "
    "follow fast pray observe attend teach practice coach serve play pay owe collect receive "
    "donate give sell deliver cook bike cycle commute sleep wake struggle suffer care look "
    "raise manage hold cover dress sing file contribute max invest trade freelance babysit "
    "choke faint snore spend save smoke vape chew drink breastfeed pump nurse sign stay pass "
    "limit avoid cut quit stop switch wait see hear speak sit stand walk swim dive climb hike "
    "train study prepare plan start begin move relocate share lease leave retire fight "
    "homeschool foster adopt volunteer host mentor lead supervise bleed bruise burn react "
    "swell combine count skip borrow inject rely lose make shop boycott divest thrift charge"
)
# Verbs of liking and wanting, conjugated in a pattern ("love a bargain" -> "Sam loves a
# bargain.", "want to buy a home" -> "Sam wants to buy a home."); not among
# ``_BASE_VERBS``, where a memory opening with one would read as one without its subject
# ("Love that idea!").
_LIKING = word_set("want love like hate hope prefer enjoy")
_LIKED = word_set("to a an the")  # what follows such a verb in a pattern: "want to ..."
# "be" after the speaker, in the third person ("i am broke" -> "Sam is broke.").
_BE = {"am": "is", "are": "is", "were": "was"}
PAST_VERBS = word_set(
    "had got went came took caught lost quit fell ate gave began became made ran drove flew "
    "broke sold bought found kept felt met left laid"
)
_ADVERB_LEAD = word_set(
    "just recently newly still only always never also really usually often now quietly secretly"
)
_PREPOSITIONS = word_set("to of on in for with from about at until by since after before")
_ADJECTIVES = word_set(
    "allergic intolerant sensitive vegan vegetarian pescatarian pescetarian diabetic "
    "prediabetic pregnant blind deaf colorblind claustrophobic afraid terrified scared "
    "unemployed self-employed retired sober autistic dyslexic bipolar epileptic asthmatic "
    "teetotal immunocompromised hypertensive legally partially visually engaged divorced "
    "widowed married single muslim jewish catholic hindu buddhist sikh jain mormon adventist "
    "quaker rastafarian rasta observant practicing practising feverish congested postpartum "
    "postmenopausal perimenopausal menopausal anemic celiac coeliac homeless uninsured "
    "unbanked housebound expecting due short broke behind new keto halal kosher prone "
    "seasick carsick airsick spoonie plant-based meatless car-free diagnosed recovering "
    "newly recently currently"
)
_ADJECTIVE_LAST = word_set(
    "impaired intolerant sensitive allergic positive deficient dependent sober bound blind "
    "deaf disabled diabetic pregnant sick free observant vegan vegetarian muslim jewish "
    "catholic hindu buddhist sikh christian orthodox adventist mormon quaker"
)
_NOUN_ING = word_set(
    "ringing bulging lingering hacking recurring rotating hearing morning evening wedding "
    "building clothing housing bedding nothing something sibling ceiling spring"
)
# People named by what they do or are: "an er nurse", "a rideshare driver".
PERSON_NOUNS = _PERSON = word_set(
    "nurse medic athlete officer agent clerk chef cook pilot judge member host aide tech "
    "student parent mom dad veteran recipient holder user survivor patient diver owner "
    "teacher soldier marine sailor airman guard trooper detective cop deputy warden attorney "
    "lawyer paralegal prosecutor defender auditor cpa broker analyst barista bartender "
    "server waiter waitress shopper freelancer consultant nomad journalist reporter editor "
    "therapist psychologist counselor worker employee official servant contractor hire "
    "caregiver smoker widow widower retiree pensioner immigrant refugee asylee citizen "
    "expat resident sleeper riser mother father grandparent grandmother dreamer landlord "
    "homeowner homebuyer renter tenant inmate felon juror driver operator conductor "
    "mechanic attendant emt rn cna md lpn teenager minor senior freshman sophomore junior "
    "adult amputee trucker vanlifer streamer influencer creator gambler alcoholic addict "
    "investor trader banker manager planner advisor representative insider handler "
    "preparer provider physician doctor surgeon assistant practitioner psychotherapist "
    "mayor legislator commissioner pastor priest rabbi imam deacon minister coach leader "
    "volunteer scout bridesmaid groomsman spouse wife husband fiance fiancee partner "
    "witness baker engineer controller dispatcher firefighter paramedic pharmacist "
    "hygienist sonographer phlebotomist captain"
)
_CLAUSE_VERBS = word_set(
    "is has are was have had does doesn't isn't can't won't gets got came lives makes runs "
    "ends expires needs drives gives goes comes says faces sets stays"
)


def _predicate(words: list[str]) -> str:
    """A verb phrase in the third person: "only eat halal" -> "only eats halal"."""
    first, rest = words[0], " ".join(words[1:])
    if first in _ADVERB_LEAD and len(words) > 1:
        return f"{first} {_predicate(words[1:])}"
    if first == "don't" or (first == "do" and rest.startswith("not ")):
        return f"doesn't {rest.removeprefix('not ')}".strip()
    if first == "haven't":
        return f"hasn't {rest}".strip()
    if first in _BE:
        return f"{_BE[first]} {rest}".strip()
    if first == "do":
        return f"does {rest}".strip()
    if first in _BASE_VERBS or first in _LIKING:
        return f"{base_verb_s(first)} {rest}".strip()
    return " ".join(words)


def present_verb(word: str) -> bool:
    """An everyday verb in the present, base or third person ("take", "takes", "fixes")."""
    return (
        word in _BASE_VERBS
        or (word.endswith("s") and word[:-1] in _BASE_VERBS)
        or (word.endswith("es") and word[:-2] in _BASE_VERBS)
    )


def _verb_like(word: str) -> bool:
    return (
        word in _BASE_VERBS
        or word in PAST_VERBS
        or word_form(word) != ""
        or (word.endswith("s") and word[:-1] in _BASE_VERBS)
        or word in ("is", "has", "got", "had")
    )


def fact_sentence(pattern: str, ctype: str = "") -> str:
    """A fact pattern as a short sentence about ``PROTOTYPE_SUBJECT``, the form memories
    are compared in: "i'm a nurse" -> "Sam is a nurse.", "takes warfarin" -> "Sam takes
    warfarin.", "only eat halal" -> "Sam only eats halal.", "my dog" -> "Sam's dog.",
    "allergic to peanuts" -> "Sam is allergic to peanuts.", "coumadin" (a medication) ->
    "Sam takes coumadin.", "truck driver" -> "Sam is a truck driver.", "peanut allergy" ->
    "Sam has peanut allergy."; first-person words elsewhere become "they", "their"."""
    s = PROTOTYPE_SUBJECT
    text = pattern.strip().rstrip(".")
    words = text.split()
    if not words:
        return f"{s}."
    first, second = words[0], words[1] if len(words) > 1 else ""
    p = re.sub(r"\b(?:my|our)\b", "their", text)
    p = re.sub(r"\b(?:me|us)\b", "them", p)
    p = re.sub(r"\b(?:i'm|we're)\b", "they're", p)
    p = re.sub(r"\b(?:i|we)\b", "they", p)
    rest = " ".join(p.split()[1:])
    adjective = (first in _ADJECTIVES or first.endswith("ic")) and (
        not second or second in _PREPOSITIONS
    )
    article = "an" if p[0] in "aeiou" else "a"
    if first in ("i'm", "we're", "am", "are", "be"):
        out = f"{s} is {rest}"
    elif first in ("i've", "we've"):
        out = f"{s} has {rest}"
    elif first in ("i", "we") and second:
        out = f"{s} {_predicate(rest.split())}"
    elif first in ("my", "our"):
        out = f"{s}'s {rest}"
    elif first in ("is", "has", "was", "had", "been") or first in PAST_VERBS:
        out = f"{s} {p}"
    elif second in _CLAUSE_VERBS and first not in _ADVERB_LEAD and first not in _SPLIT:
        out = f"{s}'s {p}"  # "baby has a fever", "rent is income restricted"
    elif first.endswith("s") and (first[:-1] in _BASE_VERBS or first[:-2] in _BASE_VERBS):
        out = f"{s} {p}"  # "takes warfarin", "wears braces"
    elif (
        (first in _ADVERB_LEAD and _verb_like(second))
        or first in _BASE_VERBS
        or (first in _LIKING and second in _LIKED)
        or first in _SPLIT
        or first == "do"
    ):
        out = f"{s} {_predicate(p.split())}"
    elif first == "during":
        out = f"{s} observes {rest}"
    elif adjective or first in word_set("on in at under over not without between off out a an"):
        out = f"{s} is {p}"
    elif word_form(first) == "past" and second in _PREPOSITIONS | word_set(
        "a an the my our positive"
    ):
        out = f"{s} {p}"  # "tested positive for covid", "filed for bankruptcy"
    elif word_form(first) == "ing" and first not in _NOUN_ING:
        out = f"{s} is {p}"
    elif first == "no":
        out = f"{s} has {p}"
    elif words[-1] in _ADJECTIVE_LAST:
        out = f"{s} is {p}"
    elif ctype == "medication":
        out = f"{s} takes {p}"
    elif words[-1] in _PERSON:
        out = f"{s} is {article} {p}"
    elif ctype in ("pet", "child", "vehicle") and len(words) <= 3 and not words[-1].endswith("s"):
        out = f"{s} has {article} {p}"
    else:
        out = f"{s} has {p}"
    return out + "."


# Other people whose news a memory may report ("Sam's roommate is allergic to cats"): not
# the household members whose facts bind the user (children, a partner, a parent cared for).
OTHER_PEOPLE_WORDS = (
    "friend friends sister sisters brother brothers cousin cousins aunt uncle niece nephew "
    "coworker coworkers co-worker colleague colleagues boss neighbor neighbors neighbour "
    "neighbours roommate roommates flatmate housemate classmate classmates teammate "
    "teammates buddy pal bestie acquaintance"
)
_OTHER_SUBJECT = re.compile(
    # a relative's own acquaintance too: "Sam's wife's cousin"
    r"^(?:(?P<name>[A-Z][a-z]+)'s|[Mm]y|[Oo]ur)\s+(?:[a-z]+(?:-in-law)?'s\s+)?"
    r"(?:(?:best|close|old|older|younger|little|big|new|former|oldest|youngest)\s+)?"
    rf"(?:{'|'.join(OTHER_PEOPLE_WORDS.split())})\b"
)


def reports_other(text: str) -> bool:
    """A memory whose subject is someone else the user knows ("Sam's coworker has been out
    with covid", "My best friend is expecting twins", "Sam's wife's cousin ..."), the user
    not named again: news about them, not the user's own constraint."""
    found = _OTHER_SUBJECT.match(text.strip())
    if not found:
        return False
    rest = text.strip()[found.end() :]
    name = found.group("name")
    if name and re.search(rf"\b{re.escape(name)}\b", rest):
        return False
    return re.search(r"\b(?:I|I'm|I've|me|my|mine|we|our|us)\b", rest) is None


_ADVICE = re.compile(
    r"^[A-Z][\w-]*(?:'s\s+(?:advice|tips?)\b|\s+(?:(?:also|often|always|strongly|highly)\s+)?"
    r"(?:recommend|suggest|advis|encourag|urg|emphasi[sz]|acknowledg|appreciat|prais|"
    r"congratulat|admir)\w*\b)"
)


# What a quoted sentence opens with when it tells the listener what to do ("Sam said:
# Remember to drink plenty of water."): verbs people give advice with, in their bare form.
_TELLS = re.compile(
    r"^(?:(?:please|just|always|never)\s+)?(?:remember|make\s+sure|be\s+sure|try|take|keep|"
    r"focus|stay|avoid|gather|find|check|consider|ask|call|drink|eat|stick|start|stop|"
    r"give|bring|practi[cs]e|follow|listen|reach\s+out|look\s+into|don't|do\s+not|"
    r"do\s+your|make\s+time|hang\s+in|go\s+easy|talk\s+to)\b",
    re.IGNORECASE,
)


def gives_advice(text: str) -> bool:
    """A memory of what its subject recommended, praised or stressed to others ("Sam
    suggests seltzer as a healthier alternative to soda", "Sam's advice for new writers
    ..."), or of someone quoted telling the listener what to do ("Sam said: Remember to
    drink plenty of water"): what is said about health or money there is advice, not the
    subject's own standing constraint, whatever words it shares with one."""
    said = reported(text.strip())
    if said and _TELLS.match(said[1].strip()):
        return True
    return _ADVICE.match(text.strip()) is not None


# The household members whose standing facts bind the user's plans, by role
# (``person.MEMBER_WORDS``); a word for several members names them all ("parents", "kids").
MEMBER_ROLES = tuple(MEMBER_WORDS)
_MEMBER_GROUPS = {
    "parents": ("mother", "father"),
    "folks": ("mother", "father"),
    "kids": ("child",),
    "kid": ("child",),
    "children": ("child",),
    "child": ("child",),
    "grandparents": ("grandparent",),
}
_MEMBER_ROLES = {
    word: (role,) for role, words in MEMBER_WORDS.items() for word in words.split()
} | _MEMBER_GROUPS
_MEMBER = "|".join(sorted(_MEMBER_ROLES, key=len, reverse=True))
_MEMBER_MODIFIER = (
    r"(?:(?:elderly|aging|ageing|older|younger|oldest|youngest|little|teenage|adult|new|"
    r"[a-z0-9]+-(?:year|month|week)-old)\s+)"
)
_MEMBER_SUBJECT = re.compile(
    rf"^(?:[A-Z][\w-]*'s|my|our)\s+{_MEMBER_MODIFIER}*(?P<member>{_MEMBER})\b(?!-)",
    re.IGNORECASE,
)
_MEMBER_NAMED = re.compile(
    rf"\b(?:my|our|the|his|her|their)\s+{_MEMBER_MODIFIER}*(?P<member>{_MEMBER})\b(?!-)"
    rf"|\b(?P<address>{'|'.join(ADDRESS_WORDS)})\b(?!-)",
    re.IGNORECASE,
)


def member_subject(text: str) -> tuple[str, ...]:
    """The household member a memory is about, by role, when it opens with one ("Sam's
    elderly father uses a walker", "Our youngest daughter is allergic to eggs"): () when
    the memory is the user's own or anyone else's."""
    found = _MEMBER_SUBJECT.match(fold(text).strip())
    return _MEMBER_ROLES[found.group("member").lower()] if found else ()


def members_named(request: str) -> frozenset[str]:
    """The household members a request is about, by role ("my parents' visit" names the
    mother and the father; "surprise Mom" the mother; "the kids" the children)."""
    out: set[str] = set()
    for found in _MEMBER_NAMED.finditer(fold(request)):
        out.update(_MEMBER_ROLES[(found.group("member") or found.group("address")).lower()])
    return frozenset(out)
