"""What a memory still says once a later statement ended part of it.

One message often tells several facts, and the rules extractor keeps a whole thought as
one memory: "Maya takes 20 mg of lisinopril every morning and Maya is allergic to
penicillin." When "I stopped taking lisinopril" ends that memory, the allergy must not
end with it. ``rest`` splits a memory into its clauses, asks the caller which of them the
later statement ends, and returns the others as a memory text of their own; the write
path stores it in the closed memory's place (``WritePipeline._keep_rest``).

A clause is split off only where the text plainly starts a new one: a sentence, or a
comma, "and", "but", "so" or a semicolon followed by a subject and a verb ("..., she uses
a walker") or by a verb that shares the subject before it ("lives in Boston and works at
Google"). A pronoun takes that subject ("she" -> "Maya's mom"). What follows "so" or "which
is why", and a sentence that leans on the one before ("That was ..."), depends on what
came before and ends with it. Anything else stays one clause, so a memory the caller finds
ended as a whole but in no clause alone is closed whole, as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from logicmem.routes.rulemem.facts import ADVERBS, PRONOUNS, verbish
from logicmem.routes.visible.text import word_form
from logicmem.write.person import MEMBER_WORDS
from logicmem.write.rules import DATE_HINTS, leans_back, own_words, reported, split_sentences

# "(last month = February 2026; yesterday = 2 March 2026)": the date hints of ``date_hint``.
_HINTS = DATE_HINTS
# Where a clause may start inside a sentence, and the word that links it to the one before.
_JOINT = re.compile(
    r"\s*(?:;|,|\s-\s|\s[\u2013\u2014]\s)\s*(?P<a>(?:and|but|so|which is why|that's why)\b)?\s*"
    r"|\s+(?P<b>and|but|so)\s+",
    re.IGNORECASE,
)
# A dose: "and 20 mg of atorvastatin" after "takes 10 mg of lisinopril" is a clause of its
# own, its subject and verb those of the dose before it.
DOSE = re.compile(
    r"\d+(?:\.\d+)?\s*(?:mg|mcg|milligrams?|micrograms?|g|ml|units?|iu|puffs?|tablets?|pills?|"
    r"capsules?|drops?)\b",
    re.IGNORECASE,
)
# One of a list of things named: "and a dog named Biscuit" after "has a cat named Miso" is
# a clause of its own, its subject and verb those of the one before it.
_NAMED = re.compile(
    r"(?:an?|one|another)\s+(?:[a-z]+\s+){1,2}?(?:named|called)\s+[A-Z][\w'-]*", re.IGNORECASE
)
# *Be* after a subject, shared by a short phrase after "and" ("is 6 and in first grade").
_BE = re.compile(r"\b(is|are|was|were)\s+[^,;]+$")
_SHARED_BE_WORDS = 6
# A link after which the clause follows from the one before: it ends with it.
_CONSEQUENCE = frozenset(["so", "which is why", "that's why"])
_SUBJECT_WORDS = 5  # words a subject may take before its verb ("Maya and family's dog Rex is")
# Words that end a subject without a verb: it is no clause of its own.
_NOT_SUBJECT_WORDS = (
    "a an the this that these those his her their its my our your to of in on at for with "
    "from by as if when who which what where why how not very"
)
_NOT_SUBJECT = frozenset(_NOT_SUBJECT_WORDS.split())
# Words between a subject and its verb ("Maya also takes ..."): not part of the subject.
_BETWEEN = ADVERBS | {"only", "rarely"}


@dataclass(frozen=True)
class Clause:
    text: str  # as it stands alone: its subject said, no closing mark
    subject: str  # the words before its verb
    follows: bool  # it follows from what came before ("so ...", a sentence leaning back)
    sentence: int = 0  # the sentence it is in, counted from 0


def _subject_of(words: list[str], name: str) -> int:
    """How many words the subject takes when ``words`` start with a subject and a verb
    ("Maya's daughter Mia is 7", "she uses a walker", "Maya and family always carry ..."),
    else 0."""
    if not words or not re.fullmatch(r"[\w'-]+", words[0]):
        return 0  # "Tofu, and ...": a list goes on
    first = words[0].lower()
    opener = (
        first in PRONOUNS
        or (bool(name) and first in (name.lower(), f"{name.lower()}'s"))
        or words[0][:1].isupper()
    )
    if not opener:
        return 0
    end = 0  # the subject's end, before any adverb
    for i in range(1, min(len(words), _SUBJECT_WORDS + 1)):
        word = words[i]
        if word.lower() in _BETWEEN:
            end = end or i
            continue
        if _finite(word, words[(end or i) - 1].lower()):
            return end or i
        if end or not re.fullmatch(r"[\w'-]+", word) or word.lower() in _NOT_SUBJECT:
            return 0
    return 0


# Verbs of everyday facts that ``verbish`` does not list: "is 3 and weighs 60 pounds".
_MORE_VERBS = frozenset((
    "weighs", "drinks", "eats", "drives", "wears", "sleeps", "walks", "carries", "smokes",
    "owes", "rents", "commutes", "swims", "rides", "sings", "coaches", "bikes",
    "contributes", "donates", "invests", "earns", "belongs", "mentors", "tutors", "knits",
    "listens", "flies", "climbs", "surfs", "hosts", "cycles", "trains", "hikes",
))  # fmt: skip


# Simple pasts that ``verbish`` and ``word_form`` do not list: "Maya quit smoking".
_MORE_PAST = frozenset((
    "quit", "broke", "hurt", "cut", "hit", "shut", "split", "woke", "wore", "tore", "bit",
    "caught", "fed", "fought", "led", "lent", "stuck", "swore", "beat",
))  # fmt: skip


def _verb(word: str) -> bool:
    """Whether ``word`` may start a verb phrase that shares the subject before it."""
    bare = word.lower().strip(".,;:!?")
    return verbish(word) or bare in _MORE_VERBS or bare in _MORE_PAST


def _finite(word: str, before: str) -> bool:
    """Whether ``word`` reads as the verb after ``before``: a listed verb or a past form,
    or, right after a plain subject (a name, "she", "family"), any word in the verb's
    place ("Maya carries", "they carry"); not after a possessive ("Maya's kids")."""
    bare = word.lower().strip(".,;:!?")
    if verbish(word) or word_form(bare) == "past" or bare in _MORE_PAST:
        return True
    if not bare.isalpha() or bare in _NOT_SUBJECT or before.endswith("'s"):
        return False
    if before in ("they", "family", "we"):
        return True
    return before[:1].isalpha() and bare.endswith("s") and not bare.endswith(("ss", "us", "is"))


def _no_verb(words: str) -> bool:
    """Whether ``words`` (a sentence's opening before "and") hold no verb: a name or a
    member's word ("Maya's wife"), at most four words."""
    found = words.split()
    return 0 < len(found) <= 4 and not any(
        _verb(w) or word_form(w.lower().strip(",")) or w.lower() in _NOT_SUBJECT for w in found
    )


def _split(sentence: str, name: str, previous: str) -> list[Clause]:
    """A sentence's clauses, each with its subject said; ``previous`` is the subject of
    the clause before the sentence."""
    pieces: list[tuple[str, int, int]] = []  # (link, start, end)
    start, link = 0, ""
    for joint in _JOINT.finditer(sentence):
        after = _spelled_out(sentence[joint.end() :]).split()
        said = joint.group("a") or joint.group("b") or ""
        own = _subject_of(after, name)
        shared = bool(said) and said.lower() in ("and", "but") and bool(after) and _verb(after[0])
        dose = (
            not own
            and said.lower() in ("and", "")
            and DOSE.match(" ".join(after)) is not None
            and DOSE.search(sentence[start : joint.start()]) is not None
        )
        named = (
            not own
            and said.lower() in ("and", "")
            and _NAMED.match(" ".join(after)) is not None
            and _NAMED.search(sentence[start : joint.start()]) is not None
        )
        dose = dose or named  # the same way: the clause before's words up to its own thing
        # "Maya's daughter is 6 and in first grade": a short phrase after "and" that
        # shares the subject's *be* ("is in first grade").
        be = (
            not own
            and said.lower() == "and"
            and 1 < len(after) <= _SHARED_BE_WORDS
            and after[0].lower() in ("in", "at")
            and not any(verbish(w) for w in after)
            and _BE.search(sentence[start : joint.start()]) is not None
        )
        # "Maya's wife and Maya are vegetarian": one subject of two people, not a clause
        # ended after "Maya's wife" (``retract.each_told`` tells each apart where needed).
        pair = (
            start == 0
            and said.lower() == "and"
            and own > 0
            and _no_verb(sentence[start : joint.start()])
        )
        if (own or shared or dose or be) and not pair and sentence[start : joint.start()].strip():
            pieces.append((link, start, joint.start()))
            start, link = joint.end(), "dose" if dose else said.lower()
    pieces.append((link, start, len(sentence)))
    out: list[Clause] = []
    last = 0  # where the sentence's last clause ends
    for link, begin, end in pieces:
        text = _spelled_out(sentence[begin:end].strip().rstrip(".!?").strip())
        words = text.split()
        verb = _subject_of(words, name)
        before = out[-1].subject if out else previous
        pronoun = bool(verb) and words[0].lower() in PRONOUNS
        if pronoun:
            before = _antecedent(words[0].lower(), before, name)
        if link == "dose" and out:
            # "and 20 mg of atorvastatin": taken as the dose before it was; "and a dog named
            # Biscuit", had as the cat named before it was.
            first = out[-1].text
            found = _NAMED.search(first) if _NAMED.match(text) else DOSE.search(first)
            if found is not None:
                out.append(Clause(first[: found.start()] + text, out[-1].subject, False))
                last = end
                continue
        if out and not before and (not verb or pronoun):
            # Nothing it can stand on alone ("she ..." of someone not said, a verb of no
            # subject read): it stays part of the clause before, as written.
            joined = out[-1].text + sentence[last:end].rstrip().rstrip(".!?")
            out[-1] = replace(out[-1], text=joined)
            last = end
            continue
        if pronoun and before:
            text, subject = " ".join([before, *words[1:]]), before
        elif pronoun:  # a sentence of its own, whose "she" was not read
            subject = ""
        elif verb:
            subject = " ".join(words[:verb])
        else:  # a verb that shares the subject before it, or its *be*
            be = _BE.search(out[-1].text) if out and words[0].lower() in ("in", "at") else None
            text = f"{before} {be.group(1)} {text}" if be and before else text
            text, subject = (f"{before} {text}" if out and not be else text), before
        out.append(Clause(text, subject, link in _CONSEQUENCE))
        last = end
    return out


def _spelled_out(clause: str) -> str:
    """A clause whose pronoun is contracted with its verb, spelled out ("she's on oxygen"
    -> "she is on oxygen", "he's been" -> "he has been"), so the pronoun can be replaced."""
    found = re.match(r"(?i)(he|she|it|they)(?:'|\u2019)(s|re|ve)\b\s*(\S*)", clause)
    if found is None:
        return clause
    pronoun, short, after = found.groups()
    if short == "re":
        verb = "are"
    elif short == "ve":
        verb = "have"
    else:  # "she's been", "he's moved": has
        perfect = after.lower() in ("been", "got") or word_form(after.lower()) == "past"
        verb = "has" if perfect else "is"
    return f"{pronoun} {verb}{clause[found.end(2) :]}"


def _antecedent(pronoun: str, subject: str, name: str) -> str:
    """The subject before that ``pronoun`` stands for, or "" when it may stand for
    someone else: the memory's person says "I" (written as their name), so "she" after
    "Maya takes ..." is another woman; "they" stands only for a plural ("Maya's kids")."""
    bare = subject.lower()
    if not subject or (name and bare in (name.lower(), f"{name.lower()} and family")):
        return ""
    if pronoun == "they":
        plural = (bare.endswith("s") and not bare.endswith("'s")) or " and " in bare
        return subject if plural else ""
    return subject


def clauses(text: str, name: str) -> list[Clause]:
    """The clauses of a memory's own words (no date hints, no question it answers, no
    "Maya said:"), each as it stands alone; ``name`` is the memory's person."""
    out: list[Clause] = []
    for number, sentence in enumerate(split_sentences(text)):
        before = out[-1].subject if out else ""
        found = [replace(c, sentence=number) for c in _split(sentence, name, before)]
        if out and leans_back(sentence):
            found[0] = replace(found[0], follows=True)
        out += found
    return out


@dataclass(frozen=True)
class _Memory:
    """A memory's text in its layers: who said it, its clauses, its date hints and the
    question it answers."""

    lead: str  # "Maya said: " or ""
    clauses: list[Clause]
    hints: list[str]  # "last month = February 2026"
    reply: str  # ' (in reply to "...")' or ""


def _layers(text: str, name: str) -> _Memory:
    body = own_words(text)
    reply = text[len(body) :] if text.startswith(body) else ""
    hints = [h.strip() for found in _HINTS.finditer(body) for h in found.group("hints").split(";")]
    body = _HINTS.sub("", body)
    told = reported(body)
    lead = f"{told[0]} said: " if told else ""
    said = clauses(told[1] if told else body, name)
    return _Memory(lead, said, hints, reply)


def parts(text: str, name: str) -> list[str]:
    """Each clause of memory ``text`` as the memory would say it alone ("Maya said: Tom
    plays in a band"); none for a memory of one clause."""
    memory = _layers(text, name)
    found = [memory.lead + c.text for c in memory.clauses]
    return found if len(found) > 1 else []


def rest(text: str, name: str, ends: Callable[[str], bool]) -> str | None:
    """What of memory ``text`` stands once a statement that ends part of it is said: the
    clauses ``ends`` does not end (nor follow from one it ends), as a memory text, with
    the date hints of the words they keep, the question answered and who said it; a
    clause that lists things keeps those ``ends`` does not end ("Maya takes metformin,
    lisinopril and atorvastatin", ended for lisinopril: "Maya takes metformin and
    atorvastatin"). None when the whole memory ends: ``ends`` ends no clause or thing
    alone, or every one."""
    memory = _layers(text, name)
    ended: list[bool] = []
    texts: list[str] = []
    fewer = False
    for i, part in enumerate(memory.clauses):
        gone = _follows_an_end(memory.clauses, ended, i)
        said = part.text
        if not gone and ends(memory.lead + part.text):
            left = _listed_left(part.text, name, lambda t: ends(memory.lead + t))
            gone, said, fewer = left is None, left or said, fewer or left is not None
        ended.append(gone)
        texts.append(said)
    if (not any(ended) and not fewer) or all(ended) or (len(texts) < 2 and not fewer):
        return None
    kept = [t for t, gone in zip(texts, ended, strict=True) if not gone]
    said = " ".join(f"{_capital(k, name)}." for k in kept)
    still = [h for h in memory.hints if h.split(" = ")[0].lower() in said.lower()]
    tail = f" ({'; '.join(still)})" if still else ""
    return f"{memory.lead}{said}{tail}{memory.reply}"


# A list of things after the word that takes them ("takes metformin, lisinopril and
# atorvastatin", "is allergic to penicillin and sulfa drugs"), and what follows the list.
_LIST = re.compile(
    r"^(?P<head>.*\b(?:to|of|with|on|for|from|takes?|taking|uses?|using|needs?|has|have|"
    r"avoids?|eats?|drinks?|wears?|owns?|keeps?|drives?|rides?)\s+)"
    r"(?P<items>[\w'/-]+(?:\s+[\w'/-]+){0,2}?(?:\s*,\s*[\w'/-]+(?:\s+[\w'/-]+){0,2}?)*"
    r"\s*,?\s+and\s+[\w'/-]+(?:\s+[\w'/-]+){0,2}?)"
    r"(?P<tail>(?:\s+(?:every|each|daily|twice|once|at|in|on|for|since|because|but|when|"
    r"as)\b.*)?)$",
    re.IGNORECASE,
)


def _listed_left(clause: str, name: str, ends: Callable[[str], bool]) -> str | None:
    """``clause`` with only the things of its list that ``ends`` does not end, each read
    in the clause alone; None when it lists nothing, or ``ends`` ends all of them or
    none alone. People with ``name`` among them are no list of things: "lives with Maya
    and family" is the one household the user is part of."""
    found = _LIST.match(clause)
    if found is None:
        return None
    items = [i for i in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", found["items"]) if i]
    if len(items) < 2 or (name and name.lower() in {i.lower() for i in items}):
        return None
    head, tail = found["head"], found["tail"]
    # "a Netflix and a Hulu subscription": names before a head noun they share.
    *before, last = items
    shared = re.fullmatch(r"(?:an?|the)\s+[A-Z][\w'-]*\s+([a-z][\w-]*)", last)
    if shared and all(re.fullmatch(r"(?:an?|the)\s+[A-Z][\w'-]*", i) for i in before):
        items = [f"{i} {shared.group(1)}" for i in before] + [last]
    gone = [ends(f"{head}{item}{tail}") for item in items]
    if all(gone) or not any(gone):
        return None
    left = [item for item, g in zip(items, gone, strict=True) if not g]
    listed = left[0] if len(left) == 1 else ", ".join(left[:-1]) + " and " + left[-1]
    return f"{head}{listed}{tail}"


def _follows_an_end(said: list[Clause], ended: list[bool], i: int) -> bool:
    """Whether clause ``i`` follows from what ended: all the clauses before it in its
    sentence ("Sam has diabetes and uses a pump, so we keep juice in the car" keeps the
    juice when only the pump ends), or, for a sentence leaning back, all of the sentence
    before."""
    clause = said[i]
    if not clause.follows or i == 0:
        return False
    first = i > 0 and said[i - 1].sentence != clause.sentence
    wanted = clause.sentence - 1 if first else clause.sentence
    before = [ended[j] for j in range(i) if said[j].sentence == wanted]
    return bool(before) and all(before)


def _capital(clause: str, name: str) -> str:
    """A clause as a sentence starts: capitalised, unless it starts with the name as the
    user spelled it."""
    first = clause.split()[0] if clause.split() else ""
    if name and first.lower() in (name.lower(), f"{name.lower()}'s"):
        return clause
    return clause[:1].upper() + clause[1:]


# The relations a person is introduced by: household members, and the others people name
# ("my sister Dana", "my friend Omar").
_RELATIVES = "sister brother cousin aunt uncle niece nephew friend roommate"
_KIN = "|".join(
    sorted(
        {w for words in [*MEMBER_WORDS.values(), _RELATIVES] for w in words.split()},
        key=len,
    )
)


def introduced(text: str, name: str, among: str, kept: str = "") -> list[str]:
    """Who ``text`` introduces by their relation to ``name`` and by a name, when ``among``
    tells of them by the name or the relation but not both, each as a sentence of its own
    ("Maya's son Leo goes to Lincoln Elementary", with "Leo started third grade" or "Maya's
    son started third grade" -> "Maya's son is named Leo."):
    what a memory closed by a new value of that person's slot must not take with it,
    unless ``kept``, what stays of that memory, names them."""
    found = re.finditer(
        rf"\b{re.escape(name)}'s\s+(?P<kin>(?i:{_KIN}))\s+(?P<who>[A-Z][a-z]+)\b", text
    )
    out = []
    for match in found:
        kin, who = match.group("kin").lower(), match.group("who")
        # Told by their name or by their relation ("Maya's daughter turned 8").
        told = re.search(rf"\b(?:{who}|(?i:{re.escape(kin)}))\b", among) is not None
        told = told and who not in kept
        if told and re.search(rf"\b{kin},?\s+{who}\b", among, re.IGNORECASE) is None:
            out.append(f"{name}'s {kin} is named {who}.")
    return list(dict.fromkeys(out))
