"""Rubrics for the judge: dimensions with anchored score levels and few-shot examples.

A rubric file (``--rubric rubric.json``) holds::

    {"dimensions": [
      {"name": "root_cause", "description": "Does the answer name the actual root cause?",
       "levels": {"0": "no cause or a wrong one", "1": "...", "2": "..."},
       "examples": [{"query": "...", "answer": "...", "score": 2, "reason": "..."}]}]}

Each dimension is graded by its own call and reported as its own metric
``rubric.<name>``; dimensions are never averaged together.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pathgrade.core.errors import InputError


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricExample(_Frozen):
    """A graded example shown to the judge (few-shot)."""

    answer: str
    score: float
    reason: str = ""
    query: str | None = None
    gold_answer: str | None = None


class RubricDimension(_Frozen):
    """One dimension: a name, what it measures, anchored levels, examples."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_\-]+$")
    description: str = Field(min_length=1)
    levels: dict[float, str] = Field(min_length=2)
    examples: tuple[RubricExample, ...] = ()

    @model_validator(mode="after")
    def _examples_use_levels(self) -> RubricDimension:
        for example in self.examples:
            if example.score not in self.levels:
                raise ValueError(
                    f"example score {example.score:g} of {self.name!r} is not one of the levels"
                    f" {sorted(self.levels)}"
                )
        return self


class Rubric(_Frozen):
    """The dimensions to grade, in order; names are unique."""

    dimensions: tuple[RubricDimension, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Rubric:
        names = [d.name for d in self.dimensions]
        if len(names) != len(set(names)):
            raise ValueError(f"duplicate dimension names in {names}")
        return self


DEFAULT_RUBRIC = Rubric(
    dimensions=(
        RubricDimension(
            name="correctness",
            description=(
                "Is the answer right, judged against the gold answer and the gold evidence"
                " (meaning, not wording)?"
            ),
            levels={
                0: "wrong: contradicts the gold answer or answers another question",
                1: "partly right: the main point is right but a required fact is wrong or missing",
                2: "right: every fact the gold answer requires is present and correct",
            },
            examples=(
                RubricExample(
                    query="How high did p99 latency get on svc-1?",
                    gold_answer="870 ms",
                    answer="It peaked at about 870 milliseconds.",
                    score=2,
                    reason="Same value as the gold answer, different wording.",
                ),
                RubricExample(
                    query="How high did p99 latency get on svc-1?",
                    gold_answer="870 ms",
                    answer="Latency was high, around 600 ms.",
                    score=0,
                    reason="The value contradicts the gold answer.",
                ),
            ),
        ),
        RubricDimension(
            name="completeness",
            description="Does the answer cover everything the question asks for?",
            levels={
                0: "misses the main point of the question",
                1: "covers the main point but leaves out a part the question asks for",
                2: "covers every part of the question",
            },
        ),
    )
)


def load_rubric(path: str | Path) -> Rubric:
    """Read a rubric JSON file; errors name the file and the field."""
    name = str(path)
    try:
        data = orjson.loads(Path(path).read_bytes())
    except OSError as error:
        raise InputError(f"cannot read rubric file: {error.strerror}", file=name) from None
    except orjson.JSONDecodeError as error:
        raise InputError(f"malformed JSON: {error}", file=name) from None
    try:
        return Rubric.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = "unknown field" if first["type"] == "extra_forbidden" else first["msg"]
        raise InputError(message, file=name, field=where or None) from None
