"""The guards of ``semantic`` matching (pathgrade.semantic.guards): the issue's normalisation
examples, entities, negation, and that no guard ever turns two differing ids into a match."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathgrade.metrics.trajectory.semantic_fields import SemanticField, SemanticOptions
from pathgrade.semantic.guards import GUARDS, check

from .helpers import evidence

ALL = GUARDS


@pytest.mark.parametrize(
    ("ref", "agent"),
    [
        ("meeting at 3 pm", "meeting at 15:00"),
        ("pay $20", "pay 20 USD"),
        ("pay $20", "pay 20 dollars"),
        ("ship 2 kg of rice", "ship 2000 g of rice"),
        ("a 1 hour call", "a 60 minutes call"),
        ("book two tickets", "book 2 tickets"),
        ("arrive May 3", "arrive 3rd May 2024"),
        ("20% off", "20 percent off"),
    ],
)
def test_equal_after_normalisation_is_a_match(ref: str, agent: str) -> None:
    found = check(ref, agent, ALL)
    assert found is not None and (found.guard, found.match) == ("number", True)


@pytest.mark.parametrize(
    ("ref", "agent"),
    [
        ("pay $20", "pay 20 EUR"),
        ("meeting at 3 pm", "meeting at 3 am"),
        ("refund order 1234", "refund order 1243"),
        ("ship 1 lb", "ship 0.45 kg"),  # conversions are exact
        ("arrive May 3", "arrive May 4"),
        ("pay $20", "pay 20"),  # a currency against none
    ],
)
def test_numbers_that_differ_never_match(ref: str, agent: str) -> None:
    found = check(ref, agent, ALL)
    assert found is not None and found.match is False


def test_ids_are_always_guarded() -> None:
    for guards in ((), ALL):
        found = check("refund #W2378156", "refund #W2378165", guards)
        assert found is not None and (found.guard, found.match) == ("id", False)


def test_without_the_number_guard_every_digit_token_is_compared_as_written() -> None:
    found = check("meeting at 3 pm", "meeting at 15:00", ())
    assert found is not None and (found.guard, found.match) == ("id", False)


@pytest.mark.parametrize(
    ("ref", "agent", "guard"),
    [
        ("coffee with milk", "coffee without milk", "negation"),
        ("We can refund the ticket.", "We cannot refund the ticket.", "negation"),
        ("cancel my order", "keep my order", "negation"),
        ("Hi Anna, your order has shipped.", "Hi Maria, your order has shipped.", "entity"),
    ],
)
def test_entities_and_negations_decide_a_mismatch(ref: str, agent: str, guard: str) -> None:
    found = check(ref, agent, ALL)
    assert found is not None and (found.guard, found.match) == (guard, False)
    assert check(ref, agent, tuple(g for g in ALL if g != guard)) is None  # that guard only


@pytest.mark.parametrize(
    ("ref", "agent"),
    [
        ("Mars", "planet Mars"),
        ("cheap flights from New York to Boston", "inexpensive flights New York to Boston"),
        ("NYC marathon route", "New York City marathon route"),
        ("The export button is not disabled", "The export button stays enabled"),
        ("User cannot log in", "User is unable to log in"),
    ],
)
def test_paraphrases_are_left_to_the_embedding(ref: str, agent: str) -> None:
    assert check(ref, agent, ALL) is None


_ID = st.one_of(
    st.from_regex(r"#W[0-9]{7}", fullmatch=True),
    st.from_regex(r"[A-Z]{3}[0-9]{3}", fullmatch=True),
    st.from_regex(r"[a-z]{3,6}_[a-z]{2,5}_[0-9]{4}", fullmatch=True),
    st.from_regex(r"[0-9]{3,10}", fullmatch=True),
)
_CONTEXT = st.sampled_from(["refund order {}", "{}", "Please look up {} today.", "id {} ok"])


@given(_ID, _ID, _CONTEXT, st.lists(st.sampled_from(GUARDS), unique=True))
def test_no_guard_turns_two_differing_ids_into_a_match(
    a: str, b: str, context: str, guards: list[str]
) -> None:
    ref, agent = context.format(a), context.format(b)
    if a.casefold() == b.casefold():
        return
    found = check(ref, agent, guards)
    assert found is not None and found.match is False
    # and the matcher agrees whatever the cosine (here 1: the same direction)
    how = SemanticField(
        evidence({ref: 0.0, agent: 0.0}), "t", "q", 0.85, True, SemanticOptions(0.5, tuple(guards))
    )
    assert how.semantic(ref, agent).matched is False


def test_a_guard_that_decides_says_so_in_the_field_details() -> None:
    how = SemanticField(evidence({}), "t", "q", 0.85, True, SemanticOptions(None, ALL))
    detail = how.semantic("pay $20", "pay 20 EUR").to_dict()
    assert detail == {
        "field": "q", "mode": "semantic", "match": False, "decided_by": "guard:number",
        "reason": "numbers, dates, times, money or units differ",
    }  # fmt: skip
