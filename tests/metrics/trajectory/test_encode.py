"""Integer coding of calls: equal keys exactly when ``exact`` matching says equal.

The encoder keys plain ``exact`` calls by a canonical JSON text instead of walking the
arguments (``freeze``); these tests hold it to ``freeze``'s equality.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.config import MatchingConfig
from pathgrade.core.types import Step
from pathgrade.metrics.trajectory.arguments import MatcherSet, freeze
from pathgrade.metrics.trajectory.canonical import exact_key_json
from pathgrade.metrics.trajectory.encode import StepEncoder

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**53, 10**16, 2**63, 2**64 - 1, 2**64]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e16, 1.5, 2.0**53, 1e300, 2.0**64]),
    st.text(max_size=6),
    st.sampled_from(["1", "1.0", "null", "a1.5", 'q"1e5', "back\\slash", "2e"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "1.5", "null"]), inner, max_size=3),
    ),
    max_leaves=8,
)
_arguments = st.one_of(
    st.dictionaries(st.sampled_from(["id", "n", "q"]), _values, max_size=3),
    st.lists(_values, min_size=1, max_size=3),
)


def _twin(value: Any, flips: list[bool]) -> Any:
    """An equal value written differently (ints as floats and back, tuples for lists, keys
    in another order), as ``flips`` says, one flip per node."""
    flip = flips.pop() if flips else False
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value) if flip and abs(value) < 2**53 else value
    if isinstance(value, float):
        return int(value) if flip and value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, dict):
        items = [(k, _twin(v, flips)) for k, v in value.items()]
        return dict(reversed(items) if flip else items)
    items = [_twin(v, flips) for v in value]
    return tuple(items) if flip else items


def _keys(arguments: list[Any], mode: str = "exact") -> tuple[list[int], list[int]]:
    encoder = StepEncoder(MatcherSet(MatchingConfig(mode=mode)))
    steps = [Step.model_construct(tool="t", arguments=a, error=None, turn=None) for a in arguments]
    encoded = encoder.encode([steps])
    return encoded.key.tolist(), encoded.ident.tolist()


@settings(max_examples=400, deadline=None)
@given(st.lists(_arguments, min_size=2, max_size=4))
def test_exact_keys_are_equal_exactly_when_frozen_arguments_are(arguments: list[Any]) -> None:
    keys, idents = _keys(arguments)
    frozen = [freeze(a) for a in arguments]
    for i in range(len(arguments)):
        for j in range(len(arguments)):
            assert (keys[i] == keys[j]) == (frozen[i] == frozen[j]), (arguments[i], arguments[j])
            assert (idents[i] == idents[j]) == (frozen[i] == frozen[j])


@settings(max_examples=300, deadline=None)
@given(_arguments, st.lists(st.booleans(), max_size=12), _arguments)
def test_differently_written_equal_arguments_share_a_key(
    value: Any, flips: list[bool], other: Any
) -> None:
    twin = _twin(value, flips)
    assert freeze(twin) == freeze(value)
    keys, idents = _keys([value, twin, other])
    assert keys[0] == keys[1] and idents[0] == idents[1]
    assert (keys[0] == keys[2]) == (freeze(value) == freeze(other))


@settings(max_examples=200, deadline=None)
@given(_arguments, _arguments)
def test_canonical_text_agrees_with_freeze(a: Any, b: Any) -> None:
    def text(value: Any) -> bytes | None:
        try:
            raw: bytes | str = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            raw = repr(value)
        return exact_key_json(raw, value)

    ta, tb = text(a), text(b)
    if ta is not None and tb is not None:
        assert (ta == tb) == (freeze(a) == freeze(b))


def test_equal_numbers_of_both_types_are_one_key_and_look_alikes_are_not() -> None:
    keys, _ = _keys(
        [
            {"n": 1},  # 0
            {"n": 1.0},  # 1: equals 0
            {"n": -0.0},  # 2
            {"n": 0},  # 3: equals 2
            {"n": 1e16},  # 4
            {"n": 10**16},  # 5: equals 4
            {"n": "1"},  # 6: a string is not a number
            {"n": True},  # 7: true is not 1
            {"n": "1.0"},  # 8
            {"n": None},  # 9
            {"n": "null"},  # 10
            {"n": [1.0, {"x": 2.0}]},  # 11
            {"n": (1, {"x": 2})},  # 12: equals 11 (a tuple is a JSON array)
            {"n": 2**70},  # 13: past 64 bits, keyed by freeze
            {"n": float(2**70)},  # 14: equals 13
        ]
    )
    same = {(0, 1), (2, 3), (4, 5), (11, 12), (13, 14)}
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            assert (keys[i] == keys[j]) == ((i, j) in same), (i, j)


def test_normalized_and_plain_exact_tools_keep_their_own_semantics() -> None:
    keys, _ = _keys([{"q": " Paris "}, {"q": "paris"}, {"q": "10.0"}, {"q": 10}], "normalized")
    assert keys[0] == keys[1] and keys[2] == keys[3] and keys[0] != keys[2]


def test_shared_step_objects_are_coded_like_separate_ones() -> None:
    encoder = StepEncoder(MatcherSet(MatchingConfig()))
    shared = Step(tool="t", arguments={"id": 1})
    separate = [Step(tool="t", arguments={"id": 1}), Step(tool="u", arguments={"id": 1})]
    encoded = encoder.encode([[shared, separate[1], shared], [separate[0], shared]])
    assert encoded.key.tolist()[0] == encoded.key.tolist()[2] == encoded.key.tolist()[3]
    assert encoded.key.tolist()[1] != encoded.key.tolist()[0]
    assert encoded.tool.tolist() == [0, 1, 0, 0, 0]
    assert encoded.calls.tolist() == [0, 1, 0, 0, 0]
    # a second batch reuses the codes of the first
    again = encoder.encode([[Step(tool="u", arguments={"id": 1.0})]])
    assert again.key.tolist() == [encoded.key.tolist()[1]]


def test_nan_and_infinity_are_null_consistently() -> None:
    """JSON writes NaN and the infinities as null, so calls are one call with null (the
    documented limit); the canonical texts must agree, whichever other floats there are."""
    nan, inf = float("nan"), float("inf")
    keys, _ = _keys(
        [{"a": 1.0, "b": nan}, {"a": 1, "b": nan}, {"a": 1, "b": None}, {"b": inf, "a": 1}]
    )
    assert len(set(keys)) == 1


class _CountingStep:
    """A step that counts how often its tool is read."""

    reads = 0

    def __init__(self, tool: str, arguments: Any) -> None:
        self._tool, self.arguments, self.error, self.turn = tool, arguments, None, None

    @property
    def tool(self) -> str:
        _CountingStep.reads += 1
        return self._tool


def test_each_step_object_is_read_once_per_encoder() -> None:
    encoder = StepEncoder(MatcherSet(MatchingConfig()))
    a, b = _CountingStep("t", {"id": 1}), _CountingStep("t", {"id": 2})
    _CountingStep.reads = 0
    refs = encoder.encode([[a, b, a]])  # type: ignore[list-item]
    assert _CountingStep.reads == 2
    agents = encoder.encode([[b, a], [a, _CountingStep("t", {"id": 1.0})]])  # type: ignore[list-item]
    assert _CountingStep.reads == 3  # only the new object was read
    assert agents.calls.tolist()[:3] == [refs.calls[1], refs.calls[0], refs.calls[0]]
    assert agents.key.tolist() == [refs.key[1], refs.key[0], refs.key[0], refs.key[0]]


def test_a_failed_call_and_its_clean_retry_share_a_key_across_batches() -> None:
    """A failed call is a call of its own (its error is part of it) but matches as the same
    arguments: its key is that of the clean call, even when the clean call only comes in a
    later batch (or never), under every mode."""
    for mode in ("exact", "normalized", "ignore"):
        encoder = StepEncoder(MatcherSet(MatchingConfig(mode=mode)))
        failed = Step(tool="lookup", arguments={"id": "A", "n": 1.0}, error="boom")
        first = encoder.encode([[failed, Step(tool="lookup", arguments={"id": "B"}, turn=2)]])
        clean = Step(tool="lookup", arguments={"n": 1, "id": "A"})
        other = Step(tool="lookup", arguments={"id": "B"})
        later = encoder.encode([[clean, other]])
        assert later.key[0] == first.key[0] and later.calls[0] != first.calls[0]
        assert later.error.tolist() == [False, False] and first.error.tolist() == [True, False]
        assert later.turn.tolist() == [-1, -1] and first.turn.tolist() == [-1, 2]
        assert (later.key[1] == first.key[1]) and (later.key[0] == later.key[1]) == (
            mode == "ignore"
        )
        assert later.ident[0] == first.ident[0] and later.ident[1] == first.ident[1]
        assert later.ident[0] != later.ident[1]
