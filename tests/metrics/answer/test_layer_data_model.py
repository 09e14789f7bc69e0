"""The data-model fields of issue 5: validation and clear messages."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pathgrade.core.types import Case, Run


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"confidence": 1.5}, "confidence must be in [0, 1], got 1.5"),
        ({"confidence": -0.1}, "confidence must be in [0, 1], got -0.1"),
        ({"confidence": float("nan")}, "confidence must be in [0, 1], got nan"),
        ({"claims": [{"text": "  "}]}, "a claim needs a non-empty 'text'"),
        ({"claims": [{"supported": True}]}, "claims.0.text\n  Field required"),
        (
            {"citations": [{"chunk_id": "c", "claim": 1}], "claims": [{"text": "a"}]},
            "refers to claim 1",
        ),
        ({"citations": [{"version_id": "v1"}]}, "citations.0.chunk_id\n  Field required"),
        ({"claims": [{"text": "a", "suported": True}]}, "Extra inputs are not permitted"),
    ],
)
def test_bad_run_fields(run: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        Run.model_validate({"case_id": "c", **run})
    assert message in str(info.value)


def test_fields_parse_with_shorthands() -> None:
    run = Run.model_validate(
        {
            "case_id": "c",
            "context": ["a", {"id": "b", "version_id": "v2"}],
            "claims": [{"text": "x", "supported": None}],
            "citations": [{"chunk_id": "b", "version_id": "v2", "claim": 0, "entails": True}],
            "abstained": False,
            "confidence": 1,
            "final_state": {"orders": {}},
            "rubric": {"root_cause": 2, "impact": "partial"},
        }
    )
    assert (
        run.context is not None and run.context[0].id == "a" and run.context[0].version_id is None
    )
    assert run.claims is not None and run.claims[0].key is True
    assert run.rubric == {"root_cause": 2.0, "impact": "partial"}
    case = Case.model_validate({"case_id": "c", "expected_state": {"orders": {}}})
    assert case.expected_state == {"orders": {}}
    with pytest.raises(ValidationError):
        Case.model_validate({"case_id": "c", "expected_state": [1]})
