"""Cohen's kappa and Krippendorff's alpha against published worked examples."""

from __future__ import annotations

import math

import pytest

from pathgrade.stats.agreement import cohen_kappa, krippendorff_alpha

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, missing values (None). Published: nominal .743, ordinal .815, interval .849,
# ratio .797.
RELIABILITY_DATA: list[list[float | None]] = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_published_example(level: str, published: float) -> None:
    alpha = krippendorff_alpha(RELIABILITY_DATA, level)  # type: ignore[arg-type]
    assert round(alpha, 3) == published


def test_krippendorff_binary_two_coders() -> None:
    # Krippendorff (2011), section A: two observers, binary data, ten units: alpha = 0.095
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert round(krippendorff_alpha([a, b], "nominal"), 3) == 0.095


def test_krippendorff_errors() -> None:
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(RELIABILITY_DATA, "cardinal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one entry per unit"):
        krippendorff_alpha([[1, 2], [1]])
    with pytest.raises(ValueError, match="two distinct"):
        krippendorff_alpha([[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="two coders"):
        krippendorff_alpha([[1, 2]])


def test_cohen_kappa_wikipedia_example() -> None:
    # 50 proposals; yes/yes 20, yes/no 5, no/yes 10, no/no 15: p_o = .7, p_e = .5, kappa = .4
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_edges() -> None:
    assert cohen_kappa([1, 2, 3], [1, 2, 3]) == 1.0
    assert math.isnan(cohen_kappa(["x", "x"], ["x", "x"]))
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 2])
    with pytest.raises(ValueError):
        cohen_kappa([], [])
