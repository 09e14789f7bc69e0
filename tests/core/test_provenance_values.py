"""Making provenance: the config hash, the cases hash, variables and each run's record."""

from __future__ import annotations

import hashlib

from pathgrade._version import __version__
from pathgrade.core.config import CompareConfig, ScoringConfig
from pathgrade.core.provenance import SEMANTICS_VERSION, Provenance, common_variables, short_hash
from pathgrade.core.record_provenance import (
    RecordProvenance,
    canonical_json,
    cases_hash,
    config_hash,
    measured,
    variables_of,
)
from pathgrade.core.types import Case


def test_config_hash_is_sha256_of_the_config_without_compare() -> None:
    config = ScoringConfig()
    expected = hashlib.sha256(config.model_dump_json(exclude={"compare"}).encode()).hexdigest()
    assert config_hash(config) == f"sha256:{expected}"
    # [compare] changes no score: it does not enter the hash.
    primary = ScoringConfig(compare=CompareConfig(primary=("tool_f1",)))
    assert config_hash(primary) == config_hash(config)
    # a scoring change does
    writes = ScoringConfig.model_validate({"tool_kinds": {"refund": "write"}})
    assert config_hash(writes) != config_hash(config)


def test_cases_hash_is_each_cases_json_in_case_id_order() -> None:
    a = Case(case_id="a", reference=["x:1"])
    b = Case(case_id="b", reference=["y:2"], metadata={"k": 1, "j": 2})
    assert cases_hash([a, b]) == cases_hash([b, a])  # the order given does not matter
    # a case without references_by_agent is dumped without it (hashes kept across versions)
    dump = {"exclude": {"references_by_agent"}}
    body = f"{a.model_dump_json(**dump)}\n{b.model_dump_json(**dump)}\n".encode()
    assert cases_hash([b, a]) == "sha256:" + hashlib.sha256(body).hexdigest()
    changed = Case(case_id="b", reference=["y:3"], metadata={"k": 1, "j": 2})
    assert cases_hash([a, changed]) != cases_hash([a, b])  # every field counts
    # canonical: sorted keys, no spaces
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'.encode()


def test_labels_win_over_what_pathgrade_finds() -> None:
    found = {"tool_schema": "sha256:aa", "model": "from-trace", "absent": None}
    assert variables_of({"model": "gpt-x"}, found) == {
        "tool_schema": "sha256:aa",
        "model": "gpt-x",
    }
    assert variables_of() == {}


def test_measured_shortens_both_hashes() -> None:
    config = ScoringConfig()
    full = "sha256:" + "ab" * 32
    value = measured(config, cases=full, variables={"seed": "1"})
    assert value == Provenance(
        SEMANTICS_VERSION,
        short_hash(config_hash(config)),
        "sha256:" + "ab" * 8,
        __version__,
        {"seed": "1"},
    )
    assert value.config is not None and len(value.config) == len("sha256:") + 16


def test_each_run_gets_its_trace_model_unless_a_label_names_one() -> None:
    common = Provenance(2, "sha256:aa", "sha256:cc", "0.1.0", {"seed": "1"})
    per_run = RecordProvenance.of(common, ["m1", None, "m2"])
    assert per_run(0).variables == {"seed": "1", "model": "m1"}
    assert per_run(1) == common  # no model in that trace
    assert per_run(2).variables["model"] == "m2"
    assert per_run.select([2, 0]).models == ["m2", "m1"]
    labelled = Provenance(2, "sha256:aa", "sha256:cc", "0.1.0", {"model": "label"})
    assert RecordProvenance.of(labelled, ["m1", "m2"])(0) == labelled  # the label wins
    assert RecordProvenance.of(common, [None, None]).models == ()  # no run records one


def test_common_variables_keep_what_all_share() -> None:
    a = Provenance(2, variables={"model": "m1", "seed": "1"})
    b = Provenance(2, variables={"model": "m2", "seed": "1"})
    assert common_variables([a, b]) == {"seed": "1"}
    assert common_variables([]) == {}
