"""Inspect AI eval logs: the ``.json`` log and the ``.eval`` zip, runs and cases, bad input."""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.core.types import Run
from pathgrade.io.ingest import IngestOptions, detect, ingest_cases, inspect_ai
from pathgrade.io.ingest._inspect_zip import looks_like_eval, sample_name

GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "ingest"
PRODUCERS = GOLDEN / "producers"


def add_sample() -> dict[str, Any]:
    return {
        "id": "add",
        "epoch": 1,
        "input": "What is 3 + 4?",
        "target": "7",
        "messages": [
            {"role": "system", "content": "Use the tools."},
            {"role": "user", "content": "What is 3 + 4?", "source": "input"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "function": "add", "arguments": {"x": 3, "y": 4}},
                    {"id": "c2", "function": "lookup", "arguments": {"q": "sum"}},
                ],
            },
            {"role": "tool", "tool_call_id": "c2", "function": "lookup", "content": '{"hits": 2}'},
            {"role": "tool", "tool_call_id": "c1", "function": "add", "content": "7"},
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "reasoning": "check it"},
                    {"type": "text", "text": "Checking."},
                ],
                "tool_calls": [{"id": "c3", "function": "divide", "arguments": {"x": 7, "y": 0}}],
            },
            {
                "role": "tool",
                "tool_call_id": "c3",
                "function": "divide",
                "content": "",
                "error": {"type": "unknown", "message": "division by zero"},
            },
            {"role": "assistant", "content": "7"},
        ],
        "output": {
            "model": "openai/gpt-4o",
            "completion": "7",
            "usage": {"input_tokens": 30, "output_tokens": 5, "total_tokens": 35},
        },
        "scores": {"match": {"value": "C", "answer": "7", "explanation": "7"}},
        "model_usage": {
            "openai/gpt-4o": {
                "input_tokens": 100,
                "output_tokens": 20,
                "total_tokens": 120,
                "total_cost": 0.002,
            },
            "openai/gpt-4o-mini": {"input_tokens": 10, "output_tokens": 2},
        },
        "events": [
            {"event": "model", "timestamp": "2024-05-01T10:00:00+00:00"},
            {
                "event": "tool",
                "id": "c1",
                "function": "add",
                "timestamp": "2024-05-01T10:00:00+00:00",
                "completed": "2024-05-01T10:00:00.250000+00:00",
                "working_time": 0.25,
            },
        ],
        "total_time": 1.5,
        "working_time": 1.2,
        "uuid": "u-add-1",
    }


def capital_sample() -> dict[str, Any]:
    return {
        "id": 2,
        "epoch": 2,
        "input": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Capital of France?"}]},
        ],
        "target": ["Paris", "paris"],
        "messages": [
            {"role": "user", "content": "Capital of France?"},
            {"role": "assistant", "content": "Paris."},
        ],
        "output": {"completion": "", "usage": {"input_tokens": 8, "output_tokens": 2}},
        "scores": {"judge": {"value": {"a": 1}}, "exact": {"value": 0}},
        "total_time": 0.5,
    }


def failed_sample() -> dict[str, Any]:
    return {
        "id": "err",
        "epoch": 1,
        "input": "Look it up.",
        "target": "",
        "messages": [
            {"role": "user", "content": "Look it up."},
            {"role": "assistant", "content": "", "tool_calls": [{"function": "search"}]},
            {"role": "tool", "function": "search", "content": "[1, 2]"},
        ],
        "error": {"message": "RuntimeError('boom')", "traceback": "..."},
        "limit": {"type": "token", "limit": 100},
    }


def header() -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": "E1",
            "task": "arith",
            "model": "openai/gpt-4o",
            "dataset": {"samples": 3, "sample_ids": ["add", 2, "err"]},
        },
        "plan": {"name": "plan", "steps": [{"solver": "generate"}]},
        "results": {"total_samples": 3, "completed_samples": 3},
    }


def log() -> dict[str, Any]:
    # Samples out of order on purpose: read in epoch order, then dataset order.
    return {**header(), "samples": [capital_sample(), failed_sample(), add_sample()]}


def write_json(path: Path, document: Any) -> Path:
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
    return path


def write_eval(path: Path, document: dict[str, Any], **members: bytes | None) -> Path:
    """An ``.eval`` archive of a log (deflate), with ``members`` added, replaced or (None)
    left out."""
    files: dict[str, bytes | None] = {"_journal/start.json": orjson.dumps({"version": 2})}
    for sample in document.get("samples", []):
        files[f"samples/{sample['id']}_epoch_{sample['epoch']}.json"] = orjson.dumps(sample)
    files["header.json"] = orjson.dumps({k: v for k, v in document.items() if k != "samples"})
    files.update(members)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            if data is not None:
                archive.writestr(name, data)
    return path


