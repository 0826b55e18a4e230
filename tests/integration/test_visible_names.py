"""The real embedder: whether a fact is a standing constraint does not depend on whose
name it is said in."""

from pathlib import Path

import pytest

from logicmem import Memory
from logicmem.routes.visible.repo import VisibleRepository
from logicmem.types import Scope

pytestmark = pytest.mark.slow

FACTS = [
    "{u} works night shifts at the hospital four days a week.",
    "{u} has a stress fracture in the left foot.",
    "{u} only has a small balcony and no garden.",
    "{u} adopted a kitten that climbs every shelf.",
    "{u} is on a tight budget until the loan is paid off.",
]
ORDINARY = [
    "{u} went to a jazz concert by the river last Friday.",
    "{u} loves Thai food and spicy noodles.",
    "{u} thinks the new library building looks great.",
]


def _critical(tmp_path: Path, user: str, texts: list[str]) -> list[tuple[str, float]]:
    with Memory(tmp_path / f"{user}.db", config={"llm": {"provider": "none"}}) as mem:
        for text in texts:
            mem.add([{"role": "user", "content": text}], user_id=user, infer=False)
        rows = VisibleRepository.of(mem.store).critical_memories(Scope(user))
        return sorted((r.ctype, round(r.score, 3)) for r in rows)


def test_criticality_is_the_same_whoever_the_user_is(
    tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    reference = _critical(tmp_path, "Sam", [f.format(u="Sam") for f in FACTS + ORDINARY])
    assert len(reference) == len(FACTS)  # the ordinary ones stay out
    for name in ("Caroline", "Jon", "Melanie"):
        assert _critical(tmp_path, name, [f.format(u=name) for f in FACTS + ORDINARY]) == reference
    first_person = [
        "I work night shifts at the hospital four days a week.",
        "I have a stress fracture in my left foot.",
        "I only have a small balcony and no garden.",
        "I adopted a kitten that climbs every shelf.",
        "I'm on a tight budget until the loan is paid off.",
    ]
    assert len(_critical(tmp_path, "u-17", first_person)) == len(reference)


def test_a_fact_with_a_thing_or_a_value_as_its_subject_is_the_speakers(
    tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Said with a thing as the subject ("Shellfish makes me ..."), stored through the
    write path as "Shellfish makes Omar ...": still the user's own constraint, under an
    account id; the same said of someone else is not."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(model_cache))
    said = [
        ("Omar", "Shellfish makes me break out in hives."),
        ("Omar", "Walking everywhere keeps me sane."),
        ("Lena", "Strawberries give me a rash."),
    ]
    with Memory(tmp_path / "m.db", config={"llm": {"provider": "none"}}) as mem:
        mem.add(
            [
                {"role": "user" if who == "Omar" else "other", "name": who, "content": text}
                for who, text in said
            ],
            user_id="u-1842",
            session_id="s",
        )
        texts = {m.id: m.text for m in mem.get_all(user_id="u-1842")}
        rows = VisibleRepository.of(mem.store).critical_memories(Scope("u-1842"))
        critical = {texts[r.memory_id] for r in rows}
    assert "Shellfish makes Omar break out in hives." in critical
    assert not any("Lena" in t or "Strawberries" in t for t in critical)
