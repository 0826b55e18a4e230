"""A short reply to the assistant's question, read with the question as one statement.

An assistant asks what it needs to know ("Are you vegetarian?", "Any allergies?", "How
old are your kids?") and people answer in a word or two ("Yep.", "Yes, latex.", "4 and
9."). The fact is in the pair, not in the reply: "Yep." alone says nothing and was
dropped, and "Yes, shellfish." was kept but read as nothing. ``answered`` writes the pair
as the user's own statement in the first person, which the extractor then writes in the
third person as it does every statement:

- a yes or no to a question about the user or what is theirs: "Are you vegetarian?"
  "Yep." -> "I am vegetarian."; "Do you drink alcohol?" "Never." -> "I do not drink
  alcohol."; "Does your son have allergies?" "No." -> "My son does not have allergies.";
- the thing asked for, named: "Are you allergic to anything?" "Yes, shellfish." -> "I am
  allergic to shellfish."; "Any allergies?" "Latex." -> "I have allergies: Latex.";
  "Do you take any medications?" "Only metformin." -> "I take medications: only
  metformin.";
- a detail beside a yes or no, kept in brackets: "Do you have a car?" "Yes, a Prius." ->
  "I have a car (a Prius)."; "Do you smoke?" "Not anymore." -> "I do not smoke anymore.";
- an age, a number, what is the user's: "How old are your kids?" "4 and 9." -> "My kids
  are 4 and 9 years old."; "How many cats do you have?" "Two." -> "I have two cats.";
  "What's your budget?" "About 300 a month." -> "My budget is about 300 a month."; "Which
  pharmacy do you use?" "The one on Elm." -> "The pharmacy I use: the one on Elm.".

Only a question of these forms, asked alone in its turn, and a reply that is a yes or no,
a short phrase with no statement of its own, or both. Anything else ("Not sure", "Tea or
coffee?" "Coffee.", "Would you like a reminder?", a question about the moment or one
event, "Did you eat yet?", a reply that is a sentence of its own) gives None, and the
reply is kept as it was said, beside its question.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from logicmem.write.person import (
    MEMBER_WORDS,
    base_verb_s,
    is_first_person,
    straight_apostrophes,
)

# A reply longer than this is a sentence of its own, not a word or two beside a yes or no.
MAX_WORDS = 8

_YES = (
    r"yes|affirmative|yeah|yea|yep|yup|ya|sure|correct|definitely|absolutely|of course|indeed|"
    r"i do|i am|i have|i can|i did|i was|we do|we are|we have|that's right|that is right"
)
_NO = (
    r"no way|absolutely not|definitely not|of course not|certainly not|not at all|not really|"
    r"no one|nobody|none|nothing|never|nope|nah|negative|zero|nada|no|i don't|i do not|"
    r"i'm not|i am not|i haven't|i have not|i can't|i cannot|i didn't|i wasn't|we don't|"
    r"we're not|we aren't|we haven't|not"
)
_NO_LONGER = r"not anymore|not any more|no longer|not these days|not now"
_LEAD = re.compile(
    rf"^(?:(?P<longer>{_NO_LONGER})|(?P<no>{_NO})|(?P<yes>{_YES}))\b[\s,.;:!-]*",
    re.IGNORECASE,
)
# A reply that answers nothing: a doubt, a question back.
_NON_ANSWER = re.compile(
    r"\b(?:not sure|unsure|don't know|do not know|dunno|idk|maybe|depends|why|what do you "
    r"mean|no idea|can't remember|forget|prefer not|rather not)\b|\?",
    re.IGNORECASE,
)
_COURTESY = re.compile(
    r"(?:(?:please|thanks|thank you|thx|ty|lol|haha|sir|ma'am|mate|for sure|i think|i guess|"
    r"i believe|indeed|totally|really|honestly)[\s,.!]*)*",
    re.IGNORECASE,
)
# Sounds before the answer ("Haha no.", "Hmm, yes.", "Oh yeah"): not part of it.
_INTERJECTION = re.compile(
    r"^(?:(?:haha+|hah|lol|lmao|hmm+|um+|uh+|er+|oh|ah|well|honestly|actually|ok|okay|"
    r"sadly|unfortunately|thankfully|luckily)\b[\s,.!]*)+",
    re.IGNORECASE,
)
# A reply that tells what held has ended ("Used to.", "Quit in May.", "Gave it up.").
_ENDED = re.compile(r"^(?:used to|quit|stopped|gave (?:it |them |that )?up)\b", re.IGNORECASE)
# A word that qualifies the answer's verb: written after it, not in brackets.
_ADVERB = re.compile(
    r"yet|much|often|lately|recently|so far|easily|always|very|quite|well|fully|completely",
    re.IGNORECASE,
)
_NO_AGAIN = re.compile(
    rf"(?:{_NO})?(?:\s*(?:at all|really|whatsoever|thanks|needed|here|for me))?", re.IGNORECASE
)
# The assistant's own doing ("Do you want me to save this?", "Can you tell me more?"): a
# yes there is consent to the assistant, no fact of the user's.
_ASSISTANT = re.compile(r"\b(?:me|I|us|we|my|our)\b", re.IGNORECASE)
# What an assistant says before it asks ("Before I suggest recipes: are you vegetarian?",
# "Quick one, do you drive?"): the question is the last clause.
_LAST_CLAUSE = re.compile(
    r"\s*(?:[:;]|\s[-\u2013\u2014]|,(?=\s+(?:are|is|do|does|have|has|can|any|how|what|which)"
    r"\s+(?:you|your)\b))\s+",
    re.IGNORECASE,
)
# Discourse before the question itself ("Great, and are you vegetarian?").
_OPENER = re.compile(
    r"^(?:(?:ok|okay|great|thanks|thank you|got it|perfect|and|also|so|just to check|"
    r"quick question|one more thing|lastly|first|next)[,:!.]?\s+)+",
    re.IGNORECASE,
)
# A yes/no question about the user ("you") or what is theirs ("your son").
_POLAR = re.compile(
    r"^(?P<aux>are|is|were|was|do|does|have|has|can)\s+"
    r"(?P<subject>you|your\s+[a-z-]+)\s+(?P<rest>[^?]+)\?$",
    re.IGNORECASE,
)
# "Any allergies?", "Any pets at home?": "Do you have any ...?" said short.
_ANY = re.compile(
    r"^any\s+(?P<what>[a-z][a-z -]*?)(?:\s+(?:at|in|on|for|that|which|i|we|"
    r"you|to|this|these|right|currently|lately)\b[^?]*)?\?$",
    re.IGNORECASE,
)
_HOW_OLD = re.compile(
    r"^how\s+old\s+(?:(?P<you>are\s+you)|(?:is|are)\s+(?P<whose>your\s+[a-z -]+?))\s*(?:now)?\?$",
    re.IGNORECASE,
)
_YOUR_IS = re.compile(
    r"^(?:what|which)(?:\s+is|'s)\s+(?P<whose>your\s+[a-z -]+?)\?$", re.IGNORECASE
)
_WHAT_DO_YOU = re.compile(
    r"^(?:what|which)\s+(?P<what>(?!do\b|are\b|does\b|is\b)[a-z][a-z -]*?)\s+"
    r"(?:(?P<aux>do|are)\s+you|(?P<aux3>does|is)\s+(?P<whose>your\s+[a-z-]+))\s+"
    r"(?P<rest>[^?]+)\?$",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(
    r"^how\s+many\s+(?P<what>[a-z][a-z -]*?)\s+do\s+you\s+have(?:\s+(?:at home|now))?\?$",
    re.IGNORECASE,
)
_NONE = re.compile(r"^(?:0|zero|none|no)$", re.IGNORECASE)
_JOB = re.compile(
    r"^what\s+do\s+you\s+do\s+(?:for\s+(?:work|a\s+living|a\s+job)|professionally)\?$",
    re.IGNORECASE,
)
# A question about the moment ("Did you eat yet?", "Are you going out tonight?") asks
# after no standing fact; "Did ..." asks about one event.
_MOMENT = re.compile(
    r"^did\b|\b(?:today|tonight|yesterday|yet|this (?:morning|afternoon|evening|weekend)|"
    r"last night|right this minute)\b",
    re.IGNORECASE,
)
# Anyone the user lives with ("Does anyone at home have allergies?", "Is anyone in your
# household pregnant?"), answered with who ("My daughter, peanuts.", "Yes, my wife.").
_ANYONE = re.compile(
    r"^(?P<aux>does|do|is|are|has)\s+(?:anyone|anybody|someone|somebody)\s+(?:else\s+)?"
    r"(?:(?:in\s+(?:your|the)\s+(?:household|family|home|house)|at\s+home|you\s+live\s+with|"
    r"living\s+with\s+you)\s+)?(?P<rest>[^?]+)\?$",
    re.IGNORECASE,
)
_MEMBER_REPLY = re.compile(
    r"^(?:(?:yes|yeah|yep|yup)[\s,.!]+)?(?:my|our)\s+(?P<who>[a-z]+)(?P<after>.*?)[.!]*$",
    re.IGNORECASE,
)
_BARE_VERB = re.compile(r"(?:(?:is|does|has|do|are|too|does too|is too)\W*)?", re.IGNORECASE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)
# A reply that opens on the person asked about ("She's 7.", "He is a nurse.").
_SHE_IS = re.compile(r"^(?:she|he|they|it)(?:'s|'re|\s+is|\s+are)\s+(?P<rest>\S.*)$", re.IGNORECASE)
_SPAN = re.compile(r"\b(?:years?|yrs?|months?|mos?|weeks?|wks?|days?)$", re.IGNORECASE)
_NUMBERS = re.compile(
    r"^(?:about |around |almost |nearly |just )?(?:\d+|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
    r"nineteen|twenty|[a-z]+ty(?:-[a-z]+)?)(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)(?:\d+|[a-z]+))*"
    r"(?:\s+(?:and a half|½))?$",
    re.IGNORECASE,
)
# The user's words for the listener, turned to the user's own.
_SECOND = [
    (re.compile(r"\byourself\b", re.I), "myself"),
    (re.compile(r"\byours\b", re.I), "mine"),
    (re.compile(r"\byour\b", re.I), "my"),
    (re.compile(r"\byou\b", re.I), "me"),
]
_ANYTHING = re.compile(r"\banything(?:\s+else)?\b", re.IGNORECASE)
_ANY_NOUN = re.compile(r"\bany\s+(?!of\b|one\b|more\b|longer\b)", re.IGNORECASE)
# The auxiliary of a question about anyone, for the one person who answers to it.
_SINGULAR = {"are": "is", "do": "does", "have": "has"}
_STILL = re.compile(r"^still\s+", re.IGNORECASE)
_EVER = re.compile(r"^ever\s+", re.IGNORECASE)  # "Have you ever smoked?" "Yes." -> "I have smoked."


Reader = Callable[[str, str, str], "str | None"]


def answered(question: str, reply: str) -> str | None:
    """The first-person statement that ``reply`` makes as an answer to the assistant's
    ``question`` (see the module docstring); None when the pair is not of a form read
    here."""
    question = _OPENER.sub("", _LAST_CLAUSE.split(straight_apostrophes(question.strip()))[-1])
    reply = straight_apostrophes(reply.strip()).rstrip(".!")
    if not question.endswith("?") or not reply or _NON_ANSWER.search(reply):
        return None
    if _MOMENT.search(question):
        return None
    if len(reply.split()) > MAX_WORDS:
        return None
    member = _anyone(question, reply)
    if member is not None:
        return _sentence(member)
    said = _SHE_IS.match(reply)
    if said:
        # "How old is your daughter?" "She's 7.": what follows the pronoun answers a
        # question of what or how; to a yes/no question it is a sentence of its own.
        reply = said.group("rest")
        readers: tuple[Reader, ...] = (_how_old, _your_is, _what_do_you)
    else:
        readers = (_polar, _any, _how_old, _how_many, _your_is, _what_do_you, _job)
    polarity, detail = _polarity(reply)
    if detail and is_first_person(detail):
        return None  # "Yes, I'm allergic to shellfish": a statement of its own
    for read in readers:
        statement = read(question, polarity, detail)
        if statement is not None:
            return _sentence(statement)
    return None


def _polarity(reply: str) -> tuple[str, str]:
    """("yes" | "no" | "longer" | "", what the reply says besides)."""
    reply = _INTERJECTION.sub("", reply)
    if _ENDED.match(reply):
        return "longer", _lower_lead(reply)  # "Quit last year." -> "... anymore (quit last year)"
    found = _LEAD.match(reply)
    if not found:
        return "", _lower_lead(reply)
    kind = next(k for k in ("longer", "no", "yes") if found.group(k))
    detail = reply[found.end() :].strip(" ,.;:!-")
    if _COURTESY.fullmatch(detail):
        detail = ""  # "Yes please!", "No thanks."
    if _ADVERB.fullmatch(detail):
        return kind, " " + detail.lower()  # "Not yet." -> "... not tried it yet"
    if kind == "no" and re.fullmatch(_NO_LONGER, detail, re.IGNORECASE):
        kind, detail = "longer", ""  # "No, not anymore."
    elif kind == "no" and _NO_AGAIN.fullmatch(detail):
        detail = ""  # "Nope, none at all."
    return kind, _lower_lead(detail)


# Words that open a reply with a capital only because they open it ("Just metformin."):
# lowered inside the statement; a name or a brand keeps its capital.
_PLAIN_LEAD = re.compile(
    r"^(?:used|quit|stopped|gave|just|only|a|an|the|some|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|both|mostly|mainly|my|our|several|a few|few|lots|many|"
    r"none|also|still|since|for|about|around|under|over|less|more|at|sometimes)\b",
    re.IGNORECASE,
)


def _lower_lead(detail: str) -> str:
    if _PLAIN_LEAD.match(detail):
        return detail[0].lower() + detail[1:]
    return detail


def _own(words: str) -> str:
    for pattern, mine in _SECOND:
        words = pattern.sub(mine, words)
    return words


# What of the user's a question may ask about ("Does your son ...?", "Is your flat ...?"):
# the household, its pets, its home and the user's own means. Not a friend or a coworker,
# whose facts are not the user's, nor a thing of the moment ("Is your phone charged?").
_YOURS = frozenset(
    {w for words in MEMBER_WORDS.values() for w in words.split()}
    | {
        "sons", "daughters", "kid", "kids", "child", "children", "twins", "teen", "teenager",
        "parents", "family", "household", "dog", "dogs", "cat", "cats", "pet", "pets", "puppy",
        "kitten", "home", "house", "apartment", "flat", "place", "building", "landlord",
        "lease", "job", "work", "budget", "insurance", "doctor", "diet", "commute",
        "schedule", "car",
    }
)  # fmt: skip
# How one feels or where one is now ("Are you hungry?", "Are you free?"): no standing fact.
_PASSING = frozenset(
    {
        "hungry", "thirsty", "tired", "sleepy", "busy", "free", "around", "awake", "ready",
        "there", "home", "here", "okay", "ok", "alright", "good", "fine", "sure", "excited",
        "bored", "cold", "hot", "comfortable", "done", "back", "up",
    }
)  # fmt: skip


def _subject(subject: str) -> tuple[str, bool] | None:
    """("I" or "my son", whether it is the speaker); None for what is not the user's."""
    if subject.lower() == "you":
        return "I", True
    head = subject.split(None, 1)[1].lower()
    return ("my " + head, False) if head in _YOURS else None


