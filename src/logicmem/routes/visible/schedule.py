"""Recurring commitments: the days a standing duty binds the user, read from its text.

"Sam babysits his nephew every Wednesday afternoon" binds Sam's Wednesdays. A request
that names a Wednesday ("Could you book a dentist appointment for Wednesday at 2?")
collides with it, though it shares no other word with it, and the knowledge resource
cannot key it: the days are the memory's own. Two rules read such a memory:

- ``recurring_days``: the days of the week a recurrence names ("every Wednesday", "on
  Tuesdays", "weekdays", "every other weekend", "Friday through Sunday", "Sunday
  mornings", "every evening", "at the start of each week"); a single day ("on
  Tuesday", "next Friday") is one occasion, not a recurrence;
- ``commitment``: whether what recurs is a duty to someone else or a fixed engagement:
  caring for, minding or driving a person, work shifts and on-call duty, a class one
  teaches, a team one coaches, a volunteer shift, a treatment, a check-in. A pastime
  ("yoga on Tuesday nights", "board games every Friday") is none, and neither is a duty
  stated as past, negated or only considered ("used to coach on Saturdays", "should
  volunteer more on weekends").

A memory read as both is a standing constraint of type ``commitment``; its keys are its
days (``day_keys``). A constraint the resource recognises that also names its days
("dialysis on Mondays, Wednesdays and Fridays") gains them as keys too.
"""

from __future__ import annotations

import re

from logicmem.write.rules import WEEKDAYS

COMMITMENT = "commitment"  # the constraint type of a duty on fixed days
DAY_KIND = "schedule"  # the ``MemoryKey.kind`` of its days
DAYS = WEEKDAYS  # the days of the week, Monday first
WORKDAYS = DAYS[:5]
WEEKEND = DAYS[5:]

_DAY = "(?:" + "|".join(DAYS) + ")"
_PART = r"(?:morning|afternoon|evening|night|lunchtime|lunch)"
# A day said once: "this Saturday", "next Tuesday", "last Friday", "on the 5th".
_ONCE = re.compile(r"\b(?:this|next|last|coming|that|tomorrow|yesterday|past)\s+$")
# Recurrences: "every (other) Wednesday", "each Sunday", "Tuesdays", "Sunday mornings".
_EVERY_DAY = re.compile(rf"\b(?:every|each)\s+(?:other\s+|second\s+|single\s+)?({_DAY})\b")
_PLURAL_DAY = re.compile(rf"\b({_DAY})s\b")
_DAY_PARTS = re.compile(rf"\b({_DAY})\s+{_PART}s\b")
# More days joined to a recurrence: "every Tuesday and Thursday", "Mondays, Wednesdays
# and Fridays", "every Mon and Wed".
_MORE = re.compile(rf"(?:\s*(?:,|and|or|&|/)\s*)+({_DAY})s?\b")
_LIST_SPAN = 40  # characters before a recurrence searched for a day listed with it
_BEFORE = re.compile(rf"\b({_DAY})s?(?:\s*(?:,|and|or|&|/)\s*)+$")
_RANGE = re.compile(rf"\b({_DAY})s?\s*(?:through|thru|to|till|until|-|\u2013)\s*({_DAY})s?\b")
_WEEKDAYS = re.compile(
    r"\b(?:(?:every|each)\s+weekday|weekdays|(?:every|each)\s+(?:work|school)\s*day"
    r"|(?:work|school)\s*days|during\s+the\s+week|(?:every|each)\s+weeknight|weeknights)\b"
)
# A recurring day said by its place in the week: "at the close of each school week" (its
# Friday), "at the start of each week" (its Monday); "midweek" alone is too loose to count.
_WEEK_ENDS = re.compile(r"\b(?:end|close)\s+of\s+(?:every|each)\s+(?:work|school)\s*week\b")
_WEEK_STARTS = re.compile(
    r"\b(?:start|beginning)\s+of\s+(?:every|each)\s+(?:(?:work|school)\s*)?week\b"
)
_WEEKENDS = re.compile(r"\b(?:(?:every|each)\s+(?:other\s+|second\s+)?weekend|weekends)\b")
_DAILY = re.compile(
    rf"\b(?:every\s+(?:single\s+)?day|daily|nightly|each\s+day"
    rf"|(?:every|each)\s+{_PART}|{_PART}s\b(?!\s+(?:of|in)\b))"
)
_FREE = re.compile(
    rf"\b(?:except|but\s+not|besides|other\s+than|apart\s+from|not\s+on|free\s+on"
    rf"|off\s+on)\s+(?:on\s+)?({_DAY})s?\b|\b({_DAY})s?\s+(?:off|free)\b"
)
_SHORT = {
    "mon": "monday",
    "tue": "tuesday",
    "tues": "tuesday",
    "wed": "wednesday",
    "thu": "thursday",
    "thur": "thursday",
    "thurs": "thursday",
    "fri": "friday",
    "sat": "saturday",
    "sun": "sunday",
}
_SHORT_LIST = re.compile(
    r"\b((?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)(?:\s*(?:/|,|&|and)\s*"
    r"(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun))+)\b"
)


