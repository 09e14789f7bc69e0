"""Write Inspect AI eval logs (``.json`` and ``.eval``) with Inspect itself, offline (not in CI).

Drives ``inspect-ai`` (``pip install inspect-ai``) with its ``mockllm/model`` provider, whose
``custom_outputs`` callable plays recorded model replies (no network, no API key): each reply
is chosen from the conversation so far, so every epoch gets the same replies. The task's
solver is ``generate()`` with tools (``use_tools``), scored by ``match()`` (``C``/``I``).

Three samples, two epochs each (six sample records per log):

1. ``add``: "What is 3 + 4?" -> ``add(x=3, y=4)`` -> 7 -> answer ``7`` (target ``7``: C).
2. ``divide``: "What is 1 / 0?" -> ``divide(x=1, y=0)`` raises a ``ToolError`` (the tool
   message carries ``error``) -> answer ``undefined`` (target ``["inf", "infinity"]``: I).
3. ``both``: "Sum and product of 2 and 5?" -> ``add(x=2, y=5)`` and ``multiply(x=2, y=5)``
   in ONE assistant message (parallel calls) -> answer ``7 and 10`` (target ``7 and 10``: C).

Each reply carries a fixed ``usage`` (input 10 x turn, output 5 tokens), so ``model_usage``
is known.

Usage: ``python tools/producers/inspect_ai_log.py OUT_DIR`` (writes
``inspect_ai_log.json`` and ``inspect_ai_log.eval`` there).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.model._model_output import ChatCompletionChoice
from inspect_ai.scorer import match
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import ToolCall, ToolError, tool


@tool
def add():  # type: ignore[no-untyped-def]  # Inspect's tool decorator
    async def execute(x: int, y: int) -> int:
        """Add two numbers.

        Args:
          x: first number
          y: second number
        """
        return x + y

    return execute


@tool
def multiply():  # type: ignore[no-untyped-def]
    async def execute(x: int, y: int) -> int:
        """Multiply two numbers.

        Args:
          x: first number
          y: second number
        """
        return x * y

    return execute


@tool
def divide():  # type: ignore[no-untyped-def]
    async def execute(x: int, y: int) -> float:
        """Divide x by y.

        Args:
          x: numerator
          y: denominator
        """
        if y == 0:
            raise ToolError("division by zero")
        return x / y

    return execute


def _usage(turn: int) -> ModelUsage:
    return ModelUsage(input_tokens=10 * turn, output_tokens=5, total_tokens=10 * turn + 5)


def _calls(turn: int, calls: list[tuple[str, str, dict[str, Any]]]) -> ModelOutput:
    message = ChatMessageAssistant(
        content="",
        tool_calls=[ToolCall(id=i, function=f, arguments=a) for i, f, a in calls],
        model="mockllm/model",
        source="generate",
    )
    return ModelOutput(
        model="mockllm/model",
        choices=[ChatCompletionChoice(message=message, stop_reason="tool_calls")],
        usage=_usage(turn),
    )


def _text(turn: int, text: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    output.usage = _usage(turn)
    return output


def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """The recorded reply to the conversation so far (a function of the messages only)."""
    question = next(m.text for m in messages if m.role == "user")
    results = [m for m in messages if isinstance(m, ChatMessageTool)]
    turn = 1 + sum(1 for m in messages if m.role == "assistant")
    if question.startswith("What is 3"):
        if not results:
            return _calls(turn, [("call_add", "add", {"x": 3, "y": 4})])
        return _text(turn, "7")
    if question.startswith("What is 1"):
        if not results:
            return _calls(turn, [("call_div", "divide", {"x": 1, "y": 0})])
        return _text(turn, "undefined")
    if not results:
        return _calls(
            turn,
            [
                ("call_sum", "add", {"x": 2, "y": 5}),
                ("call_prod", "multiply", {"x": 2, "y": 5}),
            ],
        )
    return _text(turn, "7 and 10")


@task
def arithmetic() -> Task:
    return Task(
        dataset=[
            Sample(id="add", input="What is 3 + 4?", target="7"),
            Sample(id="divide", input="What is 1 / 0?", target=["inf", "infinity"]),
            Sample(id="both", input="Sum and product of 2 and 5?", target="7 and 10"),
        ],
        solver=[use_tools(add(), multiply(), divide()), generate()],
        scorer=match(location="exact"),
        epochs=2,
    )


def main(out_dir: str) -> None:
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    for fmt in ("json", "eval"):
        with tempfile.TemporaryDirectory() as tmp:
            model = get_model("mockllm/model", custom_outputs=reply)
            (log,) = eval(
                arithmetic(),
                model=model,
                log_dir=tmp,
                log_format=fmt,
                display="none",
                max_samples=1,
            )
            assert log.status == "success", log.error
            shutil.copy(log.location, target / f"inspect_ai_log.{fmt}")


if __name__ == "__main__":
    main(sys.argv[1])
