"""The options that name the agent under test, shared by ``replay`` and ``simulate``: a Python
callable (``--agent``) or a model behind an OpenAI-compatible endpoint (``--endpoint``,
``--model``, ``--system``), their checks, and the helpers both commands use."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pathgrade.core.errors import InputError

if TYPE_CHECKING:
    from pathgrade.openai_compat import RetryPolicy

__all__ = [
    "AgentOption",
    "EndpointOption",
    "ModelOption",
    "SystemOption",
    "check_agent_choice",
    "read_text",
    "retry_policy",
]

AgentOption = Annotated[
    str | None,
    typer.Option("--agent", help="The agent: 'module:callable' or 'file.py:callable'."),
]
EndpointOption = Annotated[
    str | None,
    typer.Option(
        "--endpoint",
        help="The agent: an OpenAI-compatible base URL ({URL}/chat/completions); the"
        " API key is read from PATHGRADE_AGENT_API_KEY.",
    ),
]
ModelOption = Annotated[str | None, typer.Option("--model", help="Model name sent to --endpoint.")]
SystemOption = Annotated[
    Path | None, typer.Option("--system", help="Text file: the endpoint's system prompt.")
]


def check_agent_choice(
    agent: str | None,
    endpoint: str | None,
    model: str | None,
    tools: Path | None,
    system: Path | None,
) -> None:
    """Exactly one of ``--agent`` and ``--endpoint``; the endpoint's options only with it."""
    if (agent is None) == (endpoint is None):
        raise InputError("give exactly one of --agent and --endpoint", field="--agent")
    if agent is not None:
        given = {"--model": model, "--tools": tools, "--system": system}
        extra = [name for name, value in given.items() if value is not None]
        if extra:
            raise InputError(f"{extra[0]} goes with --endpoint, not --agent", field=extra[0])
    if endpoint is not None and not model:
        raise InputError("--endpoint needs --model", field="--model")


def retry_policy(max_retries: int) -> RetryPolicy:
    """``--max-retries`` as the endpoint client's retry policy."""
    from pathgrade.openai_compat import RetryPolicy

    if max_retries < 0:
        raise InputError(f"must be >= 0, got {max_retries}", field="--max-retries")
    return RetryPolicy(max_retries=max_retries)


def read_text(path: Path, option: str) -> str:
    """The UTF-8 text of ``path`` (``option`` names it in the error)."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", file=str(path), field=option) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file=str(path), field=option) from None
