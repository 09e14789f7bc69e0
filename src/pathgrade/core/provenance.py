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
  when more than one did; a gate can require ``changed_variables <= 1``. The ``agent_scope``
  variable (:data:`AGENT_VARIABLE`, ``score --agent NAME``) is also folded into the config
  hash: results scored for different agents are measured differently.

Hashes are ``sha256:<hex>``; a record keeps the first 16 hex digits (:func:`short_hash`).
The config hash is defined here once (:func:`config_hash`: the effective scoring config
without its ``[compare]`` section, which changes no score); a file's hash is computed by
whoever reads the file (:func:`pathgrade.store.manifest.file_hash`), in-memory cases are
hashed as their JSON (:func:`cases_hash`). Pure: no file is read here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from pathgrade.core.errors import InputError

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

#: The variable naming the agent whose sub-path was scored (``score --agent NAME``); absent:
#: the whole run. It is part of the measurement too: the config hash covers it
#: (:func:`pathgrade.core.record_provenance.with_agent`), so sides scored for different
#: agents are measured differently.
AGENT_VARIABLE = "agent_scope"

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
            why = _agents(baseline, variant) if name == "config" else ""
            out.append(f"{label}: {_show(left)} vs {_show(right)}{why}")
    return out


def _agents(baseline: Provenance, variant: Provenance) -> str:
    """`` (agent: whole run vs NAME)`` when the sides were scored for different agents."""
    left = baseline.variables.get(AGENT_VARIABLE)
    right = variant.variables.get(AGENT_VARIABLE)
    if left == right:
        return ""
    return f" (agent: {left or 'whole run'} vs {right or 'whole run'})"


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
