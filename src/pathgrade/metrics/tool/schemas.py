"""Tool schemas and argument validity (level 2 of the tool-call layer).

A :class:`ToolSpec` is one tool's JSON Schema for its arguments plus a ``dangerous`` flag.
Schemas are checked against their own metaschema (the ``$schema`` they declare, Draft 2020-12
when they declare none) with :mod:`jsonschema`; arguments are then validated against them.
Parsing a tools file lives in :mod:`pathgrade.io.tools`; nothing here reads files.

**References stay inside the schema.** A tools file is untrusted input, so ``$ref`` (and
``$dynamicRef``, ``$recursiveRef``) must start with ``#`` (``#/$defs/address``, an anchor)
and resolve within the tool's own schema; a remote (``https://...``) or file
(``file:///...``) reference is refused when the schema is checked (:func:`schema_problem`),
and validation runs on a :mod:`referencing` registry that retrieves nothing, so scoring
never makes a request or reads a file on a schema's behalf.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import referencing
import referencing.jsonschema
from jsonschema import Draft202012Validator, SchemaError, validators
from referencing.exceptions import NoSuchResource, Unresolvable

from pathgrade.core.config import ScoringConfig

#: The schema of a tool that declares no ``parameters`` (OpenAI: a call without arguments).
NO_PARAMETERS: Mapping[str, Any] = {"type": "object", "properties": {}}
#: Keywords whose value is a reference to another schema.
REFERENCE_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


def _retrieve_nothing(uri: str) -> referencing.Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


#: What validation resolves references with: the schema itself, never the network or a file.
NO_RETRIEVAL: referencing.Registry[Any] = referencing.Registry(retrieve=_retrieve_nothing)  # type: ignore[call-arg]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, the JSON Schema of its arguments, and whether it is dangerous.

    A dangerous tool (a write, refund, delete) has its false-positive rate reported on its own.
    A tool that ``requires_approval`` must have each call approved first (the system layer's
    ``unapproved_action``; added to the config's ``[approvals] tools``).
    """

    name: str
    parameters: Mapping[str, Any] | bool = field(default_factory=lambda: dict(NO_PARAMETERS))
    dangerous: bool = False
    description: str | None = None
    requires_approval: bool = False

    def __repr__(self) -> str:
        flag = ", dangerous" if self.dangerous else ""
        return f"ToolSpec({self.name!r}{flag})"


@dataclass(frozen=True)
class ToolSet:
    """The tools known to a scoring run, by name."""

    tools: Mapping[str, ToolSpec] = field(default_factory=dict)

    @classmethod
    def of(cls, specs: Iterable[ToolSpec]) -> ToolSet:
        """Build a set from specs; a duplicate name is a :class:`ValueError`."""
        tools: dict[str, ToolSpec] = {}
        for spec in specs:
            if spec.name in tools:
                raise ValueError(f"tool {spec.name!r} is defined twice")
            tools[spec.name] = spec
        return cls(tools)

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> Iterator[str]:
        return iter(self.tools)

    def get(self, name: str) -> ToolSpec | None:
        return self.tools.get(name)

    def dangerous(self) -> frozenset[str]:
        """Names of the tools marked dangerous."""
        return frozenset(name for name, spec in self.tools.items() if spec.dangerous)

    def requires_approval(self) -> frozenset[str]:
        """Names of the tools whose calls need an approval first."""
        return frozenset(name for name, spec in self.tools.items() if spec.requires_approval)

    def __repr__(self) -> str:
        return f"ToolSet({sorted(self.tools)!r}, dangerous={sorted(self.dangerous())!r})"


def with_tool_approvals(config: ScoringConfig, tools: ToolSet | None) -> ScoringConfig:
    """``config`` with the tools that ``requires_approval`` added to ``[approvals] tools``
    (in name order, after the config's own; ``config`` itself when there are none)."""
    declared = sorted(tools.requires_approval()) if tools is not None else []
    extra = [name for name in declared if name not in config.approvals.tools]
    if not extra:
        return config
    approvals = config.approvals.model_copy(update={"tools": (*config.approvals.tools, *extra)})
    return config.model_copy(update={"approvals": approvals})


