"""Google ADK (Agent Development Kit): sessions, eval results, eval sets, old test files.

Keys are read in both spellings ADK writes (``function_call`` / ``functionCall``, see
:mod:`._adk_content`). One JSON document per file (or per line):

- a **Session** (``{id, appName, userId, state, events: [...]}``, as ``adk run
  --save_session`` or the API server writes it; ``{"sessions": [...]}`` holds several): one
  run;
- an **EvalSetResult** (``*.evalset_result.json``: ``{eval_set_result_id, eval_set_id,
  eval_case_results: [...]}``; the legacy file that is a JSON *string* holding it too): one
  run per eval case result, and cases from its expected invocations;
- an **EvalSet** (``*.evalset.json``: ``{eval_set_id, eval_cases: [...]}``) and an old
  ``*.test.json`` (a list of ``{query, expected_tool_use, reference}``): gold only, so
  :func:`read` gives no runs and :func:`read_cases` the cases (:mod:`._adk_gold`).

==================================  ========================================================
``events[i]`` in order              steps from ``content.parts[].function_call``
                                    (``{id, name, args}``): tool, arguments, call id; the
                                    calls of one event share a turn (0-based over the run)
``events[i].author``                the step's agent (``metadata["agent"]``)
``function_response``               the output (``response``) of the call with that ``id``
                                    (else the first open call of that ``name``); a truthy
                                    ``response.error`` (ADK's tool convention) or MCP
                                    ``isError: true`` fails the step
``timestamp`` (unix seconds)        a step's ``start_time`` (call event), ``end_time`` and
                                    ``latency_ms`` (response event); the run's latency is
                                    first to last event
last agent text                     the answer: the text parts (not thoughts) of the last
                                    non-user event without function calls or responses
user events (``author: "user"``)    each with text opens a conversation turn (``Run.turns``,
                                    :mod:`._turns`; two or more): an invocation's calls are
                                    its steps, its last agent text the reply; an eval case
                                    result without ``session_details``: one turn per actual
                                    invocation (``user_content``, its tool uses,
                                    ``final_response``)
``usage_metadata``                  tokens: ``total_token_count`` (else prompt + candidates);
                                    the run's split (:mod:`._usage`): input
                                    ``prompt_token_count``, output ``candidates_`` +
                                    ``thoughts_token_count``
``model_version``                   ``metadata["model"]`` (one model; ``models`` for several)
``error_code``, ``error_message``   kept in ``metadata["errors"]``
``id`` (session)                    ``run_id``; the case id is the session state's
                                    ``pathgrade.case_id`` (``--case-id-attribute``), else
                                    the session id
``eval_id`` (result)                ``case_id``; ``trial`` counts repeats of it in the file;
                                    ``final_eval_status`` 1 (PASSED) / 2 (FAILED) is
                                    ``success``; steps from ``session_details`` when present,
                                    else the actual invocations' ``intermediate_data``
                                    (``tool_uses``/``tool_responses`` or
                                    ``invocation_events``); the answer is the last actual
                                    ``final_response``
==================================  ========================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step, Usage
from pathgrade.io.ingest._adk_content import (
    USER,
    Steps,
    child,
    content_text,
    has,
    has_function_parts,
    items,
    member,
    parts_of,
    split_of,
    text_of_parts,
    tokens_of,
)
from pathgrade.io.ingest._adk_gold import eval_set_cases, result_cases, test_file_case
from pathgrade.io.ingest._common import (
    At,
    IngestOptions,
    bounded,
    head_text,
    json_lines,
    number,
    obj,
    text,
    text_of,
)
from pathgrade.io.ingest._turns import TurnMarks
from pathgrade.io.ingest._usage import model_metadata, split_sum, with_split

NAME = "adk"
_STATUS = {1: True, 2: False, "PASSED": True, "FAILED": False}
_MARKS = (
    ('"events"', '"invocationId"', '"author"'),
    ('"events"', '"invocation_id"', '"author"'),
    ('"eval_set_id"', '"eval_cases"'),
    ('"evalSetId"', '"evalCases"'),
    ('"eval_case_results"',),
    ('"evalCaseResults"',),
    ('\\"eval_case_results\\"',),
    ('"query"', '"expected_tool_use"'),
)


def sniff(head: bytes | str) -> bool:
    """A session (``events`` with ``author`` and an invocation id), an eval set
    (``eval_set_id`` + ``eval_cases``), an eval result (``eval_case_results``) or an old
    test file (``query`` + ``expected_tool_use``), in either spelling."""
    start = head_text(head)
    return any(all(mark in start for mark in marks) for marks in _MARKS)


@dataclass
class _Trace:
    """What a run's events say: steps, answer, tokens, timestamps, reported errors."""

    steps: Steps = field(default_factory=Steps)
    answer: str | None = None
    tokens: list[float] = field(default_factory=list)
    splits: list[tuple[float | None, float | None]] = field(default_factory=list)
    models: list[str | None] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    turns: TurnMarks = field(default_factory=TurnMarks)

    def events(self, events: list[tuple[Any, At]]) -> None:
        for value, at in events:
            event = obj(value, at, optional=False)
            if member(event, "partial", at)[0] is True:
                continue  # a streaming chunk: the complete event follows
            author = text(member(event, "author", at)[0], at.key("author"))
            agent = author if author and author.lower() != USER else None
            when = number(member(event, "timestamp", at)[0])
            content, c_at = member(event, "content", at)
            parts = parts_of(content, c_at)
            made = len(self.steps.steps)
            self.steps.event(parts, agent, when)
            said = text_of_parts(parts)
            if author is not None and author.lower() == USER:
                self.turns.open(said, made)  # the event's own calls (none, usually) included
            if agent is not None and said and not has_function_parts(parts):
                self.answer = said
                self.turns.reply(said)
            usage, _ = child(event, "usage_metadata", at)
            tokens = tokens_of(usage)
            if tokens is not None:
                self.tokens.append(tokens)
            self.splits.append(split_of(usage))
            self.models.append(text_of(member(event, "model_version", at)[0]))
            if when is not None:
                self.times.append(when)
            code = text_of(member(event, "error_code", at)[0])
            message = text_of(member(event, "error_message", at)[0])
            if code or message:
                self.errors.append({"author": author, "code": code, "message": message})

    def invocation(self, invocation: Mapping[str, Any], at: At) -> None:
        user, u_at = member(invocation, "user_content", at)
        self.turns.open(content_text(user, u_at), len(self.steps.steps))
        data, where = child(invocation, "intermediate_data", at)
        if has(data, "invocation_events"):
            self.events(items(data, "invocation_events", where))
        else:
            for call, c_at in items(data, "tool_uses", where):
                self.steps.call(obj(call, c_at, optional=False), c_at, None, None)
            for response, r_at in items(data, "tool_responses", where):
                self.steps.response(obj(response, r_at, optional=False), r_at, None)
        final, f_at = member(invocation, "final_response", at)
        said = content_text(final, f_at)
        if said:
            self.answer = said
            self.turns.reply(said)

    def run(self, at: At, **fields: Any) -> Run:
        latency = (max(self.times) - min(self.times)) * 1000.0 if len(self.times) > 1 else None
        tokens = sum(self.tokens) if self.tokens else None
        usage = with_split(
            Usage(tokens=tokens, latency_ms=latency)
            if tokens is not None or latency is not None
            else None,
            split_sum(self.splits),
        )
        metadata = {**model_metadata(self.models), **fields.pop("metadata")}
        if self.errors:
            metadata["errors"] = bounded(self.errors, at.key("events"))
        try:
            steps = tuple(Step(**s) for s in self.steps.finished())
            return Run(
                steps=steps,
                turns=self.turns.turns(steps),
                answer=self.answer,
                usage=usage,
                metadata=metadata,
                **fields,
            )
        except ValidationError as failure:
            first = failure.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise (at.key(where) if where else at).error(first["msg"]) from None


