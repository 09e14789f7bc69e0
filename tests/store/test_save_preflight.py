"""``score --save``: a store that cannot take the run fails before scoring; a save that fails
anyway keeps the computed results in a file the error names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.core.errors import InputError
from pathgrade.io.results import read_results
from pathgrade.store import RunStore, save_records

from .conftest import EXAMPLES

CASES, RUNS, CONFIG = EXAMPLES / "cases.jsonl", EXAMPLES / "runs.jsonl", EXAMPLES / "pathgrade.toml"


def _args(store: Path, name: str = "main", *extra: str) -> list[str]:
    base = ["score", str(CASES), str(RUNS), "--config", str(CONFIG), "--json"]
    return [*base, "--save", name, "--store", str(store), *extra]


@pytest.fixture
def no_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored before the store was checked")

    monkeypatch.setattr("pathgrade.cli.score.score", refuse)


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert err.count("\n") == 0, err
    return err


@pytest.mark.usefixtures("no_scoring")
def test_store_path_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    store.write_text("not a folder")
    assert main(_args(store)) == 2
    assert "is not a folder" in _one_line_error(capsys)


@pytest.mark.usefixtures("no_scoring")
def test_store_below_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert main(_args(tmp_path / "file" / "runs")) == 2
    assert "is not a folder" in _one_line_error(capsys)


@pytest.mark.usefixtures("no_scoring")
def test_name_already_stored(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_records([{"case_id": "a", "metrics": {"x": 1.0}}], name="main", store=tmp_path)
    assert main(_args(tmp_path)) == 2
    assert "already stored" in _one_line_error(capsys)


@pytest.mark.usefixtures("no_scoring")
@pytest.mark.parametrize(("name", "label"), [("bad/name", "k=v"), ("ok", "no-equals-sign")])
def test_bad_name_or_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, label: str
) -> None:
    assert main(_args(tmp_path, name, "--label", label)) == 2
    assert "invalid" in _one_line_error(capsys)


@pytest.mark.usefixtures("no_scoring")
def test_unwritable_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    store.chmod(0o500)
    if os.access(store, os.W_OK):  # root ignores the mode: ask os.access as a user would
        real = os.access
        monkeypatch.setattr(
            os,
            "access",
            lambda p, mode: False if Path(p) == store and mode & os.W_OK else real(p, mode),
        )
    try:
        assert main(_args(store)) == 2
        assert "not writable" in _one_line_error(capsys)
    finally:
        store.chmod(0o700)


def test_a_missing_store_is_fine_and_created(tmp_path: Path) -> None:
    store = tmp_path / "a" / "b" / "runs"
    RunStore(store).check_writable("main")  # nothing is created by the check
    assert not (tmp_path / "a").exists()
    assert main(_args(store)) == 0
    assert RunStore(store).names() == ["main"]


def test_a_save_that_fails_after_scoring_keeps_the_results(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "store"
    original = RunStore.save

    def taken_meanwhile(self: RunStore, *args: object, **kwargs: object) -> Path:
        # another process stores the same name between the check and the save
        monkeypatch.setattr(RunStore, "save", original)
        save_records([{"case_id": "z", "metrics": {"x": 0.0}}], name="main", store=self)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(RunStore, "save", taken_meanwhile)
    assert main(_args(store)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "cannot save run 'main'" in err
    kept = tmp_path / "pathgrade-unsaved-main.jsonl"
    assert str(kept) in err and "pathgrade runs add main" in err
    records = read_results(kept)
    assert len(records) == 8  # every scored run of examples/runs.jsonl
    assert {r["run_id"] for r in records} >= {"A", "B", "C", "D"}
    assert main(["runs", "add", "main-2", str(kept), "--store", str(store)]) == 0
    assert len(RunStore(store).load("main-2").records) == 8


def test_unsaved_files_do_not_overwrite_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)

    def full_disk(self: RunStore, *args: object, **kwargs: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunStore, "save", full_disk)
    for _ in range(2):
        assert main(_args(tmp_path / "store")) == 2
        assert "No space left on device" in capsys.readouterr().err
    kept = sorted(p.name for p in tmp_path.glob("pathgrade-unsaved-*"))
    assert kept == ["pathgrade-unsaved-main-2.jsonl", "pathgrade-unsaved-main.jsonl"]


def test_check_writable_names_the_problem(tmp_path: Path) -> None:
    (tmp_path / ".tmp").write_text("a file where the temp folder goes")
    with pytest.raises(InputError, match=r"\.tmp is not a folder"):
        RunStore(tmp_path).check_writable("x")
