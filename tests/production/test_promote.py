"""``promote`` and ``pathgrade cases promote``: failed stored runs become redacted draft cases
with an unreviewed reference, which ``cases lint`` refuses; bad input is one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cases.lint import lint_cases
from pathgrade.cli.main import main
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.io.cases import load_cases
from pathgrade.io.results import records_jsonl
from pathgrade.io.results.reader import jsonl_records
from pathgrade.production import UNREVIEWED, promote, promoted_case_id
from pathgrade.store import save_records, save_scored

EMAIL = "jane.doe@example.com"
CARD = "4111 1111 1111 1111"
PHONE = "+1 415 555 2671"
KEY = "sk-live-abcdefghijklmnopqrstuvwxyz0123"

CASES = [
    Case.model_validate(
        {
            "case_id": "refund",
            "query": f"I am {EMAIL}, refund order A17 to card {CARD}",
            "group": "orders",
            "reference": ["lookup_order:A17", "refund:A17", "send_message:A17"],
            "gold_answer": "Refund issued for order A17",
            "metadata": {"source": "prod"},
        }
    ),
    Case.model_validate({"case_id": "lookup", "reference": ["lookup_order:B22"]}),
]
RUNS = [
    Run.model_validate(  # fails: misses the refund, leaks personal data everywhere
        {
            "case_id": "refund",
            "run_id": "r1",
            "steps": [
                {
                    "tool": "lookup_order",
                    "arguments": ["A17"],
                    "output": {"customer": EMAIL, "phone": PHONE, "password": "hunter2"},
                },
                {
                    "tool": "send_message",
                    "arguments": {"to": EMAIL, "text": f"call {PHONE}", "auth": f"Bearer {KEY}"},
                },
            ],
            "answer": f"Sorry {EMAIL}, your order is on its way",
            "metadata": {"password": "hunter2"},
        }
    ),
    Run.model_validate(  # passes
        {"case_id": "lookup", "run_id": "r2", "steps": ["lookup_order:B22"], "answer": "ok"}
    ),
]
SECRETS = (EMAIL, CARD, "4111111111111111", PHONE, KEY, "hunter2")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    by_id = {c.case_id: c for c in CASES}
    result = score(by_id, RUNS, ScoringConfig())
    folder = tmp_path / "store"
    save_scored(result, name="prod", runs=RUNS, cases=by_id, store=folder)
    return folder


def _json(case: Case) -> str:
    return case.model_dump_json()


def test_failed_runs_become_redacted_unreviewed_drafts(store: Path) -> None:
    promoted = promote("prod", '"metrics.goal_success" = false', store=store)
    assert len(promoted.cases) == 1
    case = promoted.cases[0]
    assert case.case_id == promoted_case_id("refund", "r1", 0)
    assert [s.tool for s in case.reference or ()] == ["lookup_order", "send_message"]
    assert case.query == "I am <email:1>, refund order A17 to card <card:1>"
    assert case.metadata["reference_status"] == UNREVIEWED
    info = case.metadata["promoted"]
    assert info["from"] == {"run_name": "prod", "case_id": "refund", "run_id": "r1", "trial": 0}
    assert info["source"] == "store"
    assert "missing_step" in {d["kind"] for d in info["defects"]}
    assert info["metrics"]["goal_success"] is False
    assert info["answer"] == "Sorry <email:1>, your order is on its way"
    text = _json(case)
    for secret in SECRETS[:-1]:  # the store's excerpt keeps outputs as text; fields below
        assert secret not in text
    assert promoted.redacted["email"] == 1


def test_the_full_runs_and_cases_and_named_fields(store: Path) -> None:
    by_id = {c.case_id: c for c in CASES}
    promoted = promote(
        "prod",
        "penalty_total > 0",
        store=store,
        runs=RUNS,
        cases=by_id,
        fields=["password"],
    )
    (case,) = promoted.cases
    text = _json(case)
    for secret in SECRETS:
        assert secret not in text
    info = case.metadata["promoted"]
    assert info["source"] == "runs"
    assert info["steps"][0]["output"]["password"] == "<password:1>"
    assert info["steps"][1] == {"tool": "send_message"}
    assert case.reference is not None
    assert case.reference[1].arguments == {
        "to": "<email:1>",
        "text": "call <phone:1>",
        "auth": "Bearer <api_key:1>",
    }
    assert case.gold_answer == "Refund issued for order A17"  # the source case's fields
    assert case.group == "orders"
    assert case.metadata["source"] == "prod"


def test_lint_refuses_an_unreviewed_reference_unless_allowed(store: Path) -> None:
    cases = promote("prod", "penalty_total > 0", store=store).cases
    found = lint_cases(cases)
    assert [(f.code, f.level, f.field) for f in found] == [
        ("unreviewed_reference", "error", "metadata.reference_status")
    ]
    assert [f.level for f in lint_cases(cases, allow_unreviewed=True)] == ["warning"]
    reviewed = cases[0].model_copy(update={"metadata": {}})
    assert lint_cases([reviewed]) == []


def test_promoting_is_stable(store: Path) -> None:
    first = promote("prod", "penalty_total > 0", store=store).cases
    again = promote("prod", "penalty_total > 0", store=store).cases
    assert [_json(c) for c in first] == [_json(c) for c in again]


def test_nothing_selected_gives_no_cases(store: Path) -> None:
    assert promote("prod", "false", store=store).cases == []


def test_bad_input_is_one_input_error(store: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no stored run named 'nope'"):
        promote("nope", "true", store=store)
    with pytest.raises(InputError, match="query failed") as error:
        promote("prod", "no_such_column > 1", store=store)
    assert error.value.field == "where"
    with pytest.raises(InputError, match="field of the case or step model"):
        promote("prod", "true", store=store, fields=["arguments"])
    with pytest.raises(InputError, match="do not hold"):
        promote("prod", "penalty_total > 0", store=store, runs=RUNS[1:])


def test_a_run_stored_without_traces_needs_the_runs(tmp_path: Path) -> None:
    by_id = {c.case_id: c for c in CASES}
    records = jsonl_records(records_jsonl(score(by_id, RUNS, ScoringConfig())))
    save_records(records, name="bare", store=tmp_path / "s")
    with pytest.raises(InputError, match="no trace excerpt"):
        promote("bare", "penalty_total > 0", store=tmp_path / "s")
    (case,) = promote("bare", "penalty_total > 0", store=tmp_path / "s", runs=RUNS).cases
    assert case.query is None  # no case given: no user input recorded anywhere
    assert case.metadata["promoted"]["note"].startswith("no user input")


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def test_cli_writes_valid_redacted_cases_that_lint_refuses(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "pathgrade.toml"
    config.write_text('[redact]\nfields = ["password"]\n', encoding="utf-8")
    runs = _write(tmp_path / "runs.jsonl", [r.model_dump(mode="json") for r in RUNS])
    out = tmp_path / "drafts.jsonl"
    code = main(
        [
            "cases",
            "promote",
            "prod",
            "--store",
            str(store),
            "--where",
            '"metrics.goal_success" = false',
            "--runs",
            str(runs),
            "--config",
            str(config),
            "-o",
            str(out),
        ]
    )
    assert code == 0
    assert "1 draft cases" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    for secret in SECRETS:
        assert secret not in text
    (case,) = load_cases(out).items
    assert case.metadata["reference_status"] == "unreviewed"
    assert main(["cases", "lint", str(out)]) == 1
    assert "[unreviewed_reference]" in capsys.readouterr().out
    assert main(["cases", "lint", str(out), "--allow-unreviewed"]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--where", "true"], "no stored run named 'nope'"),
        (["prod", "--where", "nope > 1"], "field 'where': query failed"),
        (["prod", "--where", "1=1; SELECT 1"], "field 'where'"),
    ],
)
def test_cli_bad_input_is_one_line(
    store: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cases", "promote", *args, "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_bad_runs_file_names_file_and_line(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"case_id": "refund", "steps": [{"tool": 3}]}\n', encoding="utf-8")
    args = ["prod", "--where", "true", "--store", str(store), "--runs", str(runs)]
    code = main(["cases", "promote", *args])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{runs}:1: field 'steps[0].tool'" in err
    assert err.count("\n") == 1


def test_cli_bad_redact_table_is_one_line(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "pathgrade.toml"
    config.write_text('[redact]\nfields = "password"\n', encoding="utf-8")
    args = ["prod", "--where", "true", "--store", str(store), "--config", str(config)]
    code = main(["cases", "promote", *args])
    assert code == 2
    assert f"{config}: field 'redact.fields': expected a list" in capsys.readouterr().err


def test_a_redact_table_does_not_change_the_scoring_config(tmp_path: Path) -> None:
    from pathgrade.core.record_provenance import config_hash
    from pathgrade.io.config import load_config

    config = tmp_path / "pathgrade.toml"
    config.write_text('[redact]\nfields = ["password"]\n', encoding="utf-8")
    assert config_hash(load_config(config)) == config_hash(ScoringConfig())
