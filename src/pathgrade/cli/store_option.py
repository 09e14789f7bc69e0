"""``--store``: the run store folder, on every command that reads or writes stored runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store", help="Run store folder (default: $PATHGRADE_STORE, else .pathgrade/runs)."
    ),
]
