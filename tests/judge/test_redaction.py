"""The judge API key (and base-URL credentials) reach nothing that is written or printed.

The stub echoes a realistic key (``sk-proj-`` + 48 characters with ``/`` and ``+``) in every
field a reply has: the verdict (claim text and reason, the ``/`` JSON-escaped as ``\\/``
inside the content), ``model``, ``system_fingerprint``, and an error body (JSON-escaped and
URL-encoded). Every artefact of ``pathgrade judge`` (judged runs, cache entries, ``--record``,
``--log``) and every printed line (text and ``--json``) is searched for the key in each form.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgrade.cli.main import main
from pathgrade.core.types import Run
from pathgrade.io.cases import load_runs
from pathgrade.judge.files import write_jsonl, write_runs
from pathgrade.judge.redact import MASK, Redactor, public_url, url_secrets
from pathgrade.replay import EndpointConfig

from ..conftest import Reply, completion
from .test_judge_cli import DATA

_ALPHABET = string.ascii_letters + string.digits + "/+"
#: A realistic key: 48 random characters, at least one '/' and one '+'.
KEY = "sk-proj-" + "".join(random.Random(7).choices(_ALPHABET, k=46)) + "/+"
PASSWORD = "url-pass-" + "".join(random.Random(8).choices(string.ascii_letters, k=16))


def forms(secret: str) -> list[str]:
    """Every form of ``secret`` that must not appear anywhere."""
    return [
        secret,
        json.dumps(secret)[1:-1],
        secret.replace("/", "\\/"),
        json.dumps(secret.replace("/", "\\/"))[1:-1],  # an escaped echo inside JSON text
        quote(secret, safe=""),
        quote_plus(secret),
    ]


def echo(verdict: dict[str, Any], status: int = 200) -> Reply:
    """A raw reply body echoing the key everywhere, ``/`` escaped as JSON allows."""
    if status != 200:
        error = {"error": f"bad key {KEY}", "url": f"https://x/?key={quote(KEY, safe='')}"}
        return Reply(status=status, body=json.dumps(error).replace("/", "\\/"))
    content = json.dumps({**verdict, "reason": f"as {KEY} says"}).replace("/", "\\/")
    doc = completion(content)
    doc["model"], doc["system_fingerprint"] = KEY, f"fp_{KEY}"
    return Reply(body=json.dumps(doc).replace("/", "\\/"))


def script(stub: Any) -> None:
    claims = [{"text": f"svc-2 ran out of memory ({KEY}).", "label": "supported", "key": True}]
    stub.on("", echo({"claims": claims}), system="Split the ANSWER")
    stub.on("", echo({"label": "supported"}), system="Label the CLAIM")
    stub.on("", echo({"entails": True}), system="You check citations")
    stub.on("", echo({}, status=503), echo({"score": 2}), system="You grade one dimension")
    stub.on("", echo({"reached": True}), system="reached the goal")


def test_an_echoed_key_reaches_no_file_and_no_output(
    stub: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    script(stub)
    monkeypatch.setenv("PATHGRADE_JUDGE_API_KEY", KEY)
    base_url = stub.url.replace("http://", f"http://judge-user:{PASSWORD}@")
    common = [
        "judge", str(DATA / "cases.jsonl"), str(DATA / "runs.jsonl"),
        "--chunks", str(DATA / "chunks.jsonl"), "--label-claims", "--backoff", "0.001",
        "--base-url", base_url, "--model", "m",
    ]  # fmt: skip
    outputs: list[str] = []
    first = [*common, "-o", str(tmp_path / "judged.jsonl"), "--cache", str(tmp_path / "cache")]
    first += ["--record", str(tmp_path / "rec.jsonl"), "--log", str(tmp_path / "calls.jsonl")]
    assert main([*first, "--json"]) == 0
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    doc = json.loads(captured.out)
    assert doc["judge_errors"] == 0 and doc["judged"] == doc["items"] > 0  # still parsed
    assert doc["judge"]["base_url"] == stub.url  # printed without the credentials
    assert doc["calls"]["models"] == [MASK] and doc["calls"]["fingerprints"] == [f"fp_{MASK}"]
    text_run = [*common, "-o", str(tmp_path / "judged2.jsonl")]
    assert main(text_run) == 0  # the text summary, live again (no cache)
    captured = capsys.readouterr()
    outputs += [captured.out, captured.err]
    assert f"at {stub.url} " in captured.out

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len([p for p in files if p.parent.parent.name == "cache"]) > 0
    for path in files:
        data = path.read_text("utf-8")
        for secret in (KEY, PASSWORD):
            for form in forms(secret):
                assert form not in data, (path.name, form)
    for text in outputs:
        for secret in (KEY, PASSWORD):
            for form in forms(secret):
                assert form not in text
    judged = (tmp_path / "judged.jsonl").read_text("utf-8")
    assert f"ran out of memory ({MASK})" in judged and f"as {MASK} says" in judged
    log = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    errors = [c["error"] for c in log if c["status"] == 503]
    assert errors and all("bad key ***" in e and "key=***" in e for e in errors)


def test_redactor_forms_by_hand() -> None:
    redact = Redactor([KEY])
    for form in forms(KEY):
        assert redact(f"<{form}>") == f"<{MASK}>", form
    # \u escapes in either case, and a percent-encoding in lower case
    mixed = KEY[:2] + "\\u002D" + KEY[3:].replace("+", "\\u002b")
    assert redact(mixed) == MASK
    assert redact(quote(KEY, safe="").replace("%2F", "%2f")) == MASK
    assert redact(KEY.encode()) == MASK.encode()
    assert redact({KEY: [KEY, (KEY, 1)]}) == {MASK: [MASK, (MASK, 1)]}
    assert redact("no secret here") == "no secret here"
    assert Redactor([None, ""])(KEY) == KEY  # no secret: unchanged
    assert KEY not in repr(redact)


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="*<>"),
        min_size=1,
    ),
    escape_slash=st.booleans(),
)
def test_redacted_text_never_holds_the_secret_in_any_form(secret: str, escape_slash: bool) -> None:
    redact = Redactor([secret])
    encoded = json.dumps(secret, ensure_ascii=True)[1:-1]
    if escape_slash:
        encoded = encoded.replace("/", "\\/")
    double = json.dumps(json.dumps(secret, ensure_ascii=False)[1:-1])[1:-1]
    for form in (secret, encoded, double, quote(secret, safe="")):
        out = redact(f"<{form}>")
        assert form not in out and secret not in out
        assert out.startswith("<***") and out.endswith(">")  # masked whole, nothing left over
        assert set(out[1:-1]) == {"*"}


def test_url_credentials_are_secrets_and_never_printed() -> None:
    url = f"https://user:{PASSWORD}@judge.example:8443/v1?api_key=abcdefghij&api-version=2"
    assert url_secrets(url) == [PASSWORD, "abcdefghij"]
    assert public_url(url) == "https://judge.example:8443/v1"
    assert url_secrets("https://TOKEN123456@host/v1") == ["TOKEN123456"]
    assert public_url("http://[::1]:8080/v1") == "http://[::1]:8080/v1"
    endpoint = EndpointConfig(url, "m", api_key=KEY)
    for shown in (repr(endpoint), str(endpoint.public())):
        assert PASSWORD not in shown and KEY not in shown


def test_the_writers_redact_what_they_write(tmp_path: Path) -> None:
    redact = Redactor([KEY])
    run = Run(case_id="c", answer=f"the key is {KEY}", metadata={"note": {KEY: KEY}})
    write_runs(tmp_path / "runs.jsonl", [run], redact)
    write_jsonl(tmp_path / "log.jsonl", [{"model": KEY, "error": f"bad {KEY}"}], redact)
    for name in ("runs.jsonl", "log.jsonl"):
        text = (tmp_path / name).read_text("utf-8")
        assert all(form not in text for form in forms(KEY)) and MASK in text
    assert load_runs(tmp_path / "runs.jsonl").items[0].answer == f"the key is {MASK}"
