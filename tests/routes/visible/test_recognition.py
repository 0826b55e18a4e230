"""Recognising a stated fact in another form and linking it to the right knowledge entry
(sentences written for these tests from general knowledge, not benchmark items)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pg import BACKENDS, open_backend

from logicmem import Memory
from logicmem.models.embed.base import Embedder
from logicmem.routes.visible.criticality import (
    P_MIN,
    VIEWS,
    Assessment,
    CriticalityAssessor,
    VectorCache,
    authored_examples,
    prototypes,
    training_examples,
)
from logicmem.routes.visible.kb import OTHER, PAST, POLARITY, load_kb, match_at, matches, readings
from logicmem.routes.visible.text import (
    PROTOTYPE_SUBJECT,
    fact_sentence,
    fact_text,
    fact_tokens,
    lemma,
    member_subject,
    members_named,
    neutral_subject,
    reports_other,
    sentence_subject,
)


def _ids(text: str) -> set[str]:
    return {entry.id for entry, _ in load_kb().match_facts(text)}


# --- the lemmatiser ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "forms",
    [
        ("take", "takes", "taking", "took", "taken"),
        ("diagnose", "diagnosed", "diagnosis", "diagnosing"),
        ("allergy", "allergies", "allergic"),
        ("diabetes", "diabetic"),
        ("pregnant", "pregnancy"),
        ("epilepsy", "epileptic"),
        ("asthma", "asthmatic"),
        ("vegan", "veganism", "vegans"),
        ("run", "runs", "running", "ran"),
        ("catch", "catches", "caught", "catching"),
        ("get", "got", "gotten", "getting"),
        ("fly", "flies", "flew", "flying"),
        ("live", "lives", "living", "lived"),
        ("stop", "stopped", "stopping"),
        ("tooth", "teeth"),
    ],
)
def test_inflections_and_derivations_meet(forms: tuple[str, ...]) -> None:
    assert len({lemma(f) for f in forms}) == 1, {f: lemma(f) for f in forms}


def test_the_lemmatiser_keeps_different_words_apart() -> None:
    assert lemma("hoping") == lemma("hope") != lemma("hopping") == lemma("hop")
    assert lemma("caring") == lemma("care") != lemma("car")
    assert lemma("news") != lemma("new")
    assert lemma("bed") == "bed" and lemma("need") == "need"


def test_negated_auxiliaries_are_split_and_work_as_reads_as_be() -> None:
    assert fact_tokens("Jo doesn't have a car") == fact_tokens("Jo does not have a car")
    assert fact_tokens("Jo works as an ER nurse") == fact_tokens("Jo is an ER nurse")
    assert "formerli" in fact_tokens("Jo used to smoke")


# --- fact patterns in other forms -----------------------------------------------------------

INFLECTIONS = [
    ("Sam is taking warfarin after the valve replacement.", "med-warfarin"),
    ("Sam has been taking metformin for two years.", "med-metformin"),
    ("I've been taking lisinopril since the spring.", "med-ace-arb"),
    ("Sam was diagnosed with mono last week and is exhausted.", "acute-mono-recovery"),
    ("Sam got diagnosed with MS in March.", "cond-multiple-sclerosis"),
    ("Sam is diabetic and counts carbs.", "cond-type2-diabetes"),
    ("Sam is epileptic.", "cond-epilepsy"),
    ("I'm asthmatic, so cold air is rough.", "cond-asthma"),
    ("I'm using a cane since the fall.", "dis-limited-mobility"),
    ("Sam is driving for Lyft to pay the bills.", "occ-gig-driver"),
    ("Sam is living in a van full-time.", "env-van-life"),
    ("My kids both have peanut allergies.", "allergy-peanut"),
    ("Sam has two dogs.", "pet-dog-foods"),
    ("Sam breastfeeds the baby at night.", "breastfeeding"),
]
WORD_ORDER = [
    ("Peanuts — I'm really allergic to them.", "allergy-peanut"),
    ("Shellfish is something I'm allergic to.", "allergy-shellfish"),
    ("Warfarin is what Sam takes every night.", "med-warfarin"),
    ("Sam has arthritis in both knees.", "cond-osteoarthritis"),
    ("Sam's MS diagnosis came last year.", "cond-multiple-sclerosis"),
    ("Sam can drive only an automatic.", "vehicle-automatic-only"),
]
OPTIONAL_WORDS = [
    ("Sam is allergic to most tree nuts.", "allergy-tree-nut"),
    ("Sam is severely allergic to all shellfish.", "allergy-shellfish"),
    ("Sam takes a low dose of warfarin.", "med-warfarin"),
    ("Sam uses supplemental home oxygen at night.", "cond-home-oxygen"),
    ("Sam is now a fully licensed real estate agent.", "occ-real-estate-agent"),
    ("Sam doesn't have a car anymore.", "vehicle-no-car"),
]
BRAND_NAMES = [
    ("Sam is on Eliquis for AFib.", "med-doac"),
    ("Sam takes Coumadin.", "med-warfarin"),
    ("Sam started Zoloft last month.", "med-ssri-snri"),
    ("Sam takes Synthroid every morning.", "med-levothyroxine"),
    ("Sam's doctor put Sam on Glucophage.", "med-metformin"),
    ("Sam is on Lipitor for cholesterol.", "med-statin"),
    ("Sam started a course of Accutane.", "med-isotretinoin"),
    ("Sam takes Adderall for ADHD.", "med-adhd-stimulant"),
    ("Sam has a Xanax prescription for panic attacks.", "med-benzodiazepine"),
    ("Sam is on Ozempic.", "med-glp1"),
    ("Sam takes prednisone for a flare.", "med-corticosteroid"),
]
JOB_TITLES = [
    ("Sam is an ER nurse.", "occ-healthcare-worker"),
    ("Sam works as an ER nurse at the county hospital.", "occ-nurse-licensure"),
    ("Sam is a long-haul trucker.", "occ-dot-drug-tested"),
    ("Sam is an air traffic controller.", "occ-dot-drug-tested"),
    ("Sam is an air traffic controller.", "occ-pilot"),
    ("Sam is a high school math teacher.", "occ-teacher"),
    ("Sam works as a pharmacist at a chain drugstore.", "occ-healthcare-worker"),
    ("Sam is a sous chef.", "occ-food-handler"),
    ("Sam is a pediatrician.", "occ-physician-ethics"),
    ("Sam is a criminal defense attorney.", "occ-lawyer"),
    ("Sam is a postal worker.", "occ-federal-employee-hatch"),
    ("Sam serves in the Navy.", "occ-military"),
]
PHRASAL_VERBS = [
    ("Sam came down with strep on Tuesday.", "acute-sore-throat-strep"),
    ("Sam caught a nasty cold from the kids.", "acute-cold-congestion"),
    ("Sam picked up a stomach bug at daycare.", "acute-stomach-bug"),
    ("Sam has been fighting off a cold all week.", "acute-cold-congestion"),
    ("Sam came down with pneumonia.", "acute-bronchitis-cough"),
    ("Sam caught the flu from a coworker.", "acute-influenza"),
    ("Sam got covid again.", "acute-covid-positive"),
    ("Sam's son came home with lice.", "acute-head-lice"),
]
SYNONYMS = [
    ("Sam has an underactive thyroid.", "med-levothyroxine"),
    ("Sam's blood pressure runs high.", "cond-hypertension"),
    ("Sam has bad kidneys.", "cond-ckd"),
    ("Sam can't do dairy.", "intolerance-lactose"),
    ("Sam struggles with depression.", "mh-depression-anxiety"),
    ("Sam sleeps with a CPAP every night.", "cond-sleep-apnea"),
    ("Sam has Crohns disease.", "cond-ibd"),
    ("Sam is anemic.", "med-iron-supplement"),
]


@pytest.mark.parametrize(
    ("text", "entry"),
    INFLECTIONS + WORD_ORDER + OPTIONAL_WORDS + BRAND_NAMES + JOB_TITLES + PHRASAL_VERBS
    + SYNONYMS,
)  # fmt: skip
def test_a_fact_in_another_form_matches_its_entry(text: str, entry: str) -> None:
    assert entry in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        # negation
        "Sam is not allergic to peanuts.",
        "Sam is no longer vegan.",
        "Sam never took warfarin.",
        "Sam doesn't take metformin anymore.",
        "Sam stopped taking warfarin in May.",
        "Sam isn't pregnant.",
        "Sam is not a nurse.",
        "I don't have a dog.",
        "Sam has never been diagnosed with diabetes.",
        # hypothetical
        "If Sam were pregnant, she would skip the sushi.",
        "Sam would love to get a dog someday.",
        "Sam wonders if she is lactose intolerant.",
        "Maybe Sam is allergic to cats.",
        "Sam might go vegan next year.",
        "What if my dog ate chocolate?",
        "Sam is considering going vegetarian.",
        "Sam is working up to running a half marathon someday.",
        # past
        "Sam was on warfarin after the surgery in 2015.",
        "Sam took Accutane as a teenager.",
        "Sam used to be vegan.",
        "Sam had a dog growing up.",
        "Sam lived in Phoenix for a few years.",
        "Sam drove for Uber in college.",
        "Sam was allergic to eggs as a toddler.",
        "Sam once broke an arm as a kid.",
        "Sam worked as a waitress in college.",
        # someone else's fact
        "Sam's sister is pregnant with twins.",
        "Sam's friend takes Eliquis.",
        "Sam's coworker has a peanut allergy.",
        "My neighbor's dog barks all night.",
        "Sam's brother is an ER nurse.",
        "My friend says she's vegan now.",
        "A friend of mine is pregnant with twins.",
        "An old colleague of ours just went vegan.",
        # everyday chat
        "Sam runs three mornings a week along the river.",
        "Sam is training for a 10k in the spring.",
        "Sam had pasta for dinner with friends.",
        "Sam had a long phone chat with an old friend.",
        "Sam got a flu shot this week.",
        "Sam has a cold brew every morning.",
        "The waiter brought Sam the wrong order.",
        "Sam's pharmacist recommended a new moisturiser.",
        "Sam caught the last train home.",
        "Sam picked up some groceries after work.",
        "Sam tried a vegan burger at the new cafe.",
        "Sam watched a documentary about long-haul truckers.",
    ],
)
def test_what_does_not_hold_matches_nothing(text: str) -> None:
    assert not load_kb().match_facts(text), _ids(text)


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Sam is caring for her mother after a stroke.", True),
        ("Sam looks after his grandfather most evenings.", True),
        ("I've been taking care of my parents since Dad's fall.", True),
        ("Sam is looking after her husband while he recovers from surgery.", True),
        ("I'm my dad's caregiver now.", True),
        ("Sam is her nana's main caregiver.", True),
        ("Sam is caring for an elderly parent.", True),
        # near misses: someone else cares, the care is for something of theirs, it is
        # over or only possible, or nobody in the family is named
        ("My brother takes care of our mom.", False),
        ("My mom takes care of my kids on Fridays.", False),
        ("I take care of my mom's dog when she travels.", False),
        ("Sam looks after her grandmother's garden in the summer.", False),
        ("I used to look after my grandfather.", False),
        ("I might have to start caring for my father.", False),
        ("Sam is taking care of the neighbour's cat this week.", False),
        ("Sam loves caring for her houseplants.", False),
    ],
)
def test_caring_for_a_family_member_by_any_name_is_family_caregiving(
    text: str, holds: bool
) -> None:
    assert ("life-family-caregiver" in _ids(text)) is holds, _ids(text)


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Sam got promoted to team lead at the clinic.", True),
        ("Sam now leads a team of twelve at the bank.", True),
        ("Sam got made team leader last month.", True),
        ("Sam is in charge of a team of six.", True),
        ("Sam used to lead a team at her old job.", False),
        ("Sam's sister leads a team of designers.", False),
        ("Sam would love to lead a team someday.", False),
        ("Sam led the team to a win on Saturday.", False),
        ("Sam is on a team of five at work.", False),
    ],
)
def test_leading_a_team_said_in_other_words_is_managing_people(text: str, holds: bool) -> None:
    assert ("role-new-manager" in _ids(text)) is holds, _ids(text)


@pytest.mark.parametrize(
    ("text", "entry", "holds"),
    [
        ("Sam's grandmother has dementia.", "dependant-aging-parent-dementia", True),
        ("My grandpa has Alzheimer's.", "dependant-aging-parent-dementia", True),
        ("My wife is on chemo until March.", "dependant-immunocompromised-household", True),
        ("My partner passed away in the spring.", "life-recently-widowed-admin", True),
        ("My grandfather passed away last month.", "other-bereavement", True),
        ("Sam's husband is in the Navy.", "role-military-spouse", True),
        ("My nana moved into assisted living.", "age-senior-living", True),
        # someone else's relative, or a relative's own pet or person
        ("My friend's dad has dementia.", "dependant-aging-parent-dementia", False),
        ("My husband's grandmother passed away.", "life-recently-widowed-admin", False),
        ("My husband's cat died.", "life-recently-widowed-admin", False),
        ("My wife's colleague is on chemo.", "dependant-immunocompromised-household", False),
    ],
)  # fmt: skip
def test_a_relative_is_named_by_any_word_of_their_kind(text: str, entry: str, holds: bool) -> None:
    assert (entry in _ids(text)) is holds, _ids(text)


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("Caring for my mother is exhausting.", "life-family-caregiver"),
        ("I'm caring for my mother, which was a hard choice.", "life-family-caregiver"),
        ("Caring for my dad, who was ill for years, is my job now.", "life-family-caregiver"),
        ("Taking care of my mom takes up most of my evenings.", "life-family-caregiver"),
        ("My mom and her sister both have dementia.", "dependant-aging-parent-dementia"),
        ("Sam lives with a roommate from Brazil.", "housing-roommates"),
        ("Sam is an uber driver.", "occ-gig-driver"),
        ("Sam is a school bus driver.", "occ-dot-drug-tested"),
        ("My national guard unit deploys in May.", "occ-military"),
        ("Sam is an accountant.", "occ-busy-season"),
    ],
)
def test_a_fact_beside_what_refuses_another_can_still_hold(text: str, entry: str) -> None:
    assert entry in _ids(text), _ids(text)


@pytest.mark.parametrize(
    ("text", "entry", "holds"),
    [
        ("Sam is on ART and sees the clinic every three months.", "med-hiv-art", True),
        ("Sam started taking PrEP this year.", "med-hiv-art", True),
        ("Sam has been on SNAP since the layoff.", "ben-snap-ebt", True),
        ("Sam is working on art for the school fair.", "med-hiv-art", False),
        ("Sam is on prep duty at the restaurant tonight.", "med-hiv-art", False),
        ("Sam's holiday photos are on snap.", "ben-snap-ebt", False),
        ("Sam will get snap peas at the market.", "ben-snap-ebt", False),
    ],
)
def test_an_abbreviation_that_is_also_a_word_is_read_only_in_capitals(
    text: str, entry: str, holds: bool
) -> None:
    assert (entry in _ids(text)) is holds, _ids(text)
    assert matches(text, "on ART") is ("on ART" in text)


def test_an_abbreviation_in_capitals_is_no_example_sentence() -> None:
    # the embedder reads no capitals: "Sam is on ART." would teach it that art is medicine
    kb = load_kb()
    sentences, _ = prototypes(kb)
    critical, _ = training_examples(kb)
    for pattern in ("on ART", "on PrEP", "on SNAP"):
        said = re.compile(rf"\b{pattern}\b", re.IGNORECASE)
        assert not any(said.search(s) for s in sentences), pattern
        assert pattern not in critical


@pytest.mark.parametrize(
    ("text", "entry", "holds"),
    [
        # someone who works for the speaker's family, met in passing, or in a book
        ("Sam's son's coach has diabetes.", "cond-type2-diabetes", False),
        ("Sam's yoga teacher is pregnant with her first child.", "preg-food-safety", False),
        ("Sam met a police officer at the careers fair.", "occ-law-enforcement", False),
        ("Sam played tennis with a retired judge.", "age-retiree-medicare", False),
        ("Sam read a memoir about a man caring for his wife.", "life-family-caregiver", False),
        ("Sam is married to a police officer.", "occ-law-enforcement", False),
        # a household member's job is theirs, not the user's
        ("My husband is a nurse.", "occ-healthcare-worker", False),
        ("My wife works nights as a police officer.", "occ-law-enforcement", False),
        ("Sam's daughter is a paramedic.", "occ-healthcare-worker", False),
        ("My husband and I are both nurses.", "occ-healthcare-worker", True),
        ("I'm a nurse and my husband is a teacher.", "occ-healthcare-worker", True),
        ("I'm a nurse and my husband is a teacher.", "occ-teacher", False),
        # someone seen or met, named by a word for anyone
        ("Sam saw a blind man with a guide dog on the bus.", "dis-service-dog", False),
        ("Sam has a guide dog named Max.", "dis-service-dog", True),
        # a workplace or school that moves
        (
            "Sam's company is moving to a bigger office in the spring.",
            "plan-relocation-long-term",
            False,
        ),
        ("The gym is moving to Main Street.", "plan-relocation-long-term", False),
        ("My company is relocating me to Denver.", "plan-relocation-long-term", True),
        ("We're moving to Denver in June.", "plan-relocation-long-term", True),
        ("Sam is a school nurse.", "occ-nurse-licensure", True),
        (
            "After a delivery driver left a parcel in the rain, Sam asks for a photo.",
            "occ-gig-driver",
            False,
        ),
        # the same words said of the speaker, or of the speaker's household
        ("Sam is a retired teacher.", "age-retiree-medicare", True),
        ("Sam, a retired nurse, lives alone.", "age-retiree-medicare", True),
        ("Sam is now a paramedic.", "occ-healthcare-worker", True),
        ("Sam's doctor put Sam on Zoloft.", "med-ssri-snri", True),
        ("Sam's diabetic son needs snacks at school.", "cond-type2-diabetes", True),
    ],
)
def test_a_fact_said_of_someone_met_or_a_workplace_is_theirs(
    text: str, entry: str, holds: bool
) -> None:
    assert (entry in _ids(text)) is holds, _ids(text)


def test_a_pattern_names_a_kind_of_person_in_braces() -> None:
    assert readings("caring for {partner}") == [
        "caring for husband", "caring for wife", "caring for partner", "caring for spouse"
    ]  # fmt: skip
    assert readings("takes warfarin") == ["takes warfarin"]
    with pytest.raises(ValueError, match="unknown kind"):
        readings("caring for {pet}")
    # the resource reads each pattern as its first reading where it is a sentence
    entry = load_kb().entries["life-family-caregiver"]
    assert "caring for mother" in entry.fact_patterns
    assert not any("{" in p for p in entry.fact_patterns)


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("Sam's dog has allergies.", "allergy-pet-dander"),  # the dog's, not Sam's
        ("My dog is allergic to chicken.", "allergy-pet-dander"),
        ("Sam has type 1 diabetes.", "cond-type2-diabetes"),  # the wider match wins
        ("Sam is retiring next year.", "age-retiree-medicare"),  # "retired" in its own form
        ("We foster kittens for the shelter.", "dependant-foster-child"),
        ("Sam has long covid and gets tired easily.", "acute-covid-positive"),
    ],
)
def test_a_fact_is_not_given_a_neighbouring_entry(text: str, entry: str) -> None:
    assert entry not in _ids(text)


@pytest.mark.parametrize(
    ("text", "pattern", "holds"),
    [
        # a part of a hyphenated compound is neither a pattern's word nor a negation
        ("We hired a no-spray yard service.", "no yard", False),
        ("The kids' school is peanut-free.", "peanut allergy", False),
        ("I'm dog-sitting for a neighbour this week.", "my dog", False),
        ("I'm a no-fuss vegan.", "vegan", True),
        ("We have no yard.", "no yard", True),
        ("Jo tested positive for covid-19.", "tested positive for covid-19", True),
        ("Jo has covid-19.", "covid-19", True),
        # mulling a change over is not having made it
        ("I'm thinking about going vegan.", "vegan", False),
        ("Jo dreams of owning a horse.", "own a horse", False),
        ("We're toying with the idea of getting a puppy.", "getting a puppy", False),
        ("I keep thinking about my divorce.", "going through a divorce", False),
        # what is kept ready for a recurring moment still states the fact
        ("I keep an inhaler in my bag for when my asthma flares up.", "asthma", True),
        # a past "started" or "began" says what goes on now
        ("Our youngest just started solids.", "starting solids", True),
        ("Jo started chemo last week.", "starting chemo", True),
        ("Jo began physical therapy in May.", "begin physical therapy", True),
        ("Jo started and then quit chemo.", "starting chemo", False),
        # the listener's thing between a pattern's words joins no compound
        ("So sorry to hear about your loss, Jo.", "hearing loss", False),
        ("Sorry to hear that your dog is sick.", "hearing dog", False),
        ("Jo's hearing loss is getting worse.", "hearing loss", True),
        ("I'm allergic to your cat.", "allergic to cats", True),
        # a negation that makes an idiom of eagerness negates nothing of the fact
        ("Jo can't wait to drive the new car.", "don't drive", False),
        ("I can't stop eating gluten-free crackers.", "can't eat gluten", False),
        ("Jo can't drive.", "don't drive", True),
        ("Jo isn't allowed to drive until the hearing.", "don't drive", True),
        # a preposition with its own object before the pattern's next word
        ("Jo toured a museum in Denver with a high school friend.", "in high school", False),
        ("Jo waited in the car with a high school coach.", "in high school", False),
        # a way of eating said of a dish is the dish's
        ("Priya got Jo a vegan curry the other day.", "vegan", False),
        ("Jo ordered vegetarian lasagna for the party.", "vegetarian", False),
        ("Jo follows a vegan diet.", "vegan", True),
        ("Jo is a vegan chef.", "vegan", True),
        ("Jo went vegetarian last spring.", "vegetarian", True),
        ("Jo is vegan and loves tofu.", "vegan", True),
        ("Jo's son is in high school.", "in high school", True),
        # a faith named of an occasion, a place or another person is theirs
        ("Jo is a guest at a Sikh wedding in May.", "sikh", False),
        ("Jo went to a Lutheran school as a boy.", "lutheran", False),
        ("Jo's Mormon neighbour brought over a pie.", "mormon", False),
        ("Jo is a practicing Sikh.", "sikh", True),
        ("Jo comes from a Lutheran family.", "lutheran", True),
        ("Jo is Mormon and doesn't drink coffee.", "mormon", True),
        # a time of life said with the fact
        ("Jo swam competitively as a teenager.", "teenager", False),
        ("Jo loved camping as a teenager.", "teenager", False),
        ("Jo's daughter is a teenager now.", "teenager", True),
    ],
)
def test_compounds_mulling_and_onsets(text: str, pattern: str, holds: bool) -> None:
    assert matches(text, pattern) is holds


@pytest.mark.parametrize(
    ("text", "entry", "why"),
    [
        ("I'm thinking about going vegan.", "diet-vegan", POLARITY),
        ("Sam isn't allergic to penicillin after all.", "allergy-penicillin", POLARITY),
        ("Sam might try keto next month.", "diet-keto-low-carb", POLARITY),
        ("Sam wore braces in middle school.", "cond-braces", PAST),
        ("Sam's coworker is allergic to peanuts.", "allergy-peanut", OTHER),
        ("A friend of mine takes warfarin.", "med-warfarin", OTHER),
        # people at large, whose fact a relative clause states
        ("Sam volunteers at a food bank for people who lost their jobs.", "fin-unemployed", OTHER),
        ("Sam knows someone who is allergic to peanuts.", "allergy-peanut", OTHER),
        # someone else named between a relative and the fact: the fact is theirs
        ("My dad told me his coworker has dementia.", "dependant-aging-parent-dementia", OTHER),
        ("My grandma says her friend has Alzheimer's.", "dependant-aging-parent-dementia", OTHER),
        # someone who works for the speaker or theirs, by the job's title
        ("Sam's rideshare driver played old hits the whole ride.", "occ-gig-driver", OTHER),
        ("My son's school bus driver was out sick today.", "occ-dot-drug-tested", OTHER),
        # an in-law
        ("Sam's sister-in-law's baby was up all night.", "child-infant-feeding", OTHER),
        # someone met at an earlier time of life
        ("My flatmate from uni is visiting next week.", "housing-roommates", PAST),
        ("Sam's roommate from college got a puppy.", "housing-roommates", PAST),
        # an -ing phrase as the subject of a past "was" or "had": a time that is over
        (
            "Looking after my father was the hardest two years of my life.",
            "life-family-caregiver",
            PAST,
        ),
        ("And caring for my husband had been a full-time job.", "life-family-caregiver", PAST),
        # a time still to come that something is made ready for
        ("Sam is saving up for when he has kids.", "child-kids-in-home-general", POLARITY),
        ("We set up a fund for whenever we have kids.", "child-kids-in-home-general", POLARITY),
    ],
)
def test_a_fact_stated_as_not_holding_is_a_near_miss_of_its_entry(
    text: str, entry: str, why: str
) -> None:
    kb = load_kb()
    assert not kb.match_facts(text)
    refused = {(e.id, reason) for e, _, reason in kb.refused_facts(text)}
    assert (entry, why) in refused, refused


def test_a_fact_that_holds_or_is_not_stated_is_no_near_miss() -> None:
    kb = load_kb()
    assert not kb.refused_facts("Sam is allergic to penicillin.")  # it holds
    assert not kb.refused_facts("Sam went to the beach on Sunday.")  # nothing stated
    assert not kb.refused_facts("We hired a no-spray yard service.")  # a compound
    # a pending event now done may have left a state of its own: no near miss
    assert not kb.refused_facts("Sam walked the Camino last summer.")
    assert kb.refused_facts("Sam broke an arm as a kid.")  # ... unless long ago
    # one pattern refused and another holding: the entry is stated, not a near miss
    stated = "Sam is not a vegetarian. Sam is vegan."
    assert "diet-vegan" in {e.id for e, _ in kb.match_facts(stated)}
    assert "diet-vegan" not in {e.id for e, _, _ in kb.refused_facts(stated)}


def test_ages_listed_after_ages_are_each_a_persons_age() -> None:
    kb = load_kb()
    boys = {e.id for e, _ in kb.match_facts("Sam's two boys, ages 2 and 9, share a room.")}
    assert any(i.startswith("child-toddler") for i in boys) and "child-school-age" in boys
    rabbits = kb.match_facts("Sam has two rabbits, ages 1 and 4.")
    assert not any(e.type in ("age", "child") for e, _ in rabbits)


def test_the_old_precision_guards_still_hold() -> None:
    assert not matches("Jo was a realtor in 2010.", "i'm a realtor")
    assert matches("Jo was recently evicted.", "was evicted")
    assert not matches("Jo had a dog back home.", "has a dog")
    assert matches("Jo has had a dog for years.", "has a dog")
    assert matches("Jo had back surgery recently.", "back surgery")
    assert not matches("Jo ran 19 miles.", "i'm 19")
    assert "child-preschool" not in _ids("Luna, the cat, is 5 years old.")


def test_a_span_of_years_or_a_measure_is_no_age() -> None:
    # A number after "is" that measures something else states no age, the user's or a
    # child's: before, each of these read as "N year old" and took an age's entries.
    for text in (
        "Jo is twelve years into a nursing career.",
        "Jo is 10 years married.",
        "Jo is 6 feet tall.",
        "Jo is 5 years cancer-free.",
        "Jo's son is 4 years into piano lessons.",
    ):
        assert not _ages(text), text
    # The span keeps what it is a span of: sobriety is a recovery, not an age.
    assert "recovery-alcohol" in _ids("Jo is 15 years sober.")
    assert not _ages("Jo is 15 years sober.")
    # Ages said any common way still are ages.
    assert "age-under-18" in _ids("Jo is 15 years old.")
    assert "age-under-18" in _ids("Jo is sixteen.")
    assert "child-preschool" in _ids("Jo's daughter is 5.")
    assert "child-preschool" in _ids("Jo's son is five years of age.")
    assert "age-older-adult-falls" in _ids("Jo is 80 years young and lives alone.")


def test_whose_age_is_read_from_the_whole_noun_phrase() -> None:
    # The phrase after the possessive or article, not only its last word: a thing named in
    # two words, a pet named after its species, a person named after the word for them.
    for text in (
        "Jo's dad's old truck is 20 years old.",
        "The dishwasher in Jo's flat is 9 years old.",
        "Jo's kitten Miso is 5 months old.",
        "It's 12 years old and still runs.",
        "Jo is 185 centimeters tall.",
        "Jo lives 9 stories up.",
    ):
        assert not _ages(text), text
    assert "child-school-age" in _ids("Jo's daughter Mia is 7.")
    assert "child-school-age" in _ids("Jo's son, who is 8, plays chess.")


def test_an_age_after_a_preposition_is_a_time_of_life() -> None:
    # "at age 15" says when something happened, "since age 6" since when: before, each read
    # as the user's age now.
    for text in (
        "Jo moved to Lisbon with her aunt at age fifteen.",
        "Jo has played the cello since age 6.",
        "Jo learned to swim by age 5.",
    ):
        assert not _ages(text), text
    assert "child-preschool" in _ids("Jo's son, aged 4, loves trains.")


def test_an_age_is_read_by_the_range_an_entry_lists() -> None:
    # An entry that lists "i'm 75", "i'm 80", "82 years old" and "over 75" holds every age
    # from 75 up, said in any of the ways a listed one is; before, only the listed numbers.
    for text in ("Jo is 83.", "Jo turned 91 last spring.", "Jo's grandfather is 87."):
        assert "age-older-adult-falls" in _ids(text), text
    assert "age-under-25-renter" in _ids("Jo is 23 years old.")
    # Outside every range, or refused as any pattern is: nothing.
    for text in (
        "Jo is 72.",
        "Jo is not 83.",
        "Jo's coworker is 83.",
        "Jo's piano is 83 years old.",
    ):
        assert not {i for i in _ids(text) if i.startswith("age-older")}, text
    ranges = {e.id: e.ages for e in load_kb().entries.values()}
    assert ranges["age-under-21"] == (18, 20)
    assert ranges["age-older-adult-falls"] is not None
    assert ranges["age-older-adult-falls"][0] == 75


def _ages(text: str) -> set[str]:
    return {i for i in _ids(text) if i.startswith(("age-", "child-"))}


def test_an_age_is_a_persons_only_when_said_of_a_person() -> None:
    # A thing's or an animal's age is no child's and no user's: before, each of these took
    # the entries of a child or of an older adult.
    for text in (
        "Jo's laptop is 5 years old.",
        "Jo's car is 16 years old.",
        "Jo drives a 15-year-old pickup.",
        "The roof on Jo's house is 20 years old.",
        "Mochi, our beagle, is 12.",
        "Jo adopted a 3-year-old greyhound.",
    ):
        assert not _ages(text), text
    # An animal named elsewhere in the sentence no longer hides a child's or the user's age.
    assert "child-preschool" in _ids("Jo's son is 4 and adores the dog.")
    assert "child-school-age" in _ids("Jo's daughter is 7 and begs for a kitten.")
    assert "child-preschool" in _ids("Jo has a 4-year-old and a dog.")
    assert "age-older-adult-falls" in _ids("Jo is 80 and has two cats.")
    # The person an age is said of, however named.
    assert "child-preschool" in _ids("Our youngest is 4.")
    assert "child-preschool" in _ids("Jo has a 4-year-old daughter.")
    assert "child-preschool" in _ids("Jo's 4-year-old is obsessed with trains.")
    assert "age-older-adult-falls" in _ids("Jo's mother-in-law is 80 and lives with them.")
    assert "age-under-21" in _ids("Jo is 19 years old.")


def test_fact_patterns_read_as_sentences_about_the_prototype_subject() -> None:
    assert fact_sentence("takes warfarin", "medication") == "Sam takes warfarin."
    assert fact_sentence("coumadin", "medication") == "Sam takes coumadin."
    assert fact_sentence("i'm an er nurse", "occupation") == "Sam is an er nurse."
    assert fact_sentence("allergic to peanuts", "allergy") == "Sam is allergic to peanuts."
    assert fact_sentence("only eat halal", "religion") == "Sam only eats halal."
    assert fact_sentence("my dog", "pet") == "Sam's dog."
    assert fact_sentence("came down with the flu", "condition") == "Sam came down with the flu."
    assert fact_sentence("two-seater", "vehicle") == "Sam has a two-seater."
    texts, labels = prototypes(load_kb())
    assert ("Sam takes coumadin.", ("medication", "med-warfarin")) in set(
        zip(texts, labels, strict=True)
    )


@pytest.mark.parametrize(
    ("pattern", "sentence"),
    [
        # a negation keeps the subject's verb: not "Sam's don't have a car."
        ("don't have a car", "Sam doesn't have a car."),
        ("doesn't have a dishwasher", "Sam doesn't have a dishwasher."),
        ("can't have shellfish", "Sam can't have shellfish."),
        ("cannot drive at night", "Sam cannot drive at night."),
        # verbs of liking and wanting are conjugated: not "Sam has want to ..."
        ("want to retire early", "Sam wants to retire early."),
        ("love a good deal", "Sam loves a good deal."),
        ("prefer the window seat", "Sam prefers the window seat."),
        # the speaker's "do" and "be" in the third person
        ("i do freelance design", "Sam does freelance design."),
        ("i am self-employed", "Sam is self-employed."),
        ("we were behind on rent", "Sam was behind on rent."),
        # what the pattern names as its own subject stays possessed
        ("rent is due on the 1st", "Sam's rent is due on the 1st."),
    ],
)
def test_fact_patterns_are_written_in_the_subjects_grammar(pattern: str, sentence: str) -> None:
    assert fact_sentence(pattern) == sentence


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Sam's roommate is allergic to cats.", True),
        ("My best friend is expecting twins.", True),
        ("Sam's brother-in-law is a truck driver.", True),
        ("Sam's brother is disabled and Sam is his caregiver.", False),
        ("Sam's mother has dementia.", False),
        ("My friend and I went vegan.", False),
        # a relative's own acquaintance
        ("Sam's wife's cousin just moved to Canada on a work visa.", True),
        ("Sam's sister-in-law's neighbor is on dialysis.", True),
        ("Sam's wife's cousin is staying with Sam for a month.", False),
    ],
)
def test_news_about_other_people_is_told_apart(text: str, other: bool) -> None:
    assert reports_other(text) is other


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        ("Sam's elderly father walks with a cane.", ("father",)),
        ("Our youngest daughter can't have eggs.", ("child",)),
        ("My wife works night shifts at the hospital.", ("partner",)),
        ("Sam's three-year-old son is afraid of dogs.", ("child",)),
        ("Sam's fiancé keeps kosher.", ("partner",)),  # accents folded
        ("Sam's mother-in-law is diabetic.", ()),  # not a household member of the list
        ("Sam's roommate is allergic to cats.", ()),
        ("Sam walks with a cane.", ()),
        ("I told my mother about the cane.", ()),  # the user's own sentence
    ],
)
def test_the_household_member_a_memory_is_about(text: str, roles: tuple[str, ...]) -> None:
    assert member_subject(text) == roles


@pytest.mark.parametrize(
    ("request_text", "roles"),
    [
        ("We're hosting my parents next weekend; what should I cook?", {"mother", "father"}),
        ("What's a good day trip to take Dad on?", {"father"}),
        ("Any ideas for the kids' lunchboxes?", {"child"}),
        ("Help me plan a surprise for my husband.", {"partner"}),
        ("What should we cook for Grandpa's birthday?", {"grandparent"}),
        ("Which gift should I get my mother-in-law?", set()),
        ("My momentum at work is gone; any tips?", set()),
        ("What's a good recipe for dinner?", set()),
    ],
)
def test_the_household_members_a_request_is_about(request_text: str, roles: set[str]) -> None:
    assert members_named(request_text) == roles


# --- the real embedder: linking by exemplars, precision on chat ------------------------------


@pytest.fixture(scope="module", params=BACKENDS)
def real(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, model_cache: Path
) -> Iterator[tuple[CriticalityAssessor, Embedder]]:
    """The assessor with the real embedder, its vectors cached in a store of each backend."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(model_cache))
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        folder = tmp_path_factory.mktemp("recognition")
        with (
            open_backend(request, request.param, folder) as backend,
            Memory(backend.url("r"), config={"llm": {"provider": "none"}}) as mem,
        ):
            assessor = CriticalityAssessor(load_kb(), VectorCache(mem.store, mem.env.embedder))
            assessor._prototypes()  # embedded once, in the shared model cache
            yield assessor, mem.env.embedder


