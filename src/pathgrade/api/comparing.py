"""``pathgrade compare``: a variant against a baseline on the same cases, with paired
statistics per metric (:func:`pathgrade.stats.compare.compare_records`), per slice with
``by``; the sides' provenance is checked first (:func:`pathgrade.core.comparability.check_records`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pathgrade.api.scoring import score_records
from pathgrade.api.sides import Results, side
from pathgrade.core.comparability import Comparability, check_records
from pathgrade.core.errors import InputError
from pathgrade.io.cases import load_cases
from pathgrade.io.config import load_config
from pathgrade.stats.compare import Comparison, compare_records, metric_direction
from pathgrade.stats.compare_slices import SliceComparison, compare_slices
from pathgrade.stats.records import MissingMetricError
from pathgrade.stats.slice_keys import SliceFieldError, needs_cases, slice_keys
from pathgrade.stats.slices import MIN_SLICE_CASES

__all__ = ["CompareResult", "compare"]

Records = list[dict[str, Any]]


@dataclass(frozen=True)
class CompareResult:
    """A comparison: the statistics per metric, per slice (``by``), and the provenance check
    of the two sides (``check.warning`` when they were scored differently and allowed)."""

    comparison: Comparison
    slices: SliceComparison | None
    check: Comparability
    names: tuple[str, str]

    def to_dict(self) -> dict[str, Any]:
        """The document ``pathgrade compare --json`` prints: ``warning`` first (when any),
        the comparison, ``slices``, ``provenance`` and ``changed_variables``."""
        doc: dict[str, Any] = {"warning": self.check.warning} if self.check.warning else {}
        doc.update(self.comparison.to_dict())
        if self.slices is not None:
            doc["slices"] = self.slices.to_dict()
        doc["provenance"] = self.check.to_dict()
        doc["changed_variables"] = self.check.changed_dict()
        return doc


def configured_primary(config: str | Path | None) -> list[str] | None:
    """The scoring config's ``[compare] primary`` list, when the config model has one."""
    section = getattr(load_config(config), "compare", None)
    names = getattr(section, "primary", None)
    return list(names) if names else None


def _slice_keys(
    by: str, base: Records, var: Records, cases_file: str | Path | None
) -> dict[str, tuple[Any, ...]]:
    ids = [str(r.get("case_id")) for r in (*base, *var)]
    if cases_file is None and needs_cases(by):
        raise InputError(
            f"--by {by} needs the cases (results records carry only 'group'): pass"
            " --slices-from CASES.jsonl",
            field="by",
        )
    cases = None
    if cases_file is not None:
        cases = {c.case_id: c for c in load_cases(cases_file).items}
    try:
        return slice_keys(by, ids, records=[*base, *var], cases=cases)
    except SliceFieldError as error:
        where = str(cases_file) if cases_file is not None else None
        raise InputError(str(error), file=where, field="by") from None


def compare(
    baseline: Results,
    variant: Results,
    *,
    store: str | Path | None = None,
    cases: str | Path | None = None,
    config: str | Path | None = None,
    metrics: Sequence[str] | None = None,
    primary: Sequence[str] | None = None,
    by: str | None = None,
    slices_from: str | Path | None = None,
    min_slice_n: int = MIN_SLICE_CASES,
    resamples: int = 10_000,
    confidence: float = 0.95,
    ci_method: Literal["percentile", "bca"] = "percentile",
    seed: int = 0,
    allow_config_change: bool = False,
) -> CompareResult:
    """Compare ``variant`` with ``baseline``, paired by case.

    Args:
        baseline, variant: results files, stored run names (in ``store``) or result records;
            with ``cases``, runs files scored on the fly against that cases file with the
            config file ``config``.
        config: the scoring config file (with ``cases``); its ``[compare] primary`` list is
            the primary family unless ``primary`` or ``metrics`` is given.
        metrics: compare only these (they are then the primary family).
        primary: the primary family (Holm's correction runs over it).
        by: also compare per slice of this case field; ``slices_from`` (or ``cases``) is the
            cases file for fields other than ``group``; slices under ``min_slice_n`` cases
            are shown, not tested.
        resamples, confidence, ci_method, seed: the bootstrap and permutation settings.
        allow_config_change: compare sides scored with a different config, cases file or
            semantics (the result's ``check.warning`` says so); refused otherwise.

    Raises:
        InputError: a side that cannot be read, sides scored differently, a missing metric.
    """
    if cases is not None:
        if not isinstance(baseline, str | Path) or not isinstance(variant, str | Path):
            raise InputError("with cases, baseline and variant are runs files", field="cases")
        base_records = score_records(cases, baseline, config)
        var_records = score_records(cases, variant, config)
        names = (str(baseline), str(variant))
    else:
        base_records, base_name = side(baseline, store, "baseline")
        var_records, var_name = side(variant, store, "variant")
        names = (base_name, var_name)
    # Provenance before any statistic: sides measured differently are refused.
    check = check_records(base_records, var_records, names=names, allow=allow_config_change)
    family = list(primary) if primary else (None if metrics else configured_primary(config))
    keys = None
    if by is not None:
        keys = _slice_keys(by, base_records, var_records, slices_from or cases)
    try:
        comparison = compare_records(
            base_records,
            var_records,
            metrics=list(metrics) if metrics else None,
            primary=family,
            resamples=resamples,
            confidence=confidence,
            ci_method=ci_method,
            seed=seed,
        )
        slices = None
        if by is not None and keys is not None:
            slices = compare_slices(
                base_records,
                var_records,
                comparison.primary,
                keys,
                by=by,
                direction=metric_direction,
                min_n=min_slice_n,
                resamples=resamples,
                confidence=confidence,
                seed=seed,
            )
    except MissingMetricError as error:
        where = names[1] if error.side == "variant" else names[0]
        raise InputError(
            "metric is missing from the results", file=where, field=error.name
        ) from None
    except ValueError as error:
        raise InputError(str(error), file=", ".join(names)) from None
    return CompareResult(comparison, slices, check, names)
