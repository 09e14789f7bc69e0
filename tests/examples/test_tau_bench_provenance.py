"""The issue's scenario: the same 200 tau-bench runs scored twice, only the write-tool list
changed. compare and gate refuse them (exit 2, one line); with --allow-config-change they run
and the first line of the text, the JSON, the JUnit XML and the HTML report says so."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from pathgrade.cli.main import main
from pathgrade.io.ingest import tau_bench

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "examples" / "tau_bench" / "tau_bench_runs.jsonl"
#: The write tool the variant's config no longer declares (the airline runs book often).
DROPPED = "book_reservation"
GATES = '[[gate]]\nmetric = "path_score"\nrule = "not_below_baseline"\n'
FAST = ["--resamples", "500"]


def _config(path: Path, writes: tuple[str, ...]) -> Path:
    lines = ["[tool_kinds]", *(f'{tool} = "write"' for tool in writes)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """base.jsonl and variant.jsonl: the same cases and runs, two write-tool lists."""
    root = tmp_path_factory.mktemp("tau")
    cases = root / "cases.jsonl"
    lines = [c.model_dump_json(exclude_none=True) for c in tau_bench.read_cases(TRACES)]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = root / "runs.jsonl"
    assert main(["ingest", "--from", "tau-bench", str(TRACES), "-o", str(runs)]) == 0
    base_config = _config(root / "base.toml", tau_bench.WRITE_TOOLS)
    fewer = tuple(t for t in tau_bench.WRITE_TOOLS if t != DROPPED)
    variant_config = _config(root / "variant.toml", fewer)
    out = {"cases": cases, "root": root}
    for name, config in (("base", base_config), ("variant", variant_config)):
        target = root / f"{name}.jsonl"
        argv = ["score", str(cases), str(runs), "--config", str(config), "--out", str(target)]
        assert main(argv) == 0
        out[name] = target
    return out


def _refused(capsys: pytest.CaptureFixture[str], base: Path, variant: Path) -> None:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(
        f"pathgrade: error: {base}, {variant}: scored differently (scoring config hash: sha256:"
    )
    assert err.rstrip().endswith(
        "re-score both with the same config, or pass --allow-config-change"
    )


def test_the_same_runs_differ_only_in_the_config_hash(scored: dict[str, Path]) -> None:
    base = [orjson.loads(line) for line in scored["base"].read_bytes().splitlines()]
    var = [orjson.loads(line) for line in scored["variant"].read_bytes().splitlines()]
    assert len(base) == len(var) == 200
    b, v = base[0]["provenance"], var[0]["provenance"]
    assert b["config"] != v["config"]
    assert (b["cases"], b["semantics"]) == (v["cases"], v["semantics"])
    assert b["variables"] == v["variables"] == {"model": "gpt-4o"}  # from the traces
    # the config change moves the scores: comparing them would blame the agent
    assert [r["metrics"]["path_score"] for r in base] != [r["metrics"]["path_score"] for r in var]


def test_compare_and_gate_refuse(
    scored: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, variant = scored["base"], scored["variant"]
    capsys.readouterr()
    assert main(["compare", str(base), str(variant), *FAST]) == 2
    _refused(capsys, base, variant)
    gates = tmp_path / "gates.toml"
    gates.write_text(GATES, encoding="utf-8")
    assert main(["gate", str(gates), "--baseline", str(base), "--variant", str(variant)]) == 2
    _refused(capsys, base, variant)


def test_allowed_every_output_says_so_first(
    scored: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    base, variant = str(scored["base"]), str(scored["variant"])
    allow = "--allow-config-change"
    capsys.readouterr()
    # text
    assert main(["compare", base, variant, *FAST, allow]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"WARNING: {base}, {variant}: scored differently (scoring config")
    assert first.endswith("a difference may come from the scoring, not the runs")
    # JSON
    assert main(["compare", base, variant, *FAST, allow, "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert next(iter(doc)) == "warning" and doc["warning"] == first
    # JUnit
    gates, junit = tmp_path / "gates.toml", tmp_path / "junit.xml"
    gates.write_text(GATES, encoding="utf-8")
    argv = ["gate", str(gates), "--baseline", base, "--variant", variant, allow]
    main([*argv, "--junit", str(junit)])  # the gate may fail: it ran
    assert capsys.readouterr().out.splitlines()[0] == first
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert suite[0].tag == "properties" and suite[0][0].get("value") == first
    assert suite[1].tag == "testcase" and suite[1].get("name") == first
    # HTML
    page = tmp_path / "report.html"
    assert main(["report", variant, "--baseline", base, "-o", str(page), *FAST, allow]) == 0
    html = page.read_text(encoding="utf-8")
    body = html[html.index("<body>") + len("<body>") :].lstrip()
    assert body.startswith('<div class="warning-banner" role="alert"><p>WARNING: ')
    assert "scored differently (scoring config hash: sha256:" in body.split("</p>")[0]
