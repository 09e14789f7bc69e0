"""Where a scored run's numbers come from, and what must match before two runs are compared.

Two kinds of provenance travel with every result record (``provenance``):

- **The measurement** — what pathgrade scored with: the scoring-semantics version
  (:data:`SEMANTICS_VERSION`), the hash of the effective scoring configuration and the hash of
  the cases file. Numbers measured differently are not comparable: ``compare``, ``gate``,
  ``report`` and ``ablation`` refuse them (:func:`measurement_differences`) unless told
  ``--allow-config-change``.
- **The experiment's controlled variables** (methodology, section 13.1: freeze the dataset,
  knowledge snapshot, model, prompt version, tool schema, tool fixtures, temperature, seed,
  max steps, token budget, timeout, hardware and concurrency; change one at a time) — named
  values from ``--label NAME=VALUE``, the tools file's hash and what a trace records (its
  model). ``compare`` names the variables that differ (:func:`changed_variables`) and warns
  when more than one did; a gate can require ``changed_variables <= 1``.

Hashes are ``sha256:<hex>``; a record keeps the first 16 hex digits (:func:`short_hash`).
The config hash is defined here once (:func:`config_hash`: the effective scoring config
without its ``[compare]`` section, which changes no score); a file's hash is computed by
whoever reads the file (:func:`pathgrade.store.manifest.file_hash`), in-memory cases are
hashed as their JSON (:func:`cases_hash`). Pure: no file is read here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast, overload

from pathgrade._version import __version__
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case

#: The version of the scoring semantics: raised whenever a definition changes a number.
#: 1: up to issue 18. 2: of n identical calls at most n - 1 are wasted (the first copy only
#: when it is a premature copy of the call the reference counts); retrieval micro averages
#: pool every query the macro mean uses.
SEMANTICS_VERSION = 2

#: The controlled variables of the methodology, in its order. Others may be labelled too.
CONTROLLED_VARIABLES: tuple[str, ...] = (
    "dataset",
    "knowledge_snapshot",
    "model",
    "prompt_version",
    "tool_schema",
    "tool_fixtures",
    "temperature",
    "seed",
    "max_steps",
    "token_budget",
    "timeout",
    "hardware",
    "concurrency",
)

#: Hex digits kept of a SHA-256 in a record (64 bits: enough to tell inputs apart).
SHORT_HASH = 16


@overload
def short_hash(full: str) -> str: ...
@overload
def short_hash(full: None) -> None: ...
def short_hash(full: str | None) -> str | None:
    """``sha256:<first 16 hex digits>`` of a ``sha256:<hex>`` hash (``None`` stays ``None``)."""
    if full is None:
        return None
    algorithm, _, digest = full.partition(":")
    return f"{algorithm}:{digest[:SHORT_HASH]}" if digest else full


@dataclass(frozen=True)
class Provenance:
    """What one scored run was measured with, and its experiment variables."""

    semantics: int | None
    config: str | None = None
    cases: str | None = None
    pathgrade: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record's ``provenance`` object."""
        return {
            "semantics": self.semantics,
            "config": self.config,
            "cases": self.cases,
            "pathgrade": self.pathgrade,
            "variables": dict(self.variables),
        }

    @classmethod
    def from_dict(cls, value: object, *, where: str = "provenance") -> Provenance:
        """Read a record's ``provenance`` object; a malformed one is an :class:`InputError`."""
        if not isinstance(value, Mapping):
            raise InputError("provenance must be an object", field=where)
        variables = value.get("variables") or {}
        semantics = value.get("semantics")
        if not isinstance(variables, Mapping) or not (
            semantics is None or (isinstance(semantics, int) and not isinstance(semantics, bool))
        ):
            raise InputError("malformed provenance", field=where)
        return cls(
            semantics=semantics,
            config=_text(value.get("config")),
            cases=_text(value.get("cases")),
            pathgrade=_text(value.get("pathgrade")),
            variables={str(k): str(v) for k, v in variables.items()},
        )


#: The provenance of a record written before records carried one.
UNKNOWN = Provenance(semantics=None)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


_MEASUREMENT = (
    ("scoring semantics version", "semantics"),
    ("scoring config hash", "config"),
    ("cases file hash", "cases"),
)


def measurement_differences(baseline: Provenance, variant: Provenance) -> list[str]:
    """What differs in how the two sides were measured, one phrase each (empty: comparable).

    A field that one side records and the other does not (results written before
    provenance was kept) is a difference, never assumed equal; a field neither side records
    is not (see :func:`unchecked`).
    """
    out: list[str] = []
    for label, name in _MEASUREMENT:
        left, right = getattr(baseline, name), getattr(variant, name)
        if left != right:
            out.append(f"{label}: {_show(left)} vs {_show(right)}")
    return out


