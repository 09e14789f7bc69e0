"""Two versions of a small rule-based retail agent, for the conversations example.

No model and no network: each turn reads the conversation so far (OpenAI-style messages) and
calls the frozen tools it is given (``pathgrade simulate``'s agent protocol, docs/simulate.md).

- ``v1`` has the faults a real first version has: on its first turn it always asks for the
  order id, even when the user just gave it; it looks the order up again on every turn; it
  does not retry a failed call; it turns returns away and ends the conversation.
- ``v2`` reads the id from anything the user said, remembers what it looked up, retries a
  failed lookup once, and hands returns to a human agent.
"""

from __future__ import annotations

import json
import re
from typing import Any

ORDER_ID = re.compile(r"\bW\d{4}\b", re.IGNORECASE)


def _user_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("content") or "") for m in messages if m.get("role") == "user"]


def _known_status(messages: list[dict[str, Any]], order_id: str) -> str | None:
    """The status a tool result earlier in the conversation gave for ``order_id``."""
    for message in messages:
        if message.get("role") != "tool" or order_id not in str(message.get("content")):
            continue
        try:
            found = json.loads(str(message.get("content")))
        except ValueError:
            continue
        if isinstance(found, dict) and isinstance(found.get("status"), str):
            return found["status"]
    return None


def _lookup(tools: Any, order_id: str, retries: int) -> str | None:
    for _ in range(retries + 1):
        observation = tools.call("get_order_details", [order_id])
        if observation.error is None and isinstance(observation.output, dict):
            return str(observation.output.get("status"))
    return None


def _answer(messages: list[dict[str, Any]], tools: Any, careful: bool) -> str | dict[str, Any]:
    said = _user_texts(messages)
    latest = said[-1].lower()
    everything = " ".join(said).lower()
    if not careful and len(said) == 1:
        return "Hello! Could you give me your order ID?"
    ids = ORDER_ID.findall(" ".join(said))
    if not ids:
        return "Could you give me your order ID?"
    order_id = ids[-1].upper()
    status = _known_status(messages, order_id) if careful else None
    if status is None:
        status = _lookup(tools, order_id, retries=1 if careful else 0)
    if status is None:
        return "Sorry, I could not look up your order right now."
    if "return" in everything:
        if not careful:
            return {"reply": "We cannot process returns here. Goodbye.", "end": True}
        tools.call("transfer_to_human_agents", {})
        return {"reply": "A human agent will take over your return now.", "end": True}
    if "cancel" in everything and status == "pending":
        if "yes" in latest:
            tools.call("cancel_pending_order", [order_id])
            return f"Order {order_id} is cancelled."
        return f"Order {order_id} is pending. Shall I cancel it?"
    return f"Order {order_id} is {status}."


def v1(messages: list[dict[str, Any]], tools: Any) -> str | dict[str, Any]:
    """The first version (module docstring)."""
    return _answer(messages, tools, careful=False)


def v2(messages: list[dict[str, Any]], tools: Any) -> str | dict[str, Any]:
    """The fixed version (module docstring)."""
    return _answer(messages, tools, careful=True)
