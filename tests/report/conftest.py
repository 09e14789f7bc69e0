"""A small suite whose traces carry script-injection payloads, scored and stored twice."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.store import save_scored

SCRIPT = '<script>window.__pwned = "script"</script>'
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"
CLOSE = '</script><script>window.__pwned = "close"</script>'
PAYLOADS = (SCRIPT, IMG, CLOSE)
TOOLS = ("search", "lookup", "refund", "notify")


def _cases() -> list[Case]:
    cases = [
        Case(
            case_id="xss-1",
            query=SCRIPT,
            reference=[
                {"tool": "search", "arguments": {"q": "refund policy", "lang": "en"}},
                {"tool": "refund", "arguments": {"order": "A1"}},
            ],
            gold_answer=IMG,
            gold_evidence={"doc1": 2.0, "doc2": 1.0},
        ),
        Case(case_id=IMG, reference=["lookup:B2", "notify:B2"], gold_answer="done"),
        Case(case_id="refuse-1", answerable=False, reference=["lookup:Z9"]),
    ]
    for i in range(40):
        tools = [TOOLS[(i + k) % 4] for k in range(3)]
        reference = [{"tool": t, "arguments": {"id": f"o{i}"}} for t in tools]
        cases.append(
            Case(case_id=f"case-{i:02d}", query=f"query {i}", reference=reference, gold_answer="ok")
        )
    return cases


def _runs(variant: bool) -> list[Run]:
    runs = [
        Run(
            case_id="xss-1",
            run_id=IMG,
            steps=[
                {"tool": "search", "arguments": {"q": IMG, "lang": "en", SCRIPT: CLOSE}},
                {"tool": "refund", "arguments": {"order": "A1"}, "output": CLOSE},
                {"tool": "</script><b>bold</b>", "arguments": {}},
            ],
            answer=CLOSE,
            retrieved=["doc2", IMG, "doc1"],
            confidence=0.9,
        ),
        Run(
            case_id=IMG, run_id="r", steps=["lookup:B2", "notify:B2"], answer="done", confidence=0.8
        ),
        Run(case_id="refuse-1", run_id="r", abstained=True, confidence=0.1),
    ]
    for i in range(40):
        tools = [TOOLS[(i + k) % 4] for k in range(3)]
        steps: list[dict[str, Any]] = [{"tool": t, "arguments": {"id": f"o{i}"}} for t in tools]
        broken = (i % 3 == 0) != (variant and i % 5 == 0)
        if broken:
            steps.insert(1, {"tool": "search", "arguments": {"id": "wrong"}})
            steps[-1] = {"tool": steps[-1]["tool"], "arguments": {"id": "other"}}
        runs.append(
            Run(
                case_id=f"case-{i:02d}",
                run_id="r",
                steps=steps,
                answer="ok" if not broken else "no",
                confidence=0.3 + (i % 7) / 10,
            )
        )
    return runs


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The system Chromium (the test is skipped without Playwright or Chromium)."""
    from .chromium import launch  # skips here when either is missing

    yield from launch()


@dataclass(frozen=True)
class Stored:
    store: Path
    variant: str
    baseline: str


@pytest.fixture(scope="session")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    store = tmp_path_factory.mktemp("report-store")
    cases = {c.case_id: c for c in _cases()}
    for name, variant in (("base", False), ("pr-7", True)):
        runs = _runs(variant)
        save_scored(
            score(cases, runs),
            name=name,
            runs=runs,
            cases=cases,
            labels={"model": "m", "note": CLOSE},
            store=store,
        )
    return Stored(store, "pr-7", "base")


# ---- results files for the slice and ablation sections --------------------------------------
#: A slice name that is a payload: slice keys are case data, untrusted like traces.
SLICE_PAYLOAD = "<img src=x onerror=\"window.__pwned = 'slice'\">"


def result_record(case_id: str, group: str | None, trial: int = 0, **metrics: Any) -> Any:
    """A minimal result record, as ``score --out`` writes them (no alignment, no defects)."""
    return {
        "case_id": case_id,
        "trial": trial,
        "group": group,
        "metrics": metrics,
        "defects": [],
        "alignment": [],
        "usage": {"steps": 3},
    }


def write_records(path: Path, records: list[dict[str, Any]]) -> str:
    import orjson

    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return str(path)


def sliced_pair(folder: Path) -> tuple[str, str]:
    """Baseline and variant results of 13 cases in three slices, one trial each.

    Slice ``A`` (6 cases): variant - baseline = +10 on each case (Wilcoxon exact: all six
    ranks positive, p = 2 / 2**6 = 0.03125). Slice ``SLICE_PAYLOAD`` (5 cases): differences
    1, 2, 3, 4, 5 (p = 2 / 2**5 = 0.0625). Holm over the two tested slices: sorted raw
    0.03125, 0.0625 -> 2 * 0.03125 = 0.0625 and max(0.0625, 1 * 0.0625) = 0.0625. Slice ``C``
    (2 cases, diff -20): below the default min n of 5, shown untested.
    """
    base, var = [], []
    for i in range(6):
        base.append(result_record(f"a{i}", "A", path_score=50.0 + i))
        var.append(result_record(f"a{i}", "A", path_score=60.0 + i))
    for i in range(5):
        base.append(result_record(f"p{i}", SLICE_PAYLOAD, path_score=80.0))
        var.append(result_record(f"p{i}", SLICE_PAYLOAD, path_score=81.0 + i))
    for i in range(2):
        base.append(result_record(f"c{i}", "C", path_score=90.0))
        var.append(result_record(f"c{i}", "C", path_score=70.0))
    return write_records(folder / "base.jsonl", base), write_records(folder / "var.jsonl", var)
