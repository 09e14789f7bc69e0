"""The pytest plug-in, run by ``pytester``: fixtures, the trials marker, results and gates."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pathgrade.store import RunStore

pytest_plugins = ["pytester"]

CASES = [
    {"case_id": "a", "reference": ["lookup:A", "refund:A"], "tool_kinds": {"refund": "write"}},
    {"case_id": "b", "reference": ["lookup:B", "refund:B"], "tool_kinds": {"refund": "write"}},
]
RUNS = [
    {"case_id": "a", "run_id": "r1", "steps": ["lookup:A", "refund:A"]},
    {"case_id": "b", "run_id": "r2", "steps": ["lookup:B", "lookup:B", "refund:B"]},
]
# Each case's path is its own run; a WASTE environment variable adds a repeated look-up.
TESTS = """
import os

from pathgrade import Run
from pathgrade.testing import assert_path


def test_path(pathgrade_case):
    steps = [s.tool + ":" + s.arguments[0] for s in pathgrade_case.reference]
    if os.environ.get("WASTE"):
        steps.insert(0, steps[0])
    assert_path(Run(case_id=pathgrade_case.case_id, steps=steps), pathgrade_case)
"""
GATES = """
[[gate]]
name = "path_score not below baseline"
metric = "path_score"
rule = "not_below_baseline"

[[gate]]
name = "no forbidden action"
metric = "defects.forbidden_action"
rule = "equal"
threshold = 0
hard = true
"""


def jsonl(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def project(pytester: pytest.Pytester, tests: str = TESTS, ini: str = "") -> Path:
    pytester.makefile(".jsonl", cases=jsonl(CASES), runs=jsonl(RUNS))
    pytester.makefile(".toml", gates=GATES)
    pytester.makeini(f"[pytest]\npathgrade_cases = cases.jsonl\n{ini}")
    pytester.makepyfile(test_agent=tests)
    return pytester.path / "store"


def records(store: Path, name: str) -> list[dict]:
    return RunStore(store).load(name).records


def test_the_entry_point_registers_the_plugin(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--pathgrade-baseline=NAME*", "*pathgrade_cases*"])
    assert (
        "--pathgrade-baseline"
        not in pytester.runpytest("-p", "no:pathgrade", "--help").stdout.str()
    )


def test_fixtures_read_the_ini_files_relative_to_the_ini_file(pytester: pytest.Pytester) -> None:
    data = pytester.mkdir("data")
    (data / "cases.jsonl").write_text(jsonl(CASES))
    (data / "runs.jsonl").write_text(jsonl(RUNS))
    (pytester.path / "pathgrade.toml").write_text("[penalties]\nwasted_step = 30\n")
    (pytester.path / "other.toml").write_text("[penalties]\nwasted_step = 40\n")
    pytester.makeini(
        "[pytest]\npathgrade_cases = data/cases.jsonl\npathgrade_runs = data/runs.jsonl\n"
    )
    pytester.makepyfile(
        test_fixtures="""
        import os

        def test_fixtures(pathgrade_cases, pathgrade_runs, pathgrade_config):
            assert sorted(pathgrade_cases) == ["a", "b"]
            assert [r.run_id for r in pathgrade_runs] == ["r1", "r2"]
            assert pathgrade_runs.get("b").run_id == "r2"
            assert pathgrade_config.penalties.wasted_step == int(os.environ["EXPECTED"])
        """
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EXPECTED", "30")  # pathgrade.toml of the rootdir
        pytester.runpytest().assert_outcomes(passed=1)
        patch.setenv("EXPECTED", "40")  # the option wins
        pytester.runpytest("--pathgrade-config", "other.toml").assert_outcomes(passed=1)


def test_pathgrade_case_runs_once_per_case(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["test_agent.py::test_path[[]a[]]", "test_agent.py::test_path[[]b[]]"]
    )


def test_a_test_may_give_its_own_cases(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makepyfile(
        test_own="""
        import pytest
        from pathgrade import Case

        @pytest.mark.parametrize("pathgrade_case", [Case(case_id="mine")], ids=["mine"])
        def test_own(pathgrade_case):
            assert pathgrade_case.case_id == "mine"
        """
    )
    result = pytester.runpytest("test_own.py", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["test_own.py::test_own[[]mine[]] PASSED*"])


def test_missing_and_bad_files_are_one_line_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_x="""
        def test_runs(pathgrade_runs):
            pass

        def test_case(pathgrade_case):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["pathgrade: no runs file: pass --pathgrade-runs FILE or set pathgrade_runs in the ini*"]
    )
    result.stdout.fnmatch_lines(["pathgrade: no cases file: *"])
    pytester.makefile(".jsonl", cases=jsonl(CASES) + '{"case_id": "c", "reference": 3}\n')
    result = pytester.runpytest("--pathgrade-cases", "cases.jsonl")
    result.stdout.fnmatch_lines(["pathgrade: cases.jsonl:3: field 'reference': *"])
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error stops the session
    assert "Traceback" not in result.stdout.str()