def session_run(record: Mapping[str, Any], at: At, options: IngestOptions) -> Run:
    """The run of one Session."""
    trace = _Trace()
    trace.events(items(record, "events", at))
    run_id = text_of(member(record, "id", at)[0]) or f"{Path(at.file).name}:{at.line}"
    state, _ = child(record, "state", at)
    metadata: dict[str, Any] = {"source": NAME}
    for key in ("app_name", "user_id"):
        value = text_of(member(record, key, at)[0])
        if value is not None:
            metadata[key] = value
    return trace.run(
        at,
        case_id=options.case_id(run_id, state.get(options.case_id_attribute)),
        run_id=run_id,
        metadata=metadata,
    )


def result_runs(record: Mapping[str, Any], at: At, options: IngestOptions) -> Iterator[Run]:
    """One run per ``eval_case_results[i]`` of an EvalSetResult."""
    set_id = text_of(member(record, "eval_set_id", at)[0])
    result_id = text_of(member(record, "eval_set_result_id", at)[0]) or Path(at.file).name
    seen: dict[str, int] = {}
    for value, r_at in items(record, "eval_case_results", at):
        try:
            result = obj(value, r_at, optional=False)
            eval_id = text(member(result, "eval_id", r_at)[0], r_at.key("eval_id"), optional=False)
            trial = seen.get(eval_id or "", 0)
            seen[eval_id or ""] = trial + 1
            yield _result_run(result, r_at, options, eval_id or "", trial, set_id, result_id)
        except InputError as error:
            options.fail(error)


