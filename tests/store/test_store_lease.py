"""Temporary files of store writers in other PID namespaces, hosts or boots are not swept
while their lease runs; abandoned ones are (pathgrade.store.lease)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pathgrade.core.errors import InputError
from pathgrade.store import RunStore, lease, save_records
from pathgrade.store.lease import abandoned, lease_seconds, sweep, tmp_name, writer_of

RECORDS = [{"case_id": "a", "metrics": {"path_score": 1.0}}]


def _dead_pid() -> int:
    """A process id that exists nowhere in this namespace (a child that has exited)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _temp(tmp_dir: Path, writer: str, age: float = 0.0) -> Path:
    tmp_dir.mkdir(parents=True, exist_ok=True)
    path = tmp_dir / f".victim.{writer}.tmp"
    path.write_bytes(b"PAR1 half a run")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def _foreign(pid: int) -> str:
    # another container: another host name, another PID-namespace digest, a pid that is
    # dead *here* (os.kill(pid, 0) in this namespace says nothing about that writer)
    return f"ci-runner-7_0123456789ab_{pid}_{'f' * 16}"


def test_a_live_foreign_writers_fresh_temp_file_is_not_swept(tmp_path: Path) -> None:
    foreign = _temp(tmp_path / ".tmp", _foreign(_dead_pid()))
    save_records(RECORDS, name="other", store=tmp_path)  # sweeps before it writes
    assert foreign.exists()
    assert foreign.read_bytes() == b"PAR1 half a run"
    assert RunStore(tmp_path).names() == ["other"]


def test_a_foreign_temp_file_older_than_the_lease_is_swept(tmp_path: Path) -> None:
    old = _temp(tmp_path / ".tmp", _foreign(_dead_pid()), age=3600 + 60)
    fresh = _temp(tmp_path / ".tmp", _foreign(_dead_pid()).replace("f" * 16, "e" * 16), age=60)
    save_records(RECORDS, name="other", store=tmp_path)
    assert not old.exists()
    assert fresh.exists()


def test_the_lease_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _temp(tmp_path / ".tmp", _foreign(_dead_pid()), age=120)
    save_records(RECORDS, name="one", store=RunStore(tmp_path, tmp_lease=600))
    assert path.exists()  # 120 s old, lease 600 s
    monkeypatch.setenv("PATHGRADE_STORE_TMP_LEASE", "60")
    save_records(RECORDS, name="two", store=tmp_path)
    assert not path.exists()  # 120 s old, lease 60 s


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", "soon"])
def test_a_bad_lease_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("PATHGRADE_STORE_TMP_LEASE", value)
    with pytest.raises(InputError, match="PATHGRADE_STORE_TMP_LEASE") as error:
        RunStore("somewhere")
    assert "\n" not in str(error.value)


def test_same_namespace_dead_writer_is_swept_at_once(tmp_path: Path) -> None:
    name = tmp_name("victim")  # this namespace's digest ...
    writer = writer_of(Path(name))
    assert writer is not None and writer.pid == os.getpid()
    mine = name.replace(f"_{os.getpid()}_", f"_{_dead_pid()}_")  # ... a dead pid in it
    path = _temp(tmp_path / ".tmp", mine[len(".victim.") : -len(".tmp")])
    if writer.namespace == "x":
        pytest.skip("no /proc: the PID namespace cannot be identified here")
    assert sweep(tmp_path / ".tmp", 3600) == 1
    assert not path.exists()


def test_same_namespace_live_writer_is_kept(tmp_path: Path) -> None:
    name = tmp_name("victim")
    path = _temp(tmp_path / ".tmp", name[len(".victim.") : -len(".tmp")])
    assert sweep(tmp_path / ".tmp", 3600) == 0  # this process: alive
    assert path.exists()


def test_old_style_and_unknown_names_only_go_by_age(tmp_path: Path) -> None:
    # pathgrade before the lease named temporary files .<run>.<pid>.<uuid>.tmp
    old_style = _temp(tmp_path / ".tmp", f"{_dead_pid()}.{'a' * 32}")
    assert writer_of(old_style) is None
    assert sweep(tmp_path / ".tmp", 3600) == 0
    stamp = time.time() - 7200
    os.utime(old_style, (stamp, stamp))
    assert sweep(tmp_path / ".tmp", 3600) == 1


def test_writer_ids_are_unique_and_parse() -> None:
    names = {tmp_name("run.v1") for _ in range(200)}
    assert len(names) == 200
    for name in names:
        writer = writer_of(Path(name))
        assert writer is not None and writer.pid == os.getpid()


def test_the_writer_refreshes_its_heartbeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beats: list[Path] = []
    original = lease.heartbeat

    def heartbeat(path: Path) -> None:
        beats.append(path)
        original(path)

    monkeypatch.setattr("pathgrade.store.runs.heartbeat", heartbeat)
    records = [{"case_id": f"c{i}", "metrics": {"x": float(i)}} for i in range(5000)]
    save_records(records, name="big", store=tmp_path)
    # 5000 rows in row groups of 2048: one beat before writing and one after each of 3 groups
    assert len(beats) == 4
    assert len(set(beats)) == 1 and beats[0].parent == tmp_path / ".tmp"


def test_a_temp_file_removed_under_a_writer_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = RunStore._write

    def write_then_lose(self: RunStore, tmp: Path, table: object, progress: object) -> None:
        original(self, tmp, table, progress)  # type: ignore[arg-type]
        tmp.unlink()  # what an over-eager sweep elsewhere would do

    monkeypatch.setattr(RunStore, "_write", write_then_lose)
    with pytest.raises(InputError, match="removed by another writer"):
        save_records(RECORDS, name="lost", store=tmp_path)
    assert RunStore(tmp_path).names() == []


@settings(max_examples=200, deadline=None)
@given(
    age=st.floats(min_value=0, max_value=10_000),
    lease_s=st.floats(min_value=1, max_value=5_000),
    same_namespace=st.booleans(),
    alive=st.booleans(),
)
def test_sweep_decision_table(
    tmp_path_factory: pytest.TempPathFactory,
    age: float,
    lease_s: float,
    same_namespace: bool,
    alive: bool,
) -> None:
    """Removed iff older than the lease, or in this namespace with a dead process."""
    assume(abs(age - lease_s) > 0.01)  # no ties at float precision
    folder = tmp_path_factory.mktemp("lease")
    namespace = lease._namespace()
    if same_namespace and namespace == "x":
        same_namespace = False
    pid = os.getpid() if alive else 2**22 + 12345  # above Linux's pid_max default
    ns = namespace if same_namespace else "0123456789ab"
    path = _temp(folder, f"host_{ns}_{pid}_{'c' * 16}", age=age)
    now = path.stat().st_mtime + age
    expected = age > lease_s or (same_namespace and not alive)
    assert abandoned(path, lease_s, now=now) == expected


def test_default_lease_is_one_hour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PATHGRADE_STORE_TMP_LEASE", raising=False)
    assert lease_seconds() == 3600.0
    assert lease_seconds(5) == 5
