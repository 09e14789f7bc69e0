"""Whether two sides may be compared, checked before any statistic, and what every output says.

``compare``, ``gate``, ``report`` and ``ablation`` read each side's provenance
(:func:`pathgrade.core.provenance.records_provenance`) and call :func:`check_comparable`:

- sides **measured differently** (scoring semantics version, scoring config hash or cases
  file hash differ; a value one side records and the other does not counts) are refused
  with one line, ``base.jsonl, variant.jsonl: scored differently (scoring config hash:
  sha256:1a.. vs sha256:9f..); re-score both with the same config, or pass
  --allow-config-change``; with ``allow`` the comparison runs and :attr:`Comparability.
  warning` is the first line of every output;
- sides that **record no provenance** (results written before it was kept) compare, with
  :attr:`Comparability.note` (``provenance not recorded: comparability unchecked``);
- the **controlled variables** that differ are :attr:`Comparability.changed`; more than one
  changed is a warning (:meth:`Comparability.variable_lines`): the comparison cannot say
  which one caused a difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pathgrade.core.errors import InputError
from pathgrade.core.provenance import (
    Provenance,
    changed_variables,
    measurement_differences,
    records_provenance,
    unchecked,
)

#: The option that lets sides measured differently be compared.
ALLOW_OPTION = "--allow-config-change"
#: What to re-score with, by the measurement field that differs.
_SAME = {
    "scoring semantics version": "pathgrade",
    "scoring config hash": "config",
    "cases file hash": "cases file",
}
_ALL_UNCHECKED = 3


def _show(value: str | None) -> str:
    return "not recorded" if value is None else value


@dataclass(frozen=True)
class Comparability:
    """The provenance check of two sides named ``names`` (``"base.jsonl, variant.jsonl"``)."""

    names: str
    baseline: Provenance
    variant: Provenance
    differences: tuple[str, ...] = ()
    unchecked: tuple[str, ...] = ()
    changed: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)

    @property
    def warning(self) -> str | None:
        """The first line of every output when sides measured differently were compared
        anyway (``--allow-config-change``); ``None`` when they were measured alike."""
        if not self.differences:
            return None
        return (
            f"WARNING: {self.names}: scored differently ({'; '.join(self.differences)});"
            f" compared anyway ({ALLOW_OPTION}): a difference may come from the scoring, not"
            " the runs"
        )

    @property
    def note(self) -> str | None:
        """One line when neither side records (part of) the measurement."""
        if not self.unchecked:
            return None
        if len(self.unchecked) == _ALL_UNCHECKED:
            return "provenance not recorded: comparability unchecked"
        return f"provenance not recorded ({', '.join(self.unchecked)}): comparability unchecked"

    @property
    def recorded(self) -> bool:
        """Whether both sides record their provenance (results of this pathgrade)."""
        return self.baseline.semantics is not None and self.variant.semantics is not None

    def variable_lines(self) -> list[str]:
        """Which controlled variables differ, and a warning when more than one did."""
        if not self.changed:
            if self.baseline.variables or self.variant.variables:
                return ["changed variables: none"]
            return []
        shown = ", ".join(f"{k} ({_show(a)} -> {_show(b)})" for k, (a, b) in self.changed.items())
        lines = [f"changed variables: {shown}"]
        if len(self.changed) > 1:
            lines.append(
                f"WARNING: {len(self.changed)} variables changed ({', '.join(self.changed)}):"
                " the comparison cannot say which caused the difference"
            )
        return lines

    def changed_dict(self) -> dict[str, list[str | None]]:
        """``{name: [baseline, variant]}`` of the changed variables (JSON)."""
        return {name: [a, b] for name, (a, b) in self.changed.items()}

    def to_dict(self) -> dict[str, Any]:
        """The ``provenance`` object of a JSON output."""
        return {
            "baseline": self.baseline.to_dict(),
            "variant": self.variant.to_dict(),
            "differences": list(self.differences),
            "unchecked": list(self.unchecked),
            "note": self.note,
        }


def check_comparable(
    baseline: Provenance, variant: Provenance, *, names: str, allow: bool = False
) -> Comparability:
    """The provenance check of two sides (module docstring); sides measured differently
    are a one-line :class:`InputError` naming ``names`` unless ``allow``."""
    differences = measurement_differences(baseline, variant)
    if differences and not allow:
        same = [_SAME[phrase.partition(":")[0]] for phrase in differences]
        what = same[0] if len(same) == 1 else f"{', '.join(same[:-1])} and {same[-1]}"
        raise InputError(
            f"scored differently ({'; '.join(differences)}); re-score both with the same"
            f" {what}, or pass {ALLOW_OPTION}",
            file=names,
        )
    return Comparability(
        names,
        baseline,
        variant,
        tuple(differences),
        tuple(unchecked(baseline, variant)),
        changed_variables(baseline, variant),
    )


def check_records(
    baseline: Iterable[Mapping[str, Any]],
    variant: Iterable[Mapping[str, Any]],
    *,
    names: tuple[str, str],
    allow: bool = False,
) -> Comparability:
    """:func:`check_comparable` of two sides' result records, named ``names`` (their files
    or stored runs); a side whose records mix provenances is an error naming the record."""
    base = records_provenance(baseline, file=names[0])
    var = records_provenance(variant, file=names[1])
    return check_comparable(base, var, names=", ".join(names), allow=allow)