def unchecked(baseline: Provenance, variant: Provenance) -> list[str]:
    """The measurement fields neither side records: comparability there is not checked."""
    return [
        label
        for label, name in _MEASUREMENT
        if getattr(baseline, name) is None and getattr(variant, name) is None
    ]


def _show(value: object) -> str:
    return "not recorded" if value is None else str(value)


def changed_variables(
    baseline: Provenance, variant: Provenance
) -> dict[str, tuple[str | None, str | None]]:
    """The controlled variables whose values differ: ``{name: (baseline, variant)}``, in the
    methodology's order, then other labels by name. A variable one side lacks counts as
    changed only when the other side records it."""
    names = set(baseline.variables) | set(variant.variables)
    ordered = [n for n in CONTROLLED_VARIABLES if n in names]
    ordered += sorted(names - set(CONTROLLED_VARIABLES))
    out: dict[str, tuple[str | None, str | None]] = {}
    for name in ordered:
        left, right = baseline.variables.get(name), variant.variables.get(name)
        if left != right:
            out[name] = (left, right)
    return out


def common_provenance(values: Iterable[Provenance], *, file: str | None = None) -> Provenance:
    """The one provenance all records of a file share; records that disagree are an error
    (a results file mixes runs scored differently). An empty file gives :data:`UNKNOWN`."""
    first: Provenance | None = None
    for line, value in enumerate(values, start=1):
        if first is None:
            first = value
        elif value != first:
            raise _mixed(first, value, file, line)
    return first or UNKNOWN


def _mixed(first: Provenance, other: Provenance, file: str | None, line: int) -> InputError:
    """The error for a file whose record ``line`` has another provenance than its first."""
    differences = measurement_differences(first, other)
    if differences:
        return InputError(
            f"results mix runs scored differently ({'; '.join(differences)}): keep one"
            " scoring per results file",
            file=file,
            line=line,
            field="provenance",
        )
    changed = changed_variables(first, other)
    shown = "; ".join(f"{name}: {_show(a)} vs {_show(b)}" for name, (a, b) in changed.items())
    name = next(iter(changed), "NAME")
    return InputError(
        f"results mix runs of different controlled variables ({shown or 'pathgrade version'}):"
        f" compare like with like, or label the whole run (score --label {name}=VALUE)",
        file=file,
        line=line,
        field="provenance",
    )


def records_provenance(
    records: Iterable[Mapping[str, Any]], *, file: str | None = None
) -> Provenance:
    """The one provenance of a side's result records (their ``provenance`` objects; a record
    without one is :data:`UNKNOWN`), as :func:`common_provenance`: a record that disagrees
    with the first is an error naming its 1-based position (its line, in a results file
    without blank lines). Records equal to the first are not parsed again."""
    first_raw: object = None
    first: Provenance | None = None
    for line, record in enumerate(records, start=1):
        raw = record.get("provenance")
        if first is None:
            first_raw, first = raw, _parse(raw, line)
        elif raw != first_raw and (value := _parse(raw, line)) != first:
            raise _mixed(first, value, file, line)
    return first or UNKNOWN


def _parse(raw: object, line: int) -> Provenance:
    if raw is None:
        return UNKNOWN
    try:
        return Provenance.from_dict(raw)
    except InputError as error:
        raise InputError(error.message, line=line, field="provenance") from None


# ---- making provenance: hashes and the scoring's values --------------------------------


def sha256_of(data: bytes | str) -> str:
    """``sha256:<hex>`` of bytes (a text is hashed as UTF-8)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return f"sha256:{hashlib.sha256(raw).hexdigest()}"


def config_hash(config: ScoringConfig) -> str:
    """``sha256:`` of the effective scoring configuration: its canonical JSON
    (``model_dump_json``) without the ``[compare]`` section, which changes no score. The
    one definition of the config hash (records, stored manifests)."""
    return sha256_of(config.model_dump_json(exclude={"compare"}))


def canonical_json(value: object) -> bytes:
    """JSON with sorted keys, no spaces, UTF-8: equal values give equal bytes."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def cases_hash(cases: Iterable[Case]) -> str:
    """``sha256:`` of in-memory cases (the Python API; the CLI hashes the file it read): of
    each case's JSON (pydantic's ``model_dump_json``: every field, in the model's order,
    mappings in their given order), one a line, ordered by ``case_id``. The order the cases
    are given in does not matter; every field does."""
    digest = hashlib.sha256()
    for case in sorted(cases, key=lambda case: case.case_id):
        digest.update(case.model_dump_json().encode("utf-8"))
        digest.update(b"\n")
    return f"sha256:{digest.hexdigest()}"


