"""Personal logic read by its form: a value, a goal or the reason behind a past decision.

Besides standing constraints, what decides an answer is often a view the user holds:

- a **value** that trades one thing for another: "would rather drive an old car than
  carry a loan", "puts health ahead of overtime", "believes in paying cash", "would pay
  extra for anything that lasts";
- a **goal** that orders other choices: "is saving up for a deposit", "is paying off the
  card first", "aims to be debt-free by next year", "is determined to read fifty books";
- a **reason**: a rule kept since something went wrong, "since a pipe burst while away,
  always shuts the water off before trips", "swore off budget airlines", "learned the
  hard way to get quotes in writing".

The classifier recognises many of them by their embedding, but its examples cannot span
every theme such a view can take, and the form carries across themes: a comparison of
two goods, a target in time, a past event followed by a rule of conduct. ``view_kind``
reads those forms and nothing else. It refuses what only looks like one: a choice for
the moment ("would rather stay in tonight"), a guess or a wish ("might start saving
someday"), a goal or a habit that is over ("was trying to", "used to"), resolve with no
aim of its own ("determined to make it work"), a time rather than an event after "since"
("since 2015", "since Monday", "since we last talked"), a routine after "after"
("after work, always stretches"), and a past act after "never" ("never saw the end").
Whose view it is (a friend's news, another speaker's words) is decided by the assessor
and the hook, as for every memory.
"""

from __future__ import annotations

import re

VALUE, GOAL, REASON = "value", "goal", "reason"

_S = r"[^.;!?]"  # within one sentence
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
MAX_SENTENCE = 400  # characters of a sentence read: a view is said in far fewer
# A choice for this once, not a view: the moment, the meal, this trip, stock at hand.
_MOMENT = re.compile(
    r"\b(?:tonight|today|this\s+(?:morning|afternoon|evening|time|once|round|one|flight"
    r"|trip|weekend)|right\s+now|at\s+the\s+moment|tomorrow|for\s+(?:dinner|lunch|breakfast"
    r"|dessert)|in\s+stock|on\s+this\b|this\s+(?:flight|meal))\b"
)
# A guess, a wish or a question rather than a view held.
_HEDGE = re.compile(
    r"\b(?:might|may|maybe|perhaps|hopefully|someday|some\s+day|not\s+sure|thinking\s+(?:about|of)"
    r"|considering|wonder(?:s|ing)?|if\s+only|unless)\b|\?\s*$"
)
# A view that is over.
_OVER = re.compile(
    r"\b(?:used\s+to|was\s+(?:trying|saving|paying|aiming|working|determined)|were\s+"
    r"(?:trying|saving|paying)|(?:goal|aim|plan|target)\s+was|wanted\s+to|had\s+wanted"
    r"|gave\s+up\s+on\s+(?:saving|paying|the\s+goal))\b"
)

