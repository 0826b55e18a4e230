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
("Maya said: Tom quit smoking" ends nothing of Maya's); a household member's ending ("my
son outgrew his milk allergy") ends the member's fact, and a fact of another person ("my
husband smokes", "my roommate's cat is 9") is ended only by what names them (``_whose``).
A verb of ending with a long object ("sold cookies at the school bake sale") tells an
event, not an ending. A correction instead ends the one fact that has the same frame (its
words other than values) with a different value: "takes 20 mg of lisinopril" for "it's
40 mg", or, when it names the old value ("Thursdays, not Mondays"), the fact that holds it.

The other kinds:

- a *change* said as one ("the doctor raised my metformin to 1000 mg", "my rent went up
  to $1,500", "my daughter turned 8"): like a correction, for the thing named, in a unit
  of the same kind;
- an *update*, a number said as the one that holds now ("my parking costs $75 a month
  now"), and a correction or change whose words no fact has: the closest fact of the same
  person with another number, by meaning (``MIN_UPDATE_SIMILARITY``);
- a *death* of the speaker's own ("Juniper passed away", "we lost Grandma"): what held of
  who died, not what they left ("Grandma's recipe");
- a *request to forget* ("Please forget that I'm vegetarian", "delete the part about my
  overdraft"; not "for tonight"): the facts it names, past events too, and the
  request itself (``pipeline``).

Thresholds were set on MiniLM (all-MiniLM-L6-v2); see tests/write/test_retract.py and
benchmarks/updates.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, TypeGuard

import numpy as np

from logicmem.routes.rulemem.facts import ADVERBS, verbish
from logicmem.routes.visible.kb import drug_classes, drug_kinds, drug_names, medicine_names
from logicmem.routes.visible.text import OTHER_PEOPLE_WORDS, fold, lemma, word_form, word_set
from logicmem.types import MemoryEntry
from logicmem.write.person import HE_KIN, INTERJECTION, MEMBER_WORDS, SHE_KIN, base_verb_s
from logicmem.write.remainder import DOSE, parts
from logicmem.write.rules import (
    CAN_YOU,
    LONG_AGO_WORDS,
    STOPWORDS,
    asserted,
    own_words,
    split_sentences,
    without_hints,
)
from logicmem.write.supersede import MOBILITY_AIDS, OCCUPATIONS, slots_of

MIN_SIMILARITY = 0.45  # cosine(content, fact predicate) for an ending or a negation
MIN_CORRECTION_SIMILARITY = 0.3  # a correction's content is only a value and its unit
# A request to forget names its topic in a word or two ("the record", "my sister"): far in
# meaning from any whole sentence that holds it (0.35-0.45 on MiniLM), so the words decide.
MIN_FORGET_SIMILARITY = 0.3
# A request to forget may name a fact by other forms of its words than the fact's own ("the
# kidney failure" for "Maya's kidneys are failing", "the boat" for "keeps a sailboat at the
# marina"): a word of the same stem, or one a compound holds, counts when the two are
# this close in meaning too (MiniLM cosine of the two words alone: a word's other forms
# about 0.6-0.95; "car" and "career", "son" and "song" under 0.45). Not words of like
# meaning alone: "cat" and "dog" (0.66), "Monday" and "Tuesday" (0.87) are closer than
# most synonyms. Chosen on pairs written for it, not on a benchmark's rows.
MIN_WORD_SIMILARITY = 0.55
# A new value said in other words than the fact it replaces: the two statements' cosine.
# Chosen on benchmarks/data/updates_eval.jsonl among 0.5, 0.6, 0.65, 0.7 and 0.8: at 0.6 and
# above no fact of another thing or person was closed (4 at 0.5); 0.65 keeps a margin.
MIN_UPDATE_SIMILARITY = 0.65
# A verb of ending ends one thing ("smoking", "taking lisinopril", "my job at Google"); an
# object of more content words than this tells an event with its circumstances instead.
MAX_ENDED_WORDS = 3

Kind = Literal["ending", "negation", "correction", "change", "forget", "death", "birth", "update"]


@dataclass(frozen=True)
class Retraction:
    """What a statement ends: ``content`` is the ended fact's wording (for a correction,
    the new value); ``verbal`` is set when the content is a verb phrase ("smoking", "doesn't
    smoke"), so its last word is no noun that could modify another."""

    kind: Kind
    cue: str
    content: str
    verbal: bool = False
    old: str = ""  # for a correction, the value it replaces ("it's 40 mg, not 20": "20")
    # For a correction, a change or an update, the statement itself (without its subject):
    # what the fact it replaces is compared with when no fact has its words (``updated``).
    said: str = ""
    # Said of the speaker and family ("we're not vegetarian anymore", written "Maya and
    # family are not ..."): it also ends a fact the speaker shares with a member.
    shared: bool = False
    # For a request to forget, what it names without saying whose ("what I said about the
    # lawsuit", "the eviction thing"): whatever the speaker told of it, of anyone.
    anyone: bool = False
    # For a death, whose the one who died was when not the speaker's: a household member's
    # word ("mom" for "my mom's dog Rex died"); for an event done, the member who did it
    # ("son" for "my son passed his driving test"). It ends only a fact told of that member.
    # "his" or "her" for an ending of a thing of someone the pronoun stands for ("we stopped
    # his Zyrtec"): the writer names the speaker ("I" is "Maya"), so never the speaker's own,
    # but the one member it may be (``_pronoun_owner``), and none when two may be. (A writer
    # that calls the speaker "her" is read the same way: such an ending closes nothing of
    # the speaker's, and both stay.)
    whose: str = ""


# Words allowed between the subject and the cue: auxiliaries and adverbs of time or degree.
_AUX = (
    r"(?:is|are|am|was|has|have|had|did|does|do|can|ca|could|will|wo|would|just|finally|"
    r"recently|also|officially|completely|fully|now|already|actually|eventually|totally|"
    r"basically|mostly|really|since|then|lately|pretty much)"
)
# A stretch of a drug or a treatment ("her course of amoxicillin", "the last round of chemo"):
# what a course of it ends is the drug or the treatment itself.
_COURSE = (
    r"(?:(?:last|final|whole|full|first|second|third)\s+)?(?:course|round|cycle|dose)s?\s+of\s+"
)
_TREATED = (
    rf"{_COURSE}|chemo|chemotherapy|radiation|radiotherapy|physio|physiotherapy|"
    r"physical therapy|occupational therapy|rehab|antibiotics|treatment|ivf|the pills|meds"
)
# The armed services, and places one is kept in for a while.
_SERVICE = (
    r"army|navy|military|marines|marine corps|air force|coast guard|national guard|reserves|"
    r"armed forces|space force"
)
_KEPT_IN = r"hospital|icu|rehab|prison|jail|nursing home|psych ward"
# Only completed endings: a habit or a plan ("sells the scarves she knits", "is quitting
# next month", "stops by on Fridays") ends nothing yet.
_ENDING = (
    r"quit|stopped|gave up on|given up on|gave up|given up|sold|moved out of|moved away from|"
    r"recovered from|paid off|paid back|"
    r"got over|gotten over|outgrew|outgrown|grew out of|came off|come off|weaned off|"
    r"tapered off|broke up with|broken up with|split up with|divorced|retired from|"
    r"resigned from|stepped down from|stepped down as|resigned as|dropped out of|withdrew from|"
    # not from one thing to the next ("graduated from a walker to a cane": ``_switched``)
    r"graduated from(?![^,.;!?]+?\s+to\s+(?:a|an|the)\s)|"
    r"gave away|given away|rehomed|re-homed|got rid of|gotten rid of|ditched|cancell?ed|"
    # A pet, named, given to someone for good: "gave Mochi to my sister" (not "gave Mochi a
    # bath", nor to a vet, nor to mind it for a while).
    r"gave(?=\s+(?-i:[A-Z][a-z]+)\s+to\s+(?:(?:a|an|the|my|our|his|her|their|[\w-]+'s)\s+)?"
    r"(?:(?:new|good|loving|lovely|nice|close|old|family)\s+)?(?:friend|neighbou?r|coworker|"
    r"colleague|family|home|owner|couple|shelter|rescue|sister|brother|cousin|aunt|uncle|niece|"
    r"nephew|parents|mom|mum|mother|dad|father|grandparents|grandma|grandpa|in-laws)s?\b"
    r"(?![^.;!?]*\b(?:for\s+(?:the|a|two|three|few|couple)|to\s+(?:look after|watch|mind|"
    r"care for|take care|babysit|keep for)|while|until|till|when we)\b))|"
    r"called off|"
    # An activity dropped: "dropped karate", "dropped out of band" (above); it ends only a
    # fact of doing it (``_DOES``), so "dropped the kids at school" ends nothing.
    r"dropped(?!\s+(?:off|by|in|out|over|me|him|her|us|them|it|a|an|to|down|from|the ball|"
    r"\$?\d[\d,.]*)\b)|"
    # Done because it had to be: "we had to rehome Pixel" (not "have to", still ahead).
    r"had to (?:rehome|re-home|give away|give up|sell|cancel|quit|stop)|"
    # Decided and done: "decided to stop playing baseball" (not "is deciding whether to").
    r"decided to (?:stop|quit|give up)|"
    # Out of the service or a place of care for good: "got out of the Army", "was
    # discharged from the hospital" (not "got out of the car", nor "discharged a debt").
    rf"got out of(?=\s+(?:the\s+)?(?:{_SERVICE}|{_KEPT_IN})\b)|"
    r"(?:(?:honorably|medically)\s+)?discharged from|"
    # ... or said as where they are now: "is out of the hospital", "came home from rehab".
    rf"(?:out of|released from|(?:came\s+|got\s+|back\s+)?home\s+from)"
    rf"(?=\s+(?:the\s+)?(?:{_KEPT_IN})\b)|"
    # A group left: "left the choir", "left my book club", "left the Navy".
    r"left(?=\s+(?:the|my|our)\s+(?:[\w'-]+\s+){0,2}?(?:choir|band|club|team|league|group|"
    rf"troupe|orchestra|ensemble|crew|congregation|union|committee|board|{_SERVICE})"
    r"(?=\s*(?:[,.;!?]|$)|\s+(?:after|because|last|this|in|when|since|for|and|but|so|to)\b))|"
    # What is undergone ends when finished: a course of a drug, a treatment. Not "finished
    # work" or "finished the night shift", which end a day, not a job.
    rf"(?:finished|completed|(?:is|am|are|'m|'re)\s+done\s+with)(?=\s+(?:[\w'-]+\s+){{0,2}}"
    rf"(?:{_TREATED}))|"
    r"left (?:(?:[\w-]+'s|my|her|his|their|the)\s+)?(?:job|position|role|post|work|company)"
    r"\s+(?:at|with|for)|"
    # "left Deloitte": ends only a fact naming that employer (``ended_slot``), so "left
    # Paris on Friday" ends nothing; not a possessive ("left Maya's job to travel").
    r"left(?=\s+(?-i:[A-Z])[\w&.-]*(?:[\s,;!?]|\.?$))"
)
# Leaving a job, the employer named or not: "quit my job", "left my teaching job at the
# school", "got laid off from Acme", "was let go", "I retired last spring". Read before
# ``_ENDING``, whose content is what ended; here it is the job (``job_ending``).
# A role or a position is a job only where it is held ("quit my role at the bank", not
# "lost my role in the play"); a job is one followed by no other noun ("job search").
_JOB_NOUN = r"(?:(?:job|career)(?![\w-]|\s+(?:search|hunt|hunting|interview|offer|fair|board))|"
_JOB_NOUN += r"(?:role|position|post)(?=\s+(?:at|with|for)\s))"
# The verbs of a job begun.
_NEW_JOB = frozenset(["started", "began", "landed", "accepted", "took", "got"])
_JOB_ENDING = (
    # A new job is the job held now: the one before it ended ("holds_a_value").
    rf"(?P<cue>(?P<new>(?:{'|'.join(sorted(_NEW_JOB))})\s+(?:a|my|the)\s+new\s+"
    r"(?:job|position|role)\b)|"
    r"(?:quit|left|lost|resigned from|stepped down from|walked away from)\s+"
    r"(?:(?:my|our|her|his|their|the|[\w-]+'s)\s+)?(?:(?P<kind>[\w-]+)\s+)?" + _JOB_NOUN + r"|"
    r"(?:got|was|were|been|have been|'ve been)\s+(?:laid off|fired|let go|made redundant)\b"
    r"(?!\s+(?:up|of)\b)|"
    # Retired from work, not retired a thing ("retired my old running shoes").
    r"retired(?=\s*(?:[,.;!?]|$)|\s+(?:early|last|this|in|on|at|after|recently|yesterday|now|"
    r"and|but|so|a\s+(?:few|couple|year|month|week)|\d|(?:from|as)\s+(?:my|the|her|his)\s+"
    r"job)\b))"
    r"(?:\s+(?P<at>at|with|for|from|by|as)\s+(?P<where>[^,.;!?]+))?"
)
# Words before "job" that say which of the speaker's jobs, not its kind or its place.
_ANY_JOB = word_set(
    "old new day current first second full-time part-time main regular only real own last "
    "full part steady"
)
_NOT_A_WORKPLACE = r"(?:\d|(?:end|start|beginning|close|age|time|last|first)\b)"
_CLAUSE_START = r"(?:^|[.;:!?,]\s*|\b(?:and|but|so|now)\s+)"
# A fact of having a thing: what selling or giving it away ends.
_OWNS = re.compile(r"\b(?:own|owns|have|has|keeps?|drives?|rides?)\b", re.IGNORECASE)
# A thing being sold: what selling it ends.
_FOR_SALE = re.compile(
    r"\b(?:trying to sell|selling|listed|for sale|on the market|putting .{1,30} up for sale)\b",
    re.IGNORECASE,
)
# Endings that hand a thing to someone.
_HANDED = re.compile(r"\b(?:gave|given|give|sold|sell|re-?home)", re.IGNORECASE)
# Coming off something taken, not off work or a phone call.
_OFF = re.compile(r"\boff\b", re.IGNORECASE)
_NOT_TAKEN = re.compile(
    r"^(?:work|duty|school|shift|today|tomorrow|sick|(?:the )?(?:bus|train|plane|phone|call|"
    r"hook|grid|stage|list|line|road|couch|wagon|ice|field|court|bench))\b",
    re.IGNORECASE,
)
# Switching from one thing to another ends the first ("switched me from lisinopril to
# losartan"); not "moved" or "went" ("went from the airport to the hotel").
_SWITCH = r"switched|changed|transitioned|converted"
_SWAP = r"swapped|replaced|traded"
# Moved on from one thing to the next ("moved from a crib to a big-kid bed", "graduated
# from a walker to a cane"); not from a place, which the residence slot reads.
_MOVED_ON = (
    r"(?:moved|graduated|upgraded)"
    r"(?=\s+from\s+(?!(?:the|a|an|his|her|my|their)\s+(?-i:[A-Z]))(?-i:[a-z]))"
)
_NEGATION = r"no longer|not|never|n't"
_PLAIN_NEGATION_END = r"any\s?more|after all"
# Who prescribes, and may stop a drug or find a condition absent.
_PRESCRIBER = (
    r"doctor|doc|dr\.?\s+[A-Z]\w+|physician|gp|cardiologist|psychiatrist|neurologist|"
    r"oncologist|rheumatologist|endocrinologist|dermatologist|gastroenterologist|"
    r"nephrologist|pulmonologist|urologist|gynecologist|ob-?gyn|obstetrician|surgeon|"
    r"specialist|nurse practitioner|np|pa|pharmacist|care team|medical team|dentist|vet"
)
# What was believed found not to hold, said before the negation: "turns out", "the tests
# came back", "the allergist said".
_TOLD_NOT = (
    rf"turns out|turned out|found out|(?:tests?|results?|scan|biopsy) (?:showed|show|came back)|"
    rf"(?:{_PRESCRIBER}|allergist) (?:said|says|confirmed)"
)
_FOUND_OUT = re.compile(
    rf"\b(?:{_TOLD_NOT})\b[\s,]*(?:after all\s+)?(?:that\s+)?(?:\S+\s+){{0,4}}\S*$",
    re.IGNORECASE,
)
_CORRECTION = (
    r"(?:was|were) wrong|misspoke|miscounted|misremembered|mistyped|misread|misheard|"
    r"(?:got|had|typed|said|wrote|put|remembered|heard|read)\s+(?:it|that|this|(?P<named>the\s+\w+))"
    r"\s+wrong|mixed (?:it|that|them|those) up|made a (?:mistake|typo)|stand corrected|"
    r"was mistaken"
)
# A correction without its subject: "Sorry, that was wrong, ...", "My mistake, ...".
_CORRECTION_ALONE = (
    r"(?:(?:sorry|oops|wait|no wait|ah|oh)[,!\s]+)*(?P<cue>(?:that|this|it) (?:was|is) wrong|"
    r"(?:my|{mine}) (?:mistake|bad)|correction:|typo(?: earlier)?|i meant)"
)
# A measured thing changed to a new value, by whoever changed it ("the doctor raised my
# metformin to 1000 mg", "my rent went up to 1,500"): a change of the value, not an event.
# Not "moved" or "switched": "moved the meeting to 3 pm" changes one occasion.
_CHANGE = (
    r"raised|increased|upped|bumped(?: up)?|lowered|reduced|decreased|cut(?: back)?|"
    r"dropped|doubled|halved|tripled|adjusted|changed|titrated(?: up| down)?"
)
# "went down to", or "is down to" (*be* read before it): "Maya's A1C is down to 6.4".
_CHANGE_INTRANSITIVE = (
    r"(?:(?:went|gone|goes|go) (?:up|down)|"
    rf"(?:(?<=\bis )|(?<=\bare )|(?<=\bwas )|(?<='s ))(?:down|up)(?=\s+to\s+\$?\d)|{_CHANGE})"
)
_THING = (
    r"(?P<thing>[A-Za-z0-9][\w-]*(?:\s+(?:(?:at|for|on|of|in)\s+)?(?:the\s+)?[A-Za-z0-9][\w-]*)"
    r"{0,3}?)(?:\s+(?:dose|dosage))?(?:\s+(?:up|down))?"
)
_NEW_VALUE = (
    r"(?:\s+from\s+[^,.;]+?)?\s+to\s+(?P<value>\$?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?)"
    r"(?:\s*(?P<unit>%|[a-zA-Z]+))?"
)
# The units a changed value is given in: not part of what changed ("1 hour" -> "45 minutes").
# Units of one kind measure one thing: "1 hour" -> "45 minutes" is a change, "twice a
# week" -> "12 km" is not.
_UNIT_KINDS = (
    ("mg", "mcg", "g", "kg", "lb", "lbs", "pound", "unit", "puff", "tablet", "pill", "dose",
     "ml", "drop", "cup"),
    ("hour", "minute", "day", "week", "month", "year", "am", "pm"),
    ("mile", "km", "lap", "step"),
    ("dollar", "buck"),
    ("rep", "set", "calorie", "percent"),
)  # fmt: skip
_UNIT_LEMMAS = tuple(frozenset(lemma(u) for u in kind) for kind in _UNIT_KINDS)
_UNITS = frozenset(u for kind in _UNIT_LEMMAS for u in kind)
# Words that follow a number without being its unit ("to 3 a week").
_NOT_UNIT = frozenset(["a", "an", "per", "each", "every", "and", "or", "but", "now", "since"])
# A request to the assistant to forget something the speaker said: closes what it names.
# Not a set-aside for the moment ("forget that I'm vegetarian for this one dinner").
_FORGET = (
    r"(?:(?:please|pls|so|oh|also|actually|ok(?:ay)?|hey|and|wait)[,\s]+)*"
    r"(?:(?:can|could|would) (?:you|u)\s+)?(?:please\s+)?"
    r"(?:(?P<cue>forget|disregard|ignore|delete|erase|remove|scratch|drop)\s+"
    r"(?:that\s+|(?:the|that)\s+(?:fact|part|bit|note|memory|thing|stuff|info|information|"
    r"details?)\s+(?:that|about|on|of|where)\s+|(?:what|everything|anything|all)\s+\S+\s+"
    r"(?:said|told you|mentioned|shared|wrote)\s+(?:earlier\s+|before\s+)?(?:about|regarding|"
    r"on)\s+|\S+\s+(?:mentioned|said|told you)\s+(?:that\s+)?|"
    r"the\s+(?=\w+(?:\s+\w+)?\s+(?:thing|stuff|business|situation)\b)|"
    r"(?=\S+'s\s+.+?\s+from\s+(?:your\s+)?(?:memory|records?|notes?|files?)\b))|"
    r"(?:don't|do not|never)\s+(?P<cue2>remember|store|save|keep|record|write down|log)\s+"
    r"(?:that\s+)?|"
    # "stop remembering my weight", "no need to keep my old address"
    r"(?:stop\s+|no need to\s+|(?:you\s+)?(?:don't|do not) need to\s+)(?P<cue4>remember(?:ing)?|"
    r"stor(?:e|ing)|sav(?:e|ing)|record(?:ing)?|keep(?:ing)?(?:\s+track\s+of)?)\s+(?:that\s+)?)"
    r"(?P<rest>.+)"
)
# Where what a request to forget names ends: "the overdraft thing", "my passport number from your
# memory", "my weight on file".
_FORGET_END = re.compile(
    r"\s+(?:thing|stuff|business|situation)\b.*|\s+(?:from\s+(?:your\s+)?(?:memory|records?|notes?|files?)|"
    r"on\s+(?:file|record)|in\s+(?:your\s+)?memory)\b.*",
    re.IGNORECASE,
)
# A death ends what was current of the one who died ("our dog Juniper passed away", "we lost
# Grandpa in May"): someone of the household or a pet, or one named.
_PETS = (
    "dog|cat|puppy|kitten|hamster|rabbit|bunny|parrot|bird|budgie|fish|horse|pony|"
    "guinea pig|turtle|tortoise|lizard|snake|ferret|gerbil|rat|mouse"
)
NEVER_BACK = "never came back|never came home"
_DIED = r"passed away|passed on|died|was put down|was put to sleep|crossed the rainbow bridge"
_LOST = r"lost|put down|put to sleep|said goodbye to|had to say goodbye to|buried"
# What says that a value holds from now on.
_UPDATE = re.compile(
    r"\b(?:now|actually|these days|anymore|as of (?:today|this week|this month))\b"
    # "is down to 165 pounds", "up to 3 sessions a week": a value reached
    r"|\b(?:is|am|are|'m|'re|'s|got|went|cut|been)\s+(?:(?:finally|all the way)\s+)?(?:down|up)\s+"
    r"to\s+(?=\$?\d)",
    re.IGNORECASE,
)
# A turn that asks for something not to be kept ("don't want that saved").
_KEEP_NOTHING = re.compile(
    r"\b(?:saved|stored|on (?:record|file)|written down|in (?:your )?memory|remembered|kept)\b",
    re.IGNORECASE,
)
_FOR_NOW = re.compile(
    r"\b(?:for (?:now|a (?:sec|second|moment|minute|bit|while)|today|tonight|this (?:one )?\w+|"
    r"one \w+|the (?:night|evening|weekend|day|party|trip|holidays?))|just this once|"
    r"on (?:my|our|\w+'s) (?:birthday|anniversary|holiday|vacation|trip))\b",
    re.IGNORECASE,
)
# Where a content phrase ends: punctuation, a new clause, or when it happened.
# A title's full stop ends no content ("stopped seeing Dr. Lee"); a purpose after "to"
# ends it ("cancelled Netflix to save money").
_TITLE = "".join(rf"(?<!\b{t})" for t in ("Dr", "Mr", "Mrs", "Ms", "St", "Prof", "Jr", "Sr"))
_PURPOSE = (
    r"to (?:save|cut|spend|focus|free|make|get|have|be|help|pay|lose|stay|keep|avoid|afford|"
    r"reduce|try|give|see)"
)
_CONTENT_END = re.compile(
    r"\s*(?:"
    + _TITLE
    + r"\.(?!\d)|,(?!\d{3})|[;:!?()\u2013\u2014]|\s-\s|\b(?:because|since|so|but|and|or|"
    r"after|before|lol|haha|lmao|btw|please|pls|thanks|" + _PURPOSE + r"|"
    r"when|while|which|who|until|last|this|next|ago|yesterday|today|tonight|recently|"
    r"earlier|lately|finally|at last|any\s?more|after all|"
    r"for (?:good|now|years|months|weeks|a|the|\d+|two|three|several|some)|"
    r"(?:in|on|back in) (?:\d{4}|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)|on (?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|in (?:the )?(?:spring|summer|fall|autumn|winter)|"
    r"a (?:few|couple)|\d+ "
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
# Place, manner and time adverbs that may follow the thing itself ("runs a bakery downtown").
_ADVERBS = frozenset(
    ["downtown", "nearby", "abroad", "home", "away", "together", "alone", "online", "too",
     "well", "here", "there", "overseas", "upstate", "locally", "remotely", "part-time",
     "full-time",
     # and when: "sprained Maya's ankle yesterday"
     "yesterday", "today", "tonight", "tomorrow", "recently", "earlier"]
)  # fmt: skip
_BEGINNING = frozenset(
    lemma(w)
    for w in ("started", "began", "took", "adopted", "joined", "bought", "got", "became",
              "moved", "married", "enrolled", "signed", "switched")
)  # fmt: skip


def _speaker(subject: str) -> str:
    """The speaker as the subject of a clause: "we", "I", "Maya" or "Maya and family"."""
    return rf"(?i:we|I|{re.escape(subject)}(?: and family)?)" if subject else r"(?i:we|I)"


# What ends a clause that tells an event in passing ("moved back home when Dad passed away").
_IN_PASSING = re.compile(
    r"(?i:\b(?:when|after|since|before|because|until|while|as|who|that|if))\s+$"
)


def _mine(subject: str) -> str:
    """What opens a thing or person of the speaker's: "my", "our", or "Maya's"."""
    return rf"(?:my|our|{re.escape(subject)}'s)" if subject else "(?:my|our)"


def _subject_pattern(subject: str) -> str:
    # Not "she" or "they": in a memory the speaker is named, a pronoun is someone else.
    return rf"(?:{re.escape(subject)}|I)" if subject else "I"


# Every word a reading below needs, in one pattern: a statement with none of them ends
# nothing, and is not read further (the readings compile patterns per subject).
_CUES = re.compile(
    r"\b(?:forget|disregard|ignore|delete|erase|remove|scratch|drop|remember|store|save|keep|"
    r"record|write|log|wrong|misspoke|miscount|misremember|mistype|misread|misheard|mixed|"
    r"mistake|my bad|corrected|correction|typo|meant|actually|raised|increased|upped|bumped|"
    r"lowered|reduced|decreased|cut|dropped|doubled|halved|tripled|adjusted|changed|titrated|"
    r"went|gone|goes|go|now|turned|passed|died|put|crossed|lost|goodbye|buried|quit|ran|raced|"
    r"sat|did|rented|closed on|pregnant|expecting|"
    r"stopped|gave|given|sold|moved|recovered|got|gotten|outgrew|outgrown|grew|came|come|"
    r"weaned|tapered|broke|broken|split|separated|divorced|retired|resigned|stepped|withdrew|"
    r"left|off|no longer|any\s?more|after all|no more|switched|transitioned|converted|swapped|"
    r"laid|fired|let go|redundant|new job|new position|new role|took|taken|removed|"
    r"graduated|rehome|re-home|rid|ditched|cancel|finished|completed|done|born|birth|"
    r"welcomed|delivered|arrived|baby|babies|twins|little one|boy|girl|give|sell|stop|"
    r"miscarr|stillbirth|pregnancy|can|challenge|turns out|turned out|found out|heal|discontinu|"
    r"replaced|traded|these days|as of|sorry|oops|wait|down to|up to|free|bought|adopted|"
    r"leased|purchased|sober|let|back|returned|never|disband|folded|dissolved|fell apart|quits|"
    r"remission|decided|ended|expired|is over|was over|ran out|came to an end|wrapped up|lapsed|"
    r"landed|found|accepted|hired|caught up|quits|are over|are done|done with|cleared up|"
    r"went away|resolved|gone|over|discharged|trained|goal weight|target weight|pounds|lbs|again|"
    r"final|complete|cleared|admitted|received|earned|granted|"
    r"kilos|kg|flew|headed|drove|out of|released|home from|transplant|surgery|paid|without|"
    rf"{_TOLD_NOT})",  # a prefix will do
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def detect(text: str, subject: str) -> Retraction | None:
    """The fact ``text`` ends, if it says that one of ``subject``'s facts no longer holds:
    in the speaker's own words, not the question an answer keeps (``rules.in_reply_to``:
    "Do you still smoke?" ends nothing)."""
    text = own_words(text)
    if not _CUES.search(text):
        return None  # most of what people say: no word any reading below starts from
    subj = _subject_pattern(subject)
    forget = _forget(text, subject)
    if forget is not None:
        return forget  # "Can you forget that ...?" is a request, whatever its mark
    if text.rstrip().endswith("?"):
        return None
    text = asserted(text)
    flags = re.IGNORECASE
    # The speaker must be the one who stopped: "Maya said: Tom quit smoking" ends nothing
    # of Maya's. The subject opens a clause; only auxiliaries and adverbs follow it.
    # Not "'s": "Maya's divorced parents" is a possessive.
    # A lead-in may come first ("It seems I'm ...", "After the surgery, I ..."), and
    # the speaker may be one of a pair ("Tom and I broke up").
    # Or what found it out ("It turns out that I'm not ...", "My allergist said I'm not").
    found_out = rf"(?:(?:it|the|my|{subj}'s)\s+)?(?:\w+\s+)?(?:{_TOLD_NOT})(?:\s+after\s+all)?,?\s+"
    lead = (
        rf"{_CLAUSE_START}(?:(?:after|since|now that|once|because)\b[^,.;!?]*?,?\s+|"
        rf"{found_out}(?:that\s+)?|"
        rf"(?:\w+,?\s+){{0,2}}?)(?:[A-Z]\w+ and )?{subj}\b(?: and family\b)?"
        rf"(?:\s+{_AUX}|'ve|'m)*\s*"
    )
    found = (
        re.search(lead + rf"(?P<cue>{_CORRECTION})\b", text, flags)
        # "my mistake" as the memory writes it: "Maya's mistake".
        or re.search(
            r"(?:^|[.;:!?]\s*)" + _CORRECTION_ALONE.replace("{mine}", f"{re.escape(subject)}'s"),
            text,
            flags,
        )
        or re.search(
            rf"(?:^|[.;:!?]\s*)(?P<cue>actually)[\s,]+(?:{_IT_IS}\s+|(?={subj}(?:'s)?\s))",
            text,
            flags,
        )
        # "Scratch that, it's not latex I'm allergic to, it's nickel": the old value named.
        or re.search(
            rf"(?:^|[.;:!?]\s*)(?P<cue>scratch that|sorry|oops|wait|no wait|correction)"
            rf"[\s,:;.!-]+(?:actually[\s,]+)?{_IT_IS}\s+(?=not\s)",
            text,
            flags,
        )
    )
    if found is not None:
        return _corrected(text, found, subj, subject)
    change = _change(text, subject) or _turned(text, subject)
    if change is not None:
        return change
    death = _death(text, subject) or _birth(text, subject)
    if death is not None:
        return death
    # In chat the speaker goes unsaid: "Stopped coffee, it wrecks my sleep."
    unsaid = r"(?:^|[.;:!?]\s+)(?:(?:so|well|finally|officially)[,\s]+)?"
    parting = (
        _split_up(text, subject) or _member_split_up(text, subject) or _called_off(text, subject)
    )
    if parting is not None:
        return parting
    # before a job's ending: "left the Navy" ends serving in it, not a job at a place
    served = _service_ended(text, subject)
    if served is not None:
        return served
    leads = [
        (lead, ""),
        *_member_leads(text, subject),
        (unsaid, ""),
        *_name_leads(text, subject),
        *_pronoun_leads(text, subject),
    ]
    for whose, member in leads:
        ended = _ended(text, whose, subject)
        if ended is not None and not ended.content and not member:
            continue  # "moved out" says whose household it left only of someone else
        if ended is not None:
            if not member and re.search(rf"\b{subj} and family\b", text):
                ended = replace(ended, shared=True)
            if member:
                # A household member's ending ends the member's fact, not the speaker's.
                content = f"{member} {ended.content}".strip()
                return Retraction(ended.kind, ended.cue, content, ended.verbal)
            return ended
    # "My husband got a kidney transplant, no more dialysis!": what a change just told
    # ends, for whom the clause is about.
    found = re.search(
        rf"{_CLAUSE_START}(?:(?P<me>{subj})|(?i:{_mine(subject)})\s+(?P<m>(?i:{_KIN_WORDS}))"
        r"(?:\s+[A-Z][a-z]+)?|(?P<n>[A-Z][a-z]+))\s+(?:\w+\s+){0,2}?"
        r"(?:changed|switched|got|had|finished|completed|quit|started|retired|moved|graduated|"
        r"transferred)\b[^.;!?]*?(?:[,;]\s*(?:so\s+|and\s+)?|\s+so\s+)"
        r"no more\s+(?P<rest>[\w' -]+?)\s*"
        r"(?:[!.]|$)",
        text,
    )
    if found is not None:
        named = _someone_else(found.group("n"), subject)
        person = (found.group("m") or "").lower() or named
        content = _cut(found.group("rest"))
        short = len(content_lemmas(content, subject)) <= MAX_ENDED_WORDS
        if (found.group("me") or person) and content and short:
            return Retraction("ending", "no more", f"{person} {content}".strip())
    found = re.search(
        rf"(?:^|[.;:!?,]\s*)(?P<cue>no more)\s+(?P<rest>[^,.;!?]+?)\s+for\s+(?:me|{subj})\b",
        text,
        flags,
    )
    if found is not None:
        content = _cut(found.group("rest"))
        if content and len(content_lemmas(content, subject)) <= MAX_ENDED_WORDS:
            return Retraction("ending", "no more", content)
    return (
        _conceived(text, subject)
        or _paid_off(text, subject)
        or _taken_off(text, subject)
        or _acquired(text, subject)
        or _healed(text, subject)
        or _switched(text, subject)
        or _update(text, subject)
        or _event_done(text, subject)
        or _weight_reached(text, subject)
        or _trained(text, subject)
        or _weaned(text, subject)
        or _cleared(text, subject)
        or _unaided(text, subject)
        or _admitted(text, subject)
        or _foster_ended(text, subject)
    )


# An event prepared for, done: "ran the Boston marathon" ends "is training for the Boston
# marathon", "passed the bar" ends "is studying for the bar exam" (``_prepared_for``).
EVENT_DONE = "done"
_DID_EVENT = r"finished|completed|ran|raced|passed|took|sat|did"
# What one trains or studies for, by the word that ends its name ("the Boston marathon",
# "the bar", "my driving test", "the GRE" by its capitals).
_EVENTS = frozenset(
    lemma(w)
    for w in word_set(
        "marathon half-marathon race triathlon ironman 5k 10k ultra exam exams test bar boards "
        "finals midterms certification interview audition recital competition tournament "
        "defense defence"
    )
)
# What a fact of preparing says: "training for", "signed up for", "studying to take".
# Learning to drive prepares for the driving test.
_LEARNING_TO_DRIVE = re.compile(
    r"\b(?:learning to drive|taking driving lessons|in driver'?s ed|"
    r"(?:has|got) (?:a|her|his|my|\w+'s) learner'?s permit)\b",
    re.IGNORECASE,
)
_PREPARING = re.compile(
    r"\b(?:training|prepping|preparing|studying|cramming|getting ready|signed up|registered|"
    r"entered)\s+(?:for|to (?:run|take|sit|do))\s+(?P<what>[^,.;!?()]+)",
    re.IGNORECASE,
)


@lru_cache(maxsize=64)
def _doer_lead(subject: str) -> str:
    """The opening of a clause whose doer is the subject (or the household) or a member of
    theirs, named or not (group ``m``: the member), then its auxiliaries."""
    return (
        rf"(?:^|[.;:!?]\s*|\b(?:and|but|so)\s+)(?:\w+,?\s+)?(?:{_subject_pattern(subject)}"
        rf"(?:\s+and\s+family)?|{_mine(subject)}\s+(?P<m>{_KIN_WORDS})(?:\s+[A-Z][a-z]+)?)"
        rf"\s+(?:{_AUX}\s+)*"
    )


# A weight aimed at, reached: "hit Maya's goal weight", "lost the 20 pounds". It ends only
# a fact of trying to lose weight (``_WEIGHT_AIMED``).
GOAL_WEIGHT = "reached goal weight"
_WEIGHT_REACHED = (
    r"(?:hit|reached|made|got to|met|am at|is at|'m at)\s+(?:(?:my|our|his|her|their|[\w-]+'s)\s+)?"
    r"(?:goal|target)\s+weight|lost\s+(?:all\s+)?(?:the|those|that)\s+(?:\d+|ten|fifteen|"
    r"twenty|thirty|forty|fifty)\s+(?:pounds|lbs?|kilos|kg)"
)
_WEIGHT_AIMED = re.compile(
    r"\b(?:trying|try|tries|want|wants|wanting|aiming|aims?|working|hoping|hopes?|need|needs|"
    r"plan|plans|planning|goal is|going)\s+to\s+(?:lose|drop|shed|get down to|slim down)\b"
    r"|\bgoal weight\b|\bon a diet to lose\b",
    re.IGNORECASE,
)


def _doers(text: str, subject: str, pattern: str, cue: str, content: str) -> Retraction | None:
    """``pattern`` said of the subject or a member (``_doer_lead``; group ``m``): an ending
    with ``cue`` and a fixed ``content``, the member's."""
    found = re.search(_doer_lead(subject) + f"(?:{pattern})", text, re.IGNORECASE)
    if found is None:
        return None
    return Retraction("ending", cue, content, whose=_member(found))


def _weight_reached(text: str, subject: str) -> Retraction | None:
    """A weight aimed at and reached, by the subject or a member (``_WEIGHT_REACHED``)."""
    return _doers(text, subject, rf"(?:{_WEIGHT_REACHED})\b", GOAL_WEIGHT, "weight")


# Cleared to do what one was kept from: "my doctor cleared me to drive again" ends "can't
# drive after the seizure", "is grounded from driving"; cleared for activity ends bed rest.
CLEARED = "cleared"
_KEPT_FROM = re.compile(
    r"\b(?:can't|cannot|can not|isn't allowed to|not allowed to|no|grounded from|banned from|"
    r"restricted from|off|on\s+(?:bed rest|light duty|restrictions|modified duty)|"
    r"(?:is|are|am|'s|'m|'re)\s+not\s+(?:supposed|allowed)\s+to)\b",
    re.IGNORECASE,
)
_RESTING = frozenset(lemma(w) for w in word_set("walk activity exercise everything normal work"))


def _cleared(text: str, subject: str) -> Retraction | None:
    """The subject (or a member, group ``m``) cleared to do a thing again, by anyone."""
    subj = _subject_pattern(subject)
    found = re.search(
        _doer_lead(subject) + r"(?:got\s+|been\s+|was\s+|were\s+)?cleared\s+(?:to|for)\s+"
        r"(?P<what>[\w-]+(?:\s+[\w-]+)?)",
        text,
        re.IGNORECASE,
    ) or re.search(
        rf"\b(?:{_PRESCRIBER})\s+(?:(?:has|just|finally|officially)\s+)*cleared\s+{subj}\s+"
        r"(?:to|for)\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)",
        text,
        re.IGNORECASE,
    )
    if found is None:
        return None
    what = re.split(r"\s+(?:again|now|today|yesterday|last|this|and|but)\b", found.group("what"))[0]
    if not content_lemmas(what, subject):
        return None
    return Retraction("ending", CLEARED, what.strip(), whose=_member(found))


def _cleared_from(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` keeps whom ``retraction`` names from what they were cleared for:
    the thing itself kept from ("can't drive"), or, for walking or activity, bed rest."""
    member = lemma(retraction.whose) if retraction.whose else None
    if _whose(fact, subject) != member or not _holds_now(fact, subject):
        return False
    kept = _KEPT_FROM.search(fact)
    if kept is None:
        return False
    wanted = set(content_lemmas(retraction.content, subject))
    have = set(content_lemmas(fact, subject))
    rested = "bed rest" in kept.group().lower() and bool(wanted & _RESTING)
    return rested or all(_kin_in(w, have) for w in wanted)


# Walking unaided: "Dad is walking on his own now" ends using a walking aid said of them
# (``MOBILITY_AIDS``), whichever it was; not walking somewhere on one's own ("is walking to
# school on his own" is no aid given up), a try, nor "walking again" (often with the aid).
UNAIDED = "walking unaided"
_UNAIDED = (
    r"(?:walking|getting\s+around)\s+(?:unaided|unassisted|independently|"
    r"on\s+(?:his|her|their|my|our)\s+own|by\s+(?:him|her|my|them)sel(?:f|ves))\b"
    r"(?!\s+(?:to|from|home|there|into|around|in|at|for|with|on|down|up|over)\b)"
    r"(?![^.;!?]*\b(?:to\s+school|to\s+work|to\s+the)\b)"
)


def _unaided(text: str, subject: str) -> Retraction | None:
    """The subject (or a member) walking without help now (``_UNAIDED``)."""
    return _doers(text, subject, _UNAIDED, UNAIDED, "walking aid")


# Military service ended: "my son finished his service", "Dad left the Navy", "was
# honorably discharged". It ends serving, being stationed or deployed, said of the same one
# now (``_SERVING``); not a shift finished, a base left, nor a discharge from a hospital.
SERVICE_ENDED = "left the service"
_BRANCH = (
    r"(?:the\s+)?(?:Army|Navy|Air\s+Force|Marines|Marine\s+Corps|Coast\s+Guard|Space\s+Force|"
    r"military|National\s+Guard|Reserves?)"  # not "the service", which may be a church's
)
_SERVICE_END = (
    r"(?:(?:finished|completed|ended)\s+(?:his|her|their|my|our)\s+(?:military\s+)?"
    r"(?:service|enlistment|tour\s+of\s+duty)"
    rf"|(?:left|retired\s+from|separated\s+from|got\s+out\s+of)\s+{_BRANCH}"
    # discharged from the service, said so: a bare "was discharged" is as often a hospital's
    rf"|(?:honorably|medically|dishonorably)\s+discharged(?:\s+from\s+{_BRANCH})?(?!\s+from\b)"
    rf"|discharged\s+from\s+{_BRANCH})"
    r"\b(?!\s+(?:base|hospital|recruiting|reserve\s+center)\b)"
)
_SERVING = re.compile(
    rf"\b(?:(?:is|are|am|'s|'m|'re|serves|serving|enlisted|works|working)\s+"
    rf"(?:now\s+|still\s+)?(?:in|with|for)\s+"
    rf"{_BRANCH}|stationed|deployed|on\s+active\s+duty|active[- ]duty)\b",
    re.IGNORECASE,
)


def _service_ended(text: str, subject: str) -> Retraction | None:
    """The subject's (or a member's) military service told as ended (``_SERVICE_END``)."""
    return _doers(text, subject, _SERVICE_END, SERVICE_ENDED, "service")


# What an ending read by ``_doers`` ends: a fact of the same one's, held now, that this
# says (``retracted``).
_ENDS_WHAT: dict[str, Callable[[str], bool]] = {
    UNAIDED: lambda fact: "mobility_aid" in slots_of(fact),  # not one kept for long distances
    SERVICE_ENDED: lambda fact: _SERVING.search(fact) is not None,
}


# Admitted where one applied: "my son got into Michigan" ends "is applying to colleges",
# "is waiting to hear back from colleges".
ADMITTED = "got into"
_APPLYING = re.compile(
    r"\b(?:applying|waiting to hear(?:\s+back)?|hoping to get in|waiting on)\s+(?:to|from|for|at|"
    r"into)\s+(?:(?:a|the|some|several|a few|[\w-]+)\s+)?(?:[\w-]+\s+)?(?:colleges?|schools?|"
    r"universit(?:y|ies)|programs?|programmes?|grad schools?|med schools?|law schools?)\b",
    re.IGNORECASE,
)


def _admitted(text: str, subject: str) -> Retraction | None:
    """The subject (or a member, group ``m``) admitted to a school or a programme."""
    found = re.search(
        _doer_lead(subject) + r"(?:got|was|were|been|just got|finally got)\s+"
        r"(?:(?:accepted|admitted)\s+(?:to|into|at)|into)\s+(?P<where>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*)",
        text,
    )
    if found is None:
        return None
    return Retraction("ending", ADMITTED, found.group("where"), whose=_member(found))


# A foster animal adopted, by the household or by someone: "we adopted Biscuit", "Biscuit
# got adopted". Either ends fostering it.
FOSTER_ENDED = "adopted"


def _foster_ended(text: str, subject: str) -> Retraction | None:
    """A named animal adopted (``FOSTER_ENDED``), as its name."""
    found = re.search(
        rf"{_doer_lead(subject)}(?:officially\s+|finally\s+)?adopted\s+(?P<name>[A-Z][a-z]+)\b"
        r"|(?:^|[.;:!?]\s*|\b(?:and|but|so)\s+|said:\s+)(?P<name2>[A-Z][a-z]+)\s+"
        r"(?:(?:finally|just|officially)\s+)?(?:got|was|has been)\s+adopted\b",
        text,
    )
    if found is None:
        return None
    name = found.group("name") or found.group("name2")
    if fold(name) == fold(subject):
        return None
    return Retraction("ending", FOSTER_ENDED, name)


# A child weaned: "weaned him last month" ends "is still breastfeeding Maya's son".
WEANED = "weaned"
_NURSING = re.compile(r"\b(?:breast-?feed(?:s|ing)?|nurs(?:es|ing)|pump(?:s|ing))\b", re.I)


def _weaned(text: str, subject: str) -> Retraction | None:
    """A child weaned by the subject or a member (group ``m``): the nursing ended."""
    found = re.search(
        _doer_lead(subject) + r"weaned\s+(?:him|her|them|the\s+(?:baby|twins)|"
        rf"(?:{_mine(subject)})\s+(?:son|daughter|baby|twins)|(?-i:[A-Z][a-z]+))\b(?!\s+off\b)",
        text,
        re.IGNORECASE,
    )
    if found is None:
        return None
    return Retraction("ending", WEANED, "nursing", whose=_member(found))


def _member(found: re.Match[str]) -> str:
    """The household member a reading's group ``m`` names (``_doer_lead``), or ""."""
    return (found.groupdict().get("m") or "").lower()


# A child's training finished: "is fully potty trained now" ends "is potty training".
TRAINED = "trained"
_TRAINING = r"(?P<kind>potty|toilet|sleep)[- ]?train"


def _trained(text: str, subject: str) -> Retraction | None:
    """A training of the subject's or a member's told as done (``_TRAINING``)."""
    found = re.search(
        _doer_lead(subject) + r"(?:(?:\w+\s+){0,2}?)" + _TRAINING + r"ed\b(?!\s+(?:for|to)\b)",
        text,
        re.IGNORECASE,
    )
    if found is None or re.search(r"\b(?:almost|nearly|not|n't|mostly)\b", found.group()):
        return None
    kind = found.group("kind").lower()
    return Retraction("ending", TRAINED, f"{kind} training", whose=_member(found))


# What a goal reached ends, by its cue: a fact of aiming at it (``lexical_match``).
_AIMED_AT = {GOAL_WEIGHT: _WEIGHT_AIMED, WEANED: _NURSING, ADMITTED: _APPLYING}


def _event_done(text: str, subject: str) -> Retraction | None:
    """An event the speaker did, in the past: "Maya ran the Boston marathon on Sunday",
    "finally passed the bar". It ends only a fact of preparing for it: the speaker's, a
    member's, or that of someone named ("my friend Priya passed the bar": ``whose`` is the
    name)."""
    did = rf"(?P<cue>{_DID_EVENT})\s+(?P<rest>.+)"
    found = re.search(_doer_lead(subject) + did, text, re.IGNORECASE)
    whose = _member(found) if found is not None else ""
    for lead, name in [] if found is not None else _named_doers(text, subject):
        found = re.search(lead + did, text, re.IGNORECASE)
        if found is not None:
            whose = name
            break
    said = without_hints(text)
    if found is None or _LONG_AGO.search(said) or re.search(r"\b(?:back in|before|once)\b", said):
        return None  # done long ago, or once before: "ran Boston back in 2019"
    content = _cut(found.group("rest"))
    # When and how it went are no part of the event: "on Sunday", "in under four hours".
    content = re.split(
        r"\s+(?:on|in|at|last|this|yesterday|today|with|after|before|for)\b", content
    )[0]
    # Which time it was is no part of it either: "ran Maya's first half marathon".
    content = re.sub(r"^(?:(?:first|second|third|1st|2nd|3rd|\d+th)\s+)(?:ever\s+)?", "", content)
    words = content_lemmas(content, subject)
    if not words or len(words) > MAX_ENDED_WORDS:
        return None
    if words[-1] not in _EVENTS and not re.fullmatch(r"(?:the\s+)?[A-Z]{2,6}", content):
        return None  # no event one trains or studies for: "finished work early"
    return Retraction("ending", EVENT_DONE, content, whose=whose)


def _named_doers(text: str, subject: str) -> list[tuple[str, str]]:
    """``_name_leads``, and the openings of someone the speaker knows, named after who they
    are to the speaker ("Maya's friend Priya", "my coworker, Dan,"), each with the name."""
    out = _name_leads(text, subject)
    for found in re.finditer(
        rf"{_CLAUSE_START}(?i:{_mine(subject)})\s+(?:(?:best|close|old|new)\s+)?"
        rf"(?i:{_OTHER_WORDS}),?\s+(?P<name>[A-Z][a-z]+)\b,?",
        text,
    ):
        out.append((rf"{re.escape(found.group(0))}(?:\s+{_AUX})*\s*", found.group("name")))
    return out


def _names(fact: str, name: str, subject: str) -> bool:
    """Whether ``fact`` is told of the person ``name`` names: it opens with the name, or
    with who they are to the speaker and the name ("Maya's friend Priya ...")."""
    if re.match(
        rf"\s*(?:{re.escape(subject)}\s+said:\s+)?{_OPENER}{re.escape(name)}\b(?!')", fact, re.I
    ):
        return True
    return _named_owner(fact, subject).split()[-1:] == [name.lower()]


def _does(retraction: Retraction, fact: str) -> bool:
    """Whether ``fact`` tells an activity done, by the last word of what was dropped:
    "does karate", "plays in the jazz band", "takes piano lessons", "is on the swim team"."""
    what = re.escape(fold(retraction.content.split()[-1])) if retraction.content else ""
    return bool(what) and (
        re.search(
            r"\b(?:does|do|doing|plays|play|playing|takes|take|taking|practices|practice|"
            r"is in|are in|is on|are on|goes to|go to|attends|attend|sings in|dances)\s+"
            rf"(?:[\w'-]+\s+){{0,3}}?{what}s?\b",
            fold(fact),
        )
        is not None
    )


def _prepared_for(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` tells the subject preparing, now, for the event ``retraction`` says
    was done: each of its words is in what the fact prepares for."""
    if _LEARNING_TO_DRIVE.search(fact) and re.search(r"\bdriv", retraction.content, re.I):
        return _holds_now(fact, subject)  # "passed her driving test" ends learning to drive
    found = _PREPARING.search(fact)
    if found is None or not _holds_now(fact, subject):
        return False
    done = set(content_lemmas(retraction.content, subject))
    return bool(done) and done <= set(content_lemmas(found.group("what"), subject))


_PARTNER_WORDS = "wife|husband|hubby|partner|girlfriend|boyfriend|spouse|fianc[eé]e?"
PARTED = "broke up with"
# A couple parting, said of both: not "split up the chores".
_PARTED = (
    r"(?:just\s+|finally\s+|have\s+|had\s+|are\s+|were\s+|got\s+|'ve\s+|'re\s+)*"
    r"(?P<cue>broke up|split up|separated|got divorced|divorced|getting divorced|"
    r"called it quits|(?<=are )(?:done|over)(?=\s*(?:[.;!,]|$|for good|for real)))\b"
    r"(?!\s+(?:the|a|an|our|my|their|his|her|its|into)\b)"
)


# A word before a plan or a group that is no possessive: "my son's band" is the son's.
_NOT_WHOSE = r"(?![\w-]+(?:'s|s')\s)"
# Plans that are called off: "the trip is off", "our wedding got cancelled".
CALLED_OFF = "called off"
_PLANS = (
    r"trip|vacation|holiday|wedding|marathon|race|party|move|surgery|operation|procedure|"
    r"visit|cruise|honeymoon|reunion|tour|camp|retreat|conference|tournament|competition|"
    r"concert|show|deal|sale|closing|plans?|engagement|adoption|renovation|remodel"
)
_CALLED_OFF = re.compile(
    rf"{{start}}(?:the|my|our|{{mine}})\s+(?P<what>(?:{_NOT_WHOSE}[\w'-]+\s+){{{{0,2}}}}?(?:{_PLANS})"
    r"(?:\s+(?:to|in|for|with)\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)?)"
    r"\s+(?:(?:got|was|were|has\s+been|have\s+been|had\s+been|is|are|'s)\s+)"
    r"(?:now\s+|officially\s+|just\s+|totally\s+)?"
    r"(?P<cue>cancell?ed|called off|off)(?=\s*(?:[,.;!?]|$)|\s+(?:now|for good|because|since|"
    r"after|so|and|but)\b)"
)


# A state of the subject's that ran its course: "my probation ended", "the lease expired".
OVER = "over"
_OVER = re.compile(
    r"{start}(?:(?:the|my|our|{mine})\s+)?(?P<what>(?:"
    + _NOT_WHOSE
    + r"[\w'-]+\s+){{0,2}}?(?:probation|"
    r"parole|lease|contract|sentence|suspension|restraining order|protective order|leave|"
    r"subscription|membership|warranty|visa|insurance|coverage|prescription|treatment|residency|"
    r"internship|fellowship|apprenticeship|deployment|assignment|sabbatical|furlough|quarantine|"
    r"bed rest|lawsuit|bankruptcy|diet|cleanse|detox|whole\s?30|challenge|remodel|renovation|"
    r"reno|construction|divorce|custody battle|move))\s+"
    r"(?:(?:has|have|had|just|finally|officially)\s+)*"
    r"(?P<cue>ended|expired|is over|was over|ran out|came to an end|wrapped up|lapsed|"
    r"(?:is|was)\s+(?:finally\s+|officially\s+|all\s+|completely\s+)?(?:done|finished|"
    r"complete|completed|final|finalized))\b"
    # not "over the top", "over $2,000", "ended up"
    r"(?!\s+(?:the|a|an|my|our|her|his|their|it|there|here|budget|up|\$|\d))"
)
# An illness or a pest gone: "my sinus infection is gone", "the UTI cleared up".
GONE = "gone"
_GONE = re.compile(
    r"{start}(?:(?:the|my|our|his|her|{mine})\s+)(?P<what>(?:" + _NOT_WHOSE + r"[\w'-]+\s+){{0,2}}?"
    r"[\w'-]+)\s+(?:(?:is|are|has|have)\s+)?(?:(?:finally|completely|totally|all|now)\s+)*"
    r"(?P<cue>gone|cleared up|went away|resolved)\b(?!\s+(?:to|from|for|with|out|off)\b)"
)
# A group the subject is part of, ended: "the band broke up", "our book club folded".
_DISBANDED = re.compile(
    r"{start}(?:the|my|our|{mine})\s+(?P<what>(?:"
    + _NOT_WHOSE
    + r"[\w'-]+\s+){{0,2}}?(?:band|choir|"
    r"club|team|league|"
    r"group|troupe|quartet|trio|ensemble|crew))\s+(?:(?:has|have|had|just|finally)\s+)*"
    r"(?P<cue>broke up|split up|disbanded|folded|dissolved|fell apart|called it quits)\b"
)


GROUP_ENDED = "disbanded"
# A group liked, not one belonged to: "Maya's favorite band is Queen".
_LIKED = re.compile(r"\b(?:favou?rite|loves?|likes?|enjoys?|listens?\s+to|fan\s+of)\b", re.I)
_A_GROUP = re.compile(
    r"\b(?:band|choir|club|team|league|group|troupe|quartet|trio|ensemble|crew|orchestra)s?\b",
    re.IGNORECASE,
)


def _called_off(text: str, subject: str) -> Retraction | None:
    """A plan of the subject's called off, said of the plan: "the trip to Japan is off",
    "our wedding got cancelled"; or a group of theirs ended ("the band broke up"). Only
    plans (``_PLANS``) and groups: "the TV is off" ends nothing."""
    mine = f"{re.escape(subject)}'s"
    start = _CLAUSE_START + r"(?:(?:sadly|unfortunately|so|well|anyway|apparently|also)[,\s]+)?"
    found = re.search(
        _CALLED_OFF.pattern.format(start=start, mine=mine), text, re.IGNORECASE
    ) or re.search(_DISBANDED.pattern.format(start=start, mine=mine), text, re.IGNORECASE)
    # A group of the speaker's by its name: "The Owls broke up" (``GROUP_ENDED``).
    named = re.search(
        rf"{start}(?P<what>(?-i:The\s+[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*){{0,2}}))\s+"
        r"(?:(?:has|have|had|just|finally|officially)\s+)*"
        r"(?:broke up|split up|disbanded|folded|dissolved|called it quits)\b",
        text,
        re.IGNORECASE,
    )
    if found is None and named is not None:
        return Retraction("ending", GROUP_ENDED, _cut(named.group("what")))
    over = re.search(_OVER.pattern.format(start=start, mine=mine), text, re.IGNORECASE)
    gone = re.search(_GONE.pattern.format(start=start, mine=mine), text, re.IGNORECASE)
    found = found or over or gone
    if found is None:
        return None
    content = _cut(found.group("what"))
    if not content or len(content_lemmas(content, subject)) > MAX_ENDED_WORDS:
        return None
    cue = GONE if found is gone else OVER if found is over else CALLED_OFF
    return Retraction("ending", cue, content)


def _split_up(text: str, subject: str) -> Retraction | None:
    """A couple the subject is one of, parted: "Tom and Maya split up", "Maya and Maya's
    wife Priya are getting divorced", "Maya's boyfriend and Maya broke up". What ends is
    the partner, by name where one is said, else by the partner word."""
    subj = _subject_pattern(subject)
    partner = (
        rf"(?:{subj}'s\s+(?:{_PARTNER_WORDS})(?:,?\s+(?P<n1>[A-Z]\w+),?)?|(?P<n2>[A-Z]\w+)|"
        rf"(?:{subj}'s\s+)?(?:(?:ex-?|former\s+)?(?:{_PARTNER_WORDS}))\s+(?P<n3>[A-Z]\w+))"
    )
    couples = (rf"{partner}\s+and\s+{subj}", rf"{subj}\s+and\s+{partner}")
    found = next(
        (f for c in couples if (f := re.search(rf"{_CLAUSE_START}{c}\s+{_PARTED}", text))), None
    )
    if found is None:
        return None
    name = found.group("n1") or found.group("n2") or found.group("n3")
    if name is None:
        word = re.search(_PARTNER_WORDS, found.group(0), re.IGNORECASE)
        name = word.group(0).lower() if word else None
    if name is None or fold(name) == fold(subject):
        return None
    return Retraction("ending", PARTED, name)


# Someone named as chat may type it, in lower case ("my brother and kim broke up"): a word
# that is no function word nor a word for a person (``_someone_else``) is read as a name.
_NAME_TYPED = r"(?:[A-Z][a-z]+|[a-z]{2,})"


def _member_split_up(text: str, subject: str) -> Retraction | None:
    """A household member and someone named, parted ("Maya's brother and Kim broke up",
    "Kim and Maya's son split up", the name typed in lower case too): the ending of the
    member's relationship with them, as "Maya's brother broke up with Kim" says it."""
    member = rf"(?i:{_mine(subject)})\s+(?P<m{{0}}>(?i:{_KIN_WORDS}))(?:,?\s+[A-Z][a-z]+,?)?"
    found = re.search(
        rf"{_CLAUSE_START}(?:{member.format(1)}\s+and\s+(?P<n1>{_NAME_TYPED})|"
        rf"(?P<n2>{_NAME_TYPED})\s+and\s+{member.format(2)})\s+{_PARTED}",
        text,
    )
    if found is not None:
        name = _someone_else(found.group("n1") or found.group("n2"), subject)
        member = (found.group("m1") or found.group("m2")).lower()
        return Retraction("ending", PARTED, f"{member} {name}") if name else None
    # "he" or "she" for the member the sentence opens with ("Maya's brother was
    # heartbroken, he and Kim broke up"), read as ``_pronoun_leads`` reads it
    for lead, who in _pronoun_leads(text, subject):
        if not re.fullmatch(_KIN_WORDS, who, re.IGNORECASE):
            continue  # someone named who is no member
        found = re.search(rf"{lead}and\s+(?P<n>{_NAME_TYPED})\s+{_PARTED}", text)
        name = _someone_else(found.group("n"), subject) if found is not None else ""
        if name:
            return Retraction("ending", PARTED, f"{who} {name}")
    return None


def parted(retraction: Retraction | None, fact: str, subject: str) -> str:
    """``fact`` as a parting leaves it told: the partner it names by their relation to
    ``subject`` named alone ("Maya's husband Tom is a teacher" -> "Tom is a teacher"), and
    living with them dropped ("Maya lives in Chicago with Maya's wife Priya" -> "Maya
    lives in Chicago."). Any other ``retraction`` leaves ``fact`` as it is."""
    if retraction is None or retraction.cue != PARTED or not retraction.content[:1].isupper():
        return fact
    me = re.escape(subject)
    mine = rf"{me}'s\s+(?:{_PARTNER_WORDS}),?\s+"
    who = re.escape(retraction.content)
    flags = re.IGNORECASE
    with_them = rf",?\s+(?:together\s+)?with\s+{mine}{who}\b(?:\s+and\s+(?:his|her|their)\s+\w+)?,?"
    told = re.sub(with_them, "", fact, flags=flags)
    # "Maya's boyfriend Sam and Maya live together in Austin" -> "Maya lives in Austin".
    both = rf"(?:{mine}{who}\s+and\s+{me}|{me}\s+and\s+{mine}{who})\s+live\s+(?:together\b\s*)?"
    told = re.sub(both + r"(?=in\s+[A-Z])", f"{subject} lives ", told, flags=flags)
    told = re.sub(both + r"[^.;!?]*[.;!?]?", "", told, flags=flags)
    told = re.sub(rf"\b{mine}({who})\b,?", r"\1", told, flags=flags)
    # Living said of no one left ("Maya lives."): it ended with the parting.
    kept = [
        s for s in split_sentences(told) if not re.fullmatch(rf"{me}\s+lives?[.!?]?", s.strip())
    ]
    return " ".join(kept) if kept else fact


def _partner_told(retraction: Retraction, fact: str) -> bool:
    """Whether ``fact`` tells the partner a parting names as the partner: "wife Priya",
    "a boyfriend named Tom", or the partner word itself when no name was said."""
    who = re.escape(retraction.content)
    if retraction.content[:1].islower():
        return re.search(rf"\b{who}\b", fact, re.IGNORECASE) is not None
    told = rf"\b(?:{_PARTNER_WORDS}),?\s+(?:(?:named|called)\s+)?{who}\b"
    return re.search(told, fact, re.IGNORECASE) is not None


# What is worn for an injury or after surgery, and comes off when it has healed.
_WORN = (
    r"cast|braces|brace|boot|sling|splint|stitches|staples|sutures|catheter|drain|"
    r"feeding tube|neck brace|walking boot|eye patch"
)


# A part of the body healed ends the injury said of it: "Maya's wrist has healed", "the
# fracture healed completely"; only a fact that states an injury or its treatment
# (``_INJURED``), so "Maya's wrist healed" does not end "Maya wears a watch on her wrist".
HEALED = "healed"
# What heals as an injury does: parts of the body an injury is said of, and the injuries.
_BODY_PARTS = (
    "wrist", "ankle", "knee", "arm", "leg", "foot", "feet", "hand", "finger", "toe", "thumb",
    "shoulder", "elbow", "hip", "back", "neck", "rib", "collarbone", "jaw", "nose", "tooth",
    "shin", "hamstring", "achilles", "tendon", "ligament", "acl", "meniscus", "head", "eye",
    "lip", "chin",
)  # fmt: skip
_HEALS = frozenset((
    *_BODY_PARTS, "bone", "skin", "fracture", "break", "sprain", "strain", "tear", "cut",
    "burn", "wound", "incision", "stitches", "scar", "bruise", "blister", "rash",
))  # fmt: skip
# The parts of the body among them: a treatment that names one is of that part.
_BODY = frozenset(lemma(w) for w in _BODY_PARTS)
# What an injury is treated with until it heals: "is in a cast", "on crutches".
_TREATED_WITH = re.compile(
    r"\b(?:in|wears?|wearing|has|have|got)\s+(?:a|an|the)\s+(?:[\w-]+\s+)?"
    r"(?:cast|sling|splint|brace|boot)\b|\bon\s+crutches\b|\b(?:has|have|got)\s+stitches\b",
    re.IGNORECASE,
)
_INJURED = re.compile(
    r"\b(?:broke|broken|fractur\w*|sprain\w*|torn|tore|tear|strain\w*|injur\w*|hurt|"
    r"cast|brace|boot|sling|splint|stitches|wound|burn\w*|surgery|dislocat\w*|bruised|"
    r"twist(?:ed)?|pulled|jammed)\b",
    re.IGNORECASE,
)


def _healed(text: str, subject: str) -> Retraction | None:
    """A part of the speaker's body, or of a household member's, healed ("Maya's wrist has
    healed completely", "Maya's son's arm healed", "the sprain healed"): its content is
    the part (with the member's word)."""
    # The owner unsaid at the start, as chat drops it ("wrist is finally healed"): the
    # speaker's, as "the wrist" is.
    said = rf"|{re.escape(subject)}\s+said:\s+" if subject else ""
    # Someone else's, by a pronoun ("his leg has healed": whose, ``_pronoun_owner``) or by a
    # name ("Tom's leg healed").
    other = r"|\b(?P<p>his|her)\s+|(?-i:\b(?P<n>[A-Z][a-z]+))'s\s+"
    owner = rf"(?:\b(?:{_mine(subject)}|the)\s+|^{said}{other})(?:(?P<m>{_KIN_WORDS})'s\s+)?"
    found = re.search(
        rf"{owner}(?P<part>[a-z]+)\s+(?:(?:has|have|had|is|are|was|were)\s+)?"
        r"(?:now\s+|finally\s+|fully\s+|completely\s+|all\s+)?healed\b(?!\s+(?:over|into))",
        text,
        re.IGNORECASE,
    )
    if found is None or _IN_PASSING.search(text[: found.start()]):
        return None
    part = found.group("part").lower()
    if part not in _HEALS and part.removesuffix("s") not in _HEALS:
        return None  # "Maya's heart has healed" after a breakup: no injury
    member = (found.group("m") or "").lower() or _someone_else(found.group("n"), subject)
    pronoun = "" if member else (found.group("p") or "").lower()
    return Retraction("ending", HEALED, f"{member} {part}".strip(), whose=pronoun)


# Who prescribes a drug, and so may stop it.


def _taken_off(text: str, subject: str) -> Retraction | None:
    """A drug the subject was taken off by whoever did it ("the doctor took Maya off
    metformin"), or what the subject wore for an injury come off ("the cast came off",
    "Maya's stitches came out")."""
    subj = _subject_pattern(subject)
    found = re.search(
        rf"\b(?:took|taken|weaned|tapered)\s+{subj}\s+off\s+(?P<rest>.+)", text, re.IGNORECASE
    )
    # ... or stopped it, or told the subject to ("Maya's cardiologist stopped the Eliquis",
    # "the doctor told Maya to stop the ibuprofen"): a drug of the resource's
    # (``kb.drug_names``), so "the coach stopped the game" ends nothing; a dose cut back
    # or down is a new dose, not an ending.
    # Not someone else's doctor ("Raj's doctor stopped his metformin": below).
    found = found or re.search(
        rf"\b(?:{_mine(subject)}\s+|the\s+|(?<!'s\s))(?:{_PRESCRIBER})\s+(?:(?:has|just|finally)\s+)*"
        rf"(?:(?:told|asked|advised|instructed|wants?)\s+{subj}\s+to\s+)?"
        r"(?P<stop>stopped|discontinued|cancell?ed|cut|stop|discontinue|quit|come off|get off)"
        rf"\s+(?!back\b|down\b)(?:taking\s+)?(?:the\s+|{subj}'s\s+|my\s+)?(?P<rest>.+)",
        text,
        re.IGNORECASE,
    )
    person = ""
    if found is None:
        # A member's or someone named's doctor: "Mom's cardiologist took her off Eliquis".
        found = re.search(
            rf"\b(?:(?P<n>(?-i:[A-Z][a-z]+))'s|{_mine(subject)}\s+(?P<m>{_KIN_WORDS})'s)\s+"
            rf"(?:{_PRESCRIBER})\s+(?:(?:has|just|finally)\s+)*(?:(?:took|taken|weaned|tapered)"
            r"\s+(?:him|her|them)\s+off|(?P<stop>stopped|discontinued)\s+(?:his|her|their|the))"
            r"\s+(?P<rest>.+)",
            text,
            re.IGNORECASE,
        )
        if found is None:
            # Anyone taking a member off a drug, or stopping the member's drug: "we took my
            # son off Ritalin", "they took Grandpa off warfarin", "we stopped Leo's inhaler".
            found = re.search(
                rf"\b(?:(?:took|taken|weaned|tapered)\s+(?:{_mine(subject)}\s+(?P<m>{_KIN_WORDS})"
                rf"(?:\s+(?-i:[A-Z][a-z]+))?|(?P<n>(?-i:[A-Z][a-z]+)))\s+off|"
                rf"(?P<stop>stopped|discontinued)\s+(?:{_mine(subject)}\s+(?P<m2>{_KIN_WORDS})|"
                r"(?P<n2>(?-i:[A-Z][a-z]+)))'s)\s+(?P<rest>.+)",
                text,
                re.IGNORECASE,
            )
        if found is not None:
            named = found.groupdict().get("n") or found.groupdict().get("n2")
            member = found.group("m") or found.groupdict().get("m2")
            person = _person(member, named, subject)
            found = found if person else None
        pronoun = re.search(
            r"\b(?:took|taken|weaned|tapered)\s+(?P<pro>him|her)\s+off\s+(?P<rest>.+)", text, re.I
        )
        if found is None and pronoun is not None:
            # "we took him off Ritalin": a drug of whom the pronoun stands for
            content = _cut(pronoun.group("rest"))
            if content and set(content_lemmas(content, subject)) & _drug_lemmas():
                whose = "his" if pronoun.group("pro").lower() == "him" else "her"
                return Retraction("ending", "taken off", content, whose=whose)
    if found is not None:
        content = _cut(found.group("rest"))
        # What a prescriber stopped must be a drug, and so must what a member was taken off;
        # what the subject was taken off is one.
        stopped = found.groupdict().get("stop") is not None or bool(person)
        drug = not stopped or bool(set(content_lemmas(content, subject)) & _drug_lemmas())
        # "His doctor stopped his metformin": a drug of whom the pronoun stands for.
        before = text[: found.start()] if not person else ""
        owner = re.match(r"\s*(?i:(his|her))\s", found.group("rest")) or re.search(
            r"\b(?i:(his|her))\s+$", before
        )
        whose = owner.group(1).lower() if owner else ""
        if (
            drug
            and content
            and not _NOT_TAKEN.match(content)
            and len(content.split()) <= MAX_ENDED_WORDS
        ):
            return Retraction("ending", "taken off", f"{person} {content}".strip(), whose=whose)
    found = re.search(
        rf"(?:^|[.;:!?]\s*|\b(?:and|but|so|finally)\s+)(?:the|{subj}'s|my)\s+(?P<thing>{_WORN})"
        r"\s+(?:(?:finally|just|has|have|was|were|got|is|are)\s+)*(?:came|come|taken|removed)"
        r"(?:\s+(?:off|out))?\b",
        text,
        re.IGNORECASE,
    )
    if found is not None:
        return Retraction("ending", "came off", found.group("thing").lower())
    # "Maya's daughter got her braces off": the member's, someone named's ("Ava got her
    # cast off"), or the speaker's own.
    found = re.search(
        rf"(?:^|[.;:!?]\s*|\b(?:and|but|so|finally)\s+)(?:(?i:{_mine(subject)})\s+"
        rf"(?P<m>(?i:{_KIN_WORDS}))\s+|{subj}\s+|(?P<n>(?-i:[A-Z][a-z]+))\s+)"
        r"(?:(?:finally|just)\s+)*got\s+"
        rf"(?:her|his|their|my|{subj}'s)\s+(?P<thing>{_WORN})\s+(?:taken\s+)?(?:off|out|removed)\b",
        text,
        re.IGNORECASE,
    )
    if found is not None:
        named = found.group("n")
        member = (found.group("m") or "").lower() or _someone_else(named, subject)
        if named and not member:
            return None  # "So got her cast off": whose is not said
        return Retraction("ending", "came off", f"{member} {found.group('thing').lower()}".strip())
    return None


def _member_leads(text: str, subject: str) -> list[tuple[str, str]]:
    """The clause openings of a household member of the speaker's in ``text`` ("Maya's
    son", "my husband"), each with the member's word."""
    found = re.search(
        rf"{_CLAUSE_START}(?:{INTERJECTION}[,:!.]*\s+)*"  # "omg my mom ..."
        rf"(?i:{_mine(subject)})\s+(?i:(?P<m>{_KIN_WORDS}))\b"
        r"(?:,?\s+(?P<name>[A-Z][a-z]+)\b,?)?",  # "my son Theo", "my wife, Ana,"
        text,
    )
    if found is None:
        return []
    lead = rf"{re.escape(found.group(0))}(?:\s+{_AUX})*\s*"
    # A second verb of theirs after "and": "my son did allergy shots and isn't allergic
    # to dogs anymore".
    after_and = rf"{re.escape(found.group(0))}\s+[^.;!?]*?\band\s+(?:{_AUX}\s*)*"
    member = found.group("m").lower()
    return [(lead, member), (after_and, member)]


def _other_owner(phrase: str, subject: str) -> str:
    """Whose a thing ended is, when not the speaker's: the household member's word or the
    name that owns ``phrase`` ("my son's Ritalin" -> "son", "Tom's gym membership" ->
    "Tom"); "" for the speaker's own ("my Ritalin", "Maya's car")."""
    found = re.match(
        rf"\s*(?:(?i:{_mine(subject)})\s+(?P<m>(?i:{_KIN_WORDS}))(?:\s+[A-Z][a-z]+)?|"
        r"(?P<n>[A-Z][a-z]+))'s\s",
        phrase,
    )
    return "" if found is None else _person(found.group("m"), found.group("n"), subject)


def _person(member: str | None, named: str | None, subject: str) -> str:
    """Who a clause names besides the speaker: the member's word ("son"), a name that is
    the household's word for someone ("Grandpa" -> "grandpa"), or someone else's name
    ("Tom"); "" for the speaker or no one."""
    if not member and named and re.fullmatch(_KIN_WORDS, named, re.IGNORECASE):
        member = named
    return (member or "").lower() or _someone_else(named, subject)


def _someone_else(name: str | None, subject: str) -> str:
    """``name`` when it names someone other than the speaker ("Raj"), else "": not the
    speaker's own name, a function word that opens a sentence ("The") or a word for a
    person ("Mom")."""
    if not name or fold(name) == fold(subject) or name.lower() in _FUNCTION | _PEOPLE:
        return ""
    return name


def _name_leads(text: str, subject: str) -> list[tuple[str, str]]:
    """The clause openings of someone the speaker names ("Theo outgrew ...", "Good news,
    Theo ..."), each with the name: their ending ends only a fact that names them."""
    out = []
    for found in re.finditer(rf"{_CLAUSE_START}(?P<name>[A-Z][a-z]+)\b(?!')", text):
        name = found.group("name")
        if not _someone_else(name, subject):
            continue
        out.append((rf"{re.escape(found.group(0))}(?:\s+{_AUX})*\s*", name))
    return out


# Whom a later "she" or "he" of the same sentence may stand for: the person the sentence
# opens with, after a lead-in ("Great news, "), named or a member of the speaker's
# ("Lily ...", "Maya's son ..."), or whose doctor speaks of them ("Lily's allergist said").
_LEAD_IN = r"(?:[\w-]+\s+said:\s+)?(?:(?:\w+\s+){0,2}?\w+,\s+)?"
_SPOKE = r"\s+(?:said|says|thinks|confirmed|told\s+(?:us|me|[A-Z][a-z]+))(?:\s+that)?"


def _pronoun_leads(text: str, subject: str) -> list[tuple[str, str]]:
    """The clause openings "she" and "he" of someone the sentence opens with ("Lily saw
    the allergist and she outgrew her milk allergy": Lily; "Maya's son had his food
    challenge and he ..."), each with the member's word or the name, as ``_member_leads``
    and ``_name_leads`` give them. None when the sentence names anyone else before the
    pronoun (a name, a relation, another pronoun: whom it stands for is unsure), when the
    opener is the speaker, or when the pronoun cannot be the member's ("he" of a daughter).
    """
    out = []
    opener = re.compile(
        rf"{_LEAD_IN}(?:(?i:{_mine(subject)})\s+(?P<m>(?i:{_KIN_WORDS}))(?:,?\s+[A-Z][a-z]+\b,?)?"
        r"|(?P<n>[A-Z][a-z]+)\b)"
        rf"(?P<doc>'s\s+(?:{_PRESCRIBER}|allergist|pediatrician|therapist|nurse){_SPOKE})?"
    )
    pronoun = rf"(?:{_CLAUSE_START}|\b(?:said|says|thinks|confirmed|that)\s+)(?P<p>she|he)\b(?!-)"
    for found in re.finditer(pronoun, text, re.IGNORECASE):
        start = max(text.rfind(mark, 0, found.start("p")) for mark in ".;!?")
        sentence = text[start + 1 : found.start("p")].lstrip()
        if not sentence and start > 0:
            # The pronoun opens its sentence: whom the one before opens with ("Lily had
            # her allergy test today. She outgrew ..."), if it names no one else.
            before = max(text.rfind(mark, 0, start) for mark in ".;!?")
            sentence = text[before + 1 : start].lstrip()
        opens = opener.match(sentence)
        if opens is None:
            continue
        between = sentence[opens.end() :]
        if opens.group("doc"):
            if between.strip(" ,"):
                continue  # only what the doctor said of them: "Lily's allergist said she"
        elif re.search(
            rf"\b[A-Z][a-z]+\b|'s\b|\b(?i:he|she|they|him|them|we|us|{_KIN_WORDS})\b", between
        ):
            continue  # someone else named before the pronoun: whom it stands for is unsure
        she = found.group("p").lower() == "she"
        if re.search(r"\bhis\b" if she else r"\bher\b", between, re.IGNORECASE):
            continue  # "Lily asked his dad and she ...": another's
        member = (opens.group("m") or "").lower()
        if member and (member in (HE_KIN if she else SHE_KIN)):
            continue  # "my son ... she": not the son
        who = member or _someone_else(opens.group("n"), subject)
        if who:
            lead = rf"{re.escape(found.group(0))}(?:'s|\s+{_AUX})*\s*"
            out.append((lead, who))
    return out


# A food (or a drug) the subject can have again ends an allergy or an intolerance to it:
# "Leo can eat eggs now", "Maya can have dairy again", "Maya can take amoxicillin now",
# "Leo passed his egg challenge" (the food challenge an allergist gives). It ends only a
# fact that states one (``_AVOIDS``): "Leo can eat eggs now" does not end "Leo loves eggs".
TOLERATES = "can have"
# Sober: drinking alcohol ended ("has been sober for a year"), not any drink.
SOBER = "sober"
_ALCOHOL = re.compile(
    r"\b(?:alcohol|wine|beers?|liquor|whiske?y|vodka|gin|rum|tequila|bourbon|scotch|cocktails?|"
    r"booze|margaritas?|sake|hard seltzers?|drinks? (?:a lot|heavily|socially|on weekends)|"
    r"(?:a|the) drinker|(?:heavy|social) drinker)\b",
    re.IGNORECASE,
)
# A job found: the search for one, or being without one, ended ("landed a job at ...").
JOB_FOUND = "job found"
_JOBLESS = re.compile(
    r"\b(?:job[\s-]?hunting|job[\s-]?searching|looking for (?:a\s+)?(?:new\s+)?(?:job|work)|"
    r"unemployed|out of work|between jobs|applying (?:for|to) jobs|on unemployment)\b",
    re.IGNORECASE,
)
# What follows "job" when no job is had yet: "a job interview", "started a new job search".
_NO_JOB_YET = "interview|fair|search|hunt|application|posting|listing|board|lead|ad|offer"
# A thing got back: its being away (suspended, in the shop, lost ...) ended.
GOT_BACK = "got back"
_AWAY = re.compile(
    r"\b(?:suspended|revoked|taken away|confiscated|lost|stolen|impounded|towed|in the shop|"
    r"at the (?:shop|mechanic|garage)|in for repairs?|being (?:repaired|fixed)|broken|on loan|"
    r"borrowed|lent)\b",
    re.IGNORECASE,
)
# Caught up: being behind on it ended.
CAUGHT_UP = "caught up on"
# In remission: a cancer (or another disease that remits) no longer active.
REMISSION = "in remission"
_REMITS = re.compile(
    r"\b(?:cancer|leukemia|leukaemia|lymphoma|myeloma|melanoma|carcinoma|sarcoma|tumou?r|"
    r"hodgkin'?s|crohn'?s|colitis|lupus)\b",
    re.IGNORECASE,
)
# Back at work: a leave, or time out of work, ended ("is on maternity leave until April").
BACK_AT_WORK = "back at work"
_AWAY_FROM_WORK = re.compile(
    r"\bon\s+(?:[\w-]+\s+){0,2}?(?:leave|furlough|disability)\b|\b(?:off|out of)\s+work\b|"
    r"\bfurloughed\b|\bbetween jobs\b|\bunemployed\b|"
    # retired: back at work, part-time or not, ends it ("went back to work at the library")
    r"\b(?:is|am|are|'m|'re|was|were|been|now|fully)\s+retired\b(?![- ](?:from\s+the\s+)?"
    r"(?:army|navy|military|air force|marines|police|force|service|nfl|nba))|\bretirees?\b|"
    # at home with the children instead of at work
    r"\bstay(?:s|ing)?[- ]at[- ]home\s+(?:mom|mum|dad|parent|mother|father)\b|"
    r"\bstay(?:s|ing)?\s+(?:at\s+)?home\s+(?:full[- ]time\s+)?with\s+(?:the|my|our|[\w-]+'s)\s+"
    r"(?:kids|children|baby|babies|twins|little ones|son|daughter)\b(?!\s+(?:today|tonight|"
    r"this|on|when|while|until)\b)|\bhomemaker\b|\bfull[- ]time\s+(?:mom|mum|dad|parent)\b",
    re.IGNORECASE,
)
_TOLERATED = (
    r"(?:can\s+(?:finally\s+)?(?:eat|have|drink|tolerate|take)\s+(?P<what>[\w' -]+?)\s+"
    r"(?:now(?!\s+and\s+then)|again|after all)\b"
    r"|can\s+now\s+(?:eat|have|drink|tolerate|take)\s+(?P<what2>[\w' -]+?)(?=\s*(?:[,.;!?]|$))"
    # "eats gluten again", "is drinking milk again": had as before
    r"|(?:eats|eat|eating|drinks|drink|drinking)\s+(?P<what4>[\w' -]+?)\s+again\b"
    r"|passed\s+(?:[\w-]+'s|my|his|her|their|the|an?)\s+(?P<what3>[\w-]+(?:\s+[\w-]+)?)\s+"
    r"(?:food\s+|oral\s+)?challenge)"
)
# Left out of what one eats ("a gluten-free diet", "is dairy-free"), not a thing made so.
_FREE_OF = (
    r"[- ]free\b(?!\s+(?:snacks?|options?|menu|bakery|restaurant|brownies|cookies|cake|bread|"
    r"pasta|version|recipes?|treats?|products?|food|foods)\b)"
)
_AVOIDS = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|sensitiv\w*|celiac|coeliac|anaphyla\w*|avoids?|"
    r"(?:can't|cannot|can not)\s+(?:eat|have|drink|tolerate))\b"
    # a diet without it: "is on a gluten-free diet", "is dairy-free"
    r"|\b(?:gluten|dairy|lactose|nut|peanut|egg|soy|wheat|sugar|shellfish)" + _FREE_OF,
    re.IGNORECASE,
)


_DEBT = re.compile(
    r"\b(?:owes?|owing|loans?|debts?|mortgage|balance|payments?|financed|financing|"
    r"credit cards?|installments?|borrowed)\b",
    re.IGNORECASE,
)
_DEBT_WORDS = frozenset(lemma(w) for w in ("loan", "loans", "debt", "debts", "balance", "off"))


_OWING = re.compile(
    r"\b(?:has|have|had|owes?|owing|in|carr(?:y|ies|ying))\b[^.;!?]*\b(?:debt|loans?|balance)\b|"
    r"\bpaying\s+(?:off|down)\b",
    re.IGNORECASE,
)


def _paid_off(text: str, subject: str) -> Retraction | None:
    """A thing of the speaker's said as paid off ("the car is finally paid off", "Maya's
    student loans are paid off"), or the speaker as free of debt ("Maya is officially debt
    free"): the debt for it ended, as "paid off the car" says."""
    found = re.search(
        rf"\b(?:the|{_mine(subject)})\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)\s+"
        r"(?:is|are)\s+(?:(?:now|finally|officially|all|fully)\s+)*paid\s+off\b"
        rf"|\b(?:{_subject_pattern(subject)}|we)(?:\s+and\s+family)?\s+(?:is|are|am|'m|'re)\s+"
        r"(?:(?:now|finally|officially|completely|totally)\s+)*(?P<free>debt)[- ]free\b",
        text,
        re.IGNORECASE,
    )
    if found is None or _IN_PASSING.search(text[: found.start()]):
        return None
    if found.group("free"):
        return Retraction("ending", "free", "debt")
    return Retraction("ending", "paid off", found.group("what"))


def _avoided(fact: str, things: set[str]) -> bool:
    """Whether ``fact`` states an allergy, an intolerance or an avoidance of one of
    ``things`` (lemmas): "allergic to ibuprofen", "a penicillin allergy", "avoids gluten";
    not "takes Claritin for allergies"."""
    words = _words(fact)
    for i, word in enumerate(words):
        if _AVOIDS.fullmatch(word) or (word in ("can't", "cannot") and i + 1 < len(words)):
            near = words[max(0, i - 1) : i] + words[i + 1 : i + 4]
            if any(_lemma(w) in things for w in near):
                return True
    return False


# A state of the subject's ended, said the way people say it: (pattern after the lead, cue,
# content). A content of None is the pattern's group "what", cut as a phrase.
# Home again from a trip or a posting: "I'm back from Italy", "came home from deployment".
RETURNED = "back from"
_AWAY_FROM_HOME = re.compile(
    r"\b(?:on\s+(?:(?:a|an|the|our|my|his|her|their)\s+)?(?:[\w-]+\s+)?(?:vacation|trip|holiday|"
    r"deployment|tour|cruise|honeymoon|retreat)|travell?ing|deployed|abroad|overseas|"
    # a visit away: "is visiting her sister in Florida" (not "loves visiting the zoo")
    r"(?:is|are|'s|'re)\s+(?:(?:still|currently)\s+)?visiting)\b",
    re.IGNORECASE,
)
# Words for being away that name no place: "back from vacation" ends any of them.
_TRIP_WORDS = frozenset(
    lemma(w)
    for w in word_set(
        "vacation trip holiday deployment tour cruise honeymoon travels travel abroad"
    )
)
_STATE_ENDINGS: tuple[tuple[str, str, str | None], ...] = (
    (
        r"(?:(?:is|am|are|'s|'m|'re)\s+(?:finally\s+|now\s+|safely\s+)?(?:back|home)|"
        r"(?:got|came|flew|made it)\s+(?:back|home)|returned)\s+from\s+"
        # a place by its name, or a trip ("from Lisbon", "from deployment"), not "from college"
        r"(?P<what>(?:(?:my|our|his|her|their|the|a)\s+)?(?:(?-i:[A-Z])[^,.;!?]*?|(?:[\w-]+\s+)?"
        r"(?:vacation|trip|holiday|deployment|tour|cruise|honeymoon|retreat|travels)\b[^,.;!?]*?))"
        r"(?=\s+(?:with|and|but|after|for|to|last|this|yesterday|today|tonight)\b|\s*[,.;!?]|\s*$)",
        RETURNED,
        None,
    ),
    # "landed a job at a clinic", "got hired", "accepted the offer": not "a job interview",
    # not an offer only received
    (
        r"(?:(?:finally|just)\s+)?(?:(?:landed|found|got|took)\s+(?:a|an|the)\s+"
        r"(?:new\s+|full-time\s+|part-time\s+)?(?:job|position)|accepted\s+(?:a|an|the)\s+"
        r"(?:new\s+)?(?:job\s+)?(?:offer|job|position))\b(?!\s+(?:" + _NO_JOB_YET + r")s?\b)"
        r"|(?:(?:finally|just)\s+)?(?:got|was|been|have been|'ve been)\s+hired\b"
        # "starts a new job next Monday", "is starting her new job": not a job search started
        r"|(?:(?:is|am|are|'s|'m|'re)\s+)?(?:finally\s+|just\s+|officially\s+)?"
        r"start(?:s|ed|ing)?\s+(?:a|an|the|my|his|her|their|[\w-]+'s)\s+(?:new\s+)?"
        r"(?:full-time\s+|part-time\s+)?(?:job|position)\b(?!\s+(?:"
        + _NO_JOB_YET
        + r"|training)s?\b)"
        # a job held now: "is now working at the library", "works as a nurse now"
        r"|(?:(?:is|am|are|'s|'m|'re)\s+now\s+working|now\s+works?)\s+(?:as|at|for)\b"
        r"|(?:(?:is|am|are|'s|'m|'re)\s+working|works?)\s+(?:as|at|for)\s+(?!(?:it|this|that|"
        r"them|home)\b)(?:[\w'&.-]+\s+){1,4}?now(?=\s*(?:[,.;!?]|$))",
        JOB_FOUND,
        "job",
    ),
    # "got my license back", "got the car back": not "got back to work", "got the kids back
    # to school"
    (
        r"(?:(?:finally|just)\s+)?got\s+(?:(?:my|our|the|[\w-]+'s)\s+)?(?P<what>"
        r"(?:[\w'-]+\s+){0,2}?[\w'-]+)\s+back\b(?!\s+(?:to|from\s+(?:work|school|vacation|"
        r"the trip|holiday)|in|into|on|at|together)\b)",
        GOT_BACK,
        None,
    ),
    # "is over his strep throat": an illness got over
    (
        r"(?:is|am|are|'s|'m|'re)\s+(?:finally\s+|completely\s+|all\s+)?over\s+(?:the\s+|his\s+|"
        r"her\s+|my\s+|their\s+|[\w-]+'s\s+)(?P<what>[\w'-]+(?:\s+[\w'-]+)?)"
        r"(?=\s*(?:[,.;!?]|$)|\s+(?:and|but|now|finally|already)\b)",
        "got over",
        None,
    ),
    # "is walking without the wheelchair now": a walking aid no longer needed (not "tried
    # walking without it", nor "went for a walk without my phone")
    (
        r"(?:is|am|are|'s|'m|'re)\s+(?:finally\s+|now\s+)?(?:walking|getting\s+around)\s+"
        r"without\s+(?:(?:the|a|my|his|her|their|any)\s+)?"
        rf"(?P<what>{MOBILITY_AIDS}|crutch)\b",
        "off",
        None,
    ),
    # "caught up on all the rent"
    (r"(?:(?:finally|just)\s+)?caught\s+up\s+on\s+(?:all\s+)?(?P<what>.+)", CAUGHT_UP, None),
    # "I've been sober for three months": not "sober curious", "sober up"
    (
        r"(?:(?:has|have|had)\s+been\s+|been\s+|(?:is|am|are|'s|'m|'re)\s+)(?:now\s+)?"
        r"(?:(?:stone[\s-]+cold|completely|fully|officially)\s+)?sober\b"
        r"(?!\s+(?:up|enough|curious)\b|-curious)",
        SOBER,
        "alcohol",
    ),
    # "Dad is in remission now": not partial remission
    (
        r"(?:(?:has|have)\s+been\s+|been\s+|went\s+|(?:is|am|are|'s|'m|'re)\s+)"
        r"(?:now\s+|finally\s+|officially\s+)*in\s+(?:complete\s+|full\s+)?remission\b",
        REMISSION,
        "cancer",
    ),
    # "I'm back at work this week", "went back to work"
    (
        r"(?:(?:is|am|are|'s|'m|'re)\s+(?:finally\s+|now\s+)?back\s+(?:at|to)|"
        r"(?:went|got|came|returned)\s+back\s+to|returned\s+to)\s+work\b"
        r"(?!\s+on\s+(?:the|my|our|a|an|this|that|it|his|her)\b)",  # "back to work on the garden"
        BACK_AT_WORK,
        "leave",
    ),
    # "let my gym membership lapse", "let the passport expire"
    (r"let\s+(?P<what>(?:[\w'-]+\s+){1,4}?)(?:lapse|expire|run out)\b", "let lapse", None),
    # "we let our nanny go": someone who worked for the household
    (
        r"let\s+(?:(?:my|our|the|[\w-]+'s)\s+)?(?P<what>(?:[\w-]+\s+)?(?:nanny|babysitter|"
        r"sitter|au pair|housekeeper|cleaner|cleaning lady|maid|assistant|gardener|landscaper|"
        r"dog walker|caregiver|carer|tutor|driver|cook|chef))\s+go\b",
        "let go",
        None,
    ),
    # "done with keto", "I'm done with Whole30": a diet or a habit, not "done with work"
    (
        r"(?:(?:is|am|are|'s|'m|'re)\s+)?(?:so\s+|officially\s+|finally\s+)?done\s+with\s+"
        r"(?:the\s+)?(?P<what>keto|paleo|whole\s?30|atkins|intermittent fasting|fasting|dieting|"
        r"low[- ]carb|veganism|vegetarianism|smoking|vaping|drinking|dating apps|online dating)\b",
        "done with",
        None,
    ),
)


# A stay over: someone staying with the household, or visiting, went home. It ends only a
# fact of their stay (``_STAYING``), so "Dad went back home" does not end "Dad lives with
# Maya" (home is there).
VISIT_ENDED = "went home"
_WENT_HOME = (
    r"(?:(?:went|flew|drove|headed|gone|got|took\s+the\s+(?:train|bus)|left\s+for)\s+"
    r"(?:back\s+)?home\b|(?:flew|drove|headed)\s+back\s+to\s+(?-i:[A-Z][a-z]+)\b)"
    # not for a while or to fetch a thing: "went home for the weekend", "to grab her meds";
    # nor a day's place left: "went home sick", "flew home from the conference" is a trip's
    r"(?!\s+to\s+\w|\s+for\s+(?!good\b)|\s+sick\b|\s+(?:early\s+)?from\s+(?:work|school|"
    r"the\s+office|class|practice|daycare|camp)\b)"
    # nor back again: "went back home for her charger and came right back"
    r"(?![^.;!?]*\b(?:came|come|be|is|was)\s+(?:right\s+)?back\b)"
)
_STAYING = re.compile(
    r"\b(?:is|are|'s|'re)\s+(?:(?:still|currently|now)\s+)?(?:visiting\b|in town\b|here\b|"
    r"staying\s+(?:with|at|here|over|in|for|until|through|nearby)\b|crashing\b|"
    r"(?:temporarily\s+)?living with\b.*\b(?:until|for|while)\b)",
    re.IGNORECASE,
)


def _state_ended(text: str, lead: str, subject: str) -> Retraction | None:
    """A state of the subject's that ``text`` says has ended (``_STATE_ENDINGS``)."""
    for pattern, cue, fixed in _STATE_ENDINGS:
        found = re.search(f"{lead}(?:{pattern})", text, re.IGNORECASE)
        if found is None:
            continue
        if cue == JOB_FOUND and re.search(r"\bno more\b", text[found.end() :], re.IGNORECASE):
            continue  # what "got a job downtown, so no more commute" ends is read after
        if fixed is not None:
            return Retraction("ending", cue, fixed)
        content = _cut(found.group("what"))
        if content and len(content_lemmas(content, subject)) <= MAX_ENDED_WORDS:
            return Retraction("ending", cue, content)
    return None


def _ended(text: str, lead: str, subject: str) -> Retraction | None:
    """An ending or a closed negation said of the subject that ``lead`` opens."""
    flags = re.IGNORECASE
    found = re.search(lead + _JOB_ENDING, text, flags)
    if found is not None:
        where = "" if found.group("new") else _cut(found.group("where") or "")
        if len(where.split()) > MAX_ENDED_WORDS or re.match(_NOT_A_WORKPLACE, where, flags):
            where = ""  # "left my job at the end of May", "at 62": when, not where
        kind = (found.group("kind") or "").lower()
        if not where and kind and kind not in _ANY_JOB:
            where = kind  # "quit the bakery job", "left my teaching job"
        content = f"job {(found.group('at') or 'at').lower()} {where}" if where else "job"
        return Retraction("ending", _norm(found.group("cue")), content)
    found = re.search(lead + rf"(?P<cue>{_ENDING})\s+(?P<rest>.+)", text, flags)
    if found is not None:
        content = _cut(found.group("rest"))
        whose = _other_owner(found.group("rest"), subject)
        pronoun = re.match(r"\s*(his|her)\s", found.group("rest"), flags)
        content = f"{whose} {content}" if whose and content else content
        if _HANDED.search(found.group("cue")):
            # Who it went to is not what ended: "gave the piano away to my niece".
            content = re.split(r"\s+(?:to|with)\s+", content, maxsplit=1)[0]
        if not content or _PREPOSITION.match(content):
            return None  # "stopped by the bakery" is a visit
        if len(content_lemmas(content, subject)) > MAX_ENDED_WORDS:
            return None  # "sold cookies at the school bake sale": an event, told in full
        head = content.split()[-1].lower()
        if _OFF.search(found.group("cue")) and _NOT_TAKEN.match(content):
            return None  # "came off the phone", "tapered off work"
        # "stopped his Zyrtec": another's, whom the pronoun stands for (``_pronoun_owner``)
        owner = pronoun.group(1).lower() if pronoun else ""
        return Retraction(
            "ending", _norm(found.group("cue")), content, head.endswith("ing"), whose=owner
        )
    state = _state_ended(text, lead, subject)
    if state is not None:
        return state
    found = re.search(
        lead + r"(?:(?:(?:has|have|had)\s+been\s+|been\s+|(?:is|am|are|'s|'m|'re)\s+)(?:now\s+)?"
        r"(?P<what>smoke|nicotine|vape|alcohol|caffeine|drug|cancer|tumor|seizure)[- ]free\b"
        # unsaid, with how long: "officially smoke free for 2 months!!"
        r"|(?:now\s+)?(?P<what2>smoke|nicotine|vape|alcohol|caffeine|drug)[- ]free\s+"
        r"(?:for|since)\b)",
        text,
        flags,
    )
    if found is not None:
        # A habit given up, said as how long without it: "I've been smoke-free for a month".
        what = found.group("what") or found.group("what2")
        return Retraction("ending", "free", what.lower(), True)
    found = re.search(
        lead + r"(?:\w+\s+(?:a|an|the|her|his|their)\s+\w+\s+and\s+)?(?P<cue>moved out)\b"
        r"(?!\s+of\b)(?=\s*(?:[,.;!?]|$)|\s+(?:last|this|yesterday|today|on|in|and|to|for|after|"
        r"because|when|so|but|at)\b)",
        text,
        flags,
    )
    if found is not None:
        # Someone who lived with the household moved out ("Dana found an apartment and
        # moved out"): whom, the caller's lead names (``ended_slot``: the household).
        return Retraction("ending", "moved out", "")
    if re.search(lead + _WENT_HOME, text, flags):
        # Someone staying with the household went home ("Mom flew back to Ohio"): whom,
        # the caller's lead names.
        return Retraction("ending", VISIT_ENDED, "")
    # After the endings: "outgrew the strawberry allergy, I can eat them now" is the first.
    found = re.search(lead + _TOLERATED, text, flags)
    if found is not None:
        what = next(v for k, v in found.groupdict().items() if k.startswith("what") and v)
        content = _cut(what)
        lemmas = content_lemmas(content, subject)
        if lemmas and len(lemmas) <= MAX_ENDED_WORDS and content.lower() not in _FUNCTION:
            return Retraction("ending", TOLERATES, content)
    found = re.search(
        # ... or said with how long, or since when: "has been off Lexapro for a month",
        # "is off insulin since the transplant".
        lead + r"(?:been\s+)?(?P<cue>off)\s+(?P<rest>.+?)\s+(?:now|for good|completely|these days|"
        r"for\s+(?:a|an|one|two|three|four|six|\d+|several|a few|a couple of)\s+(?:days?|weeks?|"
        r"months?|years?)|since)\b",
        text,
        flags,
    )
    if found is None:
        # ... or an ordeal said to be over: "is finally off antibiotics!", "off bed rest".
        found = re.search(
            lead + r"(?:been\s+)?(?:(?<=finally\s)|(?=off\s+bed\s+rest\b))(?P<cue>off)\s+"
            r"(?!to\b)(?P<rest>[^,.;!?]+?)(?=\s*(?:[,.;!?]|$)|\s+(?:and|but|so|after|because)\b)",
            text,
            flags,
        )
    if found is not None:
        content = _cut(found.group("rest"))
        when = content.split()[0].lower().rstrip("s") in _CALENDAR if content else False
        if (
            content
            and not when  # a day off ("off Friday since the boss said so")
            and not _NOT_TAKEN.match(content)
            and len(content.split()) <= MAX_ENDED_WORDS
        ):
            return Retraction("ending", "off", content)
    found = re.search(lead + rf"(?P<cue>{_NEGATION})\b\s*(?P<rest>.+)", text, flags)
    if found is None:
        return None
    cue, rest = found.group("cue").lower(), found.group("rest")
    closed = re.search(rf"\b(?:{_PLAIN_NEGATION_END})\b", rest, flags)
    if closed is None and _FOUND_OUT.search(text[: found.start("cue")]):
        # "Turns out Maya is not allergic to cats, it was dust mites": what was believed
        # is found not to hold, as "after all" says.
        closed = re.search(r"(?=[,;.!?]|$)", rest)
    if cue != "no longer" and closed is None:
        return None  # "I don't like olives": a negation, but nothing ended
    content = _cut(rest[: closed.start()] if closed else rest)
    # "doesn't have time to volunteer at the shelter anymore": what is no longer done.
    content = re.sub(
        r"^(?:have|has)\s+(?:the\s+)?(?:time|energy|money)\s+(?:to|for)\s+",
        "",
        content,
        flags=flags,
    )
    if not content or _HEDGE.match(content):
        return None
    words = content.split()
    # "doesn't smoke anymore": after do-support the content starts with a verb.
    before = text[: found.start("cue")].rstrip().lower()
    do_support = cue in ("n't", "not") and re.search(r"\b(?:do|does|did)$", before)
    verbal = (len(words) == 1 and bool(do_support)) or words[-1].lower().endswith("ing")
    return Retraction("negation", cue, content, verbal)


def _corrected(text: str, found: re.Match[str], subj: str, subject: str) -> Retraction | None:
    """The correction whose cue ``found`` matched: the new wording after it (or, when the
    cue closes the sentence, before it: "the class starts at 6:15, I had it wrong"), the thing
    the cue names ("I had the date wrong"), and the value it replaces ("..., not 40")."""
    flags = re.IGNORECASE
    after = text[found.end() :]
    rest = re.sub(
        rf"^[\s,;:.!\u2013\u2014-]*(?:(?:earlier|before|above|again)\b[\s,;:.\u2013\u2014-]*)?"
        rf"(?:{_IT_IS}\s+)?",
        "",
        after,
        flags=flags,
    )
    rest = re.sub(rf"^{subj}\s+(?:meant\s+)?", "", rest, flags=flags)
    if not re.search(r"\w", re.split(r"[.;!?]", rest)[0]):
        # The cue ends what it corrects: the clause before it.
        before = re.sub(rf"[\s,;:-]*{subj}(?:\s+{_AUX})*\s*$", "", text[: found.start("cue")])
        before = re.split(r"[.;!?]\s+", before.rstrip(" ,;:-"))[-1]
        rest = re.sub(rf"^(?:(?:no|wait|sorry|oops)[,\s]+)*(?:{subj}\s+)?", "", before, flags=flags)
    # The old value first: "actually it's not celiac, just a wheat sensitivity".
    first = re.match(
        r"not\s+(?:the\s+|an?\s+)?(?P<old>[\w'-]+)(?:\s+[^,.;!?]*?)?\s*(?:,\s*|\s+)"
        r"(?:(?:it's|it\s+is|but|just|only)[\s,]+)+(?P<new>[^.;!?]+)",
        rest,
        flags,
    )
    if first is not None:
        rest = first.group("new")
    content = _cut(rest, correction=True)
    was = re.search(r"^[^.;!?]*?,?\s+not\s+(?:the\s+|a\s+)?(?P<old>\$?[\w'.:%$-]+)", rest, flags)
    was = was or first
    old = was.group("old").strip(".,") if was else ""
    named = (
        (found.groupdict().get("named") or "").split()[-1:] if "named" in found.groupdict() else []
    )
    if named and named[0].lower() not in content.lower():
        content = f"{named[0]} {content}".strip()
    if content and (_values(content, subject) or old):
        said = _own_statement(rest, subject)
        return Retraction("correction", _norm(found.group("cue")), content, old=old, said=said)
    return None


def _update(text: str, subject: str) -> Retraction | None:
    """A value said as the one that holds now ("my gym fee is now $45 a month",
    "I'm on 20 mg now", "my resting heart rate is actually 58"): it replaces the closest
    fact that gave the same thing another value (``updated``)."""
    first = re.split(r"(?<=[.!?])\s+", own_words(text).strip(), maxsplit=1)[0]
    # The clause that says it, when another comes first and it names what it measures:
    # "Maya got a raise, Maya makes $95k now" compares "makes $95k now"; "told Maya to
    # increase the Lexapro, Maya is on 20 mg now" stays whole, its clause naming only a dose.
    clauses = re.split(r"\s*[,;]\s+(?:(?:and|so|but)\s+)?", first)
    held = [c for c in clauses if _about(c, subject) and _UPDATE.search(c) and re.search(r"\d", c)]
    if len(clauses) > 1 and held and _names_a_thing(_own_statement(held[-1], subject), subject):
        first = held[-1]
    # The subject's own statement, of a number: a name said with "now" ("Maria is now
    # friends with Tom") is news, and a remark that opens otherwise is talk.
    if not _about(first, subject) or not _UPDATE.search(first) or not re.search(r"\d", first):
        return None
    own = _own_statement(first, subject)
    return Retraction("update", "now", own, said=own)


def _names_a_thing(said: str, subject: str) -> bool:
    """Whether ``said`` has a word besides its numbers, units and words of time: "makes
    $95k now" (makes), not "is on 100 mg now"."""
    time = {_lemma(w) for w in ("now", "actually", "currently", "today")}
    return any(
        not w[:1].isdigit() and w not in _UNITS and w not in time
        for w in content_lemmas(_thousands(said).replace("$", " "), subject)
    )


def _own_statement(text: str, subject: str) -> str:
    """``text`` without its subject's name at the start, for comparing its meaning."""
    return predicate(own_words(text), subject).strip()


def _switched(text: str, subject: str) -> Retraction | None:
    """Switching from one thing to another ends the first, for the speaker, a household
    member or someone named: "Maya switched from lisinopril to losartan", "the doctor
    switched Maya from lisinopril to losartan", "we swapped our gas stove for an induction
    one", "traded in the Civic for a Tesla", "Leo switched from piano to drums"."""
    name = re.escape(subject) if subject else "I"
    who = rf"(?:{name}(?: and family)?|I|me|we|us)"
    kin = rf"(?:{_mine(subject)}\s+(?P<m>{_KIN_WORDS}))"
    owner = rf"{_mine(subject)}(?:\s+(?P<m>{_KIN_WORDS})'s)?"
    flags = re.IGNORECASE
    found = (
        re.search(
            rf"{_CLAUSE_START}(?:{who}|{kin})\s+(?:{_AUX}\s+)*(?P<cue>{_SWITCH}|{_MOVED_ON})\s+"
            r"(?:over\s+)?from\s+(?P<rest>.+?)\s+(?:to|onto)\s+\w",
            text,
            flags,
        )
        or re.search(
            rf"\b(?P<cue>{_SWITCH}|put)\s+(?:{who}|{kin})\s+(?:over\s+)?from\s+"
            r"(?P<rest>.+?)\s+(?:to|onto)\s+\w",
            text,
            flags,
        )
        or re.search(
            rf"\b(?P<cue>{_SWAP})(?:\s+in)?\s+(?:{owner}|the)\s+(?:old\s+)?(?P<rest>.+?)\s+"
            r"(?:for|with)\s+\w",
            text,
            flags,
        )
        or _named_switch(text, subject)
    )
    if found is None:
        return _switched_drug(text, subject)
    content = _cut(found.group("rest"))
    lemmas = content_lemmas(content, subject)
    if not lemmas or len(lemmas) > MAX_ENDED_WORDS or all(w[:1].isdigit() for w in lemmas):
        return None  # "switched from 2 to 3 days a week": a number, which a change reads
    member = found.groupdict().get("m") or found.groupdict().get("n") or ""
    content = f"{member.lower() if member.islower() or not member else member} {content}"
    return Retraction("ending", f"{found.group('cue').lower()} from", content.strip())


ACQUIRED = "got one"
# A pregnancy begun ends the trying for one: "I'm pregnant!", "my wife is expecting".
CONCEIVED = "pregnant"
_TRYING = re.compile(
    r"\btrying\s+(?:to\s+(?:get\s+pregnant|conceive|have\s+(?:a|another)\s+(?:baby|child))|"
    r"for\s+(?:a|another)\s+(?:baby|child))\b|\bTTC\b",
    re.IGNORECASE,
)


def _conceived(text: str, subject: str) -> Retraction | None:
    """A pregnancy of the speaker's or the speaker's partner's, said as news ("Maya is
    pregnant!", "Maya's wife is expecting"): its ``whose`` is the partner's word, or ""."""
    found = re.search(
        rf"{_CLAUSE_START}(?:{_subject_pattern(subject)}(?: and family)?|"
        rf"{_mine(subject)}\s+(?P<m>{_PARTNER_WORDS}))(?:\s+[A-Z][a-z]+)?\s+"
        r"(?:is|are|am|'m|'re)\s+(?:(?:now|finally|officially|actually)\s+)*"
        r"(?:pregnant|expecting)(?=\s*(?:[,.;!]|$)|\s+(?:again|with|and|a\s+baby|our|twins|"
        r"in|at|!)\b)",
        text,
        re.IGNORECASE,
    )
    if found is None or _IN_PASSING.search(text[: found.start()]):
        return None
    return Retraction("ending", CONCEIVED, "pregnant", whose=_member(found))


def _trying_ended(fact: str, subject: str) -> bool:
    """Whether ``fact`` tells the couple trying for a baby, now: the speaker's own, the
    household's or the partner's (never a sister's or a friend's)."""
    whose = _whose(fact, subject)
    return (
        _TRYING.search(fact) is not None
        and (whose is None or whose in _PARTNERS)
        and _holds_now(fact, subject)
    )


# What is got but never had as a thing: "got a raise", "got a call".
_NOT_HAD = word_set("raise promotion bonus refund discount call chance break nap text")


def _acquired(text: str, subject: str) -> Retraction | None:
    """A thing the subject now has ("I finally bought a car, a used Prius", "we adopted a
    dog", "we found an apartment in Brooklyn"): it ends a fact that the subject has none
    (``lexical_match``: "I don't have a car") or is looking for one ("saving up for a car"),
    and nothing else."""
    subj = _subject_pattern(subject)
    found = re.search(
        rf"{_CLAUSE_START}{subj}(?: and family)?\s+(?:(?:finally|just|officially)\s+)*"
        r"(?P<verb>bought|got|leased|adopted|purchased|found|rented|closed on)\s+"
        r"(?:a|an|(?:my|our)\s+first)\s+"
        r"(?:(?:new|used|second-hand|great|good|nice|perfect|lovely)\s+)?(?P<thing>[a-z][a-z-]+)"
        r"(?=\s*(?:[,.;!?]|$)|\s+(?:and|but|so|today|yesterday|last|this|from|for|with|in|"
        r"near|at|on)\b)",
        text,
        re.IGNORECASE,
    )
    # A thing earned or received that one works or waits for: "got my nursing degree",
    # "got my kidney transplant", "received my green card".
    earned = found is None and re.search(
        # (a second verb of theirs too: "got the call and had my transplant")
        rf"{_CLAUSE_START}{subj}(?: and family)?\s+(?:[^,.;!?]*?\s+and\s+)?"
        r"(?:(?:finally|just|officially)\s+)*"
        r"(?P<verb>got|earned|received|finished|completed|was granted|were granted|had|"
        r"underwent)\s+"
        rf"(?:(?:a|an|the|my|our|{subj}'s)\s+)?(?P<what>(?:[\w'-]+\s+){{0,2}}?(?P<thing>{_EARNED}))\b",
        text,
        re.IGNORECASE,
    )
    if earned and earned.group("verb").lower() in ("had", "underwent"):
        # An operation undergone, lately: "had my transplant last week" (not "in 2019").
        operation = earned.group("thing").lower() in ("transplant", "surgery")
        earned = earned if operation and not _LONG_AGO.search(without_hints(text)) else None
    if earned:  # what kind, said: "a fishing license" is no "real estate license"
        return Retraction("ending", ACQUIRED, earned.group("what"))
    if found is None or found.group("thing").lower() in _NOT_HAD:
        return None  # "got a raise, I make $95k now": what it says after is the news
    where = re.match(r"\s+(?:in|near|at|on)\b", text[found.end() :], re.IGNORECASE)
    if where and found.group("verb").lower() not in ("found", "rented", "closed on"):
        return None  # a place said only of a home found: not "got a hole in one"
    return Retraction("ending", ACQUIRED, found.group("thing"))


# What one studies, works or waits for: a credential, a status, an operation.
_EARNED = (
    r"degree|diploma|license|licence|certification|certificate|citizenship|green card|"
    r"visa|permit|transplant|surgery|residency|tenure|bachelor's|master's|phd|doctorate"
)
# Looking for a thing, now: "saving up for a car", "looking for an apartment", "house
# hunting", "in the market for a new laptop"; or working or waiting for it: "studying for
# my nursing degree", "on the waitlist for a kidney transplant".
_SEEKING = (
    r"(?:saving(?:\s+up)?|looking|searching|shopping|hunting|in the market)\s+for\s+"
    r"(?:(?:a|an|the|my|our)\s+)?(?:(?:new|used|second-hand|first|good|bigger|smaller)\s+)?"
    r"{thing}s?{end}|\btrying to (?:find|buy|get) (?:a|an) (?:new\s+)?{thing}{end}|"
    r"\b{thing}[ -](?:hunting|shopping)\b|"
    r"\b(?:studying|working|waiting|applying|hoping|on the wait-?list|on a wait-?list|"
    r"in line)\s+(?:for|toward|towards|on|to get)\s+(?:(?:a|an|the|my|our|[\w-]+'s)\s+)?"
    r"(?:[\w'-]+\s+){{0,2}}?{thing}s?{end}"
)
# Where the thing looked for ends its phrase: not "a car" of "a car mechanic".
_SOUGHT_END = (
    r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:in|near|at|on|for|with|that|to|and|but|so|under|around|this|"
    r"next|before|by|since|because|again|now)\b)"
)


def _sought(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` says its subject is looking for what ``retraction`` acquired."""
    pattern = _SEEKING.format(thing=re.escape(retraction.content.lower()), end=_SOUGHT_END)
    return re.search(pattern, fact, re.IGNORECASE) is not None and _holds_now(fact, subject)


def _without(retraction: Retraction, fact: str) -> bool:
    """Whether ``fact`` says its subject has none of what ``retraction`` acquired."""
    thing = re.escape(retraction.content.lower())
    return (
        re.search(
            rf"\b(?:don't|doesn't|do not|does not|never)\s+(?:have|has|had|own|owned)\s+"
            rf"(?:a|an|any)\s+(?:[\w-]+\s+)?{thing}s?\b|\bno\s+{thing}s?\b|"
            rf"\bwithout\s+(?:a|an)\s+{thing}\b",
            fact,
            re.IGNORECASE,
        )
        is not None
    )


SWITCHED_TO = "switched to"


def _switched_drug(text: str, subject: str) -> Retraction | None:
    """A drug switch said by whose doctor made it ("Raj's doctor switched him from Januvia
    to Ozempic"), or a switch to a drug with the old one unsaid ("my son's doctor switched
    him to Vyvanse", "Maya switched to Zoloft"): the second ends the one drug of the same
    kind (``kb.drug_kinds``) that person takes (``SWITCHED_TO``)."""
    name = re.escape(subject) if subject else "I"
    who = rf"(?:{name}(?: and family)?|I|me|we|us)"
    kin = rf"{_mine(subject)}\s+(?P<m2>{_KIN_WORDS})"
    flags = re.IGNORECASE
    found = re.search(
        rf"(?:(?P<n>(?-i:[A-Z][a-z]+))'s\s+|{_mine(subject)}\s+(?:(?P<m>{_KIN_WORDS})'s\s+)?|"
        rf"the\s+)(?:{_PRESCRIBER})\s+(?:(?:has|just|finally)\s+)*(?:{_SWITCH}|put)\s+"
        rf"(?P<whom>him|her|them|{who}|{kin})\s+(?:over\s+)?(?:from\s+(?P<rest>.+?)\s+)?"
        r"(?:to|onto|on)\s+(?P<new>[\w-]+)",
        text,
        flags,
    ) or re.search(
        rf"{_CLAUSE_START}(?:{who}|{kin}|(?P<n>(?-i:[A-Z][a-z]+)))\s+(?:{_AUX}\s+)*"
        rf"(?:{_SWITCH})\s+(?:over\s+)?to\s+(?P<new>[\w-]+)",
        text,
        flags,
    )
    if found is None:
        return None
    groups = found.groupdict()
    named = _someone_else(groups.get("n"), subject)
    whom = (groups.get("whom") or "").lower()
    if whom in ("him", "her", "them"):
        person = named or (groups.get("m") or "").lower()
        if not person:
            return None  # whose doctor is not said
    else:
        person = (groups.get("m2") or "").lower() or named
    rest = groups.get("rest")
    if rest:
        content = _cut(rest)
        if not content or len(content_lemmas(content, subject)) > MAX_ENDED_WORDS:
            return None
        return Retraction("ending", "switched from", f"{person} {content}".strip())
    new = found.group("new")
    if new.lower() not in drug_kinds():
        return None  # "switched to part-time": not a drug, so nothing of its kind to end
    return Retraction("ending", SWITCHED_TO, f"{person} {new}".strip())


def _same_kind_of_drug(retraction: Retraction, fact: str) -> bool:
    """Whether ``fact`` names a drug of the kind that a switch to another names, other
    than that drug ("takes Adderall" for "switched to Vyvanse")."""
    *person, new = retraction.content.split()
    kind = drug_kinds()[new.lower()]
    if person and _lemma(fold(person[0])) not in content_lemmas(fact, ""):
        return False  # "switched my son to ..." ends the son's drug, named as his
    return any(drug_kinds().get(w) == kind and _lemma(w) != _lemma(new) for w in _words(fact))


def _named_switch(text: str, subject: str) -> re.Match[str] | None:
    """A switch said of someone by name ("Leo switched from piano to drums")."""
    for found in re.finditer(
        rf"{_CLAUSE_START}(?P<n>(?-i:[A-Z][a-z]+))\s+(?:{_AUX}\s+)*(?P<cue>{_SWITCH}|{_MOVED_ON})\s+"
        r"(?:over\s+)?from\s+(?P<rest>.+?)\s+(?:to|onto)\s+\w",
        text,
        re.IGNORECASE,
    ):
        name = found.group("n")
        if _someone_else(name, subject):
            return found
    return None


def _turned(text: str, subject: str) -> Retraction | None:
    """An age reached, the speaker's or a household member's ("Maya's daughter turned 8
    today"): a change of the age stated before."""
    name = rf"{re.escape(subject)}|" if subject else ""
    found = re.search(
        rf"{_CLAUSE_START}(?:(?i:{name}I)|(?i:{_mine(subject)})\s+"
        rf"(?P<m>(?i:{_KIN_WORDS}))|(?P<n>(?-i:[A-Z][a-z]+)))\s+(?:just\s+|finally\s+|has\s+)?"
        r"turned\s+(?P<v>\d{1,3})\b(?!\s*(?:%|mg|kg|lbs?|pounds|miles|km|dollars))",
        text,
    )
    if found is None:
        return None
    named = found.group("n") or ""
    if named and not _someone_else(named, subject):
        return None  # "She turned 8": whose age is not said
    member = (found.group("m") or "").lower() or named
    return Retraction("change", "turned", f"{member} {found.group('v')}".strip())


def _forget(text: str, subject: str) -> Retraction | None:
    """A request to forget what the speaker said ("Please forget that I'm vegetarian",
    "Disregard what I said about my sister"): its content is what it names."""
    subj = _subject_pattern(subject)
    found = re.search(rf"(?:^|[.;:!?,]\s*){_FORGET}", text, re.IGNORECASE)
    if found is None:
        # Asked ("can you forget my nut allergy", "please erase my old address", "delete my
        # bank details"), or said not to be kept ("forget my credit score, I don't want that
        # saved"): the thing is the speaker's own. Not "forget my keys, I found them".
        keep_nothing = _KEEP_NOTHING.search(text) is not None
        cue = "forget|delete|erase|remove" if keep_nothing else "forget|erase"
        asked = "" if keep_nothing else rf"(?:please\s+|pls\s+|{CAN_YOU}(?:please\s+)?)"
        found = re.search(
            rf"(?:^|[.;:!?,]\s*)(?:(?:please|pls|oh|so|also|and)[,\s]+)*{asked}"
            rf"(?:(?P<cue>{cue})\s+(?:about\s+)?(?P<rest>{_mine(subject)}\s.+)|"
            rf"(?P<cue3>delete|remove)\s+(?P<rest3>{_mine(subject)}\s+(?:\w+\s+){{0,3}}?"
            r"(?:info|information|details|data|records?)\b.*))",
            text,
            re.IGNORECASE,
        )
    if found is None:
        # Said as all the message is: "Forget my address." (not "forget my diet, I'm having
        # cake", a set-aside with more to say).
        found = re.fullmatch(
            rf"\s*(?P<cue>forget|erase|delete)\s+(?:about\s+)?(?P<rest>{_mine(subject)}\s+"
            r"[\w'-]+(?:\s+[\w'-]+){0,3}?)(?:,?\s+(?:please|for good|completely|entirely))?"
            r"\s*[.!]*\s*",
            text,
            re.IGNORECASE,
        )
    if found is None:
        # Asked of the assistant, a thing named outright: "please forget the depression
        # diagnosis" (not "forget the dishes, I'll do them later").
        found = re.search(
            rf"(?:^|[.;:!?,]\s*)(?:(?:oh|so|also|and|hey|ok(?:ay)?)[,\s]+)*(?:please\s+|pls\s+|"
            rf"{CAN_YOU}(?:please\s+)?)(?P<cue>forget|erase|delete|remove)\s+(?:about\s+)?"
            r"(?P<rest>the\s.+)",
            text,
            re.IGNORECASE,
        )
    groups = found.groupdict() if found is not None else {}
    said = groups.get("rest") or groups.get("rest3")
    if said is None or _FOR_NOW.search(said):
        return None
    rest = re.sub(
        rf"^{subj}\s+(?:(?:told you|said|mentioned)\s+(?:about\s+|that\s+)?)?(?=\w)",
        "",
        said,
        flags=re.IGNORECASE,
    )
    content = _cut(_FORGET_END.sub("", rest))
    if not content or not content_lemmas(content, ""):
        return None  # "forget it": nothing named
    # Whose it is stays in what it names: "my mom's dementia" is the mother's fact.
    owner = re.match(rf"{_mine(subject)}\s+(?P<who>[\w-]+)'s\s", rest, re.IGNORECASE)
    if owner and lemma(fold(owner.group("who"))) in _PEOPLE:
        content = f"{owner.group('who').lower()} {content}"
    # Or someone named: "what I told you about Tom's job" is Tom's.
    named = re.match(r"(?-i:(?P<who>[A-Z][a-z]+))'s\s", rest)
    if named and fold(named.group("who")) != fold(subject):
        content = f"{named.group('who')} {content}"
    said_not = groups.get("cue4") or groups.get("cue2") or ""
    by: str = groups.get("cue") or groups.get("cue3") or ""
    verb = "stop" if said_not.endswith("ing") else "don't"
    cue = (by or f"{verb} {said_not}").lower()
    # Not "being vegetarian", "going bankrupt": a doing said alone is the speaker's.
    first = said.split()[0] if said.split() else ""
    anyone = not re.match(rf"(?:{subj}|{_mine(subject)}|me)\b", said, re.IGNORECASE) and not (
        first.lower().endswith("ing") and word_form(first.lower()) == "ing"
    )
    return Retraction("forget", cue, content, content.endswith("ing"), anyone=anyone)


def _change(text: str, subject: str) -> Retraction | None:
    """A measured thing of the speaker's (or a household member's or pet's) changed to a
    new value: "the doctor raised my metformin to 1000 mg", "my rent went up to $1,500",
    "council tax went up to $180", "my pension is now $1,900", "the vet halved my dog's
    prednisone". The content is the member named, the thing, and the new value (none
    for a halving or doubling)."""
    owner = rf"(?:the|{_mine(subject)})(?:\s+(?P<member>[a-z]+)'s)?"
    flags = re.IGNORECASE
    passive = (
        r"(?:'s|'re)?\s+(?:(?:was|were|is|are|has been|have been|been|got|gotten|has|have|"
        r"just|recently|now|finally)\s+)*"
    )
    found = (
        re.search(
            rf"\b(?P<cue>{_CHANGE})\s+(?:the\s+(?:dose|dosage|amount)\s+of\s+)?{owner}\s+"
            rf"{_THING}{_NEW_VALUE}",
            text,
            flags,
        )
        or re.search(
            rf"(?:\b{owner}\s+|(?:^|[.;:!?]\s*)){_THING}{passive}"
            rf"(?P<cue>{_CHANGE_INTRANSITIVE}){_NEW_VALUE}",
            text,
            flags,
        )
        or re.search(
            rf"\b{owner}\s+{_THING}\s+(?:is|are)\s+(?P<cue>now)\s+"
            r"(?P<value>\$?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?)(?:\s*(?P<unit>%|[a-zA-Z]+))?",
            text,
            flags,
        )
        # A standing time moved: "my therapy moved to Thursdays at 4pm".
        or re.search(
            rf"\b{owner}\s+{_THING}\s+(?:(?:has|was|got|just)\s+)*(?P<cue>moved|changed|"
            r"switched|rescheduled)\s+to\s+(?P<value>(?:mon|tues|wednes|thurs|fri|satur|sun)"
            r"days?(?:\s+(?:at\s+)?\d{1,2}(?::\d\d)?\s*(?:am|pm)?)?)",
            text,
            flags,
        )
        or re.search(
            rf"\b(?P<cue>halved|doubled|tripled)\s+{owner}\s+{_THING}(?=\s*(?:[,.;!]|$|\s+(?:and|so)\b))",
            text,
            flags,
        )
    )
    if found is None:
        return None
    thing = found.group("thing")
    if not [w for w in content_lemmas(thing, subject) if not w[:1].isdigit()]:
        return None  # "raised it to 5": nothing named
    groups = found.groupdict()
    value, unit = (groups.get("value") or "").rstrip(","), groups.get("unit") or ""
    if value and unit and unit.lower() not in _NOT_UNIT and unit.lower() not in _FUNCTION:
        value = f"{value} {unit}"
    member = groups.get("member") or ""
    content = " ".join(w for w in (member, thing, value) if w)
    said = _own_statement(text, subject)
    return Retraction("change", _norm(found.group("cue")), content, said=said)


def _death(text: str, subject: str) -> Retraction | None:
    """A death of the speaker's own ("Maya's dog Juniper passed away", "we lost Grandpa",
    "Juniper died last night"): the content is who died, a word of the household or a
    pet, or a name. Not someone else's ("the neighbour's cat died")."""
    own = rf"(?i:{_mine(subject)}\s+(?:(?:old|dear|sweet|beloved|little|late)\s+)?)"
    # "my dog", "Grandpa", a name, or a member's pet: "my mom's dog".
    being = (
        rf"(?P<who>{own}(?i:(?:{_KIN_WORDS})'s\s+(?:{_PETS})|{_PETS}|{_KIN_WORDS})s?\b|"
        r"[A-Z][a-z]+\b)"
    )
    # Who put a pet down: the speaker, or a member whose pet it was ("my parents had to put
    # Buddy down").
    keepers = rf"{_KIN_WORDS}|(?:grand)?parents|in-laws"
    speaker = rf"(?:{_speaker(subject)}|(?i:{_mine(subject)})\s+(?P<keeper>(?i:{keepers})))"
    adverbs = r"(?i:(?:has|had|have|just|sadly|recently|finally|unexpectedly|to)\s+)*"
    found = (
        re.search(
            rf"{being}\s+{adverbs}(?P<cue>(?i:{_DIED}))\b(?!\s+(?i:laughing|of\s+embarr))", text
        )
        or re.search(rf"\b{_speaker(subject)}\s+{adverbs}(?P<cue>(?i:{_LOST}))\s+{being}", text)
        or re.search(
            rf"\b{speaker}\s+{adverbs}(?P<cue>(?i:put))\s+{being}\s+(?i:down|to sleep)\b", text
        )
        # A pet gone for good: "Ziggy got out and never came back".
        or re.search(
            rf"{being}\s+{adverbs}(?i:ran away|ran off|got out|went missing|escaped)\b"
            rf"[^.;!?]{{0,40}}?\b(?P<cue>(?i:{NEVER_BACK}))\b",
            text,
        )
    )
    if found is None or re.search(r"(?i:almost|nearly)\s+$", text[: found.start("cue")]):
        return None  # "nearly died of fright" is no death
    if _IN_PASSING.search(text[: found.start()]):
        return None  # told in passing ("moved back home when Dad passed away"), not news
    who = re.sub(rf"^{own}", "", found.group("who")).strip()
    if fold(who) == fold(subject) or fold(who) in _FUNCTION:
        return None  # the speaker, or a pronoun ("She passed away": whose is unclear)
    whose, _, pet = who.rpartition("'s ")  # "mom's dog"
    who, whose = pet or who, whose.lower()
    before = text[: found.start("who")]
    if re.search(rf"\b(?i:his|her|their)\s+(?:(?i:{_PETS}|{_KIN_WORDS})s?\s+)$", before):
        return None  # "her cat Luna died": someone's the writer does not name, not the speaker's
    owner = re.search(rf"\b([\w-]+)'s\s+(?:(?i:{_PETS}|{_KIN_WORDS})s?\s+)$", before)
    if owner is not None and fold(owner.group(1)) != fold(subject):
        # Named as someone else's: a member's ("Maya's sister's cat Mochi passed away"),
        # or no one of the household's ("Tom's dog Rex died"), which ends nothing.
        kin = owner.group(1)
        mine = re.search(rf"(?i:{_mine(subject)})\s+{re.escape(kin)}'s\s+\S+\s+$", before)
        if mine is None or not re.fullmatch(_KIN_WORDS, kin, re.IGNORECASE):
            return None
        whose = kin.lower()
    whose = whose or (found.groupdict().get("keeper") or "").lower()
    return Retraction("death", _norm(found.group("cue")), who, whose=whose)


# A birth in the household ("the baby came", "our daughter Noor was born", "we had the
# baby", "my wife gave birth"): it ends the pregnancy of the one who gave birth, or, said of
# the household, the speaker's own and their partner's.
_BORN = r"(?:was|were|is|are|has been|have been)\s+born"
# A baby's arrival, said as such: not "came home" or "arrived at school".
_ARRIVED = (
    r"(?:arrived|came|is here|are here)(?!\s+(?:home|back|to|from|over|in|into|with|by|out|up|"
    r"down|along|around|for|at|and)\b)"
)
_RECENT = re.compile(
    r"\b(?:just|finally|today|yesterday|last night|this morning|this week|early|safely)\b|!",
    re.IGNORECASE,
)
_LONG_AGO = re.compile(rf"\b(?:{LONG_AGO_WORDS}|year|decades?)\b", re.IGNORECASE)
_PARTNERS = frozenset(
    lemma(w)
    for w in (
        "wife",
        "husband",
        "hubby",
        "partner",
        "girlfriend",
        "boyfriend",
        "spouse",
        "fiance",
        "fiancee",
    )
)


def _birth(text: str, subject: str) -> Retraction | None:
    """A birth of the speaker's household, or one a household member gave ("Maya's
    daughter gave birth"), or a pregnancy lost ("we lost the baby", "Maya's sister had a
    miscarriage"): its content is whose pregnancy it ends ("" for the household's)."""
    mine = _mine(subject)
    speaker = _speaker(subject)
    child = r"(?:baby|babies|son|daughter|twins|little one|boy|girl)"
    adverbs = r"(?i:(?:just|finally|officially|safely)\s+)*"
    # The child itself, not a thing for it: "had the baby shower" is no birth.
    things = r"(?!\s+(?:shower|sprinkle|monitor|gate|seat|food|clothes|stuff|room|registry)\b)"
    gave = (
        r"(?:gave birth|had (?:the|a|our|her|his|their) (?:baby|babies|twins|boy|girl)"
        rf"{things}|delivered)"
    )
    lost = _lost_pregnancy(text, subject)
    if lost is not None:
        return lost
    member = re.search(
        rf"\b(?i:{mine})\s+(?P<m>(?i:{_KIN_WORDS}))\b(?:\s+[A-Z]\w+)?\s+{adverbs}(?i:{gave})\b",
        text,
    )
    if member is not None:
        return Retraction("birth", "gave birth", member.group("m").lower())
    # Someone named: "Jess had the baby!", "Noor gave birth to twins".
    named = re.search(
        rf"{_CLAUSE_START}(?P<n>[A-Z][a-z]+)\s+{adverbs}(?:gave birth|had (?:the|a|her|their) "
        rf"(?:baby|babies|twins|boy|girl))\b{things}",
        text,
    )
    if named is not None and _someone_else(named.group("n"), subject):
        return Retraction("birth", "gave birth", named.group("n"))
    whose = rf"\b(?i:the|our|{mine})\s+(?:(?:new|little)\s+)?"
    found = (
        re.search(
            rf"\b{speaker}\s+{adverbs}(?i:{gave}|welcomed\s+(?:(?:a|our|the|new|little|baby)\s+)*"
            rf"{child})\b",
            text,
        )
        # "was born" is news only said as news: a child's birthday ("our son was born on
        # May 3") is said for years after.
        or (
            _RECENT.search(text)
            and re.search(
                # "our second daughter, Ava, was born": which child, and a name set off
                rf"{whose}(?:(?i:baby|first|second|third|fourth|fifth)\s+)?(?i:{child})\b"
                rf"(?:,?\s+[A-Z]\w+,?)?\s+{adverbs}(?i:{_BORN})\b",
                text,
            )
        )
        or re.search(
            rf"{whose}(?i:baby|babies|twins|little one)(?:\s+(?i:boy|girl))?(?:\s+[A-Z]\w+)?\s+"
            rf"{adverbs}(?i:{_ARRIVED})\b",
            text,
        )
    )
    if found is None:
        return None
    if _IN_PASSING.search(text[: found.start()]):
        return None  # told in passing ("moved when our son was born"), not news
    if re.match(r"\s+(?:in|at|when|while|before|back)\b", text[found.end() :]) or _LONG_AGO.search(
        without_hints(text)
    ):
        return None  # where, when, or long ago ("was born in Boston", "in 2018"): not news
    return Retraction("birth", "born", "")


# A pregnancy lost, said as such: "had a miscarriage", "we lost the baby at 12 weeks"; not
# "lost the baby weight" nor "lost the baby monitor".
_PREGNANCY_LOST = (
    r"(?:had\s+(?:a\s+)?(?:miscarriage|stillbirth)|miscarried|"
    r"lost\s+(?:the|our|her|their|a|my)\s+(?:baby|babies|pregnancy))"
    r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:at|in|on|last|this|early|yesterday|today|and|but|so|after|"
    r"during|when|because|a)\b)"
)


def _lost_pregnancy(text: str, subject: str) -> Retraction | None:
    """A pregnancy lost, the speaker's household's or a member's ("Maya's sister had a
    miscarriage"): it ends the pregnancy as a birth does (kind ``birth``), unless told in
    passing or long ago ("miscarried in 2019", before the pregnancy now)."""
    adverbs = r"(?i:(?:just|sadly|unfortunately|recently)\s+)*"
    member = re.search(
        rf"\b(?i:{_mine(subject)})\s+(?P<m>(?i:{_KIN_WORDS}))\b(?:\s+[A-Z]\w+)?\s+{adverbs}"
        rf"(?i:{_PREGNANCY_LOST})",
        text,
    )
    found = member or re.search(rf"\b{_speaker(subject)}\s+{adverbs}(?i:{_PREGNANCY_LOST})", text)
    if found is None or _IN_PASSING.search(text[: found.start()]):
        return None
    if _LONG_AGO.search(without_hints(text)):
        return None
    return Retraction("birth", "lost", member.group("m").lower() if member else "")


def birth_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` is a current pregnancy that the birth ends, or holds until the
    birth ("on bed rest until the baby comes"): of the member who gave birth, or, for the
    household's birth, the speaker's own or their partner's."""
    pregnant = (
        r"\b(?:pregnan\w*|expecting|due (?:in|on)|until\s+(?:the\s+)?(?:delivery|birth)|"
        r"until\s+(?:the|my|our|her|his|their)\s+baby\s+(?:comes|arrives|is\s+(?:born|here)))\b"
    )
    if retraction.content[:1].isupper():  # someone named: the pregnancy said of them
        name = re.escape(retraction.content)
        return _current(fact, subject) and bool(
            re.search(rf"\b{name}\b(?!'s)[^,.;!?]*?{pregnant}", fact, re.IGNORECASE)
        )
    if not _about(fact, subject) or not _current(fact, subject):
        return False
    if not re.search(pregnant, fact, re.IGNORECASE):
        return False
    whose = _whose(fact, subject)
    if retraction.content:
        return whose == lemma(retraction.content)
    return whose is None or whose in _PARTNERS


def restatable(retraction: Retraction | None) -> TypeGuard[Retraction]:
    """Whether a later statement of what ``retraction`` ended undoes it ("smokes again"
    after "quit smoking"): not a death, which a later mention ("I miss Juniper so
    much") does not undo, nor a birth (a later pregnancy is another one), nor a request
    to forget, nor a job left: a job held later is another job, and the one left was
    still left ("lost my job" stays when "works at Stripe" follows)."""
    return (
        retraction is not None
        and retraction.kind not in ("death", "birth", "forget")
        and job_ending(retraction) is None
    )


def _norm(cue: str) -> str:
    return re.sub(r"\s+", " ", cue.lower())


def _cut(rest: str, *, correction: bool = False) -> str:
    """The content phrase: ``rest`` up to where its clause (or its time phrase) ends."""
    rest = re.sub(r"\s*\([^)]*\)", "", rest)  # the rule extractor's date hints
    # "the last round of chemo": the treatment, before "last" can read as a time phrase.
    rest = re.sub(rf"^\s*(?:(?:my|her|his|their|the|a|an)\s+)?{_COURSE}", "", rest, flags=re.I)
    if correction:
        end = re.search(r"\s*(?:\.(?!\d)|[;!?()]|\bnot\b|\bbut\b)", rest)
    else:
        end = _CONTENT_END.search(rest)
    phrase = rest[: end.start()] if end else rest
    phrase = re.sub(
        rf"^(?:(?:my|her|his|their|the|a|an|[\w-]+'s)\s+|{_COURSE})+",
        "",
        phrase.strip(),
        flags=re.I,
    )
    return phrase.strip(" ,.'\"")


def _words(text: str, *, marks: bool = False) -> list[str]:
    """Lowercase word tokens, possessive endings dropped, hyphenated words kept whole; with
    ``marks``, each clause mark too, as a token of its own."""
    token = r"[a-z0-9][a-z0-9'-]*" + (r"|[,;:.!?()]" if marks else "")
    return [re.sub(r"'s$|'$", "", w) for w in re.findall(token, fold(text))]


@lru_cache(maxsize=16384)
def content_lemmas(text: str, subject: str) -> tuple[str, ...]:
    """``text``'s content words as lemmas, without function words or the subject's name
    (cached: a write compares each new memory with the same neighbours)."""
    name = fold(subject)
    # *have* is kept, as one word: "doesn't have a cat" ends "has a cat", not "is allergic
    # to cats".
    words = ["have" if w in _HAVE else w for w in _words(text)]
    return tuple(_lemma(w) for w in words if w not in _FUNCTION and w != name)


def _lemma(word: str) -> str:
    """A word's lemma, a condition's adjective as its noun ("allergic" -> "allergy"), a
    medicine's brand as its generic name ("advil" -> "ibuprofen", ``kb.medicine_names``)."""
    found = lemma(word)
    found = _CONDITION_NOUN.get(found, found)
    return _GENERIC.get(found, found)


def _values(text: str, subject: str) -> set[str]:
    """Numbers and proper names in ``text`` (the values a correction can change), not in
    the subject's name ("user-3")."""
    if subject:
        text = re.sub(rf"\b{re.escape(subject)}\b", "", text, flags=re.IGNORECASE)
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


# Chat's openers, which a memory may keep before its subject ("Btw Maya and family adopted
# a greyhound", "Also Maya smokes"): they tell nothing of whose the statement is.
_OPENER = (
    r"(?:(?:so|also|btw|by the way|plus|and|but|oh|ok|okay|well|anyway|anyways|yeah|yes|yep|"
    r"ugh|lol|haha|omg|hey|hi|hmm|honestly|actually|update)\b[,!.:]*\s+)*"
)


def predicate(text: str, subject: str) -> str:
    """``text`` without its subject: what is embedded against a retraction's content."""
    stripped = re.sub(rf"^\s*{_OPENER}{_owner(subject)}\s+", "", text, flags=re.IGNORECASE)
    return stripped or text


def _about(fact: str, subject: str) -> bool:
    """Whether ``fact`` is a statement of the subject's own ("Maya is...", "Maya's car
    is...", after an opener: "Btw Maya ..."), not about someone else ("Tom is Maya's
    brother") or reported ("Maya said:")."""
    pattern = rf"\s*{_OPENER}{_owner(subject)}\b(?!\s+said\b)"
    return re.match(pattern, fact, re.IGNORECASE) is not None


def _of_the_named(fact: str, retraction: Retraction, subject: str) -> bool:
    """Whether ``fact`` is told of someone the ending names, by name ("Sam uses an insulin
    pump", ended by "Sam doesn't use the pump anymore")."""
    found = re.match(rf"\s*{_OPENER}(?-i:([A-Z][a-z]+))\b(?!'|\s+said\b)", fact, re.I)
    if found is None or fold(found.group(1)) == fold(subject):
        return False
    return _lemma(fold(found.group(1))) in content_lemmas(retraction.content, subject)


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


def _holds_now(fact: str, subject: str) -> bool:
    """``_current``, and not told as a state of the past ("Maya was on parole in 2019",
    "used to drink a lot")."""
    was = re.match(r"\s*(?:was|were|used to)\b", predicate(fact, subject), re.IGNORECASE)
    return was is None and _current(fact, subject)


# Nouns of the way a thing is done, not another thing: "quit piano" ends "takes piano
# lessons", "off keto" ends "is on a keto diet"; not "got over the flu", "got a flu shot".
_DOING_WORDS = (
    "lessons classes practice diet regimen routine medication meds pills tablets treatment "
    "therapy sessions habit team club league squad "
    # The service is the thing: "cancelled Hulu" ends "has a Hulu subscription".
    "subscription membership account service pass contract "
    # The device is the thing: "doesn't need the CPAP" ends "uses a CPAP machine".
    "machine device mask pump monitor meter"
)
_DOING = frozenset(lemma(w) for w in _DOING_WORDS.split())


# Words after a thing that no noun is: a clause ("avoids eggs because ...") or how often
# ("takes Eliquis twice a day").
_NOT_A_NOUN = frozenset(("because", "although", "though", "unless", "while", "whenever",
                         "once", "twice", "thrice", "nightly", "weekly", "monthly",
                         "hourly", "most", "some", "several", "few", "half",
                         "almost", "one", "two", "three", "four", "five", "six", "seven",
                         "eight", "nine", "ten"))  # fmt: skip


# The forms a drug is taken in.
_FORMS = frozenset(("inhaler", "inhalers", "pill", "pills", "tablet", "tablets", "capsule",
                    "capsules", "patch", "patches", "shot", "shots", "injection", "injections",
                    "drops", "cream", "spray", "pen", "pens", "pump", "syrup", "gummies",
                    "suppositories", "dose", "doses"))  # fmt: skip


# Prepositions the stop words leave out: a word before one is the thing, not a modifier.
_PREPOSITIONS = word_set(
    "against toward towards despite without within across behind beyond near via versus among "
    "along around past during upon onto underneath beneath inside outside "
    "w"  # "with" as chat types it: "in the hospital w pneumonia"
)


def _modifier_only(fact: str, head: str, content: set[str], subject: str = "") -> bool:
    """Whether every occurrence of ``head`` in ``fact`` only modifies a noun that follows
    ("olive" in "olive oil", "penicillin allergy" in "penicillin allergy test") rather than
    being the thing itself ("olives on pizza", or the way it is done: "piano lessons",
    ``_DOING``). The subject's name is the word *my* the memory rewrote: "visiting Maya's
    mom" is a verb and its object."""
    words = _words(fact, marks=True)  # a clause mark ends the phrase: "allergy, so"
    name = fold(subject)
    places = [i for i, w in enumerate(words) if _lemma(w) == head]
    if not places:
        return True
    for i in places:
        j = i + 1
        while j < len(words) and _lemma(words[j]) in content:
            j += 1
        after = words[j] if j < len(words) else ""
        if after and not after[0].isalnum():
            return False
        if not after or after in _FUNCTION or after in _ADVERBS or not after.isalpha():
            return False
        if after in _PREPOSITIONS:
            return False  # "a restraining order against Maya's ex": the order itself
        if name and after == name:
            return False
        if after in _FORMS and head in _drug_lemmas():
            return False  # "an albuterol inhaler" is the drug, in the form it is taken
        if after in _NOT_A_NOUN:
            return False  # "avoids eggs because they make Maya sick", "Eliquis twice a day",
            # "Advil most days"
        if word_form(after) in ("past", "ing"):
            return False  # "a cat named Luna", "a bakery selling bread"
        if verbish(after) and _named_before(head, after, fact):
            return False  # "Maya's son Ethan lives at home": a name and its verb
        if _lemma(after) in _DOING:
            return False
    return True


def _named_before(head: str, after: str, fact: str) -> bool:
    """Whether ``fact`` says ``head`` as a name (capitalised) right before ``after``."""
    name = re.escape(head[:1].upper() + head[1:])
    return re.search(rf"\b{name}\s+{re.escape(after)}\b", fact) is not None


# A household member's words, for a clause opened by one ("my son outgrew ...").
_KIN_WORDS = "|".join(
    sorted(
        {w for words in MEMBER_WORDS.values() for w in words.split()}
        | {"sister", "brother", "kid", "kids", "children", "child", "sons", "daughters"}
        | {f"{w}-in-law" for w in ("mother", "father", "sister", "brother", "son", "daughter")},
        key=lambda w: (-len(w), w),
    )
)
_OTHERS = frozenset(lemma(w) for w in OTHER_PEOPLE_WORDS.split())
_OTHER_WORDS = "|".join(sorted(OTHER_PEOPLE_WORDS.split(), key=lambda w: (-len(w), w)))
_MEMBERS = frozenset(lemma(w) for w in _KIN_WORDS.split("|"))
_PEOPLE = _MEMBERS | _OTHERS


def _whose(fact: str, subject: str) -> str | None:
    """The person a fact of the subject's is about when it is not the subject: a household
    member or someone else they know ("Maya's husband takes ...", "Maya's coworker Lena is
    moving abroad", "Maya's roommate's cat is 8"), as a lemma; None for the subject's own."""
    found = re.match(
        rf"\s*{_mine(subject)}\s+(?:(?:best|close|old|new|former|older|younger|"
        r"little|big)\s+)?([\w-]+)",
        fact,
        re.IGNORECASE,
    )
    if found is None:
        return None
    word = lemma(fold(found.group(1)))
    return word if word in _PEOPLE else None


def _named_owner(fact: str, subject: str) -> str:
    """Whom a fact of another person's is about, with the name it gives them ("maya's son
    leo"), lower case; "" for the subject's own."""
    whose = _whose(fact, subject)
    if whose is None:
        return ""
    named = re.match(rf"\s*(?i:{_mine(subject)})\s+(?:[\w-]+\s+)?[\w-]+,?\s+([A-Z][\w'-]*)", fact)
    return f"{whose} {named.group(1).lower()}" if named else whose


def _not_theirs(wanted: Sequence[str], fact: str, subject: str, shared: bool = False) -> bool:
    """Whether ``fact`` is another person's while what ends it names neither them nor
    their name ("I quit smoking" does not end "my husband smokes"; "my cat is 9" not "my
    roommate's cat is 8"; "Theo outgrew his egg allergy" ends "my son Theo has an egg
    allergy").
    An ending said of the speaker and family (``shared``) ends a fact the speaker shares
    with a member ("Maya's husband and Maya are vegetarian")."""
    whose = _whose(fact, subject)
    if whose is None or whose in wanted:
        return False
    # A name after the word for them, compared as the ending's words are (as lemmas).
    named = (n.groups() for n in re.finditer(r"\b([\w-]+),?\s+([A-Z][\w'-]*)", fact))
    if any(_lemma(fold(a)) == whose and _lemma(fold(b)) in wanted for a, b in named):
        return False  # "Maya's son Theo ...", ended by what names Theo (or Ivy, as "ivi")
    return not (shared and _with_the_speaker(fact, subject))


def _with_the_speaker(fact: str, subject: str) -> bool:
    """Whether ``fact``'s subject is a member together with the speaker ("Maya's husband
    and Maya are ...")."""
    name = re.escape(subject) if subject else "I"
    return re.match(rf"\s*{_mine(subject)}\s+[\w-]+\s+and\s+{name}\b", fact, re.I) is not None


def ended_slot(retraction: Retraction) -> tuple[str, str] | None:
    """(slot, value) when ``retraction`` ends a slot of ``supersede``: leaving a job at a
    named employer, moving out of or retiring from a named place, ending a relationship
    (value "": any, with the person named). Such a retraction ends only a fact filling
    that slot ("left my job at Google" ends "works at Google", not "hosts the family at
    Christmas"; "broke up with Tom" ends "is dating Tom", not "plays tennis with Tom")."""
    content, first = retraction.content, retraction.cue.split()[0]
    left = job_ending(retraction)
    if left is not None:
        return "employer", left
    if retraction.cue == "moved out":
        return "household", ""  # "Dana moved out" ends "Dana is staying with us"
    if first in ("broke", "broken", "split", "divorced", "divorcing"):
        return "relationship", ""  # with the person named: "is dating Tom", "married to Tom"
    job = re.match(r"(?:job|position|role|post)\s+(?:at|with|for)\s+(.+)", content, re.I)
    named = content[:1].isupper()
    value = re.sub(r"\s+", " ", job.group(1) if job else content).strip(" .,").lower()
    if not job and re.fullmatch(rf"(?:the\s+)?(?:{_SERVICE})", value):
        return None  # "left the Navy", "retired from the Army": served in, read as said
    # "left Deloitte"; not "left the choir", nor "Emma left the orchestra" (her name first)
    if job or (first == "left" and content.split()[-1][:1].isupper()):
        return "employer", value
    if named and first in ("moved", "moving") and retraction.cue != "moved from":
        return "residence", value  # not one thing moved on from: "Jay moved from the crib"
    if named and first in ("retired", "retiring"):
        return "employer", value
    return None


def job_ending(retraction: Retraction) -> str | None:
    """The workplace an ending of a job names, lower case ("quit my job at the bakery" ->
    "bakery", "got laid off from Acme" -> "acme"), "" for the job whatever it is ("I quit
    my job", "I retired"), or None when ``retraction`` ends no job. A member's or someone
    named's ending has their word first ("husband job at Acme")."""
    if retraction.kind != "ending":
        return None
    found = re.fullmatch(
        r"(?:[\w-]+\s+)?(?:job|career|role|position|post)(?:\s+(?:at|with|for|from|by|as)\s+"
        r"(?P<at>.+))?",
        retraction.content,
        re.IGNORECASE,
    )
    if found is None:
        return None
    return re.sub(r"\s+", " ", found.group("at") or "").strip(" .,").lower()


# A time a thing goes on for: "working for two years", "for a while".
_A_WHILE = (
    r"(?:(?:a|an|the)\s+)?(?:few|couple|while|bit|long|\d+|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|several|many|years?|months?|weeks?|days?|hours?|ages)\b"
)
# A sentence that states a job held: "works as a nurse", "works at the bakery", "is a
# teacher at Lincoln Elementary", "is a senior software engineer".
# How a job is held, between "works" and where: "works part-time as", "works nights at".
_HOW_HELD = (
    r"(?:(?:full-time|part-time|full|part|time|nights|night|days|weekends|weekend|remotely|"
    r"there|shifts|now|still|currently|mostly|mainly)\s+){0,2}"
)
_JOB_FACT = re.compile(
    rf"\b(?:works|working)\s+{_HOW_HELD}(?:as|at|for(?!\s+{_A_WHILE})"
    r"|(?<=works )(?:\w+\s+){0,2}in)\s|"
    r"\b(?:job|position|role)\s+(?:as|at|with)\s|\bemployed\s+(?:at|by)\s|"
    r"\b(?:is|am|are|'m|'re)\s+(?:now\s+)?(?:an?\s+)?(?:[\w-]+\s+){0,2}?"
    rf"(?:{'|'.join(OCCUPATIONS.split())})s?\b",
    re.IGNORECASE,
)


def _job_left(where: str, fact: str) -> bool:
    """Whether ``fact`` states the job an ending of a job at ``where`` ends (``job_ending``):
    any job when no workplace is named; else one naming the workplace ("the Boots on High
    Street"), or a word of the same stem ("pharmacy": "works as a pharmacist", "bakery":
    "a baker")."""
    if _JOB_FACT.search(fact) is None:
        return False
    if not where:
        return True
    if re.search(rf"\b{re.escape(where)}\b", fact, re.IGNORECASE):
        return True
    named = [w for w in _words(where) if w not in _FUNCTION and w not in _WORKPLACE] or [
        w for w in _words(where) if w not in _FUNCTION
    ]
    said = _words(fact)
    if bool(named) and all(any(_kin_words(w, x) for x in said) for w in named):
        return True
    # A job the kind of workplace is known for: "the coffee shop" for "a barista".
    kind = " ".join(w for w in _words(where) if w not in _FUNCTION)
    return bool(set(_WORKED_AT.get(kind, "").split()) & set(said))


# Kinds of workplace and the jobs held there, from general knowledge; a job of the same
# stem as its place ("pharmacy": "pharmacist") needs no entry.
_WORKED_AT = {
    "coffee shop": "barista baristas", "cafe": "barista baristas waiter waitress",
    "café": "barista baristas waiter waitress", "coffeehouse": "barista",
    "restaurant": "waiter waitress server chef cook host hostess dishwasher",
    "diner": "waiter waitress server cook", "bar": "bartender barback",
    "pub": "bartender barman barmaid", "hospital": "nurse doctor physician surgeon",
    "clinic": "nurse doctor physician", "school": "teacher principal", "bank": "teller banker",
    "salon": "hairdresser stylist", "garage": "mechanic",
    "law firm": "lawyer attorney paralegal solicitor", "warehouse": "picker packer forklift",
    "supermarket": "cashier", "grocery store": "cashier", "store": "cashier",
    "daycare": "caregiver", "gym": "trainer",
}  # fmt: skip


# Words for any place of work: "the mechanical engineering company" is named by the rest.
_WORKPLACE = word_set(
    "company firm office place shop store business job work agency factory plant site"
)


def _kin_words(a: str, b: str) -> bool:
    """Whether two words are one word's forms or share its stem: "pharmacy" and
    "pharmacist", "bakery" and "baker", "nursing" and "nurse"."""
    if lemma(a) == lemma(b):
        return True
    common = _common_start(a, b)
    return common >= 5 and common >= min(len(a), len(b)) - 2


def _common_start(a: str, b: str) -> int:
    """How many letters two words share from their start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def lexical_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` states what an ending, a negation or a request to forget ends,
    word for word (a request to forget may name a past event too)."""
    if retraction.cue == EVENT_DONE and retraction.whose[:1].isupper():
        # done by someone named: it ends a fact told of them ("Maya said: Priya is ...")
        named = _names(fact, retraction.whose, subject)
        return named and _prepared_for(retraction, fact, subject)
    valued = holds_a_value(detect(fact, subject))
    if not _about(fact, subject) and not _of_the_named(fact, retraction, subject):
        # A new value of a thing of the subject's ("The doctor raised Maya's metformin to
        # 1000 mg"): told as an event, it is the fact that holds now, from the thing on.
        own = _own_part(fact, subject) if valued else None
        if own is None:
            return False
        fact = own
    if retraction.whose in _GENDERED:
        # "his Zyrtec": the member's whom the pronoun may stand for, as if named.
        owner = _pronoun_owner(retraction, fact, subject)
        if owner is None:
            return False
        retraction = replace(retraction, content=f"{owner} {retraction.content}", whose="")
    wanted = content_lemmas(retraction.content, subject)
    if retraction.cue == CONCEIVED:
        return _trying_ended(fact, subject)
    if retraction.cue in (GOAL_WEIGHT, TRAINED, WEANED, ADMITTED):  # the speaker's or a member's
        member = lemma(retraction.whose) if retraction.whose else None
        aimed = _AIMED_AT.get(retraction.cue) or re.compile(
            rf"\b{retraction.content.split()[0]}[- ]?training\b", re.I
        )
        # A child trained is named as who is trained: "Maya is sleep training Maya's son".
        theirs = _whose(fact, subject) == member or (
            retraction.cue == TRAINED and member in content_lemmas(fact, subject)
        )
        return theirs and aimed.search(fact) is not None and _holds_now(fact, subject)
    if retraction.cue == CLEARED:
        return _cleared_from(retraction, fact, subject)
    if retraction.cue in _ENDS_WHAT:  # the same one's, said now
        member = lemma(retraction.whose) if retraction.whose else None
        ends = _ENDS_WHAT[retraction.cue](fact)
        return ends and _whose(fact, subject) == member and _holds_now(fact, subject)
    if retraction.cue == GROUP_ENDED and not _A_GROUP.search(fact):
        return False  # a group by its name ends only a fact that calls it one
    if retraction.cue == FOSTER_ENDED:
        return bool(
            re.search(r"\bfoster(?:ing|s|ed)?\b", fact, re.IGNORECASE)
            and re.search(rf"\b{re.escape(retraction.content)}\b", fact)
            and _holds_now(fact, subject)
        )
    if retraction.cue == EVENT_DONE:  # whose: the speaker's own, or the member's it names
        member = lemma(retraction.whose) if retraction.whose else None
        return _whose(fact, subject) == member and _prepared_for(retraction, fact, subject)
    if not retraction.anyone and _not_theirs(wanted, fact, subject, retraction.shared):
        return False
    if retraction.cue == VISIT_ENDED:
        return _STAYING.search(fact) is not None and _holds_now(fact, subject)
    if retraction.cue == "dropped" and not _does(retraction, fact):
        return False  # what was dropped is an activity the fact does
    if (
        retraction.kind == "ending"
        and _A_GROUP.fullmatch(wanted[-1] if wanted else "")
        and _LIKED.search(fact)
    ):
        return False  # "quit the band" ends playing in one, not "Maya's favorite band is Queen"
    if retraction.cue == TOLERATES and not _AVOIDS.search(fact):
        return False  # a food had again ends only an allergy or an intolerance to it
    if (
        retraction.kind == "ending"
        and retraction.cue != TOLERATES
        and not _AVOIDS.search(retraction.content)
        and _avoided(fact, set(content_lemmas(retraction.content, subject)))
    ):
        return False  # stopping a drug (or giving up a food) is no end of an allergy to it
    if retraction.cue == HEALED and not _INJURED.search(fact):
        return False  # a part healed ends only an injury of it
    if retraction.cue in (GOT_BACK, CAUGHT_UP):
        # The thing, said as away or owed: "Maya's license is suspended", "behind on rent".
        away = _STATE_FACT[retraction.cue]
        thing = set(content_lemmas(retraction.content, subject))
        have = set(content_lemmas(fact, subject))
        return (
            bool(thing)
            and all(_kin_in(w, have) for w in thing)
            and away.search(fact) is not None
            and _whose(fact, subject) is None
            and _holds_now(fact, subject)
        )
    if retraction.cue == RETURNED:
        # Whose: a member the content names first ("husband deployment"), else the subject's.
        words = list(wanted)
        who = words.pop(0) if words and words[0] in _PEOPLE else None
        place = {w for w in words if w not in _TRIP_WORDS}
        have = set(content_lemmas(fact, subject))
        return (
            _whose(fact, subject) == who
            and _AWAY_FROM_HOME.search(fact) is not None
            and all(_kin_in(w, have) for w in place)
            and _holds_now(fact, subject)
        )
    if retraction.cue in (SOBER, BACK_AT_WORK, REMISSION, JOB_FOUND):
        # Whose: a member the content names ("brother alcohol"), else the subject's own.
        whose = set(wanted) - set(content_lemmas(retraction.content.split()[-1], subject))
        have = set(content_lemmas(fact, subject))
        mine = whose <= have if whose else _whose(fact, subject) is None
        away = _STATE_FACT[retraction.cue]
        return mine and away.search(fact) is not None and _holds_now(fact, subject)
    if retraction.cue == GONE and not _HAS_IT.search(fact):
        return False  # an illness had, not "loves snow" when "the snow is gone"
    if retraction.cue in (CALLED_OFF, OVER, GONE, GROUP_ENDED) and not _holds_now(fact, subject):
        return False  # a plan called off, not one carried out before ("had surgery in 2019")
    if retraction.cue == SWITCHED_TO:
        return _same_kind_of_drug(retraction, fact) and _current(fact, subject)
    if retraction.cue == ACQUIRED:
        return _without(retraction, fact) or _sought(retraction, fact, subject)
    if retraction.cue == "free" and retraction.content == "debt":
        # Free of debt ends a debt had or paid on, not a view of debt ("hates debt").
        return _OWING.search(fact) is not None and _current(fact, subject)
    if retraction.cue in ("paid off", "paid back"):
        # A debt paid ends the debt, never the thing bought with it ("paid off the car"
        # ends "has a car loan", not "drives a Civic").
        owed = set(content_lemmas(retraction.content, subject)) - _DEBT_WORDS
        return (
            bool(_DEBT.search(fact))
            and owed <= set(content_lemmas(fact, subject))
            and _current(fact, subject)
        )
    where = job_ending(retraction)
    if where is not None:
        # Whose job: a member's or someone named's ending names them first ("husband job").
        who = retraction.content.split()[0]
        if who.lower() != "job" and _lemma(fold(who)) not in content_lemmas(fact, subject):
            return False
        if "new" in retraction.cue.split() and _JOBLESS.search(fact):
            return _current(fact, subject)  # a new job ends the search for one
        return _current(fact, subject) and _job_left(where, fact)
    slot = ended_slot(retraction) if retraction.kind == "ending" else None
    if slot is not None:
        value = slots_of(fact).get(slot[0])
        if value is None and slot[0] == "relationship" and _partner_told(retraction, fact):
            value = ""  # "Maya's husband Tom is a teacher": Tom is her husband
        if value is None or (slot[1] and value != slot[1]):
            return False
        if slot[1]:
            return True
    if not wanted:
        return False
    have = set(content_lemmas(fact, subject))
    have |= {v for w in have if w.endswith("er") for v in _doer(w)}  # "a smoker" smokes
    if retraction.cue == TOLERATES:
        have |= {w.removesuffix("-free") for w in have}  # "dairy-free": dairy, left out
    if set(wanted) & _LIGHT and (have & _LIGHT or valued or re.search(r"\bon\s+\w", fact)):
        wanted = tuple(w for w in wanted if w not in _LIGHT) or wanted
    if set(wanted) & _ATTEND and (have & _ATTEND or _met(retraction.content, fact, subject)):
        wanted = tuple(w for w in wanted if w not in _ATTEND) or wanted  # "going to therapy"
    if set(wanted) & _JOB and "work" in have:
        wanted = tuple(w for w in wanted if w not in _JOB) or wanted  # "quit the bakery job"
    # A thing handed on may be named by the head of the word the fact has for it: "sold
    # the boat" for "owns a sailboat", "gave away the bike" for "rides a motorbike".
    handed = _HANDED.search(retraction.cue) is not None or retraction.cue == "got rid of"
    if not all(_kin_in(w, have) or (handed and _headed(w, have)) for w in wanted):
        return False  # each word the ending names, or one of its stem ("therapy": "therapist")
    # A word missing from the fact stands for the word of its stem there (the fact's own
    # words in their order, so the same one every time).
    order = content_lemmas(fact, subject)
    wanted = tuple(
        w
        if w in have
        else next((h for h in order if _kin_words(w, h) or (handed and _headed(w, {h}))), w)
        for w in wanted
    )
    # A food had again names the allergy it ends by what modifies it ("peanut allergy").
    food = fold(retraction.content.split()[-1]) if retraction.content else ""
    tolerated = retraction.cue == TOLERATES and re.search(
        rf"\b{re.escape(food.removesuffix('s'))}\w*(?:\s+(?:allerg|intoleran|sensitiv)|{_FREE_OF})",
        fold(fact),
    )
    if (
        not retraction.verbal
        and not tolerated
        and retraction.cue != GROUP_ENDED  # a name, read whole
        and _modifier_only(fact, wanted[-1], set(wanted), subject)
    ):
        return False
    if retraction.cue == HEALED and _hurt_lately(fact, subject):
        return True  # "Maya sprained Maya's ankle" is the injury "the ankle healed" ends
    return retraction.kind == "forget" or valued or _current(fact, subject)


# How an injury is told as the event that caused it.
_HURTING = frozenset(
    lemma(w)
    for w in ("broke", "fractured", "sprained", "strained", "tore", "twisted", "hurt",
              "injured", "dislocated", "pulled", "burned", "bruised", "jammed")
)  # fmt: skip


def _hurt_lately(fact: str, subject: str) -> bool:
    """Whether ``fact`` tells an injury by the event that caused it ("Maya sprained Maya's
    ankle playing soccer", "broke his wrist skiing"), not long ago ("in 2015", "as a kid",
    "when Maya was ten"): an injury that may still be healing."""
    words = _words(predicate(fact, subject))
    said = without_hints(fact)
    return (
        bool(words)
        and lemma(words[0]) in _HURTING
        and not _LONG_AGO.search(said)
        and not re.search(r"\b(?:as a (?:kid|child|teen)|when\s+\w+\s+(?:was|were))\b", said, re.I)
    )


# Whom "his" and "her" may stand for, of the people a fact names first (``_whose``), as
# lemmas (``person.HE_KIN``, ``person.SHE_KIN``).
_GENDERED = {
    "his": frozenset(lemma(w) for w in HE_KIN),
    "her": frozenset(lemma(w) for w in SHE_KIN),
}
_SEXED = _GENDERED["his"] | _GENDERED["her"]


def treated(retraction: Retraction, part: str, whole: str, subject: str) -> bool:
    """Whether ``part``, a clause of the memory ``whole``, tells what the injury that a
    healing ends in another of its clauses is treated with: "his leg has healed" ends
    "Maya's son broke his leg" and "he's in a cast" of one memory. Not a treatment that
    names a part of its own ("his arm is in a sling")."""
    if retraction.cue != HEALED or not _TREATED_WITH.search(part):
        return False
    if set(content_lemmas(part, subject)) & _BODY:
        return False
    owner = _named_owner(part, subject)
    return any(
        clause != part
        and _named_owner(clause, subject) == owner
        and lexical_match(retraction, clause, subject)
        for clause in parts(whole, subject)
    )


def stands_for(retraction: Retraction, fact: str, subject: str) -> str:
    """Whom ``retraction``'s "his" or "her" stands for in ``fact`` ("son"), by their
    relation (``_pronoun_owner``); "" when it names whose it is otherwise."""
    if not by_pronoun(retraction):
        return ""
    return _pronoun_owner(retraction, own_words(fact), subject) or ""


def readings(text: str, subject: str) -> list[Retraction]:
    """What ``text`` ends, read whole (``detect``) and then clause by clause: "Maya quit
    smoking and stopped drinking coffee" ends both habits, "Maya's son is in 5th grade now
    and Maya's daughter quit the swim team" ends the team too. A clause adds an ending or a
    negation of its own, of what ``text`` asserts (``rules.asserted``); a whole that reads
    as a request to forget, a correction, a change, a death or a birth is read only whole."""
    whole = detect(text, subject)
    out = [whole] if whole is not None else []
    if whole is not None and whole.kind not in ("ending", "negation", "update"):
        return out
    said = asserted(text)
    clauses = parts(said, subject)
    pronouns = re.findall(rf"{_CLAUSE_START}(?:she|he|they)\b", said, re.IGNORECASE)
    if clauses and len(pronouns) > len(_pronoun_leads(said, subject)):
        return out  # "Raj told his dad and he quit": whom "he" stands for is unsure
    for clause in clauses:
        found = detect(clause, subject)
        if found is None or found.kind not in ("ending", "negation"):
            continue
        if all((found.cue, found.content) != (r.cue, r.content) for r in out):
            out.append(found)
    return out


def by_pronoun(retraction: Retraction) -> bool:
    """Whether ``retraction`` names whose it is by "his" or "her" alone ("his leg has
    healed"): whom the pronoun stands for is read from the facts it may end."""
    return retraction.whose in _GENDERED


def _pronoun_owner(retraction: Retraction, fact: str, subject: str) -> str | None:
    """Whom an ending's "his" or "her" (``Retraction.whose``) stands for in ``fact``: the
    person the fact is about, as ``_whose`` words them, when the pronoun may be theirs;
    None for the subject's own fact or another's the pronoun cannot stand for: a relation
    of the other sex, or one the fact itself calls by the other pronoun ("Maya's coworker
    Dan broke his leg" for "her leg")."""
    owner = _whose(fact, subject)
    if owner is None or (owner in _SEXED and owner not in _GENDERED[retraction.whose]):
        return None
    other = {"his": r"\b(?:she|her|hers|herself)\b", "her": r"\b(?:he|his|him|himself)\b"}
    if owner not in _SEXED and re.search(other[retraction.whose], fact, re.IGNORECASE):
        return None
    return owner


def _kin_in(word: str, have: set[str]) -> bool:
    """Whether ``have`` holds ``word``, or, for a word of six letters or more, a word of
    its stem."""
    return word in have or (len(word) >= 6 and any(_kin_words(word, h) for h in have))


def _headed(word: str, have: set[str]) -> bool:
    """Whether ``have`` holds a closed compound whose head is ``word`` ("sailboat" for
    "boat"): a word of three letters or more, after three or more."""
    head = word.removesuffix("e")  # lemmas may drop a last "e" ("motorbike": "motorbik")
    return len(word) >= 3 and any(len(h) >= len(word) + 3 and h.endswith(head) for h in have)


def _doer(word: str) -> set[str]:
    """The verb an agent noun may be the doer of, as lemmas: "smoker" -> smoke, "teacher"
    -> teach, "runner" -> run, "writer" -> write."""
    stem = word[:-2]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
        return {lemma(stem[:-1])}  # "runner"
    return {lemma(stem), lemma(stem + "e")}


def holds_a_value(retraction: Retraction | None) -> bool:
    """Whether a statement read as a retraction also states what holds now: a change or
    an update gives a thing its new value ("Maya's rent went up to $1,500", "Maya is on
    20 mg now"), which a later ending ends ("Maya stopped paying rent"), where an ending,
    a negation, a correction, a death or a request to forget states no fact of its own;
    a new job begun is the job held now ("Maya started a new job at Stripe"), and so are
    a thing got ("we adopted a dog") and a pregnancy begun ("Maya is pregnant")."""
    if retraction is not None and retraction.kind == "ending":
        words = retraction.cue.split()
        return (words[0] in _NEW_JOB and "new" in words) or retraction.cue in (ACQUIRED, CONCEIVED)
    return retraction is not None and retraction.kind in ("change", "update")


def _own_part(fact: str, subject: str) -> str | None:
    """``fact`` from the first thing of the subject's it names on ("The doctor bumped
    Maya's sertraline up" -> "Maya's sertraline up"), or None."""
    found = re.search(rf"\b{_mine(subject)}\s", fact, re.IGNORECASE)
    return fact[found.start() :] if found else None


# Verbs that only carry what is taken or used: "doesn't need the cane anymore" ends "uses a
# cane", "stopped taking lisinopril" ends "is on lisinopril". Not *have* (see
# ``content_lemmas``).
_LIGHT = frozenset(["need", "use", "take", "wear"])
# Ways of attending one thing: "stopped going to therapy" ends "sees a therapist".
_ATTEND = frozenset(lemma(w) for w in ("go", "see", "visit", "attend"))
# Someone seen, by name: "stopped seeing Dr. Lee".
_SEEN = re.compile(
    r"(?:seeing|visiting)\s+(?P<who>(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
)


def _met(content: str, fact: str, subject: str) -> bool:
    """Whether ``content`` ("seeing Dr. Lee") names someone ``fact`` says the subject meets
    or has as theirs ("a weekly call with Dr. Lee", "Maya's therapist, Dr. Lee")."""
    found = _SEEN.fullmatch(content)
    if found is None:
        return False
    who = re.escape(found["who"])
    named = re.search(rf"\b(?:with|{re.escape(subject)}'s\s+\w+,?)\s+{who}\b", fact)
    return named is not None and _current(fact, subject)  # not "went hiking with Tom"


# A job is where one works: "quit the bakery job" ends "works at the bakery".
_JOB = frozenset(lemma(w) for w in ("job", "gig", "jobs"))
# A condition said as an adjective is the condition: "allergic to milk", "milk allergy".
_CONDITION_NOUN = {
    "allergic": "allergy", "diabetic": "diabetes", "asthmatic": "asthma",
    "epileptic": "epilepsy", "anemic": "anemia", "anaemic": "anaemia",
    "arthritic": "arthritis", "dyslexic": "dyslexia", "autistic": "autism",
    "pregnant": "pregnancy", "insomniac": "insomnia",
}  # fmt: skip
# A brand read as its generic name, both as lemmas: "takes Advil" is ended by "stopped the
# ibuprofen", and "Maya's levothyroxine dose went up" is a dose of "Synthroid".
_GENERIC = {lemma(other): lemma(generic) for other, generic in medicine_names().items()}

# A fact that already tells of a death ("lights a candle for Dad, who passed away").
_DEATH_TOLD = re.compile(rf"\b(?:{_DIED}|late|lost|death|funeral|grave|memorial)\b", re.I)
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
    told = _about(fact, subject) or _of_the_named(fact, retraction, subject)
    if not told or not _current(fact, subject) or _DEATH_TOLD.search(fact):
        return False  # a fact that already tells the death is no longer current either way
    if re.fullmatch(NEVER_BACK, retraction.cue) and not re.search(
        rf"\b(?:{_PETS})s?\b", fact, re.I
    ):
        return False  # only a pet is gone for good when it never came back
    if retraction.whose:
        kin = next((group for group in _SAME_KIN if retraction.whose in group), (retraction.whose,))
        either = "|".join(map(re.escape, kin))
        if not re.search(rf"\b(?:{re.escape(subject)}'s|my|our)\s+(?:{either})\b", fact, re.I):
            return False  # "my mom's dog Rex died" ends only what is told of Mom's
    who = retraction.content.lower()
    names = next((group for group in _SAME_KIN if who in group), (who,))
    # A word of the household or a pet in any case ("Grandpa", "grandpa"); a name as a name
    # is written: "Phone died." names no phone of "Maya's phone number is ...".
    word = len(names) > 1 or lemma(who) in _MEMBERS or re.fullmatch(_PETS, who) is not None
    if not word:
        names = (retraction.content,)
    either = "|".join(map(re.escape, names))
    found = re.search(
        rf"\b(?:{either})s?\b(?!'s|')\s*(?P<next>[\w']*)", fact, re.IGNORECASE if word else 0
    )
    if found is not None and _listed(fact, found.start(), found.end()):
        # "Miso and Tofu are our cats": the others named still hold; "two cats, Miso and
        # Tofu": they stay told (``unlisted``).
        return unlisted(retraction, fact) != fact
    # What holds now of them, not what was ("Mom was interested in art"); "a dog named Rex"
    # names it.
    return (
        found is not None
        and (
            word_form(found.group("next").lower()) != "past"
            or found.group("next").lower() in ("named", "called")
        )
        and (found.group("next").lower() not in ("was", "were", "had", "used"))
    )


def _listed(fact: str, start: int, end: int) -> bool:
    """Whether the name at ``fact[start:end]`` is one of a list of names ("Miso and Tofu",
    "Tofu, Miso and Bean")."""
    before = re.search(r"[A-Z][\w'-]*(?:,\s*|\s+(?:and|&)\s+)$", fact[:start])
    after = re.match(r"\s*(?:,\s*|\s+(?:and|&)\s+)[A-Z]", fact[end:])
    return before is not None or after is not None


def _age_of(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` only states the age of whom ``retraction`` names (the speaker, or a
    household member's word), as another number: "Maya's daughter is 7 (years old)"."""
    *member, value = retraction.content.split()
    whose = re.escape(subject)
    if member and member[0][:1].isupper():
        # Someone named: "Maya's daughter Zoe is 7" or "Zoe is 7".
        whose = rf"(?:{whose}'s\s+(?:{_KIN_WORDS})\s+)?{re.escape(member[0])}"
    elif member:
        whose += rf"'s\s+{re.escape(member[0])}(?:\s+[A-Z][a-z]+)?"  # "Maya's daughter (Zoe)"
    found = re.match(
        rf"\s*{whose}\s+(?:is|was|turned)\s+(?:now\s+)?(?P<v>\d{{1,3}})"
        r"(?:\s+(?:years?|yrs?)(?:\s+old)?)?\s*[.!]?\s*$",
        fact,
        re.IGNORECASE,
    )
    if found is None and member and member[0][:1].isupper():
        listed = _listed_age(member[0], fact)  # "two kids, Eli who is 4 and Ruby who is 2"
        return listed is not None and listed.group("v") != value
    return found is not None and found.group("v") != value


def _listed_age(name: str, fact: str) -> re.Match[str] | None:
    """The age of ``name`` in a list of people's ages ("Eli who is 4 and Ruby who is 2",
    "Eli (4) and Ruby (2)"), with the age as group ``v``; None when ``fact`` lists no
    one else's age."""
    aged = r"(?:,?\s+who(?:'s|\s+is)\s+|\s+is\s+|\s*\(|,\s+)(?P<v>\d{1,2})\b(?!\s*(?:%|mg|kg|lbs?))"
    ages = list(re.finditer(r"\b(?P<n>[A-Z][a-z]+)" + aged, fact))
    found = [m for m in ages if m.group("n") == name]
    return found[0] if len(found) == 1 and len(ages) >= 2 else None


def left_told(retraction: Retraction | None, fact: str, subject: str) -> str:
    """``fact`` as ``retraction`` leaves it told: a parting's partner named alone
    (``parted``), an age reached in a list of ages rewritten (``reaged``), a pet that died
    out of a count of pets (``unlisted``); else as it is."""
    told = unlisted(retraction, reaged(retraction, parted(retraction, fact, subject)))
    return each_told(retraction, told, subject)


# What two people are or do only together: no one of them alone.
_MUTUAL = re.compile(
    r"\b(?:together|each other|one another|married|engaged|dating|divorced|separated|a couple|"
    r"partners|share|shared|met|co-?own|co-?parent)\b",
    re.IGNORECASE,
)
# A plural verb of two people said as one of each: "are" -> "is".
_ONE_OF_TWO = {
    "are": "is", "were": "was", "have": "has", "do": "does", "aren't": "isn't",
    "weren't": "wasn't", "haven't": "hasn't", "don't": "doesn't",
}  # fmt: skip


def each_told(retraction: Retraction | None, fact: str, subject: str) -> str:
    """``fact`` told of the speaker and one member together ("Maya's wife and Maya are
    vegetarian") as one sentence for each ("Maya's wife is vegetarian. Maya is
    vegetarian."), when ``retraction`` ends what it says of one of them alone: the speaker's
    own ending, or the member's. Said of the household ("we're not vegetarian anymore"),
    it ends both, and the fact stays as it is."""
    if retraction is None or retraction.shared or retraction.kind not in ("ending", "negation"):
        return fact
    name = re.escape(subject)
    member = rf"{name}'s\s+[\w-]+(?:\s+[A-Z][a-z]+)?"
    found = re.fullmatch(
        rf"\s*(?:(?P<a>{member})\s+and\s+{name}|{name}\s+and\s+(?P<b>{member}))\s+"
        r"(?:both\s+)?(?!both\b)(?P<verb>[\w']+)(?:\s+(?:both\s+)?(?P<rest>[^.;!?]+?))?\s*[.!]?\s*",
        fact,
    )
    if found is None or retraction.cue == PARTED or _MUTUAL.search(fact):
        return fact  # what holds of the two only together: "live together", "are married"
    verb = found.group("verb")
    low = verb.lower()
    if low in _ONE_OF_TWO:
        verb = _ONE_OF_TWO[low]
    elif word_form(low) != "past":
        if not low.isalpha() or low in ADVERBS or low.endswith("ly") or word_form(low):
            return fact  # no plain verb read after the two ("often eat"): told as it is
        verb = base_verb_s(low)
    other = found.group("a") or found.group("b")
    said = f"{verb} {found.group('rest')}" if found.group("rest") else verb
    return f"{other} {said}. {subject} {said}."


_PLURAL_PETS = rf"(?:(?:{_PETS})s?|puppies|bunnies|ponies|mice|fishes)"
_A_PET = re.compile(rf"\b{_PLURAL_PETS}\b", re.IGNORECASE)
_NAMES = r"[A-Z][a-z]+(?:\s*,\s*[A-Z][a-z]+)*,?\s+(?:and|&)\s+[A-Z][a-z]+"
# Pets counted and named: "two cats, Luna and Ziggy", "3 dogs (Rex, Bo and Max)", "two
# dogs named Rex and Bella"; or named together: "Maya's dogs are named Rex and Bella".
_COUNTED_PETS = re.compile(
    r"\b(?P<n>two|three|four|five|[2-5])\s+(?P<kind>" + _PLURAL_PETS + r")"
    r"(?:\s*[,:(]\s*|\s+(?:named|called)\s+)(?P<names>" + _NAMES + r")\)?",
    re.IGNORECASE,
)
_PETS_NAMED = re.compile(
    r"\b(?P<kind>" + _PLURAL_PETS + r")\s+are\s+(?:named|called)\s+(?P<names>" + _NAMES + ")",
    re.IGNORECASE,
)
_COUNT = {"two": 2, "three": 3, "four": 4, "five": 5}
_COUNT_WORD = {v: k for k, v in _COUNT.items()}


def unlisted(retraction: Retraction | None, fact: str) -> str:
    """``fact`` without a pet that died or was given away, when it counts and names the pets
    ("Maya and family have two cats, Luna and Ziggy", after "Luna died" or "we rehomed
    Luna" -> "... have a cat named Ziggy"), so the others stay told; any other ``fact`` as
    it is."""
    if retraction is None or not (
        retraction.kind == "death"
        or (retraction.kind == "ending" and _HANDED.search(retraction.cue) is not None)
    ):
        return fact
    died = set(retraction.content.split())
    for pattern in (_COUNTED_PETS, _PETS_NAMED):
        found = pattern.search(fact)
        if found is None:
            continue
        names = re.split(r"\s*,\s*(?:(?:and|&)\s+)?|\s+(?:and|&)\s+", found.group("names"))
        left = [n for n in names if n not in died]
        if len(left) != len(names) - 1:
            continue  # who died is not among them (once)
        kind = found.group("kind")
        one = _singular(kind)
        told = left[0] if len(left) == 1 else f"{', '.join(left[:-1])} and {left[-1]}"
        if pattern is _PETS_NAMED:
            told = f"{one} is named {told}" if len(left) == 1 else f"{kind} are named {told}"
        else:
            n = found.group("n")
            count = int(n) if n.isdigit() else _COUNT[n.lower()]
            if count != len(names):
                continue  # "two cats, Luna and Ziggy and a dog": not the list counted
            many = str(count - 1) if n.isdigit() else _COUNT_WORD.get(count - 1, "")
            article = "an" if one[:1].lower() in "aeiou" else "a"
            told = f"{article} {one} named {told}" if len(left) == 1 else f"{many} {kind}, {told}"
        return fact[: found.start()] + told + fact[found.end() :]
    return fact


def _singular(kind: str) -> str:
    """A pet's plural word as one: "cats" -> "cat", "puppies" -> "puppy", "mice" -> "mouse"."""
    lower = kind.lower()
    if lower == "mice":
        return kind[0] + "ouse"
    if lower.endswith("ies"):
        return kind[:-3] + "y"
    if lower.endswith("fishes"):
        return kind[:-2]
    return kind[:-1] if lower.endswith("s") else kind


def reaged(retraction: Retraction | None, fact: str) -> str:
    """``fact`` with the new age an age reached gives someone named in a list of ages
    ("Maya has two kids, Eli who is 4 and Ruby who is 2", after "Ruby turned 3" -> "...
    Ruby who is 3"), so the others' ages stay told; any other ``fact`` as it is."""
    if retraction is None or retraction.cue != "turned":
        return fact
    *member, value = retraction.content.split()
    listed = _listed_age(member[0], fact) if member and member[0][:1].isupper() else None
    if listed is None:
        return fact
    return fact[: listed.start("v")] + value + fact[listed.end("v") :]


def _same_measure(content: str, fact: str, subject: str) -> bool:
    """Whether a changed value and a stated one may measure the same thing: no unit on
    either, or units of one kind."""
    kinds = [
        {i for i, kind in enumerate(_UNIT_LEMMAS) if set(content_lemmas(t, subject)) & kind}
        for t in (content, fact)
    ]
    if kinds[0] and not kinds[1] and _BARE_AGE.search(fact):
        return False  # "Rex is up to 68 pounds" is no new age of "Rex is 3"
    return not kinds[0] or not kinds[1] or bool(kinds[0] & kinds[1])


# An age said as a bare number: "Rex is 3", "Mia turned 7 and ...".
_BARE_AGE = re.compile(
    r"\b(?:is|are|turned|'s)\s+(?:now\s+|almost\s+|just\s+)?\d{1,3}(?:\s+years?\s+old)?"
    r"(?=\s*(?:[,.;!?]|$)|\s+(?:and|but|now|today|this)\b)",
    re.IGNORECASE,
)


def correction_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` has the correction's (or the change's) frame with a different
    value. A change of the speaker's own thing does not change another person's ("my dose"
    is not "my husband's dose", ``_not_theirs``)."""
    if not _about(fact, subject):
        return False
    if retraction.cue == "turned":
        return _age_of(retraction, fact, subject)
    values = _values(retraction.content, subject)
    valued = values | {_lemma(v) for v in values}
    # A number's digits are its value, however it is grouped ("1,500" is one value).
    frame = [
        w
        for w in content_lemmas(retraction.content, subject)
        if w not in valued and not w[:1].isdigit()
    ]
    if retraction.kind == "change":
        frame = [w for w in frame if w not in _UNITS]
        if not _same_measure(retraction.content, fact, subject):
            return False
    if retraction.old and subject and fold(retraction.old) == fold(subject):
        # "It's my daughter who is allergic to shellfish, not me": the speaker's own fact
        # of what is said of the other person is the one corrected.
        said_of = [w for w in frame if w not in _PEOPLE]
        have = set(content_lemmas(fact, subject))
        return _whose(fact, subject) is None and bool(said_of) and set(said_of) <= have
    if _not_theirs(frame, fact, subject):
        return False
    have = set(content_lemmas(fact, subject))
    if retraction.old:
        # "..., not 40": the fact holds the value replaced, and something of the frame.
        was = fold(retraction.old)
        held = _values(fact, subject) | have
        if not (was in held or _lemma(was) in held):
            return False
        # A word named as the old value ("it's not celiac, just a wheat sensitivity", "not
        # Tuesday but Thursday") is what the fact says; not someone's name, as that tells
        # whose fact it is ("not Sam, Ben is the one allergic").
        word = was.isalpha() and not _someone(retraction.old) and not _someone(retraction.content)
        return not frame or bool(set(frame) & have) or word
    if not frame or not all(_kin_in(w, have) for w in frame):
        return False  # each word of the frame, or one of its stem ("contribution": "contributes")
    old = _values(fact, subject)
    if not values and retraction.kind == "change":
        return bool(old)  # halved or doubled: the value stated before changed
    # A value the two share is part of the frame ("June 20" -> "June 22").
    return bool(old - values) and bool(values - old)


def update_match(retraction: Retraction, fact: str, subject: str) -> bool:
    """Whether ``fact`` is one the statement of ``retraction`` may replace by meaning: the
    subject's own (or the person it names), current, with a value the statement does not
    give, in a unit of the same kind."""
    if not retraction.said or not _about(fact, subject) or not _current(fact, subject):
        return False
    # The same person's: "my partner's rent went up to $1,100" does not replace "I pay $900 rent".
    if _whose(f"{subject}'s {retraction.said}", subject) != _whose(fact, subject):
        return False
    new, old = _values(retraction.said, subject), _values(fact, subject)
    if retraction.kind == "update" and not any(v[:1].isdigit() for v in old):
        return False  # the fact replaced gave a number too
    return bool(old - new) and bool(new - old) and _same_measure(retraction.said, fact, subject)


def _thousands(text: str) -> str:
    """``text`` with an amount of money in thousands written out: "$95k" -> "$95,000",
    "$1.5K" -> "$1,500"."""

    def spelled(found: re.Match[str]) -> str:
        return f"${round(float(found.group(1)) * 1000):,}"

    return re.sub(r"\$(\d+(?:\.\d+)?)\s?[kK]\b", spelled, text)


def _similarities(
    what: str, facts: list[str], subject: str, embed: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """The cosine of ``what`` to each fact's predicate (the fact without its subject), an
    amount in thousands written out in both ("$95k" as "$95,000")."""
    said = [_thousands(what), *(_thousands(predicate(fact, subject)) for fact in facts)]
    vectors = embed(said)
    return vectors[1:] @ vectors[0]


def updated(
    retraction: Retraction,
    subject: str,
    candidates: Sequence[MemoryEntry],
    embed: Callable[[list[str]], np.ndarray],
) -> list[tuple[MemoryEntry, float]]:
    """The one candidate a statement of a new value replaces by meaning: the closest that
    ``update_match`` allows, at ``MIN_UPDATE_SIMILARITY`` or more."""
    said = {m.id: own_words(m.text) for m in candidates}
    found = [m for m in candidates if update_match(retraction, said[m.id], subject)]
    if not found:
        return []
    sims = _similarities(retraction.said, [said[m.id] for m in found], subject, embed)
    best = int(np.argmax(sims))
    # A dose of the medicine the fact names, in other words around it ("is weaning off
    # sertraline, down to 25" for "the doctor bumped Maya's sertraline to 100 mg").
    # Or a body weight, said either way ("is down to 165 pounds" for "weighs 180 pounds").
    same = _same_thing(retraction.said, said[found[best].id], subject) or all(
        _WEIGHT_SAID.search(t) and not _NOT_BODY_WEIGHT.search(t)
        for t in (retraction.said, said[found[best].id])
    )
    floor = MIN_SIMILARITY if same else None
    if floor is None:
        # Or its class, when the subject's facts give one drug of it ("Maya's insulin is
        # now 24 units" for "Maya uses 20 units of Lantus"): the class named, its one drug
        # and a value in the same measure decide, however far apart the words (cosine 0.43
        # there).
        kin = _one_of_class(retraction.said, [said[m.id] for m in found], subject)
        if kin is not None:
            best, floor = kin, 0.0
    if sims[best] >= (floor if floor is not None else MIN_UPDATE_SIMILARITY):
        return [(found[best], float(sims[best]))]
    return []


_WEIGHT_SAID = re.compile(
    r"\b(?:weigh\w*|weight|(?:down|up)\s+to)\b[^.;!?]*?\b\d[\d,.]*\s*(?:pounds|lbs?|kg|kilos|"
    r"kilograms|stone)\b",
    re.IGNORECASE,
)


# A weight aimed at, lifted or carried: no body weight.
_NOT_BODY_WEIGHT = re.compile(r"\b(?:goal|target|lose|losing|gain|gaining|lift|carry)\w*", re.I)


def _same_thing(said: str, fact: str, subject: str) -> bool:
    """Whether ``said`` and ``fact`` name the same medicine (``kb.drug_names``): a dose of
    it said in other words is still its dose."""
    shared = set(content_lemmas(said, subject)) & set(content_lemmas(fact, subject))
    return bool(shared & _drug_lemmas())


def _one_of_class(said: str, facts: list[str], subject: str) -> int | None:
    """The one fact of ``facts`` that names a drug of a class ``said`` names
    (``kb.drug_classes``: "insulin", "statins"), when ``said`` names no drug of its own
    and that fact names one drug of the class and no other fact any; None otherwise. Two
    insulins taken together leave "my insulin" unsaid of which."""
    words = set(content_lemmas(said, subject))
    if words & _drug_lemmas() - _class_lemmas():
        return None  # a drug named outright is matched by name (``_same_thing``)
    for classes, names in _classes():
        if not words & classes:
            continue
        named = [set(content_lemmas(f, subject)) & names for f in facts]
        kin = [i for i, drugs in enumerate(named) if drugs]
        return kin[0] if len(kin) == 1 and len(named[kin[0]]) == 1 else None
    return None


@lru_cache(maxsize=1)
def _classes() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    """``kb.drug_classes`` as lemmas, in the resource's order."""
    return tuple(
        (frozenset(_lemma(w) for w in classes), frozenset(_lemma(n) for n in names))
        for classes, names in drug_classes().values()
    )


@lru_cache(maxsize=1)
def _class_lemmas() -> frozenset[str]:
    return frozenset(w for classes, _ in _classes() for w in classes)


@lru_cache(maxsize=1)
def _drug_lemmas() -> frozenset[str]:
    return frozenset(_lemma(name) for name in drug_names())


# What the fact a state's ending ends says, by the ending's cue ("got my license back":
# "suspended"; "sober": alcohol).
_STATE_FACT = {
    GOT_BACK: _AWAY,
    CAUGHT_UP: re.compile(r"\bbehind\b", re.IGNORECASE),
    SOBER: _ALCOHOL,
    REMISSION: _REMITS,
    JOB_FOUND: _JOBLESS,
    BACK_AT_WORK: _AWAY_FROM_WORK,
}
# A fact of having an illness or a pest: what "gone" ends.
_HAS_IT = re.compile(
    r"\b(?:has|have|got|caught|is sick with|suffers from|is fighting|is battling|is dealing "
    r"with|has been killing)\b",
    re.IGNORECASE,
)
# Cues whose content is a bare word, far in meaning from the sentence of the fact it ends:
# no similarity floor (``retracted``); ``lexical_match`` reads each of them closely.
_NO_FLOOR = frozenset((
    TOLERATES, SWITCHED_TO, ACQUIRED, CALLED_OFF, OVER, GONE, GROUP_ENDED, SOBER, BACK_AT_WORK,
    REMISSION, JOB_FOUND, GOT_BACK, CAUGHT_UP, EVENT_DONE, CONCEIVED, GOAL_WEIGHT, TRAINED,
    WEANED, RETURNED, CLEARED, UNAIDED, SERVICE_ENDED, ADMITTED, FOSTER_ENDED, VISIT_ENDED,
    "moved out",
    "paid off", "paid back",
))  # fmt: skip


def retracted(
    retraction: Retraction,
    subject: str,
    candidates: Sequence[MemoryEntry],
    embed: Callable[[list[str]], np.ndarray],
    *,
    meaning: bool = True,
) -> list[tuple[MemoryEntry, float]]:
    """The candidates ``retraction`` ends, with the similarity that decided it: every
    match for an ending or a negation, the single best one for a correction. A request to
    forget that names none of them in their words names the closest in meaning
    (``_forgotten``), unless ``meaning`` is False."""
    valued = retraction.kind in ("correction", "change")
    match = correction_match if valued else lexical_match
    said = {m.id: own_words(m.text) for m in candidates}
    if retraction.kind == "death":
        found = [m for m in candidates if death_match(retraction, said[m.id], subject)]
        names = {
            n for m in found for n in re.findall(r"\b(?:named|called)\s+([A-Z]\w+)", said[m.id])
        }
        # "Our dog died" with two dogs named: which one is not said.
        if len(names) > 1 and not set(retraction.content.split()) & names:
            return []
        # Named, it is said; a fact that names others too ends only when each is a thing
        # of its own ("a cat named Miso and a dog named Biscuit": the cat stays, told
        # alone, ``remainder``), never "two cats, Mochi and Pepper" whole.
        return [(m, 1.0) for m in found if _ends_alone(said[m.id], retraction, subject)]
    if retraction.kind == "birth":
        return [(m, 1.0) for m in candidates if birth_match(retraction, said[m.id], subject)]
    if retraction.kind == "update":
        return updated(retraction, subject, candidates, embed)
    lexical = [m for m in candidates if match(retraction, said[m.id], subject)]
    if not lexical and retraction.kind == "forget":
        return _forgotten(retraction, subject, candidates, embed) if meaning else []
    if not lexical:
        # Said in other words than the fact ("my blood pressure pill" for "lisinopril").
        return updated(retraction, subject, candidates, embed) if valued else []
    if retraction.cue == "turned" and len(lexical) > 1:
        return []  # "Maya's daughter turned 8" with two daughters' ages: whose is not said
    if (
        retraction.whose in _GENDERED
        and len({_named_owner(said[m.id], subject) for m in lexical}) > 1
    ):
        return []  # "stopped his inhaler" with a son's and a husband's: whose is not said
    content = retraction.content
    if retraction.whose in _GENDERED:
        # "his leg" is compared as the one's it stands for ("son leg"), one for all of them
        content = f"{_pronoun_owner(retraction, said[lexical[0].id], subject)} {content}"
    sims = _similarities(content, [said[m.id] for m in lexical], subject, embed)
    if valued:
        if retraction.kind == "change":
            # Of the same thing's facts, one in the same unit ("12 km": "8 km", not
            # "twice a week").
            units = set(content_lemmas(retraction.content, subject)) & _UNITS
            same = [
                i for i, m in enumerate(lexical) if units & set(content_lemmas(said[m.id], subject))
            ]
            if same:
                keep = np.zeros(len(lexical), dtype=bool)
                keep[same] = True
                sims = np.where(keep, sims, -1.0)
        best = int(np.argmax(sims))
        if sims[best] < MIN_CORRECTION_SIMILARITY:
            return []
        return [(lexical[best], float(sims[best]))]
    floor = MIN_FORGET_SIMILARITY if retraction.kind == "forget" else MIN_SIMILARITY
    if _named(retraction.content) or job_ending(retraction) is not None:
        floor = -1.0  # a name has no meaning to compare, nor a job left with the job held
    if retraction.cue in _NO_FLOOR:
        floor = -1.0  # the food, in a fact that avoids it (``lexical_match``): a bare word
        # is far from the sentence that states the allergy ("eggs": "avoids eggs because
        # ..."); or a drug of the kind switched to, which names another
    head = retraction.content.split()[-1] if retraction.content else ""
    if retraction.kind == "ending" and _A_GROUP.fullmatch(head):
        floor = -1.0  # "quit the band": the group's word alone is far from the fact of it
    if retraction.kind == "ending" and _HANDED.search(retraction.cue):
        # A thing sold or given away is no longer owned: "sold the house" ends "own a
        # house in Oakland", however little else the two share.
        # ... or up for sale: "sold the house" ends "trying to sell the house".
        selling = re.search(r"\bsol[dl]", retraction.cue) is not None
        owned = [
            m
            for m in lexical
            if _OWNS.search(said[m.id]) or (selling and _FOR_SALE.search(said[m.id]))
        ]
        if retraction.cue == "gave":  # a pet given to someone: "Mochi", never "Leo" the son
            return [
                (m, float(s))
                for m, s in zip(lexical, sims, strict=True)
                if m in owned and _A_PET.search(said[m.id])
            ]
        return [
            (m, float(s)) for m, s in zip(lexical, sims, strict=True) if m in owned or s >= floor
        ]
    return [(m, float(s)) for m, s in zip(lexical, sims, strict=True) if s >= floor]


# Words a request to forget names a fact by that are not the fact's: "Maya's current
# address", "the whole lawsuit thing", "the amount Maya said".
_NAMING = word_set(
    "current whole entire exact old latest actual amount details detail part bit thing stuff "
    "info information say said tell told mention mentioned"
)


def forgotten_by_meaning(retraction: Retraction | None, fact: str, subject: str) -> bool:
    """Whether a request to forget names ``fact`` only in other words than its own: then
    the parts of it the request ends are those it names in meaning too."""
    return (
        retraction is not None
        and retraction.kind == "forget"
        and not lexical_match(retraction, own_words(fact), subject)
    )


def _forgotten(
    retraction: Retraction,
    subject: str,
    candidates: Sequence[MemoryEntry],
    embed: Callable[[list[str]], np.ndarray],
) -> list[tuple[MemoryEntry, float]]:
    """The facts a request to forget names in other words than theirs: of the subject's
    own, those close to what it names (``MIN_FORGET_SIMILARITY``) in which each word it
    names has a form of its own (``MIN_WORD_SIMILARITY``), the closest one: "forget the
    boat stuff" closes "Maya keeps a sailboat at the marina", not "Maya loves sailing"."""
    asked = [w for w in _surface(retraction.content, subject) if w not in _NAMING]
    if not asked:
        return []
    wanted = content_lemmas(retraction.content, subject)
    said = {m.id: own_words(m.text) for m in candidates}
    facts = [
        m
        for m in candidates
        if (_about(said[m.id], subject) or _of_the_named(said[m.id], retraction, subject))
        and (retraction.anyone or not _not_theirs(wanted, said[m.id], subject, retraction.shared))
    ]
    if not facts:
        return []
    sims = _similarities(retraction.content, [said[m.id] for m in facts], subject, embed)
    # A word for a kind of fact names a fact of that kind ("my address": "lives at 12 Elm
    # Street"), however far in meaning the two are.
    kinds = {w: _KIND_OF_FACT[_KIND_WORDS[w]] for w in asked if w in _KIND_WORDS}
    of_kind = {m.id: {w for w, test in kinds.items() if test(said[m.id], subject)} for m in facts}
    close = [
        (m, float(s))
        for m, s in zip(facts, sims, strict=True)
        if s >= MIN_FORGET_SIMILARITY or (of_kind[m.id] and of_kind[m.id] == set(kinds))
    ]
    words = {m.id: _surface(said[m.id], subject) for m, _ in close}
    vocab = sorted({w for ws in words.values() for w in ws} | set(asked))
    if not close or not vocab:
        return []
    vector = dict(zip(vocab, embed(vocab), strict=True))

    def same(word: str, have: list[str]) -> bool:
        return any(
            _kin_words(word, h)
            or (_formed_alike(word, h) and float(vector[word] @ vector[h]) >= MIN_WORD_SIMILARITY)
            for h in have
        )

    found = [(m, s) for m, s in close if s >= MIN_FORGET_SIMILARITY]
    found = [(m, s) for m, s in found if all(same(w, words[m.id]) for w in asked)]
    if found:
        # Words of like meaning are less sure than the same words: the closest fact only
        # ("Maya's current address" is "Maya's address is 12 Elm Street", not her old one).
        return [max(found, key=lambda f: f[1])]
    found = [
        (m, s) for m, s in close if all(w in of_kind[m.id] or same(w, words[m.id]) for w in asked)
    ]
    if found and any(w in _ALL_OF_KIND for w in kinds):
        return found  # "forget my meds": each of them
    if len(found) > 1:
        return []  # "forget my medication" with two drugs taken: which one is not said
    return found


def _has_drug(fact: str, subject: str) -> bool:
    """Whether ``fact`` names a medicine taken (``kb.drug_names``) or a dose of one
    (``remainder.DOSE``), not
    one the speaker must not take ("allergic to penicillin")."""
    if _ALLERGIC_TO.search(fact):
        return False
    return bool(set(content_lemmas(fact, subject)) & _drug_lemmas()) or bool(DOSE.search(fact))


_ALLERGIC_TO = re.compile(
    r"\ballerg|\bintoleran|\breacts?\b|\breaction\b|\b(?:can't|cannot|can not|shouldn't|"
    r"mustn't|never)\s+(?:take|have)\b",
    re.I,
)


_STREET = re.compile(
    r"\b\d+[A-Za-z]?\s+(?:[A-Z][\w'-]*\s+){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|"
    r"Dr|Boulevard|Blvd|Court|Ct|Way|Place|Pl|Terrace|Circle|Parkway|Highway|Hwy)\b|"
    r"\blives?\s+at\s+\d"
)
_WORKS = re.compile(
    r"\b(?:works?|working|worked|employed)\s+(?:as|at|for|in)\b|\bjob\b|\bemployer\b", re.I
)
_PHONE = re.compile(r"(?<![\w$])\+?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}\b|\b\d{3}-\d{4}\b")
_PAY = re.compile(
    r"\b(?:makes|earns|salary|paid|income|wage)\b[^.;!?]*\$\s?\d|\$\s?\d[\d,.]*k?\s+"
    r"(?:a|per)\s+(?:year|month|hour)",
    re.I,
)
_WEIGHT = re.compile(r"\bweighs?\b|\b\d+(?:\.\d+)?\s*(?:lbs?|pounds|kg|kilos)\b", re.I)
# The test that a fact is of a kind a request to forget names by the kind's word.
_KIND_OF_FACT: dict[str, Callable[[str, str], bool]] = {
    "address": lambda fact, _: _STREET.search(fact) is not None,
    "job": lambda fact, _: (
        _WORKS.search(fact) is not None or bool({"employer", "occupation"} & set(slots_of(fact)))
    ),
    "medication": _has_drug,
    "phone": lambda fact, _: _PHONE.search(fact) is not None,
    "pay": lambda fact, _: _PAY.search(fact) is not None,
    "weight": lambda fact, _: _WEIGHT.search(fact) is not None,
}
_KIND_WORDS = {
    word: kind
    for kind, words in {
        "address": "address addresses",
        "job": "job jobs work career employer employment",
        "medication": "medication medications meds med medicine medicines pills prescription "
        "prescriptions drugs",
        "phone": "phone cell mobile",
        "pay": "salary income pay paycheck wage wages earnings",
        "weight": "weight",
    }.items()
    for word in words.split()
}
# Kind words that name all facts of the kind: "forget my meds" is each drug taken.
_ALL_OF_KIND = frozenset(
    {"medications", "meds", "medicines", "pills", "prescriptions", "drugs", "jobs"}
)


def _formed_alike(a: str, b: str) -> bool:
    """Whether two words may be forms of one word or one holds the other: a common start
    of four letters or more ("failure", "failing"), the shorter's stem starting the
    longer ("bake", "bakery"), or a compound ("sailboat", "boat")."""
    short, long = sorted((a, b), key=len)
    stem = short[:-1] if short.endswith("e") else short
    return (
        _common_start(short, long) >= 4
        or (len(stem) >= 3 and long.startswith(stem))
        or (len(short) >= 4 and long.endswith(short))
    )


def _surface(text: str, subject: str) -> list[str]:
    """``text``'s content words as written, a hyphenated one also joined and in its parts
    ("wi-fi": "wifi", "wi", "fi")."""
    name = fold(subject)
    out: list[str] = []
    for w in _words(text):
        if w in _FUNCTION or w == name or w.isdigit():
            continue
        out.append(w)
        if "-" in w:
            out += [w.replace("-", ""), *(p for p in w.split("-") if p and p not in _FUNCTION)]
    return list(dict.fromkeys(out))


def _ends_alone(fact: str, retraction: Retraction, subject: str) -> bool:
    """Whether a death ends ``fact`` without ending someone else it names beside who died
    (after "named" or "called", or in a list with them: "Mochi and Pepper"): only when
    each is a thing of its own ("a cat named Miso and a dog named Biscuit")."""
    if unlisted(retraction, fact) != fact:
        return True  # the others counted stay told: "two cats, Luna and Ziggy"
    died = set(retraction.content.split())
    name = r"((?-i:[A-Z][a-z]+))"
    # Who died named after the word the death said ("Grandpa" in "Maya's grandpa Joe", "Rex"
    # in "a dog named Rex").
    after = r"\s+(?:(?:named|called)\s+)?"
    died |= {
        n for w in list(died) for n in re.findall(rf"\b{re.escape(w)}{after}{name}", fact, re.I)
    }
    listed = set(re.findall(rf"\b(?:named|called)\s+{name}", fact))
    for n in died:
        joined = r"\s*(?:,|and|&)\s*(?:and\s+)?"
        listed |= set(re.findall(rf"\b{re.escape(n)}{joined}{name}", fact))
        listed |= set(re.findall(rf"{name}{joined}{re.escape(n)}\b", fact))
    others = {w for w in listed - died if w.lower() not in _CALENDAR and _someone_else(w, subject)}
    if not others:
        return True
    alone = re.findall(
        r"\b(?:an?|another)\s+(?:[a-z]+\s+){1,2}?(?:named|called)\s+([A-Z][a-z]+)", fact
    )
    return others <= set(alone) and bool(died & set(alone))


_CALENDAR = frozenset((
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "january",
    "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
))  # fmt: skip


def _someone(text: str) -> bool:
    """Whether ``text`` names someone: a capitalised word that is no day, month or
    medicine ("Ben", not "Thursday" or "Crestor")."""
    return any(
        w.lower() not in _CALENDAR and _lemma(w.lower()) not in _drug_lemmas()
        for w in re.findall(r"\b[A-Z][a-z]+\b", text)
    )


def _named(content: str) -> bool:
    """Whether an ending's content is only a name ("rehomed Pixel", "sold the Civic"),
    which embeds far from any sentence that names it."""
    words = content.split()
    return bool(words) and all(w[:1].isupper() for w in words)
