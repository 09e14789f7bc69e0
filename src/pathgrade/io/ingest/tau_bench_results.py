"""tau-bench's own results files (``historical_trajectories/*.json``, and what its ``run.py``
writes): one JSON list of ``{task_id, reward, info, traj, trial}``, read as is.

================================  ==========================================================
``traj`` assistant                a step each: ``function.name``; ``function.arguments``
``tool_calls[i]``                 (JSON text, decoded; the text kept in ``raw_arguments``);
                                  ``id`` the call id; the calls of one message share a turn
``traj`` ``role: "tool"``         the result of the oldest call still waiting for one (the one
                                  with that ``tool_call_id``, else the first): tau-bench writes
                                  each call's result right after it and reuses call ids within
                                  a trajectory, so ids alone cannot pair them. Text beginning
                                  ``Error`` (how tau-bench reports a failed tool) is the
                                  step's ``error``; JSON text is decoded for ``output``
last assistant text               the answer
``traj`` ``role: "user"``         each opens a conversation turn (``Run.turns``,
                                  :mod:`._turns`; two or more user messages): the calls
                                  until the next user message, the last assistant text the
                                  reply. The ``###STOP###`` message is no turn: the turn
                                  before it ends with ``ended_by="user"``; an episode the
                                  ``transfer_to_human_agents`` call ended: ``"agent"``
``reward``                        ``success`` (reward 1.0), kept in ``metadata``
``info.reward_info.info``         ``r_actions``, ``r_outputs`` in ``metadata``
``task_id``, ``trial``            case id ``tau_bench/<domain>/test/<task_id>`` (as in the
                                  compact copy; ``test``: the results do not name the split,
                                  and the published ones are of the test tasks), run id
                                  ``<case id>#<model>#trial<trial>``
``info.task.actions``             the case's reference path (:func:`read_cases`): ``name`` and
                                  ``kwargs``; ``respond`` (a reply, not a call) left out, as
                                  tau-bench's reward leaves it out
``info.task.outputs``             the case's ``metadata["gold_outputs"]``
================================  ==========================================================

The domain comes from the policy heading of the system message (``# Airline Agent
Policy``), else from a file name ``<model>-<domain>.json`` as tau-bench names its files,
which also gives the model. ``metadata["episode_done"]``: the user said ``###STOP###`` or
the last call was ``transfer_to_human_agents`` (tau-bench's ends of an episode; otherwise
the step limit cut it). No tokens, costs or timings are recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pathgrade.core.errors import InputError
from pathgrade.core.types import Case, Run, Step
from pathgrade.io.cases import validation_error
from pathgrade.io.ingest._common import (
    TRIAL_LIMIT,
    At,
    IngestOptions,
    arr,
    bounded,
    decode_arguments,
    head_text,
    json_lines,
    maybe_json,
    obj,
    text,
)
from pathgrade.io.ingest._turns import TurnMarks
from pathgrade.io.ingest.openai_messages import content_text
from pathgrade.io.ingest.tau_bench import gold_case

NAME = "tau-bench-results"
#: The domains of tau-bench, as file names end (``gpt-4o-airline.json``).
DOMAINS = ("airline", "retail")
#: Tools that end an episode, and the user simulator's end token (tau-bench ``envs/base.py``).
TERMINATE_TOOLS = ("transfer_to_human_agents",)
STOP = "###STOP###"
_POLICY = re.compile(r"#\s*(\w+)\s+agent\s+policy", re.IGNORECASE)


@dataclass(frozen=True)
class _Source:
    """What the file name says: the domain and the model (``None`` when it says nothing)."""

    domain: str | None
    model: str | None

    @classmethod
    def of(cls, path: str | Path) -> _Source:
        stem = Path(path).stem
        for domain in DOMAINS:
            if stem.endswith(f"-{domain}"):
                return cls(domain, stem.removesuffix(f"-{domain}") or None)
        return cls(None, None)


def _task_id(value: Any, at: At) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip():
        return value
    raise at.error("expected a task id (an integer or a non-empty string)")


def _trial(value: Any, at: At) -> int:
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < TRIAL_LIMIT:
        raise at.error("expected a trial number: an integer from 0 to 2**63 - 1")
    return value


def _domain(traj: list[Any], source: _Source) -> str | None:
    """The domain named by the first system message's policy heading, else the file's."""
    for message in traj:
        if isinstance(message, dict) and message.get("role") == "system":
            found = _POLICY.search(content_text(message.get("content")) or "")
            if found:
                return found.group(1).lower()
            break
    return source.domain


def case_id_of(domain: str | None, task_id: int | str) -> str:
    """``tau_bench/<domain>/test/<task_id>`` (``tau_bench/test/<task_id>``: no domain)."""
    return f"tau_bench/{domain}/test/{task_id}" if domain else f"tau_bench/test/{task_id}"


class _Trajectory:
    """Steps, answer and counts of one ``traj`` message list."""

    def __init__(self, traj: list[Any], at: At) -> None:
        self.steps: list[dict[str, Any]] = []
        self.answer: str | None = None
        self.texts = 0  # assistant messages that only reply (tau-bench's respond actions)
        self.done = False
        self.turns = TurnMarks()
        self._turn = 0
        self._waiting: list[dict[str, Any]] = []
        for index, message in enumerate(traj):
            where = at.item(index)
            self._message(obj(message, where, optional=False), where)
        last = traj[-1] if traj else None
        if isinstance(last, dict) and last.get("role") == "user":
            self.done = STOP in (content_text(last.get("content")) or "")
        elif isinstance(last, dict) and last.get("role") == "tool" and self.steps:
            self.done = self.steps[-1]["tool"] in TERMINATE_TOOLS and not self._waiting
            if self.done:
                self.turns.end("agent")

    def _message(self, message: Any, at: At) -> None:
        role = message.get("role")
        if role == "assistant":
            calls = arr(message.get("tool_calls"), at.key("tool_calls"))
            for k, call in enumerate(calls):
                self._call(obj(call, at.key("tool_calls").item(k), optional=False), at, k)
            self._turn += 1 if calls else 0
            reply = content_text(message.get("content"))
            if reply:
                self.answer = reply
                self.texts += 0 if calls else 1
                self.turns.reply(reply)
        elif role == "tool":
            self._result(message, at)
        elif role == "user":
            said = content_text(message.get("content"))
            if said is not None and STOP in said:
                self.turns.end("user")
            else:
                self.turns.open(said, len(self.steps))

    def _call(self, call: Any, at: At, k: int) -> None:
        where = at.key("tool_calls").item(k)
        function = obj(call.get("function"), where.key("function"), optional=False)
        tool = text(function.get("name"), where.key("function").key("name"), optional=False)
        if not tool or not tool.strip():
            raise where.key("function").key("name").error("a tool call needs a function name")
        raw = function.get("arguments")
        decoded = decode_arguments(raw)
        bounded(decoded.value, where.key("function").key("arguments"))
        metadata: dict[str, Any] = {"arguments_unparsed": True} if decoded.unparsed else {}
        if raw is None:
            metadata["arguments_recorded"] = False
        call_id = call.get("id")
        step = {
            "tool": tool,
            "arguments": decoded.value,
            "raw_arguments": decoded.raw,
            "call_id": call_id if isinstance(call_id, str) else None,
            "turn": self._turn,
            "metadata": metadata,
        }
        self.steps.append(step)
        self._waiting.append(step)

    def _result(self, message: Any, at: At) -> None:
        if not self._waiting:
            raise at.error("a tool result with no tool call waiting for it")
        call_id = message.get("tool_call_id")
        index = next((i for i, s in enumerate(self._waiting) if s["call_id"] == call_id), 0)
        step = self._waiting.pop(index)
        content = content_text(message.get("content"))
        step["output"] = bounded(maybe_json(content), at.key("content"))
        if content is not None and content.startswith("Error"):
            step["error"] = content


def _outcome(info: Any, at: At) -> tuple[Any, Any]:
    """``(r_actions, r_outputs)`` of ``info.reward_info.info`` (``None`` when absent)."""
    reward_info = obj(info.get("reward_info"), at.key("reward_info"))
    where = at.key("reward_info").key("info")
    detail = obj(reward_info.get("info"), where)
    r_actions = bounded(detail.get("r_actions"), where.key("r_actions"))
    return r_actions, bounded(detail.get("r_outputs"), where.key("r_outputs"))


def _run(record: Any, at: At, source: _Source) -> Run:
    item = obj(record, at, optional=False)
    task_id = _task_id(item.get("task_id"), at.key("task_id"))
    trial = _trial(item.get("trial"), at.key("trial"))
    reward = item.get("reward")
    if not isinstance(reward, int | float) or isinstance(reward, bool):
        raise at.key("reward").error(f"reward must be a number, got {str(reward)[:40]!r}")
    info = obj(item.get("info"), at.key("info"))
    traj = arr(item.get("traj"), at.key("traj"), optional=False)
    path = _Trajectory(traj, at.key("traj"))
    domain = _domain(traj, source)
    case_id = case_id_of(domain, task_id)
    r_actions, r_outputs = _outcome(info, at.key("info"))
    model = f"#{source.model}" if source.model else ""
    try:
        steps = tuple(Step(**s) for s in path.steps)
        return Run(
            case_id=case_id,
            run_id=f"{case_id}{model}#trial{trial}",
            trial=trial,
            steps=steps,
            turns=path.turns.turns(steps),
            answer=path.answer,
            success=reward == 1.0,
            metadata={
                "source": NAME,
                "domain": domain,
                "task_id": task_id,
                "model": source.model,
                "reward": reward,
                "r_actions": r_actions,
                "r_outputs": r_outputs,
                "episode_done": path.done,
                "n_messages": len(traj),
                "agent_text_messages": path.texts,
            },
        )
    except ValidationError as error:
        raise validation_error(error, file=at.file, line=at.line) from None


def _records(path: str | Path, options: IngestOptions) -> Iterator[tuple[At, Any]]:
    """``(where, record)`` of each result: the items of a JSON list, or one per line."""
    name = str(path)
    for line, record in json_lines(path, options):
        if isinstance(record, list):
            for index, item in enumerate(record):
                yield At(name, line, f"[{index}]"), item
        else:
            yield At(name, line), record


def sniff(head: bytes | str) -> bool:
    """Results of ``{task_id, reward, info, traj, trial}`` (not the compact runs)."""
    start = head_text(head)
    return (
        '"task_id"' in start
        and ('"traj"' in start or '"reward_info"' in start)
        and '"agent_actions"' not in start
    )


def read(path: str | Path, options: IngestOptions | None = None) -> Iterator[Run]:
    """One run per result."""
    options = options or IngestOptions()
    source = _Source.of(path)
    for at, record in _records(path, options):
        try:
            yield _run(record, at, source)
        except InputError as error:
            options.fail(error)


def _actions(value: Any, at: At) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for i, action in enumerate(arr(value, at)):
        item = obj(action, at.item(i), optional=False)
        name = text(item.get("name"), at.item(i).key("name"), optional=False) or ""
        kwargs = obj(item.get("kwargs"), at.item(i).key("kwargs"))
        out.append((name, bounded(dict(kwargs), at.item(i).key("kwargs"))))
    return out


def _outputs(value: Any, at: At) -> Sequence[str]:
    outputs = arr(value, at)
    for i, output in enumerate(outputs):
        text(output, at.item(i), optional=False)
    return outputs


def read_cases(path: str | Path, options: IngestOptions | None = None) -> list[Case]:
    """One case per task (the first result of a task wins): ``info.task.actions`` but
    ``respond`` are the reference path, ``info.task.outputs`` the gold outputs."""
    options = options or IngestOptions()
    source = _Source.of(path)
    cases: dict[str, Case] = {}
    for at, record in _records(path, options):
        try:
            item = obj(record, at, optional=False)
            task_id = _task_id(item.get("task_id"), at.key("task_id"))
            traj = arr(item.get("traj"), at.key("traj"))
            case_id = case_id_of(_domain(traj, source), task_id)
            if case_id in cases:
                continue
            where = at.key("info").key("task")
            task = obj(obj(item.get("info"), at.key("info")).get("task"), where, optional=False)
            cases[case_id] = gold_case(
                case_id,
                instruction=text(task.get("instruction"), where.key("instruction")),
                domain=_domain(traj, source),
                actions=_actions(task.get("actions"), where.key("actions")),
                outputs=_outputs(task.get("outputs"), where.key("outputs")),
                task_id=task_id,
            )
        except ValidationError as error:
            options.fail(validation_error(error, file=at.file, line=at.line))
        except InputError as error:
            options.fail(error)
    return list(cases.values())