def _third(verb_phrase: str) -> str:
    """The phrase's first verb in the third person singular ("have allergies" -> "has
    allergies")."""
    verb, _, rest = verb_phrase.partition(" ")
    return f"{base_verb_s(verb)} {rest}".strip()


def _asked(rest: str, detail: str) -> tuple[str, str]:
    """``rest`` with what it asked about ("anything", "any pets") named by ``detail``, and
    what is left of ``detail`` ("" once named); without a detail, "something" and "pets"."""
    if not detail:
        return _ANY_NOUN.sub("", _ANYTHING.sub("something", rest)), ""
    if _ANYTHING.search(rest):
        return _ANYTHING.sub(detail, rest, count=1), ""
    if _ANY_NOUN.search(rest):
        return f"{_ANY_NOUN.sub('', rest, count=1)}: {detail}", ""
    return rest, detail


def _polar(question: str, polarity: str, detail: str) -> str | None:
    found = _POLAR.match(question)
    if not found or _OR.search(found.group("rest")) or _ASSISTANT.search(found.group("rest")):
        return None
    aux = found.group("aux").lower()
    whose = _subject(found.group("subject"))
    if whose is None or found.group("rest").strip().lower() in _PASSING:
        return None
    subject, speaker = whose
    rest = _own(found.group("rest").strip())
    if not polarity:
        if not detail or not (_ANYTHING.search(rest) or _ANY_NOUN.search(rest)):
            # Without a yes or no, only the thing asked for can be named: "Do you have
            # any drug allergies?" "Penicillin." "Is your flat on the ground floor?"
            # "Third floor." answers no, which no rule here can tell from a yes.
            return None
        polarity = "yes"
    negative = polarity in ("no", "longer")
    if polarity == "yes":
        rest, detail = _asked(rest, detail)
    if negative and _STILL.match(rest):
        # "Are you still vegetarian?" "No." -> "I am not vegetarian anymore.": what held ended.
        rest, polarity = _STILL.sub("", rest), "longer"
    statement = _clause(aux, subject, speaker, rest, negative)
    if statement is None:
        return None
    if polarity == "longer":
        return f"{statement} anymore{_beside(detail)}"
    return statement + _beside(detail)


