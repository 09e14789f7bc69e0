"""Add the turn boundaries of each run to ``tau_bench_runs.jsonl``, from tau-bench's own file.

Usage::

    python examples/tau_bench/compact_turns.py --git-dir <tau-bench bare git dir or checkout>
    python examples/tau_bench/compact_turns.py --source gpt-4o-airline.json [--check]

Source: `sierra-research/tau-bench <https://github.com/sierra-research/tau-bench>`_ (MIT,
(c) 2024 Sierra), commit ``59a200c6d575d595120f1cb70fea53cef0632f6b``,
``historical_trajectories/gpt-4o-airline.json`` (4,114,038 bytes, 200 runs). Python 3.11,
standard library only (and ``git`` for ``--git-dir``); upstream code is never imported or run.

The compact file was made, upstream of this project, from the same file with the message
text dropped; the converter that made it is not in this repository. This script leaves
every field of every line as it is (the same keys, in the same order, with the same values)
and adds one field at the end of each line, ``turns``: one entry per user message of the
trajectory but the ``###STOP###`` one, in order::

    {"user": <the user's message>, "first_action": <index into agent_actions of the turn's
     first call>, "reply": <the agent's last text after that message, or null>}

and ``"ended_by"`` on the last entry: ``"user"`` when the user sent ``###STOP###``,
``"agent"`` when the episode ended with a ``transfer_to_human_agents`` call (its result the
last message), absent otherwise (the step limit cut the episode). These are the rules of
pathgrade's ``tau-bench-results`` reader (:mod:`pathgrade.io.ingest.tau_bench_results`), so
the compact runs and the results file read to the same turns.

Before a run gets turns, its line must agree with its trajectory: ``agent_actions`` equal to
the trajectory's tool calls (name and decoded arguments, in order),
``agent_tool_error_indices`` to the results starting ``Error``, and ``n_messages``,
``agent_text_messages``, ``reward`` to theirs. A run that disagrees gets no ``turns`` and is
reported (none do at that commit). ``--check`` writes nothing and fails unless the file is
what this script would write.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

COMMIT = "59a200c6d575d595120f1cb70fea53cef0632f6b"
SOURCE_PATH = "historical_trajectories/gpt-4o-airline.json"
RUNS = Path(__file__).resolve().parent / "tau_bench_runs.jsonl"
STOP = "###STOP###"
TRANSFER = "transfer_to_human_agents"


def _text(content: Any) -> str | None:
    """A message's text: a string, or the ``text`` parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def _calls(traj: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"tool": call["function"]["name"], "arguments": json.loads(call["function"]["arguments"])}
        for message in traj
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
    ]


def disagreements(line: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """The fields of a compact line that its trajectory does not reproduce."""
    traj = result["traj"]
    tool_results = [_text(m.get("content")) or "" for m in traj if m.get("role") == "tool"]
    texts = sum(
        1
        for m in traj
        if m.get("role") == "assistant" and not m.get("tool_calls") and _text(m.get("content"))
    )
    derived = {
        "agent_actions": _calls(traj),
        "agent_tool_error_indices": [
            i for i, t in enumerate(tool_results) if t.startswith("Error")
        ],
        "n_messages": len(traj),
        "agent_text_messages": texts,
        "reward": result["reward"],
    }
    return [name for name, value in derived.items() if line.get(name) != value]


def turns(traj: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns of one trajectory (module docstring)."""
    out: list[dict[str, Any]] = []
    calls = 0
    last_tool: str | None = None
    for message in traj:
        role = message.get("role")
        said = _text(message.get("content"))
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                calls += 1
                last_tool = call["function"]["name"]
            if said and out:
                out[-1]["reply"] = said
        elif role == "user" and said is not None and STOP in said:
            if out:
                out[-1]["ended_by"] = "user"
        elif role == "user" and said is not None and said.strip():
            out.append({"user": said, "first_action": calls, "reply": None})
    if traj and traj[-1].get("role") == "tool" and last_tool == TRANSFER and out:
        out[-1]["ended_by"] = "agent"
    return out


def convert(lines: Sequence[str], results: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The new lines, and the run ids left without turns (their line disagrees)."""
    by_run = {(r["task_id"], r["trial"]): r for r in results}
    out: list[str] = []
    skipped: list[str] = []
    for text in lines:
        line = json.loads(text)
        line.pop("turns", None)
        result = by_run[(line["task_id"], line["trial"])]
        if disagreements(line, result):
            skipped.append(line["run_id"])
        else:
            line["turns"] = turns(result["traj"])
        out.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
    return out, skipped


def _source(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.source:
        data: list[dict[str, Any]] = json.loads(Path(args.source).read_bytes())
        return data
    shown = subprocess.run(
        ["git", f"--git-dir={args.git_dir}", "show", f"{args.commit}:{SOURCE_PATH}"],
        check=True,
        capture_output=True,
    ).stdout
    data = json.loads(shown)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--source", help="tau-bench's gpt-4o-airline.json")
    given.add_argument("--git-dir", help="a tau-bench git dir (its .git, or a bare mirror)")
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--runs", default=str(RUNS), help="the compact file (rewritten)")
    parser.add_argument("--check", action="store_true", help="write nothing; fail on a change")
    args = parser.parse_args(argv)
    path = Path(args.runs)
    before = path.read_text(encoding="utf-8")
    lines, skipped = convert(before.splitlines(), _source(args))
    after = "".join(f"{line}\n" for line in lines)
    for run_id in skipped:
        print(f"{run_id}: the line disagrees with its trajectory; no turns", file=sys.stderr)
    if args.check:
        same = after == before
        print(f"{path}: {'up to date' if same else 'would change'}")
        return 0 if same else 1
    path.write_text(after, encoding="utf-8")
    size = len(after.encode())
    print(f"{path}: {len(lines)} runs, {len(lines) - len(skipped)} with turns, {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
