"""Every output option (``--out``/``-o``, ``--junit``, ``--markdown``, ``--record``,
``--log``) into a missing directory or onto a directory is one line, exit 2, naming the
option, before any work: the inputs given here are missing, so an error about them would
mean the command started working first."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade.cli import score_memory as score_cli  # the in-memory path loads the inputs
from pathgrade.cli.main import main
from pathgrade.cli.outputs import check_output_dir, check_output_file
from pathgrade.core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "cases.jsonl"
RUNS = ROOT / "examples" / "runs.jsonl"


def _commands(missing: Path) -> list[tuple[list[str], str]]:
    """(argv with {out} for the output path, the option); every input is ``missing``."""
    m = str(missing)
    return [
        (["ingest", m, "--out", "{out}"], "--out"),
        (["ingest", m, "-o", "{out}"], "--out"),
        (["report", m, "-o", "{out}"], "--out"),
        (["gate", m, "--baseline", m, "--variant", m, "--junit", "{out}"], "--junit"),
        (["gate", m, "--baseline", m, "--variant", m, "--markdown", "{out}"], "--markdown"),
        (["judge", m, m, "--out", "{out}", "--offline", m], "--out"),
        (["judge", m, m, "--out", "ok.jsonl", "--record", "{out}", "--offline", m], "--record"),
        (["judge", m, m, "--out", "ok.jsonl", "--log", "{out}", "--offline", m], "--log"),
        (["replay", m, "--agent", "x:y", "--out", "{out}"], "--out"),
    ]


@pytest.mark.parametrize("target", ["missing_dir", "a_dir"])
def test_output_paths_are_checked_before_any_work(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    target: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "no" / "such" / "out.jsonl" if target == "missing_dir" else tmp_path
    expected = "does not exist" if target == "missing_dir" else "is a directory"
    for argv, option in _commands(tmp_path / "missing-input"):
        code = main([a.replace("{out}", str(out)) for a in argv])
        err = capsys.readouterr().err
        assert code == 2, argv
        assert err.count("\n") == 1 and f"field '{option}'" in err and expected in err, (argv, err)
        assert "missing-input" not in err  # the output was checked first


def test_split_out_must_be_or_become_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    for out in (a_file, a_file / "below"):
        assert main(["split", str(tmp_path / "missing-input"), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "field '--out'" in err and "missing-input" not in err
    created = tmp_path / "new" / "splits"  # a directory split creates, parents too
    assert main(["split", str(CASES), "--out", str(created), "--ratios", "0.5,0.5"]) == 0
    assert sorted(p.name for p in created.iterdir()) == ["test.jsonl", "train.jsonl"]


def test_score_out_is_checked_before_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("loaded the inputs before checking --out")

    monkeypatch.setattr(score_cli, "load_cases", never)
    for out in (tmp_path / "no" / "out.jsonl", tmp_path):
        assert main(["score", str(CASES), str(RUNS), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--out" in err


def test_the_checks_accept_what_can_be_written(tmp_path: Path) -> None:
    check_output_file(tmp_path / "new.jsonl", "--out")  # a new file in an existing directory
    (tmp_path / "old.jsonl").write_text("")
    check_output_file(tmp_path / "old.jsonl", "--out")  # replaced
    check_output_file(None, "--out")
    check_output_file(Path("-"), "--out")  # stdout
    check_output_dir(tmp_path, "--out")
    check_output_dir(tmp_path / "a" / "b", "--out")
    with pytest.raises(InputError, match="is not a directory"):
        check_output_file(tmp_path / "old.jsonl" / "x", "--out")