_VALUE = [
    rf"\b(?:would|'d)\s+(?:much\s+|far\s+|always\s+|still\s+)?(?:rather|sooner)\b{_S}{{3,120}}?\bthan\b",
    r"\b(?:would|will|'d|'ll)\s+never\s+trade\b",
    rf"\bvalues?\b{_S}{{2,60}}?\b(?:over|above|more\s+than|ahead\s+of|before)\b",
    r"\bmatters?\s+(?:\w+\s+)?(?:more|most)\b",
    rf"\bcares?\s+(?:far\s+|much\s+)?more\s+about\b{_S}{{2,60}}?\bthan\b",
    rf"\b(?:puts?|putting)\b{_S}{{2,40}}?\b(?:ahead\s+of|before|above|first)\b",
    r"\bcomes?\s+(?:first|before)\b",
    r"\bbelieves?\s+in\s+\w+ing\b",
    r"\b(?:would|will|'d|'ll|happy\s+to|willing\s+to|glad\s+to|rather)\s+(?:gladly\s+|happily\s+)?"
    r"pay\s+(?:more|extra|a\s+premium|double)\s+(?:for|to)\b",
    r"\bprioriti[sz]es\b|\b(?:i|we|they|always|really)\s+prioriti[sz]e\b",
    r"\b(?:top|first|biggest)\s+priority\b",
    r"\b(?:won't|will\s+not|never|refuses?\s+to)\s+(?:ever\s+)?compromise\s+on\b",
    r"\bnon-?negotiable\b",
    rf"\bprefers?\s+(?:\w+ing\b|\w+\s+\w+){_S}{{0,60}}?\b(?:rather\s+than|over|instead\s+of)\b",
    r"\brefuses?\s+to\s+(?:buy|pay|eat|use|work|fly|drive|shop|support|spend|own|wear)\b",
    # a choice made as a rule: present tense ("picks quality over quantity"), not one
    # choice ("picked the red one over the green one")
    rf"\b(?:picks?|chooses?|opts?\s+for|goes\s+for)\s+(?!up\b|out\b)\w+{_S}{{0,40}}?\bover\s+\w",
    r"\b(?:doesn't|don't|does\s+not|do\s+not)\s+mind\s+paying\s+(?:more|extra|a\s+premium)\b",
    r"\b(?:hates?|can't\s+stand)\s+wasting\b",
    r"\b(?:whenever|wherever)\s+(?:possible|(?:i|he|she|they|we)\s+can)\b",
    # a standing rule about what one buys or spends ("never buys fast fashion")
    r"\b(?:always|never|only)\s+(?:buys?|pays?|shops?|books?|orders?|lends?|borrows?"
    r"|spends?|flies|drives?|chooses?|picks?|rents?|invests?|donates?|tips?|splits?)\b",
]
_VALUE_RE = re.compile("|".join(_VALUE))

_GOAL = [
    r"\b(?:is|am|are|'m|'re|'s|been)\s+(?:\w+ly\s+|still\s+|now\s+)?saving\s+"
    r"(?:up\s+|money\s+|hard\s+|(?:every|each)\s+(?:spare\s+)?(?:penny|cent|dollar|pound|euro)\s+)?"
    r"(?:for|to|toward)\b",
    r"\bto\s+(?:save\s+(?:up\s+)?(?:for|money)|pay\s+(?:off|down)|afford)\b",
    r"\b(?:is|am|are|'m|'re|'s)\s+(?:\w+ly\s+|still\s+|now\s+)?"
    r"putting\s+(?:money|cash|\w+\s+(?:dollars|bucks)|something|a\s+little|part\s+of\s+\w+\s+\w+)"
    r"\s+(?:aside|away|by)\b",
    r"\b(?:is|am|are|'m|'re|'s)\s+(?:\w+ly\s+|still\s+|now\s+)?paying\s+(?:off|down)\s+"
    r"(?:my|his|her|their|our|the|a|an|that|this|\w+'s|\d|\$)",
    r"\b(?:goal|aim|target|mission|resolution|dream|priority|plan)\s+(?:this\s+year\s+|for\s+now\s+)?"
    r"is\s+to\b",
    r"\b(?:set|has|have|with)\s+(?:\w+self\s+|themselves\s+)?an?\s+(?:\w+\s+)?goal\s+of\b",
    r"\b(?:working|saving|building|striving|studying)\s+towards?\b",
    r"(?:\baims|\b(?:is|am|are|'m|'re|'s)\s+aiming)\s+(?:to|for)\b",
    # (resolve with no aim of its own is none: "determined to make it work")
    r"\b(?:determined|resolved|vowed|pledged|committed)\s+to\s+(?!the\b|a\b|an\b|make\s+"
    r"(?:it|this|that|things)\s+(?:work|happen)\b|make\s+a\s+difference\b)\w+",
    r"\bon\s+(?:a\s+mission|track)\s+to\b",
    rf"\b(?:wants?|hopes?|plans?|intends?|means?)\s+to\b{_S}{{2,60}}?\b(?:by|before)\s+"
    r"(?:the\s+(?:end|time)|turning|age|\d{2,4}|next|this|(?:thirty|forty|fifty|sixty|seventy)\b)"
    rf"|\b(?:wants?|hopes?|plans?|intends?|means?)\s+to\b{_S}{{2,60}}?\bwithin\s+(?:a|an|the|\w+)\s+"
    r"(?:\w+\s+)?(?:years?|months?)\b",
    r"\b(?:is|am|are|'m|'re|'s)\s+(?:\w+ly\s+|still\s+|now\s+)?trying\s+to\s+(?:cut|reduce|lose|save"
    r"|pay|get|build|quit|stop|limit|keep|stick|eat|spend|drink|walk|learn|finish|read)\b",
    r"\bfocused\s+on\s+(?:getting|paying|saving|building|losing|improving|reaching|finishing)\b",
    r"\bevery\s+(?:raise|bonus|paycheck|pay\s*check|spare\s+\w+|extra\s+\w+)\s+goes\s+(?:into|to|toward)",
    r"\bbuilding\s+(?:up\s+)?an?\s+(?:[\w-]+\s+){0,2}(?:cushion|fund|buffer|nest\s+egg|savings)\b",
    # a pledge or a challenge taken on as one's own: "signed up for a no-spend challenge",
    # "took the plastic-free pledge"; not one done ("did the ice bucket challenge")
    r"\b(?:signed\s+up\s+for|took|joined|taken|(?:is|am|are|'m|'re|'s)\s+doing)\s+(?:the|a|an|this)"
    r"\s+(?:[\w'-]+\s+){0,6}(?:pledge|challenge)\b(?!\s+(?:at|in|on|with)\s+(?:work|school))",
]
_GOAL_RE = re.compile("|".join(_GOAL))

