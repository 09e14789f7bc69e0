"""What a run records beyond its path, for the retrieval and answer layers: retrieved units,
context units, claims and citations (part of :mod:`pathgrade.core.types`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from pathgrade.core.fields import Count, Flag, Number, _Strict


class RetrievedItem(_Strict):
    """One retrieved unit, in rank order: an id, optionally with the retriever's score.

    The shorthand is a bare id string.
    """

    id: str = Field(min_length=1)
    score: Number | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_id(cls, value: Any) -> Any:
        return {"id": value} if isinstance(value, str) else value


def _retrieved_form(value: Any) -> str:
    return "retrieved-id" if type(value) is str else "retrieved-item"


#: A retrieved unit: a bare id stays the string itself (the shorthand), anything else is a
#: :class:`RetrievedItem` (see ``Run.retrieved``).
Retrieved = Annotated[
    Annotated[Annotated[str, Field(min_length=1)], Tag("retrieved-id")]
    | Annotated[RetrievedItem, Tag("retrieved-item")],
    Discriminator(_retrieved_form),
]


class ContextUnit(_Strict):
    """One unit of context actually shown to the model: an id and, optionally, its version.

    The shorthand is a bare id string (version unknown).
    """

    id: str = Field(min_length=1)
    version_id: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_id(cls, value: Any) -> Any:
        return {"id": value} if isinstance(value, str) else value


class Claim(_Strict):
    """One atomic claim of the answer.

    ``supported``: true (the context supports it), false (it does not), null (not verifiable;
    excluded from faithfulness). ``key``: the claim needs evidence (counted by citation recall).
    """

    text: str
    supported: Flag | None = None
    key: Flag = True

    @field_validator("text")
    @classmethod
    def _has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a claim needs a non-empty 'text'")
        return value


class Citation(_Strict):
    """A citation: the claim it backs (0-based index into ``claims``; null for the whole answer),
    the cited chunk and version, and whether the chunk entails the claim (null: not labelled).
    """

    chunk_id: str = Field(min_length=1)
    version_id: str | None = None
    claim: Count | None = None
    entails: Flag | None = None
