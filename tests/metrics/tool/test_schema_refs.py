"""Tool schemas resolve ``$ref`` only inside themselves: a remote or ``file://`` reference is
a one-line error when the tools file is loaded, and nothing is ever fetched."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.io.tools import load_tools
from pathgrade.metrics.tool.schemas import ToolSpec, schema_problem, schema_violations


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:  # the name http.server calls
        type(self).hits.append(self.path)
        body = json.dumps({"type": "string"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        del format, args


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A JSON Schema server on 127.0.0.1 that records every request it gets."""
    hits: list[str] = []
    handler = type("Recorder", (_Recorder,), {"hits": hits})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    finally:
        httpd.shutdown()
        httpd.server_close()


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    """One case and one run whose call has the argument the schema's ``$ref`` describes."""
    call = {"tool": "lookup_order", "arguments": {"order": "A17"}}
    cases, runs = tmp_path / "cases.jsonl", tmp_path / "runs.jsonl"
    cases.write_text(json.dumps({"case_id": "c1", "reference": [call]}) + "\n")
    runs.write_text(json.dumps({"case_id": "c1", "steps": [call]}) + "\n")
    return cases, runs


def _tools_file(tmp_path: Path, ref: str) -> Path:
    tools = [
        {"type": "function", "function": {"name": "send_message", "parameters": {}}},
        {
            "type": "function",
            "function": {
                "name": "lookup_order",
                "parameters": {"type": "object", "properties": {"order": {"$ref": ref}}},
            },
        },
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools, indent=2))
    return path


def test_jsonschemas_default_resolver_would_fetch(server: tuple[str, list[str]]) -> None:
    """What pathgrade used before: jsonschema's default registry fetches remote refs, and the
    recorder sees it, so the tests below that see no request are not vacuous."""
    url, hits = server
    schema = {"type": "object", "properties": {"order": {"$ref": f"{url}/order.json"}}}
    with pytest.warns(DeprecationWarning):
        errors = list(Draft202012Validator(schema).iter_errors({"order": 17}))
    assert hits == ["/order.json"] and len(errors) == 1  # 17 is not a string


def test_a_remote_ref_is_refused_and_never_fetched(
    tmp_path: Path, server: tuple[str, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, hits = server
    tools = _tools_file(tmp_path, f"{url}/order.json")
    with pytest.raises(InputError) as error:
        load_tools(tools)
    assert error.value.field == "[1].parameters" and "lookup_order" in error.value.message
    cases, runs = _inputs(tmp_path)
    code = main(["score", str(cases), str(runs), "--tools", str(tools), "--json"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    err = captured.err.strip()
    assert err.count("\n") == 0
    assert "tool 'lookup_order'" in err and "field '[1].parameters'" in err
    assert "$.properties.order" in err and "refused" in err
    assert hits == []  # no request, at load or at scoring


def test_a_file_ref_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "order.schema.json"
    secret.write_text(json.dumps({"type": "string"}))
    tools = _tools_file(tmp_path, secret.as_uri())
    cases, runs = _inputs(tmp_path)
    code = main(["score", str(cases), str(runs), "--tools", str(tools), "--workers", "2"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0
    assert "tool 'lookup_order'" in err and "file://" in err and "refused" in err


@pytest.mark.parametrize("ref", ["order.json", "../secret.json#/x", "urn:x:order", "//host/x"])
def test_relative_and_other_refs_are_refused(ref: str) -> None:
    problem = schema_problem({"properties": {"order": {"$ref": ref}}})
    assert problem is not None and "points outside the schema" in problem


def test_in_document_refs_still_work(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"order": {"$ref": "#/$defs/order"}, "note": {"$ref": "#note"}},
        "$defs": {
            "order": {"type": "string", "pattern": "^A[0-9]+$"},
            "note": {"$anchor": "note", "type": "string"},
        },
    }
    assert schema_problem(schema) is None
    spec = ToolSpec("lookup_order", schema)
    assert schema_violations(spec, {"order": "A17", "note": "hi"}) == []
    # 'B1' fails the referenced pattern: the $ref was followed, inside the document
    assert [v.path for v in schema_violations(spec, {"order": "B1"})] == ["$.order"]
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"order": {"$ref": "#/definitions/order"}},
        "definitions": {"order": {"type": "string"}},
    }
    assert schema_problem(draft7) is None


def test_a_dangling_in_document_ref_is_an_error() -> None:
    problem = schema_problem({"properties": {"order": {"$ref": "#/$defs/nowhere"}}})
    assert (
        problem
        == "$ref '#/$defs/nowhere' (at $.properties.order) does not resolve within the schema"
    )


def test_a_spec_built_in_code_never_fetches(server: tuple[str, list[str]]) -> None:
    url, hits = server
    spec = ToolSpec("lookup_order", {"properties": {"order": {"$ref": f"{url}/order.json"}}})
    with pytest.raises(ValueError, match="lookup_order"):
        schema_violations(spec, {"order": 3})
    assert hits == []


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(defs=st.lists(names, min_size=1, max_size=4, unique=True), host=names, path=names)
def test_refs_are_accepted_exactly_when_in_document(defs: list[str], host: str, path: str) -> None:
    inside = {
        "properties": {name: {"$ref": f"#/$defs/{name}"} for name in defs},
        "$defs": {name: {"type": "string"} for name in defs},
    }
    assert schema_problem(inside) is None
    for ref in (f"https://{host}.example/{path}.json", f"file:///{host}/{path}", f"{path}.json"):
        outside = {**inside, "properties": {**inside["properties"], "x": {"$ref": ref}}}
        problem = schema_problem(outside)
        assert problem is not None and repr(ref) in problem


def test_score_with_an_in_document_ref(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = _tools_file(tmp_path, "#/$defs/order")
    doc = json.loads(tools.read_text())
    doc[1]["function"]["parameters"]["$defs"] = {"order": {"type": "string"}}
    tools.write_text(json.dumps(doc))
    cases, runs = _inputs(tmp_path)
    assert main(["score", str(cases), str(runs), "--tools", str(tools), "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)["results"]
    assert record["metrics"]["schema_validity"] == 1.0  # "A17" is a string: 1 valid of 1
