"""MetricSpec parsing/printing and the registry."""

from __future__ import annotations

import pytest

from pathgrade.core.errors import InputError
from pathgrade.metrics.registry import BUILTIN, MetricInfo, Registry, info, resolve
from pathgrade.metrics.spec import MetricSpec, parse_spec


@pytest.mark.parametrize(
    "text",
    [
        "ndcg@10",
        "map",
        "ap@5(denominator=gold)",
        "ndcg@10(gain=linear)",
        "recall@5(no_gold=zero,rel=2)",
    ],
)
def test_round_trip(text: str) -> None:
    spec = parse_spec(text)
    assert str(spec) == text
    assert parse_spec(str(spec)) == spec
    assert hash(parse_spec(text)) == hash(spec)


def test_params_are_canonical_and_hashable() -> None:
    a = parse_spec("recall@5( rel = 2 , no_gold=zero)")
    b = MetricSpec.of("recall", 5, no_gold="zero", rel=2)
    assert a == b and str(a) == "recall@5(no_gold=zero,rel=2)"
    assert {a: 1}[b] == 1
    assert repr(a) == "MetricSpec('recall@5(no_gold=zero,rel=2)')"


@pytest.mark.parametrize(
    "text", ["", "ndcg@", "ndcg@0", "ndcg@1.5", "nd cg", "__import__('os')", "a(b)", "a(x=1,x=2)"]
)
def test_parse_errors(text: str) -> None:
    with pytest.raises(InputError):
        parse_spec(text)


def test_undefined_policy() -> None:
    assert parse_spec("map").undefined == "nan"
    assert parse_spec("map(undefined=zero)").undefined == "zero"
    with pytest.raises(InputError, match="undefined"):
        parse_spec("map(undefined=maybe)")


def test_resolve_fills_direction_and_checks_params() -> None:
    spec = resolve("ndcg@10(gain=linear)", "retrieval")
    assert spec.higher_is_better is True
    assert str(spec) == "ndcg@10(gain=linear)"
    with pytest.raises(InputError, match="no parameter 'denominator'"):
        resolve("ndcg@10(denominator=gold)")
    with pytest.raises(InputError, match="not a number"):
        resolve("recall@5(rel=high)")
    assert info("P").name == "precision"


def test_duplicate_names_are_an_error() -> None:
    row = MetricInfo("x", "test", "higher", "a metric")
    registry = Registry([row], plugins=False)
    with pytest.raises(ValueError, match="registered twice"):
        registry.add(MetricInfo("y", "test", "higher", "another", aliases=("x",)))
    names = [r.name for r in BUILTIN] + [a for r in BUILTIN for a in r.aliases]
    assert len(names) == len(set(names))


def test_unknown_metric_lists_known_names() -> None:
    with pytest.raises(InputError, match=r"known: .*ndcg"):
        resolve("ndgc@10")
