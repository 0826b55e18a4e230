"""Supersession: a newer statement about the same slot replaces the older one.

"Maya lives in Boston" then "Maya moved to Denver" (or "Maya and family live in Boston",
as "we live in Boston" is written): both fill the slot *residence* of subject Maya with
different values, so the older memory is marked superseded (it keeps its history and
leaves retrieval) instead of contradicting the new one. Slots are a
small list of single-valued attributes people change; anything else accumulates.

One general slot, *value*, needs no list: "Maya takes 20 mg of lisinopril" then "Maya
takes 40 mg of lisinopril" say the same sentence with a new measurement (a number with a
unit), so the newer replaces the older. A bare number ("room 12", "fact number 3") names
a different thing, and a past-tense sentence ("ran 5 km") reports an event: both stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from logicmem.routes.rulemem.facts import verbish
from logicmem.routes.visible.text import OTHER_PEOPLE_WORDS, word_set
from logicmem.write.novelty import VALUE_KINDS, Token, stem, tokens
from logicmem.write.person import HE_KIN, MEMBER_WORDS, SHE_KIN
from logicmem.write.rules import (
    LONG_AGO_WORDS,
    MONTHS,
    STOPWORDS,
    WEEKDAYS,
    asserted,
    own_words,
    reported,
    without_hints,
)

# What someone walks with, a slot of its own (``mobility_aid``); walking without one ends
# using it (``retract``).
MOBILITY_AIDS = r"walker|rollator|cane|walking stick|wheelchair|crutches|mobility scooter"

_FUNCTION = (
    r"(?:the|a|an|to|and|or|but|at|for|in|of|on|with|by|from|since|until|before|after|"
    r"when|while|who|which|that|because|so|then|day|last|this|next)"
)
_ORDINAL_WORDS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth",
)  # fmt: skip
# How a name starts: with a capital, or, a user id, with digits ("42maya").
_NAME = r"(?:[A-Z]|\d+[A-Za-z_])"
# Places and employers are proper names: "lives in a flat" fills no residence (the kind of
# home is a slot of its own, "dwelling").
_VALUE = r"(?P<v>[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)"
# A time long past: what happened then changes no slot now ("married Tom in 2010").
_LONG_AGO = rf"\b(?:{LONG_AGO_WORDS}|back in)\b"
# A date is no place: "moved in May", "assisted living in March".
_NO_DATE = r"(?!(?i:" + "|".join((*MONTHS, *WEEKDAYS)) + r")\b)"
# The words for a job held ("is a nurse at ...").
OCCUPATIONS = (
    "nurse doctor physician surgeon dentist pharmacist therapist physiotherapist paramedic "
    "midwife vet veterinarian teacher professor lecturer tutor principal librarian engineer "
    "developer programmer designer architect scientist researcher analyst accountant "
    "bookkeeper lawyer attorney paralegal solicitor judge clerk secretary receptionist "
    "manager director administrator consultant chef cook baker butcher barista bartender "
    "waiter waitress server cashier driver trucker pilot mechanic electrician plumber "
    "carpenter builder welder painter gardener landscaper cleaner janitor firefighter "
    "officer detective journalist reporter editor writer photographer artist musician "
    "florist hairdresser barber stylist salesperson realtor banker broker economist "
    "technician caregiver nanny housekeeper farmer fisherman soldier sailor courier "
    "dispatcher coach trainer counselor counsellor psychologist psychiatrist optician "
    "optometrist radiologist technologist hygienist pharmacologist chemist biologist "
    "mathematician statistician translator interpreter supervisor associate"
)
_OCCUPATION = "|".join(OCCUPATIONS.split())  # the job words, as one alternation
# Words that praise a skill, not name a job: "is a good cook now".
_PRAISE = (
    r"(?:good|great|better|bad|terrible|amazing|decent|excellent|awesome|pretty|real|much|"
    r"huge|big|little|natural|born|total|fantastic|wonderful|proper)"
)
_CARE = (
    r"(?:assisted living|nursing home|care home|memory care|hospice|rehab facility|"
    r"group home|retirement home|retirement community|senior living)"
)
# A habit said as held now, not one wished, planned, given up or kept some of the time.
_NOT_NOW = (
    r"(?<!n't )(?<!not )(?<!never )(?<!to )(?<!no longer )(?<!sometimes )(?<!occasionally )"
    r"(?![^.;!?]*\b(?:today|tonight|tomorrow|yesterday|this morning|sometimes|occasionally|"
    r"some days|when|if|on (?:\w+ )?days|for long|for longer|outside|at night|anymore|"
    r"any more|once)\b)"
)
# How someone gets to work or to school: by bike, car, on foot, in a carpool, or by transit.
_GETS_THERE = (
    r"\b(?:(?P<bike>bikes?|biking|cycles?|cycling|"
    r"rides?\s+(?:my|his|her|their|a|[\w-]+'s)\s+bike)|(?P<car>drives?|driving)|"
    r"(?P<walk>walks?|walking)|(?P<carpool>carpools?|carpooling)|"
    r"(?:takes?|taking|rides?|riding)\s+the\s+(?P<transit>bus|train|subway|metro|tube|"
    r"tram|ferry|light rail))"
)
# Work held, said of it now: "works", "is working" (not "hates working", "stopped working").
_WORKING = r"(?:works?|(?:is|am|'m|are|'re|'s|been)\s+(?:now\s+|still\s+)?working)"
_AIDS = {"rollator": "walker", "walking stick": "cane"}
_SIGHT = {"contact lenses": "contacts", "spectacles": "glasses"}
_SCHOOL_KIND = (
    r"(?:Elementary|Middle|High|Primary|Secondary|Academy|School|College|University|"
    r"Prep|Montessori|Preschool|Nursery|Daycare|Kindergarten|daycare|preschool|nursery|"
    r"kindergarten)"
)
# Words after "works" that make it no job: "works out at Gold's Gym" is exercise, "works on
# it at a café" a place to sit, "works hard at school" an effort.
_NOT_EMPLOYED_BY = r"(?!(?:out|up|off|through|on|around|away|hard)\b)"
# The part of an organisation one works in, said before the organisation: "works in the
# marketing department at Acme" (Acme is the employer).
_IN_UNIT = (
    r"in\s+(?:the|a|an)\s+(?:[\w&-]+\s+){0,2}?"
    r"(?:department|dept|team|division|group|unit|office)\s+"
)
# Departments named alone, as people say them: "moved to Marketing" is no town.
DEPARTMENTS = (
    "human resources", "customer service", "customer support", "public relations",
    "business development", "investor relations", "quality assurance", "marketing", "sales",
    "finance", "accounting", "engineering", "hr", "legal", "it", "operations", "compliance",
    "procurement", "purchasing", "payroll", "logistics", "r&d", "communications", "pr",
    "recruiting", "recruitment", "admissions", "billing", "facilities", "audit", "treasury",
)  # fmt: skip
_DEPARTMENT = "|".join(re.escape(d) for d in DEPARTMENTS)
# As a name: "Marketing", "Human Resources", "HR" ("it" alone is no department).
_DEPARTMENT_NAME = "|".join(re.escape(d.upper() if len(d) <= 3 else d.title()) for d in DEPARTMENTS)
# Workplaces named by their kind, not their name: "works at the library", "got a job at a
# bakery". Longer kinds first within a word ("grocery store" before "store").
WORKPLACES = (
    "post office", "coffee shop", "grocery store", "hardware store", "department store",
    "nursing home", "care home", "law firm", "call center", "call centre", "animal shelter",
    "vet clinic", "dental office", "library", "hospital", "clinic", "school", "university",
    "college", "bank", "bakery", "cafe", "café", "restaurant", "diner", "hotel", "warehouse",
    "factory", "plant", "pharmacy", "supermarket", "bookstore", "daycare", "museum", "zoo",
    "airport", "salon", "garage", "gym", "store", "shop", "brewery", "winery", "theater",
    "theatre", "cinema", "newspaper", "startup", "nonprofit", "charity", "agency", "firm",
    "farm", "lab", "laboratory",
)  # fmt: skip
_WORKPLACE = "|".join(re.escape(w) for w in WORKPLACES)
# Held now, the verb says it ("works at", "is a nurse at", "took a job at"); "is working at
# the library" only with "now" or "these days" (held_slots): without, it is where one sits
# today.
_KIND_EMPLOYER = re.compile(
    r"\b(?:(?:works|employed|hired)\s+(?:(?:now|currently|still|part-time|full-time|nights|"
    r"days|weekends|evenings|mornings|there)\s+){0,2}(?:" + _IN_UNIT + r")?(?:at|for|by)"
    r"|(?:is|am|'m|are|'re)\s+(?:now\s+)?an?\s+(?:[\w-]+\s+){0,2}?(?:"
    + _OCCUPATION
    + r")\s+(?:at|for)"
    r"|(?:(?:took|got|started|landed|accepted|found|has|have)\s+(?:a|an|the)\s+(?:new\s+)?"
    r"(?:[\w-]+\s+){0,2}?job|new\s+job)\s+(?:at|with)"
    r"|(?P<prog>working)\s+(?:at|for))"
    r"\s+(?:the|a|an)\s+(?P<other>(?:new|different|another|other)\s+)?"
    r"(?:(?!(?:" + _WORKPLACE + r")\b)[a-z][\w'-]*\s+){0,2}?(?P<place>" + _WORKPLACE + r")\b"
    # the kind said alone, not naming another thing ("the school fundraiser")
    r"(?=\s*(?:[,.;:!?)]|$)|'s\b|\s+(?:now|these|nowadays|part-time|full-time|and|but|as|"
    r"in|on|at|near|downtown|since|for|where|which|that|with|every|during|while|so|because|"
    r"too|again|anymore|three|two|four|five|most|all)\b)"
)
# A name that goes before a word for a part of an organisation or a thing of its own is
# no town: "moved to the Sales team", "the Boston office", "the Premium plan".
_NOT_A_PLACE = (
    r"(?![\w'&.-])(?!\s+(?:[A-Z][\w'&.-]*\s+)*(?:team|department|dept|office|branch|group|"
    r"class|classes|plan|unit|division|floor|wing|ward|league|section|program|programme|"
    r"course|account|tier|role|position|store|location|campus|site|shift|squad|crew|lab|"
    r"project|channel|server|version|level|desk|line|route)\b)"
)
SLOTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "residence",
        re.compile(
            r"\b(?:live|lives|living|lived|resides?|moved|moving|relocated|relocating|based)\s+"
            r"(?:back\s+|alone\s+|on\s+(?:my|his|her|their)\s+own\s+|by\s+(?:him|her|them)"
            r"sel(?:f|ves)\s+)?"
            r"(?:in|to)\s+(?:the\s+)?"
            # a place of care in a town: "lives in assisted living in Tucson" (the town)
            r"(?:(?:an?\s+)?" + _CARE + r"(?:\s+(?:facility|home|community|center))?\s+in\s+)?"
            # a home in a town: "moved to my own place in Brooklyn" (the town), never the
            # owner's name ("moved to Maya's own place")
            r"(?:(?:my|our|his|her|their|[A-Z][\w-]*'s)\s+(?:own\s+|new\s+)*"
            r"(?:place|apartment|house|flat|condo|home)\s+in\s+)?(?![A-Z][\w-]*'s\b)"
            + _NO_DATE
            # a department said alone is no town: "moved to Marketing"
            + r"(?!(?i:"
            + _DEPARTMENT
            + r")(?![\w'&-]|\.\w)(?!\s+[A-Z]))"
            + _VALUE
            + _NOT_A_PLACE
        ),
    ),
    (
        # Whom someone lives with, or the place of care they live in: "Maya's mom lives
        # with Maya and family" -> "moved into assisted living". Not the town (residence).
        "household",
        re.compile(
            r"\b(?:lives|living|moved in|moving in|stays|staying)(?:\s+at\s+home)?\s+with\s+"
            rf"(?P<with>{_NAME}[\w'-]*(?: and family)?)(?![\w'-])"
            r"|\b(?:lives|living)\s+(?P<alone>alone|on (?:his|her|their) own|by (?:himself|"
            r"herself|themselves))\b"
            r"|\b(?:lives|living|moved|moving|is|was moved)\s+(?:in|into|to)\s+(?:a\s+|an\s+)?"
            r"(?P<care>" + _CARE + r")\b"
        ),
    ),
    (
        # The kind of home someone lives in: "lives in a third-floor walkup" -> "moved into a
        # house with a ground-floor bedroom". Not the town (residence), not one bought.
        "dwelling",
        re.compile(
            r"\b(?:live|lives|living|moved into|moving into|moved to|moving to|moved in to)\s+"
            r"(?:in\s+)?(?:a|an|the|our|my)\s+(?:new\s+)?(?P<v>(?:[\w-]+\s+){0,3}?"
            r"(?:apartment|flat|house|condo|townhouse|townhome|walk-?up|studio|bungalow|duplex|"
            r"cottage|loft|trailer|mobile home|dorm|basement suite))\b"
            # the home rented: "we're renting a two-bedroom apartment"; not a place rented
            # for a while ("a cabin for the weekend", "a beach house every summer")
            r"|\b(?:rent|rents|renting)\s+(?:a|an|our|my)\s+(?P<rented>(?:[\w-]+\s+){0,3}?"
            r"(?:apartment|flat|house|condo|townhouse|townhome|walk-?up|studio|bungalow|duplex|"
            r"loft|basement suite))\b"
            r"(?![^.;!?]*\b(?:every|each|for the|for a|for two|for three|this|next|on vacation|"
            r"in the summer|over the|to\s+(?:a|an|the|my|our|students|tenants))\b)"
        ),
    ),
    (
        # Whether the home is rented or owned: "we rent our apartment", then "we bought a
        # house". Not a place rented for a while ("rent a cabin every summer") nor a room
        # let to someone ("rent out the basement").
        "tenure",
        re.compile(
            r"\b(?P<rents>rent|rents|renting)(?!\s+out\b)\s+"
            r"(?:(?:a|an|the|our|my|his|her|their|[\w-]+'s)\s+)?(?:[\w-]+\s+)?"
            r"(?:apartment|flat|house|home|place|condo|studio|townhouse|room)\b"
            r"(?![^.;!?]*\b(?:every|each|for the|for a|this|next|on vacation|"
            r"to\s+(?:a|an|the|my|our))\b)"
            r"|\b(?P<renters>are renters|is a renter|am a renter|'re renters)\b"
            # Owned, the home lived in: "own our home", "bought a house"; not "owns a condo
            # in Miami", which may be one more place than the home.
            r"|\b(?P<owns>(?:own|owns)\s+(?:the|our|my|his|her|their|[\w-]+'s)|"
            r"(?:bought|closed on|purchased)\s+(?:a|our|my|their|[\w-]+'s)(?:\s+first)?)"
            r"\s+(?:new\s+)?(?:home|house|place)\b(?!\s+(?:for|as)\b)"
            r"|\b(?P<owner>are homeowners|is a homeowner|am a homeowner|'re homeowners)\b"
        ),
    ),
    (
        "employer",
        re.compile(
            # "works at", "works part-time for", "works as a night nurse at"
            r"\b(?:(?:works|working|employed|hired)\s+(?:as\s+an?\s+(?:[\w-]+\s+){1,2}|"
            + _IN_UNIT
            + r"|(?:"
            + _NOT_EMPLOYED_BY
            + r"[a-z][\w-]*\s+){0,2}?)(?:at|for|by)|"
            # "is a nurse at St. Mary's", "is a senior engineer at Google"
            r"(?:is|am|'m|are|'re)\s+(?:now\s+)?an?\s+(?:[\w-]+\s+){0,2}?(?:"
            + _OCCUPATION
            + r")\s+(?:at|for)|"
            # "switched to a clinic job at ...": the verb is no part of whose job it is
            r"(?:(?:took|got|started|landed|accepted|switched to|moved to|found)\s+"
            r"(?:a|an|the)\s+(?:new\s+)?(?:[\w-]+\s+){0,2}?)?"
            r"job\s+(?:\w+\s+){0,2}?(?:at|with))\s+(?:the\s+)?" + _VALUE
        ),
    ),
    ("employer", _KIND_EMPLOYER),
    (
        # The department one works in, one at a time: "works in the marketing department",
        # then "got transferred to the sales department" (not a team: one plays on several).
        "department",
        re.compile(
            r"\b(?:(?:works|working)\s+(?:now\s+)?in|"
            r"(?:transferred|moved|switched|transferring|moving)\s+(?:over\s+)?(?:to|into))\s+"
            # a ward one is a patient in is no department one works in
            r"the\s+(?!(?:emergency|accident|cardiology|oncology|radiology|maternity|"
            r"pediatrics?|paediatrics?|intensive|psychiatric|psychiatry|neurology|orthopedics?|"
            r"surgical|trauma|burn|outpatient|inpatient)\b)"
            r"(?P<v>(?:(?!(?:department|dept)\b)[\w&-]+\s+){1,2}?)(?:department|dept)\b"
        ),
    ),
    (
        # A department said by its name alone: "got moved to Marketing", "switched to HR".
        "department",
        re.compile(
            r"\b(?:transferred|moved|switched|transferring|moving)\s+(?:over\s+)?(?:to|into)\s+"
            r"(?:the\s+)?(?:(?P<v>" + _DEPARTMENT_NAME + r")(?![\w'&-]|\.\w)"
            r"(?:\s+(?:department|dept|team)\b)?(?!\s+[A-Z])"
            r"|(?P<unit>" + _DEPARTMENT + r")\s+team\b)"
        ),
    ),
    (
        "occupation",
        # The job is one or two words, never a following function word ("as a nurse to").
        re.compile(
            r"\b(?:works|working|job|freelances|freelancing) as an?\s+(?P<v>[a-z]+(?: (?!"
            + _FUNCTION
            + r"\b)[a-z]+)?)"
            # "is a nurse at St. Mary's": a job word, said with where it is held
            r"|\b(?:is|am|'m|are|'re)\s+(?:now\s+)?an?\s+(?P<job>(?:[\w-]+\s+){0,2}?(?:"
            + _OCCUPATION
            + r"))\s+(?:at|for)\s+(?:the\s+)?[A-Z]"
            # "is a nurse manager now", "is now a paralegal": the job held now, said so
            r"|\b(?:is|am|'m|are|'re)\s+(?P<now>now\s+)?an?\s+(?!"
            + _PRAISE
            + r"\b)(?P<held>(?:(?!"
            + _FUNCTION
            + r"\b)[a-z-]+\s+){0,2}?(?:"
            + _OCCUPATION
            + r"))(?(now)(?=\s*(?:[,.;!?]|$))|\s+now\b(?=\s*(?:[,.;!?]|$)|\s+(?:and|but)\b))"
            # "got promoted to sous chef": the job it names, a job word's
            r"|\b(?:got|was|been|is|am|'m|are|'re|being|getting)\s+(?:just\s+|finally\s+)?promoted\s+"
            r"to\s+(?:an?\s+)?(?P<raised>(?:(?!"
            + _FUNCTION
            + r"\b)[\w-]+\s+){0,2}(?:"
            + _OCCUPATION
            + r"))\b(?!\s+(?:of|in)\b)"
        ),
    ),
    (
        # Where a child (or the speaker) studies: a school's name, with the word for its
        # kind ("Lincoln Elementary", "Little Stars daycare"), not a game or a visit there.
        "school",
        re.compile(
            r"\b(?:goes to|go to|attends|attend|attending|enrolled (?:at|in)|transferred to|"
            r"switched to|moved to|studies at|(?:started|starting|starts)(?:\s+[\w-]+){0,2}\s+at|"
            # "is in 4th grade at Lincoln Elementary", "is a junior at Westfield High"
            r"(?:is|are|'s)\s+(?:in\s+)?(?:the\s+)?(?:(?:\d{1,2}(?:st|nd|rd|th)|"
            + "|".join(_ORDINAL_WORDS)
            + r")\s+grade|kindergarten|pre-?k|year\s+\d{1,2}|an?\s+(?:freshman|sophomore|junior|"
            r"senior))\s+at|"
            # "she's at Oak Ridge Academy now": where a child is, said of nothing else
            r"(?:is|'s|are|'re)\s+(?:now\s+)?at(?=\s+(?:the\s+)?(?:[A-Z][\w'&.-]*\s+){1,4}"
            + _SCHOOL_KIND
            + r"(?:\s+School)?(?:\s*(?:[,.;!?]|$)|\s+now\b)))"
            r"\s+(?:the\s+)?(?P<v>(?:[A-Z][\w'&.-]*\s+){1,4}" + _SCHOOL_KIND + r"(?:\s+School)?)"
            r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:and|but|now|this|since|in|on|for|with|where|every|"
            r"full|part|each|until|because|so|one|two|three|four|five|\d)\b)"
        ),
    ),
    (
        # The year of school: "is in 2nd grade" -> "started third grade", "a junior now".
        "grade",
        re.compile(
            r"\b(?:is|are|'s|started|starting|starts|entered|entering|into|in|finished|"
            r"finishing|(?:moved|went|bumped|going)\s+(?:up|on)\s+to)\s+(?:the\s+)?"
            r"(?P<v>(?:\d{1,2}(?:st|nd|rd|th)|"
            + "|".join(_ORDINAL_WORDS)
            + r")\s+grade|kindergarten|pre-?k|preschool|daycare|nursery school|year\s+\d{1,2})\b"
            r"|\b(?:is|'s|are)\s+(?:now\s+)?an?\s+(?P<year>freshman|sophomore|junior|senior)\b"
            r"(?=\s*(?:[,.;!?]|$)|\s+(?:now|at|in|this)\b)"
            # "is a fourth grader now"
            r"|\b(?:is|'s|are)\s+(?:now\s+)?an?\s+(?P<grader>(?:\d{1,2}(?:st|nd|rd|th)|"
            + "|".join(_ORDINAL_WORDS)
            + r"))[\s-]+grader\b"
        ),
    ),
    (
        # The shift worked: "works night shifts" -> "moved to day shifts"; "works nights"
        # as a habit, not for some nights ("works nights this week", "on weekends").
        "shift",
        re.compile(
            r"\b(?:works?|working|on|moved to|switched to|switching to|back to|"
            r"started|doing|does)\s+(?:the\s+)?(?P<v>night|day|evening|overnight|morning|"
            r"graveyard|early|late|swing)\s+shifts?\b"
            rf"|\b{_WORKING}\s+"
            r"(?:mostly\s+|only\s+)?(?P<nights>night|overnight|evening)s"
            r"\b(?!\s+(?:this|next|last|until|for|on|when|during|over|sometimes|occasionally|once|"
            r"twice|now and then)\b)"
        ),
    ),
    (
        # Full or part time at work: "works part-time at the library" -> "went full-time".
        # Not a student's load or a help hired ("a part-time student", "a part-time nanny").
        "work_hours",
        re.compile(
            rf"\b(?:{_WORKING}|employed|went|switched\s+to|moved\s+to|back\s+to|"
            r"cut\s+(?:back|down)\s+to|(?:is|am|'m|are|'re)\s+(?:now\s+|still\s+)?)\s*"
            r"(?P<v>part[- ]time|full[- ]time)\b"
            r"(?!\s+(?:student|students|school|college|mba|degree|program|course|classes|nanny|"
            r"babysitter|sitter|help|job|jobs|gig|position|role)\b)"
        ),
    ),
    (
        # Where the work is done: "works from home" -> "back in the office full time". Said
        # with days ("from home on Fridays", "in the office three days a week"), a mix of
        # both. Not a day off the usual ("working from home today"), nor a plan.
        "work_mode",
        re.compile(
            r"(?:\b(?:works?|working|am|is|are|'m|'s|'re)\s+(?:now\s+|still\s+|mostly\s+|fully\s+|"
            r"full[- ]time\s+)*(?P<remote>from home|remotely|remote)\b"
            r"|\b(?P<wfh>WFH)\b"
            r"|\b(?:(?:went|got|came|am|is|are|'m|'s|'re)\s+back|returned)\s+(?:to|in(?:to)?|at)\s+"
            r"the\s+office\b|\b(?:works?|working)\s+(?:in|at|from)\s+the\s+office\b|"
            r"\b(?:commutes?|goes)\s+(?:in\s+)?(?:in)?to\s+the\s+office\b"
            r"|\b(?:works?|working|is|am|'m|are|'re)\s+(?P<hybrid>hybrid)\b)"
            r"(?!\s+(?:today|tonight|tomorrow|this\s+(?:week|morning|afternoon)|party|building|"
            r"manager|supplies|job|jobs)\b)"
            r"(?P<days>\s+(?i:(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri)days|(?:one|two|three|four|"
            r"[1-4])\s+days?(?:\s+(?:a|per|each))?\s+week|part[- ]time|some days|a few days)))?"
        ),
    ),
    (
        # How someone gets to work, as a habit: "bikes to work" -> "takes the bus to work
        # now". Not a day's trip ("drove to work today"), a wish ("wants to bike to work"),
        # nor a way kept for some days ("walks to work when it's sunny").
        "commute",
        re.compile(
            _NOT_NOW + _GETS_THERE + r"\s+(?:in\s+)?to\s+(?:work|the office)\b"
            r"|\bcommutes?\s+by\s+(?P<by>bike|car|bus|train|subway|metro|tube|tram|ferry)\b"
        ),
    ),
    (
        # The way to school, of a child or a student: "Theo drives to school now" after
        # "takes the bus to school".
        "school_commute",
        re.compile(_NOT_NOW + _GETS_THERE + r"\s+to\s+(?:school|class|college|campus)\b"),
    ),
    (
        # What someone walks with: "uses a walker" -> "only needs a cane now". Not one kept
        # for some of the time ("uses a wheelchair for long distances").
        "mobility_aid",
        re.compile(
            _NOT_NOW + r"\b(?:uses?|using|needs?|needing|walks?\s+with|is\s+in|'s\s+in|am\s+in|"
            r"'m\s+in|is\s+on|am\s+on|'m\s+on|'s\s+on|got|has)\s+(?:an?\s+)?"
            rf"(?P<aid>{MOBILITY_AIDS})\b"
        ),
    ),
    (
        # What someone sees with: "wears glasses" -> "switched to contacts", "got LASIK".
        # Not a pair kept for some of the time ("wears glasses at night"), nor reading glasses.
        "vision_aid",
        re.compile(
            _NOT_NOW + r"\b(?:(?:wears?|wearing|switched\s+to|moved\s+to|went\s+to|uses?|needs?)\s+"
            r"(?:(?:my|his|her|their)\s+)?(?P<sight>glasses|contacts|contact lenses|spectacles)"
            r"|(?:got|had)\s+(?P<lasik>LASIK|laser eye surgery))\b"
        ),
    ),
    (
        # Custody of children after a separation: "we have joint custody" -> "I got full
        # custody of the kids".
        "custody",
        re.compile(
            r"\b(?:have|has|had|got|share|shares|sharing|awarded|granted|won)\s+"
            r"(?P<v>joint|full|sole|shared|primary|partial|50/50)\s+(?:physical\s+|legal\s+)?"
            r"custody\b"
        ),
    ),
    (
        "relationship",
        re.compile(
            r"\b(?:is|are|got|became|recently)\s+(?P<v>married|engaged|divorced|separated|single|"
            r"widowed|dating)\b"
            # "has been dating someone": dating, whoever it is.
            r"|\b(?:has been|have been|'s been|'ve been|started|is now|began)\s+"
            r"(?P<dating>dating)\b"
            # "started seeing someone", "has a boyfriend now": dating too; not "seeing
            # someone about my back", nor "seeing a therapist"
            r"|\b(?:started|is|are|'s|'re|has been|'s been)\s+(?P<seeing>seeing)\s+someone\b"
            r"(?!\s+(?:about|for|at|to)\b)"
            r"|(?<!n't )(?<!not )(?<!never )(?<!no longer )\b(?:has|have|got|found)\s+a\s+"
            r"(?:new\s+)?(?P<partner>boyfriend|girlfriend)\b"
            # "married Mike in June": married, to whomever; not a wedding long ago
            r"|\b(?<!'s )(?<!is )(?P<wed>married)\s+(?=[A-Z][a-z]+\b(?!')(?![^.;!?]*"
            + _LONG_AGO
            + r"))"
        ),
    ),
    (
        "diet",
        re.compile(
            r"\b(?:is|became|went|turned)\s+(?:a\s+)?(?P<v>vegan|vegetarian|pescatarian)"
            # Eating meat, said as what holds now: not "ate meat at the wedding".
            r"|(?<!n't )(?<!not )(?<!never )(?<!rarely )(?<!hardly )(?<!to )"
            r"(?:\b(?:eats|eat|(?:is|are|am|started|back to|went back to)\s+eating)|"
            r"(?:'s|'re|'m)\s+eating)\s+"
            r"(?P<meat>meat)\b(?!\s+(?:substitutes?|alternatives?|free))"
            # A kind of meat or fish had again: "started eating chicken again".
            r"|(?<!n't )(?<!not )(?<!never )"
            r"(?:\b(?:started|back to|went back to|is|am|are)|'s|'re|'m)\s+"
            r"eating\s+(?:(?P<meat2>chicken|beef|pork|turkey|bacon|lamb)|(?P<fish>fish|seafood))"
            r"\s+again\b"
            # No meat, said as a way of eating: not "doesn't eat meat on Fridays".
            r"|\b(?:doesn't|does not|don't|do not|never|no longer)\s+eats?\s+(?:any\s+)?"
            r"(?P<nomeat>meat)\b(?!\s+(?:on|during|before|after|for|when|at|if|unless|except|"
            r"anymore|any more)\b)"
        ),
    ),
]


def slots_of(text: str) -> dict[str, str]:
    """Slot name -> normalised value for every single-valued attribute ``text`` states, in
    the speaker's own words: the question an answer keeps (``rules.in_reply_to``) states
    nothing ("Are you still at Google?" changes no employer)."""
    return {slot: value for slot, (_, value) in held_slots(text).items()}


# Whom a slot belongs to is the words before its verb in its clause ("Maya's wife Lina is
# vegetarian" is Lina's diet, not Maya's), without the words around a subject that do not
# name it.
_CLAUSE = re.compile(r"[.;:!?]\s*|,\s+|\s+but\s+")
_LEADING = word_set(
    "honestly so well now also sadly btw anyway oh and but then finally actually yes yeah "
    "good news guess what"
)
_TRAILING = word_set(
    "has have had is are was were be been just now also recently still finally currently "
    "already actually officially since then never always only usually mostly"
)
_BEFORE_SUBJECT = word_set(
    "since in at after before from during for on by last this next ago year years month "
    "months week weeks weekend day days spring summer autumn fall winter today yesterday"
)
# The verbs a subject is most often followed by, before a second thing said of it.
_FIRST_VERBS = word_set(
    "is are was were has have had goes lives works loves plays attends studies takes uses "
    "just also still now"
)
_PRONOUNS = word_set("he she they it his her their its him them this that who")
# Words for people, which a subject may be ("Maya's parents", "Maya's kids").
_RELATIONS = word_set(
    f"{OTHER_PEOPLE_WORDS} {' '.join(MEMBER_WORDS.values())} kids children parents twins "
    "grandparents siblings sisters brothers sons daughters friends"
)


def slot_holder(text: str, at: int) -> str | None:
    """Whose slot a match at ``at`` in ``text`` fills, as the words that name them,
    lower case ("maya", "maya's wife lina"); "Maya and family" is Maya. A statement with
    no subject is its speaker's ("Maya said: Moved to Denver"). None when a pronoun names
    them: whom it stands for is not known here, so it neither replaces nor is replaced."""
    holder = _holder(text, at)
    return None if holder is None else holder.lower()


def _holder(text: str, at: int) -> str | None:
    """``slot_holder`` in the words as ``text`` writes them ("Maya's wife Lina")."""
    clause = _CLAUSE.split(text[:at])[-1]
    words = re.findall(r"[\w'&.-]+", clause)
    while words and words[0].lower() in _LEADING:
        words.pop(0)
    while words and words[-1].lower() in _TRAILING:
        words.pop()
    if len(words) > 1 and words[-1].lower() in ("and", "but"):
        # A second thing said of the same subject ("Maya's daughter is 6 and in first
        # grade"): the subject is what comes before the first verb; none known, no holder.
        verb = next((i for i, w in enumerate(words) if w.lower() in _FIRST_VERBS), 0)
        if not verb:
            return None
        words = words[:verb]
    # A time or place said before the subject is no part of it: "Since 2019 Maya ...".
    for i in range(len(words) - 1, -1, -1):
        if words[i].lower() in _BEFORE_SUBJECT or words[i].isdigit():
            words = words[i + 1 :]
            break
    if [w.lower() for w in words[-2:]] == ["and", "family"]:
        words = words[:-2]
    if not words:
        said = reported(text)
        return said[0] if said else ""
    if len(words) == 1 and re.fullmatch(r"(?i:he|she)(?:'s)?", words[0]):
        return _antecedent(text, at - len(clause), words[0].lower().startswith("s"))
    if (
        len(words) > 2
        and words[-2].lower() in ("and", "so")
        and re.fullmatch(r"(?i:he|she)(?:'s)?", words[-1])
    ):
        # A second clause of the same sentence: "Priya got an offer and she moved to Ohio".
        pronoun = text.rfind(words[-1], 0, at)
        return _antecedent(text, pronoun, words[-1].lower().startswith("s"))
    if any(re.sub(r"'(?:s|re|d|ll)$", "", w.lower()) in _PRONOUNS for w in words):
        return None  # "they", "his sister"
    return " ".join(_noun_phrase(words))


def _noun_phrase(words: list[str]) -> list[str]:
    """The words that name a subject, without a clause before it joined by "and" ("Maya
    left nursing and Maya" -> "Maya") or a verb said of it before the slot's own words
    ("Maya starts Maya's new" -> "Maya", "Maya took a full-time" -> "Maya")."""
    lower = [w.lower() for w in words]
    if "and" in lower[1:-1]:
        i = len(lower) - 1 - lower[::-1].index("and")
        if lower[i + 1] != "family" and any(verbish(w) for w in lower[1:i]):
            words, lower = words[i + 1 :], lower[i + 1 :]
    for j in range(1, len(words)):
        after_name = words[j - 1][:1].isupper() and not lower[j - 1].endswith("'s")
        # A word in -s after a name is its verb: "Maya starts", not a relation of hers.
        third = after_name and lower[j].endswith("s") and lower[j] not in _RELATIONS
        if words[j].islower() and (verbish(lower[j]) or third):
            return words[:j]
    return words


# Who a sentence opens with: a name, or a relation of someone's with or without a name.
_OPENS_WITH = re.compile(
    r"(?:[A-Z][\w-]*\s+said:\s+)?(?P<who>[A-Z][\w-]*'s\s+(?P<kin>[a-z-]+)(?:\s+[A-Z][a-z]+)?|"
    r"(?!(?:I|We|They|He|She|It|The|This|That|My|Our)\b)[A-Z][a-z]+)\b(?!'s)"
)


def _antecedent(text: str, clause_at: int, she: bool) -> str | None:
    """Whom "she" or "he" at the start of the clause at ``clause_at`` stands for: the
    person its sentence opens with, when the sentence names no one else before it and
    that person may be called so ("Ava switched schools, she's at Oak Ridge Academy now":
    Ava); None otherwise."""
    start = max(text.rfind(mark, 0, clause_at) for mark in ".;!?")
    sentence = text[start + 1 : clause_at].strip()
    found = _OPENS_WITH.match(sentence)
    if found is None:
        return None
    between = sentence[found.end() :]
    if re.search(r"\b[A-Z][a-z]+\b|'s\b|\b(?:he|she|him|her|they)\b", between):
        return None  # someone else named before the pronoun: whom it stands for is unsure
    kin = (found.group("kin") or "").lower()
    if kin in (HE_KIN if she else SHE_KIN):
        return None
    return found.group("who")


# How a slot's value is told in a sentence of its own (``restated``), by the group of its
# pattern that holds the value.
_TOLD = {
    ("residence", "v"): "{who} lives in {v}.",
    ("dwelling", "v"): "{who} lives in {a} {v}.",
    ("household", "with"): "{who} lives with {v}.",
    ("household", "care"): "{who} lives in {v}.",
    ("household", "alone"): "{who} lives alone.",
    ("employer", "v"): "{who} works at {v}.",
    ("employer", "place"): "{who} works at the {v}.",
    ("department", "v"): "{who} works in the {v} department.",
    ("department", "unit"): "{who} works in the {v} department.",
    ("custody", "v"): "{who} has {v} custody.",
    ("mobility_aid", "aid"): "{who} uses {a} {v}.",
    ("shift", "v"): "{who} works {v} shifts.",
    ("shift", "nights"): "{who} works {v}s.",
    ("work_hours", "v"): "{who} works {v}.",
    ("occupation", "v"): "{who} works as {a} {v}.",
    ("occupation", "job"): "{who} works as {a} {v}.",
    ("occupation", "raised"): "{who} works as {a} {v}.",
    ("occupation", "held"): "{who} works as {a} {v}.",
    ("school", "v"): "{who} goes to {v}.",
    ("grade", "v"): "{who} is in {v}.",
    ("grade", "year"): "{who} is {a} {v}.",
}


def restated(text: str, leave: set[str], holder: str | None) -> list[str]:
    """The slots ``text`` fills for ``holder`` (as ``slot_holder`` names them), other than
    those in ``leave``, each told as a sentence of its own in ``text``'s words: what a
    clause closed for a new value of one slot said of another ("Maya's daughter Mia is in
    4th grade at Lincoln Elementary", closed by "Mia is in 5th grade now" -> "Maya's
    daughter Mia goes to Lincoln Elementary."). Only the holder's own slots, named by
    them: a slot a pronoun holds is not told, since whom it stands for is not known here."""
    own = own_words(text)
    out = []
    # read as a lower-case user id were a name (``name_cased``), told in the words as given
    for name, match in _slot_matches(name_cased(own)):
        if name in leave:
            continue
        who = _holder(own, match.start())
        group = next((g for (n, g) in _TOLD if n == name and match.groupdict().get(g)), None)
        if not who or group is None or not same_holder(who.lower(), holder):
            continue
        value = re.sub(r"\s+", " ", own[match.start(group) : match.end(group)]).strip(" .,")
        article = "an" if value[:1].lower() in "aeiou" else "a"
        out.append(_TOLD[name, group].format(who=who[:1].upper() + who[1:], v=value, a=article))
    return out


def held_slots(text: str) -> dict[str, tuple[str | None, str]]:
    """``slots_of`` with whose each slot is (``slot_holder``): slot name -> (holder,
    normalised value). What the text does not assert holds no slot ("if Maya moved to
    Denver, ...": ``rules.asserted``)."""
    text = name_cased(asserted(own_words(text)))
    found = {}
    for name, match in _slot_matches(text):
        if name in found:
            continue  # a workplace by its name goes before one by its kind
        groups = match.groupdict()
        if groups.get("prog") and not _NOW.search(_clause_of(text, match)):
            continue  # "is working at the library" today: where, not for whom
        said = groups.get("v") or ("eats meat" if groups.get("meat") or groups.get("meat2") else "")
        said = said or ("eats fish" if groups.get("fish") else "")
        said = said or ("no meat" if groups.get("nomeat") else "")
        said = said or groups.get("year") or groups.get("care") or groups.get("job") or ""
        said = said or groups.get("raised") or groups.get("held") or ""
        said = said or groups.get("dating") or groups.get("wed") or groups.get("nights") or ""
        said = said or ("dating" if groups.get("seeing") or groups.get("partner") else "")
        said = said or groups.get("rented") or groups.get("unit") or ""
        if groups.get("place"):
            said = ("another " if groups.get("other") else "") + groups["place"]
        said = said or (f"{groups['grader']} grade" if groups.get("grader") else "")
        said = "alone" if groups.get("alone") else said
        if name == "tenure":
            said = "rents" if groups.get("rents") or groups.get("renters") else "owns"
        if name in ("commute", "school_commute"):
            said = next(k for k in ("bike", "car", "walk", "carpool", "transit", "by") if groups[k])
            said = groups[said] if said in ("transit", "by") else said
        if name == "vision_aid":
            sight = (groups["sight"] or "").lower()
            said = "none" if groups["lasik"] else _SIGHT.get(sight, sight)
        if name == "mobility_aid":
            said = _AIDS.get(groups["aid"].lower(), groups["aid"])
        if name == "work_mode":
            remote = groups.get("remote") or groups.get("wfh")
            said = "remote" if remote else "office"
            said = "hybrid" if groups.get("days") or groups.get("hybrid") else said
        if groups.get("with"):
            said = f"with {groups['with']}"
        value = re.sub(r"\s+", " ", said).strip(" .,").lower()
        if name == "grade":
            value = _grade(value)
        if name == "work_hours":
            value = value.replace(" ", "-")
        found[name] = (slot_holder(text, match.start()), value)
    found.update(_attributes(text))
    return found


# A user id in lower case ("maya", "user-42") is the speaker's name all the same: the
# writer puts it first and again where only a name goes, as an owner, with the family or as
# who said it ("maya's mom lives with maya and family"). The slots read a name by its
# capital, so such an id is read capitalised.
_LOWER_FIRST = re.compile(r"(?:[A-Za-z]+[,!]\s+)?(?P<id>[a-z][\w-]*)(?![\w-])")  # "Oops, maya's"


_NOW = re.compile(r"\b(?:now|these days|nowadays)\b", re.IGNORECASE)


def _clause_of(text: str, match: re.Match[str]) -> str:
    """The clause of ``text`` that ``match`` is in."""
    start = max((m.end() for m in _CLAUSE.finditer(text, 0, match.start())), default=0)
    end = next((m.start() for m in _CLAUSE.finditer(text, match.end())), len(text))
    return text[start:end]


# Words that say a workplace is a new one: "now", a job taken, a move.
_NEW_WORKPLACE = re.compile(
    r"\b(?:now|these days|nowadays|new job|switched|moved|transferred|different|another|"
    r"(?:took|got|started|landed|accepted|found)\s+(?:a|an|the)\s+(?:new\s+)?(?:[\w-]+\s+){0,2}?job)\b",
    re.IGNORECASE,
)


def same_workplace(old: str, new: str, new_text: str) -> bool:
    """Whether an employer value ``new`` (said in ``new_text``) names the workplace ``old``
    does, when either names it only by its kind: "library" is "fieldstone library",
    "grocery store" is "store"; a kind after a name ("works at the hospital" after "works
    at St. Mary's") may be the same place, unless the text says it is a new one ("now",
    "got a job at"). "Another bakery" is never the bakery before it."""
    if new.startswith("another "):
        return False
    old = old.removeprefix("another ")
    if old == new:
        return True
    if old not in WORKPLACES and new not in WORKPLACES:
        return False
    a, b = set(old.split()), set(new.split())
    if a <= b or b <= a:
        return True
    # two kinds (a library, a bakery) are two places; a kind and a name may be one
    return not (old in WORKPLACES and new in WORKPLACES) and not _NEW_WORKPLACE.search(new_text)


def name_cased(text: str) -> str:
    """``text`` with a lower-case user id that leads it (after a word like "Oops,") written
    with a capital, as a name is: "maya's mom lives with maya and family" -> "Maya's mom
    lives with Maya and family".
    A text that leads with a word the writer never puts where a name goes is kept."""
    first = _LOWER_FIRST.match(text)
    if first is None:
        return text
    name = re.escape(first.group("id"))
    # The id as a name goes: an owner, with the family, who said it, or the subject of a
    # verb that opens the text ("maya switched to T-Mobile", "maya finally found ...").
    verb = (
        r"(?:(?:[a-z]+ly|just|also|still|now|never)\s+)?(?:[a-z]+(?:ed|s)|is|are|was|were|"
        r"has|have|had|got|went|took|sold|left|found|can|will|does|did|hit|lost|quit)\b"
    )
    subject = first.group("id") not in STOPWORDS and re.match(
        rf"\s*{name}(?: and family)?\s+{verb}", text
    )
    if not re.search(rf"(?<![\w'-]){name}(?:'s\b| and family\b| said:)", text) and not subject:
        return text
    word = first.group("id")
    return re.sub(rf"(?<![\w'-]){name}(?![\w-])", word[:1].upper() + word[1:], text)


def _slot_matches(text: str) -> Iterator[tuple[str, re.Match[str]]]:
    """Each slot of ``SLOTS`` that ``text`` (a speaker's own words) fills, with the first
    match of its pattern."""
    for name, pattern in SLOTS:
        match = pattern.search(text)
        if match:
            yield name, match


# An attribute a person has one of, said with its value: an email, a phone number, a
# named doctor or dentist ("Maya's email is ...", "Maya's new dentist is Dr. Gomez",
# "Maya changed Maya's number, it's 555-0199 now", "Maya switched dentists, Maya sees
# Dr. Gomez now"). The value must be one that names or identifies (an address of mail, a
# phone number, a proper name), so "Maya's car is in the shop" states no attribute.
_ID_VALUE = (
    r"(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+?\(?\d[\d ().-]{5,}\d|"
    r"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*)"
)
_OWNER = rf"(?:^|[.;:!?,]\s+|\b(?:and|but|so)\s+)(?P<who>{_NAME}[\w-]*)"
_ATTRIBUTES: tuple[re.Pattern[str], ...] = (
    re.compile(
        _OWNER + r"'s\s+(?:(?:new|current|updated|actual)\s+)?(?P<attr>[a-z]+(?:[ -][a-z]+){0,2}?)"
        r"\s+(?:is|are)\s+(?:now\s+|actually\s+)?(?:(?:through|with)\s+)?" + _ID_VALUE
    ),
    re.compile(
        _OWNER + rf"\s+(?:changed|updated|has a new|got a new)\s+(?:{_NAME}[\w-]*'s\s+)?"
        r"(?P<attr>[a-z]+(?:[ -][a-z]+)?)\s*(?:,\s*(?:it's|it is|the new one is)|\s+to|:|\s-)\s*"
        + _ID_VALUE
    ),
    # "New email: maya@example.com" as the memory keeps it ("Maya said: New email: ...").
    re.compile(
        rf"^(?P<who>{_NAME}[\w-]*) said:\s+(?:(?:[Mm]y|[Oo]ur)\s+)?[Nn]ew\s+"
        r"(?P<attr>[a-z]+(?:[ -][a-z]+)?)\s*(?::|-|is)\s*" + _ID_VALUE
    ),
    re.compile(
        _OWNER + r"'s\s+(?P<attr>[a-z]+(?:[ -][a-z]+)?)\s+(?:has\s+)?(?:changed|switched|moved)"
        r"\s+to\s+" + _ID_VALUE
    ),
    re.compile(
        _OWNER + r"\s+switched\s+(?P<attr>[a-z]+s)\b[^.;!?]*?\b(?:sees?|goes to|uses?|"
        r"is with|banks with|is at)\s+" + _ID_VALUE
    ),
)
# People one has one of at a time, by the work they do for the household: named beside
# the word ("Maya's nanny Rosa watches the kids"), or hired anew ("Maya and family hired a
# new nanny named Keisha"), they are an attribute. Not doctors, of whom one sees several.
_ONE_HELPER = (
    r"(?:nanny|babysitter|au pair|housekeeper|cleaner|landlord|landlady|dentist|"
    r"pediatrician|paediatrician|therapist|accountant|dog walker|tutor|personal trainer)"
)
_ATTRIBUTES += (
    re.compile(
        _OWNER + r"'s\s+(?P<attr>" + _ONE_HELPER + r"),?\s+(?!(?:is|was|has|and)\b)"
        r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\b"
    ),
    re.compile(
        _OWNER + r"(?:\s+and\s+family)?\s+(?:\w+\s+)?(?:hired|found|got|has|have|switched to)"
        r"\s+a\s+new\s+(?P<attr>" + _ONE_HELPER + r"),?\s+(?:(?:named|called)\s+)?"
        r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\b"
    ),
    # ... or had, by name: "Maya has a nanny named Rosa".
    re.compile(
        _OWNER + r"(?:\s+and\s+family)?\s+(?:has|have)\s+an?\s+(?P<attr>" + _ONE_HELPER + r")"
        r",?\s+(?:named|called)\s+"
        r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\b"
    ),
)
# Companies one has one of each kind of, by the kind they are: a phone carrier, a bank,
# a health insurer, a car insurer. "Maya switched to T-Mobile" says which carrier; names
# that are also a person's or a word ("Chase", "Ally", "Cricket") are left out.
_COMPANIES = {
    "carrier": "Verizon|AT&T|T-Mobile|Sprint|Mint Mobile|Cricket Wireless|Google Fi|US Cellular|"
    "Boost Mobile|Metro by T-Mobile|Straight Talk|Vodafone|Rogers|Telus",
    "bank": "Chase Bank|Wells Fargo|Bank of America|Citibank|Capital One|PNC|TD Bank|"
    "Ally Bank|Navy Federal|Charles Schwab|Barclays|HSBC|Santander|Lloyds|Monzo|Chime|SoFi",
    "insurance": "Aetna|Cigna|Blue Cross(?: Blue Shield)?|Blue Shield|Kaiser(?: Permanente)?|"
    "UnitedHealthcare|United Healthcare|Humana|Anthem|Oscar Health|Ambetter",
    "car insurance": "Geico|GEICO|Progressive|State Farm|Allstate|Liberty Mutual|Nationwide",
}
# One company by two names.
_SAME_COMPANY = {
    "chase bank": "chase", "ally bank": "ally", "kaiser permanente": "kaiser",
    "blue cross blue shield": "blue cross", "united healthcare": "unitedhealthcare",
    "citi": "citibank", "bofa": "bank of america", "att": "at&t",
}  # fmt: skip
_COMPANY = "|".join(f"(?P<{k.replace(' ', '_')}>{v})" for k, v in _COMPANIES.items())
_WITH_COMPANY = re.compile(
    _OWNER
    + r"(?:\s+and\s+family)?\s+(?:\w+\s+)?(?:(?:switched|moved|changed|went|is|am|'m|are|'re|"
    r"banks?|banking|insured)\s+(?:over\s+)?(?:to|with|by|at)|(?:uses?|using|has|have))\s+"
    r"(?<![\w&-])(?:" + _COMPANY + r")(?![\w&-])"
)
# Words for the same attribute.
_SAME_ATTRIBUTE = {
    "email address": "email", "e-mail": "email", "e-mail address": "email", "mail": "email",
    "phone number": "phone", "number": "phone", "cell": "phone", "cell number": "phone",
    "mobile": "phone", "mobile number": "phone", "cell phone": "phone",
    "home address": "address",
    "primary care doctor": "doctor", "primary doctor": "doctor", "family doctor": "doctor",
    "primary care physician": "doctor", "physician": "doctor", "gp": "doctor",
    "pcp": "doctor", "health insurance": "insurance", "insurance company": "insurance",
    "health insurer": "insurance", "insurer": "insurance", "last name": "surname",
    "phone carrier": "carrier", "cell carrier": "carrier", "phone company": "carrier",
    "mobile carrier": "carrier", "wireless carrier": "carrier", "phone provider": "carrier",
    "cell provider": "carrier", "auto insurance": "car insurance", "car insurer": "car insurance",
    "auto insurer": "car insurance",
    "family name": "surname",
}  # fmt: skip
# What a person has more than one of, or is no attribute: not replaced by another.
_NOT_ATTRIBUTE = word_set(
    f"{OTHER_PEOPLE_WORDS} {' '.join(MEMBER_WORDS.values())} kid kids child children dog "
    "dogs cat cats pet pets favorite favourite birthday anniversary appointment flight "
    "meeting name family"
)
_WHEN = word_set(
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december today tomorrow"
)


def _attributes(text: str) -> dict[str, tuple[str | None, str]]:
    """The attributes ``text`` gives a value (``_ATTRIBUTES``): "attribute:<name>" ->
    (holder, value)."""
    found: dict[str, tuple[str | None, str]] = {}
    for pattern in _ATTRIBUTES:
        for match in pattern.finditer(text):
            attr = match.group("attr").lower()
            value = match.group("v").strip()
            if pattern is _ATTRIBUTES[4]:
                attr = attr[:-1]  # "switched dentists": the dentist
            attr = _SAME_ATTRIBUTE.get(attr, attr)
            first = value.split()[0].lower()
            if set(attr.split()) & _NOT_ATTRIBUTE or first in _WHEN or first.endswith("'s"):
                continue  # "Maya's family is Maya's motivation": no value of its own
            if re.fullmatch(r"[\d ().+-]+", value):
                value = re.sub(r"\D", "", value)  # a phone number, however it is spaced
            elif "@" not in value:
                value = re.sub(r"[.\s]+", " ", value).strip()  # "Dr. Patel", "Dr Patel"
            value = _SAME_COMPANY.get(value.lower(), value.lower())
            found.setdefault(f"attribute:{attr}", (match.group("who").lower(), value))
    for match in _WITH_COMPANY.finditer(text):
        kind = next(k for k, v in match.groupdict().items() if v and k != "who")
        value = re.sub(r"\s+", " ", match.group(kind)).lower()
        value = _SAME_COMPANY.get(value, value)
        found.setdefault(f"attribute:{kind.replace('_', ' ')}", (match.group("who").lower(), value))
    return found


_ORDINALS = {w: str(i) for i, w in enumerate(_ORDINAL_WORDS, 1)}


def _grade(value: str) -> str:
    """A school year said either way: "third grade" and "3rd grade" are "grade 3"."""
    found = re.fullmatch(r"(\w+?)(?:st|nd|rd|th)?\s+grade", value)
    if found is None:
        return value
    word = value.split()[0]
    return f"grade {_ORDINALS.get(word, found.group(1))}"


def same_holder(a: str | None, b: str | None, only: Mapping[str, str] | None = None) -> bool:
    """Whether two slot holders (``slot_holder``) are one person: the same words, or a name
    alone and the words that end with it ("leo" and "maya's son leo"), or a relation and
    the one person ``only`` knows by it ("maya's son" and "maya's son leo", when Leo is
    the only son the user has told of: ``only_one``)."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if only and short in only and long == f"{short} {only[short]}":
        return True
    return " " not in short and bool(short) and long.endswith(f" {short}") and "'s" in long


_ONE_KIN = "son|daughter|wife|husband|hubby|partner|girlfriend|boyfriend|mom|mother|dad|father"
# Told of more than one of a relation: "my sons", "our younger daughter", "my other son".
_MORE_THAN_ONE = re.compile(
    rf"\b(?:(?:sons|daughters)\b|(?:other|older|younger|oldest|youngest|eldest|middle|"
    rf"twin|first|second|third)\s+(?:{_ONE_KIN})\b|(?:two|three|four|2|3|4)\s+(?:sons|daughters))",
    re.IGNORECASE,
)


def bare_relations(text: str) -> set[str]:
    """The holders of ``text``'s slots that are a relation without a name ("maya's son")."""
    return {
        holder
        for holder, _ in held_slots(text).values()
        if holder and re.fullmatch(rf".+'s (?:{_ONE_KIN})", holder)
    }


def only_one(relations: set[str], texts: Sequence[str]) -> dict[str, str]:
    """Per relation of ``relations`` ("maya's son"), the name of the one person ``texts``
    (everything the user has told) call by it, lower case, when they name exactly one
    and never tell of more than one of that relation ("my sons", "my older son")."""
    out = {}
    for relation in relations:
        owner, kin = relation.rsplit(" ", 1)
        names = set()
        many = False
        for text in texts:
            own = own_words(text)
            if kin in own.lower():
                many = many or _MORE_THAN_ONE.search(own) is not None
                names |= {
                    m.group(1).lower()
                    for m in re.finditer(
                        rf"(?i:{re.escape(owner)}\s+{kin}),?\s+(?:(?i:is\s+)?(?i:named|called)\s+)?"
                        r"([A-Z][a-z]+)\b",
                        own,
                    )
                }
        if len(names) == 1 and not many:
            out[relation] = names.pop()
    return out


def _holds(slot: str, old: str | None, new: str | None, only: Mapping[str, str] | None) -> bool:
    """Whether the slot ``new`` names is ``old``'s: the same holder, or, for a couple's
    relationship, either of the two ("Chris and Maya got married" for "Maya is engaged to
    Chris")."""
    if same_holder(old, new, only):
        return True
    pair = new.split(" and ") if slot == "relationship" and new else []
    return len(pair) == 2 and any(same_holder(old, one, only) for one in pair)


# Couples who are bound still date ("we've been dating since college"): dating ends being
# single, not a marriage or an engagement.
_BOUND = frozenset(("married", "engaged"))


# Ways of eating that leave meat out.
_MEATLESS = frozenset(("vegetarian", "vegan", "pescatarian"))


def conflicts(new_text: str, old_text: str, only: Mapping[str, str] | None = None) -> list[str]:
    """Slots where ``new_text`` states a different value than ``old_text`` for the same
    holder: a family member's diet or home is not the speaker's. ``only``: the one person
    a relation names (``same_holder``)."""
    new, old = held_slots(new_text), held_slots(old_text)
    found = [
        slot
        for slot, (holder, value) in new.items()
        if slot in old
        and _holds(slot, old[slot][0], holder, only)
        and old[slot][1] != value
        and not (slot == "employer" and same_workplace(old[slot][1], value, new_text))
        and not (value == "dating" and old[slot][1] in _BOUND)
        # "doesn't eat meat" after "is vegetarian": said again, not changed
        and not (value == "no meat" and old[slot][1] in _MEATLESS)
    ]
    # Someone who lived with others moved to a town of their own: the household ended
    # ("Maya's father-in-law lives with Maya and family", then "… moved back to India").
    if (
        "residence" in new
        and "household" not in new
        and "household" in old
        and old["household"][1].startswith("with ")
        and _holds("household", old["household"][0], new["residence"][0], only)
        # not one who moved with them, nor long ago ("moved to Florida with us in 2015")
        and not re.search(rf"\bwith\b|{_LONG_AGO}", without_hints(new_text), re.IGNORECASE)
    ):
        found.append("household")
    if (
        (_alone_ended(new, old) or _alone_ended(old, new))
        and not re.search(_LONG_AGO, without_hints(new_text), re.IGNORECASE)
        and "household" not in found
    ):
        found.append("household")
    if (
        value_changed(new_text, old_text)
        or schedule_changed(new_text, old_text)
        or count_changed(new_text, old_text)
    ):
        found.append("value")
    return found


def _alone_ended(
    one: Mapping[str, tuple[str | None, str]], other: Mapping[str, tuple[str | None, str]]
) -> bool:
    """Whether ``one`` lives alone and ``other`` lives with them: either ends the other
    ("Maya lives alone", then "Maya's sister moved in with Maya"; or the other way)."""
    if "household" not in one or "household" not in other or one["household"][1] != "alone":
        return False
    value = other["household"][1]
    if not value.startswith("with "):
        return False
    return same_holder(one["household"][0], value[5:].removesuffix(" and family"))


# Past tense reports an event, which a later one does not replace ("ran 5 km" twice).
_PAST = frozenset({"was", "were", "had", "did", "ago", "ran", "swam", "rode", "flew", "drove",
                   "went", "lost", "ate", "drank", "spent", "paid", "bought", "sold", "won",
                   "got", "took", "gave", "made", "came", "left", "sent", "grew"})  # fmt: skip
_PASSIVE = frozenset({"is", "are", "am", "be", "been", "being", "get", "gets"})


def is_past(text: str) -> bool:
    """``text`` reports something that happened, not a current state."""
    words = re.findall(r"[a-z]+", text.lower())
    for i, word in enumerate(words):
        if word in _PAST:
            return True
        # "walked" is past; "is prescribed", "speed" and "hundred" are not.
        regular = len(word) > 4 and word.endswith("ed") and not word.endswith(("eed", "dred"))
        if regular and (i == 0 or words[i - 1] not in _PASSIVE):
            return True
    return False


def measures(text: str) -> bool:
    """``text`` states a current measurement ("takes 20 mg", "is 7 years old"), in the
    speaker's own words."""
    text = own_words(text)
    return any(t.kind == "quantity" for t in tokens(text)) and not is_past(text)


# Days said in the plural are a weekly habit's ("goes to the gym on Mondays"); one day
# ("on Monday") is an occasion's.
_DAYS = frozenset(f"{day}s" for day in WEEKDAYS)
# A day added, or a week that is not every week: "on Fridays too", "this month".
_NOT_INSTEAD = re.compile(
    r"\b(?:too|also|as well|in addition|additionally|another|extra|plus|this|next|last|"
    r"sometimes|occasionally|some|most|every other)\b",
    re.IGNORECASE,
)


def _schedule(text: str) -> tuple[tuple[str, ...], frozenset[str]] | None:
    """The sentence with its run of weekdays in the plural masked (once), and those days;
    None without such days. "now" and "instead" are no part of it."""
    frame: list[str] = []
    days: set[str] = set()
    for token in tokens(text):
        if token.norm in _DAYS:
            days.add(token.norm)
            if not frame or frame[-1] != "#days":
                frame.append("#days")
        elif token.norm not in ("now", "instead"):
            frame.append("#" if token.kind in VALUE_KINDS else stem(token.norm))
    return (tuple(frame), frozenset(days)) if days else None


def schedules(text: str) -> bool:
    """``text`` states a weekly habit by its days, now ("goes to the gym on Mondays and
    Wednesdays"), in the speaker's own words."""
    text = own_words(text)
    return _schedule(text) is not None and not is_past(text)


def counts(text: str) -> bool:
    """``text`` states a number of something now ("has two cats", "works two jobs"), in the
    speaker's own words."""
    text = own_words(text)
    return any(t.kind == "number" for t in tokens(text)) and not is_past(text)


def valued(text: str) -> bool:
    """``text`` states a value a later sentence may change by the same words: a
    measurement (``measures``), a weekly habit's days (``schedules``) or a number
    (``counts``)."""
    return measures(text) or schedules(text) or counts(text)


def may_change_value(text: str) -> bool:
    """Whether ``text``, said after another, may change that one's value (``valued``): a
    count does only with "now" (``count_changed``), and most numbers said come without it,
    so a write looks for what they change only when they say it."""
    if measures(text) or schedules(text):
        return True
    if re.search(r"\bnow\b", text, re.IGNORECASE) is None:
        return False
    return counts(text) or _after_event(own_words(text)) is not None


def count_changed(new_text: str, old_text: str) -> bool:
    """Same sentence, another number, said as now so: "Maya has three cats now" after
    "Maya has two cats". Not without "now" (two cats may be other cats), not a number
    added ("two more", "another"), nor a past event."""
    new, old = own_words(new_text), own_words(old_text)
    if not counts(old) or _NOT_INSTEAD.search(old):
        return False
    # after an event told first, the event may add ("adopted another"); the count is the total
    counted = _after_event(new) or new
    if not counts(counted) or not re.search(r"\bnow\b", counted, re.IGNORECASE):
        return False
    if _NOT_INSTEAD.search(counted) or re.search(r"\bmore\b", counted):
        return False
    new_frame, new_values = _frame(_counted_clause(counted))
    old_frame, old_values = _frame(old)
    if new_frame != old_frame:
        return False
    changed = [(a, b) for a, b in zip(new_values, old_values, strict=True) if a != b]
    return bool(changed) and all(a.kind == b.kind == "number" for a, b in changed)


# A past event, then what it leaves: "we adopted another one, so we have three cats now".
# past forms too short for is_past's rule: "one of them died, so ..."
_SHORT_PAST = re.compile(r"\b(?:died|found)\b", re.IGNORECASE)
_SO = re.compile(r"\s*,?\s+(?:and\s+)?so\s+(?=\w)", re.IGNORECASE)


def _after_event(text: str) -> str | None:
    """The count ``text`` says holds now after a past event it tells first ("we adopted
    another one, so we have three cats now" -> "we have three cats now"); None when it
    tells no such event."""
    said = _SO.split(text.strip(), maxsplit=1)
    if len(said) != 2 or not counts(said[1]):
        return None
    return said[1] if is_past(said[0]) or _SHORT_PAST.search(said[0]) else None


_ASIDE = re.compile(r"\s*[,;:\u2014\u2013]\s*|\s+-\s+")


def _counted_clause(text: str) -> str:
    """The clause of ``text`` that says a count "now", when the rest is a short aside of no
    value ("has one cat now, sadly"); ``text`` itself otherwise."""
    body = text.strip().rstrip(".!?")
    clauses = [c for c in _ASIDE.split(body) if c]
    counted = [c for c in clauses if re.search(r"\bnow\b", c, re.I) and counts(c)]
    if len(clauses) < 2 or len(counted) != 1:
        return text
    asides = [c for c in clauses if c is not counted[0]]
    if any(len(c.split()) > 3 or any(t.kind in VALUE_KINDS for t in tokens(c)) for c in asides):
        return text
    return counted[0]


def schedule_changed(new_text: str, old_text: str) -> bool:
    """Same habit, other days, said as a change: "goes to the gym on Tuesdays and
    Thursdays now" (or "instead") after "... on Mondays and Wednesdays". Not a day added
    ("on Fridays too"), a week that is not every week ("this month"), nor other days
    said without "now", which may be a second habit of the kind (two classes)."""
    new, old = own_words(new_text), own_words(old_text)
    if is_past(new) or is_past(old) or not re.search(r"\b(?:now|instead)\b", new, re.I):
        return False
    if _NOT_INSTEAD.search(new) or _NOT_INSTEAD.search(old):
        return False
    new_days, old_days = _schedule(new), _schedule(old)
    if new_days is None or old_days is None:
        return False
    return new_days[0] == old_days[0] and new_days[1] != old_days[1]


def _frame(text: str) -> tuple[tuple[str, ...], tuple[Token, ...]]:
    """The sentence with its values masked, and the values in order; "now", which marks a
    value as changed, is no part of the frame ("takes 3 pills a day now")."""
    toks = [t for t in tokens(text) if t.norm != "now"]
    frame = tuple("#" if t.kind in VALUE_KINDS else stem(t.norm) for t in toks)
    return frame, tuple(t for t in toks if t.kind in VALUE_KINDS)


def value_changed(new_text: str, old_text: str) -> bool:
    """Same sentence, a new measurement: "takes 40 mg of X" after "takes 20 mg of X"."""
    if not (measures(new_text) and measures(old_text)):
        return False
    new_frame, new_values = _frame(own_words(new_text))
    old_frame, old_values = _frame(own_words(old_text))
    if new_frame != old_frame:
        return False
    changed = [(a, b) for a, b in zip(new_values, old_values, strict=True) if a != b]
    return bool(changed) and all(a.kind == b.kind == "quantity" for a, b in changed)
