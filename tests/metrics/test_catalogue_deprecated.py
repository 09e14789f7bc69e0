"""One row per quantity: ``usage.latency_ms``, ``usage.tokens`` and ``usage.cost`` are
deprecated spellings of the system rows ``latency_ms``, ``tokens`` and ``cost``."""

from __future__ import annotations

import warnings

import pytest

from pathgrade.core.errors import DeprecatedNameWarning
from pathgrade.metrics import catalogue

OLD = {"usage.latency_ms": "latency_ms", "usage.tokens": "tokens", "usage.cost": "cost"}


def test_each_quantity_has_one_row() -> None:
    names = catalogue.names()
    assert all(names.count(new) == 1 for new in OLD.values())
    assert not set(OLD) & set(names)
    assert catalogue.names("usage") == ["usage.steps"]  # no twin: it keeps its name
    assert catalogue.deprecated_names() == OLD
    for old, new in OLD.items():
        row = catalogue.row(new)
        assert row.layer == "system" and row.deprecated == (old,) and row.aliases == ()


@pytest.mark.parametrize(("old", "new"), sorted(OLD.items()))
def test_a_lookup_of_the_old_spelling_is_the_row_with_a_note(old: str, new: str) -> None:
    with pytest.warns(DeprecatedNameWarning) as caught:
        found = catalogue.find(old)
    assert found is catalogue.find(new)
    message = str(caught[0].message)
    assert "\n" not in message and f"{old!r} is deprecated" in message and repr(new) in message
    with pytest.warns(DeprecatedNameWarning):
        assert catalogue.canonical(old) == new
    assert catalogue.direction(new) == "lower"


def test_the_one_names_and_other_names_pass_without_a_note() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("latency_ms", "tokens", "cost", "usage.steps", "ndcg@10", "unknown_x"):
            assert catalogue.canonical(name) == name
        assert catalogue.find("latency_ms") is not None
        assert catalogue.find("P@5") is not None  # an alias, not deprecated


def test_the_note_is_shown_once_per_spelling() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            catalogue.find("usage.latency_ms")
            catalogue.canonical("usage.latency_ms")
        catalogue.canonical("usage.tokens")
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "'usage.latency_ms'" in messages[0] and "'usage.tokens'" in messages[1]


def test_near_misses_suggest_the_one_name() -> None:
    assert catalogue.closest("usage.latncy_ms")[0] == "latency_ms"
    assert "usage.latency_ms" not in catalogue.closest("usage.latency_m")


def test_the_doc_table_names_the_old_spelling_as_deprecated() -> None:
    table = catalogue.markdown_table()
    for old, new in OLD.items():
        assert f"| `{new}` (`{old}`, deprecated) |" in table
        assert f"| `{old}` |" not in table
