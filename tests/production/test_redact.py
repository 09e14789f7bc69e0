"""Redaction: each kind found (hand-written positives), ids left alone (negatives), fields,
stable placeholders, and properties (idempotent; no secret survives) with hypothesis."""

from __future__ import annotations

import copy
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.production.redact import (
    KINDS,
    PLACEHOLDER,
    Redactor,
    is_card_number,
    luhn_valid,
    redact,
)

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

POSITIVES = [
    ("email", "write to alice.smith+tag@example.co.uk today", "alice.smith+tag@example.co.uk"),
    ("email", "Bob@Mail.Example.com", "Bob@Mail.Example.com"),
    ("phone", "call +1 415 555 2671 now", "+1 415 555 2671"),
    ("phone", "+44 20 7946 0958", "+44 20 7946 0958"),
    ("phone", "+49 (30) 1234-5678", "+49 (30) 1234-5678"),
    ("phone", "mobile +4915112345678", "+4915112345678"),
    ("phone", "(415) 555-2671", "(415) 555-2671"),
    ("phone", "office 415-555-2671.", "415-555-2671"),
    ("phone", "415.555.2671", "415.555.2671"),
    ("phone", "toll free 1-800-555-1234", "1-800-555-1234"),
    ("card", "card 4111 1111 1111 1111 expires", "4111 1111 1111 1111"),
    ("card", "5500-0000-0000-0004", "5500-0000-0000-0004"),
    ("card", "amex 378282246310005", "378282246310005"),
    ("card", "6011111111111117", "6011111111111117"),
    ("card", "mastercard 2223003122003222", "2223003122003222"),
    ("api_key", "key sk-proj-abcdefghijklmnopqrstuv1234", "sk-proj-abcdefghijklmnopqrstuv1234"),
    ("api_key", "ghp_" + "a1B2" * 9, "ghp_" + "a1B2" * 9),
    ("api_key", "xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF"),
    ("api_key", "aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("jwt", f"token={JWT}", JWT),
    ("token", "Authorization: Bearer abc123.def456-ghi", "abc123.def456-ghi"),
    ("token", "authorization: bearer Zm9vYmFyYmF6", "Zm9vYmFyYmF6"),
    ("secret", "key=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "9f86d0"),
    ("secret", "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY123", "wJalrXUtnFEMI"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), POSITIVES)
def test_each_kind_is_found(kind: str, text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert f"<{kind}:1>" in out


NEGATIVES = [
    "order A17",
    "order ORD-2024-001234 shipped",
    "2024-01-15",
    "2024-01-15T10:30:00Z",
    "2024-01-15 10:30:00",
    "version 1.2.3, v10.4.12",
    "123e4567-e89b-12d3-a456-426614174000",
    "550e8400-e29b-41d4-a716-446655440000",
    "ts 1700000000000",  # milliseconds: 13 digits, no card prefix
    "order 4111111111111112",  # a Visa prefix, but the Luhn digit is wrong
    "id 4155552671",  # bare digits: an id, not a US phone
    "192.168.100.200",
    "12345678901234",
    "temperature -63 + 273.15",
    "price 1,234.56",
    "ISBN 978-3-16-148410-0",
    "+1.5 degrees",
    "between 10:30-11:45",
    "lookup_order:A17",
    "src/pathgrade/production/redact_module_v2.py",
    "get_customer_orders_by_region_2024_Q1_final_v2_Report",
    "PaymentService/ProcessRefundRequestV2/Handler2024Q1Final",
    "The Quick Brown Fox Jumps Over The Lazy Dog 12",
    "sk-short",  # too short for a key
    "user@localhost",  # no top-level domain
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_ids_dates_and_versions_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_luhn_and_card_prefixes() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert is_card_number("4111111111111111")
    assert not is_card_number("1700000000005")  # Luhn-valid, but no network starts with 17
    assert not is_card_number("41111111111111111111")  # 20 digits


def test_an_integer_card_number_is_redacted_too() -> None:
    assert redact({"card": 4111111111111111, "qty": 3}) == {"card": "<card:1>", "qty": 3}


def test_same_secret_same_placeholder_different_secret_different() -> None:
    value = {
        "a": "mail a@example.com",
        "b": ["A@example.com", "a@example.com"],
        "c": {"to": "a@example.com", "phone": "+1 415 555 2671", "again": "(415) 555-2671"},
    }
    assert redact(value) == {
        "a": "mail <email:1>",
        "b": ["<email:2>", "<email:1>"],
        "c": {"to": "<email:1>", "phone": "<phone:1>", "again": "<phone:1>"},
    }


def test_one_redactor_keeps_its_numbering_across_calls() -> None:
    redactor = Redactor()
    assert redactor("x@example.com") == "<email:1>"
    assert redactor("y@example.com") == "<email:2>"
    assert redactor(["x@example.com"]) == ["<email:1>"]
    assert redactor.counts == {"email": 2}


def test_named_fields_are_replaced_whole_anywhere() -> None:
    value = {
        "user": "ann",
        "Password": "hunter2",
        "nested": [{"password": "hunter2"}, {"ssn": 123456789}, {"ssn": {"a": 1}}],
    }
    assert redact(value, fields=["password", "ssn"]) == {
        "user": "ann",
        "Password": "<password:1>",
        "nested": [{"password": "<password:1>"}, {"ssn": "<ssn:1>"}, {"ssn": "<ssn:2>"}],
    }


def test_keys_are_redacted_and_the_input_is_not_changed() -> None:
    value = {"alice@example.com": {"note": "card 4111111111111111"}}
    before = copy.deepcopy(value)
    assert redact(value) == {"<email:1>": {"note": "card <card:1>"}}
    assert value == before


def test_kinds_can_be_chosen_and_unknown_kinds_are_refused() -> None:
    assert Redactor(kinds=["email"])("a@example.com 4111111111111111") == (
        "<email:1> 4111111111111111"
    )
    with pytest.raises(ValueError, match="unknown redaction kinds"):
        Redactor(kinds=["emails"])
    assert set(KINDS) == {"api_key", "jwt", "token", "email", "card", "phone", "secret"}


def test_non_text_values_pass_through() -> None:
    assert redact([None, True, 1.5, 42, "ok"]) == [None, True, 1.5, 42, "ok"]


# Properties ---------------------------------------------------------------------------------

_local = st.text(string.ascii_lowercase + string.digits + "._+", min_size=1, max_size=12).filter(
    lambda s: s[0] not in "._+" and s[-1] not in "._+"
)
_label = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=10)
emails = st.builds(
    lambda u, d, t: f"{u}@{d}.{t}", _local, _label, st.sampled_from(["com", "org", "io", "co.uk"])
)
_filler = st.text(string.ascii_letters + string.digits + " .,:;-_/()[]{}'\"!?\n", max_size=30)


def _card(prefix: str, length: int, body: str) -> str:
    digits = (prefix + body)[: length - 1]
    for check in "0123456789":
        if luhn_valid(digits + check):
            return digits + check
    raise AssertionError("unreachable")


cards = st.builds(
    _card,
    st.sampled_from(["4", "51", "55", "34", "37", "6011", "35"]),
    st.sampled_from([15, 16]),
    st.text(string.digits, min_size=18, max_size=18),
).filter(is_card_number)
keys = st.one_of(
    st.builds(
        lambda s: "sk-" + s, st.text(string.ascii_letters + string.digits, min_size=24, max_size=40)
    ),
    st.builds(
        lambda s: "ghp_" + s,
        st.text(string.ascii_letters + string.digits, min_size=36, max_size=40),
    ),
    st.builds(
        lambda s: "AKIA" + s,
        st.text(string.ascii_uppercase + string.digits, min_size=16, max_size=16),
    ),
)
secrets = st.one_of(emails, cards, keys)
json_like = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _filler, emails, cards),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_label, inner, max_size=4)
    ),
    max_leaves=12,
)
SETTINGS = settings(max_examples=200, deadline=None)


