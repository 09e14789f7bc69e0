"""Write Google ADK session, eval set and eval result files with ADK itself, offline (not run
in CI).

Drives ``google-adk`` (``pip install google-adk``) with a recorded model: ``RecordedLlm``, a
``BaseLlm`` whose reply is a function of the request's contents (no network, no API key).
Two agents: ``support`` (tool ``lookup_order``; sub-agent ``billing``, reached through ADK's
own ``transfer_to_agent``) and ``billing`` (tool ``refund``, which fails on its first call of
the process with ``{"error": "payment gateway timeout"}``, as ADK tools report errors).

1. ``adk_session.json``: a two-turn session, saved as ``adk run --save_session`` saves it
   (``public_session(...).model_dump_json(indent=2, exclude_none=True, by_alias=True)``):
   "Where is order A17?" -> ``lookup_order(order_id="A17")`` -> "Order A17 has shipped.";
   "Refund it, please." -> ``transfer_to_agent(agent_name="billing")`` -> (billing)
   ``refund(order_id="A17", amount=10.5)`` fails -> ``refund`` again -> "Refunded A17."
2. ``adk.evalset.json``: that session and a one-turn session ("Where is order B2?") added
   to an eval set through ``LocalEvalSetsManager`` (what ``adk web`` does: the invocations
   come from ``convert_session_to_eval_invocations``), written by ADK.
3. ``adk.evalset_result.json``: ``LocalEvalService`` runs the eval set again (inference with
   the same recorded model; ``refund`` now succeeds at once, so ``refund_A17`` makes one
   ``refund`` call where the eval set expects two) and scores ``tool_trajectory_avg_score``
   (threshold 1.0): ``refund_A17`` FAILED, ``where_B2`` PASSED. Written by
   ``LocalEvalSetResultsManager``.

Usage: ``python tools/producers/adk_session.py OUT_DIR``
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.cli.utils.evals import convert_session_to_eval_invocations
from google.adk.evaluation.base_eval_service import (
    EvaluateConfig,
    EvaluateRequest,
    InferenceConfig,
    InferenceRequest,
)
from google.adk.evaluation.eval_case import EvalCase, SessionInput
from google.adk.evaluation.eval_metrics import EvalMetric
from google.adk.evaluation.local_eval_service import LocalEvalService
from google.adk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager
from google.adk.evaluation.local_eval_sets_manager import LocalEvalSetsManager
from google.adk.events._internal_metadata import public_session
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

APP = "support_app"
USER = "user"
EVAL_SET = "support_evalset"
_REFUNDS = {"calls": 0}


def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up the status of an order."""
    return {"order_id": order_id, "status": "shipped"}


def refund(order_id: str, amount: float) -> dict[str, Any]:
    """Refund an amount on an order."""
    _REFUNDS["calls"] += 1
    if _REFUNDS["calls"] == 1:
        return {"error": "payment gateway timeout"}
    return {"order_id": order_id, "refunded": amount}


def _parts(request: LlmRequest) -> list[types.Part]:
    return [p for c in request.contents or [] for p in c.parts or []]


def _call(name: str, args: dict[str, Any], call_id: str) -> types.Content:
    part = types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))
    return types.Content(role="model", parts=[part])


def _say(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def _order(parts: list[types.Part]) -> str:
    said = [p.text for p in parts if p.text and "order" in p.text]
    return "B2" if any("B2" in s for s in said) else "A17"


def support_reply(request: LlmRequest) -> types.Content:
    parts = _parts(request)
    last = parts[-1]
    order = _order(parts)
    if last.function_response is not None and last.function_response.name == "lookup_order":
        return _say(f"Order {order} has shipped.")
    if last.text and "Refund" in last.text:
        return _call("transfer_to_agent", {"agent_name": "billing"}, "call-transfer")
    return _call("lookup_order", {"order_id": order}, f"call-lookup-{order}")


def billing_reply(request: LlmRequest) -> types.Content:
    results = [
        p.function_response
        for p in _parts(request)
        if p.function_response is not None and p.function_response.name == "refund"
    ]
    if results and "error" not in (results[-1].response or {}):
        return _say("Refunded A17.")
    return _call("refund", {"order_id": "A17", "amount": 10.5}, f"call-refund-{len(results) + 1}")


class RecordedLlm(BaseLlm):
    """Plays recorded replies: ``reply`` maps a request to the model's content."""

    agent: str = "support"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        reply = support_reply if self.agent == "support" else billing_reply
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=20, candidates_token_count=5, total_token_count=25
        )
        yield LlmResponse(content=reply(llm_request), usage_metadata=usage)


def build_agent() -> LlmAgent:
    billing = LlmAgent(
        name="billing",
        model=RecordedLlm(model="recorded", agent="billing"),
        instruction="Issue refunds.",
        tools=[refund],
    )
    return LlmAgent(
        name="support",
        model=RecordedLlm(model="recorded", agent="support"),
        instruction="Answer questions about orders; hand refunds to billing.",
        tools=[lookup_order],
        sub_agents=[billing],
    )


async def _session(runner: InMemoryRunner, turns: list[str]) -> Any:
    session = await runner.session_service.create_session(app_name=APP, user_id=USER)
    for turn in turns:
        message = types.Content(role="user", parts=[types.Part(text=turn)])
        async for _ in runner.run_async(user_id=USER, session_id=session.id, new_message=message):
            pass
    return await runner.session_service.get_session(
        app_name=APP, user_id=USER, session_id=session.id
    )


async def main(out_dir: str) -> None:
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    agent = build_agent()
    runner = InMemoryRunner(agent=agent, app_name=APP)
    refund_session = await _session(runner, ["Where is order A17?", "Refund it, please."])
    lookup_session = await _session(runner, ["Where is order B2?"])
    (target / "adk_session.json").write_text(
        public_session(refund_session).model_dump_json(indent=2, exclude_none=True, by_alias=True),
        encoding="utf-8",
    )
    with tempfile.TemporaryDirectory() as agents_dir:
        sets = LocalEvalSetsManager(agents_dir=agents_dir)
        sets.create_eval_set(APP, EVAL_SET)
        for eval_id, session in (("refund_A17", refund_session), ("where_B2", lookup_session)):
            case = EvalCase(
                eval_id=eval_id,
                conversation=convert_session_to_eval_invocations(session),
                session_input=SessionInput(app_name=APP, user_id=USER, state={}),
            )
            sets.add_eval_case(APP, EVAL_SET, case)
        shutil.copy(
            Path(agents_dir) / APP / f"{EVAL_SET}.evalset.json", target / "adk.evalset.json"
        )
        results = LocalEvalSetResultsManager(agents_dir=agents_dir)
        service = LocalEvalService(
            root_agent=agent, eval_sets_manager=sets, eval_set_results_manager=results
        )
        request = InferenceRequest(
            app_name=APP, eval_set_id=EVAL_SET, inference_config=InferenceConfig(parallelism=1)
        )
        inferences = [r async for r in service.perform_inference(request)]
        metric = EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0)
        evaluate = EvaluateRequest(
            inference_results=inferences,
            evaluate_config=EvaluateConfig(eval_metrics=[metric], parallelism=1),
        )
        _ = [r async for r in service.evaluate(evaluate)]
        (written,) = (Path(agents_dir) / APP / ".adk" / "eval_history").glob("*.json")
        shutil.copy(written, target / "adk.evalset_result.json")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