@dataclass(frozen=True)
class SchemaViolation:
    """One reason a call's arguments fail its schema: where (a JSON path) and why."""

    path: str
    message: str
    validator: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` is not a valid JSON Schema (one line), or None when it is valid.

    The metaschema is the one the schema names in ``$schema``, else Draft 2020-12.
    """
    if not isinstance(schema, dict | bool):
        return f"a JSON Schema must be an object or a boolean, got {type(schema).__name__}"
    cls = (
        validators.validator_for(schema, default=Draft202012Validator)
        if isinstance(schema, dict)
        else Draft202012Validator
    )
    try:
        cls.check_schema(schema)
    except SchemaError as error:
        where = error.json_path if hasattr(error, "json_path") else "$"
        return f"{' '.join(str(error.message).split())} (at {where})"
    return reference_problem(schema) if isinstance(schema, dict) else None


def _paths(node: Any, path: str, found: dict[int, str]) -> None:
    """JSON paths of every object inside ``node``, by identity."""
    if isinstance(node, dict):
        found[id(node)] = path
        for key, value in node.items():
            _paths(value, f"{path}.{key}", found)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _paths(value, f"{path}[{i}]", found)


def reference_problem(schema: Mapping[str, Any]) -> str | None:
    """Why a reference in ``schema`` is refused (one line), or None when every ``$ref``
    starts with ``#`` and resolves within ``schema`` (see the module docstring)."""
    specification = referencing.jsonschema.specification_with(
        str(schema.get("$schema", "")), default=referencing.jsonschema.DRAFT202012
    )
    root = specification.create_resource(schema)
    paths: dict[int, str] = {}
    _paths(schema, "$", paths)
    pending = [(root, NO_RETRIEVAL.resolver_with_root(root))]
    while pending:
        resource, resolver = pending.pop()
        contents = resource.contents
        if isinstance(contents, dict):
            where = paths.get(id(contents), "$")
            for keyword in REFERENCE_KEYWORDS:
                if keyword not in contents:
                    continue
                ref = contents[keyword]
                if not isinstance(ref, str) or not ref.startswith("#"):
                    return (
                        f"{keyword} {ref!r} (at {where}) points outside the schema: only"
                        " references within it ('#/$defs/...') are resolved; remote and"
                        " file references are refused"
                    )
                try:
                    resolver.lookup(ref)
                except Unresolvable:
                    return f"{keyword} {ref!r} (at {where}) does not resolve within the schema"
        pending.extend((sub, resolver.in_subresource(sub)) for sub in resource.subresources())
    return None


def schema_violations(spec: ToolSpec, arguments: Any) -> list[SchemaViolation]:
    """Every way ``arguments`` fails ``spec``'s schema, sorted by path (empty when valid).

    The schema is assumed valid (:func:`schema_problem` returned None when it was loaded).
    """
    schema = spec.parameters
    cls = (
        validators.validator_for(schema, default=Draft202012Validator)
        if isinstance(schema, dict)
        else Draft202012Validator
    )
    found = [
        SchemaViolation(
            path=str(error.json_path),
            message=" ".join(str(error.message).split()),
            validator=str(error.validator),
        )
        for error in _errors(spec, cls(schema, registry=NO_RETRIEVAL), arguments)
    ]
    return sorted(found, key=lambda v: (v.path, v.message))


def _errors(spec: ToolSpec, validator: Any, arguments: Any) -> list[Any]:
    try:
        return list(validator.iter_errors(arguments))
    except Unresolvable as error:  # a spec built in code, not checked by schema_problem
        raise ValueError(
            f"tool {spec.name!r}: unresolvable reference in its schema: {error}"
        ) from None
