"""Fuzzing the trace readers: any mutation of a golden trace file gives runs or an InputError.

Every reader of ``pathgrade ingest`` (and ``detect``, each format's ``read_cases`` and
``load_case_map``) is fed random mutations of the golden files in ``tests/golden/ingest``:
a JSON value at any path (also inside JSON held in a string, such as
``gen_ai.tool.call.arguments``) swapped for a value of another type, deleted, set to null,
to a huge or deeply nested value or to a copy of another part of the file; keys added;
lines dropped, duplicated or joined into one JSON array; and the bytes truncated, spliced
with bad UTF-8 or line separators. Only :class:`InputError` may escape, always one line
naming the file, and every run read must be writable as JSON.

The readers are called directly, not through ``ingest()``, whose last-resort guard would
turn a crash into an InputError and hide it. Bounded for CI (derandomized, a fixed number of
examples per seed file); ``--fuzz-long`` runs ten times as many, randomly. The mutation
strategies live in this file (no shared ``tests/fuzz/mutations.py`` existed when it was
written).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.io.ingest import FORMATS, IngestOptions, detect, load_case_map, run_record

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "ingest"
SEEDS: dict[str, str] = {
    "otel_genai.jsonl": "otel-genai",
    "otel_genai_names_only.jsonl": "otel-genai",
    "openinference_otlp.jsonl": "openinference",
    "openinference_flat.jsonl": "openinference",
    "openinference_flat_array.json": "openinference",
    "langchain_messages.jsonl": "langchain",
    "langsmith_run_tree.jsonl": "langchain",
    "openai_messages.jsonl": "openai-messages",
    "openai_messages_array.json": "openai-messages",
    "openai_messages_legacy.jsonl": "openai-messages",
    "tau_bench.jsonl": "tau-bench",
    "producers/tau_bench/gpt-4o-airline.json": "tau-bench-results",
    "openinference_langgraph.jsonl": "openinference",
    "openinference_openai_agents.jsonl": "openinference",
    "phoenix_spans.jsonl": "phoenix",
    "openai_agents.jsonl": "openai-agents",
    "langfuse_full_trace.json": "langfuse",
    "langfuse_pages.jsonl": "langfuse",
    "producers/langsmith_chat_model_roots.jsonl": "langchain",
    "producers/langchain_langgraph_messages.jsonl": "langchain",
    "inspect_ai_log.json": "inspect-ai",
    "adk_session.json": "adk",
    "adk_evalset_result.json": "adk",
    "producers/adk.evalset.json": "adk",
    # Files written by the real producers (tests/golden/ingest/README.md), 5-40 KB each.
    "producers/openai_agents_sdk.jsonl": "openai-agents",
    "producers/openai_agents_sdk_approvals.jsonl": "openai-agents",
    "producers/langsmith_traceable_trees.json": "langchain",
    "producers/langfuse_trace.json": "langfuse",
    "producers/langfuse_observations_page.json": "langfuse",
    "producers/adk_session.json": "adk",
    "adk_dice.test.json": "adk",
    "producers/openinference_openai_agents_otlp.jsonl": "openinference",
    # This round's producers (tests/golden/ingest/README.md), 28-50 KB each: span events
    # (Strands), graph-node agents and function results (AutoGen, CrewAI), exception events.
    "producers/autogen_openinference.jsonl": "openinference",
    "producers/crewai_openinference.jsonl": "openinference",
    "producers/strands_otel.jsonl": "otel-genai",
    "producers/pydantic_ai_otel.jsonl": "otel-genai",
    # OTel GenAI / MCP / OpenLLMetry: seeds cut from the producer files by
    # tools/producers/otel_seeds.py, and the MCP server's own (small) export.
    "otel_openai_v2_seed.jsonl": "otel-genai",
    "otel_openai_v2_logs_seed.jsonl": "otel-genai",
    "otel_mcp_seed.jsonl": "otel-genai",
    "traceloop_seed.jsonl": "otel-genai",
    "openllmetry_legacy_seed.jsonl": "otel-genai",
    "producers/otel_mcp_server.jsonl": "otel-genai",
}
#: The largest producer files (100-170 KB): fuzzed with --fuzz-long only (each costs CI about
#: a minute); test_langsmith_fuzz.py and test_phoenix.py fuzz two of them in CI their own way.
LONG_SEEDS: dict[str, str] = {
    "producers/inspect_ai_log.json": "inspect-ai",
    "producers/adk.evalset_result.json": "adk",
    "producers/langsmith_langgraph_runs.jsonl": "langchain",
    "producers/openinference_langgraph_otlp.jsonl": "openinference",
    "producers/openinference_phoenix_spans.jsonl": "phoenix",
}
CASE_MAP_SEED = b'{"5b8efff798038103d269b633813fc60c": "c1"}\n'
EXAMPLES = 60  # per seed file in CI (36 seeds): the whole file about 30 s of CPU


class Raw:
    """JSON text spliced in verbatim (values orjson cannot write: 300-deep, 400 digits)."""

    def __init__(self, text: str) -> None:
        self.text = text


class _Embedded:
    """Path marker: the value here is a string holding JSON; the path goes on inside it."""


EMBED = _Embedded()
DELETE = object()
PathT = tuple[Any, ...]


def dumps(value: Any, indent: bool = False) -> bytes:
    """JSON bytes of ``value``, with every :class:`Raw` spliced in."""
    raws: list[Raw] = []

    def default(item: Any) -> str:
        if isinstance(item, Raw):
            raws.append(item)
            return f"@@RAW{len(raws) - 1}@@"
        raise TypeError(type(item).__name__)

    out = orjson.dumps(value, default=default, option=orjson.OPT_INDENT_2 if indent else 0)
    for i, raw in enumerate(raws):
        out = out.replace(f'"@@RAW{i}@@"'.encode(), raw.text.encode(), 1)
    return out


def _embedded(value: Any) -> Any:
    """The JSON object or array a string holds (not too deep to write back), else None."""
    shallow = isinstance(value, str) and value.count("[") + value.count("{") < 200
    if shallow and value[:1] in ("{", "[") and len(value) < 20_000:
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    return None


def paths(value: Any) -> list[PathT]:
    """Every path in ``value`` (the root too), descending into JSON held in strings."""
    out: list[PathT] = []
    stack: list[tuple[Any, PathT]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        out.append(path)
        if isinstance(item, dict):
            stack.extend((child, (*path, key)) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(item))
        elif (inner := _embedded(item)) is not None:
            stack.append((inner, (*path, EMBED)))
    return out


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def get(value: Any, path: PathT) -> Any:
    for part in path:
        value = orjson.loads(value) if part is EMBED else value[part]
    return value


def apply(node: Any, path: PathT, op: Callable[[Any], Any]) -> Any:
    """``node`` with ``op`` applied at ``path`` (``op`` may return :data:`DELETE`)."""
    if not path:
        return op(node)
    head, rest = path[0], path[1:]
    if head is EMBED:
        inner = apply(orjson.loads(node), rest, op)
        return "" if inner is DELETE else dumps(inner).decode()
    new = apply(node[head], rest, op)
    if new is DELETE:
        del node[head]
    else:
        node[head] = new
    return node


def deep(depth: int, kind: str) -> Raw:
    if kind == "list":
        return Raw("[" * depth + "]" * depth)
    return Raw('{"a":' * depth + "1" + "}" * depth)


SPECIAL_STRINGS = [
    "",
    "0",
    "-1",
    "²",
    "٣",
    "9" * 5000,
    "0x" + "ab" * 16,
    "5b8efff798038103d269b633813fc60c",
    "00000000000000a1",
    "2024-05-01T10:00:00Z",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "NaN",
    "1e999",
    "{",
    "[1, 2",
    '{"a": 1}',
    "[null]",
    "null",
    "\u2028\u2029\x85\x1c",
    "application/json",
    "error",
    "x" * 100_000,
    "[" * 300 + "]" * 300,
    '{"a":' * 200 + "1" + "}" * 200,
]
SPECIAL_NUMBERS: list[Any] = [
    0,
    1,
    2,
    -1,
    2**63 - 1,
    2**63,
    2**64 - 1,
    -(2**63),
    1e308,
    -0.0,
    0.5,
    Raw("1" + "0" * 30),
    Raw("-" + "9" * 400),
    Raw("1e400"),
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(SPECIAL_STRINGS),
    st.sampled_from(SPECIAL_NUMBERS),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
replacements = st.one_of(
    json_values,
    st.builds(deep, st.integers(min_value=120, max_value=1100), st.sampled_from(["list", "dict"])),
)


def mutate_value(data: st.DataObject, lines: list[Any]) -> None:
    """One structural mutation of one line's value, in place."""
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    every = paths(lines[index])
    containers = [p for p in every if isinstance(get(lines[index], p), dict | list)]
    choices = st.sampled_from(every)
    if containers:
        choices = st.sampled_from(containers) | choices
    where = data.draw(choices, label="path")
    target = get(lines[index], where)
    keys = sorted({str(p[-1]) for p in paths(lines[index]) if p and isinstance(p[-1], str)})
    action = data.draw(
        st.sampled_from(["replace", "delete", "null", "copy", "add_key", "append"]), label="action"
    )
    if action == "delete" and where:
        lines[index] = apply(lines[index], where, lambda _: DELETE)
        return
    if action == "add_key" and isinstance(target, dict):
        key = data.draw(st.sampled_from(keys) if keys else st.text(max_size=6), label="key")
        value = data.draw(replacements, label="value")
        lines[index] = apply(lines[index], where, lambda node: {**node, key: value})
        return
    if action == "append" and isinstance(target, list):
        value = data.draw(replacements, label="value")
        lines[index] = apply(lines[index], where, lambda node: [*node, value])
        return
    if action == "copy":  # a part of the file elsewhere (kept shallow enough to write)
        other = data.draw(st.sampled_from(paths(lines[index])), label="source")
        value = copy.deepcopy(get(lines[index], other))
        if depth(value) + len(where) > 200:
            value = None
    elif action == "null":
        value = None
    else:
        value = data.draw(replacements, label="value")
    lines[index] = apply(lines[index], where, lambda _: value)


