"""Making the provenance of a scoring: the hashes, :func:`measured`, and each record's
:class:`RecordProvenance` (what :mod:`pathgrade.core.provenance` defines and compares).

Pure: the cases file's bytes are hashed by the caller (:mod:`pathgrade.io.provenance`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import cast

from pathgrade._version import __version__
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import AGENT_VARIABLE, SEMANTICS_VERSION, Provenance, short_hash
from pathgrade.core.types import Case


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
    are given in does not matter; every field does. A case without ``references_by_agent``
    is dumped without that field (its hash is the one it had before the field existed)."""
    digest = hashlib.sha256()
    for case in sorted(cases, key=lambda case: case.case_id):
        unset = _NO_AGENT_REFERENCES if case.references_by_agent is None else None
        digest.update(case.model_dump_json(exclude=unset).encode("utf-8"))
        digest.update(b"\n")
    return f"sha256:{digest.hexdigest()}"


_NO_AGENT_REFERENCES = {"references_by_agent"}


def with_agent(provenance: Provenance, agent: str) -> Provenance:
    """The provenance of a scoring of ``agent``'s sub-path (``score --agent NAME``):
    ``provenance`` with the variable :data:`~pathgrade.core.provenance.AGENT_VARIABLE` =
    ``agent`` and, when it records a config hash ``c``, the config hash
    ``short_hash(sha256_of(f"{c}\\nagent={agent}"))`` (the agent scope is part of what was
    measured: ``compare`` refuses sides scored for different agents).

    Raises:
        InputError: ``provenance`` names an agent scope already (``--label
            agent_scope=...``: that variable is ``--agent``'s).
    """
    if AGENT_VARIABLE in provenance.variables:
        raise InputError(
            f"the {AGENT_VARIABLE!r} variable is recorded by --agent: drop --label"
            f" {AGENT_VARIABLE}=...",
            field="--label",
        )
    config = provenance.config
    return replace(
        provenance,
        config=None if config is None else short_hash(sha256_of(f"{config}\nagent={agent}")),
        variables={**provenance.variables, AGENT_VARIABLE: agent},
    )


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
    """Each run's model as text (``None``: not recorded), or ``()`` when no run records one;
    the usual answer, none, is found at C speed (``list.count``)."""
    listed = list(models)
    if listed.count(None) == len(listed):
        return ()
    return [None if m is None else str(m) for m in listed]


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
