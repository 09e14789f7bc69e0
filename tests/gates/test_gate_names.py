"""Gates know every name: an undefined metric or defect kind is a load-time error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.config import PENALTY_KEYS
from pathgrade.core.errors import InputError
from pathgrade.gates.model import PROVENANCE_CHECKS
from pathgrade.io.gates import check_metric_name, load_gates, parse_gates
from pathgrade.metrics import catalogue, registry
from pathgrade.metrics.registry import BUILTIN, MetricInfo, Registry


def gate(metric: str) -> dict[str, Any]:
    return {"metric": metric, "rule": "max", "threshold": 1.0}


def doc(*metrics: str) -> dict[str, Any]:
    return {"gate": [gate(m) for m in metrics]}


def test_mistyped_defect_kind_names_file_gate_and_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    path.write_text(
        '[[gate]]\nmetric = "path_score"\nrule = "min"\nthreshold = 50\n'
        '[[gate]]\nmetric = "goal_success"\nrule = "not_below_baseline"\n'
        '[[gate]]\nmetric = "defects.wasted_stpe"\nstatistic = "sum"\n'
        'rule = "not_above_baseline"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_gates(path)
    error = caught.value
    assert error.file == str(path) and error.field == "gate[3].metric"
    assert "did you mean defects.wasted_step?" in str(error)
    assert "\n" not in str(error)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("defects.timeout", "expected one of defects.missing_step"),  # nothing close: list all
        ("defects.parse_failure", "unknown defect kind"),
        ("usage.latncy_ms", "did you mean latency_ms?"),  # the one name, not the old spelling
        ("usage.input_tokens", "unknown usage field"),
        ("acl_leaks", "unknown metric 'acl_leaks'"),
        ("ndgc@10", "did you mean ndcg@10?"),
        ("pathscore", "did you mean path_score"),
        ("recall@20(no_gold=zreo)", "expected one of skip, zero"),
        ("map@5", "takes no cut-off"),
    ],
)
def test_undefined_names_are_errors(name: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_gates(doc("path_score", name), "g.toml")
    assert caught.value.field == "gate[2].metric"
    assert caught.value.file == "g.toml"
    assert words in str(caught.value)


@pytest.mark.parametrize(
    "name",
    [
        "path_score",
        "forbidden_action_count",
        "recall@20",
        "ndcg@10(gain=linear)",
        "P@5",
        "mrr",
        "rubric.tone",
        "pass@3",
        "latency_ms",
        "usage.steps",
        "dangerous_false_positives",
    ],
)
def test_defined_names_load(name: str) -> None:
    assert parse_gates(doc(name)).gates[0].metric == name


def test_every_defect_kind_and_usage_field_is_accepted() -> None:
    names = catalogue.names("defects") + catalogue.names("usage")
    # 13 defect kinds (core.config.PENALTY_KEYS: 8 of the path, 5 of the system layer)
    # + usage.steps (the usage object's tokens, cost and latency_ms are the system rows)
    assert len(names) == 14
    assert [g.metric for g in parse_gates(doc(*names)).gates] == names


def test_name_check_can_be_turned_off_for_in_memory_documents() -> None:
    assert parse_gates(doc("m"), check_names=False).gates[0].metric == "m"


class _EntryPoint:
    name = "acme"

    @staticmethod
    def load() -> list[MetricInfo]:
        return [MetricInfo("acl_leak_rate", "retrieval", "lower", "ACL leaks / retrieved")]


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh registry whose entry-point group holds one plug-in metric."""
    monkeypatch.setattr(registry, "REGISTRY", Registry(BUILTIN))
    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [_EntryPoint()] if group == "pathgrade.metrics" else [],
    )
    yield


@pytest.mark.usefixtures("plugin")
def test_plugin_metrics_are_accepted() -> None:
    check_metric_name("acl_leak_rate")
    check_metric_name("acl_leak_rate@10")
    with pytest.raises(InputError, match="did you mean acl_leak_rate"):
        check_metric_name("acl_leak_rat")


def test_without_the_plugin_its_name_is_unknown() -> None:
    with pytest.raises(InputError, match="unknown metric 'acl_leak_rate'"):
        check_metric_name("acl_leak_rate")


def test_every_catalogued_name_is_accepted() -> None:
    for row in catalogue.rows():
        if not row.pattern:  # families are spelled rubric.<dimension>, pass@<k>: not names
            check_metric_name(row.name)
            for alias in row.aliases:
                check_metric_name(alias)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_any_text_is_accepted_or_a_one_line_input_error(name: str) -> None:
    try:
        check_metric_name(name, file="g.toml", field="gate[1].metric")
    except InputError as error:
        assert "\n" not in str(error)
        assert error.field == "gate[1].metric" and error.file == "g.toml"
    else:
        # no plug-in is installed here; changed_variables checks provenance, not a metric
        assert catalogue.is_known(name) or name in PROVENANCE_CHECKS


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=20))
def test_a_defect_kind_is_accepted_exactly_when_pathgrade_defines_it(kind: str) -> None:
    defined = kind in PENALTY_KEYS
    try:
        check_metric_name(f"defects.{kind}")
    except InputError:
        assert not defined
    else:
        assert defined
