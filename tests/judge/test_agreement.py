"""Judge agreement with expert labels: hand-computed kappa, alpha and confusion matrices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.core.types import Run
from pathgrade.judge.agreement import judge_agreement

S, U, N = True, False, None
EXPERT_CLAIMS = [S, S, U, U, N, S]
JUDGE_CLAIMS = [S, S, U, S, N, S]


def runs(labels: list[bool | None], **extra: Any) -> list[Run]:
    first = [{"text": f"claim {i}", "supported": v} for i, v in enumerate(labels[:3])]
    second = [{"text": f"claim {i}", "supported": v} for i, v in enumerate(labels[3:])]
    return [
        Run.model_validate(
            {"case_id": "c1", "run_id": "r1", "claims": first, **extra.get("r1", {})}
        ),
        Run.model_validate(
            {"case_id": "c2", "run_id": "r2", "claims": second, **extra.get("r2", {})}
        ),
    ]


def reports() -> tuple[list[Run], list[Run]]:
    expert = runs(
        EXPERT_CLAIMS,
        r1={"success": True, "rubric": {"correctness": 2}},
        r2={"success": False, "rubric": {"correctness": 1}},
    )
    judged = runs(
        JUDGE_CLAIMS,
        r1={"success": True, "rubric": {"correctness": 2}},
        r2={"rubric": {"correctness": 1}},
    )
    expert.append(Run(case_id="c3", run_id="r3", rubric={"correctness": 0}))
    judged.append(Run(case_id="c3", run_id="r3", rubric={"correctness": 1}))
    expert.append(Run(case_id="c4", run_id="r4", success=True))
    return expert, judged


def test_field_by_field_agreement() -> None:
    expert, judged = reports()
    report = judge_agreement(expert, judged)
    fields = {f.field: f for f in report.fields}
    claims = fields["claims.supported"]
    assert (claims.n, claims.missing, claims.unaligned) == (6, 0, 0)
    assert claims.observed == pytest.approx(5 / 6)
    # p_e = (3*4 + 2*1 + 1*1) / 36 = 15/36 -> kappa = (30/36 - 15/36) / (21/36) = 5/7
    assert claims.kappa == pytest.approx(5 / 7)
    # coincidences: n_s = 7, n_u = 3, n_nv = 2, n = 12; D_o = 2/12, D_e = 82/132
    assert claims.alpha == pytest.approx(1 - 22 / 82)
    assert claims.labels == ("not_verifiable", "supported", "unsupported")
    assert claims.confusion == ((1, 0, 0), (0, 3, 0), (0, 1, 1))

    success = fields["success"]
    assert (success.n, success.missing) == (1, 1)  # r2: the judge gave no verdict
    assert success.kappa is None and success.alpha is None
    assert success.notes == (
        "kappa undefined: both raters used one and the same label",
        "alpha undefined: alpha is undefined: fewer than two distinct values were coded",
    )

    rubric = fields["rubric.correctness"]
    assert rubric.labels == ("0", "1", "2") and rubric.confusion == (
        (0, 1, 0),
        (0, 1, 0),
        (0, 0, 1),
    )
    assert rubric.observed == pytest.approx(2 / 3)
    assert rubric.kappa == pytest.approx(0.5)  # p_e = (0 + 2 + 1) / 9
    assert rubric.alpha is not None and 0 < rubric.alpha < 1
    assert report.unmatched_runs == (("c4", "r4", 0),)


def test_unaligned_claims_are_counted_not_compared() -> None:
    expert = [Run(case_id="c", claims=({"text": "A b", "supported": True},))]  # type: ignore[arg-type]
    judged = [Run(case_id="c", claims=({"text": "a  B", "supported": True}, {"text": "x"}))]  # type: ignore[arg-type]
    other = [Run(case_id="c", claims=({"text": "different", "supported": True},))]  # type: ignore[arg-type]
    assert judge_agreement(expert, judged).fields[0].n == 1  # case and spaces folded
    aligned = judge_agreement(expert, other).fields[0]
    assert (aligned.n, aligned.unaligned, aligned.kappa) == (0, 1, None)


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expert, judged = reports()
    labels, out = tmp_path / "labels.jsonl", tmp_path / "judged.jsonl"
    labels.write_text("".join(r.model_dump_json(exclude_defaults=True) + "\n" for r in expert))
    out.write_text("".join(r.model_dump_json(exclude_defaults=True) + "\n" for r in judged))
    assert main(["judge-agreement", str(labels), str(out), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == json.loads(json.dumps(judge_agreement(expert, judged).to_dict()))
    assert main(["judge-agreement", str(labels), str(out)]) == 0
    text = capsys.readouterr().out
    assert "claims.supported" in text and "0.714" in text and "0.732" in text


def test_cli_bad_labels_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"case_id": "c1", "sucess": true}\n')
    assert main(["judge-agreement", str(bad), str(bad)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"pathgrade: error: {bad}:1: field 'sucess': unknown field"
    )
