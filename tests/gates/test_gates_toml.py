"""Gates files: the shipped example loads; errors name the file and the field."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.gates import load_gates
from pathgrade.metrics import catalogue

EXAMPLE = Path(__file__).parents[2] / "examples" / "gates.toml"


def test_example_file_uses_every_rule_on_defined_names() -> None:
    gates = load_gates(EXAMPLE)  # loading checks every name against the catalogue
    rules = {g.rule for g in gates.gates}
    assert {
        "ci_lower_above",
        "min_relative_change",
        "not_below_baseline",
        "not_above_baseline",
        "max_relative_change",
        "max_absolute_change",
        "max",
        "equal",
    } <= rules
    metrics = {g.metric for g in gates.gates}
    assert {"defects.wasted_step", "defects.unrecovered_error", "latency_ms", "tokens"} <= metrics
    written = {g["metric"] for g in tomllib.loads(EXAMPLE.read_text("utf-8"))["gate"]}
    assert not written & set(catalogue.deprecated_names())  # the example writes the one names
    # the names the issue found in the old example, which pathgrade never emits
    assert not metrics & {"defects.timeout", "defects.parse_failure", "acl_leaks"}
    hard = {g.metric for g in gates.gates if g.hard}
    assert hard == {
        "defects.forbidden_action",
        "over_budget",
        "defects.acl_leak",  # the ACL gate reads the acl_leak defect (issue 25)
        "defects.injection_followed",
        "defects.unapproved_action",
    }
    assert gates.settings.resamples == 10_000


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        (
            '[[gate]]\nmetric = "x"\nrule = "max"\nthreshold = "high"\n',
            "gate[1].threshold",
            "number",
        ),
        ('[[gate]]\nmetric = "x"\nrule = "max"\nthresold = 1\n', "gate[1].thresold", "unknown key"),
        ('[[gate]]\nrule = "max"\nthreshold = 1\n', "gate[1].metric", "missing"),
        ('[[gate]]\nmetric = "x"\nrule = "upward"\n', "gate[1].rule", "unknown rule"),
        (
            '[[gate]]\nmetric = "x"\nrule = "max"\nthreshold = 1\nhard = 1\n',
            "gate[1].hard",
            "boolean",
        ),
        (
            '[settings]\nresamples = 0\n[[gate]]\nmetric = "x"\nrule = "min"\nthreshold = 1\n',
            "settings.resamples",
            "from 1 to 1,000,000",
        ),
        (  # no upper bound let a typo run for hours
            '[settings]\nresamples = 1000001\n[[gate]]\nmetric = "x"\nrule = "min"\n'
            "threshold = 1\n",
            "settings.resamples",
            "from 1 to 1,000,000",
        ),
        ("[settings]\nseed = 1\n", "gate", "no gates"),
        ('[[gates]]\nmetric = "x"\n', "gates", "top-level"),
    ],
)
def test_errors_name_file_and_field(tmp_path: Path, text: str, field: str, words: str) -> None:
    path = tmp_path / "gates.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_gates(path)
    assert caught.value.file == str(path)
    assert caught.value.field == field
    assert words in str(caught.value)


def test_bad_toml_and_absent_file(tmp_path: Path) -> None:
    path = tmp_path / "gates.toml"
    path.write_text("[[gate]\n", encoding="utf-8")
    with pytest.raises(InputError, match="invalid TOML"):
        load_gates(path)
    with pytest.raises(InputError, match="cannot read"):
        load_gates(tmp_path / "absent.toml")
