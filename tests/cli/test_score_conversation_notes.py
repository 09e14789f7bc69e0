"""``pathgrade score`` names the turn of each conversation note in the runs table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgrade.cli.main import main
from pathgrade.cli.score_text import conversation_notes


def test_notes_name_their_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one line a note
    case = {"case_id": "c", "user": {"instructions": "x", "facts": {"order_id": "W7"},
            "escalate": False}}  # fmt: skip
    run = {"case_id": "c", "turns": [
        {"user": "order W7 please", "reply": "What is the order id?"},
        {"user": "W7!", "steps": ["transfer_to_human_agents"], "reply": "Transferred."},
    ]}  # fmt: skip
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n")
    (tmp_path / "runs.jsonl").write_text(json.dumps(run) + "\n")
    assert main(["score", str(tmp_path / "cases.jsonl"), str(tmp_path / "runs.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "turn 1: asked again for order_id, given in turn 1" in text
    assert "turn 2: handed the user off, which the goal does not want" in text


def test_no_conversation_no_notes() -> None:
    assert conversation_notes(None) == []
    entry = {"turns": [{"turn": 1, "notes": ["a"]}, {"turn": 2, "notes": []}], "notes": ["b"]}
    assert conversation_notes(entry) == ["turn 1: a", "b"]
