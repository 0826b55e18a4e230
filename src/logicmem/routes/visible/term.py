"""When a stated fact stops holding: the end a memory states for its own term.

"Sam can't drive until March", "Sam is on amoxicillin for the next 10 days", "No alcohol
for Sam this month": a standing constraint whose text states when it ends holds until that
day, counted from when it was said, and after it no longer engages a request
(``VisibleRoute``). ``stated_end`` reads that day:

- "until / till / through" a month ("until March": its last day, the next March on or
  after the day it was said), a day ("until the 14th", "till May 3", "through mid-June"),
  a weekday (the next one after the day said), the end of a period ("until the end of the
  month", "until next week": the Sunday that ends it) or a year ("until next year": the
  last day of this one);
- a term that runs from now: "for the next 10 days", "for another two weeks", "for 3
  more months", "for a week", "for the rest of the month";
- a period the state fills: "this week", "this weekend", "this month", "today",
  "tonight" (with a state: "no sugar this week", "on call this weekend"; not "the party is
  this weekend", which is when, not how long);
- a pregnancy, which ends by a birth at most about 42 weeks after it began: "is 8 weeks
  pregnant" (34 weeks after the day said), "7 months pregnant", "pregnant" with no stage
  (42 weeks), or two weeks after the day it is due ("due in March", "expecting our
  first on May 3").

A period named ends on its last day: a constraint shown a little too long costs less than
one dropped while it holds. No end is read from a span into the past ("has been vegetarian
for 10 years", "for the past two weeks"), an end tied to an event with no date ("until the
cast comes off", "until further notice"), a state already over ("was on antibiotics until
Monday", "used to smoke until 2019"), a hypothetical or a plan ("might cut out sugar for a
month", "if the job comes through"), a question, or an end already past when it was said.

A memory of several sentences, or of clauses joined by "and", "but" or "plus", may hold a
fact with no end beside the one with an end ("allergic to penicillin and on amoxicillin
for 10 days"); it is read as having none, so a term never hides a fact that still holds.
The rules were written from English usage, not from any benchmark item.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from logicmem.write.rules import MONTHS, WEEKDAYS, split_sentences

# A month, or its short form ("Sept.", "Jan"; "may" is a month only written whole).
_MONTH = "(?:" + "|".join((*MONTHS, *(m[:3] + r"\.?" for m in MONTHS if m != "may"))) + r"|sept\.?)"
_DAY = "(?:" + "|".join(WEEKDAYS) + ")"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
_NUM = (
    r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fourteen|fifteen|twenty|thirty|sixty|ninety|a\s+couple\s+(?:of\s+)?|couple\s+(?:of\s+)?)"
)
_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fourteen": 14, "fifteen": 15, "twenty": 20, "thirty": 30, "sixty": 60, "ninety": 90,
}  # fmt: skip
_UNIT = r"(day|week|fortnight|month|year)s?"

_UNTIL = r"\b(?:until|till|til|'til|thru|through|up\s+to)\s+"
# "until the end of the month", "until the end of next week", "until the end of March".
_END_OF = re.compile(
    _UNTIL + rf"(?:the\s+)?end\s+of\s+(?:(the|this|next)\s+)?(week|month|year|{_MONTH})\b"
)
_UNTIL_NEXT = re.compile(_UNTIL + r"next\s+(week|month|year)\b")
_UNTIL_NEXT_DAY = re.compile(_UNTIL + rf"next\s+({_DAY})\b")
# "until March 14", "till May 3rd, 2025", "through mid-June", "until March", "until 2027".
_UNTIL_MONTH = re.compile(
    _UNTIL + rf"(?:(early|mid|late)[\s-]+)?(?:the\s+)?(?:{_ORD}\s+(?:of\s+)?)?({_MONTH})"
    rf"(?:\s+{_ORD}\b)?(?:,?\s+(\d{{4}}))?\b"
)
# "until the 14th", not "until the 5th grade".
_UNTIL_ORDINAL = re.compile(
    _UNTIL + r"the\s+(\d{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+(?:of|grade|floor|inning|round|century|birthday|anniversary|week|month|day)\b)"
)
_UNTIL_DAY = re.compile(_UNTIL + rf"(?:this\s+(?:coming\s+)?|the\s+)?({_DAY})\b")
_UNTIL_ISO = re.compile(_UNTIL + r"(\d{4})-(\d{2})-(\d{2})\b")  # as a model may write it
_UNTIL_YEAR = re.compile(_UNTIL + r"(?:the\s+end\s+of\s+)?(20\d\d)\b(?!-)")
_UNTIL_SHORT = re.compile(_UNTIL + r"(tomorrow|tonight)\b")
# "for the next 10 days", "for another two weeks", "for 3 more months", "for a week",
# "for the coming month", "for the rest of the month".
_FOR = re.compile(
    rf"\bfor\s+((?:the\s+)?(?:next|coming|following)\s+|another\s+|at\s+least\s+)?"
    rf"(?:{_NUM}\s*)?(?:more\s+)?{_UNIT}\b"
)
_FOR_REST = re.compile(r"\bfor\s+the\s+rest\s+of\s+(?:the\s+|this\s+)?(week|month|year)\b")
_FOR_MORE = re.compile(rf"\bfor\s+{_NUM}\s+more\s+{_UNIT}\b")
# A period the state fills ("no sugar this week"), read only with a state (``_STATE``).
_THIS = re.compile(
    r"\b(?:(?:for|all|during|through)\s+)?(this\s+(?:week|weekend|month)|today|tonight|tomorrow)\b"
)
_STATE = re.compile(
    r"\b(?:no|not|off|on\s+call|can't|cannot|can\s+not|won't|isn't|aren't|'m\s+not|"
    r"avoid\w*|fasting|sober|dry|away|out\s+of\s+(?:town|the\s+office|office)|staying|"
    r"booked|busy|working|on\s+duty|on\s+a|allowed|supposed|told|banned|grounded|skip\w*|"
    r"cutting|giving\s+up|limit\w*|only|stuck|laid\s+up|resting|home|covering)\b"
    r"(?!\s+wait\b)"
)
# An occasion ahead is when, not how long: "is going to see them this weekend", "is
# planning a fundraiser later this month".
_AHEAD = re.compile(r"\b(?:going\s+to|gonna|will|'ll|plan\w*|later)\b")

_INSTRUCTED = (
    r"told|asked|advised|ordered|prescribed|put|given|instructed|signed|booked|grounded|"
    r"banned|restricted|suspended|placed|diagnosed|scheduled|supposed|allowed|assigned|"
    r"seconded|posted|stationed|deployed|sent|transferred"
)
# What makes a stated time no end of a state that holds now.
_PAST_SPAN = re.compile(
    r"\b(?:for|in|over|during)\s+the\s+(?:past|last|previous)\b|\bago\b|"
    rf"\b(?:have|has|'ve|'s|had)\s+been\b(?!\s+(?:{_INSTRUCTED})\b)"
)
_OVER = re.compile(
    rf"\b(?:(?:was|were)\b(?!\s+(?:{_INSTRUCTED}|not\s+allowed)\b)|used\s+to|had\s+to|did|went|"
    r"spent|stayed|took|got\s+over|last)\b"
)
_MAYBE = re.compile(
    r"\b(?:if|might|may\s+(?:be|have|need|not|try|get|go|want|start|stop|take|do)|maybe|"
    r"could|would|thinking\s+(?:of|about)|considering|"
    r"plan(?:ning)?\s+to|hope|hoping|want\s+to|wants\s+to|wanna|going\s+to\s+try|"
    r"might\s+try|try\s+to|whether|wish|unless)\b"
)
# Where a sentence's first clause ends. What follows "so", "then", "while", "because" or a
# dash leans on that clause ("on call till Friday, so I may vanish"); what follows "and",
# "but", "plus" or ";" may be a fact of its own ("and is allergic to penicillin"), so a
# sentence that goes on that way is read as having no end. "and then" is a sequence.
_CLAUSE = re.compile(
    r";|,?\s+(?:and\s+then|and|but|plus|also|whereas|though|although|while|so|then|"
    r"because)\s+|\s+[-\u2013\u2014]+\s+"
)
_COORDINATED = re.compile(r"^(?:;|,?\s+(?:and|but|plus|also|whereas|though|although)\s+)$")
# "we" written as the household: "Sam and family are ..." is one subject, not two clauses.
# A pregnancy lasts at most about 42 weeks ("is 8 weeks pregnant": 34 more; "7 months
# pregnant": 12 more; "pregnant", no stage: 42 from the day said), and a birth comes at
# most about two weeks after the day it is due ("due in March": the month's last day, or
# "due on May 3", and two weeks more). Not "trying to get pregnant" or "was pregnant".
_PREGNANT = re.compile(
    r"\b(?:is|am|are|'s|'m|'re)\s+(?:(?:now|currently|about|almost|nearly|over)\s+)*"
    rf"(?:{_NUM}\s*(week|month)s?\s+)?pregnant\b"
)
_DUE = re.compile(
    rf"\b(?:due|expecting)\b[^.;]*?\b(?:in|on)\s+(?:(?:early|mid|late)[\s-]+)?(?:the\s+)?"
    rf"(?:{_ORD}\s+(?:of\s+)?)?({_MONTH})(?:\s+{_ORD}\b)?"
)
_BABY = re.compile(r"\b(?:pregnan\w*|baby|expecting|due date|twins)\b")
PREGNANCY_WEEKS = 42
LATE_BIRTH_DAYS = 14
_HOUSEHOLD = re.compile(r"\s+and\s+family\b")
# The hints the write path appends to a dated memory: "(tomorrow = 8 May 2023)".
_HINT = re.compile(r"\s*\([^()]*=[^()]*\)")


def stated_end(text: str, said: date | datetime | str | None) -> date | None:
    """The last day the fact a memory states holds, read from its own words and the day
    it was said; None when it states no end (see the module's docstring)."""
    day = _day(said)
    if day is None:
        return None
    body = _HINT.sub("", text).strip()
    sentences = split_sentences(body)
    if not sentences:
        return None
    # The first sentence states the memory's fact; the write path joins to it only the
    # sentences that lean on it ("The vet says the cone stays on for 10 more days. She
    # hates it.").
    sentence = _HOUSEHOLD.sub(" family", sentences[0].lower().replace("\u2019", "'"))
    if sentence.endswith("?"):
        return None
    end = _read(sentence, day)
    if end is None or end < day:
        return None
    return end


def _day(said: date | datetime | str | None) -> date | None:
    if said is None or isinstance(said, date):
        return said.date() if isinstance(said, datetime) else said
    try:
        return datetime.fromisoformat(said).date()
    except ValueError:
        return None


def _read(sentence: str, day: date) -> date | None:
    """The end the sentence's first clause states, when nothing after it may state a fact
    of its own and the clause states no plan, wish, span into the past or state over."""
    joints = list(_CLAUSE.finditer(sentence))
    stop = joints[0].start() if joints else len(sentence)
    if any(_COORDINATED.match(joint.group(0)) for joint in joints):
        return None
    head = sentence[:stop]
    if _MAYBE.search(head) or _PAST_SPAN.search(head):
        return None
    for reader in (_until, _term, _this, _pregnancy):
        found = reader(sentence, day)
        if found is not None:
            at, end = found
            if at >= stop or _OVER.search(sentence[:at]):
                return None
            return end
    return None


def _until(s: str, day: date) -> tuple[int, date] | None:
    if m := _END_OF.search(s):
        which, unit = m.group(1), m.group(2)
        if unit in ("week", "month", "year"):
            return m.start(), _period_end(day, unit, 1 if which == "next" else 0)
        return m.start(), _month_end(day, _month(unit))
    if m := _UNTIL_NEXT.search(s):
        unit = m.group(1)
        # "until next year": the state ends as next year begins.
        return m.start(), _period_end(day, unit, 0 if unit == "year" else 1)
    if m := _UNTIL_NEXT_DAY.search(s):
        monday = day - timedelta(days=day.weekday()) + timedelta(days=7)
        return m.start(), monday + timedelta(days=WEEKDAYS.index(m.group(1)))
    if m := _UNTIL_ISO.search(s):
        try:
            return m.start(), date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    if m := _UNTIL_MONTH.search(s):
        part, first, name, second, year = m.groups()
        month = _month(name)
        number = first or second
        if number is None:
            if year:
                return m.start(), _clamped(int(year), month, 31 if part != "early" else 10)
            target = _next_month(day, month)
            if part == "early":
                return m.start(), target.replace(day=10)
            if part == "mid":
                return m.start(), target.replace(day=15)
            return m.start(), _month_end(day, month)
        n = int(number)
        if not 1 <= n <= 31:
            return None
        if year:
            return m.start(), _clamped(int(year), month, n)
        candidate = _clamped(day.year, month, n)
        if candidate < day:
            candidate = _clamped(day.year + 1, month, n)
        return m.start(), candidate
    if m := _UNTIL_YEAR.search(s):
        return m.start(), date(int(m.group(1)), 12, 31)
    if m := _UNTIL_ORDINAL.search(s):
        n = int(m.group(1))
        if not 1 <= n <= 31:
            return None
        candidate = _clamped(day.year, day.month, n)
        if candidate < day or candidate.day != n:
            nxt = date(day.year + (day.month == 12), day.month % 12 + 1, 1)
            candidate = _clamped(nxt.year, nxt.month, n)
        return m.start(), candidate
    if m := _UNTIL_DAY.search(s):
        ahead = (WEEKDAYS.index(m.group(1)) - day.weekday()) % 7 or 7
        return m.start(), day + timedelta(days=ahead)
    if m := _UNTIL_SHORT.search(s):
        return m.start(), day + timedelta(days=m.group(1) == "tomorrow")
    return None


def _term(s: str, day: date) -> tuple[int, date] | None:
    if m := _FOR_REST.search(s):
        return m.start(), _period_end(day, m.group(1), 0)
    m = _FOR_MORE.search(s) or _FOR.search(s)
    if m is None:
        return None
    ahead, number, unit = (
        (m.group(1), m.group(2), m.group(3)) if m.re is _FOR else (None, m.group(1), m.group(2))
    )
    if number is None and (not ahead or m.group(0).endswith("s")):
        return None  # "for years", "for the coming weeks": no term said
    n = _number(number) if number else 1
    if n is None:
        return None
    if unit == "day":
        return m.start(), day + timedelta(days=n)
    if unit in ("week", "fortnight"):
        return m.start(), day + timedelta(days=7 * n * (2 if unit == "fortnight" else 1))
    months = n * (12 if unit == "year" else 1)
    total = day.month - 1 + months
    return m.start(), _clamped(day.year + total // 12, total % 12 + 1, day.day)


def _this(s: str, day: date) -> tuple[int, date] | None:
    m = _THIS.search(s)
    if m is None or not _STATE.search(s) or _AHEAD.search(s[: m.start()]):
        return None
    said = m.group(1)
    if said in ("today", "tonight", "tomorrow"):
        return m.start(), day + timedelta(days=said == "tomorrow")
    if said.endswith("month"):
        return m.start(), _period_end(day, "month", 0)
    return m.start(), _period_end(day, "week", 0)


def _pregnancy(s: str, day: date) -> tuple[int, date] | None:
    """The last day a pregnancy said on ``day`` can hold: by its due day, else by its
    stage (``_PREGNANT``, ``_DUE``)."""
    due = _DUE.search(s)
    if due is not None and _BABY.search(s):
        first, month, second = due.group(1), due.group(2), due.group(3)
        number = first or second
        start = _next_month(day, _month(month))
        end = _clamped(start.year, start.month, int(number) if number else 31)
        return due.start(), end + timedelta(days=LATE_BIRTH_DAYS)
    found = _PREGNANT.search(s)
    if found is None:
        return None
    weeks = 0
    if found.group(1) is not None:
        n = _number(found.group(1))
        if n is None:
            return None
        weeks = n if found.group(2) == "week" else int(n * 4.3)  # at least that many
    if weeks >= PREGNANCY_WEEKS:
        return None
    return found.start(), day + timedelta(weeks=PREGNANCY_WEEKS - weeks)


def _number(word: str) -> int | None:
    word = word.strip()
    if word.isdigit():
        return int(word)
    if word.startswith(("a couple", "couple")):
        return 2
    return _WORDS.get(word)


def _month(name: str) -> int:
    key = name.rstrip(".")[:3]
    return [m[:3] for m in MONTHS].index(key) + 1


def _next_month(day: date, month: int) -> date:
    """The first day of the next such month on or after ``day``'s month."""
    year = day.year if month >= day.month else day.year + 1
    return date(year, month, 1)


def _month_end(day: date, month: int) -> date:
    start = _next_month(day, month)
    return _clamped(start.year, start.month, 31)


def _clamped(year: int, month: int, n: int) -> date:
    return date(year, month, min(n, calendar.monthrange(year, month)[1]))


def _period_end(day: date, unit: str, ahead: int) -> date:
    """The last day of the week (Sunday), month or year holding ``day``, or ``ahead`` of
    those after it."""
    if unit == "week":
        return day + timedelta(days=6 - day.weekday() + 7 * ahead)
    if unit == "month":
        total = day.month - 1 + ahead
        return _clamped(day.year + total // 12, total % 12 + 1, 31)
    return date(day.year + ahead, 12, 31)
