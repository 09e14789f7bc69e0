"""``requires_approval`` declared in a tools file, like the config's and the case's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade import Case, Run, score
from pathgrade.core.config import ApprovalsConfig, ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.io.tools import load_tools, parse_tools
from pathgrade.metrics.tool.schemas import with_tool_approvals

REFUND = {"type": "object", "properties": {"order": {"type": "string"}}}


def _tools(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "data",
    [
        # the wrapper's list
        {"tools": {"refund": REFUND, "lookup": {}}, "requires_approval": ["refund"]},
        # the OpenAI list form, flag inside "function"
        [
            {
                "type": "function",
                "function": {"name": "refund", "parameters": REFUND, "x-requires-approval": True},
            },
            {"type": "function", "function": {"name": "lookup"}},
        ],
        # the map form, flag in the schema (JSON Schema ignores x- keywords)
        {"refund": {**REFUND, "x-requires-approval": True}, "lookup": {}},
    ],
)
def test_a_tools_file_declaration_gives_unapproved_action(tmp_path: Path, data: object) -> None:
    tools = load_tools(_tools(tmp_path, data))
    assert tools.requires_approval() == frozenset({"refund"})
    call = {"tool": "refund", "arguments": {"order": "A1"}}
    # no approval event before the refund: one unapproved_action, penalty 100:
    # path_score = max(0, 100 - 100) = 0
    case = Case(case_id="c", reference=[call])
    result = score([case], [Run(case_id="c", steps=[call])], tools=tools)
    assert [d.kind for d in result[0].defects] == ["unapproved_action"]
    assert result.metrics["path_score"][0] == 0.0
    # granted on the call itself: no defect, path_score 100
    granted = Run(case_id="c", steps=[{**call, "approval": "granted"}])
    again = score([case], [granted], tools=tools)
    assert list(again[0].defects) == []
    assert again.metrics["path_score"][0] == 100.0
    # without the tools file nothing asks for an approval
    assert list(score([case], [Run(case_id="c", steps=[call])])[0].defects) == []


def test_config_and_tools_file_declarations_add_up() -> None:
    tools = parse_tools({"tools": {"refund": {}, "notify": {}}, "requires_approval": ["refund"]})
    config = ScoringConfig(approvals=ApprovalsConfig(tools=("notify", "refund")))
    assert with_tool_approvals(config, tools) is config  # nothing new to add
    plain = ScoringConfig()
    assert with_tool_approvals(plain, tools).approvals.tools == ("refund",)
    assert plain.approvals.tools == ()  # the caller's config is not changed


def test_bad_declarations_name_the_field() -> None:
    with pytest.raises(InputError, match="'requires_approval' names tools that are not"):
        parse_tools({"tools": {"refund": {}}, "requires_approval": ["delete"]})
    with pytest.raises(InputError, match="must be a list of tool names"):
        parse_tools({"tools": {"refund": {}}, "requires_approval": "refund"})
    with pytest.raises(InputError, match="'x-requires-approval' must be true or false"):
        parse_tools([{"type": "function", "function": {"name": "r", "x-requires-approval": 1}}])
