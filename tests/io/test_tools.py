"""Loading tools files: the OpenAI list form, the {name: schema} map, the wrapper, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.errors import InputError
from pathgrade.io.tools import load_tools, parse_tools
from pathgrade.metrics.tool import ToolSpec, schema_problem, schema_violations

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "layers" / "tools.json"


def write(tmp_path: Path, data: Any, name: str = "tools.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def test_openai_function_list_with_dangerous_marker() -> None:
    tools = load_tools(FIXTURE)
    assert list(tools) == ["get_metrics", "restart_service"]
    assert tools.dangerous() == frozenset({"restart_service"})
    spec = tools.get("get_metrics")
    assert (
        spec is not None and spec.description == "Read a metric of one service over a time window."
    )
    assert (
        repr(tools) == "ToolSet(['get_metrics', 'restart_service'], dangerous=['restart_service'])"
    )


def test_plain_map_and_wrapper_and_flat_form(tmp_path: Path) -> None:
    plain = load_tools(
        write(tmp_path, {"refund": {"type": "object", "x-dangerous": True}, "noop": True})
    )
    assert list(plain) == ["refund", "noop"] and plain.dangerous() == {"refund"}
    wrapped = parse_tools({"tools": {"refund": {}, "lookup": {}}, "dangerous": ["refund"]})
    assert wrapped.dangerous() == {"refund"}
    flat = parse_tools([{"type": "function", "name": "ping"}])
    spec = flat.get("ping")
    assert spec is not None and spec.parameters == {"type": "object", "properties": {}}
    assert schema_violations(spec, {}) == []
    assert [v.path for v in schema_violations(spec, ["A17"])] == ["$"]


def test_invalid_schema_is_one_line_error_naming_file_line_and_tool(tmp_path: Path) -> None:
    bad = [
        {"type": "function", "function": {"name": "ok", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "broken", "parameters": {"type": "objekt"}}},
    ]
    path = write(tmp_path, bad)
    with pytest.raises(InputError) as info:
        load_tools(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:14: field '[1].parameters': tool 'broken': not a valid")
    assert info.value.field == "[1].parameters" and info.value.line == 14


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([{"type": "function", "function": {"parameters": {}}}], "non-empty 'name'"),
        ([{"function": {"name": "a"}}, {"function": {"name": "a"}}], "defined twice"),
        ({"tools": [], "dangerous": ["ghost"]}, "not defined: ghost"),
        ({"tools": [], "dangerous": "refund"}, "list of tool names"),
        ([{"function": {"name": "a", "x-dangerous": "yes"}}], "must be true or false"),
        ("nope", "a tools file must hold"),
        ({"a": 3}, "must be an object or a boolean"),
    ],
)
def test_bad_tools_files(data: Any, expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        parse_tools(data, file="tools.json")


def test_unreadable_and_malformed(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read tools file"):
        load_tools(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(InputError, match="malformed JSON"):
        load_tools(broken)


def test_schema_problem_uses_declared_draft() -> None:
    assert schema_problem({"type": "object"}) is None
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "minimum": 0,
        "exclusiveMinimum": True,
    }
    assert schema_problem(draft4) is None  # a boolean exclusiveMinimum is draft 4
    assert schema_problem({"exclusiveMinimum": True}) is not None  # not in 2020-12
    assert repr(ToolSpec("refund", {}, dangerous=True)) == "ToolSpec('refund', dangerous)"


def test_entry_point_validators_are_a_mapping() -> None:
    from pathgrade.io.tools import entry_point_validators

    found = entry_point_validators()  # none are installed in the test environment
    assert all(callable(fn) for fn in found.values())