@SETTINGS
@given(json_like)
def test_redaction_is_idempotent(value: object) -> None:
    once = redact(value, fields=["password"])
    assert redact(once, fields=["password"]) == once


@SETTINGS
@given(st.lists(st.tuples(_filler, secrets), min_size=1, max_size=4), _filler)
def test_no_secret_survives_in_text(parts: list[tuple[str, str]], tail: str) -> None:
    text = "".join(f"{before} {secret} " for before, secret in parts) + tail
    out = redact(text)
    for _, secret in parts:
        assert secret not in out
    assert not re.search(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]{2,}", out)


@SETTINGS
@given(st.lists(secrets, min_size=1, max_size=6, unique=True))
def test_placeholders_are_one_to_one(found: list[str]) -> None:
    redactor = Redactor()
    first = [redactor(s) for s in found]
    assert [redactor(s) for s in found] == first  # the same secret: the same placeholder
    assert len(set(first)) == len(found)  # different secrets: different placeholders
    assert all(PLACEHOLDER.fullmatch(p) for p in first)


@SETTINGS
@given(_filler)
def test_plain_text_without_digits_or_at_signs_is_unchanged(text: str) -> None:
    plain = "".join(c for c in text if not c.isdigit() and c != "@")
    assert redact(plain) == plain