def variables_of(
    labels: Mapping[str, str] | None = None, found: Mapping[str, str | None] | None = None
) -> dict[str, str]:
    """The controlled variables a scoring records: what pathgrade ``found`` (the tools
    file's hash as ``tool_schema``, ...; ``None`` values dropped), overridden by the user's
    ``labels`` (``--label NAME=VALUE``: a label wins over what a trace or a file says)."""
    out = {name: str(value) for name, value in (found or {}).items() if value is not None}
    out.update(labels or {})
    return out


def measured(
    config: ScoringConfig,
    *,
    cases: str | None,
    variables: Mapping[str, str] | None = None,
) -> Provenance:
    """The provenance of a scoring with ``config`` of the cases whose full hash is
    ``cases``: this pathgrade's semantics and version, both hashes shortened."""
    return Provenance(
        semantics=SEMANTICS_VERSION,
        config=short_hash(config_hash(config)),
        cases=short_hash(cases),
        pathgrade=__version__,
        variables=dict(variables or {}),
    )


def _models(models: Iterable[object]) -> Sequence[str | None]:
    found = [None if m is None else str(m) for m in models]
    return found if any(m is not None for m in found) else ()


#: The variable a run's trace can give (``Run.metadata["model"]``, as ingest keeps it).
TRACE_VARIABLE = "model"


class RecordProvenance:
    """The provenance of each record of one scoring: ``common`` to all, plus each run's own
    ``model`` (``models[i]``, from its trace; ``None``: not recorded) when ``common`` names
    no model (a label overrides what a trace says). ``models`` is empty when no run
    records one.

    ``common`` may be given as a function that builds it (:meth:`lazy`): hashing in-memory
    cases costs about 20 µs a case, so a library call that never writes a record never
    pays it; it is built once, on first use, and kept by this object.
    """

    __slots__ = ("_common", "_factory", "models")

    def __init__(
        self,
        common: Provenance | None = None,
        models: Sequence[str | None] = (),
        *,
        factory: Callable[[], Provenance] | None = None,
    ) -> None:
        if (common is None) == (factory is None):
            raise ValueError("give the common provenance or a factory, not both")
        self._common = common
        self._factory = factory
        self.models = models

    @property
    def common(self) -> Provenance:
        """The provenance every record shares (built now if it was given as a factory)."""
        common = self._common
        if common is None:
            factory = cast("Callable[[], Provenance]", self._factory)  # set when common is not
            common = self._common = factory()
            self._factory = None
        return common

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RecordProvenance):
            return NotImplemented
        return self.common == other.common and list(self.models) == list(other.models)

    __hash__ = None  # type: ignore[assignment]  # mutable cache: not hashable

    def __repr__(self) -> str:
        return f"RecordProvenance({self.common!r}, models={len(self.models)})"

    @classmethod
    def of(cls, common: Provenance, models: Iterable[object]) -> RecordProvenance:
        """``common`` with the runs' models (``Run.metadata.get("model")`` each)."""
        if TRACE_VARIABLE in common.variables:
            return cls(common)
        return cls(common, _models(models))

    @classmethod
    def lazy(cls, factory: Callable[[], Provenance], models: Iterable[object]) -> RecordProvenance:
        """As :meth:`of`, for a common provenance that names no ``model`` variable, built
        by ``factory`` the first time a record needs it."""
        return cls(models=_models(models), factory=factory)

    def model(self, index: int) -> str | None:
        """Run ``index``'s model from its trace (``None``: none, or a label names it)."""
        return self.models[index] if self.models else None

    def __call__(self, index: int) -> Provenance:
        """The provenance of run ``index``'s record."""
        model = self.model(index)
        if model is None:
            return self.common
        variables = {**self.common.variables, TRACE_VARIABLE: model}
        return Provenance(
            self.common.semantics,
            self.common.config,
            self.common.cases,
            self.common.pathgrade,
            variables,
        )

    def select(self, indices: Sequence[int]) -> RecordProvenance:
        """The provenance of the runs ``indices`` (in that order)."""
        if not self.models:
            return self
        picked = [self.models[i] for i in indices]
        if self._common is None:  # still lazy: build it (once, here) when first needed
            return RecordProvenance(models=picked, factory=lambda: self.common)
        return RecordProvenance(self.common, picked)


def common_variables(values: Iterable[Provenance]) -> dict[str, str]:
    """The variables every one of ``values`` records with the same value (a stored run's
    manifest keeps these)."""
    out: dict[str, str] | None = None
    for value in values:
        if out is None:
            out = dict(value.variables)
        else:
            out = {k: v for k, v in out.items() if value.variables.get(k) == v}
    return out or {}
