"""Readers keep a conversation's turn boundaries (``Run.turns``) and leave its path as it was.

For each message-reading format: a small multi-turn trace and its turns (user messages, steps
per turn, replies); a single-turn trace gets no turns and is written as before; tau-bench's
published results keep one turn per user message before ``###STOP###``; written runs read
back equal; and, for random conversations, the turns' steps are the flat path.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.core.conversation import Turn
from pathgrade.core.types import Run
from pathgrade.io.cases import load_runs
from pathgrade.io.ingest import (
    adk,
    detect,
    langchain,
    openai_messages,
    run_record,
    tau_bench,
    tau_bench_results,
    write_runs,
)

from .helpers import write_lines

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden" / "ingest"
PUBLISHED = GOLDEN / "producers" / "tau_bench" / "gpt-4o-airline.json"
COMPACT = ROOT / "examples" / "tau_bench" / "tau_bench_runs.jsonl"
#: The golden files with traces of two or more user messages, and how many (others: none).
MULTI_TURN = {
    "producers/adk.evalset_result.json": 1,
    "producers/adk_session.json": 1,
    "producers/tau_bench/gpt-4o-airline.json": 3,
}
TRACE_FILES = (".json", ".jsonl", ".parquet", ".eval")


def turns_of(run: Run) -> list[tuple[str, list[str], str | None, str | None]]:
    assert run.turns is not None
    return [(t.user, [s.tool for s in t.steps], t.reply, t.ended_by) for t in run.turns]


def call(name: str, call_id: str, content: str | None = None) -> dict[str, Any]:
    function = {"name": name, "arguments": "{}"}
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [{"id": call_id, "function": function}],
    }


def tool(call_id: str, content: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def say(role: str, content: Any) -> dict[str, Any]:
    return {"role": role, "content": content}


def chat() -> list[dict[str, Any]]:
    return [
        say("system", "You are a shop assistant."),
        call("load_profile", "c0", "Hello! How can I help?"),  # before the first user message
        tool("c0"),
        say("user", "Where is order A17?"),
        call("get_order", "c1"),
        tool("c1", '{"status": "shipped"}'),
        say("assistant", "It has shipped."),
        say("user", [{"type": "image_url", "image_url": {"url": "x"}}]),  # no text: no turn
        say("user", [{"type": "text", "text": "Refund it, "}, {"type": "text", "text": "please."}]),
        call("refund", "c2", "Refunding."),
        tool("c2"),
        call("notify", "c3"),
        tool("c3"),
        say("user", "Thanks!"),
    ]


CHAT_TURNS = [
    ("Where is order A17?", ["load_profile", "get_order"], "It has shipped.", None),
    ("Refund it, please.", ["refund", "notify"], "Refunding.", None),
    ("Thanks!", [], None, None),
]


def read_chat(tmp_path: Path, messages: list[Any]) -> Run:
    path = write_lines(tmp_path / "chat.jsonl", [{"case_id": "c", "messages": messages}])
    (run,) = list(openai_messages.read(path))
    return run


def test_openai_messages_turns(tmp_path: Path) -> None:
    run = read_chat(tmp_path, chat())
    assert turns_of(run) == CHAT_TURNS
    assert [s.tool for s in run.steps] == ["load_profile", "get_order", "refund", "notify"]
    assert run.answer == "Refunding."  # the last assistant text, as before
    assert run.turns is not None and run.turns[0].steps[1].output == {"status": "shipped"}


def test_one_user_message_is_no_conversation(tmp_path: Path) -> None:
    single = [*[m for m in chat() if m["role"] != "user"][:4], say("user", "Hi")]
    run = read_chat(tmp_path, single)
    assert run.turns is None and [s.tool for s in run.steps] == ["load_profile", "get_order"]
    assert "turns" not in run_record(run) and "steps" in run_record(run)


def langchain_chat() -> list[dict[str, Any]]:
    def ai(content: str, *calls: tuple[str, str]) -> dict[str, Any]:
        made = [{"name": n, "args": {}, "id": i, "type": "tool_call"} for n, i in calls]
        return {"type": "ai", "data": {"content": content, "tool_calls": made}}

    def result(call_id: str) -> dict[str, Any]:
        return {"type": "tool", "data": {"content": "ok", "tool_call_id": call_id}}

    return [
        {"type": "system", "data": {"content": "Be brief."}},
        {"type": "human", "data": {"content": "Cancel order 7"}},
        ai("", ("get_order", "t1")),
        result("t1"),
        ai("Cancel it for sure?"),
        {"lc": 1, "type": "constructor", "id": ["HumanMessage"], "kwargs": {"content": "Yes"}},
        ai("Cancelling.", ("cancel", "t2"), ("notify", "t3")),
        result("t2"),
        result("t3"),
        ai("Done."),
    ]


def test_langchain_turns(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "lc.jsonl", [{"case_id": "c7", "messages": langchain_chat()}])
    assert detect(path).name == "langchain"
    (run,) = list(langchain.read(path))
    assert turns_of(run) == [
        ("Cancel order 7", ["get_order"], "Cancel it for sure?", None),
        ("Yes", ["cancel", "notify"], "Done.", None),
    ]
    assert run.answer == "Done." and [s.tool for s in run.steps] == [
        "get_order",
        "cancel",
        "notify",
    ]


def event(author: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"author": author, "invocation_id": "i", "content": {"parts": list(parts)}}


def adk_call(name: str, call_id: str) -> dict[str, Any]:
    return {"function_call": {"id": call_id, "name": name, "args": {}}}


def adk_response(name: str, call_id: str) -> dict[str, Any]:
    return {"function_response": {"id": call_id, "name": name, "response": {"ok": True}}}


def test_adk_session_turns(tmp_path: Path) -> None:
    events = [
        event("user", {"text": "Where is A17?"}),
        event("shop", adk_call("get_order", "f1")),
        event("shop", adk_response("get_order", "f1")),
        event("shop", {"text": "Shipped."}),
        event("user", adk_response("approve", "f0")),  # a user event without text: no turn
        event("user", {"text": "Refund it."}),
        event("shop", {"text": "Checking."}, adk_call("refund", "f2")),
        event("shop", adk_response("refund", "f2")),
        event("billing", {"text": "Refunded."}),
    ]
    path = tmp_path / "session.json"
    path.write_bytes(orjson.dumps({"id": "s", "app_name": "a", "user_id": "u", "events": events}))
    (run,) = list(adk.read(path))
    assert turns_of(run) == [
        ("Where is A17?", ["get_order"], "Shipped.", None),
        ("Refund it.", ["refund"], "Refunded.", None),
    ]
    single = {"id": "s", "app_name": "a", "user_id": "u", "events": events[:4]}
    path.write_bytes(orjson.dumps(single))
    (run,) = list(adk.read(path))
    assert run.turns is None and [s.tool for s in run.steps] == ["get_order"]


def invocation(user: str, tools: list[str], reply: str) -> dict[str, Any]:
    return {
        "user_content": {"role": "user", "parts": [{"text": user}]},
        "final_response": {"parts": [{"text": reply}]},
        "intermediate_data": {"tool_uses": [{"name": t, "args": {}} for t in tools]},
    }


def test_adk_eval_result_invocations_are_turns(tmp_path: Path) -> None:
    per_invocation = [
        {"actual_invocation": invocation("Roll a die", ["roll_die"], "4.")},
        {"actual_invocation": invocation("Again, twice", ["roll_die", "roll_die"], "2 and 6.")},
    ]
    result = {"eval_id": "c1", "eval_metric_result_per_invocation": per_invocation}
    path = tmp_path / "r.evalset_result.json"
    path.write_bytes(orjson.dumps({"eval_set_result_id": "r", "eval_case_results": [result]}))
    (run,) = list(adk.read(path))
    assert turns_of(run) == [
        ("Roll a die", ["roll_die"], "4.", None),
        ("Again, twice", ["roll_die", "roll_die"], "2 and 6.", None),
    ]
    assert run.answer == "2 and 6."


def traj(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [say("system", "# Airline Agent Policy"), *messages]


def read_results(tmp_path: Path, messages: list[dict[str, Any]]) -> Run:
    record = {"task_id": 1, "reward": 1.0, "info": {}, "traj": messages, "trial": 0}
    path = tmp_path / "gpt-4o-airline.json"
    path.write_bytes(orjson.dumps([record]))
    (run,) = list(tau_bench_results.read(path))
    return run


def test_tau_bench_stop_is_no_turn(tmp_path: Path) -> None:
    run = read_results(
        tmp_path,
        traj(
            say("user", "Change my flight."),
            say("assistant", "Your user id?"),
            say("user", "u1"),
            call("get_user_details", "c1"),
            tool("c1"),
            say("assistant", "Done."),
            say("user", "Thanks ###STOP###"),
        ),
    )
    assert turns_of(run) == [
        ("Change my flight.", [], "Your user id?", None),
        ("u1", ["get_user_details"], "Done.", "user"),
    ]


def test_tau_bench_transfer_ends_by_the_agent(tmp_path: Path) -> None:
    run = read_results(
        tmp_path,
        traj(
            say("user", "Compensate me."),
            say("assistant", "I cannot."),
            say("user", "A human, please."),
            call("transfer_to_human_agents", "c1", "Transferring you."),
            tool("c1", "Transfer successful"),
        ),
    )
    assert turns_of(run)[-1] == (
        "A human, please.",
        ["transfer_to_human_agents"],
        "Transferring you.",
        "agent",
    )


def test_published_tau_bench_runs_keep_their_turns() -> None:
    # Each real trajectory: one turn per user message before ###STOP###, and the path and the
    # turns equal to the compact copy of the same run (its ``turns`` field).
    records = {r["task_id"]: r for r in orjson.loads(PUBLISHED.read_bytes())}
    compact = {r.run_id: r for r in tau_bench.read(COMPACT)}
    runs = list(tau_bench_results.read(PUBLISHED))
    assert len(runs) == 3
    for run in runs:
        messages = records[run.metadata["task_id"]]["traj"]
        users = [m["content"] for m in messages if m["role"] == "user"]
        asked = [u for u in users if "###STOP###" not in u]
        assert run.turns is not None and [t.user for t in run.turns] == asked
        assert tuple(s for t in run.turns for s in t.steps) == run.steps
        flat = [(s.tool, s.arguments) for s in compact[run.run_id].steps]
        assert [(s.tool, s.arguments) for s in run.steps] == flat
        assert run.turns[-1].ended_by == ("user" if len(asked) < len(users) else "agent")
        copy = compact[run.run_id]
        assert copy.turns is not None and copy.answer == run.answer
        assert [_turn_key(t) for t in copy.turns] == [_turn_key(t) for t in run.turns]


def _turn_key(turn: Turn) -> tuple[object, ...]:
    calls = [(s.tool, s.arguments) for s in turn.steps]
    return (turn.user, calls, turn.reply, turn.ended_by)


def test_single_turn_golden_files_have_no_turns() -> None:
    # The bundled traces of every format: only those with several user messages (two ADK
    # conversations, tau-bench's published runs) have turns.
    for path in sorted(p for p in GOLDEN.rglob("*") if p.suffix in TRACE_FILES):
        name = str(path.relative_to(GOLDEN))
        runs = list(detect(path).read(path, None))
        with_turns = [run for run in runs if run.turns is not None]
        assert len(with_turns) == MULTI_TURN.get(name, 0), name


def test_written_conversations_read_back_equal(tmp_path: Path) -> None:
    runs = [read_chat(tmp_path, chat()), *tau_bench_results.read(PUBLISHED)]
    out = tmp_path / "runs.jsonl"
    assert write_runs(runs, out) == 4
    records = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert all("turns" in r and "steps" not in r for r in records)  # steps once, in the turns
    assert list(load_runs(out).items) == runs


# --- property: turns cut the path, never change it --------------------------------------

USERS = st.one_of(st.none(), st.just("  "), st.sampled_from(["hi", "refund", "thanks"]))
ITEMS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), USERS),
        st.tuples(st.just("say"), st.sampled_from(["ok", "done", ""])),
        st.tuples(st.just("call"), st.sampled_from(["a", "b", "c"])),
    ),
    max_size=14,
)


def messages_of(items: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [say("system", "sys")]
    for k, (kind, value) in enumerate(items):
        if kind == "user":
            out.append(say("user", value))
        elif kind == "say":
            out.append(say("assistant", value))
        else:
            out += [call(value, f"c{k}"), tool(f"c{k}", str(k))]
    return out


@settings(max_examples=200, deadline=None)
@given(ITEMS)
def test_turns_partition_the_flat_path(items: list[tuple[str, Any]]) -> None:
    messages = messages_of(items)
    with tempfile.TemporaryDirectory() as folder:
        run = read_chat(Path(folder), messages)
        # The path before turns were kept: user messages never gave a step or an answer, so
        # the conversation without them reads to that path.
        flat = read_chat(Path(folder), [m for m in messages if m["role"] != "user"])
    assert flat.turns is None
    assert (run.steps, run.answer) == (flat.steps, flat.answer)
    users = [v for kind, v in items if kind == "user" and v and v.strip()]
    if len(users) < 2:
        assert run.turns is None
        return
    assert run.turns is not None and [t.user for t in run.turns] == users
    assert tuple(s for t in run.turns for s in t.steps) == run.steps
    # Each turn's reply: the last assistant text after its user message.
    replies: list[str | None] = []
    for kind, value in items:
        if kind == "user" and value and value.strip():
            replies.append(None)
        elif kind == "say" and value and replies:
            replies[-1] = value
    assert [t.reply for t in run.turns] == replies