# A rule of conduct kept since: a habitual word, an avoidance, a change for good.
_RULE = re.compile(
    r"\b(?:always|never|only|no\s+longer|any\s*more|now|every\s+(?:time|night|day|morning"
    r"|week|trip|year)|whenever|avoids?|refuses?|won't|will\s+not|stopped|quit|keeps?"
    r"|makes?\s+(?:sure|a\s+point)|insists?|sticks?\s+to|double-checks?|checks?|uses?"
    r"|swore\s+off|gave\s+up|switched\s+to|sticks?\s+with|again)\b"
    # a rule kept since the event: "has kept six months of savings ever since"
    r"|\b(?:has|have|'s|'ve)\s+(?:\w+ly\s+)?(?:\w+ed|kept|stuck|made|brought|bought|carried"
    r"|paid|taken|gone|switched|stayed)\b"
)
# "never" before a past form tells what did not happen once ("never saw the end").
_NEVER_PAST = re.compile(
    r"\bnever\s+(?:\w+ed|saw|went|got|had|made|took|ate|did|knew|found|heard)\b"
)
# What went wrong: a past form, or an event named ("the flood", "a break-in").
_PAST = re.compile(
    r"\b(?:\w{2,}ed|was|were|got|lost|broke|broken|stole|stolen|fell|ate|had|took|went|ran"
    r"|caught|left|paid|sold|bought|burnt|burned|stuck|sent|spent|gave|told|hit|cost|blew"
    r"|froze|tore|bit|stung|shrank|sank|quit|kept|lent|made|felt|found|held|met|slept|stood"
    r"|struck|swore|threw|woke|wore|drove|flew|forgot|hid|rode|shook|fought|dropped"
    r"|didn't|wasn't|weren't|couldn't|wouldn't|never\s+\w+)\b"
)
_EVENT = re.compile(
    r"\b(?:the|a|an|that|my|his|her|their|our)\s+(?:\w+\s+){0,2}?(?:flood|fire|accident"
    r"|divorce|crash|break-in|burglary|robbery|mugging|scare|incident|surgery|diagnosis"
    r"|layoff|breakup|storm|outage|hurricane|injury|fall|scam|fraud|lawsuit|bankruptcy"
    r"|foreclosure|eviction|recall|ordeal|fiasco|disaster|mishap|heart\s+attack|stroke"
    r"|overdraft|hack|leak|flat|blowout)\b"
)
# After "since" or "after", a gerund of something going wrong (not a routine's step:
# "after running" is a habit, "after losing" an event).
_GERUND_EVENT = re.compile(
    r"^(?:nearly\s+|almost\s+)?(?:losing|missing|breaking|crashing|falling|wasting|failing"
    r"|tearing|spraining|injuring|hurting|forgetting|ruining|damaging|overpaying|spilling"
    r"|burning|being\s+\w+ed|having\s+(?:a|an|my|his|her|their|our)\b|getting\s+(?:sick"
    r"|robbed|scammed|burned|burnt|stranded|stuck|hurt|fired|laid\s+off|food\s+poisoning"
    r"|ripped\s+off|mugged|bitten|stung|lost|locked\s+out|sunburned|towed|hacked|ticketed"
    r"|pickpocketed|caught))\b"
)
# A time, not an event: "since 2015", "since Monday", "ever since college".
_TIME_ONLY = re.compile(
    r"^(?:\d|last|this|then|childhood|college|high\s+school|school|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august"
    r"|september|october|november|december|spring|summer|fall|autumn|winter|forever|ages"
    r"|yesterday|lunch|dinner|breakfast|work|class|the\s+(?:weekend|morning|party|holidays"
    r"|movie|game|show))\b"
    # since we last talked, since I was a kid; "since Maya and family last spoke", as a
    # memory retells the speaker's "we"
    r"|^(?:we|you|i|they|[a-z]+(?:\s+and\s+(?:family|[a-z]+))?)\s+(?:last\s+)?(?:talked|spoke"
    r"|chatted|met|caught\s+up|saw\s+each\s+other)\b"
    r"|^(?:i|he|she|we|they)\s+(?:was|were)\s+(?:a\s+)?(?:kid|kids|little|young|small|boy|girl"
    r"|child|children|teenager|teen|baby|in\s+\w+\s+school)\b"
)
_CAUSE_FIRST = re.compile(
    r"^\s*(?:ever\s+since|since|after|because\s+of|having\s+been|having)\s+"
    r"(?P<cause>[^,]{3,}?),\s*(?P<rule>.+)$"
)
# "<what went wrong>, so now <the rule>"
_CAUSE_SO = re.compile(
    r"^(?P<cause>.{3,}?),?\s+so\s+(?P<rule>(?:now|these\s+days|from\s+then\s+on)\b.+)$"
)
_CAUSE_LAST = re.compile(
    r"^(?P<rule>.+?)\s*,?\s+(?:ever\s+since|since|after|because)\s+(?P<cause>.{3,})$"
)
_REASON_ALONE = re.compile(
    r"\b(?:swore\s+off|learned\s+the\s+hard\s+way|lesson\s+learned|once\s+bitten|never\s+again"
    r"|(?:has|have|'s|'ve)\s+been\s+(?:wary|careful|cautious)\s+(?:of|about|with)\b"
    rf"{_S}*\b(?:since|after))"
)


