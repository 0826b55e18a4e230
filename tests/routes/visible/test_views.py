"""Personal logic read by its form (``routes.visible.views``), on sentences written for
these tests from everyday life (not benchmark items)."""

import pytest

from logicmem import Memory
from logicmem.routes.visible.criticality import VIEWS
from logicmem.routes.visible.kb import load_kb
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.routes.visible.views import GOAL, REASON, VALUE, view_kind
from logicmem.types import Scope


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # values: one good traded for another, a principle of spending
        ("Nadia would rather take the slow train than fly short distances.", VALUE),
        ("I'd sooner repair my old boots than buy new ones.", VALUE),
        ("Bram puts his evenings with the kids ahead of any side project.", VALUE),
        ("Privacy matters more to me than convenience.", VALUE),
        ("Ines believes in buying secondhand first.", VALUE),
        ("I'm happy to pay extra for tools that last a lifetime.", VALUE),
        ("Theo never buys anything on credit.", VALUE),
        ("Yuki doesn't mind paying more for fair-trade tea.", VALUE),
        # goals: a target that orders other choices
        ("Oskar is saving up for a sailing course.", GOAL),
        ("I'm paying off the van before we take any trip.", GOAL),
        ("Lea's goal is to run her own pottery studio.", GOAL),
        ("I want to be mortgage-free by the time I'm sixty.", GOAL),
        ("Marek is determined to finish his degree part time.", GOAL),
        ("We're building up an emergency fund before the baby comes.", GOAL),
        # ... or a pledge or challenge taken on as one's own
        ("Oskar signed up for a no-spend challenge this year.", GOAL),
        ("Lea took the plastic-free pledge in January.", GOAL),
        ("We're doing a 30-day no-sugar challenge.", GOAL),
        # reasons: a rule kept since something went wrong
        ("Since a hailstorm dented her car, Pia always parks in the garage.", REASON),
        ("After getting locked out twice, I keep a spare key with my neighbour.", REASON),
        ("Jonas no longer rents from private landlords because one kept his deposit.", REASON),
        ("Because of the kitchen fire, Aiko never leaves the stove on unattended.", REASON),
        ("My card got skimmed at a petrol station, so now I only pay by phone.", REASON),
        ("Ever since the outage, Femi has kept a power bank in every bag.", REASON),
        ("I swore off cheap phone chargers.", REASON),
        # near misses: a choice for once, a wish, something over, a time after "since",
        # a routine after "after", a past act after "never", an opinion of taste
        ("Nadia would rather order pizza tonight.", ""),
        ("I'd rather have the aisle seat on this flight.", ""),
        ("Oskar might start saving for a boat one day.", ""),
        ("I was trying to pay off the card last year.", ""),
        ("Lea used to put work ahead of everything.", ""),
        ("Pia has worked at the bakery since 2019.", ""),
        ("I haven't been swimming since we last talked.", ""),
        # ... as a memory retells it, the speaker's "we" named
        ("So much has happened since Pia and family last spoke - Pia got a new job.", ""),
        ("A lot has changed since Jonas and Aiko talked.", ""),
        # resolve with no aim of its own
        ("The first year is hard, but Pia is determined to make it work.", ""),
        ("Jonas is determined to make a difference.", ""),
        ("After work, Jonas always goes for a run.", ""),
        ("Aiko never saw the end of that film.", ""),
        ("Hard work is finally paying off!", ""),
        ("I'll pick up the bread on my way over.", ""),
        ("Femi is saving the leftovers for lunch.", ""),
        ("Green tea beats coffee every time.", ""),
        ("I covered his shift once, hopefully never again.", ""),
        ("Oskar signed up for a 5k in May.", ""),
        ("Lea did the ice bucket challenge.", ""),
        ("Marek was doing a no-spend challenge until March.", ""),
        ("Theo loved the baking challenge on TV.", ""),
        ("Yuki is taking the challenge at work.", ""),
    ],
)  # fmt: skip
def test_the_view_a_sentence_states_by_its_form(text: str, kind: str) -> None:
    assert view_kind(text) == kind


def test_a_view_read_by_its_form_is_the_users_and_keyed_by_a_view(store_url: str) -> None:
    """A value, goal or reason read by its form is a critical memory of a view's type with
    keys, whatever type the classifier would have guessed from a word of its theme ("a
    spare key" is no religious rule); someone else's view and a routine are not."""
    mine = [
        "I'd sooner repair my old boots than buy new ones.",
        "I'm paying off the van before we take any trip.",
        "Ever since the outage, I have kept a power bank in every bag.",
        "After getting locked out twice, I keep a spare key with my neighbour.",
    ]
    others = ["My sister would rather rent than buy a flat.", "After work, I always go for a run."]
    with Memory(store_url, config={"llm": {"provider": "none"}}) as mem:
        mem.add(
            [{"content": t, "turn_id": f"t{i}"} for i, t in enumerate([*mine, *others])],
            user_id="noor",
            session_id="s",
            infer=False,
        )
        repo = VisibleRepository.of(mem.store)
        rows = {r.memory_id: r for r in repo.critical_memories(Scope("noor"))}
        texts = {m.id: m.text for m in mem.get_all(user_id="noor")}
        keys, _ = repo.memory_keys(Scope("noor"))
    critical = {texts[m]: r for m, r in rows.items()}
    assert set(critical) == set(mine)
    assert all(r.ctype in VIEWS for r in critical.values())
    assert critical[mine[0]].source == "form" and critical[mine[0]].ctype == VALUE
    assert critical[mine[3]].ctype == REASON
    kb = load_kb()
    for row in critical.values():
        assert any(k.memory_id == row.memory_id for k in keys)
    # with no entry linked, the keys are the closest view's
    refs = {k.ref for k in keys if k.memory_id == critical[mine[0]].memory_id}
    assert refs and all(kb.entries[r].type in VIEWS for r in refs)
