"""A ``score --agent`` save's manifest config hash is scoped to the agent, as its records'."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgrade import Case, Run, score
from pathgrade.core.config import ScoringConfig
from pathgrade.core.errors import InputError
from pathgrade.core.provenance import short_hash
from pathgrade.core.record_provenance import config_hash, sha256_of
from pathgrade.store import RunStore, save_scored
from pathgrade.store.save import scoped_config_hash

CASES = [Case(case_id="c", reference=["search", "refund"])]
RUNS = [
    Run(
        case_id="c",
        steps=[
            {"tool": "search", "metadata": {"agent": "billing"}},
            {"tool": "refund", "metadata": {"agent": "billing"}},
        ],
    )
]


def _save(store: RunStore, name: str, agent: str | None) -> tuple[str | None, str | None]:
    config = ScoringConfig()
    result = score(CASES, RUNS, config, agent=agent)
    save_scored(result, name=name, runs=RUNS, cases={"c": CASES[0]}, config=config, store=store)
    stored = store.load(name)
    return stored.manifest.config_hash, stored.records[0]["provenance"]["config"]


def test_the_manifest_hash_is_the_scope_s_and_shortens_to_the_records(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "store")
    whole, whole_record = _save(store, "whole", None)
    scoped, scoped_record = _save(store, "billing", "billing")
    full = config_hash(ScoringConfig())
    assert whole == full and short_hash(whole) == whole_record
    # scoped: sha256 of "<short config hash>\nagent=billing", whose short form the records give
    assert scoped == sha256_of(f"{short_hash(full)}\nagent=billing") != whole
    assert short_hash(scoped) == scoped_record
    assert scoped_config_hash(ScoringConfig(), "other") != scoped


def test_compare_of_stored_runs_refuses_mixed_scopes(tmp_path: Path) -> None:
    import pathgrade

    store = RunStore(tmp_path / "store")
    _save(store, "whole", None)
    _save(store, "billing", "billing")
    with pytest.raises(InputError, match=r"agent: whole run vs billing"):
        pathgrade.compare("whole", "billing", store=store.root, resamples=100)
