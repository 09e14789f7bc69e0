"""The report's conversation view (docs/report.md, "Conversation view"): the page data of a
run with turns, nothing for a run without, trace text only ever escaped, and the view drawn
in a real browser (skipped without Playwright or Chromium)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pathgrade.cli.main import main
from pathgrade.core.types import Case, Run
from pathgrade.evaluate import score
from pathgrade.report.html import render_html
from pathgrade.reporting import build_report, load_run
from pathgrade.reporting.conversation import conversation_entry
from pathgrade.store import save_scored

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
LONG = "Your order W1 is refunded. " + "Thank you for your patience. " * 12
CASES = [
    Case.model_validate(
        {
            "case_id": "talk",
            "query": "refund my order",
            "user": {"instructions": "get order W1 refunded", "facts": {"order_id": "W1"}},
            "reference": ["lookup:W1", "refund:W1"],
            "turn_references": [["lookup:W1"], ["refund:W1"]],
            "tool_kinds": {"refund": "write"},
        }
    ),
    Case(case_id="plain", query="where is Z", reference=["lookup:Z"]),
]


def _runs(variant: bool) -> list[Run]:
    second = ["refund:W1"] if variant else []
    talk = Run.model_validate(
        {
            "case_id": "talk",
            "run_id": "r",
            "turns": [
                {
                    "user": f"{SCRIPT} my order is W1",
                    "steps": [{"tool": "lookup", "arguments": ["W1"], "output": IMG}],
                    "reply": "Found it. What is your order id?",
                },
                {"user": IMG, "steps": second, "reply": LONG, "ended_by": "user"},
            ],
        }
    )
    return [talk, Run(case_id="plain", run_id="r", steps=["lookup:Z"], answer="at home")]


@dataclass(frozen=True)
class Pages:
    store: Path
    report: Path


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Pages:
    folder = tmp_path_factory.mktemp("conversation-report")
    store = folder / "store"
    cases = {c.case_id: c for c in CASES}
    for name, variant in (("base", False), ("new", True)):
        runs = _runs(variant)
        save_scored(score(cases, runs), name=name, runs=runs, cases=cases, store=store)
    report = folder / "report.html"
    args = ["report", "new", "--baseline", "base", "-o", str(report), "--store", str(store)]
    assert main([*args, "--resamples", "50"]) == 0
    return Pages(store, report)


def _blob(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="pathgrade-data">(.*?)</script>', html)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def _row(rows: list[dict[str, Any]], case_id: str) -> dict[str, Any]:
    return next(r for r in rows if r["case_id"] == case_id)


def test_page_data_has_the_conversation_of_runs_with_turns_only(pages: Pages) -> None:
    data = build_report(load_run("new", pages.store), resamples=50)
    talk, plain = _row(data.cases, "talk"), _row(data.cases, "plain")
    assert "conversation" not in plain
    conversation = talk["conversation"]
    assert conversation["ended_by"] == "user"
    turns = conversation["turns"]
    assert [t["turn"] for t in turns] == [1, 2]
    assert turns[0]["user"] == f"{SCRIPT} my order is W1" and turns[1]["user"] == IMG
    assert turns[1]["reply"] == LONG
    assert [t["calls"] for t in turns] == [["lookup:W1"], ["refund:W1"]]
    # each call's position among the run's steps: the marks and the trace are keyed by it
    assert [t["steps"] for t in turns] == [[0], [1]]
    assert [t["path_score"] for t in turns] == [100.0, 100.0]
    # the whole page: the same entry in the blob, path_score's number rule with it
    blob = _blob(pages.report.read_text("utf-8"))
    assert _row(blob["cases"], "talk")["conversation"] == conversation
    assert "conversation" not in _row(blob["cases"], "plain")
    assert blob["rules"]["path_score"] == "fixed1"


def test_a_report_without_conversations_has_no_conversation_data(tmp_path: Path) -> None:
    cases = {"plain": CASES[1]}
    runs = [Run(case_id="plain", steps=["lookup:Z"])]
    save_scored(score(cases, runs), name="p", runs=runs, cases=cases, store=tmp_path)
    html = render_html(build_report(load_run("p", tmp_path), resamples=20))
    assert all("conversation" not in row for row in _blob(html)["cases"])
    assert "to-conversation" not in html


def test_trace_text_is_only_ever_escaped(pages: Pages) -> None:
    html = pages.report.read_text("utf-8")
    assert SCRIPT not in html and IMG not in html
    before, _, rest = html.partition('<script type="application/json" id="pathgrade-data">')
    blob, _, after = rest.partition("</script>")
    # the messages reach the page only in the data blob, written so that nothing in it can
    # close the element (the script draws them as text nodes)
    assert "alert(1)" not in before and "alert(1)" not in after
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e my order is W1" in blob
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in blob
    assert "<" not in blob and ">" not in blob


def test_a_changed_conversation_case_links_to_its_conversation_view(pages: Pages) -> None:
    html = pages.report.read_text("utf-8")
    blob = _blob(html)
    row = next(i for i, c in enumerate(blob["cases"]) if c["case_id"] == "talk")
    assert f'href="#case={row}/conversation"' in html
    assert html.count('class="to-conversation"') == 1  # the plain case has no conversation


def test_conversation_entry_copies_and_places_calls_only_when_they_add_up() -> None:
    record = {
        "conversation": {
            "turns": [
                {"turn": 1, "user": "a", "calls": ["x:1", "y:2"], "reply": "b", "notes": []},
                {"turn": 2, "user": "c", "calls": ["z:3"], "reply": "d", "notes": ["n"]},
            ],
            "notes": ["whole"],
            "ended_by": "agent",
        }
    }
    before = json.dumps(record)
    trace = {"steps": [{"tool": "x"}, {"tool": "y"}, {"tool": "z"}]}
    entry = conversation_entry(record, trace)
    assert entry is not None
    assert [t["steps"] for t in entry["turns"]] == [[0, 1], [2]]
    assert entry["notes"] == ["whole"] and entry["ended_by"] == "agent"
    assert json.dumps(record) == before  # the record is not changed
    cut = conversation_entry(record, {"steps": [{"tool": "x"}]})
    assert cut is not None and all("steps" not in t for t in cut["turns"])
    assert conversation_entry({"metrics": {}}, None) is None


# ---- in a real browser ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The system Chromium (the browser tests skip without Playwright or Chromium)."""
    from .chromium import launch  # skips here when either is missing

    yield from launch()