def steps(run: Run) -> list[tuple[Any, ...]]:
    return [(s.tool, s.arguments, s.output, s.error, s.turn, s.call_id) for s in run.steps]


def test_golden_json_log(tmp_path: Path) -> None:
    path = write_json(tmp_path / "log.json", log())
    assert path.read_bytes() == (GOLDEN / "inspect_ai_log.json").read_bytes()  # the golden file
    assert detect(path).name == "inspect-ai"
    add, err, capital = inspect_ai.read(path)
    assert [(r.case_id, r.trial, r.run_id) for r in (add, err, capital)] == [
        ("add", 0, "u-add-1"),
        ("err", 0, "err#epoch1"),
        ("2", 1, "2#epoch2"),  # trial = epoch - 1
    ]
    # two calls of one assistant message share turn 0; the next message's call is turn 1
    assert steps(add) == [
        ("add", {"x": 3, "y": 4}, "7", None, 0, "c1"),
        ("lookup", {"q": "sum"}, {"hits": 2}, None, 0, "c2"),
        ("divide", {"x": 7, "y": 0}, None, "division by zero", 1, "c3"),
    ]
    assert add.steps[2].metadata == {"error_type": "unknown"}
    # the tool event: 0.25 s working time; 2024-05-01T10:00:00Z is 1714557600
    assert add.steps[0].latency_ms == 250.0
    assert (add.steps[0].start_time, add.steps[0].end_time) == (1714557600.0, 1714557600.25)
    assert add.steps[1].latency_ms is None
    assert (add.answer, add.success) == ("7", True)
    # tokens 120 + (10 + 2) = 132 over the two models; cost 0.002; total_time 1.5 s
    assert add.usage is not None
    assert (add.usage.tokens, add.usage.cost, add.usage.latency_ms) == (132.0, 0.002, 1500.0)
    assert add.metadata == {
        "source": "inspect-ai",
        "epoch": 1,
        "task": "arith",
        "model": "openai/gpt-4o",
        "eval_id": "E1",
        "scores": {"match": "C"},
        "working_time": 1.2,
    }
    # no id on the call: the tool message is paired by function name; no scorer and an error
    assert steps(err) == [("search", {}, [1, 2], None, 0, None)]
    assert err.success is False and err.answer is None and err.usage is None
    assert (err.metadata["error"], err.metadata["limit"]) == ("RuntimeError('boom')", "token")
    # empty completion: the last assistant text; the dict score decides nothing, 0 fails;
    # total_tokens absent: 8 + 2 = 10
    assert (capital.answer, capital.success, capital.steps) == ("Paris.", False, ())
    assert capital.usage is not None and capital.usage.tokens == 10.0
    assert capital.metadata["scores"] == {"judge": {"a": 1}, "exact": 0}


def test_cases_from_samples(tmp_path: Path) -> None:
    path = write_json(tmp_path / "log.json", log())
    add, err, capital = inspect_ai.read_cases(path)
    assert (add.case_id, add.query, add.gold_answer) == ("add", "What is 3 + 4?", "7")
    assert add.metadata == {"task": "arith"} and add.reference is None
    assert (err.case_id, err.gold_answer) == ("err", None)  # an empty target is no gold
    # the input as messages: the first user message's text; a list target: any of them
    assert (capital.case_id, capital.query) == ("2", "Capital of France?")
    assert capital.gold_answer == ("Paris", "paris")
    # the same sample in two epochs is one case (the first epoch read)
    twice = log()
    twice["samples"].append({**add_sample(), "epoch": 2, "target": "8"})
    cases = inspect_ai.read_cases(write_json(tmp_path / "twice.json", twice))
    assert [c.gold_answer for c in cases if c.case_id == "add"] == ["7"]


def test_eval_zip_reads_like_the_json_log(tmp_path: Path) -> None:
    # Differential: the same log as .json and as .eval gives the same runs and cases.
    as_json = write_json(tmp_path / "log.json", log())
    as_eval = write_eval(tmp_path / "log.eval", log())
    assert detect(as_eval).name == "inspect-ai"
    assert list(inspect_ai.read(as_eval)) == list(inspect_ai.read(as_json))
    assert inspect_ai.read_cases(as_eval) == inspect_ai.read_cases(as_json)


def test_success_rule() -> None:
    from pathgrade.io.ingest._inspect_sample import _passed

    assert [_passed(v) for v in ("C", "c", "I", "N", 1, 1.0, True)] == [
        True,
        True,
        False,
        False,
        True,
        True,
        True,
    ]
    assert [_passed(v) for v in (0, 0.0, False)] == [False, False, False]
    assert [_passed(v) for v in ("P", 0.5, 2, {"a": 1}, None, "yes")] == [None] * 6


