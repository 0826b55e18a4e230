"""People's ages a memory states (``text.stated_ages``), on sentences written for these
tests from everyday life (not benchmark items)."""

import pytest

from logicmem.routes.visible.text import stated_ages


@pytest.mark.parametrize(
    ("text", "ages"),
    [
        ("Maya's son Leo is 6 and he's allergic to peanuts.", [6]),
        ("We have a 4-year-old and a baby on the way.", [4]),
        ("Omar just turned 67.", [67]),
        ("The twins, ages 5 and 8, love soccer.", [5, 8]),
        ("Omar's kids are 4 and 9 years old.", [4, 9]),
        ("Omar's grandmother is ninety-one.", [91]),
        ("Omar's daughter's 13 and wants her own room.", [13]),
        # an animal's or a thing's age, a span, a measure, an infant's months
        ("Our dog Luna is 5.", []),
        ("Omar's laptop is 5 years old.", []),
        ("Omar is 15 years sober.", []),
        ("Omar is 6 feet tall.", []),
        ("Omar's daughter is 8 months old.", []),
    ],
)  # fmt: skip
def test_the_ages_said_of_people(text: str, ages: list[int]) -> None:
    assert stated_ages(text) == ages