def _assess(real: tuple[CriticalityAssessor, Embedder], texts: list[str]) -> list[Assessment]:
    assessor, embedder = real
    vectors = embedder.embed([neutral_subject(t, sentence_subject(t)) for t in texts])
    return assessor.assess(texts, np.asarray(vectors))


PARAPHRASES = [
    ("Sam gives himself insulin before every meal.", "med-insulin"),
    ("Sam's thyroid is sluggish, so Sam takes a pill for it every morning.", "med-levothyroxine"),
    ("Sam hauls freight across the country in a semi.", "occ-dot-drug-tested"),
    ("Sam teaches second grade.", "occ-teacher"),
    ("Sam walks with a cane since the stroke.", "dis-limited-mobility"),
]


@pytest.mark.slow
def test_a_paraphrase_links_its_entry_through_the_entry_exemplars(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    texts = [t for t, _ in PARAPHRASES]
    assert not any(load_kb().match_facts(t) for t in texts)  # no pattern states them
    for (text, entry), found in zip(PARAPHRASES, _assess(real, texts), strict=True):
        assert found.critical and found.source in ("classifier", "prototype"), text
        assert entry in found.entries, (text, found.entries)


@pytest.mark.slow
@pytest.mark.parametrize("user", ["Zoë", "u-1842", "ana@example.com"])
def test_the_verdict_does_not_depend_on_the_users_name_or_id(
    real: tuple[CriticalityAssessor, Embedder], user: str
) -> None:
    """Facts only the classifier recognises, about a user named in another script or
    known by an account id: judged as they are for the prototypes' own subject (unrenamed,
    such a subject cost the classifier about half its recall on the paraphrase set)."""
    assessor, embedder = real
    facts = [
        "{u} breaks out in hives around shrimp.",
        "{u} is on a payment plan for a big hospital bill.",
        "{u} gets winded climbing a single flight of stairs since the heart attack.",
    ]
    own = [f.format(u=PROTOTYPE_SUBJECT) for f in facts]
    theirs = [neutral_subject(f.format(u=user), user) for f in facts]
    assert theirs == own
    expected = assessor.assess(own, np.asarray(embedder.embed(own)))
    assert all(a.critical and a.source == "classifier" for a in expected)


@pytest.mark.slow
def test_a_brand_name_is_critical_with_its_entry_and_reason(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    [found] = _assess(real, ["Sam takes Coumadin every evening."])
    assert found.critical and found.source == "kb" and found.ctype == "medication"
    assert found.entries[0] == "med-warfarin" and "coumadin" in found.reason


@pytest.mark.slow
def test_a_constraint_no_entry_links_borrows_the_closest_entrys_keys(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    # Judged a standing constraint, but no entry's exemplars are close enough to link it:
    # without keys only its own similarity to a request could engage it, so it takes the
    # entry with the closest exemplar.
    assessor, embedder = real
    text = "Sam's youngest still sleeps in a crib."
    [found] = _assess(real, [text])
    assert found.critical and found.source == "classifier"
    vector = np.asarray(embedder.embed([neutral_subject(text, sentence_subject(text))]))[0]
    protos = assessor._prototypes()
    sims = vector @ protos.critical.T
    best = assessor.entry_similarities(sims)
    assert not assessor._linked_entries(best, float((vector @ protos.ordinary.T).max()))
    closest = protos.entries[int(np.argmax(best))]
    assert found.entries == [closest]


CHAT = [
    "Sam runs three mornings a week along the river.",
    "Sam is training for a 10k.",
    "Sam loves pasta dinners with friends on Fridays.",
    "Sam jogs every morning before work.",
    "Sam is learning to bake bread.",
    "Sam's sister is pregnant.",
    "Sam's coworker is on Eliquis.",
    "Sam went to a wedding in June.",
    "Sam thinks the new coffee place is overpriced.",
    "Sam is binge-watching a baking show.",
    "Sam is planning a trip to Lisbon next spring.",
    "Sam cycles to work on sunny days.",
    "Sam's neighbour's dog barks at night.",
    "Sam watched a documentary about sobriety.",
]


@pytest.mark.slow
def test_chatty_routines_and_news_are_not_standing_constraints(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    found = _assess(real, CHAT)
    critical = {t: (a.ctype, a.entries) for t, a in zip(CHAT, found, strict=True) if a.critical}
    assert not critical
    assert all(not a.entries for a in found)


# Conversational talk as the write path stores it (the speaker named, "you" the listener),
# none of it in the classifier's training examples, beside standing constraints said in
# the same register.
TALK = [
    "Sam will do Sam's best to make it to the game.",
    "Sam thinks you should go for the promotion.",
    "Sam is so proud of how far you've come this year.",
    "Sam will let you know once Sam gets home.",
    "Sam is hanging in there and trying to stay upbeat.",
    "Your garden looks amazing, Sam is jealous!",
    "Sam said: Take it easy and drink lots of water.",
    "Sam totally gets it, moving is exhausting.",
    "Sam appreciates you checking in.",
    "Sam will keep fighting and won't give up.",
    "Let Sam know if there's anything Sam can do for your family.",
    "Sam is sending good vibes for your exam.",
    "Sam is always here if you need to vent.",
    "Sam can't believe it's already December.",
    "Sam hopes the new job treats you well.",
    "Sam's heart goes out to you and your mom.",
    "Sam will definitely check out that bakery you mentioned.",
    "Sam is excited to see the photos from your trip.",
]
SAID_IN_PASSING = [
    "Sam would love to join but Sam is on call at the hospital every other weekend.",
    "Sorry, Sam can't do the seafood place, shellfish makes Sam's throat swell.",
    "Sam has to be home by six to give Sam's daughter her insulin.",
    "No wine for Sam, thanks, Sam has been sober for three years.",
    "Sam can't lift anything heavy since the back surgery, so count Sam out of the move.",
    "Sam keeps kosher, so any place with a fish option works.",
]


@pytest.mark.slow
def test_conversational_talk_is_rarely_a_constraint_and_a_constraint_in_passing_still_is(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    """Trained on talk of this kind (``conversation_examples.json``), the classifier no
    longer reads encouragement, offers and sign-offs as standing constraints: without it, 8
    of these 18 were, most at p >= 0.9. Two of them still are."""
    found = _assess(real, TALK + SAID_IN_PASSING)
    talk = [t for t, a in zip(TALK, found[: len(TALK)], strict=True) if a.critical]
    assert len(talk) <= 2, talk
    assert all(a.critical for a in found[len(TALK) :])


# Replies that say nothing lasting, each close to some critical example only through the
# name every example shares; beside facts said in passing that only the classifier reads.
SUBJECT_ONLY = [
    "Sam hasn't stopped smiling since.",
    "Sam would do it all again in a heartbeat.",
    "Sam gets what you mean.",
    "Sam couldn't have done it without them.",
]
READ_BY_THE_CLASSIFIER = [
    "Sam's knees can't handle stairs anymore.",
    "Sam has to be home by six to relieve the babysitter.",
    "Sam hasn't had a drink in three years.",
]


@pytest.mark.slow
def test_a_reply_near_a_constraint_only_by_its_subject_is_no_constraint(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    """The classifier's word counts only near its critical examples (``support_floor``),
    measured without what every example shares (``common_directions``): the subject's
    name alone put each reply there before, where the classifier gave it 0.35 to 0.95."""
    found = _assess(real, SUBJECT_ONLY + READ_BY_THE_CLASSIFIER)
    n = len(SUBJECT_ONLY)
    replies = [(t, a.ctype) for t, a in zip(SUBJECT_ONLY, found[:n], strict=True) if a.critical]
    assert not replies
    # The classifier alone calls each of them one: only where it may speak decides.
    assert all(a.score >= P_MIN for a in found[:n])
    assert all(a.critical and a.source == "classifier" for a in found[n:])


# The reason behind a standing habit, in forms the authored examples use little, beside a
# one-off event on the same theme that leaves no rule behind. Written for this test.
REASONS_BEHIND_HABITS = [
    "A hailstorm dented Sam's car in an open lot, so he pays for covered parking now.",
    "My phone died on a hike once and I never go out on the trails without a battery pack anymore.",
    "Lena's email was hacked through a reused password, and she has used a password manager "
    "ever since.",
    "After a pipe burst while we were away, we shut off the water main before every trip.",
    "Tom got stuck in a two-hour jam on the bridge, so now he leaves for the airport at dawn.",
    "Getting locked out in the snow taught Sam to leave a spare key with a neighbor.",
]
ONE_OFF_EVENTS = [
    "A hailstorm rolled through town this afternoon.",
    "My phone battery died halfway through the movie.",
    "Lena changed her email password this morning.",
    "A pipe under the kitchen sink was dripping, so the plumber came by.",
    "Tom sat in traffic on the bridge for an hour today.",
    "Sam got locked out for ten minutes until his roommate came home.",
]


@pytest.mark.slow
def test_a_reason_behind_a_habit_is_personal_logic_and_a_one_off_event_is_not(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    """At least half the reasons are judged views (4 of the 6 when written); at most one
    event is judged critical at all (the roommate is a housing fact the resource states,
    not a view)."""
    found = _assess(real, REASONS_BEHIND_HABITS + ONE_OFF_EVENTS)
    n = len(REASONS_BEHIND_HABITS)
    read = [(t, a.ctype) for t, a in zip(REASONS_BEHIND_HABITS, found[:n], strict=True)]
    views = [a for a in found[:n] if a.critical and a.ctype in VIEWS]
    assert len(views) >= n // 2, read
    events = [t for t, a in zip(ONE_OFF_EVENTS, found[n:], strict=True) if a.critical]
    assert len(events) <= 1, events


# A fact the resource reads, said as not holding, beside the same fact said as holding.
NEAR_MISSES = [
    ("Sam could be pregnant, the test is tomorrow.", "Sam is pregnant with twins."),
    ("Turns out Sam isn't lactose intolerant after all.", "Sam is lactose intolerant."),
    ("Sam took blood thinners for a few months back in 2019.", "Sam takes blood thinners."),
]


@pytest.mark.slow
def test_a_fact_said_as_not_holding_is_not_a_constraint_of_its_type(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    """The classifier judges these by their words; the resource reads the fact they resemble
    as negated, hypothetical or over, which vetoes the classifier's verdict of that type."""
    texts = [t for pair in NEAR_MISSES for t in pair]
    found = dict(zip(texts, _assess(real, texts), strict=True))
    for near, holds in NEAR_MISSES:
        assert found[holds].critical, holds
        assert not found[near].critical, (near, found[near].reason)
        assert "as not holding" in found[near].reason


def test_the_pattern_index_offers_every_pattern_a_sentence_states() -> None:
    """The index may only skip patterns ``match_at`` would refuse: every pattern found by
    trying each one against the sentence is among the candidates it offers."""
    kb = load_kb()
    examples = authored_examples()
    sentences = [s for group in examples["critical"].values() for s in group][::5]
    sentences += examples["ordinary"][::5]
    sentences += [
        "Sam takes a low dose of warfarin.",
        "Peanuts, I'm really allergic to them.",
        "Sam has been taking warfarin since March.",
        "Sam doesn't have a car.",
    ]
    stated = 0
    for text in sentences:
        read = fact_text(text)
        present = frozenset(read.words)
        offered = {(e.id, p.text) for e, ps in kb._index.candidates(present) for p in ps}
        for entry in kb.entries.values():
            for pattern in entry.compiled:
                if match_at(read, pattern, present) is not None:
                    stated += 1
                    assert (entry.id, pattern.text) in offered, (text, pattern.text)
    assert stated > 50  # the sentences do state facts


def test_every_pattern_is_a_candidate_for_its_own_words() -> None:
    kb = load_kb()
    for entry in kb.entries.values():
        for pattern in entry.compiled:
            offered = {
                p.text
                for e, ps in kb._index.candidates(frozenset(pattern.words))
                if e.id == entry.id
                for p in ps
            }
            assert pattern.text in offered, (entry.id, pattern.text)


@pytest.mark.slow
def test_the_classifier_reads_no_childs_age_into_a_things(
    real: tuple[CriticalityAssessor, Embedder],
) -> None:
    # The embedding reads "12 years old" as a child's age whoever it is of; the rules know
    # it is a bike's. Before, the bike was typed a child constraint.
    bike, son = _assess(
        real,
        [
            "Sam's bike is 12 years old but still rides well.",
            "Sam's son is 12 and rides his bike to school.",
        ],
    )
    assert not (bike.critical and bike.ctype in ("age", "child"))
    assert son.critical and son.ctype == "child"
