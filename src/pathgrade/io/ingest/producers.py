"""What each trace producer does differently from the conventions it follows: one table.

The span readers (:mod:`.openinference`, :mod:`.otel_genai`) read every span by the
conventions (OpenInference kinds, OpenTelemetry GenAI operations); a producer whose spans
depart from them gets one row here, found by its instrumentation **scope** name
(``Span.scope``, OTLP ``scopeSpans[].scope.name``), not a reader of its own:

======================================  ===================================================
scope (prefix)                          departs by
======================================  ===================================================
``openinference.instrumentation.        ``final_answer`` is a tool span like any other: not
smolagents``                            a step (the run's answer is the agent's output)
``openinference.instrumentation.dspy``  ``finish`` (ReAct's terminal tool) is not a step;
                                        tool spans carry no ``tool.name``: the span name
                                        ``<tool>.__call__`` / ``<tool>.acall`` gives it
``openinference.instrumentation.        a CHAIN's output is a workflow event repr
llama_index``                           (``StopEvent(...)``), not an answer: the answer is
                                        the last model output
======================================  ===================================================

Rules that hold for every producer (hand-offs named ``transfer_to_<agent>``, wrapped
arguments and results, nested retrievers) are in the readers and :mod:`.call_values`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOT_IN_NAME = re.compile(r"[^a-zA-Z0-9_]")


@dataclass(frozen=True)
class Producer:
    """One producer's departures from its conventions (module docstring)."""

    scope: str
    #: Tools that end the run with its answer: structure, not steps.
    answer_tools: frozenset[str] = frozenset()
    #: Suffixes of a tool span's name after the tool's name (when no attribute names it).
    name_suffixes: tuple[str, ...] = ()
    #: Whether a CHAIN span's output text can be the run's answer.
    chain_answers: bool = True


#: The table (module docstring).
PRODUCERS: tuple[Producer, ...] = (
    Producer("openinference.instrumentation.smolagents", answer_tools=frozenset({"final_answer"})),
    Producer(
        "openinference.instrumentation.dspy",
        answer_tools=frozenset({"finish"}),
        name_suffixes=(".__call__", ".acall"),
    ),
    Producer("openinference.instrumentation.llama_index", chain_answers=False),
)
#: The conventions alone.
CONVENTIONS = Producer("")


def producer_of(scope: str) -> Producer:
    """The row whose scope prefixes ``scope`` (:data:`CONVENTIONS` when none does)."""
    for row in PRODUCERS:
        if scope.startswith(row.scope):
            return row
    return CONVENTIONS


def handoff_name(agent: str) -> str:
    """The tool name of a hand-off to ``agent`` by the common convention (OpenAI Agents SDK,
    AutoGen, CrewAI): ``transfer_to_<agent>``, lower case, characters other than letters,
    digits and ``_`` as ``_``."""
    return _NOT_IN_NAME.sub("_", f"transfer_to_{agent}").lower()
