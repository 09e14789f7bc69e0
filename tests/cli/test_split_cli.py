"""``pathgrade split``: files per split, sizes, leakage listing, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from pathgrade.cli.main import main


def write_cases(path: Path, cases: list[dict[str, Any]]) -> str:
    path.write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in cases))
    return str(path)


def cases() -> list[dict[str, Any]]:
    return [
        {
            "case_id": f"c{i}",
            "query": f"question number {i} about service {i % 9} and its runbook step {i}",
            "service": f"svc-{i % 9}",
            "created_at": f"2024-01-{1 + i % 28:02d}",
        }
        for i in range(90)
    ]


def test_split_by_group_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = cases()
    data.append({**data[0], "case_id": "dup", "service": "svc-elsewhere"})  # leaks its query
    source = write_cases(tmp_path / "cases.jsonl", data)
    out = tmp_path / "splits"
    argv = ["split", source, "service", "--by", "group", "--seed", "1", "-o", str(out), "--json"]
    assert main(argv) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert sum(s["cases"] for s in doc["splits"].values()) == 91
    written = {
        name: [orjson.loads(x) for x in (out / f"{name}.jsonl").read_bytes().splitlines()]
        for name in ("train", "dev", "test")
    }
    services = [{c["service"] for c in written[n]} for n in written]
    assert not (services[0] & services[1] or services[0] & services[2] or services[1] & services[2])
    split_of = {c["case_id"]: name for name, items in written.items() for c in items}
    listed = {frozenset((p["case_id"], p["other_case_id"])) for p in doc["leakage"]["pairs"]}
    assert (frozenset(("c0", "dup")) in listed) == (split_of["c0"] != split_of["dup"])
    again = ["split", source, "service", "--by", "group", "--seed", "1", "--json"]
    assert main(again) == 0
    assert orjson.loads(capsys.readouterr().out)["splits"] == doc["splits"]


def test_leak_is_listed_and_strict_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = [
        {"case_id": "a", "query": "Reset the VPN token", "created_at": 1},
        {"case_id": "b", "query": "reset the vpn token!", "created_at": 2},
        {"case_id": "c", "query": "Rotate database credentials", "created_at": 3},
        {"case_id": "d", "query": "Scale the web tier", "created_at": 4},
    ]
    source = write_cases(tmp_path / "c.jsonl", data)
    argv = ["split", source, "--by", "time", "created_at", "--ratios", "0.5,0.5"]
    assert main([*argv, "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    assert doc["splits"] == {"train": {"cases": 2, "groups": 2}, "test": {"cases": 2, "groups": 2}}
    assert doc["leakage"]["pairs"] == []  # a and b are both in train
    data2 = [dict(d) for d in (data[0], data[2], data[3], data[1])]
    for i, d in enumerate(data2):
        d["created_at"] = i
    source2 = write_cases(tmp_path / "c2.jsonl", data2)
    assert main(["split", source2, "--by", "time", "created_at", "--ratios", "0.5,0.5"]) == 0
    assert "a (train)  ~  b (test)" in capsys.readouterr().out
    strict = ["split", source2, "--by", "time", "created_at", "--ratios", "0.5,0.5", "--strict"]
    assert main(strict) == 1


@pytest.mark.parametrize(
    ("lines", "argv", "words"),
    [
        ([{"case_id": "a"}], ["--by", "group"], "group"),
        ([{"query": "x"}], [], "case_id"),
        ([{"case_id": "a", "group": 1}], ["--ratios", "0.5,0.2"], "--ratios"),
        ([{"case_id": "a", "group": 1}], ["--by", "time"], "time field"),
        ([{"case_id": "a", "t": 1}, {"case_id": "b", "t": "x"}], ["t", "--by", "time"], "time"),
        ([{"case_id": "a", "group": 1}, {"case_id": "a", "group": 1}], [], "duplicate"),
    ],
)
def test_bad_input_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lines: list[dict[str, Any]],
    argv: list[str],
    words: str,
) -> None:
    source = write_cases(tmp_path / "cases.jsonl", lines)
    assert main(["split", source, *argv]) == 2
    assert words in capsys.readouterr().err