def _once(text: str, start: int) -> bool:
    return _ONCE.search(text[max(0, start - 12) : start]) is not None


def span(first: str, last: str) -> list[str]:
    """The days from ``first`` to ``last``, through the weekend if need be."""
    i, j = DAYS.index(first), DAYS.index(last)
    return [DAYS[(i + n) % 7] for n in range((j - i) % 7 + 1)]


def recurring_days(text: str) -> tuple[str, ...]:
    """The days of the week on which ``text`` says something recurs, in week order; ()
    when it names no recurrence. A recurrence with no day ("every evening", "daily")
    recurs on all seven."""
    low = text.lower().replace("\u2019", "'")
    found: set[str] = set()
    for pattern in (_EVERY_DAY, _PLURAL_DAY, _DAY_PARTS):
        read = 0  # the text before this is read: a list is followed once
        for m in pattern.finditer(low):
            if m.start() < read or _once(low, m.start()):
                continue
            found.add(m.group(1))
            # Days listed before it: a list ends within a few words of it.
            at = m.start()
            while (before := _BEFORE.search(low, max(read, at - _LIST_SPAN), at)) and not _once(
                low, before.start()
            ):
                found.add(before.group(1))
                at = before.start()
            read = m.end()
            while more := _MORE.match(low, read):
                found.add(more.group(1))
                read = more.end()
    for m in _RANGE.finditer(low):
        if not _once(low, m.start()):
            found.update(span(m.group(1), m.group(2)))
    for m in _SHORT_LIST.finditer(low):
        found.update(_SHORT[d] for d in re.findall(r"[a-z]+", m.group(1)) if d in _SHORT)
    if _WEEKDAYS.search(low):
        found.update(WORKDAYS)
    if _WEEKENDS.search(low):
        found.update(WEEKEND)
    if _WEEK_ENDS.search(low):
        found.add("friday")
    if _WEEK_STARTS.search(low):
        found.add("monday")
    if not found and _DAILY.search(low):
        found.update(DAYS)
    # Days said as free ("every day except Sundays", "with Fridays off"): not the
    # recurrence's; when they are all it names, it recurs on the others.
    free = {d for m in _FREE.finditer(low) for d in m.groups() if d}
    if free:
        found = found - free or set(DAYS) - free
    return tuple(d for d in DAYS if d in found)


