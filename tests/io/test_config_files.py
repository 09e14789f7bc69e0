"""Scoring configs and gates files: numbers must be finite, and a file that is not TOML
(compressed, not UTF-8, nested 10,000 deep, endless) is one line naming it, never a crash."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import pytest

from pathgrade.core.errors import ConfigError, InputError
from pathgrade.io.config import load_config
from pathgrade.io.gates import load_gates
from pathgrade.io.toml_files import MAX_TOML_BYTES

GATE = '[[gate]]\nmetric = "path_score"\nrule = "{rule}"\n{key} = {value}\n'


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[penalties]\nmissing_step = inf\n", "penalties.missing_step"),
        ("[penalties]\nwasted_step = -inf\n", "penalties.wasted_step"),
        ("[penalties]\nover_budget = nan\n", "penalties.over_budget"),
        ("[weights]\ntool_accuracy = inf\n", "weights.tool_accuracy"),
        ("[matching]\nfuzzy_threshold = nan\n", "matching.fuzzy_threshold"),
        ("[answer]\nrel_tol = inf\n", "answer.rel_tol"),
        ("[budget]\ncost = inf\n", "budget.cost"),
        (
            '[matching.tools.refund.fields.amount]\nmode = "numeric"\nabs_tol = nan\n',
            "matching.tools.refund.fields.amount.abs_tol",
        ),
    ],
)
def test_config_numbers_must_be_finite(tmp_path: Path, text: str, field: str) -> None:
    """``missing_step = inf`` made path_score null for 7 of the 8 example runs."""
    path = tmp_path / "pathgrade.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.field == field and "finite number" in info.value.message
    assert str(info.value).startswith(f"{path}: field '{field}'")


@pytest.mark.parametrize(
    ("rule", "key", "value"),
    [
        ("max", "threshold", "inf"),
        ("min", "threshold", "-inf"),
        ("equal", "threshold", "nan"),
        ("min_relative_change", "threshold", "nan"),
        ("not_below_baseline", "tolerance", "inf"),
        ("not_above_baseline", "tolerance", "nan"),
    ],
)
def test_gate_thresholds_and_tolerances_must_be_finite(
    tmp_path: Path, rule: str, key: str, value: str
) -> None:
    """An infinite threshold or tolerance passes vacuously, a NaN always fails."""
    path = tmp_path / "gates.toml"
    path.write_text(GATE.format(rule=rule, key=key, value=value))
    with pytest.raises(InputError) as info:
        load_gates(path)
    assert info.value.field == f"gate[1].{key}" and "must be a finite number" in str(info.value)


def test_gate_confidence_nan_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gates.toml"
    path.write_text(
        GATE.format(rule="ci_lower_above", key="threshold", value=0) + "confidence = nan\n"
    )
    with pytest.raises(InputError) as info:
        load_gates(path)
    assert info.value.field == "gate[1].confidence"


def _bad_files(tmp_path: Path) -> list[tuple[Path, str]]:
    valid = b"[penalties]\nmissing_step = 30\n"
    files = {
        "gzip.toml": (gzip.compress(valid), "gzip file; decompress it first"),
        "bzip2.toml": (bz2.compress(valid), "bzip2 file"),
        "latin1.toml": ('name = "caf\xe9"\n'.encode("latin-1"), "not UTF-8 text (byte 11"),
        "deep_array.toml": (b"a = " + b"[" * 10_000 + b"]" * 10_000 + b"\n", "nested too deeply"),
        "deep_table.toml": (
            b"a = " + b"{b = " * 10_000 + b"1" + b"}" * 10_000,
            "nested too deeply",
        ),
        "huge.toml": (b"#" * (MAX_TOML_BYTES + 1), "larger than 16,777,216 bytes"),
    }
    out = []
    for name, (data, fragment) in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        out.append((path, fragment))
    return out


def test_config_files_that_are_not_toml_are_one_line_errors(tmp_path: Path) -> None:
    for path, fragment in [*_bad_files(tmp_path), (tmp_path, "cannot read config")]:
        with pytest.raises(ConfigError) as info:
            load_config(path)
        assert fragment in str(info.value) and "\n" not in str(info.value), path
        assert info.value.file == str(path)


def test_gates_files_that_are_not_toml_are_one_line_errors(tmp_path: Path) -> None:
    for path, fragment in [*_bad_files(tmp_path), (tmp_path, "cannot read gates file")]:
        with pytest.raises(InputError) as info:
            load_gates(path)
        assert fragment in str(info.value) and "\n" not in str(info.value), path
        assert info.value.file == str(path)


def test_an_endless_config_is_not_read_forever() -> None:
    with pytest.raises(ConfigError, match="larger than"):
        load_config("/dev/zero")


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "pathgrade.toml"
    path.write_bytes(b"\xef\xbb\xbf[penalties]\nmissing_step = 30\n")
    assert load_config(path).penalties.missing_step == 30


@pytest.mark.parametrize(
    ("text", "field"),
    [("tool = 3\n", "tool"), ("[tool]\npathgrade = [1]\n", "tool.pathgrade")],
)
def test_a_pyproject_with_a_mistyped_tool_table_is_one_line(
    tmp_path: Path, text: str, field: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    for call in (
        lambda: load_config(cwd=tmp_path),
        lambda: load_config(tmp_path / "pyproject.toml"),
    ):
        with pytest.raises(ConfigError) as info:
            call()
        assert info.value.field == field and "expected a table" in str(info.value)