def test_first_deciding_scorer_wins(tmp_path: Path) -> None:
    sample = add_sample()
    sample["scores"] = {"partial": {"value": "P"}, "strict": {"value": "I"}, "lax": {"value": 1}}
    (run,) = inspect_ai.read(write_json(tmp_path / "l.json", {**header(), "samples": [sample]}))
    assert run.success is False  # P decides nothing; I (the next scorer) fails it


def test_sniff() -> None:
    assert inspect_ai.sniff('{"version": 2, "status": "success", "eval": {"task": "t"}, "plan":')
    assert inspect_ai.sniff(b'{"eval": {}, "samples": []}')
    assert not inspect_ai.sniff('{"eval_set_id": "s", "eval_cases": []}')  # ADK
    assert not inspect_ai.sniff('{"eval": "x", "samples": []}')  # "eval" is not an object
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("_journal/start.json", "{}")
    assert inspect_ai.sniff(buffer.getvalue()) and looks_like_eval(buffer.getvalue())
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("word/document.xml", "<x/>")
    assert not inspect_ai.sniff(other.getvalue())
    assert sample_name("samples/a_epoch_b_epoch_3.json") == ("a_epoch_b", 3)
    assert sample_name("samples/summary.json") is None


def test_bad_values_name_the_field(tmp_path: Path) -> None:
    bad = log()
    bad["samples"][2]["messages"][2]["tool_calls"] = 5
    path = write_json(tmp_path / "bad.json", bad)
    with pytest.raises(InputError) as caught:
        list(inspect_ai.read(path))
    assert caught.value.field == "samples[2].messages[2].tool_calls"
    assert "expected a list, got a number" in str(caught.value)
    options = IngestOptions(skip_invalid=True)
    assert [r.case_id for r in inspect_ai.read(path, options)] == ["err", "2"]
    assert len(options.skipped) == 1
    for field, value, where in [
        ("id", True, "samples[0].id"),
        ("epoch", 0, "samples[0].epoch"),
        ("target", [1], "samples[0].target[0]"),
    ]:
        doc = {**header(), "samples": [{**add_sample(), field: value}]}
        with pytest.raises(InputError) as caught:
            list(inspect_ai.read(p := write_json(tmp_path / "f.json", doc)))
            inspect_ai.read_cases(p)
        assert caught.value.field == where


