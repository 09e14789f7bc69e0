"""``lint_cases``: one hand-made case per finding, and a clean case with none."""

from __future__ import annotations

from typing import Any

from pathgrade.cases.lint import Finding, errors, lint_cases
from pathgrade.core.types import Budget, Case, RepeatBounds
from pathgrade.metrics.tool.schemas import ToolSet, ToolSpec

REFUND_SCHEMA = {
    "type": "object",
    "properties": {"order": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["order", "amount"],
    "additionalProperties": False,
}
TOOLS = ToolSet.of(
    [ToolSpec("refund", REFUND_SCHEMA), ToolSpec("lookup"), ToolSpec("send"), ToolSpec("a")]
)


def case(**fields: Any) -> Case:
    return Case.model_validate({"case_id": "c1", **fields})


def found(item: Case, tools: ToolSet | None = None, **kw: Any) -> list[tuple[str, str, str]]:
    """``(code, level, field)`` of every finding."""
    return [(f.code, f.level, f.field) for f in lint_cases([item], tools, **kw)]


def test_a_clean_case_has_no_finding() -> None:
    item = case(
        reference=["lookup", {"tool": "refund", "arguments": {"order": "A1", "amount": 5}}, "send"],
        required_tools=["refund"],
        forbidden_tools=["delete"],
        budget={"steps": 3},
    )
    assert lint_cases([item], TOOLS) == []


def test_arguments_against_the_schema_and_unknown_tools() -> None:
    # amount is a string (type), "note" is not allowed (additionalProperties), and "order" is
    # missing from the second step (required, reported at the arguments object itself).
    item = case(
        reference=[
            {"tool": "refund", "arguments": {"order": "A1", "amount": "ten", "note": "x"}},
            {"tool": "refund", "arguments": {"amount": 5}},
            "ship",
        ]
    )
    assert found(item, TOOLS) == [
        ("arguments", "error", "reference[0].arguments"),  # additionalProperties, at $
        ("arguments", "error", "reference[0].arguments.amount"),
        ("arguments", "error", "reference[1].arguments"),
        ("unknown_tool", "error", "reference[2].tool"),
    ]
    assert found(item) == []  # no tools file: no schema check


def test_forbidden_tools_and_actions_inside_a_reference() -> None:
    item = case(
        reference=[
            "lookup",
            "delete",
            {"tool": "refund", "arguments": {"order": "A1", "amount": 500}},
            {"one_of": [["delete"], ["send"]]},
        ],
        forbidden_tools=["delete"],
        forbidden_actions=[{"tool": "refund", "arguments": {"amount": 500}}],
    )
    assert found(item) == [
        ("forbidden", "error", "reference[1].tool"),
        ("forbidden", "error", "reference[2]"),
        ("forbidden", "error", "reference[3].one_of[0][0].tool"),
    ]


def test_after_edges_forming_a_cycle() -> None:
    # a after c, b after a, c after b: a -> c -> b -> a (each "comes after" the next).
    item = case(
        order="partial",
        reference=[
            {"tool": "a", "id": "a", "after": ["c"]},
            {"tool": "b", "id": "b", "after": ["a"]},
            {"tool": "c", "id": "c", "after": ["b"]},
        ],
    )
    (finding,) = lint_cases([item])
    assert (finding.code, finding.level, finding.field) == ("cycle", "error", "reference[0].after")
    assert "a -> c -> b -> a" in finding.message


def test_a_step_after_itself_is_a_cycle() -> None:
    item = case(order="partial", reference=[{"tool": "a", "id": "a", "after": ["a"]}])
    assert found(item) == [("cycle", "error", "reference[0].after")]


def test_an_after_against_the_total_order_is_unsatisfiable() -> None:
    # Under order = "total" step 0 comes first, yet it says it comes after step 1.
    item = case(reference=[{"tool": "a", "id": "x", "after": ["y"]}, {"tool": "b", "id": "y"}])
    assert found(item) == [("unsatisfiable_order", "error", "reference[0].after")]
    # The same edges under "partial" are a satisfiable order (b, then a).
    assert found(item.model_copy(update={"order": "partial"})) == []


def test_ids_and_repeats_of_cases_built_in_code() -> None:
    # The loader rejects these; lint_cases still names them for a case built without it.
    steps = case(reference=["a", "b"]).reference or ()
    bad = (
        steps[0].model_copy(update={"id": "x", "after": ("nope",)}),
        steps[1].model_copy(
            update={"id": "x", "repeat": RepeatBounds.model_construct(min=3, max=2)}
        ),
    )
    item = Case.model_construct(case_id="c1", reference=bad, order="partial")
    assert found(item) == [
        ("duplicate_id", "error", "reference[1].id"),
        ("unknown_after", "error", "reference[0].after"),
        ("unsatisfiable_order", "error", "reference[1].repeat"),
    ]


def test_too_many_alternatives() -> None:
    # 7 choices of 2 alternatives each: 2**7 = 128 alternatives > 64.
    item = case(reference=[{"one_of": [["a"], ["b"]]}] * 7)
    assert found(item) == [("too_many_alternatives", "error", "reference")]
    assert found(case(reference=[{"one_of": [["a"], ["b"]]}] * 6)) == []  # 64


def test_duplicate_and_sub_path_references() -> None:
    item = case(reference=["a", "c"], references=[["a", "b", "c"], ["a", "b", "c"]])
    assert found(item) == [
        ("sub_path_reference", "warning", "reference"),  # a, c inside a, b, c
        ("duplicate_reference", "warning", "references[1]"),
    ]


def test_budgets_the_reference_exceeds() -> None:
    # Fewest calls: lookup (optional, 0) + poll{2..3} (2) + send (1) = 3 > 2: an error.
    path = [{"tool": "lookup", "optional": True}, {"tool": "poll", "repeat": {"min": 2, "max": 3}}]
    assert found(case(reference=[*path, "send"], budget={"steps": 2})) == [
        ("over_budget", "error", "reference")
    ]
    # Fewest 3 <= 4, most 1 + 3 + 1 = 5 > 4: a warning only.
    assert found(case(reference=[*path, "send"], budget={"steps": 4})) == [
        ("over_budget", "warning", "reference")
    ]
    # Recorded tokens 60 + 50 = 110 > 100; the config's budget applies to a case without one.
    tokens = case(reference=[{"tool": "a", "tokens": 60}, {"tool": "b", "tokens": 50}])
    assert found(tokens, budget=Budget(tokens=100)) == [("over_budget", "error", "reference")]
    assert found(tokens, budget=Budget(tokens=110)) == []


def test_required_tools_no_reference_uses() -> None:
    item = case(reference=["refund"], references=[["send"]], required_tools=["lookup", "send"])
    assert found(item) == [("unused_required_tool", "warning", "required_tools[0]")]
    assert found(case(required_tools=["lookup"])) == []  # no reference: nothing to compare


def test_findings_name_file_and_line_and_errors_filters() -> None:
    items = [case(reference=["a"]), case(case_id="c2", reference=["a"], forbidden_tools=["a"])]
    findings = lint_cases({c.case_id: c for c in items}, file="cases.jsonl", lines=[1, 2])
    assert findings == [
        Finding(
            "c2",
            "reference[0].tool",
            "error",
            "forbidden",
            "the reference calls 'a', which forbidden_tools lists",
            "cases.jsonl",
            2,
        )
    ]
    assert str(findings[0]) == (
        "cases.jsonl:2: case 'c2': field 'reference[0].tool': error: the reference calls 'a',"
        " which forbidden_tools lists [forbidden]"
    )
    assert errors(findings) == findings
