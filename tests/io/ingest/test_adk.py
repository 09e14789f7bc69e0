"""Google ADK: sessions, eval set results, eval sets and old test files; runs and cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.io.ingest import IngestOptions, adk, detect, ingest_cases
from pathgrade.io.ingest._adk_content import camel, response_error

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
PRODUCERS = GOLDEN / "producers"


def session() -> dict[str, Any]:
    """A snake_case session (as ``Session.model_dump_json()`` writes it)."""
    return {
        "id": "s-1",
        "app_name": "shop",
        "user_id": "u1",
        "state": {"pathgrade.case_id": "refund-7"},
        "events": [
            {
                "author": "user",
                "invocation_id": "i1",
                "timestamp": 100.0,
                "content": {"role": "user", "parts": [{"text": "Refund order 7"}]},
            },
            {
                "author": "support",
                "invocation_id": "i1",
                "timestamp": 101.0,
                "partial": True,
                "content": {"parts": [{"text": "Let me"}]},
            },
            {
                "author": "support",
                "invocation_id": "i1",
                "timestamp": 101.5,
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "thinking...", "thought": True},
                        {"function_call": {"id": "f1", "name": "get_order", "args": {"id": 7}}},
                        {
                            "function_call": {
                                "id": "f2",
                                "name": "kb_search",
                                "args": {"query": "refund policy"},
                            }
                        },
                    ],
                },
                "usage_metadata": {
                    "prompt_token_count": 50,
                    "candidates_token_count": 10,
                    "total_token_count": 60,
                },
            },
            {
                "author": "support",
                "invocation_id": "i1",
                "timestamp": 102.0,
                "content": {
                    "role": "user",
                    "parts": [
                        {
                            "function_response": {
                                "id": "f2",
                                "name": "kb_search",
                                "response": {"result": ["doc-1"]},
                            }
                        },
                        {
                            "function_response": {
                                "id": "f1",
                                "name": "get_order",
                                "response": {"status": "delivered"},
                            }
                        },
                    ],
                },
            },
            {
                "author": "billing",
                "invocation_id": "i1",
                "timestamp": 103.0,
                "content": {
                    "role": "model",
                    "parts": [
                        {"function_call": {"name": "refund", "args": {"id": 7, "amount": 10.5}}}
                    ],
                },
                "usage_metadata": {"prompt_token_count": 40, "candidates_token_count": 5},
            },
            {
                "author": "billing",
                "invocation_id": "i1",
                "timestamp": 103.5,
                "content": {
                    "parts": [
                        {
                            "function_response": {
                                "name": "refund",
                                "response": {
                                    "isError": True,
                                    "content": [{"type": "text", "text": "gateway timeout"}],
                                },
                            }
                        }
                    ]
                },
            },
            {
                "author": "billing",
                "invocation_id": "i1",
                "timestamp": 104.0,
                "error_code": "MALFORMED_FUNCTION_CALL",
                "error_message": "bad call",
            },
            {
                "author": "billing",
                "invocation_id": "i1",
                "timestamp": 105.0,
                "content": {
                    "role": "model",
                    "parts": [{"text": "Refund failed; "}, {"text": "try later."}],
                },
                "usage_metadata": {"total_token_count": 30},
            },
        ],
    }


def eval_result() -> dict[str, Any]:
    """An eval set result with the older ``IntermediateData`` (tool_uses / tool_responses)."""
    roll = {"parts": [{"text": "Roll a die"}], "role": "user"}
    return {
        "eval_set_result_id": "r1",
        "eval_set_id": "set1",
        "eval_case_results": [
            {
                "eval_set_id": "set1",
                "eval_id": "c1",
                "final_eval_status": 1,
                "session_id": "sess-a",
                "overall_eval_metric_results": [
                    {"metric_name": "tool_trajectory_avg_score", "score": 1.0, "eval_status": 1}
                ],
                "eval_metric_result_per_invocation": [
                    {
                        "actual_invocation": {
                            "invocation_id": "a1",
                            "user_content": roll,
                            "final_response": {"parts": [{"text": "You rolled 4."}]},
                            "intermediate_data": {
                                "tool_uses": [
                                    {"id": "t1", "name": "roll_die", "args": {"sides": 6}}
                                ],
                                "tool_responses": [
                                    {"id": "t1", "name": "roll_die", "response": {"result": 4}}
                                ],
                                "intermediate_responses": [],
                            },
                        },
                        "expected_invocation": {
                            "invocation_id": "e1",
                            "user_content": roll,
                            "final_response": {"parts": [{"text": "You rolled a 4."}]},
                            "intermediate_data": {
                                "tool_uses": [{"name": "roll_die", "args": {"sides": 6}}]
                            },
                        },
                    }
                ],
            },
            {
                "eval_id": "c1",
                "final_eval_status": 2,
                "eval_metric_result_per_invocation": [
                    {
                        "actualInvocation": {
                            "userContent": roll,
                            "finalResponse": {"parts": [{"text": "No."}]},
                            "intermediateData": {
                                "toolUses": [{"name": "roll_die", "args": {"sides": 20}}],
                                "toolResponses": [
                                    {"name": "roll_die", "response": {"error": "too many sides"}}
                                ],
                            },
                        },
                        "expectedInvocation": None,
                    }
                ],
            },
        ],
    }


def old_test_file() -> list[dict[str, Any]]:
    """An old ``*.test.json`` (ADK's own example in ``convert_eval_set_to_pydantic_schema``)."""
    return [
        {"query": "What can you do?", "expected_tool_use": [], "reference": "I roll dice."},
        {
            "query": "Roll a 17 sided dice twice for me",
            "expected_tool_use": [
                {"tool_name": "roll_die", "tool_input": {"sides": 17}},
                {"tool_name": "roll_die", "tool_input": {"sides": 17}},
            ],
            "expected_intermediate_agent_responses": [],
            "reference": "13 and 4.",
        },
    ]


def write(path: Path, document: Any) -> Path:
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    return path


def steps(run: Run) -> list[tuple[Any, ...]]:
    return [(s.tool, s.arguments, s.output, s.error, s.turn, s.call_id) for s in run.steps]


def refs(case: Case) -> list[tuple[Any, ...]]:
    return [(s.tool, s.arguments, s.metadata) for s in case.reference or ()]


def test_golden_files_are_what_the_tests_write(tmp_path: Path) -> None:
    for name, document in [
        ("adk_session.json", session()),
        ("adk_evalset_result.json", eval_result()),
        ("adk_dice.test.json", old_test_file()),
    ]:
        assert write(tmp_path / name, document).read_bytes() == (GOLDEN / name).read_bytes()


def test_session_run(tmp_path: Path) -> None:
    path = write(tmp_path / "session.json", session())
    assert detect(path).name == "adk"
    (run,) = adk.read(path)
    assert (run.case_id, run.run_id, run.trial, run.success) == ("refund-7", "s-1", 0, None)
    # both calls of one event share turn 0; the billing agent's call is turn 1; the
    # responses are matched by id (in another order), the last by name (no id)
    assert steps(run) == [
        ("get_order", {"id": 7}, {"status": "delivered"}, None, 0, "f1"),
        ("kb_search", {"query": "refund policy"}, {"result": ["doc-1"]}, None, 0, "f2"),
        (
            "refund",
            {"id": 7, "amount": 10.5},
            {"isError": True, "content": [{"type": "text", "text": "gateway timeout"}]},
            "gateway timeout",
            1,
            None,
        ),
    ]
    assert [s.metadata["agent"] for s in run.steps] == ["support", "support", "billing"]
    # call event at 101.5, response event at 102.0: 500 ms; refund 103.0 -> 103.5
    assert [(s.start_time, s.end_time, s.latency_ms) for s in run.steps] == [
        (101.5, 102.0, 500.0),
        (101.5, 102.0, 500.0),
        (103.0, 103.5, 500.0),
    ]
    # the thought and the partial chunk are not the answer; the last text event is
    assert run.answer == "Refund failed; try later."
    # tokens 60 + (40 + 5) + 30 = 135; latency from the first event (100) to the last (105)
    assert run.usage is not None and (run.usage.tokens, run.usage.latency_ms) == (135.0, 5000.0)
    assert run.metadata == {
        "source": "adk",
        "app_name": "shop",
        "user_id": "u1",
        "errors": [{"author": "billing", "code": "MALFORMED_FUNCTION_CALL", "message": "bad call"}],
    }
    assert adk.read_cases(path) == []  # a session carries no gold


def test_case_id_fallback_and_map(tmp_path: Path) -> None:
    doc = session()
    doc["state"] = {}
    path = write(tmp_path / "s.json", doc)
    options = IngestOptions()
    assert [r.case_id for r in adk.read(path, options)] == ["s-1"] and options.fallbacks == ["s-1"]
    mapped = IngestOptions(case_map={"s-1": "case-9"})
    assert [r.case_id for r in adk.read(path, mapped)] == ["case-9"]
    several = write(tmp_path / "many.json", {"sessions": [doc, {**doc, "id": "s-2"}]})
    assert [r.run_id for r in adk.read(several)] == ["s-1", "s-2"]


def test_camel_case_session_reads_the_same(tmp_path: Path) -> None:
    # by_alias=True (adk run --save_session) writes camelCase names: the same run.
    def to_camel(value: Any, free: bool = False) -> Any:
        if isinstance(value, dict):
            return {
                (k if free else camel(k)): to_camel(v, free or k in ("args", "response", "state"))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [to_camel(v, free) for v in value]
        return value

    camel_doc = to_camel(session())
    assert "invocationId" in camel_doc["events"][0] and "functionCall" in str(camel_doc)
    assert camel_doc["state"] == {"pathgrade.case_id": "refund-7"}
    snake = list(adk.read(write(tmp_path / "snake.json", session())))
    assert list(adk.read(write(tmp_path / "camel.json", camel_doc))) == snake


def test_eval_result_runs_and_cases(tmp_path: Path) -> None:
    path = write(tmp_path / "r.evalset_result.json", eval_result())
    assert detect(path).name == "adk"
    first, second = adk.read(path)
    assert (first.case_id, first.run_id, first.trial, first.success) == ("c1", "sess-a", 0, True)
    # tool_uses carry no turns: each is unordered only with itself (turn None)
    assert steps(first) == [("roll_die", {"sides": 6}, {"result": 4}, None, None, "t1")]
    assert first.answer == "You rolled 4." and first.usage is None
    assert first.metadata == {
        "source": "adk",
        "eval_set_result_id": "r1",
        "eval_set_id": "set1",
        "metrics": {"tool_trajectory_avg_score": 1.0},
        "final_eval_status": 1,
    }
    # the same eval id again: trial 1; camelCase names; FAILED; the error from the response
    assert (second.case_id, second.run_id, second.trial, second.success) == (
        "c1",
        "r1/c1#1",
        1,
        False,
    )
    assert steps(second) == [
        ("roll_die", {"sides": 20}, {"error": "too many sides"}, "too many sides", None, None)
    ]
    (case,) = adk.read_cases(path)
    assert (case.case_id, case.query, case.gold_answer) == ("c1", "Roll a die", "You rolled a 4.")
    assert refs(case) == [("roll_die", {"sides": 6}, {"invocation": 0})]
    assert case.references_by_agent is None  # tool_uses name no agent
    # a legacy results file is a JSON string holding the JSON: decoded once more
    legacy = tmp_path / "legacy.evalset_result.json"
    legacy.write_bytes(orjson.dumps(orjson.dumps(eval_result()).decode()))
    assert detect(legacy).name == "adk"
    assert list(adk.read(legacy)) == [first, second]


def test_old_test_file_is_one_multi_turn_case(tmp_path: Path) -> None:
    path = write(tmp_path / "dice.test.json", old_test_file())
    assert detect(path).name == "adk"
    assert list(adk.read(path)) == []  # gold only
    (case,) = adk.read_cases(path)
    assert (case.case_id, case.query, case.gold_answer) == (
        "dice",
        "What can you do?",
        "13 and 4.",
    )
    # the tool uses of both turns, in order; the second turn's are invocation 1
    assert refs(case) == [
        ("roll_die", {"sides": 17}, {"invocation": 1}),
        ("roll_die", {"sides": 17}, {"invocation": 1}),
    ]
    assert case.metadata["turns"] == [
        {"query": "What can you do?", "answer": "I roll dice.", "tools": []},
        {
            "query": "Roll a 17 sided dice twice for me",
            "answer": "13 and 4.",
            "tools": ["roll_die", "roll_die"],
        },
    ]


def test_eval_set_with_scenario_and_camel_case(tmp_path: Path) -> None:
    doc = {
        "evalSetId": "s",
        "evalCases": [
            {
                "evalId": "sim",
                "conversationScenario": {"startingPrompt": "Hi", "conversationPlan": "Ask twice."},
            },
            {
                "evalId": "none",
                "conversation": [
                    {"userContent": {"parts": [{"text": "Hello"}]}, "finalResponse": None}
                ],
            },
        ],
    }
    path = write(tmp_path / "x.evalset.json", doc)
    assert detect(path).name == "adk" and list(adk.read(path)) == []
    sim, none = adk.read_cases(path)
    assert (sim.case_id, sim.query, sim.reference, sim.gold_answer) == ("sim", "Hi", None, None)
    assert sim.metadata["conversation_scenario"]["startingPrompt"] == "Hi"
    # a conversation that expects no tool use: the empty reference (call nothing)
    assert (none.query, none.reference, none.gold_answer) == ("Hello", (), None)


#: The real files (tools/producers/adk_session.py).
REFUND = [
    ("lookup_order", {"order_id": "A17"}, {"order_id": "A17", "status": "shipped"}, None, 0),
    ("transfer_to_agent", {"agent_name": "billing"}, {"result": None}, None, 1),
    (
        "refund",
        {"order_id": "A17", "amount": 10.5},
        {"error": "payment gateway timeout"},
        "payment gateway timeout",
        2,
    ),
    ("refund", {"order_id": "A17", "amount": 10.5}, {"order_id": "A17", "refunded": 10.5}, None, 3),
]


def test_real_session() -> None:
    path = PRODUCERS / "adk_session.json"
    assert detect(path).name == "adk"
    (run,) = adk.read(path)
    assert [(s.tool, s.arguments, s.output, s.error, s.turn) for s in run.steps] == REFUND
    assert [s.metadata["agent"] for s in run.steps] == ["support", "support", "billing", "billing"]
    assert [s.call_id for s in run.steps] == [
        "call-lookup-A17",
        "call-transfer",
        "call-refund-1",
        "call-refund-2",
    ]
    # six model responses of 25 tokens each (lookup, reply, transfer, refund x2, reply)
    assert run.answer == "Refunded A17." and run.usage is not None and run.usage.tokens == 150.0
    assert run.case_id == run.run_id == "c2e479e8-e29a-4013-bc9c-5392c9c8c642"


def test_real_eval_set_and_result() -> None:
    (refund, where) = adk.read_cases(PRODUCERS / "adk.evalset.json")
    assert (refund.case_id, refund.query, refund.gold_answer) == (
        "refund_A17",
        "Where is order A17?",
        "Refunded A17.",
    )
    assert [(s.tool, s.arguments, s.metadata) for s in refund.reference or ()] == [
        ("lookup_order", {"order_id": "A17"}, {"invocation": 0, "agent": "support"}),
        ("transfer_to_agent", {"agent_name": "billing"}, {"invocation": 1, "agent": "support"}),
        ("refund", {"order_id": "A17", "amount": 10.5}, {"invocation": 1, "agent": "billing"}),
        ("refund", {"order_id": "A17", "amount": 10.5}, {"invocation": 1, "agent": "billing"}),
    ]
    assert refund.references_by_agent is not None
    assert {k: [s.tool for s in v[0]] for k, v in refund.references_by_agent.items()} == {
        "support": ["lookup_order", "transfer_to_agent"],
        "billing": ["refund", "refund"],
    }
    assert [t["query"] for t in refund.metadata["turns"]] == [
        "Where is order A17?",
        "Refund it, please.",
    ]
    assert (where.case_id, where.gold_answer) == ("where_B2", "Order B2 has shipped.")
    # the eval result: refund now succeeds at once (one refund call): FAILED, score 0.5
    failed, passed = adk.read(PRODUCERS / "adk.evalset_result.json")
    assert [(s.tool, s.error) for s in failed.steps] == [
        ("lookup_order", None),
        ("transfer_to_agent", None),
        ("refund", None),
    ]
    assert (failed.case_id, failed.success, failed.metadata["metrics"]) == (
        "refund_A17",
        False,
        {"tool_trajectory_avg_score": 0.5},
    )
    assert (passed.case_id, passed.success, passed.answer) == (
        "where_B2",
        True,
        "Order B2 has shipped.",
    )
    # the result's expected invocations are the eval set's: the same cases from both files
    files = [PRODUCERS / "adk.evalset.json", PRODUCERS / "adk.evalset_result.json"]
    assert ingest_cases(files) == [refund, where]


def test_sniff() -> None:
    assert adk.sniff('{"id": "x", "events": [{"invocationId": "i", "author": "user"}]}')
    assert adk.sniff('{"eval_set_id": "s", "eval_cases": []}')
    assert adk.sniff(b'[{"query": "q", "expected_tool_use": []}]')
    assert adk.sniff('"{\\"eval_set_result_id\\": \\"r\\", \\"eval_case_results\\": []}"')
    assert not adk.sniff('{"events": [{"event": "tool"}], "eval": {}}')  # Inspect AI
    assert not adk.sniff('[{"role": "user", "content": "hi"}]')


def test_response_error_rule() -> None:
    assert response_error({"error": "boom"}) == "boom"
    assert response_error({"error": {"code": 3}}) == "{'code': 3}"
    assert response_error({"error": None, "result": 1}) is None
    assert response_error({"isError": True, "content": []}) == "isError"
    assert response_error({"is_error": True, "content": [{"text": "x"}]}) == "x"
    assert response_error("error") is None and response_error({"error": ""}) is None


def test_bad_values_name_the_field(tmp_path: Path) -> None:
    doc = session()
    doc["events"][2]["content"]["parts"] = {"text": "x"}
    path = write(tmp_path / "bad.json", doc)
    with pytest.raises(InputError) as caught:
        list(adk.read(path))
    assert caught.value.field == "events[2].content.parts"
    assert "expected a list, got an object" in str(caught.value)
    doc = session()
    doc["events"][2]["content"]["parts"][1]["function_call"]["name"] = ""
    with pytest.raises(InputError, match="needs a name") as caught:
        list(adk.read(write(tmp_path / "b2.json", doc)))
    assert caught.value.field == "events[2].content.parts[1].function_call.name"
    with pytest.raises(InputError, match="expected an ADK session"):
        list(adk.read(write(tmp_path / "b3.json", {"something": 1})))
    # a bad eval case is skipped alone with --skip-invalid
    result = eval_result()
    result["eval_case_results"][0]["eval_id"] = 5
    options = IngestOptions(skip_invalid=True)
    runs = list(adk.read(write(tmp_path / "b4.json", result), options))
    assert [r.trial for r in runs] == [0] and [e.field for e in options.skipped] == [
        "eval_case_results[0].eval_id"
    ]
