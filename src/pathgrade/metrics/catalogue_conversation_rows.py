"""The conversation layer's rows of the metric catalogue
(:mod:`pathgrade.metrics.catalogue_rows`): runs with ``turns``, or whose case has a user goal
(docs/conversations.md; the definitions are :mod:`pathgrade.metrics.conversation.definition`
and :mod:`pathgrade.metrics.conversation.turns`)."""

from __future__ import annotations

from pathgrade.metrics.catalogue_row import H, L, MetricRow, N

_NO_TURN_REFS = "the case has no turn_references"
_NO_ERROR = "no call failed"
CONVERSATION = (
    MetricRow("turns", "conversation", N, "count",
            "the conversation's turns (a user message, the agent's calls, its reply)",
            unit="turns"),
    MetricRow("user_outcome", "conversation", H, "binary",
            "each required_info text is in a reply (any case) and final_state has no"
            " difference from expected_state (if both)",
            "the goal has no required_info and no expected_state/final_state pair"),
    MetricRow("conversation_success", "conversation", H, "binary",
            "user_outcome when defined, else goal_success (pass^k over trials summarises it)",
            "both undefined"),
    MetricRow("turns_to_success", "conversation", L, "count",
            "turns a successful conversation took", "the conversation did not succeed",
            "turns"),
    MetricRow("first_error_turn", "conversation", N, "count",
            "the turn (from 1) of the first failed call", _NO_ERROR, "turns"),
    MetricRow("error_recovered", "conversation", H, "binary",
            "after the first failed call, a call of the same tool succeeded (that turn or"
            " later)", _NO_ERROR),
    MetricRow("turns_to_recovery", "conversation", L, "count",
            "the recovering call's turn minus first_error_turn (0: the same turn)",
            _NO_ERROR + ", or it was never recovered", "turns"),
    MetricRow("reasked_facts", "conversation", L, "count",
            "replies asking ('?' and the fact's term) for an ask_once fact whose value a user"
            " message of that turn or before gave",
            "the case has no user goal with facts", "asks"),
    MetricRow("premature_end", "conversation", L, "binary",
            "the agent ended the conversation (ended_by agent) without conversation_success",
            "no ended_by recorded, or conversation_success undefined"),
    MetricRow("escalation_correct", "conversation", H, "binary",
            "a transfer_tools call happened exactly when the user goal says escalate",
            "the user goal does not say escalate"),
    MetricRow("turn_path_score", "conversation", H, "score",
            "mean over turns of the path_score of turn i's calls against turn_references[i]"
            " (missing turn: no calls)",
            _NO_TURN_REFS, "points", bounds=(0.0, 100.0)),
    MetricRow("turns_on_path", "conversation", H, "proportion",
            "turns whose path_score is 100 / turns scored", _NO_TURN_REFS),
    MetricRow("first_off_path_turn", "conversation", N, "count",
            "the first turn (from 1) whose path_score is below 100",
            _NO_TURN_REFS + ", or every turn is on its path", "turns"),
)  # fmt: skip
