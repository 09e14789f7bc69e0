"""smolagents and DSPy traces written by the real OpenInference instrumentations.

The files (``tests/golden/ingest/producers/smolagents_openinference.jsonl``,
``dspy_openinference.jsonl``) were written by ``tools/producers/smolagents_trace.py`` and
``tools/producers/dspy_trace.py`` (library versions: their docstrings and
``tests/golden/ingest/README.md``). Every expected value is hand-written from the scenario
those scripts drove (their recorded model replies and their tools), not copied from what the
reader makes of the files; each check is its own test, and a check the current
``openinference`` reader gets wrong is a strict xfail whose reason says what it gets instead.

smolagents, trace 1 (``ToolCallingAgent``): ``lookup_order`` and ``search_policy`` asked for
in one model response, ``issue_refund`` (raises "payment gateway timeout"), ``issue_refund``
again, then the built-in ``final_answer`` tool. Four model calls: 160 + 282 + 322 + 352 = 1116.
smolagents has no retriever: ``search_policy`` is a plain tool whose output holds the
documents. Trace 2 (``CodeAgent``, tools called from the Python the model wrote):
``lookup_order``, ``issue_refund`` (raises), ``issue_refund``, ``final_answer(...)``. Three
model calls: 230 + 275 + 335 = 840.

DSPy (trace 1, ``dspy.ReAct``): ``search_kb`` (calls ``dspy.ColBERTv2``: passages 101 and 205,
scores 21.5 and 18.25), ``lookup_order``, ``issue_refund`` (raises), ``issue_refund``, then
ReAct's own ``finish`` tool and the extract step's answer. Six model calls (LiteLLM spans):
340 + 415 + 488 + 556 + 610 + 670 = 3079.

The framework's terminal tool (smolagents' ``final_answer``, ReAct's ``finish``) ends the run:
its content is the answer, it is not one of the agent's calls (as a handoff is not in the
OpenAI Agents readers), so the expected steps leave it out, and a separate test checks that
it is not a step.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import RetrievedItem, Run
from pathgrade.io.ingest import FORMATS, detect

from .smolagents_dspy_golden import FILES

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
SMOLAGENTS, DSPY = (GOLDEN / name for name in FILES)

TOOL_CALLING_TRACE = "5eed0000000000000000000000000001"
CODE_AGENT_TRACE = "5eed0000000000000000000000000002"
REACT_TRACE = "5eed0000000000000000000000000001"

ERROR = "payment gateway timeout"

#: smolagents ToolCallingAgent: (tool, arguments as the tool function received them)
TOOL_CALLING_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("lookup_order", {"order_id": "A17"}),
    ("search_policy", {"query": "refund policy for damaged items"}),
    ("issue_refund", {"order_id": "A17", "amount": 25.0}),
    ("issue_refund", {"order_id": "A17", "amount": 25.0}),
]
#: smolagents CodeAgent
CODE_AGENT_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("lookup_order", {"order_id": "B22"}),
    ("issue_refund", {"order_id": "B22", "amount": 12.5}),
    ("issue_refund", {"order_id": "B22", "amount": 12.5}),
]
#: DSPy ReAct
REACT_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_kb", {"query": "refund policy for damaged items"}),
    ("lookup_order", {"order_id": "A17"}),
    ("issue_refund", {"order_id": "A17", "amount": 25.0}),
    ("issue_refund", {"order_id": "A17", "amount": 25.0}),
]
FAILED = 2  # in each of the three runs, the first issue_refund (the third call) raised


@cache
def runs(path: Path) -> dict[str, Run]:
    return {str(r.run_id): r for r in FORMATS[detect(path).name].read(path, None)}


def tool_calling() -> Run:
    return runs(SMOLAGENTS)[TOOL_CALLING_TRACE]


def code_agent() -> Run:
    return runs(SMOLAGENTS)[CODE_AGENT_TRACE]


def react() -> Run:
    return runs(DSPY)[REACT_TRACE]


def first_steps(run: Run, count: int) -> list[Any]:
    """The run's first ``count`` steps (the terminal tool, when it is a step, comes after)."""
    assert len(run.steps) >= count
    return list(run.steps[:count])


def tokens(run: Run) -> float | None:
    return run.usage.tokens if run.usage is not None else None


# --- both files are sniffed as OpenInference ------------------------------------------------


@pytest.mark.parametrize("path", [SMOLAGENTS, DSPY], ids=["smolagents", "dspy"])
def test_file_is_detected_as_openinference(path: Path) -> None:
    assert detect(path).name == "openinference"


def test_smolagents_file_holds_one_run_per_agent_run() -> None:
    assert sorted(runs(SMOLAGENTS)) == [TOOL_CALLING_TRACE, CODE_AGENT_TRACE]


def test_dspy_file_holds_one_run() -> None:
    assert list(runs(DSPY)) == [REACT_TRACE]


