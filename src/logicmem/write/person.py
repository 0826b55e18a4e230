"""First person to third person, for memories written without an LLM.

"I love my new bike" said by Maya becomes "Maya loves Maya's new bike". Crude, but a
memory must name its subject: a store holds several speakers, and "I" in a memory
entry is ambiguous. Past tenses and modals are left alone; a present-tense verb after
the subject gets its third-person form ("I haven't" -> "Maya hasn't"), unless the speaker
is one of a pair that opens the clause ("Tom and I are" -> "Tom and Maya are").
"""

from __future__ import annotations

import re

# The forms of address that name a member of the speaker's family without "my" ("Mom is
# diabetic", "surprise Mom", "Grandpa's birthday"): used as names, they are still the
# speaker's own family.
ADDRESS_WORDS = (
    "mom",
    "mum",
    "mommy",
    "mama",
    "dad",
    "daddy",
    "papa",
    "grandma",
    "grandpa",
    "granny",
)
# Relations that "he" or "she" stands for ("his" son, "her" mother); a word that says no sex
# (friend, partner, coworker) may be either.
HE_KIN = frozenset(
    [
        "son",
        "husband",
        "hubby",
        "dad",
        "father",
        "brother",
        "grandpa",
        "grandfather",
        "boyfriend",
        "uncle",
        "nephew",
        "stepson",
        "stepdad",
        "stepfather",
        "fiance",
        "grandson",
        "father-in-law",
        "brother-in-law",
    ]
)
SHE_KIN = frozenset(
    [
        "daughter",
        "wife",
        "mom",
        "mother",
        "mum",
        "sister",
        "grandma",
        "grandmother",
        "girlfriend",
        "aunt",
        "niece",
        "stepdaughter",
        "stepmom",
        "stepmother",
        "fiancee",
        "granddaughter",
        "mother-in-law",
        "sister-in-law",
    ]
)
# The household members whose standing facts bind the user's plans, by role, in the words
# people use for them.
MEMBER_WORDS = {
    "mother": "mother mom mum mommy mama",
    "father": "father dad daddy papa",
    "partner": "partner wife husband hubby spouse girlfriend boyfriend fiance fiancee",
    "child": "son daughter stepson stepdaughter baby toddler newborn infant",
    "grandparent": "grandmother grandma granny grandfather grandpa",
}
# A sentence whose subject is one of them ("Mom is diabetic.", "Grandpa's on warfarin."),
# after an interjection chat puts first ("omg mom finally got out of the hospital"), not
# one that calls to them ("Mom, look!").
INTERJECTION = r"(?i:omg|ugh|yay|wow|whew|phew|ok|okay|oh|so|well|update|fyi|good news|great news)"
_ADDRESSED_SUBJECT = re.compile(
    rf"^(?P<lead>(?:{INTERJECTION}[,:!.]*\s+)*)(?i:({'|'.join(ADDRESS_WORDS)}))\b(?=(?:'s)?\s)"
)


def household_subject(sentence: str, name: str) -> str | None:
    """``sentence`` with its subject, a family member called by a form of address, written
    as ``name``'s ("Mom is diabetic." said by Maya -> "Maya's mom is diabetic."); None when
    its subject is not one."""
    found = _ADDRESSED_SUBJECT.match(sentence)
    if found is None:
        return None
    return f"{found.group('lead')}{name}'s {found.group(2).lower()}{sentence[found.end() :]}"