def test_a_failing_path_shows_the_aligned_path(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_fail="""
        from pathgrade import Case, Run
        from pathgrade.testing import assert_path

        def test_fail():
            case = Case(case_id="x", reference=["lookup:A", "refund:A"])
            assert_path(Run(case_id="x", steps=["refund:A"]), case, min_path_score=80)
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    # missing_step costs 25 and the order defect 15: 100 - 25 - 15 = 60.
    result.stdout.fnmatch_lines(
        [
            "E * path of case 'x' (trial 0) fails: path_score 60 < min_path_score 80",
            "E *  0  lookup:A  *missing",
            "E *  1  refund:A  *match (arguments match)  refund:A  *0",
            "E *Defects and penalties",
        ]
    )
    assert "__tracebackhide__" not in result.stdout.str()  # assert_path's body is hidden


def test_trials_marker_three_of_five(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_trials="""
        import pytest

        SETUPS = []

        @pytest.fixture
        def agent():
            SETUPS.append(1)
            return {0, 2, 4}  # the trials that pass

        @pytest.mark.pathgrade_trials(5, pass_hat_k=(2, 0.8))
        def test_strict(agent, pathgrade_trial):
            assert pathgrade_trial in agent

        @pytest.mark.pathgrade_trials(n=5, pass_hat_k=(2, 0.3), pass_at_k=(2, 0.9))
        def test_lenient(agent, pathgrade_trial):
            assert pathgrade_trial in agent

        def test_fixture_set_up_once_per_test():
            assert len(SETUPS) == 2
        """
    )
    result = pytester.runpytest("--junitxml=out.xml")
    result.assert_outcomes(failed=1, passed=2)
    # pass^2 = C(3,2)/C(5,2) = 3/10 = 0.3 < 0.8; pass@2 = 1 - C(2,2)/C(5,2) = 0.9.
    result.stdout.fnmatch_lines(
        [
            "pathgrade_trials: 3 of 5 trials passed (failed: 1, 3);"
            " pass^2 = C(3,2)/C(5,2) = 0.3 >= 0.8: no",
            "first failed trial (1):",
            "assert 1 in {0, 2, 4}",
        ]
    )
    xml = (pytester.path / "out.xml").read_text()
    assert "pass^2 = C(3,2)/C(5,2) = 0.3 &gt;= 0.3: yes; pass@2 = 1 - C(2,2)/C(5,2) = 0.9" in xml


def test_trials_marker_errors_and_other_outcomes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_marks="""
        import pytest

        @pytest.mark.pathgrade_trials(3)
        def test_no_rule():
            pass

        @pytest.mark.pathgrade_trials(3, pass_hat_k=(1, 1.0))
        def test_error():
            raise KeyError("not a failed trial")

        @pytest.mark.pathgrade_trials(3, pass_at_k=(3, 1.0))
        def test_fail_counts(pathgrade_trial):
            if pathgrade_trial == 2:
                pytest.fail("third trial")

        @pytest.mark.pathgrade_trials(3, pass_hat_k=(1, 1.0))
        def test_skip():
            pytest.skip("not today")
        """
    )
    result = pytester.runpytest("-rA")
    result.assert_outcomes(failed=2, passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*pathgrade_trials: give pass_hat_k=(k, minimum) and/or*"])
    result.stdout.fnmatch_lines(["*KeyError: 'not a failed trial'*"])
    # pass@3 = 1 - C(1,3)/C(3,3) = 1: the test with one failed trial out of three passes.
    assert "FAILED test_marks.py::test_fail_counts" not in result.stdout.str()


def test_save_stores_each_result_under_its_test_id(pytester: pytest.Pytester) -> None:
    store = project(pytester)
    result = pytester.runpytest(
        "--pathgrade-store", str(store), "--pathgrade-save", "base", "--pathgrade-label", "model=m1"
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["pathgrade: 2 results of 2 tests saved as run 'base' (*base.parquet)."]
    )
    stored = records(store, "base")
    assert [(r["case_id"], r["trial"], r["metrics"]["path_score"]) for r in stored] == [
        ("test_agent.py::test_path[a]", 0, 100.0),
        ("test_agent.py::test_path[b]", 0, 100.0),
    ]
    assert stored[0]["provenance"]["variables"] == {"model": "m1"}
    run = RunStore(store).load("base")
    assert run.manifest.labels == {"model": "m1"}
    assert run.traces[0]["reference"][0]["tool"] == "lookup"  # the report has the traces


def test_gates_set_the_exit_status(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = project(pytester)
    common = ["--pathgrade-store", str(store), "--pathgrade-gates", "gates.toml"]
    assert pytester.runpytest(*common, "--pathgrade-save", "base").ret == 0
    result = pytester.runpytest(*common, "--pathgrade-baseline", "base", "--pathgrade-save", "same")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["pathgrade: gates.toml against baseline 'base' on 2 paired cases: all 2 gates passed."]
    )
    monkeypatch.setenv("WASTE", "1")  # path_score 100 - 10 = 90 on both cases: still passing tests
    result = pytester.runpytest(
        *common, "--pathgrade-baseline", "base", "--pathgrade-save", "worse"
    )
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "pathgrade: gates.toml against baseline 'base' on 2 paired cases: 1 of 2 gates failed"
            " (0 hard): the session fails.",
            "  FAIL path_score not below baseline: *90*100*",
            "  next: PATHGRADE_STORE=* pathgrade compare base worse; *",
        ]
    )
    assert [r["metrics"]["path_score"] for r in records(store, "worse")] == [90.0, 90.0]


def test_a_hard_gate_fails_on_one_run(pytester: pytest.Pytester) -> None:
    tests = TESTS.replace(
        "    assert_path(",
        '    if pathgrade_case.case_id == "b":\n        steps.append("drop:B")\n    assert_path(',
    )
    store = project(pytester, tests)
    common = ["--pathgrade-store", str(store), "--pathgrade-gates", "gates.toml"]
    assert pytester.runpytest(*common, "--pathgrade-save", "base").ret == 0
    (pytester.path / "cases.jsonl").write_text(jsonl(CASES))
    forbidden = [{**CASES[0]}, {**CASES[1], "forbidden_tools": ["drop"]}]
    (pytester.path / "cases.jsonl").write_text(jsonl(forbidden))
    # The case was edited: the sides were scored differently and are not gated ...
    result = pytester.runpytest(*common, "--pathgrade-baseline", "base")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        ["pathgrade: not gated: base, pytest-*: scored differently (cases*"]
    )
    # ... unless asked for: then the hard gate fails on the one forbidden call.
    result = pytester.runpytest(
        *common, "--pathgrade-baseline", "base", "--pathgrade-allow-config-change"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "pathgrade: WARNING: base, pytest-*: scored differently*",
            "*2 of 2 gates failed (1 hard)*",
            "  FAIL no forbidden action [hard]: max defects.forbidden_action 1 == 0",
        ]
    )


def test_a_subset_of_the_same_cases_file_is_comparable(pytester: pytest.Pytester) -> None:
    store = project(pytester)
    common = ["--pathgrade-store", str(store), "--pathgrade-gates", "gates.toml"]
    assert pytester.runpytest(*common, "--pathgrade-save", "base").ret == 0
    result = pytester.runpytest(
        *common, "--pathgrade-baseline", "base", "test_agent.py::test_path[a]"
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*on 1 paired cases, 1 on one side only: all 2 gates passed."])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--pathgrade-baseline", "base"],
            "ERROR: pathgrade: --pathgrade-baseline needs a gates file*",
        ),
        (
            ["--pathgrade-baseline", "nope", "--pathgrade-gates", "gates.toml"],
            "ERROR: pathgrade: nope: no results file and no stored run named 'nope'*",
        ),
        (["--pathgrade-save", "base"], "ERROR: pathgrade: *a run named 'base' is already stored*"),
        (["--pathgrade-save", "bad/name"], "ERROR: pathgrade: *invalid run name 'bad/name'*"),
        (
            ["--pathgrade-baseline", "base", "--pathgrade-gates", "bad.toml"],
            "ERROR: pathgrade: bad.toml: field 'gate[[]1[]].metric': unknown metric 'path_scor'*",
        ),
        (["--pathgrade-save", "x", "--pathgrade-label", "nolabel"], "ERROR: pathgrade: *nolabel*"),
    ],
)
def test_bad_options_stop_the_session_before_any_test(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    store = project(pytester)
    pytester.makefile(".toml", bad='[[gate]]\nmetric = "path_scor"\nrule = "min"\nthreshold = 1\n')
    assert pytester.runpytest("--pathgrade-store", str(store), "--pathgrade-save", "base").ret == 0
    result = pytester.runpytest("--pathgrade-store", str(store), *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "passed" not in result.stdout.str()


def test_one_session_needs_one_config(pytester: pytest.Pytester) -> None:
    tests = TESTS.replace(
        "assert_path(Run(case_id=pathgrade_case.case_id, steps=steps), pathgrade_case)",
        "assert_path(Run(case_id=pathgrade_case.case_id, steps=steps), pathgrade_case,"
        " config=ScoringConfig(penalties={'wasted_step': ord(pathgrade_case.case_id)}))",
    ).replace("from pathgrade import Run", "from pathgrade import Run, ScoringConfig")
    store = project(pytester, tests)
    result = pytester.runpytest("--pathgrade-store", str(store), "--pathgrade-save", "s")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        ["pathgrade: results not saved: the tests scored with 2 different configs*"]
    )
    assert not RunStore(store).exists("s")


def test_nothing_to_gate_fails_and_an_interrupted_session_saves_nothing(
    pytester: pytest.Pytester,
) -> None:
    store = project(pytester)
    common = ["--pathgrade-store", str(store), "--pathgrade-gates", "gates.toml"]
    assert pytester.runpytest(*common, "--pathgrade-save", "base").ret == 0
    result = pytester.runpytest(*common, "--pathgrade-baseline", "base", "-k", "nothing_matches")
    result.stdout.fnmatch_lines(
        ["pathgrade: no test called assert_path: nothing saved as 'pytest-*'"]
    )
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # a worse status is never lowered
    pytester.makepyfile(test_stop="def test_stop():\n    raise KeyboardInterrupt\n")
    result = pytester.runpytest(*common, "--pathgrade-save", "stopped", no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not RunStore(store).exists("stopped")


def test_importing_the_plugin_imports_nothing_more_of_pathgrade() -> None:
    # pytest imports the plug-in in every session of every project that installs pathgrade:
    # over `import pathgrade` and `import pytest`, it adds itself and nothing else.
    code = textwrap.dedent(
        """
        import sys
        import pathgrade, pytest
        before = set(sys.modules)
        import pathgrade.pytest_plugin
        print(sorted(set(sys.modules) - before))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['pathgrade.pytest_plugin']"