def _clause(aux: str, subject: str, speaker: bool, rest: str, negative: bool) -> str | None:
    not_ = " not" if negative else ""
    if aux in ("are", "is"):
        verb = "am" if speaker else aux
        return f"{subject} {verb}{not_} {rest}"
    if aux in ("were", "was"):
        verb = "was" if speaker else aux
        return f"{subject} {verb}{not_} {_EVER.sub('', rest)}"
    if aux in ("do", "does"):
        if negative:
            return f"{subject} {'do' if speaker or aux == 'do' else 'does'} not {rest}"
        return f"{subject} {rest if speaker or aux == 'do' else _third(rest)}"
    if aux in ("have", "has"):
        verb = "have" if speaker else aux
        return f"{subject} {verb}{not_} {_EVER.sub('', rest)}"
    if aux == "can":
        return f"{subject} {'cannot' if negative else 'can'} {rest}"
    return None


def _anyone(question: str, reply: str) -> str | None:
    """ "Does anyone at home have allergies?" "My daughter, peanuts." -> "My daughter has
    allergies (peanuts).": the member the reply names, and what it adds."""
    found = _ANYONE.match(question)
    if not found:
        return None
    named = _MEMBER_REPLY.match(_INTERJECTION.sub("", reply))
    if not named:
        return _someone(found, reply)
    if named.group("who").lower() not in _YOURS:
        return None
    after = named.group("after").strip()
    if after.startswith(","):
        detail = _lower_lead(after[1:].strip(" ,.;:!-"))
    elif _BARE_VERB.fullmatch(after):
        detail = ""
    else:
        return None  # "My son has a peanut allergy.": a statement of its own
    rest, detail = _asked(_own(found.group("rest").strip()), detail)
    return _member_clause(found.group("aux"), "my " + named.group("who").lower(), rest, detail)