_CONTRACTIONS = [
    (r"\bI'[mM]\b|\bI am\b", "{N} is"),
    (r"\bI've\b|\bI have\b", "{N} has"),
    (r"\bI'd\b", "{N} would"),
    (r"\bI'll\b", "{N} will"),
    (r"\bI was\b", "{N} was"),
    (r"\b[Ww]e're\b|\bwe are\b", "{N} and family are"),
    (r"\b[Ww]e've\b", "{N} and family have"),
    (r"\b[Ww]e'd\b", "{N} and family would"),
    (r"\b[Ww]e'll\b", "{N} and family will"),
]
_PRONOUNS = [
    (r"\bmyself\b", "{N}"),
    (r"\bmine\b", "{N}'s"),
    (r"\b[Mm]y\b", "{N}'s"),
    (r"\bme\b", "{N}"),
    (r"\b[Oo]urs\b", "{N}'s family's"),
    (r"\b[Oo]ur\b", "{N}'s"),
    (r"\bus\b", "{N} and family"),
    (r"\b[Ww]e\b", "{N} and family"),
]
_ADVERBS = {
    "really", "just", "also", "never", "always", "still", "usually", "often", "actually",
    "sometimes", "finally", "recently", "totally", "absolutely", "definitely", "even",
    "only", "mostly", "rarely", "seriously", "truly", "kind", "sort", "literally", "honestly",
    "kinda", "sorta", "probably", "certainly", "barely", "hardly", "occasionally", "normally",
    "generally", "typically", "basically", "personally", "currently", "now", "already",
    "almost", "nearly", "simply", "suddenly", "immediately", "eventually", "secretly",
    "genuinely", "desperately", "badly", "strongly", "completely", "fully", "partly",
    "quickly", "slowly", "soon", "rather", "somehow", "apparently", "obviously", "clearly",
}  # fmt: skip
_KEEP = {
    "can", "could", "will", "would", "should", "must", "might", "may", "shall", "was",
    "had", "did", "got", "went", "made", "took", "saw", "felt", "thought", "knew", "found",
    "gave", "told", "came", "left", "bought", "brought", "began", "ran", "met", "lost",
    "kept", "held", "said", "sent", "spent", "won", "wrote", "read", "put", "let", "set",
    "cut", "hurt", "quit", "hit", "and", "or", "but", "too", "as", "in", "at", "on", "with",
    "to", "for", "of", "the", "a", "an", "not", "don't", "didn't", "can't", "won't",
    "became", "broke", "built", "caught", "chose", "dealt", "drew", "drank", "drove", "ate",
    "fell", "fed", "fought", "flew", "forgot", "froze", "grew", "heard", "hid", "laid",
    "led", "lent", "lit", "meant", "paid", "rode", "rang", "rose", "sold", "shot", "showed",
    "sang", "sank", "sat", "slept", "spoke", "stood", "stole", "stuck", "swam", "taught",
    "tore", "threw", "understood", "woke", "wore", "used", "once", "then", "now",
    "recently", "also", "here", "there", "myself", "cannot", "cant", "wont", "didnt",
    "couldnt", "wouldnt", "shouldnt", "wasnt", "ought", "better",
    "misspoke", "misread", "misheard", "mistook", "misunderstood", "outgrew", "overcame",
    "overslept", "overheard", "withdrew", "forgave", "foresaw", "undertook", "upheld",
    "withheld", "swore", "wept", "bent", "bled", "fled", "hung", "dug", "spun", "sped",
    "struck", "sought", "blew", "wound", "ground", "bound",
    "shook", "forbade", "rebuilt", "redid", "retook", "rewrote", "slid", "strode",
}  # fmt: skip
# Present tenses that end like a past one ("I need", "I bleed easily").
_EED = {
    "need", "bleed", "feed", "breed", "succeed", "proceed", "exceed", "heed", "weed", "speed",
    "seed",
}  # fmt: skip
_IRREGULAR = {
    "have": "has", "do": "does", "go": "goes", "am": "is", "be": "is", "don't": "doesn't",
    "haven't": "hasn't", "wanna": "wants to", "gotta": "has to", "dont": "doesn't",
    "havent": "hasn't",
}  # fmt: skip


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    past = low.endswith("ed") and low not in _EED
    if low in _KEEP or past or low.endswith(("'s", "ing")) or not low.isalpha():
        return verb
    if re.search(r"(s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def base_verb_s(verb: str) -> str:
    """A verb known to be in its base form, in the third person singular ("have" ->
    "has", "carry" -> "carries", "cut" -> "cuts"); ``_third_person`` instead guesses
    whether the word after "I" is a base form at all."""
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# Verbs that end in -ly, unlike the adverbs ("I apply", not "I accidentally").
_LY_VERBS = frozenset((
    "apply", "reply", "supply", "rely", "comply", "imply", "multiply", "rally", "tally",
    "bully", "fly", "ally", "sully", "dally", "belly",
))  # fmt: skip


def _ly_adverb(word: str) -> bool:
    """Whether ``word`` is an adverb by its -ly ending ("accidentally", "happily")."""
    return len(word) > 4 and word.endswith("ly") and word.isalpha() and word not in _LY_VERBS


def _replace_subject_i(text: str, name: str) -> str:
    """Replace the pronoun "I" by ``name`` and conjugate the verb that follows it."""
    tokens = re.split(r"(\s+)", text)
    out: list[str] = []
    pending = False  # an "I" was replaced and its verb not yet seen
    for token in tokens:
        if token.isspace() or not token:
            out.append(token)
            continue
        core = token.rstrip(",.!?;:")
        tail = token[len(core) :]
        if core == "I":
            out.append(name + tail)
            pending = not tail
            continue
        if pending:
            if core.lower() in _ADVERBS or _ly_adverb(core.lower()):
                out.append(token)
                continue
            out.append(_third_person(core) + tail)
            pending = False
            continue
        out.append(token)
    return "".join(out)


# The speaker with someone else as one subject ("Tom and I are", "My wife and I've been",
# "Me and Tom are"): a plural subject, whose verb keeps its plural form. Only where the
# pair opens a clause and what comes before "and" is a short noun phrase: in "I woke up
# late and I have a cold" the second "I" is a subject of its own.
_CLAUSE_START = r"(^|[,;:.!?]\s+|\b(?:but|because|when|then|while)\s+)"
_WITH_I = re.compile(_CLAUSE_START + r"((?:[\w'-]+\s+){1,3}?)and\s+I(?:'ve\b|\s+have\b|(?!['’])\b)")
_ME_AND = re.compile(r"(^|[,;:.!?]\s+)[Mm]e\s+and\s+(?=[A-Z]|(?:my|the|our)\b)")
_NOT_A_NOUN_PHRASE = {
    "i", "we", "he", "she", "they", "you", "it", "is", "was", "are", "were", "am", "has",
    "have", "had", "do", "does", "did", "and", "or", "not", "to", "it's", "that's", "there's",
    "here's", "he's", "she's", "what's", "who's", "let's", "this", "that", "so", "very",
    "much", "into", "in", "on", "at", "for", "with", "about", "from", "by", "of", "up", "out",
    "off", "over", "than", "if", "let", "thanks", "please",
}  # fmt: skip


def _plural_pair(match: re.Match[str], name: str) -> str:
    words = match.group(2).split()
    if any(w.lower() in _NOT_A_NOUN_PHRASE or w.lower().endswith(("ed", "'m")) for w in words):
        return match.group()
    have = " have" if match.group().endswith(("'ve", "have")) else ""
    return f"{match.group(1)}{match.group(2)}and {name}{have}"


# An apostrophe as phones and word processors type it ("I’m", "don’t") or as a backtick.
_TYPED_APOSTROPHE = re.compile(r"(?<=\w)[’`](?=\w)")


def straight_apostrophes(text: str) -> str:
    """``text`` with the apostrophe a phone types ("I’m") as the one a keyboard does."""
    return _TYPED_APOSTROPHE.sub("'", text)


# A negation whose subject is the speaker's "I" before "and" ("I'm vegetarian and don't eat
# fish"): the same subject, so "doesn't". Not where another subject comes between, nor
# after a pair ("Tom and I"), nor an order to the listener ("I'm fine and don't worry").
_AND_NEGATION = re.compile(
    r"((?<!\band\s)\bI(?:'[a-z]+)?\s(?:(?!\b(?:I|he|she|they|we|you|it|there|who|that|which)\b)[^.;:!?,])*?"
    r",?\s+and\s+)(don't|dont|haven't|havent)\b(?!\s+(?:worry|forget|bother|be|hesitate|panic|rush)\b)"
)

# A second verb of the speaker's after "and" ("I have type 1 diabetes and wear a pump"):
# never after a modal, a "do", a "to" or an object whose bare verb it shares ("I can swim
# and run a mile", "I don't drink and drive", "lets me paint and share it"), and only a
# verb of this list with an object or a place after it, so that a noun after "and" ("I
# love my family and work") is left alone.
# The verbs read after "and" (below): after a verb of those alone ("I smoke and drink
# coffee", "I cook and volunteer weekends"), the word after "and" is a verb, whatever follows.
_VERBS = (
    "have|use|take|wear|eat|own|carry|follow|teach|raise|manage|need|keep|avoid|prefer|want|"
    "like|hate|enjoy|live|drive|work|rent|run|ride|coach|play|pay|cook|commute|care|volunteer|"
    "walk|swim|hike|train|study|love|spend|save|drink|smoke|go|get|see|visit|sleep|wake|stay|"
    "write|cycle|bike|host|share|help"
)
# "do" before a verb is the auxiliary ("I do eat meat and drink wine": both bare); before
# anything else it is the verb itself ("I do yoga on Mondays and swim on Fridays").
_DO_AUX = rf"do(?=\s+(?:not|really|still|also|think|know|believe|feel|hope|mean|{_VERBS})\b)"
_AND_VERB = re.compile(
    r"((?<!\band\s)\bI(?:'m|'ve)?\s"
    r"(?:(?!\b(?:I|he|she|they|we|you|it|there|who|that|which|to|can|could|will|would|"
    r"should|might|must|may|shall|"
    + _DO_AUX
    + r"|don't|dont|did|didn't|not|'ll|'d|gonna|wanna|gotta|"
    r"me|us|him|them)\b)[^.;:!?,])*?"
    r",?\s+and\s+(?:(?:usually|often|always|sometimes|never|rarely|also|still|normally|"
    r"generally|mostly|typically|now)\s+)?)(?:"
    # Verbs that are seldom nouns, before any word: "and take metformin".
    r"(have|use|take|wear|eat|own|carry|follow|teach|raise|manage|need|keep|avoid|prefer|want|"
    r"like|hate|enjoy)"
    r"(?=\s+(?!(?:and|or|but|is|are|was|were|I|you|he|she|we|they|it)\b)[\w$\u00a3\u20ac])|"
    # Verbs that are often nouns too, before a determiner, a pronoun, a preposition or a
    # number: "and work from home", not "my family and work".
    r"(live|drive|work|rent|run|ride|coach|play|pay|cook|commute|care|volunteer|walk|swim|hike|"
    r"train|study|love|spend|save|drink|smoke|go|get|see|visit|sleep|wake|stay|write|cycle|bike|"
    r"host|share|help|contribute|donate|invest|earn|attend|belong|mentor|tutor|sing|knit|bake|"
    r"listen|fly|climb|surf)"
    r"(?=\s+(?:a|an|the|my|our|his|her|their|its|it|them|to|in|at|on|from|for|with|every|each|"
    r"some|no|two|three|four|into|out|up|back|home|off|over|around|by|\d)\b))"
)
_AND_BARE_VERB = re.compile(rf"(\bI\s(?:{_VERBS})\s+and\s+)({_VERBS})(?=\s+\w|\s*[.!?,;]|$)")


def to_third_person(sentence: str, name: str) -> str:
    """Rewrite a first-person sentence about ``name`` in the third person."""
    text = straight_apostrophes(sentence)
    text = _AND_NEGATION.sub(lambda m: m.group(1) + _IRREGULAR[m.group(2)], text)
    text = _AND_VERB.sub(lambda m: m.group(1) + base_verb_s(m.group(2) or m.group(3)), text)
    text = _AND_BARE_VERB.sub(lambda m: m.group(1) + base_verb_s(m.group(2)), text)
    text = _WITH_I.sub(lambda m: _plural_pair(m, name), text)
    text = _ME_AND.sub(lambda m: f"{m.group(1)}{name} and ", text)
    for pattern, repl in _CONTRACTIONS:
        text = re.sub(pattern, repl.replace("{N}", name), text)
    text = _replace_subject_i(text, name)
    for pattern, repl in _PRONOUNS:
        text = re.sub(pattern, repl.replace("{N}", name), text)
    text = re.sub(rf"\b{re.escape(name)}'s {re.escape(name)}'s\b", f"{name}'s", text)
    if not text or text.startswith(name):
        return text  # a user id like "maya" is a name to keep as given
    return text[0].upper() + text[1:]


# "i" typed in lower case, and "im" / "ive" without the apostrophe: the speaker, as "I"
# ("i think im allergic to it"); not "i.e.".
_LOWER_I = re.compile(r"(?<![\w'’.-])i(?=['’]|[\s,;:!?]|\.(?!\w)|$)")
_NO_APOSTROPHE = re.compile(r"(?<![\w'’-])(im|ive)(?=\s)", re.I)


def capital_i(sentence: str) -> str:
    """The speaker's "I" as written in lower case or without its apostrophe, capitalised
    ("i'm on warfarin", "im on warfarin" -> "I'm on warfarin")."""
    text = _NO_APOSTROPHE.sub(lambda m: "I'm" if m.group(1).lower() == "im" else "I've", sentence)
    return _LOWER_I.sub("I", text)


def is_first_person(sentence: str) -> bool:
    """Whether the speaker speaks of themself ("I", "my", "we", "us", ...); "the US" is a
    country, not "us"."""
    if re.search(r"\bI\b|\b[Uu]s\b", sentence):
        return True
    return re.search(r"\b(my|me|mine|myself|we|our|ours)\b", sentence, re.I) is not None