def mutate_lines(data: st.DataObject, lines: list[Any]) -> list[Any]:
    action = data.draw(st.sampled_from(["none", "drop", "duplicate", "join"]), label="lines")
    if action == "drop" and len(lines) > 1:
        del lines[data.draw(st.integers(0, len(lines) - 1))]
    elif action == "duplicate":
        lines.append(copy.deepcopy(lines[data.draw(st.integers(0, len(lines) - 1))]))
    elif action == "join":
        return [lines]
    return lines


BAD_BYTES = [b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x00", b"\xe2\x80\xa8", b"\r", b"\n", b"\x1c"]


def mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    action = data.draw(
        st.sampled_from(["none", "none", "truncate", "splice", "bom", "empty"]), label="bytes"
    )
    if action == "truncate":
        return raw[: data.draw(st.integers(0, max(len(raw) - 1, 0)), label="cut")]
    if action == "splice":
        at = data.draw(st.integers(0, len(raw)), label="at")
        return raw[:at] + data.draw(st.sampled_from(BAD_BYTES), label="bad") + raw[at:]
    if action == "bom":
        return b"\xef\xbb\xbf" + raw
    if action == "empty":
        return data.draw(st.sampled_from([b"", b"\n\n", b"   ", b"null\n", b"[]\n", b"{}\n"]))
    return raw


def mutated(data: st.DataObject, seed: bytes, whole: bool) -> bytes:
    """A random mutation of a seed file (JSON lines, or one JSON document when ``whole``)."""
    lines = [orjson.loads(seed)] if whole else [orjson.loads(x) for x in seed.splitlines() if x]
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        mutate_value(data, lines)
    lines = mutate_lines(data, lines)
    if whole and len(lines) == 1:
        raw = dumps(lines[0], indent=True) + b"\n"
    else:
        raw = b"".join(dumps(line) + b"\n" for line in lines)
    return mutate_bytes(data, raw)


def put(path: Path, data: bytes) -> None:
    """Write ``data`` over ``path`` without truncating it first: on ext4, truncating a file
    just written makes its close flush to disk (milliseconds per example)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def only_input_errors(call: Callable[[], Any], path: Path) -> Any:
    """The result of ``call``, or ``None`` when it raised a proper one-line InputError."""
    try:
        return call()
    except InputError as error:
        assert "\n" not in str(error)
        assert error.file == str(path), str(error)
        return None


def _format_of(seed: str, request: pytest.FixtureRequest) -> str:
    """The seed's format; a :data:`LONG_SEEDS` file is skipped without ``--fuzz-long``."""
    if seed in LONG_SEEDS:
        if not request.config.getoption("--fuzz-long", default=False):
            pytest.skip("a large producer file: fuzzed with --fuzz-long")
        return LONG_SEEDS[seed]
    return SEEDS[seed]


def examples(request: pytest.FixtureRequest) -> tuple[int, bool]:
    """(examples per seed, derandomize): bounded in CI, ten times more with --fuzz-long."""
    long = bool(request.config.getoption("--fuzz-long", default=False))
    return (EXAMPLES * 10, False) if long else (EXAMPLES, True)


@pytest.mark.parametrize("seed", sorted(SEEDS) + sorted(LONG_SEEDS))
def test_reader_raises_only_input_error(
    seed: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    fmt = FORMATS[_format_of(seed, request)]
    original = (GOLDEN / seed).read_bytes()
    whole = seed.endswith(".json")
    path = tmp_path / Path(seed).name  # the seed's own name (producers/ files: no folder)
    count, derandomize = examples(request)

    @settings(
        max_examples=count,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def check(data: st.DataObject) -> None:
        put(path, mutated(data, original, whole))
        only_input_errors(lambda: detect(path), path)
        for skip in (False, True):
            options = IngestOptions(skip_invalid=skip)
            runs = only_input_errors(lambda o=options: list(fmt.read(path, o)), path)
            for run in runs or ():
                orjson.dumps(run_record(run))  # every run read can be written back
            for error in options.skipped:
                assert "\n" not in str(error) and error.file == str(path)
        cases = fmt.read_cases
        if cases is not None:  # the formats that carry gold: their cases too
            for skip in (False, True):
                options = IngestOptions(skip_invalid=skip)
                only_input_errors(lambda o=options, r=cases: r(path, o), path)

    check()


SWAPS: list[Any] = [None, True, 7, "x", [], {}, DELETE]


#: Paths of one seed swapped in CI: an even sample of at most this many (every path with
#: --fuzz-long). The exhaustive swap costs paths x file size; the big producer files have
#: thousands of paths.
SWAP_PATHS = 100


def sampled(found: list[PathT], limit: int | None) -> list[PathT]:
    """At most ``limit`` of ``found``, evenly spread (the first and the last kept)."""
    if limit is None or len(found) <= limit:
        return found
    if limit < 2:
        return found[:limit]
    step = (len(found) - 1) / (limit - 1)
    return [found[round(i * step)] for i in range(limit)]


@pytest.mark.parametrize("seed", sorted(SEEDS) + sorted(LONG_SEEDS))
def test_every_path_swapped_to_every_type(
    seed: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # Exhaustive, not random: each value of the seed (inside JSON strings too) in turn
    # becomes null, a boolean, a number, a string, a list, an object, or is deleted. In CI,
    # each line's paths are an even sample of SWAP_PATHS over the file; --fuzz-long: all.
    long = bool(request.config.getoption("--fuzz-long", default=False))
    fmt = FORMATS[_format_of(seed, request)]
    original = (GOLDEN / seed).read_bytes()
    whole = seed.endswith(".json")
    lines = [orjson.loads(original)] if whole else [orjson.loads(x) for x in original.splitlines()]
    path = tmp_path / Path(seed).name  # the seed's own name (producers/ files: no folder)
    tried = expected = 0
    total = sum(len(paths(x)) for x in lines)
    for index, line in enumerate(lines):
        found = paths(line)
        share = None if long else max(2, SWAP_PATHS * len(found) // total)
        chosen = sampled(found, share)
        expected += 7 * len(chosen)
        for where in chosen:
            for swap in SWAPS:
                changed = list(lines)
                changed[index] = apply(copy.deepcopy(line), where, lambda _, v=swap: v)
                kept = [x for x in changed if x is not DELETE]
                put(
                    path,
                    dumps(kept[0], indent=True) + b"\n"
                    if whole and kept
                    else b"".join(dumps(x) + b"\n" for x in kept),
                )
                options = IngestOptions(skip_invalid=True)
                for run in only_input_errors(lambda o=options: list(fmt.read(path, o)), path) or ():
                    orjson.dumps(run_record(run))
                tried += 1
    assert tried == expected


def test_case_map_raises_only_input_error(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    path = tmp_path / "map.json"
    count, derandomize = examples(request)

    @settings(max_examples=count // 2, deadline=None, derandomize=derandomize, database=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        put(path, mutated(data, CASE_MAP_SEED, whole=True))
        only_input_errors(lambda: load_case_map(path), path)

    check()


def test_the_harness_finds_a_crash(tmp_path: Path) -> None:
    # The fuzz test can fail: a reader that crashes on one mutation is caught by the same check.
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"resourceSpans": [{"scopeSpans": 5}]}\n')

    def crashing() -> None:
        raise TypeError("'int' object is not iterable")

    with pytest.raises(TypeError):
        only_input_errors(crashing, path)
    assert only_input_errors(lambda: list(FORMATS["otel-genai"].read(path, None)), path) is None


def test_the_swap_sample_is_even_and_bounded() -> None:
    found: list[PathT] = [(i,) for i in range(1000)]
    chosen = sampled(found, 5)
    assert chosen == [(0,), (250,), (500,), (749,), (999,)]  # round(i * 999 / 4)
    assert sampled(found[:3], 5) == found[:3]
    assert sampled(found, None) == found
    assert sampled(found, 1) == [(0,)] and sampled(found, 0) == []