# --- smolagents ToolCallingAgent ---------------------------------------------------------------


def test_smolagents_tool_calling_tool_names_and_order() -> None:
    steps = first_steps(tool_calling(), len(TOOL_CALLING_CALLS))
    assert [s.tool for s in steps] == [name for name, _ in TOOL_CALLING_CALLS]


def test_smolagents_tool_calling_final_answer_is_not_a_step() -> None:
    assert [s.tool for s in tool_calling().steps] == [name for name, _ in TOOL_CALLING_CALLS]


def test_smolagents_tool_calling_arguments() -> None:
    steps = first_steps(tool_calling(), len(TOOL_CALLING_CALLS))
    assert [s.arguments for s in steps] == [args for _, args in TOOL_CALLING_CALLS]


def test_smolagents_tool_calling_error_on_the_failed_refund() -> None:
    steps = first_steps(tool_calling(), len(TOOL_CALLING_CALLS))
    assert steps[FAILED].error and ERROR in steps[FAILED].error
    assert [s.error for i, s in enumerate(steps) if i != FAILED] == [None, None, None]


def test_smolagents_tool_calling_has_no_retrieval() -> None:
    # smolagents records no RETRIEVER span: the documents are only search_policy's output
    run = tool_calling()
    assert run.retrieved is None
    search = first_steps(run, len(TOOL_CALLING_CALLS))[1]
    assert [doc["id"] for doc in search.output] == ["kb-refunds", "kb-payments"]


def test_smolagents_tool_calling_answer() -> None:
    assert tool_calling().answer == "Refunded 25.00 on order A17."


def test_smolagents_tool_calling_tokens() -> None:
    # the model spans only: the AGENT span's own llm.token_count.* (the run's sum) is not added
    assert tokens(tool_calling()) == 160 + 282 + 322 + 352


# --- smolagents CodeAgent -----------------------------------------------------------------------


def test_smolagents_code_agent_tool_names_and_order() -> None:
    steps = first_steps(code_agent(), len(CODE_AGENT_CALLS))
    assert [s.tool for s in steps] == [name for name, _ in CODE_AGENT_CALLS]


def test_smolagents_code_agent_final_answer_is_not_a_step() -> None:
    assert [s.tool for s in code_agent().steps] == [name for name, _ in CODE_AGENT_CALLS]


def test_smolagents_code_agent_arguments() -> None:
    steps = first_steps(code_agent(), len(CODE_AGENT_CALLS))
    assert [s.arguments for s in steps] == [args for _, args in CODE_AGENT_CALLS]


def test_smolagents_code_agent_error_on_the_failed_refund() -> None:
    steps = first_steps(code_agent(), len(CODE_AGENT_CALLS))
    failed = 1  # lookup_order, then the failing issue_refund
    assert steps[failed].error and ERROR in steps[failed].error
    assert [s.error for i, s in enumerate(steps) if i != failed] == [None, None]


def test_smolagents_code_agent_answer() -> None:
    assert code_agent().answer == "Refunded 12.50 on order B22."


def test_smolagents_code_agent_tokens() -> None:
    assert tokens(code_agent()) == 230 + 275 + 335


# --- DSPy ReAct -------------------------------------------------------------------------------


def test_dspy_tool_names_and_order() -> None:
    steps = first_steps(react(), len(REACT_CALLS))
    assert [s.tool for s in steps] == [name for name, _ in REACT_CALLS]


def test_dspy_finish_is_not_a_step() -> None:
    assert len(react().steps) == len(REACT_CALLS)


def test_dspy_arguments() -> None:
    steps = first_steps(react(), len(REACT_CALLS))
    assert [s.arguments for s in steps] == [args for _, args in REACT_CALLS]


def test_dspy_error_on_the_failed_refund() -> None:
    steps = first_steps(react(), len(REACT_CALLS))
    assert steps[FAILED].error and ERROR in steps[FAILED].error
    assert [s.error for i, s in enumerate(steps) if i != FAILED] == [None, None, None]


def test_dspy_retrieved_documents() -> None:
    # ColBERTv2's RETRIEVER span: document.id is the passage id (an int), with its score
    assert react().retrieved == (
        RetrievedItem(id="101", score=21.5),
        RetrievedItem(id="205", score=18.25),
    )


def test_dspy_retrieval_is_part_of_the_search_step() -> None:
    # the ColBERTv2 span is inside search_kb's TOOL span: one step, not two
    search, lookup = first_steps(react(), 2)
    assert search.metadata.get("retrieval") is True and not lookup.metadata.get("retrieval")


def test_dspy_answer() -> None:
    assert react().answer == "Refunded 25.00 on order A17."


def test_dspy_tokens() -> None:
    # LiteLLM's model spans; DSPy's own LM.__call__ spans (also LLM) have no token counts
    assert tokens(react()) == 340 + 415 + 488 + 556 + 610 + 670