def test_eval_zip_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = write_eval(tmp_path / "good.eval", log()).read_bytes()
    truncated = tmp_path / "truncated.eval"
    truncated.write_bytes(good[: len(good) // 2])
    with pytest.raises(InputError, match=r"not a readable \.eval zip archive") as caught:
        list(inspect_ai.read(truncated))
    assert caught.value.file == str(truncated)
    no_header = write_eval(tmp_path / "no_header.eval", log(), **{"header.json": None})
    with pytest.raises(InputError, match=r"no header\.json"):
        list(inspect_ai.read(no_header))
    options = IngestOptions(skip_invalid=True)  # recorded, and the file gives nothing
    assert list(inspect_ai.read(no_header, options)) == [] and len(options.skipped) == 1
    not_json = write_eval(tmp_path / "nj.eval", log(), **{"samples/add_epoch_1.json": b"{oops"})
    with pytest.raises(InputError, match="malformed JSON") as caught:
        list(inspect_ai.read(not_json))
    assert caught.value.file == f"{not_json}:samples/add_epoch_1.json"
    options = IngestOptions(skip_invalid=True)
    assert [r.case_id for r in inspect_ai.read(not_json, options)] == ["err", "2"]
    # A zip bomb: 2 MB of zeros deflate to about 2 KB; each member is read to the limit only.
    monkeypatch.setenv("PATHGRADE_MAX_LINE_BYTES", "100000")
    bomb = write_eval(tmp_path / "bomb.eval", log(), **{"samples/x_epoch_1.json": b"0" * 2_000_000})
    assert bomb.stat().st_size < 50_000
    with pytest.raises(InputError, match="larger than 100,000 bytes") as caught:
        list(inspect_ai.read(bomb))
    assert caught.value.file == f"{bomb}:samples/x_epoch_1.json"


def test_lying_size_header_is_still_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The central directory says 10 bytes; the data inflates to 2 MB: zipfile stops at the
    # claimed size, and the CRC of those 10 bytes is wrong: a one-line error, no 2 MB read.
    path = write_eval(tmp_path / "lie.eval", log(), **{"samples/x_epoch_1.json": b"1" * 2_000_000})
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("samples/x_epoch_1.json")
    entry = raw.find(b"samples/x_epoch_1.json", raw.find(b"PK\x01\x02")) - 46
    assert raw[entry : entry + 4] == b"PK\x01\x02"
    raw[entry + 24 : entry + 28] = (10).to_bytes(4, "little")  # uncompressed size
    path.write_bytes(bytes(raw))
    monkeypatch.setenv("PATHGRADE_MAX_LINE_BYTES", "100000")
    assert info.file_size == 2_000_000
    with pytest.raises(InputError, match="corrupt member"):
        list(inspect_ai.read(path))


def test_real_eval_zip_needs_zstandard(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inspect writes .eval members with zstd (zip method 93): without zstandard, one line.
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(InputError, match="install the zstandard package") as caught:
        list(inspect_ai.read(PRODUCERS / "inspect_ai_log.eval"))
    assert caught.value.file.endswith("inspect_ai_log.eval:header.json")  # read first


#: The real logs (tools/producers/inspect_ai_log.py): per run, case id, trial, success,
#: answer, steps (tool, arguments, output, error, turn).
REAL = [
    ("add", 0, True, "7", [("add", {"x": 3, "y": 4}, "7", None, 0)]),
    ("divide", 0, False, "undefined", [("divide", {"x": 1, "y": 0}, None, "division by zero", 0)]),
    (
        "both",
        0,
        True,
        "7 and 10",
        [("add", {"x": 2, "y": 5}, "7", None, 0), ("multiply", {"x": 2, "y": 5}, "10", None, 0)],
    ),
]
REAL = REAL + [(c, 1, s, a, st_) for c, _, s, a, st_ in REAL]  # epoch 2: the same replies


@pytest.mark.parametrize("name", ["inspect_ai_log.json", "inspect_ai_log.eval"])
def test_real_inspect_logs(name: str) -> None:
    pytest.importorskip("zstandard")
    path = PRODUCERS / name
    assert detect(path).name == "inspect-ai"
    runs = list(inspect_ai.read(path))
    got = [
        (
            r.case_id,
            r.trial,
            r.success,
            r.answer,
            [(s.tool, s.arguments, s.output, s.error, s.turn) for s in r.steps],
        )
        for r in runs
    ]
    assert got == REAL
    # each reply used 10 x turn + 5 tokens: 15 + 25 = 40 per sample; mockllm reports no cost
    assert all(r.usage is not None and r.usage.tokens == 40.0 for r in runs)
    assert all(
        r.metadata["task"] == "arithmetic" and r.metadata["model"] == "mockllm/model" for r in runs
    )
    assert all(s.latency_ms is not None and s.call_id for r in runs for s in r.steps)
    cases = inspect_ai.read_cases(path)
    assert [(c.case_id, c.query, c.gold_answer) for c in cases] == [
        ("add", "What is 3 + 4?", "7"),
        ("divide", "What is 1 / 0?", ("inf", "infinity")),
        ("both", "Sum and product of 2 and 5?", "7 and 10"),
    ]


def test_real_json_log_latencies() -> None:
    # total_time of each sample in the .json log, in seconds, times 1000
    runs = list(inspect_ai.read(PRODUCERS / "inspect_ai_log.json"))
    assert [r.usage.latency_ms for r in runs if r.usage] == pytest.approx(
        [260.0, 21.0, 21.0, 198.0, 16.0, 19.0]
    )


def test_cases_out_of_both_logs_agree() -> None:
    pytest.importorskip("zstandard")
    paths = [PRODUCERS / "inspect_ai_log.json", PRODUCERS / "inspect_ai_log.eval"]
    assert [c.case_id for c in ingest_cases(paths)] == ["add", "divide", "both"]


def _small_eval(tmp_path: Path) -> bytes:
    doc = log()
    doc["samples"] = [add_sample()]
    return write_eval(tmp_path / "seed.eval", doc).read_bytes()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mutated_eval_bytes_raise_only_input_errors(tmp_path: Path, data: st.DataObject) -> None:
    seed = _small_eval(tmp_path)
    raw = bytearray(seed)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        action = data.draw(st.sampled_from(["flip", "cut", "zero"]), label="action")
        if action == "flip":
            raw[at] ^= data.draw(st.integers(1, 255), label="mask")
        elif action == "cut":
            raw = raw[:at]
            break
        else:
            raw[at : at + 4] = b"\x00\x00\x00\x00"
    path = tmp_path / "mutated.eval"
    path.write_bytes(bytes(raw))
    for skip in (False, True):
        for call in (inspect_ai.read, inspect_ai.read_cases):
            try:
                list(call(path, IngestOptions(skip_invalid=skip)))
            except InputError as error:
                assert "\n" not in str(error) and str(error.file).startswith(str(path))