def test_browser_draws_the_conversation_rows_as_text(browser: Any, pages: Pages) -> None:
    from .chromium import open_page, shot

    page = open_page(browser, pages.report)
    p = page.page
    p.fill("#search", "talk")
    assert p.text_content("#count") == "1 of 2 runs"
    p.click("#case-body tr >> nth=0")
    p.wait_for_selector("#conversation-table")
    rows = p.locator("#conversation-table tbody tr")
    assert rows.count() == 2
    assert p.text_content("#conversation-end") == "2 turns; ended by: user"
    users = p.locator("#conversation-table td.user")
    assert users.nth(0).text_content() == f"{SCRIPT} my order is W1"
    assert users.nth(1).text_content() == IMG
    calls = p.locator("#conversation-table td.calls")
    assert "lookup" in (calls.nth(0).text_content() or "")
    assert "refund" in (calls.nth(1).text_content() or "")
    # the long reply is clipped, its whole text one click away
    reply = rows.nth(1).locator("td.reply details")
    assert reply.count() == 1
    assert (reply.locator("summary").text_content() or "").endswith("characters)")
    assert reply.locator("pre").text_content() == LONG
    cells = rows.nth(0).locator("td")
    assert cells.nth(4).text_content() == "100.0"  # path_score, format_value's rule
    assert p.locator("#conversation-table img, #conversation-table script").count() == 0
    assert p.locator("img").count() == 0
    shot(page, "conversation-view.png", "#conversation")
    # from the changed-cases list straight to the conversation view
    p.goto(pages.report.as_uri())
    p.click("a.to-conversation")
    p.wait_for_selector("#case-view:not([hidden]) #conversation")
    assert p.locator("#conversation-table tbody tr").count() == 2
    page.clean()