# People a duty can be to (a possessive before them, or a name, says whose).
_PERSON = (
    r"(?:kids?|children|child|sons?|daughters?|twins|bab(?:y|ies)|toddlers?|boys|girls"
    r"|step(?:son|daughter|kids?|mom|dad|father|mother)s?|nephews?|nieces?|mom|mum|mother"
    r"|dad|father|parents?|grand(?:ma|mother|pa|father|parents?|kids?|children|son"
    r"|daughter)s?|nan|gran|sisters?|brothers?|siblings?|wife|husband|partner|aunt|uncle"
    r"|cousins?|neighbou?r(?:'s)?|in-laws?|(?:mother|father)-in-law|students?|patients?"
    r"|clients?|team|class|troop|scouts?|players?|kid's|children's)"
)
_WHOSE = r"(?:my|his|her|their|our|the|a|an|\w+'s)\s+(?:[\w'-]+\s+){0,2}?"
_NAME = r"(?:[A-Z][a-z]+)"
_PLACES = (
    r"(?:school|daycare|day care|nursery|preschool|kindergarten|practice|training"
    r"|rehearsal|lessons?|club|camp|the bus stop)"
)
# Present-tense duties only: a past form ("babysat", "coached") is no standing duty.
_DUTIES = [
    r"\bbabysit(?:s|ting)?\b",
    r"\b(?:looks?|looking)\s+after\b",
    r"\b(?:cares?|caring)\s+for\b",
    r"\b(?:takes?|taking)\s+care\s+of\b",
    rf"\b(?:watch(?:es|ing)?|minds?|minding|sits?|sitting)\s+(?:for\s+)?{_WHOSE}{_PERSON}\b",
    rf"\b(?:picks?|picking|drops?|dropping|collects?|collecting)\s+(?:up\s+|off\s+)?"
    rf"(?:{_WHOSE}{_PERSON}|{_NAME})\b",
    rf"\b(?:picks?|picking|drops?|dropping)\s+(?:up|off)\b[^.!?;]{{0,80}}?\b(?:at|from|to)\s+(?:the\s+)?"
    rf"{_PLACES}\b",
    rf"\b(?:takes?|taking|drives?|driving|brings?|bringing|walks?|walking|escorts?)\s+"
    rf"(?:{_WHOSE}{_PERSON}|{_NAME})\s+(?:\w+\s+)?(?:to|from|home)\b",
    r"\b(?:walks?|walking|feeds?|feeding)\s+(?:the\s+|my\s+|his\s+|her\s+|their\s+)?"
    r"(?:[\w-]+\s+)?neighbou?r'?s\b",
    r"\b(?:school\s+run|carpool(?:s|ing)?|drives?\s+the\s+carpool)\b",
    r"\b(?:volunteers?|volunteering|coach(?:es|ing)?|teach(?:es|ing)?|tutors?|tutoring"
    r"|mentors?|mentoring|staffs?|staffing|ushers?)\b",
    rf"\b(?:leads?|leading|runs?|running|hosts?|hosting|directs?|directing)\s+{_WHOSE}"
    r"(?:choir|class|group|troop|meeting|service|session|practice|study|club|workshop"
    r"|clinic|shelter|pantry|program|meetup|circle)\b",
    r"\bvisits?\b[^.!?;]{0,80}?\b(?:(?:care|nursing|retirement|group)\s+home|hospice|hospital|prison)\b",
    r"\bshifts?\b",
    r"\bon[- ]call\b",
    # work at set times: "works weekends", "works at the hospital on Fridays" (not
    # "working on cars every day", "working in a team", "works out")
    rf"(?:\bworks|\bworking|\b(?:i|we|they)\s+(?:also\s+|still\s+|usually\s+|always\s+)?work)"
    rf"\s+(?:at|for|nights|evenings|mornings|weekends|weekdays|late|early|doubles|overtime"
    rf"|from|until|till|every|each|on\s+(?:the\s+)?(?:weekend|{_DAY})|{_DAY}|\d)",
    r"\b(?:has|have)\s+to\s+(?:work|be\s+at|be\s+in)\b",
    r"\b(?:dialysis|chemo\w*|infusions?|radiation|physio\w*|physical\s+therapy"
    r"|speech\s+therapy|occupational\s+therapy|rehab|probation|parole|check-?ins?"
    r"|custody|visitation)\b",
    r"\b(?:has|have|attends?|attending)\s+(?:a\s+|an\s+|my\s+|his\s+|her\s+|their\s+|the\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:therapy|treatments?|appointments?|sessions?|classes|class"
    r"|lessons?|rehearsals?|practice|court|hearings?|counsel+ing|meetings?)\b",
]
_DUTY = re.compile("|".join(_DUTIES))
# What keeps a stated duty from binding now: the past, a negation, a wish or a
# possibility ("used to coach", "no longer volunteers", "should volunteer more").
_NOT_NOW = re.compile(
    r"\b(?:used\s+to|no\s+longer|any\s*more|stopped|quit|retired\s+from|gave\s+up"
    r"|not|never|n't|might|may|could|should|would|wants?\s+to|hopes?\s+to|wish(?:es)?"
    r"|thinking|considering|planning|plans\s+to|if|until\s+last|was|were)\b"
    r"|\bn't\b|n't\s"
)
_OTHERS_ONLY = re.compile(
    r"^\s*(?:my|his|her|their|our)\s+(?:[\w-]+\s+)?" + _PERSON + r"\s+(?!and\s+i\b)\w+"
)


def commitment(text: str) -> bool:
    """Whether ``text`` states a duty that recurs on fixed days and binds its subject now
    ("picks up her daughter from daycare at 5:30 every weekday"); see the module
    docstring for what counts."""
    return bool(recurring_days(text)) and binds_now(text)


def binds_now(text: str) -> bool:
    """Whether ``text`` states a duty that binds its subject now, whatever its days."""
    low = text.replace("\u2019", "'")
    if _NOT_NOW.search(low.lower()) or _OTHERS_ONLY.search(low.lower()):
        return False
    return _DUTY.search(low) is not None or _DUTY.search(low.lower()) is not None


def day_keys(days: tuple[str, ...]) -> list[str]:
    """The words a request can name to collide with a duty on ``days``: the days, and
    "weekend" or "weekday" for a duty on one of theirs."""
    keys = list(days)
    if any(d in WEEKEND for d in days):
        keys.append("weekend")
    if any(d in WORKDAYS for d in days):
        keys += ["weekday", "weeknight"]
    return keys


def when(days: tuple[str, ...]) -> str:
    """``days`` as a reason says them: "every day", "on weekdays", "on Tuesdays and
    Thursdays"."""
    if len(days) == 7:
        return "every day"
    if days == WORKDAYS:
        return "on weekdays"
    if days == WEEKEND:
        return "on weekends"
    names = [d.capitalize() + "s" for d in days]
    return "on " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])
