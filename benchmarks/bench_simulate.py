"""The simulator's own overhead per turn: ``pathgrade.simulate`` against trivial agents and a
local stub endpoint.

Run: ``python benchmarks/bench_simulate.py`` (``--quick``: fewer conversations).

Rows:

* **callable, no tools**: a scripted user and an agent that returns ``"ok"``: the whole time
  per turn is the simulator's (threads, turn and run models, the run's validation).
* **callable, 1 fixture call**: the same agent making one tool call per turn, answered from
  frozen fixtures (the replay harness's matching).
* **endpoint, stub**: the endpoint agent against a chat-completions stub on 127.0.0.1
  (``http.server`` in a thread, one model call per turn). The stub's own time is measured as
  direct ``EndpointClient.complete`` round trips with the same body size; overhead = per-turn
  time minus that.

Each row is the best of ``--repeat`` runs, with concurrency 1 (overhead, not throughput) and
``--no-timing`` output. There is no peer tool to compare with: the figure to watch is
overhead per turn against the model's own latency (hundreds of milliseconds).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pathgrade.core.types import Case, Run, Step
from pathgrade.openai_compat import RetryPolicy
from pathgrade.replay import EndpointClient, EndpointConfig
from pathgrade.simulate import EndpointTurnAgent, simulate

TURNS = 10
REPLY = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
}


def _cases(n: int) -> list[Case]:
    script = tuple(f"message {i} about order W1" for i in range(TURNS))
    goal = {"instructions": "You want order W1 refunded.", "script": script}
    return [Case(case_id=f"c{i}", user=goal) for i in range(n)]


def _fixtures(n: int) -> list[Run]:
    step = Step(tool="lookup", arguments={"order_id": "W1"}, output={"status": "delivered"})
    return [Run(case_id=f"c{i}", steps=(step,)) for i in range(n)]


def _plain(messages: list[dict[str, Any]], tools: Any) -> str:
    return "ok"


def _one_call(messages: list[dict[str, Any]], tools: Any) -> str:
    tools.call("lookup", {"order_id": "W1"})
    return "ok"


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else each reply waits ~40 ms for a delayed ACK

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        payload = json.dumps(REPLY).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def _stub() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _row(label: str, seconds: float, turns: int, stub_us: float | None = None) -> None:
    per_turn = seconds / turns * 1e6
    extra = ""
    if stub_us is not None:
        extra = f"   stub {stub_us:8.1f} us   overhead {per_turn - stub_us:8.1f} us/turn"
    print(f"{label:<28} {turns:>7,} turns {seconds:8.3f} s {per_turn:9.1f} us/turn{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer conversations")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    n = 50 if args.quick else 300
    cases, fixtures = _cases(n), _fixtures(n)
    print(f"pathgrade simulate: {n} conversations x {TURNS} turns, scripted user, concurrency 1")

    def run(agent: Any, **options: Any) -> list[Run]:
        return simulate(cases, agent, concurrency=1, timing=False, **options)

    _row("callable, no tools", _best(lambda: run(_plain), args.repeat), n * TURNS)
    seconds = _best(lambda: run(_one_call, fixtures=fixtures), args.repeat)
    _row("callable, 1 fixture call", seconds, n * TURNS)

    m = max(5, n // 10)
    with _stub() as url:
        config = EndpointConfig(url, "bench-model", retry=RetryPolicy(0))
        with EndpointClient(config) as client:
            # the mean request of a 10-turn conversation: 5 user messages and 4 replies
            history = [
                {"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i} W1"}
                for i in range(9)
            ]
            for _ in range(20):  # warm the connection
                client.complete(history, ())
            calls = m * TURNS
            direct = _best(
                lambda: [client.complete(history, ()) for _ in range(calls)], args.repeat
            )
            agent = EndpointTurnAgent(client)
            seconds = _best(
                lambda: simulate(cases[:m], agent, concurrency=1, timing=False), args.repeat
            )
    _row("endpoint, stub", seconds, m * TURNS, direct / calls * 1e6)


if __name__ == "__main__":
    main()
