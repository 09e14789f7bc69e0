"""Pydantic AI and Strands Agents traces, written by the real libraries, read by pathgrade.

Four files (``tests/golden/ingest/producers``; generators and versions in its README):
pydantic-ai's own OpenTelemetry spans (the ones Logfire shows), the same run with
OpenInference's ``OpenInferenceSpanProcessor`` on top, and Strands' own GenAI spans in its
default and in its latest (``gen_ai_latest_experimental``) conventions. All four record the
same two-agent refund scenario (``pydantic_strands_golden``).

Each check is its own test per file, its expected value written from the scenario. A check
the current reader gets wrong is ``xfail(strict=True)`` with what the reader gives instead:
it turns red (XPASS) once a reader gets it right, and the mark is then removed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.core.types import Run
from pathgrade.io.ingest import FORMATS, IngestOptions, detect

from .pydantic_strands_golden import (
    ANSWER,
    ERROR_TEXT,
    FAILED_STEP,
    FILES,
    RETRIEVED_IDS,
    TOKENS,
    steps_of,
)

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
PAI_OTEL, PAI_OI, STRANDS, STRANDS_LATEST = FILES

#: (check, file) -> what the current reader gives instead
XFAIL: dict[tuple[str, str], str] = {}


def files(check: str) -> list[object]:
    """The four files as parameters, each check's known reader gaps marked."""
    params: list[object] = []
    for name in FILES:
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


@pytest.mark.parametrize("name", files("tools"))
def test_tool_names_in_call_order(name: str) -> None:
    assert [s.tool for s in run_of(name).steps] == [tool for tool, _, _ in steps_of(name)]


@pytest.mark.parametrize("name", files("arguments"))
def test_arguments_as_the_tools_received_them(name: str) -> None:
    assert [s.arguments for s in run_of(name).steps] == [args for _, args, _ in steps_of(name)]


@pytest.mark.parametrize("name", files("error"))
def test_the_failed_call_alone_is_flagged(name: str) -> None:
    flagged = [bool(s.error) for s in run_of(name).steps]
    assert flagged == [i == FAILED_STEP for i in range(len(steps_of(name)))]


@pytest.mark.parametrize("name", files("error_text"))
def test_the_error_says_what_the_tool_raised(name: str) -> None:
    error = run_of(name).steps[FAILED_STEP].error
    assert error is not None and ERROR_TEXT in error


@pytest.mark.parametrize("name", files("retrieved"))
def test_retrieved_document_ids(name: str) -> None:
    if name in (PAI_OTEL, PAI_OI):
        # pydantic-ai has no retrieval spans: search_kb's result (a JSON list of {id, text})
        # is read as documents when the user names it a retrieval tool
        (run,) = read(name, IngestOptions(retrieval_tools=frozenset({"search_kb"})))
        assert run_of(name).retrieved is None  # not without the option
    else:
        run = run_of(name)
    assert [d.id for d in run.retrieved or ()] == RETRIEVED_IDS


@pytest.mark.parametrize("name", files("answer"))
def test_final_answer(name: str) -> None:
    # Strands' agent result (and its invoke_agent span) ends the text with a newline
    assert (run_of(name).answer or "").strip() == ANSWER


@pytest.mark.parametrize("name", files("tokens"))
def test_total_tokens_of_the_six_model_calls(name: str) -> None:
    # the agent spans' own totals (support 700, billing 375) are not added again
    usage = run_of(name).usage
    assert usage is not None and usage.tokens == TOKENS


@pytest.mark.parametrize("name", files("agent"))
def test_each_step_is_scoped_to_the_agent_that_called_it(name: str) -> None:
    agents = [s.metadata.get("agent") for s in run_of(name).steps]
    assert agents == [agent for _, _, agent in steps_of(name)]
