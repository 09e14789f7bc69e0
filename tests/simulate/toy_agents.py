"""Tiny rule-based agents for the simulator's tests (loaded as ``toy_agents.py:NAME``)."""

from __future__ import annotations

import re
import threading
from typing import Any

#: Set by a test to let :func:`stuck` return.
RELEASE = threading.Event()


def shop(messages: list[dict[str, Any]], tools: Any) -> str | dict[str, Any]:
    """Looks up an order named in the user's message, refunds it when asked, else asks."""
    text = messages[-1]["content"].lower()
    order = re.search(r"\bw\d+\b", text)
    if "human" in text:
        tools.call("transfer_to_human_agents", {"reason": "asked"})
        return "Transferring you to a human."
    if order is None:
        return "Which order is it about? Please give the order id."
    found = tools.call("lookup", {"order_id": order.group(0).upper()})
    if found.error is not None:
        return f"I could not look it up: {found.error}"
    if "refund" in text:
        done = tools.call("refund", {"order_id": order.group(0).upper()})
        return {"reply": f"Refund status: {done.output}", "usage": {"tokens": 7, "cost": 0.5}}
    return f"Order {order.group(0).upper()}: {found.output}"


def ender(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
    """Ends the conversation on its second turn."""
    turns = sum(1 for m in messages if m["role"] == "user")
    return {"reply": f"reply {turns}", "end": turns >= 2}


def raiser(messages: list[dict[str, Any]], tools: Any) -> str:
    """Answers once, then raises."""
    if sum(1 for m in messages if m["role"] == "user") > 1:
        raise ValueError("the agent broke")
    return "first answer"


def number(messages: list[dict[str, Any]], tools: Any) -> int:
    """Returns a value that is not a message."""
    return 42


def stuck(messages: list[dict[str, Any]], tools: Any) -> str:
    """Waits until the test releases it (a hung agent)."""
    RELEASE.wait(30)
    return "late"


def interrupter(messages: list[dict[str, Any]], tools: Any) -> str:
    """Ctrl-C from inside the agent, on the case named 'boom'."""
    if "boom" in messages[0]["content"]:
        raise KeyboardInterrupt
    return "ok"


def live(messages: list[dict[str, Any]], tools: Any) -> str:
    """Calls its own tools (``live.tools``)."""
    first = tools.call("clock", {})
    second = tools.call("fail", {"x": 1})
    third = tools.call("missing", {})
    return f"{first.output}|{second.error}|{third.error}"


def _clock(arguments: Any) -> str:
    return "12:00"


def _fail(arguments: Any) -> str:
    raise RuntimeError("live tool down")


live.tools = {"clock": _clock, "fail": _fail}  # type: ignore[attr-defined]