def _someone(found: re.Match[str], reply: str) -> str | None:
    """A bare yes to "Does anyone at home ...?": "Someone in my household ..." (who is not
    said). Not a no: "No one in my household smokes" reads, to the fact patterns, as
    someone's smoking."""
    polarity, detail = _polarity(reply)
    if detail or polarity != "yes":
        return None
    rest, _ = _asked(_own(found.group("rest").strip()), "")
    return _member_clause(found.group("aux"), "someone in my household", rest, "")


def _member_clause(aux: str, subject: str, rest: str, detail: str) -> str | None:
    """``subject`` (one person) and the question's predicate, its verb agreeing."""
    singular = _SINGULAR.get(aux.lower(), aux.lower())
    statement = _clause(singular, subject, False, rest, False)
    return None if statement is None else statement + _beside(detail)


def _any(question: str, polarity: str, detail: str) -> str | None:
    found = _ANY.match(question)
    if not found:
        return None
    what = found.group("what").strip().lower()
    if polarity in ("no", "longer"):
        return f"I have no {what}{_beside(detail)}"
    if _OR.search(what):
        return None  # "Any allergies or medications?" "Penicillin.": which one?
    if detail:
        return f"I have {what}: {detail}"
    return f"I have {what}" if polarity == "yes" else None