def _result_run(
    result: Mapping[str, Any],
    at: At,
    options: IngestOptions,
    eval_id: str,
    trial: int,
    set_id: str | None,
    result_id: str,
) -> Run:
    trace = _Trace()
    session, s_at = child(result, "session_details", at)
    if has(session, "events"):
        trace.events(items(session, "events", s_at))
    else:
        for item, i_at in items(result, "eval_metric_result_per_invocation", at):
            actual, a_at = child(obj(item, i_at, optional=False), "actual_invocation", i_at)
            trace.invocation(actual, a_at)
    status = member(result, "final_eval_status", at)[0]
    metrics: dict[str, Any] = {}
    for item, m_at in items(result, "overall_eval_metric_results", at):
        metric = obj(item, m_at, optional=False)
        name = text_of(member(metric, "metric_name", m_at)[0])
        if name is not None:
            metrics[name] = number(member(metric, "score", m_at)[0])
    metadata: dict[str, Any] = {"source": NAME, "eval_set_result_id": result_id}
    if set_id is not None:
        metadata["eval_set_id"] = set_id
    if metrics:
        metadata["metrics"] = metrics
    if isinstance(status, int | str) and not isinstance(status, bool):
        metadata["final_eval_status"] = status
    run_id = text_of(member(result, "session_id", at)[0]) or f"{result_id}/{eval_id}#{trial}"
    return trace.run(
        at,
        case_id=options.case_id(run_id, eval_id),
        run_id=run_id,
        trial=trial,
        success=_STATUS.get(status) if isinstance(status, int | str) else None,
        metadata=metadata,
    )


def _kind(value: Any) -> str | None:
    if isinstance(value, list):
        return (
            "test" if value and all(isinstance(v, dict) and "query" in v for v in value) else None
        )
    if not isinstance(value, dict):
        return None
    for kind, key in (
        ("results", "eval_case_results"),
        ("eval_set", "eval_cases"),
        ("sessions", "sessions"),
        ("session", "events"),
    ):
        if has(value, key):
            return kind
    return None


def _documents(path: str | Path, options: IngestOptions) -> Iterator[tuple[str, Any, At]]:
    """``(kind, value, location)`` of each document (a legacy JSON string decoded)."""
    for line, value in json_lines(path, options):
        at = At(str(path), line)
        if isinstance(value, str) and value.lstrip()[:1] == "{":
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError as error:
                options.fail(at.error(f"malformed JSON inside the JSON string: {error}"))
                continue
        kind = _kind(value)
        if kind is None:
            options.fail(
                at.error("expected an ADK session, eval set, eval set result or test file")
            )
            continue
        yield kind, value, at


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per session and per eval case result (eval sets and test files: none)."""
    options = options or IngestOptions()
    for kind, value, at in _documents(path, options):
        try:
            if kind == "session":
                yield session_run(value, at, options)
            elif kind == "sessions":
                for session, s_at in items(value, "sessions", at):
                    try:
                        yield session_run(obj(session, s_at, optional=False), s_at, options)
                    except InputError as error:
                        options.fail(error)
            elif kind == "results":
                yield from result_runs(value, at, options)
        except InputError as error:
            options.fail(error)


def read_cases(path: str | Path, options: IngestOptions | None = None) -> list[Case]:
    """The cases of eval sets, eval set results and test files (first of each id wins)."""
    options = options or IngestOptions()
    cases: dict[str, Case] = {}
    for kind, value, at in _documents(path, options):
        try:
            if kind == "eval_set":
                found: list[Case] = eval_set_cases(value, at, options)
            elif kind == "results":
                found = result_cases(value, at, options)
            elif kind == "test":
                found = [test_file_case(value, at, str(path))]
            else:
                found = []
        except InputError as error:
            options.fail(error)
            continue
        for case in found:
            cases.setdefault(case.case_id, case)
    return list(cases.values())
