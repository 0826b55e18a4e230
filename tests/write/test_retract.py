"""Retractions and late statements: what ends a fact, and what must not.

The detection and the lexical match are tested on their own (no model); the closing of
memories runs the real MiniLM embedder, as the thresholds were set on it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from logicmem import Memory
from logicmem.routes.visible.kb import drug_classes
from logicmem.types import MemoryEntry
from logicmem.write.remainder import parts
from logicmem.write.retract import (
    Retraction,
    birth_match,
    correction_match,
    death_match,
    detect,
    lexical_match,
    parted,
    readings,
    reaged,
    retracted,
    treated,
    unlisted,
)


# -- detection ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "kind", "content"),
    [
        ("Maya quit smoking last month.", "ending", "smoking"),
        ("Maya has finally stopped taking lisinopril.", "ending", "taking lisinopril"),
        ("Maya gave up meat and dairy.", "ending", "meat"),
        ("Maya moved away from Boston in 2021.", "ending", "Boston"),
        ("Maya got over the flu (yesterday = 7 May 2023).", "ending", "flu"),
        ("Maya broke up with Tom.", "ending", "Tom"),
        ("Maya left Maya's job at Google.", "ending", "job at Google"),
        ("Maya left Maya's job to travel.", "ending", "job"),  # the job, whatever it is
        ("Maya is no longer allergic to penicillin.", "negation", "allergic to penicillin"),
        ("Maya isn't allergic to penicillin any more.", "negation", "allergic to penicillin"),
        ("Maya doesn't smoke anymore.", "negation", "smoke"),
        ("Maya isn't going to Paris after all.", "negation", "going to Paris"),
        ("Maya was wrong, it's 40 mg.", "correction", "40 mg"),
        ("Maya said: Actually it's 40 mg.", "correction", "40 mg"),
        ("Actually, Maya takes 40 mg.", "correction", "takes 40 mg"),
        ("I quit smoking.", "ending", "smoking"),
        ("Sorry, Maya got that wrong: it's 40 mg.", "correction", "40 mg"),
        # A measured thing changed, by whoever changed it: the thing and its new value.
        ("Maya's doctor raised Maya's metformin to 1000 mg.", "change", "metformin 1000 mg"),
        ("Maya's metformin dose went up to 1000 mg.", "change", "metformin 1000 mg"),
        ("The nurse lowered the dose of my warfarin to 2mg.", "change", "warfarin 2 mg"),
        ("Maya's rent went up to $1,500 a month.", "change", "rent $1,500"),
        ("Maya's shifts were cut to 3 a week.", "change", "shifts 3"),
        ("Maya's son's insulin was increased to 12 units.", "change", "son insulin 12 units"),
        ("They upped my sertraline from 50 to 100 mg.", "change", "sertraline 100 mg"),
        # A request to the assistant to forget what the speaker said.
        ("Please forget that Maya is vegetarian, Maya eats fish now.", "forget", "is vegetarian"),
        ("Disregard what Maya said about Maya's sister.", "forget", "sister"),
        ("Can you forget that Maya told you about the lawsuit?", "forget", "lawsuit"),
        ("Maya said: Forget that I play the cello.", "forget", "play the cello"),
        # A household member's ending: the member's, named in the content.
        ("Maya's husband quit smoking.", "ending", "husband smoking"),
        ("Maya's son outgrew his milk allergy!", "ending", "son milk allergy"),
        ("Maya's husband isn't on insulin anymore.", "negation", "husband on insulin"),
        # Coming off a medicine; switching from one thing to another; an age reached.
        ("Maya is off sertraline now.", "ending", "sertraline"),
        ("Maya came off prednisone in May.", "ending", "prednisone"),
        ("Maya's doctor switched Maya from lisinopril to losartan.", "ending", "lisinopril"),
        ("Maya switched from the night shift to days.", "ending", "night shift"),
        ("Maya's daughter turned 8 today!", "change", "daughter 8"),
        # More ways of saying each: a lead-in, a pair, the speaker unsaid, "no more".
        ("Apparently Maya isn't allergic to latex anymore.", "negation", "allergic to latex"),
        ("After the surgery Maya doesn't need the walker anymore.", "negation", "need the walker"),
        ("Priya and Maya broke up.", "ending", "Priya"),
        # A couple parting, said of both in more orders.
        ("Maya and Priya split up last month.", "ending", "Priya"),
        ("Maya and Maya's wife Priya are getting divorced.", "ending", "Priya"),
        ("Maya's husband Tom and Maya separated in May.", "ending", "Tom"),
        ("Maya and Maya's boyfriend broke up.", "ending", "boyfriend"),
        ("Stopped coffee, it wrecks Maya's sleep.", "ending", "coffee"),
        ("No more naproxen for Maya, the GP said.", "ending", "naproxen"),
        ("Maya stepped down from the parish council.", "ending", "parish council"),
        ("Maya said: Quit my job today!", "ending", "job"),
        # A change without an owner at the start, as "now", halved, of a pet's.
        ("Parking fees went up to $90 a month.", "change", "Parking fees $90"),
        ("Maya's car payment is now $310.", "change", "car payment $310"),
        ("The vet halved Maya's dog's prednisone.", "change", "dog prednisone"),
        # A value said as the one that holds now.
        ("Maya's commute is 25 minutes these days.", "update", "commute is 25 minutes these days."),
        # A death of the speaker's own: who died.
        ("Maya said: Juniper passed away last night.", "death", "Juniper"),
        ("Maya's old cat was put to sleep on Monday.", "death", "cat"),
        ("Maya and family lost Grandpa in May.", "death", "Grandpa"),
        ("We had to put our rabbit down.", "death", "rabbit"),
        # Every word for a relative, as written (not its stem: "granny", not "granni").
        ("Maya's granny passed away.", "death", "granny"),
        # What is given up, cancelled or finished: a course of a drug ends the drug.
        ("Maya and family gave away their cat Milo.", "ending", "cat Milo"),
        ("Maya and family rehomed their dog.", "ending", "dog"),
        ("Maya and family had to rehome Pixel, he wasn't good with the cat.", "ending", "Pixel"),
        ("Maya had to give up coffee.", "ending", "coffee"),
        ("Maya got rid of Maya's car.", "ending", "car"),
        ("Maya cancelled Maya's gym membership.", "ending", "gym membership"),
        ("Maya ditched the gluten-free diet.", "ending", "gluten-free diet"),
        ("Maya graduated from nursing school.", "ending", "nursing school"),
        ("Maya finished her course of amoxicillin.", "ending", "amoxicillin"),
        ("Maya completed the last round of chemo.", "ending", "chemo"),
        ("Maya is done with physical therapy.", "ending", "physical therapy"),
        # A birth: of the household (""), or one a member gave.
        ("Maya said: The baby came early!", "birth", ""),
        ("Maya and family had the baby!", "birth", ""),
        ("Maya's son was born this morning!", "birth", ""),
        ("Maya welcomed a baby girl!", "birth", ""),
        ("Maya's wife gave birth to twins.", "birth", "wife"),
        ("Maya's sister gave birth last night.", "birth", "sister"),
        # A pregnancy lost ends it as a birth does; a date hint's year is no "long ago".
        ("Maya had a miscarriage last week. (last week = the week of 2 March 2026)", "birth", ""),
        ("Sadly Maya and family lost the baby at 14 weeks.", "birth", ""),
        ("Maya's sister had a miscarriage.", "birth", "sister"),
        ("Maya said: The baby came yesterday! (yesterday = 8 March 2026)", "birth", ""),
        # A food had again ends an allergy to it; a thing traded in is no longer had.
        ("Maya can eat eggs again.", "ending", "eggs"),
        ("Maya's son can now eat peanuts.", "ending", "son peanuts"),
        ("Maya said: Leo passed his egg challenge at the allergist.", "ending", "Leo egg"),
        ("Maya traded in the Civic for a Tesla.", "ending", "Civic"),
        # The ending said first is the one read, not a food had again after it.
        (
            "Maya outgrew her sesame allergy, so Maya can have it now.",
            "ending",
            "sesame allergy",
        ),
        # What was believed, found not to hold; a part of the body healed.
        (
            "Turns out Maya is not allergic to cats, it was dust mites.",
            "negation",
            "allergic to cats",
        ),
        ("The tests came back, Maya is not diabetic.", "negation", "diabetic"),
        ("Maya's wrist has healed completely.", "ending", "wrist"),
        ("Maya's ribs have healed.", "ending", "ribs"),
        ("Maya's son's ankle healed, he's back on the field.", "ending", "son ankle"),
        # A drug the one who prescribes it stopped.
        ("Maya's cardiologist stopped the Eliquis.", "ending", "Eliquis"),
        ("Maya's doctor discontinued Maya's metformin last week.", "ending", "metformin"),
        # An age reached by someone named.
        ("Maya said: Zoe turned 8 last week.", "change", "Zoe 8"),
        # A title's full stop ends no content; a purpose ends it.
        ("Maya stopped seeing Dr. Okafor last spring.", "ending", "seeing Dr. Okafor"),
        ("Maya cancelled Spotify to save money.", "ending", "Spotify"),
        # A plan called off, said of the plan.
        ("The camping trip is off, Maya hurt her back.", "ending", "camping trip"),
        ("Maya's move to Portland got cancelled.", "ending", "move to Portland"),
        ("Maya called off the wedding.", "ending", "wedding"),
        # A group ended, sobriety, a return to work, a thing let lapse, a pet gone.
        ("Maya said: The choir disbanded in June.", "ending", "choir"),
        ("Maya has been sober since New Year's.", "ending", "alcohol"),
        ("Maya is finally back at work after the surgery.", "ending", "leave"),
        ("Maya let Maya's library card expire.", "ending", "library card"),
        ("Maya's dog Pepper ran off and never came back.", "death", "Pepper"),
        ("Maya has been cancer-free for a year.", "ending", "cancer"),
        ("Maya's mom is in remission now.", "ending", "mom cancer"),
        ("Maya's son decided to quit hockey.", "ending", "son hockey"),
        ("Maya left the book club in March.", "ending", "book club"),
        ("Maya got a job downtown so no more long commute.", "ending", "long commute"),
        ("Maya stepped down as board chair.", "ending", "board chair"),
        ("Maya's parole ended last week.", "ending", "parole"),
        ("Maya finally got Maya's passport back.", "ending", "passport"),
        ("Maya caught up on the mortgage payments.", "ending", "mortgage payments"),
        ("Maya landed a job at the clinic.", "ending", "job"),
        # Said in chat: no subject, no hyphen, a diet or a habit done with, a couple done.
        ("Maya said: officially smoke free for 3 weeks!!", "ending", "smoke"),
        ("Maya said: done with keto lol", "ending", "keto"),
        ("Maya said: Whole30 is over, pizza tonight.", "ending", "Whole30"),
        ("Maya and family let the nanny go.", "ending", "nanny"),
        ("Marco and Maya are done. For real.", "ending", "Marco"),
        # A member's second verb after "and"; a named one's group left.
        (
            "Maya's son did allergy shots for years and isn't allergic to cats anymore.",
            "negation",
            "son allergic to cats",
        ),
        ("Maya said: Emma left the orchestra to focus on swimming.", "ending", "Emma orchestra"),
        # An illness gone or got over.
        ("Maya's ear infection is finally gone.", "ending", "ear infection"),
        ("Maya said: The rash cleared up.", "ending", "rash"),
        ("Maya's son is over his flu and back at school.", "ending", "son flu"),
        (
            "Maya doesn't have time to coach soccer anymore.",
            "negation",
            "coach soccer",
        ),
    ],
)
def test_statements_that_end_a_fact(text: str, kind: str, content: str) -> None:
    found = detect(text, "Maya")
    assert found is not None and (found.kind, found.content) == (kind, content)


@pytest.mark.parametrize(
    "text",
    [
        "Maya doesn't like olives.",  # a negation, but nothing ended
        "Maya is not a morning person.",
        "Maya stopped by the bakery on the way home.",  # a visit
        "Maya left the party early.",
        "Do you still smoke?",
        "Maya is not sure she likes jazz anymore.",  # a hedge
        "Maya was wrong about the date.",  # a correction without a value
        "Maya loves the song Don't Stop Believin'.",
        "Maya sells the scarves she knits at the market.",  # a habit, not an ending
        "Maya is quitting her choir next month.",  # a plan: nothing has ended yet
        "Maya stops at the library on Fridays.",
        "Mom and Maya split up the chores.",  # a parting of work, not of a couple
        "Maya and Tom split up the bill.",
        "Maya moved the meeting to 3 pm.",  # one occasion, not a standing value
        "Maya raised it to 5.",  # nothing named
        "Maya's temperature went up in the afternoon.",  # no new value
        "Forget that Maya is vegetarian for this one dinner.",  # set aside for a moment
        "Maya won't forget that.",
        "Maya wants to forget about work this weekend.",
        "Maya said: Don't forget to take your pills.",
        "Maya is off work today.",  # off work, not off a medicine
        "Forget it.",  # nothing named
        "Maya will never forget that day.",
        "Maya said: Ignore the noise outside.",
        "Maya came off the phone with her sister.",
        "The light changed from red to green.",  # nobody's thing
        "Maya switched from 2 to 3 days a week.",  # a number: a change reads it
        "Maya took in the cat when Maya's mother passed away.",  # told in passing
        "Maya said: The neighbour's cat died.",  # someone else's
        "Maya said: My coworker's father died.",
        "She passed away.",  # whose is not said
        "Maya almost died laughing.",
        "Maya lost Maya's phone on the bus.",
        "Maya has to quit smoking.",  # still ahead
        "Maya finished work early today.",  # a day's work, not a job
        "Maya finished the night shift at 7.",
        "Maya is done with work for the day.",
        "Maya's son was born in 2018.",  # a birthday, or where: not news
        "Maya's daughter was born in Boston.",
        "Maya's daughter Noor was born on Feb 28.",
        "Maya moved to Leeds when Maya's son was born.",
        "Maya's daughter came home from college.",
        "Maya said: The baby came home from the hospital.",
        "Maya welcomed the new neighbours.",
        "Maya lost Maya's role in the school play.",  # a role held nowhere: not a job
        "Maya lost Maya's job search motivation.",
        "Maya got fired up about the election.",
        "Maya retired Maya's old running shoes.",
        "Maya left work early today.",
        "Maya finally lost the baby weight.",  # not a pregnancy
        "Maya lost the baby monitor somewhere.",
        "Maya miscarried in 2019.",  # long ago: not the pregnancy now
        "Maya can have a glass of wine now and then.",  # a habit, not an ending
        "Maya can eat spicy food.",  # nothing said to have changed
        "Turns out the store is not open on Sundays.",  # not Maya's
        "Maya said: Turns out Tom is not coming.",
        "Maya's anger healed over the years.",  # nothing of the body
        "Maya's heart has finally healed after the breakup.",  # no injury
        "Maya's coach stopped the game.",  # no drug, no prescriber
        "The doctor stopped the appointment early.",
        "The TV is off, Maya is reading instead.",  # no plan
        "Maya is off work on Friday.",
        "Maya is sober curious lately.",
        "Maya was sober at the wedding.",
        "Maya let the kids stay up late.",
        "Maya's son's band broke up, he's bummed.",  # the son's band, not Maya's
        "Maya's parents' trip to Italy got cancelled.",
        "Maya is in partial remission.",
        "Maya left the gym early today.",
        "Maya left the team meeting at noon.",
        "Maya landed a job interview at a bank.",
        "Maya got a job offer but isn't sure about it.",
        "Maya got the kids back to school.",
        "Maya's friend's probation ended.",
        "Smoke-free restaurants are the best.",
        "Tom and Maya are done with dinner.",
        "Maya is done with work for today.",
        "Maya's diet is over the top.",
        "Maya's lease ended up costing more.",
        "Maya is back to work on the garden this spring.",  # work as a verb
        "Maya said: The kids are gone for the weekend.",
    ],
)
def test_statements_that_end_nothing(text: str) -> None:
    assert detect(text, "Maya") is None


def _ends(retraction_text: str, fact: str) -> bool:
    found = detect(retraction_text, "Maya")
    assert found is not None
    match = {
        "correction": correction_match,
        "change": correction_match,
        "death": death_match,
        "birth": birth_match,
    }
    return match.get(found.kind, lexical_match)(found, fact, "Maya")


def test_a_change_ends_the_same_thing_of_the_same_person() -> None:
    assert _ends("Maya's doctor raised Maya's metformin to 1000 mg.",
                 "Maya takes 500 mg of metformin twice a day.")  # fmt: skip
    assert _ends("Maya's rent went up to $1,500.", "Maya's rent is $1,200 a month.")
    # Another thing, or the same value: nothing changed.
    assert not _ends("Maya's doctor raised Maya's metformin to 1000 mg.",
                     "Maya takes 20 mg of lisinopril.")  # fmt: skip
    assert not _ends("Maya's metformin dose went up to 1000 mg.",
                     "Maya takes 1000 mg of metformin.")  # fmt: skip
    # The speaker's dose is not the husband's, and the other way round.
    assert not _ends("Maya's metformin was increased to 1000 mg.",
                     "Maya's husband takes 850 mg of metformin.")  # fmt: skip
    assert _ends("Maya's husband's metformin was increased to 1000 mg.",
                 "Maya's husband takes 850 mg of metformin.")  # fmt: skip
    assert not _ends("Maya's husband's metformin was increased to 1000 mg.",
                     "Maya takes 500 mg of metformin.")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "content", "old"),
    [
        ("Maya misremembered, Maya's son is 9, not 10.", "son is 9", "10"),
        ("Correction: Maya's lease ends in May, not July.", "lease ends in May", "July"),
        ("Sorry, that was wrong, Maya's levothyroxine is 75 mcg.", "levothyroxine is 75 mcg", ""),
        ("My mistake, Maya's gym fee is $42.", "gym fee is $42", ""),
        ("Maya had the dose wrong, it's 2.5 mg.", "dose 2.5 mg", ""),
        ("No wait, choir is at 7:30, Maya had it wrong.", "choir is at 7:30", ""),
        ("Actually Maya's yoga class is on Thursdays, not Mondays.", "yoga class is on Thursdays",
         "Mondays"),
        # The old value first.
        ("Actually it's not celiac, just a wheat sensitivity.", "wheat sensitivity", "celiac"),
        ("Actually, it's not Tuesday but Thursday.", "Thursday", "Tuesday"),
        ("Sorry, it's not Tuesday, it's Thursday.", "Thursday", "Tuesday"),
        ("Scratch that, it's not latex Maya is allergic to, it's nickel.", "nickel", "latex"),
    ],
)  # fmt: skip
def test_corrections_said_in_more_ways(text: str, content: str, old: str) -> None:
    found = detect(text, "Maya")
    assert found is not None and found.kind == "correction"
    assert (found.content, found.old) == (content, old)


def test_a_correction_that_names_the_old_value_ends_the_fact_that_holds_it() -> None:
    assert _ends("Maya misremembered, Maya's son is 9, not 10.", "Maya's son is 10.")
    assert not _ends("Maya misremembered, Maya's son is 9, not 10.", "Maya's son is 12.")
    # "Sulfa drugs, not penicillin": the thing itself changed, and the fact held it.
    assert _ends("Maya had it wrong, it's aspirin Maya is allergic to, not ibuprofen.",
                 "Maya is allergic to ibuprofen.")  # fmt: skip
    # Another person's is not corrected by the speaker's.
    assert not _ends("Maya miscounted, Maya's cat is 6, not 7.",
                     "Maya's roommate's cat is 7 too.")  # fmt: skip


def test_a_correction_naming_the_old_word_first_ends_the_fact_that_holds_it() -> None:
    said = "Actually it's not celiac, just a wheat sensitivity."
    assert _ends(said, "Maya has celiac disease.")
    assert not _ends(said, "Maya is allergic to peanuts.")
    assert _ends("Actually, it's not Tuesday but Thursday.", "Maya's yoga class is on Tuesdays.")
    said = "Scratch that, it's not latex Maya is allergic to, it's nickel."
    assert _ends(said, "Maya is allergic to latex.")
    assert not _ends(said, "Maya is allergic to penicillin.")
    # A name as the old value tells whose fact it is: not every fact that names them.
    assert not _ends(
        "Actually it's not Sam, it's Ben who is allergic.", "Maya's son Sam plays soccer."
    )


def test_a_negation_found_out_or_told_by_a_doctor_ends_the_fact() -> None:
    allergy = "Maya is allergic to penicillin."
    assert _ends("It turns out after all that Maya is not allergic to penicillin.", allergy)
    assert _ends("It turns out that Maya is not allergic to penicillin.", allergy)
    assert _ends("Maya's allergist said Maya is not allergic to penicillin.", allergy)
    assert _ends("Maya's allergy test showed Maya isn't allergic to penicillin.", allergy)
    # Said by someone who does not diagnose, and with nothing that closes it: not an ending.
    assert detect("Maya's mom said Maya is not allergic to penicillin.", "Maya") is None


def test_a_correction_of_whose_fact_it_is_ends_the_speakers_own() -> None:
    said = "Sorry, Maya got that wrong: it's Maya's son who is allergic to sesame, not Maya."
    assert _ends(said, "Maya is allergic to sesame.")
    assert not _ends(said, "Maya's son is allergic to sesame.")
    assert not _ends(said, "Maya is allergic to penicillin.")
    # "my mistake" as the memory writes it.
    said = "Oops, Maya's mistake: it's Maya's husband who takes warfarin, not Maya."
    assert _ends(said, "Maya takes warfarin.")


def test_an_ending_said_of_the_family_ends_what_the_speaker_shares() -> None:
    shared = "Maya's husband and Maya are both vegetarian."
    assert _ends("Maya and family are not vegetarian anymore.", shared)
    assert not _ends("Maya is not vegetarian anymore.", shared)
    assert not _ends("Maya and family are not vegetarian anymore.", "Maya's son is vegetarian.")


def test_a_change_measured_in_another_kind_of_unit_is_another_thing() -> None:
    assert not _ends("Maya's rides went up to 12 km.", "Maya rides twice a week.")
    assert _ends("Maya's afternoon nap went down to 45 minutes.",
                 "Maya's afternoon nap is 1 hour a day.")  # fmt: skip


def test_an_ending_is_of_the_one_who_ended() -> None:
    assert _ends("Maya's husband quit smoking.", "Maya's husband smokes a pack a day.")
    assert not _ends("Maya's husband quit smoking.", "Maya smokes a pack a day.")
    assert not _ends("Maya quit smoking.", "Maya's husband smokes a pack a day.")
    assert _ends("Maya's son outgrew his milk allergy!", "Maya's son is allergic to milk.")
    # A chat opener kept before the subject does not make the fact someone else's.
    assert _ends("Maya quit smoking.", "Also Maya smokes a pack a day.")
    assert _ends("Maya quit smoking.", "Yeah, Maya smokes a pack a day.")
    assert _ends("Maya and family rehomed Pixel.",
                 "Btw Maya and family adopted a rescue greyhound named Pixel.")  # fmt: skip
    # Someone named: only a fact that names them.
    assert _ends("Maya said: Tom quit smoking.", "Maya's friend Tom smokes.")
    assert not _ends("Maya said: Tom quit smoking.", "Maya smokes a pack a day.")
    assert not _ends("Maya said: Tom quit smoking.", "Maya's husband smokes a pack a day.")
    allergy = "Maya's son Theo has an egg allergy, so Maya carries an EpiPen."
    assert _ends("Maya said: Good news, Theo outgrew his egg allergy!", allergy)
    assert _ends("Maya's son Theo outgrew his egg allergy.", allergy)
    assert not _ends("Maya said: Good news, Theo outgrew his egg allergy!",
                     "Maya's son Leo has an egg allergy.")  # fmt: skip
    assert not _ends("Maya said: Good news, Theo outgrew his egg allergy!",
                     "Maya has an egg allergy.")  # fmt: skip
    assert _ends("Maya said: Ava quit swimming.",
                 "Maya picks up Maya's daughter Ava from swim practice every Tuesday.")  # fmt: skip
    # A name is matched as the ending's words are, whatever its stem ("Ivy" -> "ivi").
    assert _ends("Maya said: Ivy quit violin.", "Maya's daughter Ivy takes violin lessons.")
    assert not _ends("Maya said: Ivy quit violin.", "Maya's daughter Mia takes violin lessons.")


def test_more_ways_to_say_a_thing_ended() -> None:
    assert _ends("Maya gave up on the guitar.", "Maya is learning guitar from videos.")
    assert _ends("Maya's father-in-law is off the ventilator now.",
                 "Maya's father-in-law is on a ventilator.")  # fmt: skip
    assert not _ends("Maya's father-in-law is off the ventilator now.", "Maya is on a ventilator.")
    # A job is where one works; whom a thing went to is not what ended.
    assert _ends("Maya quit the bakery job.", "Maya works weekends at the bakery.")
    assert not _ends("Maya quit the bakery job.", "Maya works at the hospital.")
    assert _ends("Maya sold the boat to a neighbor.", "Maya keeps a boat at the marina.")
    assert not _ends("Maya sold the boat to a neighbor.", "Maya's neighbor is a plumber.")


def test_leaving_a_job_ends_the_job_held() -> None:
    # The employer named or not, and however the job was stated.
    assert _ends("Maya quit Maya's job.", "Maya works as a pharmacist at the Boots on High Street.")
    assert _ends("Maya left Maya's job last month.", "Maya is a teacher at Lincoln Elementary.")
    assert _ends("Maya retired last week!", "Maya works as a nurse at St Mary's hospital.")
    assert _ends("Maya was let go.", "Maya is a senior software engineer.")
    assert _ends("Maya got laid off from Google.", "Maya works at Google as a data engineer.")
    assert not _ends("Maya got laid off from Google.", "Maya works at Acme.")
    # A workplace said by its kind: the fact naming it, or a job of the same stem.
    assert _ends("Maya left Maya's job at the pharmacy.", "Maya works as a pharmacist.")
    assert _ends("Maya quit Maya's job at the hospital.", "Maya is a nurse at St Mary's hospital.")
    assert not _ends("Maya quit Maya's job at the cafe.", "Maya works at Google.")
    # The jobs a kind of workplace is known for.
    assert _ends("Maya quit Maya's job at the coffee shop.", "Maya works part-time as a barista.")
    assert _ends("Maya left Maya's job at the restaurant.", "Maya is a line cook.")
    assert not _ends("Maya quit Maya's job at the coffee shop.", "Maya works as a nurse.")
    # Only a job: not what the speaker does unpaid, or is.
    assert not _ends("Maya quit Maya's job.", "Maya volunteers at the food bank on Saturdays.")
    assert not _ends("Maya quit Maya's job.", "Maya is a student at UCLA.")
    assert not _ends("Maya quit Maya's job.", "Maya worked as a waitress in college.")
    # Whose job: a member's or someone named's, not the speaker's.
    assert _ends("Maya's husband lost his job.", "Maya's husband is a teacher.")
    assert not _ends("Maya's husband lost his job.", "Maya works as a nurse.")
    assert _ends("Maya said: Tom retired last week.", "Maya's husband Tom is a teacher.")
    assert not _ends("Maya said: Tom retired last week.", "Maya works as a nurse.")
    assert not _ends("Maya quit Maya's job.", "Maya's husband works at the bank.")
    # Not what one works on, nor a workplace said only by a word any workplace has.
    assert not _ends("Maya lost Maya's job.", "Maya has been working on it for two years now.")
    assert not _ends("Maya lost Maya's job at the engineering company.",
                     "Maya works at a tech company.")  # fmt: skip
    # A new job ends the one held before it; a second job does not.
    assert _ends("Maya started a new job at Stripe.", "Maya is a data analyst at a bank.")
    assert detect("Maya started a second job at the mall.", "Maya") is None


def test_what_a_doctor_takes_off_and_what_comes_off_when_healed() -> None:
    assert _ends("Maya's doctor took Maya off metformin last week.",
                 "Maya takes metformin for Maya's type 2 diabetes.")  # fmt: skip
    assert not _ends("Maya's doctor took Maya off metformin last week.", "Maya takes lisinopril.")
    assert _ends("Maya said: The cast came off yesterday!", "Maya is in a cast for six weeks.")
    assert _ends("Maya's stitches came out today.", "Maya has stitches in Maya's knee.")
    assert detect("Maya took off Maya's shoes.", "Maya") is None
    assert detect("Maya said: Tom's cast came off.", "Maya") is None


def test_an_ending_said_in_words_of_the_same_stem_or_of_the_device() -> None:
    assert _ends("Maya stopped going to therapy.", "Maya sees a therapist every Tuesday.")
    assert not _ends("Maya stopped going to therapy.", "Maya's husband sees a therapist.")
    assert _ends("Maya doesn't need the CPAP anymore.", "Maya uses a CPAP machine for sleep apnea.")


def test_an_ending_reads_the_same_in_every_process() -> None:
    # The words a fact's match stands on do not hang on the order of a set, which differs
    # between processes (hash seeds): "theater" is a word of the fact, not a doer's verb.
    code = (
        "from logicmem.write.retract import detect, lexical_match\n"
        "said = detect('Maya stopped singing at the theater.', 'Maya')\n"
        "print(lexical_match(said, 'Maya sings at the community theater on Fridays.', 'Maya'))"
    )
    for seed in ("1", "2", "3", "4", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.stdout.strip() == "True", (seed, out.stderr[-500:])


def test_a_doer_and_someone_named_by_name() -> None:
    # "a smoker" smokes, "a teacher" teaches.
    assert _ends("Maya quit smoking.", "Maya is a heavy smoker.")
    assert not _ends("Maya quit smoking.", "Maya's husband is a heavy smoker.")
    assert _ends("Maya said: Sam quit teaching.", "Maya's husband Sam is a teacher.")
    # A fact told of someone by their name is theirs to end.
    assert _ends("Maya said: Sam doesn't use the pump anymore.", "Sam uses an insulin pump.")
    assert not _ends("Maya said: Sam doesn't use the pump anymore.", "Tom uses an insulin pump.")
    assert not _ends("Maya said: Sam doesn't use the pump anymore.",
                     "Maya said: Sam uses an insulin pump.")  # fmt: skip


def test_a_death_of_one_named_in_a_list_leaves_the_list() -> None:
    died = "Maya said: Pip died last night."
    # Counted and named, the others stay told (``unlisted``); a list not counted stays.
    cats = "Maya and family have two cats, Luna and Pip."
    assert _ends(died, cats)
    assert unlisted(detect(died, "Maya"), cats) == "Maya and family have a cat named Luna."
    three = "Maya has three dogs: Rex, Pip and Bo."
    assert unlisted(detect(died, "Maya"), three) == "Maya has two dogs, Rex and Bo."
    named = "Maya's rabbits are named Pip and Clover."
    assert unlisted(detect(died, "Maya"), named) == "Maya's rabbit is named Clover."
    assert not _ends(died, "Maya walks Pip, Rex and Bo every morning.")
    # Given away, the same ("two cats and Luna" was kept).
    rehomed = detect("Maya and family had to rehome Pip.", "Maya")
    assert unlisted(rehomed, cats) == "Maya and family have a cat named Luna."
    assert _ends(died, "Maya and family have a cat named Pip.")
    # A fact told of them by name.
    assert _ends(died, "Pip is 14 and has kidney disease.")
    assert not _ends(died, "Luna is 14 and has kidney disease.")


def test_a_switch_said_of_a_member_or_of_someone_named() -> None:
    named = "Maya said: Leo switched from swimming to karate."
    assert _ends(named, "Maya's son Leo has swim practice on Mondays.")
    assert not _ends(named, "Maya's son Ben has swim practice on Mondays.")
    assert not _ends(named, "Maya swims on Mondays.")
    member = "Maya's son switched from piano to drums."
    assert _ends(member, "Maya's son takes piano lessons.")
    assert not _ends(member, "Maya takes piano lessons.")


def test_the_way_a_thing_is_done_is_the_thing() -> None:
    assert _ends("Maya quit yoga.", "Maya takes yoga classes twice a week.")
    assert _ends("Maya quit paleo.", "Maya follows a paleo diet.")
    assert not _ends("Maya got over the flu.", "Maya got a flu shot.")


def test_a_food_had_again_ends_only_an_allergy_or_avoidance_of_it() -> None:
    again = "Maya can eat eggs again."
    assert _ends(again, "Maya is allergic to eggs.")
    assert _ends(again, "Maya avoids eggs because they make Maya sick.")
    assert not _ends(again, "Maya loves omelettes and eggs.")
    assert not _ends(again, "Maya and family buy eggs from the farm stand.")
    assert not _ends(again, "Maya is allergic to peanuts.")


def test_a_drug_stopped_ends_its_dose_said_with_how_often() -> None:
    stopped = "Maya's cardiologist stopped the Eliquis."
    assert _ends(stopped, "Maya takes 5 mg of Eliquis twice a day.")
    assert not _ends(stopped, "Maya takes 10 mg of lisinopril.")


def test_a_medicine_ended_by_its_brand_or_its_generic_name_is_the_same_medicine() -> None:
    # A brand and its generic are one substance (``kb.medicine_names``).
    assert _ends("Maya's doctor stopped the ibuprofen.", "Maya takes Advil for back pain.")
    assert _ends("Maya stopped taking Tylenol.", "Maya takes paracetamol every night.")
    assert _ends("Maya is off Zoloft now.", "Maya is on 50 mg of sertraline.")
    assert not _ends("Maya's doctor stopped the ibuprofen.", "Maya takes Tylenol for headaches.")
    assert not _ends("Maya is off Zoloft now.", "Maya takes Lexapro.")


def test_a_drug_named_before_the_form_it_is_taken_in_is_the_drug() -> None:
    switched = "Maya's doctor switched Maya from Ventolin to a daily Symbicort inhaler."
    assert _ends(switched, "Maya uses an albuterol inhaler when Maya runs.")
    # A drug before another noun still only modifies it.
    assert not _ends("Maya stopped taking ibuprofen.", "Maya has an ibuprofen allergy.")


def test_a_switch_of_drug_said_by_whose_doctor_made_it() -> None:
    raj = "Maya said: Raj's doctor switched him from Januvia to Ozempic."
    assert _ends(raj, "Maya's husband Raj takes Januvia.")
    assert not _ends(raj, "Maya takes Januvia.")
    # The old drug unsaid: the one of the same kind that person takes.
    son = "Maya's son's doctor switched him to Vyvanse."
    assert _ends(son, "Maya's son has ADHD and takes Adderall.")
    assert not _ends(son, "Maya takes Adderall.")
    assert _ends("Maya switched to Zoloft.", "Maya takes Lexapro.")
    assert not _ends("Maya switched to Zoloft.", "Maya takes lisinopril.")
    assert not _ends("Maya switched to Zoloft.", "Maya's husband takes Lexapro.")
    assert detect("Maya switched to part-time.", "Maya") is None  # not a drug


def test_stopping_a_drug_or_a_food_is_no_end_of_an_allergy_to_it() -> None:
    allergy = "Maya is allergic to ibuprofen."
    for said in (
        "Maya stopped ibuprofen.",
        "Maya is off ibuprofen now.",
        "Maya's doctor told Maya to stop taking ibuprofen.",
        "Maya switched from ibuprofen to Tylenol.",
    ):
        assert not _ends(said, allergy), said
        assert _ends(said, "Maya takes ibuprofen daily."), said
    assert not _ends("Maya gave up gluten.", "Maya avoids gluten.")
    # A drug taken for allergies is no allergy to it.
    assert _ends("Maya stopped taking Zyrtec.", "Maya takes Zyrtec for her seasonal allergies.")
    assert _ends("Maya got over Maya's ibuprofen allergy.", allergy)


def test_a_value_down_or_up_to_and_a_habit_said_free_of() -> None:
    assert _ends("Maya's A1C is down to 6.4.", "Maya's A1C was 7.1 at the last checkup.")
    assert _ends("Maya's rent is up to $1,500.", "Maya's rent is $1,400 a month.")
    assert _ends("Maya's blood pressure is now 125/80.", "Maya's blood pressure is 150/95.")
    assert detect("It is up to Maya to decide.", "Maya") is None
    # "up to" after a verb of someone else's is no value of the words before it.
    moved = detect("Maya said: the trainer moved Maya up to 40 pounds on the bench.", "Maya")
    assert moved is None or "trainer" not in moved.content
    assert _ends("Maya has been smoke-free for a month now!", "Maya is a smoker.")
    assert _ends("Maya has been alcohol-free since January.", "Maya drinks alcohol on weekends.")
    assert not _ends("Maya is caffeine-free now.", "Maya avoids caffeine.")
    assert detect("Maya has a free trial of a streaming service.", "Maya") is None


def test_an_age_reached_by_someone_in_a_list_of_ages() -> None:
    turned = detect("Maya said: Ruby turned 3 yesterday.", "Maya")
    listed = "Maya has two kids, Eli who is 4 and Ruby who is 2."
    assert turned is not None and correction_match(turned, listed, "Maya")
    assert reaged(turned, listed) == "Maya has two kids, Eli who is 4 and Ruby who is 3."
    assert reaged(turned, "Maya's kids are Eli (4) and Ruby (2).") == (
        "Maya's kids are Eli (4) and Ruby (3)."
    )
    assert not correction_match(turned, "Maya's friend Ruby is 2 hours away.", "Maya")
    assert reaged(turned, "Maya's daughter Ruby is 2.") == "Maya's daughter Ruby is 2."


def test_a_debt_paid_off_ends_the_debt_not_the_thing() -> None:
    paid = "Maya finally paid off the car."
    assert _ends(paid, "Maya has a car loan with 2 years left.")
    assert not _ends(paid, "Maya drives a 2015 Honda Civic car.")
    assert _ends(
        "Maya paid off Maya's student loans!", "Maya owes $12,000 on Maya's student loans."
    )
    assert detect("Maya's hard work paid off.", "Maya") is None


def test_a_standing_time_moved_and_a_weight_that_is_no_age() -> None:
    moved = "Maya's therapy moved to Thursdays at 4pm."
    assert _ends(moved, "Maya has a standing Tuesday therapy appointment at 5pm.")
    assert not _ends(moved, "Maya's piano lesson is on Tuesdays at 5pm.")
    heavier = "Maya said: Rex is up to 68 pounds."
    assert _ends(heavier, "Maya's dog Rex weighs 60 pounds.")
    assert not _ends(heavier, "Maya's dog Rex is 3.")


def test_a_drug_the_subject_can_take_again_ends_the_allergy_to_it() -> None:
    cleared = "Maya's allergist cleared Maya, Maya can take amoxicillin now."
    assert _ends(cleared, "Maya is allergic to amoxicillin.")
    assert not _ends(cleared, "Maya takes amoxicillin for an ear infection.")


def test_someone_who_moved_out_no_longer_lives_with_the_household() -> None:
    moved = "Maya said: Dana found an apartment and moved out."
    assert _ends(
        moved, "Maya's sister Dana is staying with Maya and family until she finds a place."
    )
    assert not _ends(moved, "Maya's sister Dana lives in Denver.")
    assert not _ends("Maya's son moved out in June.", "Maya's sister Dana lives with Maya.")
    assert detect("Maya moved out.", "Maya") is None  # of where, not said
    # Why or where to, after "moved out"; a name before its verb is no modifier.
    gone = "Maya said: Noah moved out to start college in Vermont."
    assert _ends(gone, "Maya's son Noah lives at home with Maya and family.")
    assert _ends(gone, "Maya's son Noah lives with Maya and family.")
    assert not _ends(gone, "Maya's son Noah plays the cello.")
    # Quitting a sport ends playing on its team.
    assert _ends("Maya said: Lily quit soccer.", "Maya's daughter Lily plays on the soccer team.")


def test_a_drug_stopped_by_a_members_or_someone_nameds_doctor() -> None:
    mom = "Maya's mom's cardiologist took her off Eliquis after the ablation."
    assert _ends(mom, "Maya's mom takes Eliquis for her AFib.")
    assert not _ends(mom, "Maya takes Eliquis.")
    # Someone else's doctor is not the speaker's: the drug stopped is theirs.
    raj = "Maya said: Raj's doctor stopped his metformin."
    assert _ends(raj, "Maya's husband Raj takes metformin.")
    assert not _ends(raj, "Maya takes metformin.")


def test_what_a_change_just_told_ends_with_no_more() -> None:
    transplant = "Maya's husband got a kidney transplant, no more dialysis!"
    assert _ends(transplant, "Maya's husband goes to dialysis at the kidney center.")
    assert not _ends(transplant, "Maya is on dialysis.")
    jobs = "Maya's husband changed jobs, so no more travel."
    assert _ends(jobs, "Maya's husband travels for work every other week.")
    # Not after what changes nothing: "no more milk" is milk run out.
    assert detect("Maya went to the store, no more milk.", "Maya") is None


def test_a_thing_now_had_ends_only_a_fact_of_having_none() -> None:
    bought = "Maya finally bought a car, a used Prius."
    assert _ends(bought, "Maya doesn't have a car, Maya bikes everywhere.")
    assert not _ends(bought, "Maya drives a Civic.")
    assert _ends("Maya and family adopted a dog!", "Maya and family have no dog.")
    assert detect("Maya bought a car seat.", "Maya") is None  # a car seat, not a car
    assert detect("Maya got a hole in one!", "Maya") is None


def test_braces_a_member_got_off_end_hers() -> None:
    off = "Maya's daughter got her braces off today!"
    assert _ends(off, "Maya's daughter has braces.")
    assert not _ends(off, "Maya has braces.")


def test_a_prescriber_telling_the_subject_to_stop_a_drug_ends_it() -> None:
    told = "Maya's doctor told Maya to stop ibuprofen because of Maya's kidneys."
    assert _ends(told, "Maya takes Advil most days.")
    assert _ends("Maya's psychiatrist wants Maya to come off the Xanax.", "Maya takes Xanax.")
    # Not a drug, or a dose cut rather than stopped: nothing ends.
    assert detect("Maya's doctor told Maya to stop drinking coffee.", "Maya") is None
    assert detect("Maya's doctor cut back Maya's Advil.", "Maya") is None


def test_a_part_healed_ends_only_an_injury_of_it() -> None:
    healed = "Maya's wrist has healed completely."
    assert _ends(healed, "Maya has a broken wrist, it's in a cast.")
    assert _ends(healed, "Maya has a sprained wrist from tennis.")
    assert not _ends(healed, "Maya wears a smartwatch on Maya's left wrist.")
    assert not _ends(healed, "Maya has a broken ankle.")


def test_a_birth_ends_the_pregnancy_of_who_gave_birth() -> None:
    household = "Maya and family had the baby!"
    assert _ends(household, "Maya is 8 weeks pregnant.")
    assert _ends(household, "Maya's wife Leila is 7 months pregnant.")
    assert _ends(household, "Maya and family are expecting a baby in March.")
    assert not _ends(household, "Maya's sister is pregnant.")
    assert not _ends(household, "Maya's daughter is pregnant with her first.")
    assert _ends("Maya's sister gave birth last night.", "Maya's sister is pregnant.")
    assert not _ends("Maya's sister gave birth last night.", "Maya is 8 weeks pregnant.")
    # What the baby left as it was: not a pregnancy.
    assert not _ends(household, "Maya and family painted the nursery yellow.")


def test_a_child_born_said_with_which_one_and_a_name_set_off_is_a_birth() -> None:
    born = "Maya's second daughter, Ava, was born on Tuesday!"
    assert _ends(born, "Maya's wife is pregnant with Maya's second.")
    assert not _ends(born, "Maya's sister is pregnant.")
    # Told in passing, where, or long ago: no birth now.
    for said in (
        "Maya's first daughter, Ava, was born when Maya lived in Ohio!",
        "Maya's second son, Leo, was born in Boston!",
        "Maya's second daughter, Ava, was born in 2015!",
    ):
        assert detect(said, "Maya") is None, said


def test_a_course_of_a_drug_finished_ends_the_drug() -> None:
    # As the writer keeps "I finished my course": the speaker named ("her" is another's).
    finished = "Maya finished Maya's course of amoxicillin."
    assert _ends(finished, "Maya is on amoxicillin for 10 days.")
    assert not _ends(finished, "Maya takes lisinopril.")
    assert _ends("Maya finished her course of amoxicillin.", "Maya's mom is on amoxicillin.")
    assert _ends("Maya and family gave away their cat Milo.", "Maya has a cat named Milo.")


def test_a_new_value_is_itself_what_a_later_ending_ends() -> None:
    # A change told as an event still gives the dose taken now.
    assert _ends(
        "Maya stopped taking sertraline.", "The doctor bumped Maya's sertraline up to 100 mg."
    )
    assert _ends(
        "Maya stopped taking metformin.", "Maya's doctor raised Maya's metformin to 1000 mg."
    )
    assert not _ends("Maya stopped taking sertraline.",
                     "The doctor bumped Maya's lisinopril up to 20 mg.")  # fmt: skip
    assert not _ends("Maya stopped taking sertraline.",
                     "The doctor bumped Maya's husband's sertraline up to 100 mg.")  # fmt: skip


def test_what_is_taken_ends_however_it_was_said() -> None:
    assert _ends("Maya doesn't need the cane anymore.", "Maya uses a cane to get around.")
    assert _ends("Maya stopped taking lisinopril.", "Maya is on lisinopril.")
    assert _ends("Maya's doctor switched Maya from lisinopril to losartan.",
                 "Maya takes lisinopril for Maya's blood pressure.")  # fmt: skip
    # *have* is kept: not having a cat does not end an allergy to cats.
    assert not _ends("Maya doesn't have a cat anymore.", "Maya is allergic to cats.")


def test_an_age_reached_changes_only_the_age_stated() -> None:
    assert _ends("Maya's daughter turned 8 today!", "Maya's daughter is 7.")
    assert _ends("Maya's daughter turned 8 today!", "Maya's daughter is 7 years old.")
    assert _ends("Maya turned 40 last week.", "Maya is 39.")
    # A sentence that says more than the age, or another member's age, stays.
    assert not _ends("Maya's daughter turned 8 today!", "Maya's daughter is 7 and loves soccer.")
    assert not _ends("Maya's daughter turned 8 today!", "Maya's son is 7.")
    assert not _ends("Maya turned 5 pages.", "Maya's daughter is 7.")


def test_a_request_to_forget_names_whose_fact_it_is() -> None:
    # "my dad's surgery" is the father's fact, which only what names him may end.
    said = "Please delete what Maya said about Maya's dad's surgery."
    assert detect(said, "Maya") == Retraction("forget", "delete", "dad surgery")
    assert _ends(said, "Maya's dad had knee surgery in March.")
    # "forget my X" asks to forget when the turn says not to keep it; chat filler ends it.
    found = detect("Forget Maya's shoe size, no need to have that saved.", "Maya")
    assert found is not None and (found.kind, found.content) == ("forget", "shoe size")
    assert detect("Forget Maya's keys, Maya found them.", "Maya") is None
    found = detect("Forget the part about Maya's speeding ticket lol", "Maya")
    assert found is not None and found.content == "speeding ticket"


def test_a_request_to_forget_ends_what_it_names_even_a_past_event() -> None:
    assert _ends("Please forget that Maya is vegetarian.", "Maya is vegetarian.")
    assert _ends("Forget what Maya said about the lawsuit.", "Maya lost a lawsuit last year.")
    assert not _ends("Please forget that Maya is vegetarian.", "Maya's sister is vegan.")


def test_a_parting_ends_the_facts_that_tell_the_partner_as_one() -> None:
    parting = "Maya's husband Tom and Maya separated in May."
    assert _ends(parting, "Maya is married to Tom.")
    assert _ends(parting, "Maya's husband Tom is a teacher.")
    assert _ends(parting, "Maya has a boyfriend named Tom.")
    assert _ends(parting, "Maya lives in Chicago with Maya's husband Tom.")
    assert not _ends(parting, "Maya plays tennis with Tom.")
    assert not _ends(parting, "Maya's sister's husband Tom is a teacher.")


def test_a_service_cancelled_and_someone_no_longer_seen() -> None:
    assert _ends("Maya cancelled Spotify.", "Maya has a Spotify subscription.")
    assert _ends("Maya quit the gym.", "Maya has a gym membership.")
    assert not _ends("Maya cancelled Spotify.", "Maya listens to Spotify playlists.")
    seen = "Maya stopped seeing Dr. Okafor."
    assert _ends(seen, "Maya has a monthly session with Maya's therapist, Dr. Okafor.")
    assert _ends(seen, "Maya has a call with Dr. Okafor every Tuesday.")
    assert not _ends(seen, "Dr. Okafor diagnosed Maya with asthma.")  # no meeting
    assert not _ends("Maya stopped seeing Tom.", "Maya went hiking with Tom last week.")


def test_a_plan_called_off_ends_the_plan_not_one_carried_out() -> None:
    off = "The camping trip is off, Maya hurt her back."
    assert _ends(off, "Maya is planning a camping trip in July.")
    assert not _ends(off, "Maya went on a camping trip in 2019.")
    assert not _ends(off, "Maya's sister is planning a camping trip.")  # not Maya's


def test_sober_and_back_at_work_end_only_their_own_kind_of_fact() -> None:
    sober = "Maya has been sober for a year."
    assert _ends(sober, "Maya drinks two beers most nights.")
    assert not _ends(sober, "Maya drinks oat milk every morning.")  # no alcohol
    assert not _ends(sober, "Maya's brother drinks a lot of beer.")  # not Maya's
    assert not _ends(sober, "Maya used to drink a lot of wine.")  # told as the past
    assert _ends("Maya's brother has been sober for a year.", "Maya's brother drinks beer.")
    assert not _ends("Maya's brother has been sober for a year.", "Maya drinks wine.")
    back = "Maya is back at work this week."
    assert _ends(back, "Maya is on medical leave until March.")
    assert _ends(back, "Maya is unemployed and looking.")
    assert not _ends(back, "Maya's husband is on paternity leave.")
    assert not _ends(back, "Maya was unemployed for a year in 2015.")


def test_remission_ends_a_cancer_and_leaving_a_group_ends_being_in_it() -> None:
    remission = "Maya's mom is in remission now."
    assert _ends(remission, "Maya's mom has ovarian cancer.")
    assert not _ends(remission, "Maya's mom has diabetes.")  # no disease that remits
    assert not _ends(remission, "Maya has melanoma.")  # not Maya's own
    left = "Maya left the book club in March."
    assert _ends(left, "Maya is in a book club that meets monthly.")
    assert not _ends("Maya left Deloitte in May.", "Maya is in a book club.")  # an employer
    emma = "Maya said: Emma left the orchestra to focus on swimming."
    assert _ends(emma, "Maya's daughter Emma plays violin in the school orchestra.")
    assert not _ends(emma, "Maya plays cello in the community orchestra.")  # not Emma's


def test_what_was_away_got_back_a_debt_caught_up_a_job_found_a_state_over() -> None:
    back = "Maya finally got Maya's passport back."
    assert _ends(back, "Maya's passport is suspended.")
    assert not _ends(back, "Maya's passport expires in 2030.")  # nothing away
    assert _ends("Maya got Maya's car back.", "Maya's car is in the shop.")
    assert not _ends("Maya got Maya's car back.", "Maya drives a blue Subaru.")  # not away
    caught = "Maya caught up on the rent."
    assert _ends(caught, "Maya is two months behind on rent.")
    assert not _ends(caught, "Maya pays $1,400 rent.")
    found = "Maya landed a job at the clinic."
    assert _ends(found, "Maya is looking for a new job.")
    assert _ends(found, "Maya is unemployed.")
    assert not _ends(found, "Maya's husband is job hunting.")  # not Maya's
    assert _ends("Maya started a new job at Acme.", "Maya is job hunting.")
    over = "Maya's parole ended last week."
    assert _ends(over, "Maya is on parole until March.")
    assert not _ends(over, "Maya was on parole in 2019.")
    order = "The restraining order expired."
    assert _ends(order, "Maya has a restraining order against Maya's ex.")


def test_walking_without_an_aid_ends_using_it_not_a_walk_without_something() -> None:
    crutches = "Maya is finally walking without crutches!"
    assert _ends(crutches, "Maya is on crutches after knee surgery.")
    assert not _ends(crutches, "Maya's dad uses crutches.")  # not Maya's
    wheelchair = "Maya's mom is walking without the wheelchair now."
    assert _ends(wheelchair, "Maya's mom uses a wheelchair since her stroke.")
    assert not _ends(wheelchair, "Maya uses a wheelchair.")  # not the mom's
    assert _ends("Maya's dad is getting around without his walker.", "Maya's dad uses a walker.")
    assert detect("Maya tried walking without the cane today but it hurt.", "Maya") is None
    assert detect("Maya went for a walk without Maya's phone.", "Maya") is None


def test_walking_on_ones_own_again_ends_whichever_aid_they_used() -> None:
    alone = "Maya's dad is walking on his own now."
    assert _ends(alone, "Maya's dad uses a walker since his stroke.")
    assert not _ends(alone, "Maya's son uses a walker.")  # not the dad's
    assert not _ends(alone, "Maya's dad uses a wheelchair for long distances.")  # kept so
    assert not _ends(alone, "Maya's dad stopped his evening walks.")  # no aid
    assert _ends("Maya is finally walking unaided.", "Maya is in a wheelchair after the fall.")
    for no_aid_given_up in (
        "Maya's grandma is walking again after her hip surgery.",  # often with the walker
        "Maya's son is walking to school on his own now.",
        "Maya's dad tried walking on his own today.",
        "Maya's son walked home on his own.",
    ):
        assert detect(no_aid_given_up, "Maya") is None, no_aid_given_up


def test_military_service_ended_ends_serving_not_a_shift_or_a_hospital_stay() -> None:
    navy = "Maya's husband is in the Navy."
    for ended in (
        "Maya's husband left the Navy in March.",
        "Maya's husband was honorably discharged last week.",
        "Maya's husband finished his service and he's home for good.",
    ):
        assert _ends(ended, navy), ended
        assert not _ends(ended, "Maya's brother is in the Navy."), ended  # not the brother's
    assert _ends("Maya got out of the Army.", "Maya is stationed in Germany with the Army.")
    assert _ends("Maya left the Army.", "Maya works for the Army as an engineer.")
    assert not _ends("Maya's husband left the Navy.", "Maya's husband likes the Navy team.")
    for no_service_ended in (
        "Maya's son was discharged from the hospital after his knee surgery.",
        "Maya's husband was discharged yesterday.",  # as often from a hospital
        "Maya's husband finished his shift at the base.",
        "Maya's husband left the Navy base for the weekend.",
    ):
        found = detect(no_service_ended, "Maya")
        assert found is None or not _ends(no_service_ended, navy), no_service_ended


def test_an_illness_gone_ends_having_it_not_a_liking() -> None:
    gone = "Maya said: The snow is gone."
    assert not _ends(gone, "Maya loves snow.")
    rash = "Maya said: The rash cleared up."
    assert _ends(rash, "Maya has a rash on her arm.")
    assert not _ends(rash, "Maya had a rash in 2019.")  # told as the past


def test_a_change_names_its_thing_by_a_word_of_its_stem() -> None:
    raised = "Maya raised Maya's 401k contribution to 8%."
    assert _ends(raised, "Maya contributes 5% to Maya's 401k.")
    assert not _ends(raised, "Maya donates 5% to charity.")


def test_a_pet_that_never_came_back_ends_its_facts_not_a_persons() -> None:
    gone = "Maya said: Pepper got out and never came back."
    assert _ends(gone, "Maya's cat Pepper is 6.")
    assert not _ends(gone, "Maya's friend Pepper works at the bakery.")  # no pet


def test_what_a_parting_leaves_told_of_a_memory() -> None:
    parting = detect("Tom and Maya split up.", "Maya")
    assert parted(parting, "Maya's husband Tom is a teacher.", "Maya") == "Tom is a teacher."
    lives = "Maya lives in Chicago with Maya's husband Tom."
    assert parted(parting, lives, "Maya") == "Maya lives in Chicago."
    # Another ending leaves the memory as it was.
    assert parted(detect("Maya quit smoking.", "Maya"), lives, "Maya") == lives
    # Living together ends with the parting: where stays, the living with them does not.
    together = "Maya's husband Tom and Maya live together in Denver."
    assert parted(parting, together, "Maya") == "Maya lives in Denver."
    # Nothing but the living with them: it ends whole, no "Maya lives." is left.
    for alone in (
        "Maya lives with Maya's husband Tom.",
        "Maya and Maya's husband Tom live together.",
        "Maya lives with Maya's husband Tom and his cat.",
    ):
        assert parted(parting, alone, "Maya") == alone
    both = "Maya's husband Tom and Maya live together. Maya works at a bakery."
    assert parted(parting, both, "Maya") == "Maya works at a bakery."


def test_the_retracted_content_must_be_the_fact_itself() -> None:
    assert _ends("Maya quit smoking.", "Maya smokes a pack a day.")
    assert not _ends("Maya quit Maya's job.", "Maya smokes a pack a day.")
    assert _ends("Maya doesn't like olives anymore.", "Maya likes olives on pizza.")
    assert not _ends("Maya doesn't like olives anymore.", "Maya likes olive oil.")  # a modifier
    assert _ends("Maya got over the flu.", "Maya has the flu.")
    assert not _ends("Maya got over the flu.", "Maya got a flu shot.")
    assert not _ends("Maya is no longer allergic to penicillin.", "Maya is allergic to shellfish.")
    assert not _ends("Maya moved out of Boston.", "Maya visited Boston last year.")  # an event
    assert _ends("Maya moved out of Boston.", "Maya lives in Boston.")
    assert not _ends("Maya broke up with Tom.", "Tom is Maya's brother.")  # not Maya's own
    assert _ends("Maya was wrong, it's 40 mg.", "Maya takes 20 mg of lisinopril.")
    assert not _ends("Maya was wrong, it's 40 mg.", "Maya takes 40 mg of lisinopril.")


# -- closing memories, with the real embedder (``mem``, tests/write/conftest.py) ------------------
def _said(mem: Memory, text: str, when: str) -> MemoryEntry:
    [entry] = mem.add(text, user_id="maya", timestamp=when).added
    return entry


def _now(mem: Memory) -> dict[str, MemoryEntry]:
    return {m.text: m for m in mem.get_all(user_id="maya", include_superseded=True)}


@pytest.mark.slow
def test_a_retraction_closes_the_fact_and_stays_as_information(mem: Memory) -> None:
    allergy = _said(mem, "I'm allergic to penicillin.", "2023-01-10")
    retraction = _said(mem, "I'm not allergic to penicillin anymore.", "2023-06-01")
    old = mem.get(allergy.id, user_id="maya")
    assert (old.status, old.superseded_by) == ("superseded", retraction.id)
    assert old.valid_until == retraction.valid_from == "2023-06-01T00:00:00"
    assert mem.history(allergy.id, user_id="maya")[-1]["event"] == "RETRACT"
    hits = mem.search("penicillin", user_id="maya", k=5).hits
    assert hits[0].id == retraction.id
    assert allergy.id not in {h.id for h in hits}


@pytest.mark.slow
def test_a_no_to_the_assistants_still_closes_the_fact_it_ends(mem: Memory) -> None:
    # "Do you still smoke?" "No, quit in March." (``answers``: "I do not smoke anymore")
    # ends "I smoke.": the old fact must not sit beside the new one as if both held.
    smokes = _said(mem, "I smoke.", "2023-01-10")
    said = [
        {"role": "assistant", "content": "Do you still smoke?"},
        {"role": "user", "content": "No, quit in March."},
    ]
    [ended] = mem.add(said, user_id="maya", timestamp="2023-06-01").added
    assert ended.text == "maya does not smoke anymore (quit in March)."
    assert mem.get(smokes.id, user_id="maya").superseded_by == ended.id


@pytest.mark.slow
def test_a_dose_of_the_same_drug_said_in_other_words_replaces_the_dose(mem: Memory) -> None:
    # The two sentences are far apart by meaning; the drug they name is the same.
    raised = _said(mem, "My psychiatrist bumped my sertraline to 100 mg.", "2026-02-05")
    other = _said(mem, "My rent went up to $1,200.", "2026-02-05")
    now = _said(mem, "I'm weaning off sertraline now, down to 25.", "2026-04-05")
    assert mem.get(raised.id, user_id="maya").superseded_by == now.id
    assert mem.get(other.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_parting_keeps_what_the_memory_said_besides_the_couple(mem: Memory) -> None:
    home = _said(mem, "I live in Chicago with my wife Priya.", "2026-01-05")
    allergy = _said(mem, "I'm allergic to shellfish.", "2026-01-05")
    mem.add("Priya and I split up last month.", user_id="maya", timestamp="2026-03-02")
    assert mem.get(home.id, user_id="maya").status == "superseded"
    assert mem.get(allergy.id, user_id="maya").status == "active"
    now = {m.text for m in mem.get_all(user_id="maya")}
    assert "maya lives in Chicago." in now
    # Not that Priya is still the wife, by a sentence that names her as one.
    assert not any("wife" in text for text in now)


@pytest.mark.slow
def test_an_age_reached_keeps_the_other_ages_of_the_list(mem: Memory) -> None:
    kids = _said(mem, "I have two kids, Eli who is 4 and Ruby who is 2.", "2026-01-05")
    mem.add("Ruby turned 3 yesterday.", user_id="maya", timestamp="2026-06-02")
    assert mem.get(kids.id, user_id="maya").status == "superseded"
    now = {m.text for m in mem.get_all(user_id="maya")}
    assert "maya has two kids, Eli who is 4 and Ruby who is 3." in now


@pytest.mark.slow
def test_a_dose_said_by_the_generic_name_replaces_the_dose_of_its_brand(mem: Memory) -> None:
    brand = _said(mem, "I take 100 mcg of Synthroid every morning.", "2026-01-05")
    other = _said(mem, "I take 20 mg of Lipitor at night.", "2026-01-05")
    now = _said(mem, "My levothyroxine dose went up to 125 mcg.", "2026-03-01")
    assert mem.get(brand.id, user_id="maya").superseded_by == now.id
    assert mem.get(other.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_dose_of_a_drug_said_by_its_class_replaces_the_one_drug_of_it(mem: Memory) -> None:
    # "My insulin" names the class of the one insulin taken; its words are far from the fact.
    lantus = _said(mem, "I use 20 units of Lantus at night.", "2026-01-05")
    toms = _said(mem, "My husband Tom is on 30 units of Tresiba.", "2026-01-05")
    walk = _said(mem, "I walk 20 minutes a day.", "2026-01-05")
    now = _said(mem, "My insulin is now 24 units.", "2026-03-01")
    assert mem.get(lantus.id, user_id="maya").superseded_by == now.id
    for other in (toms, walk):
        assert mem.get(other.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_dose_of_a_class_of_two_drugs_taken_replaces_neither(mem: Memory) -> None:
    # Two insulins together: which one "my insulin" means is not said.
    both = _said(mem, "I use 20 units of Lantus at night and 6 units of Humalog with meals.",
                 "2026-01-05")  # fmt: skip
    one = _said(mem, "I take 40 mg of Lipitor.", "2026-01-05")
    _said(mem, "My insulin is now 24 units.", "2026-03-01")
    assert mem.get(both.id, user_id="maya").status == "active"
    # A class with one drug of it taken is that drug.
    assert _said(mem, "My statin dose is now 20 mg.", "2026-03-02")
    assert mem.get(one.id, user_id="maya").status == "superseded"


def test_the_classes_of_drugs_are_words_for_a_class_not_a_drug() -> None:
    classes = {c for words, _ in drug_classes().values() for c in words}
    assert {"insulin", "statins", "antidepressants", "benzos"} <= classes
    assert not {"tacrolimus", "methadone", "codeine", "lantus"} & classes


@pytest.mark.slow
def test_a_pregnancy_lost_or_a_birth_told_with_a_relative_day_ends_it(mem: Memory) -> None:
    pregnant = _said(mem, "I'm 12 weeks pregnant.", "2026-01-05")
    sisters = _said(mem, "My sister Ana is pregnant with twins.", "2026-01-05")
    _said(mem, "I had a miscarriage last week.", "2026-03-01")
    assert mem.get(pregnant.id, user_id="maya").status == "superseded"
    assert mem.get(sisters.id, user_id="maya").status == "active"
    again = _said(mem, "I'm pregnant again, 10 weeks along.", "2026-09-01")
    _said(mem, "The baby came yesterday!", "2027-04-01")  # dated: "(yesterday = ... 2027)"
    assert mem.get(again.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_a_food_had_again_and_a_car_traded_in_end_what_they_end(mem: Memory) -> None:
    allergy = _said(mem, "My son Leo is allergic to eggs.", "2026-01-05")
    likes = _said(mem, "Leo loves pancakes.", "2026-01-05")
    car = _said(mem, "I drive a 2015 Honda Civic.", "2026-01-05")
    said = "Leo passed his egg challenge at the allergist, he can eat eggs now."
    kept = mem.add(said, user_id="maya", timestamp="2026-03-01").added[1:]
    _said(mem, "I traded in the Civic for a Tesla Model 3.", "2026-03-02")
    assert mem.get(allergy.id, user_id="maya").status == "superseded"
    assert [m.text for m in kept] == ["maya's son is named Leo."]  # who Leo is stays
    assert mem.get(car.id, user_id="maya").status == "superseded"
    assert mem.get(likes.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_an_age_reached_replaces_the_age_and_keeps_who_it_is(mem: Memory) -> None:
    zoe = _said(mem, "My daughter Zoe is 7.", "2026-01-05")
    mia = _said(mem, "My daughter Mia is 4.", "2026-01-05")
    # "My daughter" with two daughters' ages: whose is not said, and nothing closes.
    mem.add("My daughter turned 5.", user_id="maya", timestamp="2026-06-01")
    assert {mem.get(m.id, user_id="maya").status for m in (zoe, mia)} == {"active"}
    added = mem.add("Zoe turned 8 last week.", user_id="maya", timestamp="2027-02-01").added
    assert mem.get(zoe.id, user_id="maya").status == "superseded"
    assert mem.get(mia.id, user_id="maya").status == "active"
    assert "maya's daughter is named Zoe." in [m.text for m in added]


@pytest.mark.slow
def test_a_new_job_is_the_job_held_until_it_ends(mem: Memory) -> None:
    old = _said(mem, "I'm a data analyst at a bank.", "2026-01-05")
    new = _said(mem, "I started a new job at Stripe as a product manager.", "2026-03-01")
    assert mem.get(old.id, user_id="maya").superseded_by == new.id
    assert mem.get(new.id, user_id="maya").status == "active"
    left = _said(mem, "I got laid off.", "2026-09-01")
    assert mem.get(new.id, user_id="maya").superseded_by == left.id
    # A job held later does not undo the one left: that was still left.
    _said(mem, "I work at a bookshop now.", "2026-11-01")
    assert mem.get(left.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_thing_sold_is_no_longer_owned(mem: Memory) -> None:
    # "house" alone is far in meaning from the sentence that owns it.
    owned = _said(mem, "We own a house in Oakland.", "2026-01-05")
    sold = _said(mem, "We sold the house and moved into an apartment in Berkeley.", "2026-06-05")
    assert mem.get(owned.id, user_id="maya").superseded_by == sold.id


@pytest.mark.slow
def test_a_request_to_forget_reaches_what_itself_ended_something(mem: Memory) -> None:
    # "I quit smoking" ends the smoking; asked to forget, it leaves what is current too.
    smoked = _said(mem, "I smoke a pack a day.", "2023-01-10")
    quit = _said(mem, "I quit smoking last year.", "2024-01-10")
    mem.add("Please forget that I quit smoking.", user_id="maya", timestamp="2024-03-01")
    assert mem.get(quit.id, user_id="maya").status == "superseded"
    assert mem.get(smoked.id, user_id="maya").superseded_by == quit.id
    assert not mem.get_all(user_id="maya")


@pytest.mark.slow
def test_quitting_closes_only_what_was_quit(mem: Memory) -> None:
    smokes = _said(mem, "I smoke a pack a day.", "2023-01-10")
    job = _said(mem, "I work at the bakery on Elm Street.", "2023-01-10")
    quit = _said(mem, "I quit smoking last month.", "2023-03-01")
    assert mem.get(smokes.id, user_id="maya").superseded_by == quit.id
    assert mem.get(job.id, user_id="maya").status == "active"
    # Quitting a job ends the job held, whatever its employer, and nothing else.
    left = _said(mem, "I quit my job.", "2023-06-01")
    assert mem.get(job.id, user_id="maya").superseded_by == left.id
    assert mem.get(quit.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_leaving_a_named_employer_closes_only_that_job(mem: Memory) -> None:
    job = _said(mem, "I work at Northwind as an auditor.", "2023-01-10")
    home = _said(mem, "I live in Leeds.", "2023-01-10")
    _said(mem, "I left Leeds on Friday for a week in Rome.", "2023-03-01")
    assert _now(mem)[job.text].status == "active" and _now(mem)[home.text].status == "active"
    left = _said(mem, "I left Northwind, now I'm at a small startup.", "2023-06-01")
    assert mem.get(job.id, user_id="maya").superseded_by == left.id
    assert mem.get(home.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_negation_that_ends_nothing_closes_nothing(mem: Memory) -> None:
    _said(mem, "I like olive oil.", "2023-01-10")
    _said(mem, "I love jazz records.", "2023-01-10")
    result = mem.add("I don't like olives.", user_id="maya", timestamp="2023-06-01")
    assert result.superseded == []
    assert all(m.status == "active" for m in _now(mem).values())


@pytest.mark.slow
def test_a_correction_closes_the_corrected_value(mem: Memory) -> None:
    dose = _said(mem, "I take 20 mg of lisinopril every morning.", "2023-01-10")
    vitamin = _said(mem, "I take vitamin D every day.", "2023-01-10")
    fix = _said(mem, "I was wrong, it's 40 mg.", "2023-01-11")
    assert mem.get(dose.id, user_id="maya").superseded_by == fix.id
    assert mem.get(vitamin.id, user_id="maya").status == "active"
    assert mem.get(fix.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_changed_dose_closes_the_old_dose_only(mem: Memory) -> None:
    # Said as a change, not restated in full: the old dose must not stay current beside it.
    mine = _said(mem, "I take 500 mg of metformin twice a day.", "2023-01-10")
    his = _said(mem, "My husband takes 850 mg of metformin.", "2023-01-10")
    raised = _said(mem, "My doctor raised my metformin to 1000 mg.", "2023-03-01")
    assert mem.get(mine.id, user_id="maya").superseded_by == raised.id
    assert mem.get(his.id, user_id="maya").status == "active"
    assert mem.get(raised.id, user_id="maya").status == "active"
    hits = [h.id for h in mem.search("metformin dose", user_id="maya", k=5).hits]
    assert raised.id in hits and mine.id not in hits


@pytest.mark.slow
def test_stopping_a_drug_closes_its_changed_dose_too(mem: Memory) -> None:
    first = _said(mem, "I take 50 mg of sertraline every morning.", "2026-02-01")
    raised = _said(mem, "The doctor bumped my sertraline up to 100 mg.", "2026-03-15")
    stopped = _said(mem, "I stopped taking sertraline.", "2026-07-01")
    now = _now(mem)
    assert now[first.text].superseded_by == raised.id
    assert now[raised.text].superseded_by == stopped.id
    assert [m.text for m in mem.get_all(user_id="maya")] == [stopped.text]


@pytest.mark.slow
def test_an_ending_said_of_a_named_member_closes_their_fact(mem: Memory) -> None:
    dog = _said(
        mem, "Our dog Biscuit is 12 now and has arthritis, so short walks only.", "2026-01-03"
    )
    allergy = _said(mem, "My son Theo has an egg allergy, we carry an EpiPen.", "2026-01-10")
    pickup = _said(
        mem, "I pick up my daughter Ava from swim practice every Tuesday at 5.", "2026-02-01"
    )
    mem.add("Sad news: Biscuit passed away last night.", user_id="maya", timestamp="2026-04-02")
    mem.add("Good news, Theo outgrew his egg allergy!", user_id="maya", timestamp="2026-05-20")
    mem.add(
        "Ava quit swimming, she's doing gymnastics now.", user_id="maya", timestamp="2026-06-05"
    )
    now = _now(mem)
    assert all(now[m.text].status == "superseded" for m in (dog, allergy, pickup))


@pytest.mark.slow
def test_a_birth_and_a_finished_course_close_what_they_end(mem: Memory) -> None:
    pregnant = _said(mem, "My wife Leila is 7 months pregnant with our second.", "2026-01-20")
    sister = _said(mem, "My sister is pregnant too!", "2026-01-21")
    drug = _said(mem, "I'm on amoxicillin for an ear infection.", "2026-02-10")
    mem.add("The baby came early! Our daughter Noor was born on Feb 28.", user_id="maya",
            timestamp="2026-03-02")  # fmt: skip
    mem.add("I finished my course of amoxicillin.", user_id="maya", timestamp="2026-03-05")
    now = _now(mem)
    assert now[pregnant.text].status == "superseded" and now[drug.text].status == "superseded"
    assert now[sister.text].status == "active"


@pytest.mark.slow
def test_a_value_that_holds_now_replaces_the_closest_fact_of_the_same_person(
    mem: Memory,
) -> None:
    # No change verb and other words than the fact: the meaning decides, for one fact.
    parking = _said(mem, "I pay $60 a month for parking at work.", "2023-01-10")
    commute = _said(mem, "My commute is 20 minutes by bike.", "2023-01-10")
    now = _said(mem, "My parking at the office costs $75 a month now.", "2023-04-01")
    assert mem.get(parking.id, user_id="maya").superseded_by == now.id
    assert mem.get(commute.id, user_id="maya").status == "active"
    # Another person's new value leaves the speaker's own alone.
    _said(mem, "My husband's commute is 50 minutes now.", "2023-05-01")
    assert mem.get(commute.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_correction_naming_the_old_value_closes_it(mem: Memory) -> None:
    yoga = _said(mem, "My yoga class is on Mondays.", "2023-01-10")
    fixed = _said(mem, "Sorry, I got that wrong: yoga is on Thursdays, not Mondays.", "2023-01-11")
    assert mem.get(yoga.id, user_id="maya").superseded_by == fixed.id


@pytest.mark.slow
def test_a_request_to_forget_closes_the_fact_and_itself(mem: Memory) -> None:
    diet = _said(mem, "I'm vegetarian.", "2023-01-10")
    cat = _said(mem, "I have a cat named Luna.", "2023-01-10")
    asked = mem.add("Can you forget that I'm vegetarian?", user_id="maya", timestamp="2023-02-01")
    [request] = asked.added
    assert set(asked.superseded) == {diet.id, request.id}
    assert mem.get(diet.id, user_id="maya").superseded_by == request.id
    current = {m.id for m in mem.get_all(user_id="maya")}
    assert current == {cat.id}  # neither the fact nor the request that names it
    assert {h.id for h in mem.search("vegetarian", user_id="maya", k=5).hits} == {cat.id}
    assert mem.history(diet.id, user_id="maya")[-1]["event"] == "RETRACT"
    # The request closed itself: its history ends there, and no past view holds it.
    rows = mem.history(request.id, user_id="maya")
    assert [r["event"] for r in rows] == ["ADD", "RETRACT"]
    assert [c["id"] for c in rows[0]["chain"]] == [diet.id, request.id]
    assert request.id not in {m.id for m in mem.get_all(user_id="maya", as_of="2023-02-01")}


@pytest.mark.slow
def test_a_death_closes_what_held_of_who_died(mem: Memory) -> None:
    dog = _said(mem, "We have a dog named Juniper.", "2023-01-10")
    walks = _said(mem, "I walk Juniper every morning before work.", "2023-01-10")
    sister = _said(mem, "My sister has a cat named Clementine.", "2023-01-10")
    gran = _said(mem, "My grandmother lives with us.", "2023-01-10")
    pie = _said(mem, "I bake my grandmother's apple pie every Thanksgiving.", "2023-01-10")
    died = _said(mem, "Juniper passed away yesterday.", "2023-05-02")
    for fact in (dog, walks):
        assert mem.get(fact.id, user_id="maya").superseded_by == died.id
    lost = _said(mem, "We lost Grandma in June.", "2023-06-20")
    assert mem.get(gran.id, user_id="maya").superseded_by == lost.id
    # Another's pet, and what the late grandmother left, stay.
    assert {m.id for m in mem.get_all(user_id="maya")} == {sister.id, pie.id, died.id, lost.id}


def test_a_death_ends_what_holds_now_of_who_died() -> None:
    died = "Maya and family lost Grandma in June."
    assert _ends(died, "Maya's grandmother lives with Maya and family.")
    # What was, and what already tells the death, are not ended again.
    assert not _ends(died, "Maya's grandmother was a nurse in the war.")
    assert not _ends(died, "Maya lights a candle for Maya's grandma, who passed away.")


@pytest.mark.slow
def test_a_later_mention_does_not_undo_a_death(mem: Memory) -> None:
    dog = _said(mem, "We have a dog named Juniper.", "2023-01-10")
    died = _said(mem, "We had to say goodbye to Juniper last week.", "2023-05-02")
    _said(mem, "I miss Juniper so much.", "2023-06-01")
    assert mem.get(died.id, user_id="maya").status == "active"
    assert mem.get(dog.id, user_id="maya").superseded_by == died.id


@pytest.mark.slow
def test_a_death_that_does_not_say_which_closes_nothing(mem: Memory) -> None:
    dogs = _said(mem, "We have a dog named Juniper and a dog named Rusty.", "2023-01-10")
    result = mem.add("Our dog died last night.", user_id="maya", timestamp="2023-05-02")
    assert result.superseded == []
    assert mem.get(dogs.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_setting_a_fact_aside_for_a_moment_forgets_nothing(mem: Memory) -> None:
    diet = _said(mem, "I'm vegetarian.", "2023-01-10")
    result = mem.add(
        "Forget that I'm vegetarian for this one dinner, it's my birthday.",
        user_id="maya",
        timestamp="2023-02-01",
    )
    assert result.superseded == []
    assert mem.get(diet.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_an_older_statement_arriving_late_is_stored_closed(mem: Memory) -> None:
    june = _said(mem, "I live in Denver now.", "2023-06-01")
    january = _said(mem, "I live in Boston.", "2023-01-10")
    assert (january.status, january.superseded_by) == ("superseded", june.id)
    assert january.valid_until == june.valid_from
    assert mem.get(june.id, user_id="maya").status == "active"
    now = [h.id for h in mem.search("Where does Maya live?", user_id="maya", k=5).hits]
    assert now[0] == june.id and january.id not in now
    then = [h.id for h in mem.search("Where does Maya live?", user_id="maya", k=5,
                                     as_of="2023-02-01").hits]  # fmt: skip
    assert then[0] == january.id and june.id not in then


@pytest.mark.slow
def test_a_late_retraction_does_not_close_a_newer_fact(mem: Memory) -> None:
    smokes = _said(mem, "I smoke a pack a day.", "2023-06-01")
    quit = _said(mem, "I quit smoking.", "2023-01-10")
    assert mem.get(smokes.id, user_id="maya").status == "active"
    assert (quit.status, quit.superseded_by) == ("superseded", smokes.id)


@pytest.mark.slow
def test_history_shows_the_chain(mem: Memory) -> None:
    boston = _said(mem, "I live in Boston.", "2022-01-10")
    denver = _said(mem, "I moved to Denver.", "2023-01-10")
    austin = _said(mem, "I moved to Austin.", "2024-01-10")
    rows = mem.history(denver.id, user_id="maya")
    assert [r["event"] for r in rows] == ["ADD", "SUPERSEDE"]
    assert rows[-1]["superseded_by"] == austin.id and rows[-1]["replaces"] == [boston.id]
    assert rows[-1]["valid_from"] == "2023-01-10T00:00:00"
    assert rows[-1]["valid_until"] == "2024-01-10T00:00:00"
    assert [c["id"] for c in rows[0]["chain"]] == [boston.id, denver.id, austin.id]


def test_retracted_needs_both_words_and_meaning() -> None:
    found = detect("Maya quit smoking.", "Maya")
    assert found is not None
    facts = [MemoryEntry("a", "maya", "Maya smokes a pack a day."),
             MemoryEntry("b", "maya", "Maya works at the bakery.")]  # fmt: skip
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.eye(len(texts), dtype=np.float32)  # nothing shares any meaning

    assert retracted(found, "Maya", facts, embed) == []
    assert calls == [["smoking", "smokes a pack a day."]]  # the bakery failed on words


# -- what is not asserted -------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "If they raised Maya's rent to $2,400, Maya would move.",
        "If Maya quit Maya's job, Maya would travel for a year.",
        "Even if they cut Maya's hours to 20 a week, Maya would stay.",
        "Unless Maya's rent goes up to $2,000, Maya is staying.",
        "Maya would quit Maya's job tomorrow if Maya could.",
        "When Maya quits smoking, Maya will reward Maya with a trip.",
        "Maya will quit smoking next month.",
        "Once Maya's dose goes up to 100 mg Maya should feel better.",
        "Maya wants to quit Maya's job.",
    ],
)
def test_a_condition_a_time_to_come_or_a_wish_ends_nothing(text: str) -> None:
    assert detect(text, "Maya") is None


@pytest.mark.parametrize(
    ("text", "kind", "content"),
    [
        ("Maya quit smoking, so if you hear of a good gum, let Maya know.", "ending", "smoking"),
        ("Not sure if Maya told you, but Maya quit smoking.", "ending", "smoking"),
        ("Maya quit smoking, if you can believe it.", "ending", "smoking"),
        ("Maya's rent went up to $2,000, so Maya is not sure if Maya can stay.", "change", None),
        ("Maya quit smoking and Maya will never go back.", "ending", "smoking"),
        ("When Maya quit smoking in 2019, Maya gained ten pounds.", "ending", "smoking"),
        ("Maya stopped going to the gym on Fridays.", "ending", None),
    ],
)
def test_what_a_condition_or_an_aside_leaves_is_still_said(
    text: str, kind: str, content: str | None
) -> None:
    found = detect(text, "Maya")
    assert found is not None and found.kind == kind
    assert content is None or found.content == content


def test_a_time_to_come_holds_no_slot() -> None:
    from logicmem.write.supersede import slots_of

    assert "occupation" not in slots_of("Maya will be working as a camp counselor in July.")
    assert "residence" not in slots_of("If Maya moved to Denver, Maya would need a car.")
    assert slots_of("Maya works as a camp counselor.") == {"occupation": "camp counselor"}


@pytest.mark.slow
def test_a_hypothetical_change_closes_nothing(mem: Memory) -> None:
    rent = _said(mem, "My rent is $1,700 a month.", "2026-01-05")
    job = _said(mem, "I work at the public library.", "2026-01-05")
    _said(mem, "if they put my rent up to $2,300 I'd have to move", "2026-03-01")
    _said(mem, "If I quit my job, I'd travel for a year.", "2026-03-02")
    for fact in (rent, job):
        assert mem.get(fact.id, user_id="maya").status == "active"


# -- requests to forget, in more forms ------------------------------------------------------
@pytest.mark.slow
def test_a_request_to_forget_names_a_fact_by_another_form_of_its_word(mem: Memory) -> None:
    # A compound holds the word ("sailboat": "boat"); a form of it ("failing": "failure").
    boat = _said(mem, "I keep a sailboat at the marina in Sausalito.", "2026-01-05")
    sail = _said(mem, "I love sailing on weekends.", "2026-01-05")
    kidneys = _said(mem, "My kidneys are failing.", "2026-01-05")
    _said(mem, "please forget the boat stuff", "2026-03-01")
    _said(mem, "please forget the kidney failure thing", "2026-03-01")
    for fact in (boat, kidneys):
        assert mem.get(fact.id, user_id="maya").status == "superseded"
    assert mem.get(sail.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_request_to_forget_does_not_close_a_word_merely_near_in_meaning(mem: Memory) -> None:
    # "son" and "daughter", "cat" and "dog" embed close; neither is the other.
    kids = _said(mem, "My daughter plays violin.", "2026-01-05")
    cat = _said(mem, "My cat Miso is 12.", "2026-01-05")
    _said(mem, "Please forget what I said about my son.", "2026-03-01")
    _said(mem, "Please forget what I said about my dog.", "2026-03-01")
    for fact in (kids, cat):
        assert mem.get(fact.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_request_to_forget_what_was_said_of_anyone(mem: Memory) -> None:
    # "what I said about the lawsuit" names no one: whatever the speaker told of it.
    suit = _said(mem, "My sister is in a lawsuit with her landlord.", "2026-01-05")
    home = _said(mem, "My sister lives in Ohio.", "2026-01-05")
    _said(mem, "please forget what I said about the lawsuit", "2026-03-01")
    assert mem.get(suit.id, user_id="maya").status == "superseded"
    assert mem.get(home.id, user_id="maya").status == "active"
    # A doing said alone is the speaker's own: the husband's diet stays.
    mine = _said(mem, "I'm vegetarian.", "2026-01-05")
    his = _said(mem, "My husband is vegetarian too.", "2026-01-06")
    _said(mem, "forget what I said about being vegetarian", "2026-03-01")
    assert mem.get(mine.id, user_id="maya").status == "superseded"
    assert mem.get(his.id, user_id="maya").status == "active"


def test_a_request_to_forget_said_as_a_command_or_as_stop_keeping() -> None:
    # A bare "Forget my X.", "forget about my X", "stop remembering my X": read as nothing.
    for said, content in (
        ("Forget Maya's address.", "address"),
        ("Forget about Maya's nut allergy, please.", "nut allergy"),
        ("Stop remembering Maya's medication.", "medication"),
        ("No need to keep Maya's old address.", "old address"),
        ("Please delete what Maya told you about Tom's job.", "Tom job"),
    ):
        found = detect(said, "Maya")
        assert found is not None and (found.kind, found.content) == ("forget", content), said
    # A set-aside with more to say, or forgetting as a thing done, is no request.
    for said in (
        "Forget Maya's diet, Maya is eating cake.",
        "Maya always forgets Maya's medication in the morning.",
        "Maya's doctor said to stop tracking Maya's calories.",
    ):
        assert detect(said, "Maya") is None, said


@pytest.mark.slow
def test_a_request_to_forget_names_a_fact_by_its_kind(mem: Memory) -> None:
    # "my address", "my job", "my meds": no word of the fact, and it stayed current.
    home = _said(mem, "I live at 42 Oak Street in Denver.", "2026-01-05")
    moms = _said(mem, "My mom lives at 9 Pine Road in Tucson.", "2026-01-05")
    job = _said(mem, "I work at Target as a cashier.", "2026-01-05")
    his = _said(mem, "My husband Tom works at Google.", "2026-01-05")
    drugs = [
        _said(mem, "I take metformin for my diabetes.", "2026-01-05"),
        _said(mem, "I take 10 mg of lisinopril every morning.", "2026-01-05"),
    ]
    allergy = _said(mem, "I'm allergic to penicillin.", "2026-01-05")
    for asked in ("Forget my address.", "Please forget my job.", "Forget my meds."):
        mem.add(asked, user_id="maya", timestamp="2026-03-01")
    for fact in (home, job, *drugs):
        assert mem.get(fact.id, user_id="maya").status == "superseded", fact.text
    for fact in (moms, his, allergy):
        assert mem.get(fact.id, user_id="maya").status == "active", fact.text
    mem.add(
        "Please delete what I told you about Tom's job.", user_id="maya", timestamp="2026-03-02"
    )
    assert mem.get(his.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_a_request_to_forget_that_finds_nothing_says_so(mem: Memory) -> None:
    # Two drugs, "my medication": which is not said. The request closed itself silently.
    drugs = [
        _said(mem, "I take metformin for my diabetes.", "2026-01-05"),
        _said(mem, "I take 10 mg of lisinopril every morning.", "2026-01-05"),
    ]
    result = mem.add("Forget my medication.", user_id="maya", timestamp="2026-03-01")
    [request] = result.added
    assert result.unmatched_forgets == [request.id]
    assert result.to_dict()["unmatched_forgets"] == [request.id]
    for fact in drugs:
        assert mem.get(fact.id, user_id="maya").status == "active"
    found = mem.add("Forget that I take lisinopril.", user_id="maya", timestamp="2026-03-02")
    assert found.unmatched_forgets == [] and drugs[1].id in found.superseded
    # A fact that names the kind's word is the one meant, beside another of the kind.
    weight = _said(mem, "My weight is 180 pounds.", "2026-01-05")
    goal = _said(mem, "I want to lose 20 pounds by summer.", "2026-01-05")
    asked = mem.add("Please forget my current weight.", user_id="maya", timestamp="2026-03-03")
    assert asked.unmatched_forgets == [] and weight.id in asked.superseded
    assert mem.get(goal.id, user_id="maya").status == "active"


@pytest.mark.slow
def test_a_request_to_forget_a_verb_with_its_object(mem: Memory) -> None:
    # "visiting Maya's mom": the memory wrote "my" as the user's name, still a verb's object.
    visit = _said(mem, "I'm visiting my mom in June.", "2026-01-05")
    _said(mem, "please forget what I said about the visit", "2026-03-01")
    assert mem.get(visit.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_a_request_to_forget_asked_in_a_few_words(mem: Memory) -> None:
    evicted = _said(mem, "I was evicted from my apartment in 2021.", "2026-01-05")
    dx = _said(mem, "I was diagnosed with depression last year.", "2026-01-05")
    therapist = _said(mem, "I see my therapist every Tuesday.", "2026-01-05")
    mem.add("can u erase the eviction stuff", user_id="maya", timestamp="2026-03-01")
    mem.add("please forget the depression diagnosis", user_id="maya", timestamp="2026-03-01")
    for fact in (evicted, dx):
        assert mem.get(fact.id, user_id="maya").status == "superseded"
    assert mem.get(therapist.id, user_id="maya").status == "active"
    # Asked of the assistant, "forget my X" is a request too.
    found = detect("Can you forget Maya's nut allergy, Maya told you wrong", "Maya")
    assert found is not None and (found.kind, found.content) == ("forget", "nut allergy")


# -- a death among several named ------------------------------------------------------------
@pytest.mark.slow
def test_a_death_named_in_a_list_of_pets_ends_only_that_pet(mem: Memory) -> None:
    pets = _said(mem, "I have a cat named Miso and a dog named Biscuit.", "2026-01-05")
    mem.add("We had to put Biscuit down last week.", user_id="maya", timestamp="2026-06-01")
    assert mem.get(pets.id, user_id="maya").status == "superseded"
    now = {m.text for m in mem.get_all(user_id="maya")}
    assert "maya has a cat named Miso." in now


@pytest.mark.slow
def test_a_death_in_a_count_of_pets_keeps_the_others_told(mem: Memory) -> None:
    # "two cats, Mochi and Pepper" stayed current beside Mochi's death.
    cats = _said(mem, "We have two cats, Mochi and Pepper.", "2026-01-05")
    dogs = _said(mem, "My dogs are named Rex and Bella.", "2026-01-05")
    mem.add("Mochi passed away last night.", user_id="maya", timestamp="2026-06-01")
    mem.add("We lost Rex in May.", user_id="maya", timestamp="2026-06-02")
    for fact in (cats, dogs):
        assert mem.get(fact.id, user_id="maya").status == "superseded"
    _said(mem, "We have two parrots, Kiwi and Mango.", "2026-01-05")
    mem.add("We had to rehome Mango.", user_id="maya", timestamp="2026-06-02")
    now = {m.text for m in mem.get_all(user_id="maya")}
    assert {"maya and family have a cat named Pepper.", "maya's dog is named Bella."} <= now
    assert "maya and family have a parrot named Kiwi." in now  # not "two parrots and Kiwi"
    # Someone else's pet of the same name is not the speaker's; a short death is kept.
    miso = _said(mem, "I have a cat named Miso.", "2026-01-05")
    _said(mem, "My sister's cat Miso passed away.", "2026-06-03")
    assert mem.get(miso.id, user_id="maya").status == "active"
    [told] = mem.add("Grandpa died.", user_id="maya", timestamp="2026-06-04").added
    assert "died" in told.text


def test_a_death_named_by_a_word_said_first_is_no_name() -> None:
    # "Phone died." read "Phone" as one who died and closed the phone's facts.
    assert not _ends("Maya said: Phone died.", "Maya's phone number is 555-0134.")
    assert not _ends("Maya said: Laptop died yesterday.", "Maya's laptop keeps crashing.")
    assert _ends("Maya said: Grandpa died.", "Maya's grandpa lives in Tucson.")
    assert _ends("Maya said: Ziggy died.", "Maya has a cat named Ziggy.")


@pytest.mark.slow
def test_one_named_after_the_relation_that_died_is_who_died(mem: Memory) -> None:
    # One named after the relation that died is who died: "Grandpa" of "grandpa Joe".
    joe = _said(mem, "My grandpa Joe lives in Tucson.", "2026-01-05")
    _said(mem, "We lost Grandpa in June.", "2026-06-03")
    assert mem.get(joe.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_an_ending_of_one_of_two_verbs_keeps_the_other(mem: Memory) -> None:
    # "I smoke and drink coffee": the second verb was left unconjugated, so the clause
    # after "and" was not read as one, and quitting smoking lost the coffee.
    both = _said(mem, "I smoke and drink coffee every morning.", "2026-01-05")
    mem.add("I quit smoking.", user_id="maya", timestamp="2026-06-01")
    assert mem.get(both.id, user_id="maya").status == "superseded"
    assert "maya drinks coffee every morning." in {m.text for m in mem.get_all(user_id="maya")}


@pytest.mark.slow
def test_living_together_ends_whole_with_a_parting(mem: Memory) -> None:
    # The partner named alone was kept: "Tom and maya live together" stayed current.
    home = _said(mem, "My boyfriend Tom and I live together.", "2026-01-05")
    mem.add("Tom and I broke up and he moved out.", user_id="maya", timestamp="2026-06-01")
    assert mem.get(home.id, user_id="maya").status == "superseded"
    assert not [m.text for m in mem.get_all(user_id="maya") if "together" in m.text]


@pytest.mark.slow
def test_a_household_the_user_is_part_of_ends_whole(mem: Memory) -> None:
    # "with Maya and family" was read as a list of two, and "lives with family" stayed.
    [home] = mem.add(
        "My dad lives with us since his fall.", user_id="Maya", timestamp="2026-01-05"
    ).added
    mem.add("Dad moved into assisted living in March.", user_id="Maya", timestamp="2026-06-01")
    assert mem.get(home.id, user_id="Maya").status == "superseded"
    assert [m.text for m in mem.get_all(user_id="Maya") if "lives with" in m.text] == []


@pytest.mark.slow
def test_a_household_ends_for_a_lower_case_user_id(mem: Memory) -> None:
    # The README's own user id: "maya's mom lives with maya and family" stayed current.
    home = _said(mem, "My mom lives with us.", "2026-01-05")
    mem.add("Mom moved into assisted living.", user_id="maya", timestamp="2026-06-01")
    assert mem.get(home.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_someone_moving_in_ends_living_alone_and_keeps_the_town(mem: Memory) -> None:
    alone = _said(mem, "I live alone in Chicago and work at Target.", "2026-01-05")
    mem.add("My boyfriend Sam moved in with me last week.", user_id="maya", timestamp="2026-06-01")
    assert mem.get(alone.id, user_id="maya").status == "superseded"
    now = [m.text for m in mem.get_all(user_id="maya")]
    assert [t for t in now if "alone" in t] == []
    assert any("lives in Chicago" in t for t in now) and any("Target" in t for t in now)


@pytest.mark.slow
def test_a_plan_called_off_and_a_service_cancelled_close(mem: Memory) -> None:
    plan = _said(mem, "I'm training for the Boston marathon in April.", "2026-01-05")
    services = _said(mem, "I have a Spotify and a Netflix subscription.", "2026-01-05")
    mem.add("I sprained my ankle so the marathon is off.", user_id="maya", timestamp="2026-03-01")
    mem.add("I cancelled Spotify to save money.", user_id="maya", timestamp="2026-03-02")
    for fact in (plan, services):
        assert mem.get(fact.id, user_id="maya").status == "superseded"
    assert "maya has a Netflix subscription." in {m.text for m in mem.get_all(user_id="maya")}


@pytest.mark.slow
def test_a_band_broken_up_and_a_membership_let_lapse_close(mem: Memory) -> None:
    band = _said(mem, "I play drums in a jazz band on Thursdays.", "2026-01-05")
    gym = _said(mem, "I have a membership at the climbing gym.", "2026-01-05")
    mem.add("Sadly the band broke up last month.", user_id="maya", timestamp="2026-03-01")
    mem.add("I let my climbing gym membership lapse.", user_id="maya", timestamp="2026-03-02")
    for fact in (band, gym):
        assert mem.get(fact.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_a_new_contribution_keeps_the_account(mem: Memory) -> None:
    # "… and contribute 6%" was left unconjugated and one clause with the account, so the
    # new contribution closed the account too.
    plan = _said(mem, "I have a 401k through work and contribute 6%.", "2026-01-05")
    mem.add("I bumped my 401k contribution to 10%.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(plan.id, user_id="maya").status == "superseded"
    assert "maya has a 401k through work." in {m.text for m in mem.get_all(user_id="maya")}


@pytest.mark.slow
def test_a_short_sentence_that_an_illness_cleared_up_is_kept_and_ends_it(mem: Memory) -> None:
    # "The UTI cleared up." had too few words to be kept, so the UTI stayed current.
    uti = _said(mem, "I have a UTI.", "2026-01-05")
    cleared = mem.add("The UTI cleared up.", user_id="maya", timestamp="2026-01-12")
    assert cleared.added
    assert mem.get(uti.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_quitting_one_activity_keeps_the_other_said_with_do(mem: Memory) -> None:
    # "… and swim on Fridays" was left unconjugated, so quitting yoga closed the swimming.
    both = _said(mem, "I do yoga on Mondays and swim on Fridays.", "2026-01-05")
    mem.add("I quit yoga.", user_id="maya", timestamp="2026-06-01")
    assert mem.get(both.id, user_id="maya").status == "superseded"
    assert "maya swims on Fridays." in {m.text for m in mem.get_all(user_id="maya")}


@pytest.mark.slow
def test_a_drug_or_an_allergy_ended_out_of_a_list_keeps_the_others(mem: Memory) -> None:
    drugs = _said(mem, "I take metformin, lisinopril and atorvastatin.", "2026-01-05")
    allergies = _said(mem, "I'm allergic to penicillin and sulfa drugs.", "2026-01-05")
    mem.add("My doctor stopped the lisinopril.", user_id="maya", timestamp="2026-06-01")
    mem.add("Turns out I'm not allergic to penicillin.", user_id="maya", timestamp="2026-06-02")
    for fact in (drugs, allergies):
        assert mem.get(fact.id, user_id="maya").status == "superseded"
    now = {m.text for m in mem.get_all(user_id="maya")}
    assert "maya takes metformin and atorvastatin." in now
    assert "maya is allergic to sulfa drugs." in now


# -- what is someone else's, ended -------------------------------------------------------------
@pytest.mark.slow
def test_ending_a_members_or_someone_named_thing_keeps_the_speakers_own(mem: Memory) -> None:
    # "I cancelled my dad's gym membership" closed the speaker's own membership, and
    # "we stopped my son's Adderall" the speaker's own Adderall, leaving the son's current.
    gym = _said(mem, "I have a gym membership.", "2026-01-05")
    mine = _said(mem, "I take Adderall.", "2026-01-05")
    sons = _said(mem, "My son takes Adderall too.", "2026-01-05")
    _said(mem, "I cancelled my dad's gym membership.", "2026-03-01")
    _said(mem, "I sold Priya's bike for her.", "2026-03-01")
    mem.add("We stopped my son's Adderall.", user_id="maya", timestamp="2026-03-02")
    assert mem.get(gym.id, user_id="maya").status == "active"
    assert mem.get(mine.id, user_id="maya").status == "active"
    assert mem.get(sons.id, user_id="maya").status == "superseded"


def test_a_member_taken_off_a_drug_ends_only_the_members_drug() -> None:
    son = "Maya's son takes Singulair for asthma."
    assert _ends("The pediatrician took Maya's son off Singulair.", son)
    assert _ends("Maya and family took Maya's son Eli off Singulair.", son)
    assert not _ends("The pediatrician took Maya's son off Singulair.", "Maya takes Singulair.")
    assert _ends("Maya said: They took Grandma off warfarin.", "Maya's grandma is on warfarin.")
    assert _ends("Maya stopped Eli's Singulair.", "Eli takes Singulair.")
    # What a member is taken off that is no drug ends nothing of this kind.
    assert detect("Maya and family took Maya's son off the travel team.", "Maya") is None or (
        not _ends("Maya and family took Maya's son off the travel team.", son)
    )


# -- a member's pet, a pet given away -----------------------------------------------------
@pytest.mark.slow
def test_a_members_pet_that_died_ends_what_was_told_of_it(mem: Memory) -> None:
    # A member's pet's death was read as no one's of the household and ended nothing.
    dads = _said(mem, "My dad has a beagle named Cooper.", "2026-01-05")
    grand = _said(mem, "My grandparents have a cat called Daisy.", "2026-01-05")
    own = _said(mem, "I have a dog named Cooper.", "2026-01-05")
    mem.add("My dad's dog Cooper died last week.", user_id="maya", timestamp="2026-03-01")
    mem.add("My grandparents had to put Daisy down.", user_id="maya", timestamp="2026-03-02")
    assert mem.get(dads.id, user_id="maya").status == "superseded"
    assert mem.get(grand.id, user_id="maya").status == "superseded"
    assert mem.get(own.id, user_id="maya").status == "active"  # the speaker's Cooper lives


@pytest.mark.slow
def test_a_pet_dead_by_its_kind_ends_the_pet_told_by_name(mem: Memory) -> None:
    # "Our dog died" left "have a dog named Rocky" current: the name after "named" was not
    # read as the dog's.
    dog = _said(mem, "We have a dog named Rocky and a hamster named Nibbles.", "2026-01-05")
    mem.add("Our dog died last night.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(dog.id, user_id="maya").status == "superseded"
    assert "maya and family have a hamster named Nibbles." in {
        m.text for m in mem.get_all(user_id="maya")
    }


@pytest.mark.slow
def test_a_pet_given_to_someone_for_good_is_no_longer_kept(mem: Memory) -> None:
    cat = _said(mem, "We have a cat named Biscuit.", "2026-01-05")
    son = _said(mem, "We have a son named Eli.", "2026-01-05")
    for said in (
        "I gave Biscuit a bath today.",
        "I gave Biscuit to the vet for his shots.",
        "We gave Biscuit to our neighbor to look after for the weekend.",
        "I gave Eli to my mom and ran to the store.",
    ):
        mem.add(said, user_id="maya", timestamp="2026-02-01")
    assert mem.get(cat.id, user_id="maya").status == "active"
    assert mem.get(son.id, user_id="maya").status == "active"
    mem.add("We gave Biscuit to my cousin because of the baby's allergies.", user_id="maya",
            timestamp="2026-03-01")  # fmt: skip
    assert mem.get(cat.id, user_id="maya").status == "superseded"


def test_hubby_is_a_partner() -> None:
    assert _ends("Maya's hubby just retired.", "Maya's hubby works as a pharmacist.")


# -- an event prepared for, done ------------------------------------------------------------
def test_an_event_done_ends_only_the_preparing_for_it() -> None:
    training = "Maya is training for the Boston marathon."
    assert _ends("Maya ran the Boston marathon on Monday!", training)
    assert _ends("Maya finally passed the bar!", "Maya is studying for the bar exam.")
    assert not _ends("Maya ran the Boston marathon on Monday!", "Maya loves the Boston marathon.")
    for said in (
        "Maya took a practice test today.",  # no part of the exam prepared for
        "Maya ran 12 miles this morning.",
        "Maya ran the Boston marathon back in 2019.",  # long ago, before this training
        "Maya ran the Boston marathon years ago.",
    ):
        found = detect(said, "Maya")
        assert found is None or not lexical_match(found, training, "Maya"), said
    # A member's event ends the member's preparing, not the speaker's, and the other way.
    sons = "Maya's son is studying for his driving test."
    own = "Maya is studying for Maya's driving test."
    assert _ends("Maya's son passed his driving test!", sons)
    assert not _ends("Maya's son passed his driving test!", own)
    assert _ends("Maya passed Maya's driving test!", own)
    assert not _ends("Maya passed Maya's driving test!", sons)
    assert not _ends("Maya's husband ran the Boston marathon.", training)
    assert detect("Maya will run the Boston marathon in April.", "Maya") is None


def test_an_event_done_by_someone_named_ends_only_their_preparing() -> None:
    friends = "Maya's friend Priya is studying for the bar exam."
    for said in ("Maya said: Priya passed the bar!", "Maya's friend Priya passed the bar!",
                 "Good news, Priya passed the bar."):  # fmt: skip
        assert _ends(said, friends), said
        assert _ends(said, "Maya said: Priya is studying for the bar exam."), said
        # the speaker's own, and another friend's, stay
        assert not _ends(said, "Maya is studying for the bar exam."), said
        assert not _ends(said, "Maya's friend Ana is studying for the bar exam."), said
    assert _ends(
        "Maya's coworker, Dan, ran the Chicago marathon on Sunday.",
        "Maya's coworker Dan is training for the Chicago marathon.",
    )
    assert not _ends("Maya said: Ana passed the bar!", friends)


# -- a thing looked for, found -------------------------------------------------------------
def test_a_thing_found_or_bought_ends_the_looking_for_it() -> None:
    assert _ends("Maya finally bought a car!", "Maya is saving up for a car.")
    assert _ends(
        "Maya and family found an apartment in Queens and signed the lease.",
        "Maya and family are looking for a new apartment.",
    )
    assert _ends(
        "Maya and family closed on a house in Austin!", "Maya and family are house hunting."
    )
    assert _ends(
        "Maya found a great pediatrician, Dr. Ruiz.", "Maya is looking for a pediatrician."
    )
    # Something else of the same word, or a search still on: nothing ends.
    assert not _ends("Maya finally bought a car!", "Maya is looking for a car mechanic.")
    assert detect("Maya bought a toy car for Maya's nephew.", "Maya") is None
    assert not _ends("Maya found a lump in Maya's arm.", "Maya is looking for a new apartment.")
    assert not _ends("Maya finally bought a car!", "Maya was saving up for a car in 2019.")


# -- two people said as one ----------------------------------------------------------------
def test_two_people_said_as_one_subject_are_one_clause() -> None:
    # "Maya's wife and Maya are vegetarian" was split after "Maya's wife", which was kept
    # alone, as a memory, when the speaker's vegetarianism ended.
    assert parts("Maya's wife and Maya are vegetarian.", "Maya") == []
    assert parts("Maya's wife is vegan and Maya eats fish.", "Maya") == [
        "Maya's wife is vegan",
        "Maya eats fish",
    ]


@pytest.mark.slow
def test_an_ending_of_one_of_two_keeps_what_holds_of_the_other(mem: Memory) -> None:
    both = _said(mem, "My wife and I are vegetarian.", "2026-01-05")
    mem.add("I'm not vegetarian anymore.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(both.id, user_id="maya").status == "superseded"
    now = {m.text for m in mem.get_all(user_id="maya")}
    assert "maya's wife is vegetarian." in now
    assert "maya's wife." not in now
    smoke = _said(mem, "My husband and I both smoke.", "2026-01-05")
    mem.add("My husband quit smoking!", user_id="maya", timestamp="2026-03-02")
    assert mem.get(smoke.id, user_id="maya").status == "superseded"
    assert "maya smokes." in {m.text for m in mem.get_all(user_id="maya")}
    # Said of the household, it ends both.
    diet = _said(mem, "My son and I are gluten-free.", "2026-01-05")
    mem.add("We're not gluten-free anymore.", user_id="maya", timestamp="2026-03-03")
    assert mem.get(diet.id, user_id="maya").status == "superseded"
    assert not [m.text for m in mem.get_all(user_id="maya") if "gluten-free." in m.text]


# -- a pregnancy begun ------------------------------------------------------------------------
@pytest.mark.slow
def test_a_pregnancy_ends_the_trying_for_one_and_stays_a_fact(mem: Memory) -> None:
    trying = _said(mem, "We're trying to conceive.", "2026-01-05")
    sisters = _said(mem, "My sister is trying for a baby.", "2026-01-05")
    mem.add("I'm expecting a delivery today.", user_id="maya", timestamp="2026-02-01")
    assert mem.get(trying.id, user_id="maya").status == "active"
    pregnant = _said(mem, "I'm pregnant!", "2026-03-01")
    assert mem.get(trying.id, user_id="maya").status == "superseded"
    assert mem.get(sisters.id, user_id="maya").status == "active"
    mem.add("The baby came yesterday!", user_id="maya", timestamp="2026-11-02")
    assert mem.get(pregnant.id, user_id="maya").status == "superseded"


@pytest.mark.slow
def test_a_pet_adopted_is_a_fact_its_death_ends(mem: Memory) -> None:
    # "We adopted a dog" was read only as the end of having none, never as a fact.
    adopted = _said(mem, "We adopted a kitten.", "2026-01-05")
    mem.add("Our kitten passed away last night.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(adopted.id, user_id="maya").status == "superseded"


# -- off a drug for a while, a food had again ---------------------------------------------
def test_off_a_drug_said_with_how_long_or_since_when_ends_it() -> None:
    # "has been off Lexapro for a month" and "is off insulin since the transplant" ended
    # nothing: only "off X now" did.
    assert _ends("Maya has been off Wellbutrin for a month now.", "Maya takes Wellbutrin.")
    assert _ends("Maya's wife is off insulin since the transplant.", "Maya's wife takes insulin.")
    assert not _ends("Maya's wife is off insulin since the transplant.", "Maya takes insulin.")
    # A day off, time off work: nothing.
    assert detect("Maya is off Friday since the boss said so.", "Maya") is None
    assert detect("Maya has been off work for a week.", "Maya") is None


def test_a_food_had_again_ends_the_allergy_it_modifies() -> None:
    # "can eat peanuts now" left "has a peanut allergy" current: "peanut" there only
    # modifies "allergy".
    assert _ends("Maya can eat peanuts now!", "Maya has a peanut allergy.")
    assert _ends("Maya's son passed his peanut challenge!", "Maya's son has a peanut allergy.")
    assert _ends("Maya can have dairy again.", "Maya has a dairy intolerance.")
    assert not _ends("Maya's son can eat peanuts now!", "Maya has a peanut allergy.")
    assert not _ends("Maya can eat eggs again.", "Maya avoids egg yolks.")
    assert not _ends("Maya can eat peanuts now!", "Maya packs peanut-free snacks for an allergy.")


# -- pay said in thousands, after a clause of its own -------------------------------------
@pytest.mark.slow
def test_pay_said_in_thousands_after_another_clause_replaces_the_old(mem: Memory) -> None:
    # "$95k" read as far from "$85,000 a year" (cosine under the floor), and "got a raise"
    # was read first, as a thing got, so "I make $95k now" replaced nothing.
    pay = _said(mem, "I make $72,000 a year.", "2026-01-05")
    mem.add("I got a raise, I make $80k now.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(pay.id, user_id="maya").status == "superseded"
    rent = _said(mem, "My rent is $1,800 a month.", "2026-01-05")
    mem.add("I got a call from the bank today, my car loan is $300 a month now.",
            user_id="maya", timestamp="2026-03-02")  # fmt: skip
    assert mem.get(rent.id, user_id="maya").status == "active"  # another thing's value
    # A clause that names only the value keeps the clause before, which names the drug.
    dose = _said(mem, "I take 10 mg of Lexapro.", "2026-01-05")
    mem.add("My doctor told me to increase my Lexapro, I'm on 20 mg now.", user_id="maya",
            timestamp="2026-03-03")  # fmt: skip
    assert mem.get(dose.id, user_id="maya").status == "superseded"


def test_an_activity_dropped_ends_the_doing_of_it() -> None:
    assert _ends("Maya's son dropped karate and started swimming.", "Maya's son does karate.")
    assert _ends("Maya dropped Spanish this semester.", "Maya is taking Spanish at night.")
    assert not _ends("Maya's son dropped karate.", "Maya does karate on Mondays.")
    # Dropped off, dropped by, dropped weight, dropped the ball, dropped a thing: nothing.
    for said, fact in (
        ("Maya dropped the kids at school.", "Maya has two kids."),
        ("Maya dropped Maya's phone in the lake.", "Maya's phone number is 555-0101."),
        ("Maya dropped the ball on the report.", "Maya plays ball on Sundays."),
        ("Maya dropped off the twins at practice.", "Maya's twins play soccer."),
    ):
        found = detect(said, "Maya")
        assert found is None or not lexical_match(found, fact, "Maya"), said
    assert detect("Maya dropped 10 pounds and Maya is at 150 now.", "Maya").kind == "update"


def test_leaving_the_service_or_a_place_of_care_ends_being_there() -> None:
    assert _ends("Maya got out of the Air Force in June.", "Maya is in the Air Force.")
    assert _ends("Maya left the Marines last year.", "Maya serves in the Marines.")
    assert _ends(
        "Maya was honorably discharged from the Coast Guard.", "Maya is in the Coast Guard."
    )
    assert _ends("Maya's grandpa got out of rehab on Monday.", "Maya's grandpa is in rehab.")
    assert _ends("Maya's grandpa was discharged from the ICU.", "Maya's grandpa is in the ICU.")
    # Someone else's, or out of no such place: nothing of the speaker's.
    assert not _ends("Maya's grandpa got out of rehab on Monday.", "Maya is in rehab.")
    for said in ("Maya got out of the car at the gate.", "Maya got out of the service early."):
        assert detect(said, "Maya") is None, said


def test_a_thing_handed_on_may_be_named_by_its_head() -> None:
    assert _ends("Maya sold the boat in the fall.", "Maya owns a houseboat.")
    assert _ends("Maya got rid of the van.", "Maya drives a minivan to work.")
    assert _ends("Maya sold the bike.", "Maya has a motorbike.")
    # Only a thing handed on, and only a word the head closes.
    assert not _ends("Maya quit the boat club.", "Maya is in a sailboat club.")
    assert not _ends("Maya sold the boat.", "Maya loves boat trips in the summer.")
    assert not _ends("Maya sold the car.", "Maya has a carport.")


def test_a_weight_goal_reached_ends_the_trying() -> None:
    trying = "Maya is trying to lose 15 pounds for the reunion."
    assert _ends("Maya finally reached Maya's goal weight.", trying)
    assert _ends("Maya lost the 15 pounds!", trying)
    assert _ends("Maya's dad hit his target weight.", "Maya's dad wants to lose weight.")
    # Another's goal, or a fact that aims at no weight: nothing ends.
    assert not _ends("Maya's dad hit his target weight.", trying)
    assert not _ends("Maya reached Maya's goal weight.", "Maya's dad wants to lose weight.")
    assert not _ends("Maya reached Maya's goal weight.", "Maya weighs herself every Monday.")
    assert detect("Maya lost the keys again.", "Maya") is None or not _ends(
        "Maya lost the keys again.", trying
    )


def test_a_childs_training_told_as_done_ends_the_training() -> None:
    assert _ends("Maya's son is fully toilet trained!", "Maya's son is toilet training.")
    assert _ends("Maya's daughter is sleep trained now.", "Maya is sleep training Maya's daughter.")
    # Another child's, or not yet done: the training goes on.
    assert not _ends("Maya's daughter is sleep trained now.", "Maya is sleep training Maya's son.")
    assert detect("Maya's son is nearly potty trained.", "Maya") is None


def test_back_at_work_ends_staying_home_with_the_children() -> None:
    assert _ends("Maya went back to work in March.", "Maya stays home with the twins.")
    assert _ends("Maya is back at work now.", "Maya is a stay-at-home mom.")
    assert _ends("Maya returned to work.", "Maya is a full-time mom since the baby came.")
    # Another's, or a day at home: nothing ends.
    assert not _ends("Maya is back at work now.", "Maya's husband is a stay-at-home dad.")
    assert not _ends("Maya is back at work now.", "Maya stays home with the kids on Fridays.")


def test_back_at_work_ends_being_retired() -> None:
    said = "Maya went back to work part-time at the library."
    assert _ends(said, "Maya is retired.")
    assert _ends(said, "Maya is retired from teaching.")
    # Another's retirement, one from the service, or one long past: it stays.
    assert not _ends(said, "Maya's husband is retired.")
    assert not _ends(said, "Maya is retired from the Army.")
    assert not _ends(said, "Maya was retired in 2010 and loves golf.")


def test_his_or_her_thing_ended_is_never_the_speakers_own() -> None:
    # "his" in what the writer keeps is never the speaker ("I" is written as the name):
    # it ended the speaker's own inhaler, and left the son's current.
    son = "Maya's son uses an inhaler for asthma."
    assert _ends("Maya stopped his inhaler.", son)
    assert not _ends("Maya stopped his inhaler.", "Maya uses an inhaler for asthma.")
    assert not _ends("Maya stopped his inhaler.", "Maya's daughter uses an inhaler.")
    assert _ends("Maya cancelled her gym membership.", "Maya's mom has a gym membership.")
    assert _ends("Maya cancelled her gym membership.", "Maya's friend Jo has a gym membership.")


@pytest.mark.slow
def test_his_thing_ended_with_two_he_could_be_ends_neither(mem: Memory) -> None:
    son = _said(mem, "My son takes melatonin at bedtime.", "2026-01-05")
    dad = _said(mem, "My dad takes melatonin too.", "2026-01-06")
    mem.add("We stopped his melatonin.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(son.id, user_id="maya").status == "active"
    assert mem.get(dad.id, user_id="maya").status == "active"


def test_a_pronoun_taken_off_a_drug_or_weaned_ends_the_right_fact() -> None:
    assert _ends("The pediatrician took him off Singulair.", "Maya's son takes Singulair.")
    assert not _ends("The pediatrician took him off Singulair.", "Maya takes Singulair.")
    assert not _ends("Maya took her off Singulair.", "Maya's son takes Singulair.")
    assert _ends("Maya weaned her at a year.", "Maya is still breastfeeding Maya's daughter.")
    assert _ends("Maya's wife weaned the twins.", "Maya's wife is nursing the twins.")
    assert not _ends("Maya weaned her at a year.", "Maya's wife is nursing the baby.")
    assert not _ends("Maya weaned her at a year.", "Maya's daughter is learning to swim.")


def test_a_food_eaten_again_ends_a_diet_without_it() -> None:
    assert _ends("Maya eats wheat again, the tests were clear.", "Maya is on a wheat-free diet.")
    assert _ends("Maya can have lactose again.", "Maya is lactose-free.")
    assert _ends("Maya's son is drinking milk again.", "Maya's son avoids milk.")
    # Another's diet, or a thing made without it: nothing ends.
    assert not _ends("Maya's son is drinking milk again.", "Maya avoids milk.")
    assert not _ends("Maya eats wheat again.", "Maya bakes wheat-free cookies for a friend.")


def test_his_or_her_doctor_stopping_a_drug_ends_only_whom_it_may_be() -> None:
    # "His doctor stopped his metformin" closed the speaker's own metformin.
    husband = "Maya's husband takes metformin."
    assert _ends("His doctor stopped his metformin.", husband)
    assert _ends("Her cardiologist stopped the Eliquis.", "Maya's mom is on Eliquis.")
    assert not _ends("His doctor stopped his metformin.", "Maya takes metformin.")
    assert not _ends("Her cardiologist stopped the Eliquis.", "Maya's dad is on Eliquis.")
    assert _ends("Maya's doctor stopped the Eliquis.", "Maya is on Eliquis.")


def test_a_death_of_his_or_her_pet_is_not_the_speakers() -> None:
    # "Her cat Luna died" closed the speaker's own cat of the same name.
    assert detect("Her cat Luna died last week.", "Maya") is None
    assert detect("Maya said: His dog Rex passed away.", "Maya") is None
    assert _ends("Maya's cat Luna died last week.", "Maya has a cat named Luna.")


@pytest.mark.slow
def test_a_short_sentence_of_a_change_in_someones_life_is_kept(mem: Memory) -> None:
    # "Dana moved out." and "The Owls broke up." had too few words and were not stored.
    for said in ("Dana moved out.", "The Owls broke up.", "Grandpa got promoted.",
                 "The trip was cancelled.", "Leo graduated."):  # fmt: skip
        assert mem.add(said, user_id="maya", timestamp="2026-02-01").added, said
    # Chat with nothing changed, or a word said to someone, stays out.
    for said in ("Lunch was good.", "Quit it."):
        assert not mem.add(said, user_id="maya", timestamp="2026-02-02").added, said


def test_home_again_from_a_trip_ends_being_away() -> None:
    assert _ends("Maya is back from Lisbon.", "Maya is on a work trip in Lisbon.")
    assert _ends("Maya's wife got home from her trip.", "Maya's wife is traveling for work.")
    assert _ends("Maya's son came home from deployment.", "Maya's son is deployed in Germany.")
    # Another place, another person, an errand: nothing ends.
    assert not _ends("Maya is back from Lisbon.", "Maya is on vacation in Rome.")
    assert not _ends("Maya's son came home from deployment.", "Maya is deployed abroad.")
    assert detect("Maya got back from the gym.", "Maya") is None
    # Home from a place that is no trip, or a thing got back: a trip's ending only.
    assert detect("Maya's daughter came home from college.", "Maya") is None
    assert not _ends("Maya got back from Lisbon last night.", "Maya's license is suspended.")


def test_a_project_or_process_done_ends_its_being_under_way() -> None:
    assert _ends("Maya said: The bathroom renovation is finally done.",
                 "Maya and family are in the middle of a bathroom renovation.")  # fmt: skip
    assert _ends("Maya's divorce is final.", "Maya is going through a divorce.")
    assert not _ends("Maya's divorce is final.", "Maya's sister is going through a divorce.")


def test_cleared_to_do_a_thing_again_ends_being_kept_from_it() -> None:
    assert _ends("Maya's neurologist cleared Maya to drive again.", "Maya can't drive for now.")
    assert _ends("Maya got cleared for running.", "Maya isn't allowed to run until March.")
    assert _ends("Maya's mom was cleared to walk.", "Maya's mom is on bed rest.")
    # Another person's restriction, another thing, a table cleared: nothing ends.
    assert not _ends("Maya got cleared to drive again.", "Maya's dad can't drive.")
    assert not _ends("Maya got cleared to drive again.", "Maya can't lift anything heavy.")
    assert detect("Maya cleared the table after dinner.", "Maya") is None


def test_a_goal_worked_or_waited_for_reached_ends_the_pursuit() -> None:
    assert _ends(
        "Maya finally got Maya's teaching license!", "Maya is studying for a teaching license."
    )
    assert _ends(
        "Maya received Maya's green card in May.", "Maya is waiting for Maya's green card."
    )
    assert _ends(
        "Maya got Maya's liver transplant in June.",
        "Maya is on the waitlist for a liver transplant.",
    )
    assert _ends("Maya's daughter got into Rutgers!", "Maya's daughter is applying to colleges.")
    assert _ends("Maya sold the truck.", "Maya is trying to sell the truck.")
    # Another's pursuit, another thing: nothing ends.
    assert not _ends("Maya's daughter got into Rutgers!", "Maya is applying to grad schools.")
    assert not _ends("Maya received Maya's green card.", "Maya is studying for a teaching license.")
    assert not _ends("Maya got Maya's fishing license.", "Maya is studying for a teaching license.")
    assert _ends("Maya got Maya's license!", "Maya is studying for a teaching license.")


def test_a_foster_animal_adopted_ends_the_fostering() -> None:
    fostering = "Maya and family are fostering a kitten named Pip."
    assert _ends("Maya and family officially adopted Pip!", fostering)
    assert _ends("Maya said: Pip got adopted by a couple in Reno.", fostering)
    assert not _ends("Maya said: Pip got adopted by a couple in Reno.", "Maya has a cat named Pip.")
    assert not _ends("Maya said: Max got adopted.", fostering)


@pytest.mark.slow
def test_a_body_weight_reached_replaces_the_weight_before(mem: Memory) -> None:
    # "I'm down to 165 pounds" was read as no new value, and "weighs 180" stayed current.
    weight = _said(mem, "I weigh 212 pounds.", "2026-01-05")
    mem.add("I'm down to 198 pounds!", user_id="maya", timestamp="2026-03-01")
    assert mem.get(weight.id, user_id="maya").status == "superseded"
    # A weight aimed at, another's weight: they stay.
    goal = _said(mem, "I'm trying to lose 15 pounds.", "2026-01-06")
    his = _said(mem, "My husband weighs 190 pounds.", "2026-01-07")
    mem.add("I'm down to 190 pounds!", user_id="maya", timestamp="2026-04-01")
    assert mem.get(goal.id, user_id="maya").status == "active"
    assert mem.get(his.id, user_id="maya").status == "active"


def test_a_group_by_its_name_broken_up_ends_the_speakers_part_in_it() -> None:
    said = "Maya said: The Night Owls split up."
    assert _ends(said, "Maya sings in a choir called The Night Owls.")
    assert _ends(said, "Maya's band The Night Owls plays on Fridays.")
    # A fact that calls it no group, or a couple by their names: nothing ends.
    assert not _ends(said, "Maya loves The Night Owls on the radio.")
    assert detect("Maya said: Tom and Ana broke up.", "Maya") is None or not _ends(
        "Maya said: Tom and Ana broke up.", "Maya's friend Ana plays on a soccer team."
    )


@pytest.mark.slow
def test_selling_one_of_two_things_owned_keeps_the_other(mem: Memory) -> None:
    # "I own a sailboat and a canoe", then "I sold the sailboat", closed the memory whole.
    both = _said(mem, "I own a kayak and a dinghy.", "2026-01-05")
    mem.add("I sold the kayak.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(both.id, user_id="maya").status == "superseded"
    assert "maya owns a dinghy." in {m.text.lower() for m in mem.get_all(user_id="maya")}


def test_she_or_he_ending_is_whom_the_sentence_opens_with() -> None:
    # "Theo saw the allergist and he outgrew his egg allergy" ended nothing: the ending's
    # subject is a pronoun, which stands for whom its sentence (or the one before) opens
    # with when no one else is named before it.
    def content(said: str) -> str | None:
        found = detect(said, "Maya")
        return None if found is None else found.content

    saw = "Maya said: Good news, Theo saw the allergist and he outgrew his egg allergy."
    assert content(saw) == "Theo egg allergy"
    assert content("Maya said: Theo had his skin test today. He outgrew his egg allergy!") == (
        "Theo egg allergy"
    )
    assert content("Maya said: Theo's pediatrician said he outgrew his egg allergy.") == (
        "Theo egg allergy"
    )
    assert content("Maya's daughter had her checkup and she's off the inhaler now.") == (
        "daughter inhaler"
    )
    assert content("maya said: Theo had a rough week, but he quit vaping.") == "Theo vaping"
    # Someone else named before the pronoun, or one it cannot be: nothing ends.
    for said in (
        "Maya said: Theo and Ava saw the allergist and she outgrew her egg allergy.",
        "Maya said: Theo's sister visited and she quit smoking.",
        "Maya said: Theo met his friend Ava and she stopped taking Zoloft.",
        "Maya's son had his checkup and she's off the inhaler now.",
        "Maya went to the allergist and she outgrew her egg allergy.",
        "Maya's son saw the allergist and she said he outgrew his allergy.",
    ):
        assert detect(said, "Maya") is None, said


def test_a_part_healed_ends_the_injury_told_as_it_happened() -> None:
    # "Maya's ankle is fully healed" did not end "Maya sprained Maya's ankle playing
    # soccer": an injury told by the event that caused it was read as a past event.
    healed = "Maya's ankle is fully healed now."
    assert _ends(healed, "Maya sprained Maya's ankle playing soccer.")
    assert _ends(healed, "Maya twisted Maya's ankle yesterday.")
    # Long ago, or another's: it stays.
    assert not _ends(healed, "Maya broke Maya's ankle in 2015.")
    assert not _ends(healed, "Maya broke Maya's ankle when Maya was ten.")
    assert not _ends(healed, "Maya's son sprained his ankle.")


def test_a_part_healed_said_by_a_pronoun_or_a_name_ends_that_ones_injury() -> None:
    sons = "Maya's son Tom broke his leg skiing."
    for said in ("Maya said: His leg is all healed now!", "Maya said: Tom's leg has healed."):
        assert _ends(said, sons), said
        assert not _ends(said, "Maya broke Maya's leg."), said  # the speaker's own
    assert _ends("Maya said: Her leg has finally healed.", "Maya's daughter broke her leg.")
    assert not _ends("Maya said: Her leg has finally healed.", sons)  # "her" is no son
    # nor a coworker the fact itself calls "he"
    assert not _ends("Maya said: Her leg has finally healed.", "Maya's coworker Dan broke his leg.")
    assert _ends("Maya said: Her leg has finally healed.", "Maya's coworker Jo broke her leg.")
    assert not _ends("Maya said: Dan's leg healed.", sons)  # someone else, named
    # What the injury was treated with, in the same memory, ends with it; a treatment of
    # another part does not.
    found = detect("Maya said: His leg is all healed now!", "Maya")
    assert found is not None
    whole = "Maya's son Tom broke his leg skiing, he's in a cast."
    assert treated(found, "Maya's son Tom is in a cast", whole, "Maya")
    sling = "Maya's son Tom broke his leg skiing, and his arm is in a sling."
    assert not treated(found, "Maya's son Tom's arm is in a sling", sling, "Maya")
    assert not treated(found, "Maya's son Tom is in a cast", "Maya's son Tom is in a cast.", "Maya")


def test_each_clause_of_a_statement_may_end_a_thing_of_its_own() -> None:
    both = readings("Maya quit smoking and stopped drinking coffee.", "Maya")
    assert [(r.kind, r.content) for r in both] == [
        ("ending", "smoking"),
        ("ending", "drinking coffee"),
    ]
    two = readings("Maya stopped going to yoga and Maya's daughter quit piano.", "Maya")
    assert [r.content for r in two] == ["going to yoga", "daughter piano"]
    assert _ends("Maya's daughter quit piano.", "Maya's daughter takes piano lessons.")
    # What is not said as so, or a request to forget, is read whole, as one.
    for said in (
        "If Maya quit smoking and stopped drinking coffee, Maya would sleep better.",
        "Maya wants to quit smoking and stop drinking coffee.",
        "Maya will quit smoking in May and stop drinking coffee too.",
    ):
        assert readings(said, "Maya") == [], said
    forget = readings("Forget that Maya quit smoking and stopped drinking coffee.", "Maya")
    assert [r.kind for r in forget] == ["forget"]
    # A clause whose "he" or "she" may stand for another named before it is not read alone.
    assert readings("Maya said: Raj told his dad and he quit smoking.", "Maya") == []
    chemo = readings("Maya's mom finished chemo and she is cancer-free!", "Maya")
    assert [r.content for r in chemo] == ["mom chemo", "mom cancer"]


def test_someone_staying_went_home_ends_the_stay() -> None:
    stay = "Maya's mom is staying with Maya and family for a month."
    assert _ends("Maya's mom went back home yesterday.", stay)
    assert _ends("Maya's mom flew back to Ohio.", stay)
    assert _ends("Maya's sister flew home.", "Maya's sister is in town until Sunday.")
    # A home that is the household's, a trip for a while, an errand: nothing ends.
    assert not _ends("Maya's dad went back home after the game.", "Maya's dad lives with Maya.")
    assert not _ends("Maya's son went home after the party.", "Maya's son loves visiting the zoo.")
    for said in (
        "Maya's mom went home for the weekend.",
        "Maya's mom went back home to grab her charger and came right back.",
        "Maya's mom went back to Target to return the lamp.",
        "Maya's mom went home sick.",
        "Maya's mom went home early from work.",
    ):
        found = detect(said, "Maya")
        assert found is None or not _ends(said, stay), said


@pytest.mark.slow
def test_a_stay_ended_closes_the_stay_of_whom_it_names(mem: Memory) -> None:
    # "My son moved out" and "my mom went back home" closed nothing: the member's word
    # alone is far in meaning from the fact of the stay.
    son = _said(mem, "My son is living with us until he finds an apartment.", "2026-01-05")
    mom = _said(mem, "My mom is staying with us for a month.", "2026-01-06")
    mem.add("My son moved out last weekend.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(son.id, user_id="maya").status == "superseded"
    assert mem.get(mom.id, user_id="maya").status == "active"
    mem.add("My mom went back home yesterday.", user_id="maya", timestamp="2026-03-02")
    assert mem.get(mom.id, user_id="maya").status == "superseded"


def test_out_of_a_place_of_care_said_as_where_they_are_now_ends_the_stay() -> None:
    stay = "Maya's dad is in the hospital with a broken hip."
    assert _ends("Maya's dad is out of the hospital.", stay)
    assert _ends("Maya's dad came home from the hospital yesterday.", stay)
    assert _ends("Maya's brother was released from jail.", "Maya's brother is in jail.")
    # Out of something else, or another's stay: nothing ends.
    assert detect("Maya's son got out of the car.", "Maya") is None
    assert not _ends("Maya's mom is out of the hospital.", stay)


@pytest.mark.slow
def test_a_short_sentence_of_coming_home_is_kept_and_ends_the_stay(mem: Memory) -> None:
    # "Grandpa is out of the hospital." was too short to be kept, and the stay stayed.
    stay = _said(mem, "My grandpa is in the hospital with pneumonia.", "2026-01-05")
    mem.add("Grandpa is out of the hospital.", user_id="maya", timestamp="2026-01-20")
    assert mem.get(stay.id, user_id="maya").status == "superseded"
    assert mem.add("Grandma flew home.", user_id="maya", timestamp="2026-01-21").added


def test_a_baby_shower_is_no_birth_and_someone_named_gave_birth() -> None:
    # "My sister had the baby shower" was read as the sister's birth, and closed her
    # pregnancy; "Jess had the baby!" ended nothing of Jess's.
    assert detect("Maya's sister had the baby shower yesterday.", "Maya") is None
    assert detect("Maya said: Jess had the baby shower.", "Maya") is None
    named = "Maya said: Jess had the baby!"
    assert _ends(named, "Maya's friend Jess is pregnant.")
    assert _ends("Maya said: Jess gave birth to twins.", "Maya's friend Jess is due in May.")
    # Another's pregnancy, or one that names Jess only beside it: it stays.
    assert not _ends(named, "Maya's sister is pregnant.")
    assert not _ends(named, "Maya is pregnant.")
    assert not _ends(named, "Maya's sister Jess's friend is pregnant.")


def test_a_member_and_someone_named_parted_ends_their_relationship() -> None:
    dating = "Maya's brother is dating a girl named Kim."
    assert _ends("Maya's brother and Kim broke up.", dating)
    assert _ends("Maya said: Kim and Maya's brother split up.", dating)
    assert not _ends("Maya's brother and Kim broke up.", "Maya's son is dating a girl named Kim.")
    assert detect("Maya's brother and Kim broke up the fight.", "Maya") is None
    # "he" for the member the sentence opens with, and no one else named before it
    told = "Maya's brother was heartbroken, he and Kim broke up."
    assert _ends(told, dating)
    assert not _ends(told, "Maya's son is dating a girl named Kim.")
    for unsure in (
        "Maya's brother met Ana, he and Kim broke up.",  # he: the brother, or Ana's friend?
        "Maya's daughter was sad, he and Kim broke up.",  # "he" is no daughter
    ):
        assert detect(unsure, "Maya") is None or not _ends(unsure, dating), unsure


def test_a_name_typed_in_lower_case_parts_a_member_from_them() -> None:
    """Chat types names in lower case: "my brother and kim broke up" ends the brother's
    relationship with Kim as "Kim" would; a word for a person or a function word is no
    name, and a fight broken up ends nothing."""
    dating = "Maya's brother is dating a girl named Kim."
    assert _ends("Maya's brother and kim broke up last week.", dating)
    assert _ends("Maya said: kim and Maya's brother split up.", dating)
    assert _ends("Maya's brother was heartbroken, he and kim broke up.", dating)
    assert _ends("Maya's sister and dan separated.", "Maya's sister is married to Dan.")
    for other in (
        "Maya's brother and kim broke up the fight.",
        "Maya's brother and wife broke up.",  # a word for a person, not Kim
        "Maya's brother and everyone broke up.",
    ):
        assert detect(other, "Maya") is None or not _ends(other, dating), other


def test_a_new_job_started_or_about_to_start_ends_being_without_one() -> None:
    """Starting a new job, now or on a day said ("starts her new job on Monday"), or a job
    held now ("works as a nurse now"), ends being unemployed or looking for work; a job
    search started, another's new job, one not yet started, or working on something ends
    nothing."""
    assert _ends("Maya is working at the library now.", "Maya is unemployed.")
    assert _ends("Maya works as a nurse now.", "Maya is between jobs.")
    assert _ends("Maya is now working for a small design firm.", "Maya is looking for work.")
    assert _ends(
        "Maya is starting a new job at the hospital next week.", "Maya is unemployed right now."
    )
    assert _ends("Maya starts Maya's new job on Monday.", "Maya is looking for work.")
    assert _ends("Maya starts a new position in March.", "Maya is between jobs.")
    for other in (
        "Maya is starting a new job search next week.",
        "Maya's husband started a new job at the bank.",
        "Maya hasn't started the new job yet.",
        "Maya is thinking about starting a new job in the fall.",
        "Maya's husband works at Target now.",
        "Maya is working on Maya's resume now.",
        "Maya is working at it now, slowly.",
        "Maya has been working at the garden for hours now.",
    ):
        assert detect(other, "Maya") is None or not _ends(other, "Maya is unemployed."), other


def test_moved_on_from_one_thing_to_the_next_ends_the_first() -> None:
    # "My son moved from his crib to a big-kid bed" left "sleeps in a crib" current.
    assert _ends("Maya's son moved from his crib to a big-kid bed.", "Maya's son sleeps in a crib.")
    assert _ends("Maya's dad graduated from a walker to a cane.", "Maya's dad uses a walker.")
    assert _ends("Maya moved from sales to marketing.", "Maya works in sales at Acme.")
    # A place is the residence slot's, not an ending of what names it.
    assert detect("Maya moved from the Bronx to Queens.", "Maya") is None
    assert detect("Maya moved from Denver to Austin.", "Maya") is None


def test_someone_named_got_what_they_wore_off() -> None:
    # "Ava got her braces off" ended nothing: only a member's word or the speaker was read.
    assert _ends("Maya said: Ava finally got her braces off!", "Maya's daughter Ava has braces.")
    assert not _ends("Maya said: Ava finally got her braces off!", "Maya has braces.")
    assert detect("Maya said: So got her cast off.", "Maya") is None  # whose is not said


def test_an_operation_had_ends_the_wait_for_it() -> None:
    waiting = "Maya is on a waitlist for a kidney transplant."
    assert _ends("Maya got the call and had Maya's transplant last week.", waiting)
    assert _ends("Maya had the surgery on Monday.", "Maya is waiting for Maya's hip surgery.")
    # Long ago: it ends nothing; a thing had that is no operation: nothing.
    assert detect("Maya had knee surgery in 2019.", "Maya") is None
    assert detect("Maya had a degree in math.", "Maya") is None


def test_a_driving_test_passed_ends_learning_to_drive() -> None:
    passed = "Maya's daughter passed her driving test!"
    assert _ends(passed, "Maya's daughter is learning to drive.")
    assert not _ends(passed, "Maya's son is learning to drive.")
    assert not _ends(passed, "Maya is learning to drive.")


def test_finally_after_what_ended_is_no_part_of_it() -> None:
    # "I'm out of the hospital finally!" read "hospital finally", which no fact names.
    assert _ends("Maya is out of the hospital finally!", "Maya is in the hospital with flu.")


def test_home_from_a_visit_away_ends_the_visit() -> None:
    back = "Maya's mom flew home from Florida last night."
    assert _ends(back, "Maya's mom is visiting Maya's aunt in Florida.")
    assert not _ends(back, "Maya's mom is visiting Maya's aunt in Ohio.")
    assert not _ends(back, "Maya's mom loves visiting Florida.")


def test_chat_that_drops_the_owner_or_types_with_as_w_still_ends_the_fact() -> None:
    # "wrist is finally healed" (the owner unsaid, as chat drops it) and "in the hospital
    # w pneumonia" ("w" read as a noun the hospital modified) closed nothing.
    assert _ends("Maya said: wrist is finally healed", "Maya sprained Maya's wrist at the gym.")
    assert detect("Dana said: wrist is finally healed", "Maya") is None  # another's words
    assert _ends("Maya's mom got out of the hospital!!", "Maya's mom is in the hospital w flu")


def test_someone_named_moved_on_from_one_thing_ends_the_first() -> None:
    # "Jay moved from the crib to a toddler bed" was read as Jay's home moved.
    moved = "Maya said: Jay moved from the crib to a toddler bed this week!"
    assert _ends(moved, "Maya's son Jay sleeps in a crib.")
    assert not _ends(moved, "Maya's son Jay lives in Denver.")


@pytest.mark.slow
def test_a_member_called_by_name_after_an_interjection_is_the_users(mem: Memory) -> None:
    # "omg mom finally got out of the hospital" was kept as the user's words about no one,
    # and the stay in the hospital stayed current.
    stay = _said(mem, "My mom is in the hospital with pneumonia.", "2026-01-05")
    out = _said(mem, "omg mom finally got out of the hospital!!", "2026-01-20")
    assert "maya's mom" in out.text.lower()
    assert mem.get(stay.id, user_id="maya").status == "superseded"


def test_a_thing_said_as_paid_off_or_the_speaker_debt_free_ends_the_debt() -> None:
    assert _ends("Maya said: the car is finally paid off!", "Maya is paying off a car loan.")
    assert _ends("Maya's student loans are paid off.", "Maya has student loans.")
    assert _ends("Maya is officially debt free!", "Maya has $12k in credit card debt.")
    # A view of debt, another's debt, a debt paid off some day: nothing ends.
    assert not _ends("Maya is officially debt free!", "Maya hates debt.")
    assert not _ends("Maya's student loans are paid off.", "Maya's son has student loans.")
    assert detect("When the car is paid off, Maya will buy a boat.", "Maya") is None


def test_which_time_an_event_was_is_no_part_of_it() -> None:
    # "ran my first half marathon" named "first", which the training fact did not.
    ran = "Maya ran Maya's first half marathon today!"
    assert _ends(ran, "Maya is training for a half marathon in April.")


@pytest.mark.slow
def test_a_band_quit_ends_playing_in_it_not_a_band_liked(mem: Memory) -> None:
    # "I quit the band" closed nothing: the group's word alone was under the similarity
    # floor.
    plays = _said(mem, "I play bass in a band called The Static.", "2026-01-05")
    liked = _said(mem, "My favorite band is Queen.", "2026-01-06")
    mem.add("I quit the band to focus on school.", user_id="maya", timestamp="2026-03-01")
    assert mem.get(plays.id, user_id="maya").status == "superseded"
    assert mem.get(liked.id, user_id="maya").status == "active"


def test_an_ordeal_said_to_be_over_ends_it_and_a_birth_ends_what_waited_for_it() -> None:
    assert _ends(
        "Maya is finally off antibiotics!", "Maya is on antibiotics for a sinus infection."
    )
    assert _ends("Maya is off bed rest.", "Maya is on bed rest for her back.")
    assert _ends(
        "Maya had the baby last week and Maya is finally off bed rest!",
        "Maya is on bed rest until the baby comes.",
    )
    assert not _ends("Maya and family had the baby!", "Maya is on bed rest for her back.")
    # A day off, a trip begun, a worry gone: nothing held ended.
    for text in ("Maya is finally off work!", "Maya is finally off to Spain!",
                 "Maya is finally off the hook.", "Maya is off dairy."):  # fmt: skip
        assert detect(text, "Maya") is None, text
