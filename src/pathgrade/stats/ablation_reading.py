"""What a 2x2 ablation says about one metric, in plain words.

The reading of a metric, in its better direction (the catalogue's; a "gain" is an
improvement):

* interval of the interaction spans 0: "A and B act independently (no detectable interaction)";
* interval excludes 0 but the p-value does not pass: "no detectable interaction after
  correcting for N comparisons" (primary) or "no detectable interaction (p = ...)";
* detected and positive: "A and B together gain more than the sum of their gains alone";
* detected and negative: for each factor whose simple effect is a detected gain, "B's gain
  shrinks when A is present" when B's effect with A present is still a detected gain,
  "reverses" when it is a detected loss, "disappears" when it is not detected; with no such
  factor, "A and B together do worse than the sum of their effects alone";
* detected, for a metric without a better direction: "A and B interact: together they change
  it by X, not by the sum of their separate changes (Y)".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgrade.stats.ablation import MetricAblation


def reading(m: MetricAblation, family_size: int) -> str:
    """The reading of one metric's ablation (module docstring); ``family_size``: the Holm
    family's size, for "after correcting for N comparisons"."""
    if m.n == 0:
        return "no data: no case is defined in all four arms"
    interaction = m.effects["interaction"]
    low, high = interaction.ci
    if low <= 0.0 <= high:
        return "A and B act independently (no detectable interaction)"
    if not interaction.detected:
        if m.primary:
            return (
                f"no detectable interaction after correcting for {family_size} comparisons"
                " (the interval alone excludes 0)"
            )
        return f"no detectable interaction (p = {interaction.p_value:.3g})"
    if m.direction == "neither":
        both = m.effects["simple_ab"].estimate
        summed = m.effects["simple_a"].estimate + m.effects["simple_b"].estimate
        return (
            f"A and B interact: together they change it by {both:.3g}, not by the sum of"
            f" their separate changes ({summed:.3g})"
        )
    sign = 1.0 if m.direction == "higher" else -1.0
    if sign * interaction.estimate > 0:
        return "A and B together gain more than the sum of their gains alone (synergy)"
    parts = []
    for factor, other, alone, together in (
        ("B", "A", "simple_b", "b_with_a"),
        ("A", "B", "simple_a", "a_with_b"),
    ):
        gain = m.effects[alone]
        if not (gain.detected and sign * gain.estimate > 0):
            continue
        cond = m.effects[together]
        if cond.detected:
            word = "shrinks" if sign * cond.estimate > 0 else "reverses"
        else:
            word = "disappears"
        parts.append(f"{factor}'s gain {word} when {other} is present")
    if parts:
        return "; ".join(parts)
    return "A and B together do worse than the sum of their effects alone"