def _how_old(question: str, polarity: str, detail: str) -> str | None:
    found = _HOW_OLD.match(question)
    if not found or polarity or not detail or _OR.search(question):
        return None
    if _NUMBERS.match(detail):
        age = f"{detail} years old"
    elif _SPAN.search(detail):
        age = f"{detail} old"  # "Ten months." -> "ten months old"
    else:
        age = detail
    if found.group("you"):
        return f"I am {age}"
    whose = _own(found.group("whose").strip().lower())
    verb = "is" if re.search(r"\bis\b", question[:12], re.I) else "are"
    return f"{whose} {verb} {age}"


def _your_is(question: str, polarity: str, detail: str) -> str | None:
    found = _YOUR_IS.match(question)
    if not found or polarity or not detail:
        return None
    return f"{_own(found.group('whose').strip().lower())} is {detail}"


def _what_do_you(question: str, polarity: str, detail: str) -> str | None:
    found = _WHAT_DO_YOU.match(question)
    if not found or polarity or not detail or _OR.search(question):
        return None
    what = found.group("what").strip().lower()
    rest = _own(found.group("rest").strip())
    if found.group("aux"):
        verb = " am" if found.group("aux").lower() == "are" else ""
        return f"the {what} I{verb} {rest}: {detail}"
    whose = _subject(found.group("whose"))
    if whose is None:
        return None
    verb = "is " + rest if found.group("aux3").lower() == "is" else _third(rest)
    return f"the {what} {whose[0]} {verb}: {detail}"


def _how_many(question: str, polarity: str, detail: str) -> str | None:
    found = _HOW_MANY.match(question)
    if not found or (not detail and polarity != "no"):
        return None
    what = found.group("what").strip().lower()
    if polarity == "no" or _NONE.match(detail):
        return f"I have no {what}"
    if polarity:
        return None
    if _NUMBERS.match(detail):
        return f"I have {detail} {what}"
    return f"I have {what}: {detail}"


def _job(question: str, polarity: str, detail: str) -> str | None:
    if not _JOB.match(question) or polarity or not detail:
        return None
    return f"my job: {detail}"


def _beside(detail: str) -> str:
    """What the reply says beside its yes or no: a word on the verb as it is (" yet"),
    anything else in brackets."""
    if not detail or detail.startswith(" "):
        return detail
    return f" ({detail})"


def _sentence(statement: str) -> str:
    statement = re.sub(r"\s+", " ", statement).strip()
    return statement[0].upper() + statement[1:] + "."