def _clean(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").split()).strip()


def _event(cause: str) -> bool:
    cause = cause.strip().lower()
    if _TIME_ONLY.match(cause):
        return False
    if re.match(r"^(?:nearly\s+|almost\s+)?\w+ing\b", cause):
        return _GERUND_EVENT.match(cause) is not None
    return _PAST.search(cause) is not None or _EVENT.search(cause) is not None


def _rule(clause: str) -> bool:
    clause = clause.lower()
    return _RULE.search(clause) is not None and _NEVER_PAST.search(clause) is None


def _reason(low: str) -> bool:
    if _REASON_ALONE.search(low):
        return True
    for form in (_CAUSE_FIRST, _CAUSE_LAST, _CAUSE_SO):
        m = form.match(low)
        if m and _event(m.group("cause")) and _rule(m.group("rule")):
            return True
    return False


def view_kind(text: str) -> str:
    """The view ("value", "goal" or "reason") a sentence of ``text`` states by its form
    (see the module docstring), else "". Whose view it is is not decided here. Each
    sentence is read alone, up to ``MAX_SENTENCE`` characters: a long text costs linear
    time."""
    for sentence in _SENTENCE.split(_clean(text).lower()):
        kind = _sentence_kind(sentence[:MAX_SENTENCE])
        if kind:
            return kind
    return ""


def _sentence_kind(low: str) -> str:
    if not low or _HEDGE.search(low) or _OVER.search(low) or _MOMENT.search(low):
        return ""
    if _reason(low):
        return REASON
    if _GOAL_RE.search(low):
        return GOAL
    if _VALUE_RE.search(low):
        return VALUE
    return ""
