"""Each judge HTTP attempt is bounded in wall time and in decoded body size.

Against servers on 127.0.0.1 (``limits_servers``) that drip the body or the headers a byte
at a time (each read is quick, so the per-read ``timeout`` never fires) and that send gzip
bombs (a small body that inflates to 256 MiB, or through two nested codings to 1 GiB). Each
test asserts the kind of failure; the elapsed times are a sanity bound only (under ten times
the deadline: a deadline that holds must end the attempt near it, whatever the server does).
"""

from __future__ import annotations

import asyncio
import gzip
import random
import resource
import time
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.judge.client import JudgeClient
from pathgrade.judge.config import JudgeConfig
from pathgrade.judge.http import AttemptError, BoundedDecoder
from pathgrade.judge.outcome import JudgeOutcome
from pathgrade.judge.prompts import entailment_prompt
from pathgrade.judge.verdicts import check_entailment

from .limits_servers import (
    JSON_REPLY,
    drip_body,
    drip_headers,
    encoded_reply,
    gzip_bytes,
    serving,
)

MIB = 1 << 20
DEADLINE = 0.5


@pytest.fixture(scope="module")
def bombs() -> Iterator[dict[str, bytes]]:
    single = gzip_bytes(256 * MIB)  # ~260 KB on the wire
    nested = gzip.compress(gzip_bytes(1024 * MIB, level=1))  # ~13 KB; 4.7 MB; 1 GiB
    yield {"single": single, "nested": nested}


def judge(url: str, **settings: Any) -> tuple[JudgeOutcome[bool], float]:
    given: dict[str, Any] = {"timeout": 3.0, "deadline": DEADLINE, "max_retries": 0, **settings}
    config = JudgeConfig(
        base_url=url, model="m", api_key="sk-test-limits-0123456789", backoff_base=0.001, **given
    )

    async def go() -> JudgeOutcome[bool]:
        async def no_wait(delay: float) -> None:
            await asyncio.sleep(0)

        async with JudgeClient(config, rng=random.Random(0), sleep=no_wait) as client:
            prompt = entailment_prompt(claim="c", source="s")
            return await client.judge(prompt, check_entailment, item="c/r/0:citation[0]")

    start = time.monotonic()
    outcome = asyncio.run(go())
    return outcome, time.monotonic() - start


@pytest.mark.parametrize("behaviour", [drip_body, drip_headers], ids=["body", "headers"])
def test_a_dripping_server_meets_the_deadline(behaviour: Any) -> None:
    with serving(behaviour) as url:
        outcome, elapsed = judge(url)
    assert not outcome.ok
    assert [c.error_kind for c in outcome.calls] == ["deadline"]
    assert outcome.error == f"deadline of {DEADLINE:g} s exceeded (after 1 attempt(s))"
    assert elapsed < 10 * DEADLINE  # sanity bound of a deadline (see the module docstring)


def test_a_deadline_is_retried_like_a_timeout() -> None:
    with serving(drip_body) as url:
        outcome, _ = judge(url, max_retries=1)
    assert [c.error_kind for c in outcome.calls] == ["deadline", "deadline"]
    assert outcome.error is not None and outcome.error.endswith("(after 2 attempt(s))")


@pytest.mark.parametrize(
    ("bomb", "encoding"), [("single", "gzip"), ("nested", "gzip, gzip")], ids=["gzip", "nested"]
)
def test_a_gzip_bomb_is_cut_at_the_size_cap(
    bombs: dict[str, bytes], bomb: str, encoding: str
) -> None:
    body = bombs[bomb]
    assert len(body) < MIB  # small on the wire: only the decoded size is over the cap
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    with serving(encoded_reply(body, encoding)) as url:
        outcome, _ = judge(url, max_response_bytes=MIB, max_retries=2)
    growth_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert [c.error_kind for c in outcome.calls] == ["too_large"]  # not retried
    assert outcome.error == "response body over the 1,048,576-byte limit (after 1 attempt(s))"
    assert growth_mib < 200  # inflating it whole needs 256 MiB (1 GiB nested)


def test_a_declared_length_over_the_cap_fails_before_reading() -> None:
    with serving(encoded_reply(b"x" * (MIB + 1), "identity")) as url:
        outcome, _ = judge(url, max_response_bytes=MIB)
    assert [c.error_kind for c in outcome.calls] == ["too_large"]


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "identity"])
def test_an_encoded_reply_under_the_cap_is_read(encoding: str) -> None:
    coded = {"gzip": gzip.compress, "deflate": zlib.compress, "identity": bytes}[encoding]
    with serving(encoded_reply(coded(JSON_REPLY), encoding)) as url:
        outcome, _ = judge(url)
    assert outcome.ok and outcome.value is True


def test_an_unsupported_or_corrupt_encoding_is_a_judge_error() -> None:
    with serving(encoded_reply(b"abc", "br")) as url:
        outcome, _ = judge(url, max_retries=1)
    assert [c.error_kind for c in outcome.calls] == ["encoding"]  # not retried
    with serving(encoded_reply(b"not gzip at all", "gzip")) as url:
        outcome, _ = judge(url)
    assert [c.error_kind for c in outcome.calls] == ["encoding"]


def _encode(data: bytes, coding: str) -> bytes:
    if coding == "gzip":
        return gzip.compress(data)
    if coding == "deflate":
        return zlib.compress(data)
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)  # "deflate" sent raw
    return raw.compress(data) + raw.flush()


@settings(max_examples=150, deadline=None)
@given(
    data=st.binary(max_size=4000),
    codings=st.lists(st.sampled_from(["gzip", "deflate", "raw"]), max_size=3),
    cuts=st.lists(st.integers(1, 700), max_size=8),
    slack=st.integers(-50, 50),
)
def test_bounded_decoder_equals_zlib_under_the_cap_and_refuses_over_it(
    data: bytes, codings: list[str], cuts: list[int], slack: int
) -> None:
    stages = [data]
    for coding in codings:
        stages.append(_encode(stages[-1], coding))
    wire = stages[-1]
    header = ", ".join("deflate" if c == "raw" else c for c in codings)
    biggest = max(len(s) for s in stages[:-1]) if codings else len(data)
    cap = max(1, biggest + slack)
    decoder = BoundedDecoder(header)
    out, at = bytearray(), 0
    try:
        for cut in [*cuts, len(wire)]:  # random chunking of the raw body
            out += decoder.feed(wire[at : at + cut], cap)
            at += cut
            if at >= len(wire):
                break
    except AttemptError as error:
        assert error.kind == "too_large"
        assert cap < biggest  # refused only when some stage is over the cap
        return
    if codings:
        assert cap >= biggest
    assert bytes(out) == data  # the differential: zlib's own encoding, decoded back


def test_bounded_decoder_rejects_unknown_codings() -> None:
    with pytest.raises(AttemptError) as error:
        BoundedDecoder("gzip, zstd")
    assert error.value.kind == "encoding"
    assert BoundedDecoder("identity").feed(b"abc", 3) == b"abc"
