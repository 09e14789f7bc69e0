"""Cases for the simulator's tests: a refund conversation the toy agents understand."""

from __future__ import annotations

from typing import Any

from pathgrade.core.types import Case, Run, Step

SCRIPT = ("Hi, I have a problem", "It is order W1, please refund it")
FIXTURES = Run(
    case_id="refund-1",
    steps=(
        Step(tool="lookup", arguments={"order_id": "W1"}, output={"status": "delivered"}),
        Step(tool="refund", arguments={"order_id": "W1"}, output="ok"),
    ),
)


def case(case_id: str = "refund-1", script: tuple[str, ...] = SCRIPT, **user: Any) -> Case:
    goal = {"instructions": "You want a refund for order W1.", "facts": {"order_id": "W1"}}
    return Case(case_id=case_id, user={**goal, "script": script, **user})


def untimed(record: Any) -> Any:
    """``record`` without its ``latency_ms`` fields (timings differ from run to run), and
    without a usage left empty by that (as ``--no-timing`` writes it)."""
    if isinstance(record, dict):
        kept = {k: untimed(v) for k, v in record.items() if k != "latency_ms"}
        return {k: v for k, v in kept.items() if not (k.endswith("usage") and v == {})}
    if isinstance(record, list):
        return [untimed(v) for v in record]
    return record
