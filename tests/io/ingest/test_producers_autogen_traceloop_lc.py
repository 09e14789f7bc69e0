"""AutoGen AgentChat and Traceloop-LangChain traces, written by the real libraries, read back.

Three files (``tests/golden/ingest/producers``; generators and versions in its README): an
AutoGen ``Swarm`` with a hand-off traced by OpenInference's AutoGen AgentChat instrumentation
and by AutoGen's own OpenTelemetry spans (with the OTel OpenAI instrumentation for the model
calls), and a LangGraph ReAct agent with a retriever tool traced by OpenLLMetry's LangChain
instrumentation (``autogen_traceloop_lc_golden`` holds the scenarios).

Each check is its own test per file, its expected value written from the scenario. Per-call
checks look the steps up by the model's call id, so that one extra or missing step fails the
tool-names check only. A check the current reader gets wrong is ``xfail(strict=True)`` with
what the reader gives instead: it turns red (XPASS) once a reader gets it right, and the mark
is then removed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import Run, Step
from pathgrade.io.ingest import FORMATS, IngestOptions, detect

from .autogen_traceloop_lc_golden import (
    ANSWER,
    AUTOGEN,
    AUTOGEN_AGENTS,
    ERROR_TEXT,
    FAILED_CALL,
    FILES,
    RETRIEVED_IDS,
    TOKENS,
    outputs_of,
    steps_of,
)

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
MISSING = "<no step with this call id>"

#: (check, file) -> what the current reader gives instead
XFAIL: dict[tuple[str, str], str] = {}


def files(check: str, names: tuple[str, ...] = tuple(FILES)) -> list[object]:
    """The files as parameters, each check's known reader gaps marked."""
    params: list[object] = []
    for name in names:
        reason = XFAIL.get((check, name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(name, marks=marks, id=Path(name).stem))
    return params


def read(name: str, options: IngestOptions | None = None) -> list[Run]:
    path = GOLDEN / name
    return list(FORMATS[detect(path).name].read(path, options))


def run_of(name: str) -> Run:
    (run,) = read(name)
    return run


def by_call(run: Run) -> dict[str | None, Step]:
    found: dict[str | None, Step] = {}
    for step in run.steps:
        found.setdefault(step.call_id, step)
    return found


def per_call(name: str, value: Callable[[Step], Any]) -> list[tuple[str, Any]]:
    """``(call id, value(step))`` for each call of the scenario, in call order."""
    steps = by_call(run_of(name))
    return [
        (call_id, value(steps[call_id]) if call_id in steps else MISSING)
        for call_id, _, _ in steps_of(name)
    ]


def retrieved_ids(run: Run) -> list[str]:
    return [item if isinstance(item, str) else item.id for item in run.retrieved or ()]


@pytest.mark.parametrize("name", files("tools"))
def test_tool_names_in_call_order(name: str) -> None:
    assert [s.tool for s in run_of(name).steps] == [tool for _, tool, _ in steps_of(name)]


@pytest.mark.parametrize("name", files("call_ids"))
def test_every_call_of_the_model_is_a_step(name: str) -> None:
    assert per_call(name, lambda s: s.tool) == [(c, tool) for c, tool, _ in steps_of(name)]


@pytest.mark.parametrize("name", files("arguments"))
def test_arguments_as_the_tools_received_them(name: str) -> None:
    assert per_call(name, lambda s: s.arguments) == [(c, args) for c, _, args in steps_of(name)]


@pytest.mark.parametrize("name", files("outputs"))
def test_outputs_as_the_model_was_given_them(name: str) -> None:
    assert per_call(name, lambda s: s.output) == list(outputs_of(name).items())


@pytest.mark.parametrize("name", files("error"))
def test_the_failed_call_alone_is_flagged(name: str) -> None:
    flagged = [(c, bool(error)) for c, error in per_call(name, lambda s: s.error)]
    assert flagged == [(c, c == FAILED_CALL) for c, _, _ in steps_of(name)]


@pytest.mark.parametrize("name", files("error_text"))
def test_the_error_says_what_the_tool_raised(name: str) -> None:
    error = by_call(run_of(name))[FAILED_CALL].error
    assert error is not None and ERROR_TEXT in error


@pytest.mark.parametrize("name", files("retrieved"))
def test_retrieved_document_ids(name: str) -> None:
    assert retrieved_ids(run_of(name)) == RETRIEVED_IDS[name]


@pytest.mark.parametrize("name", files("answer"))
def test_final_answer(name: str) -> None:
    assert run_of(name).answer == ANSWER


@pytest.mark.parametrize("name", files("tokens"))
def test_total_tokens_of_the_model_calls(name: str) -> None:
    usage = run_of(name).usage
    assert usage is not None and usage.tokens == TOKENS[name]


@pytest.mark.parametrize("name", files("agent", AUTOGEN))
def test_each_call_is_scoped_to_the_agent_whose_turn_it_was(name: str) -> None:
    # the hand-off: triage's calls, then billing's
    assert per_call(name, lambda s: s.metadata.get("agent")) == list(AUTOGEN_AGENTS.items())
