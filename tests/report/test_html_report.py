"""``--format html``: one self-contained page, root causes first, a timeline picture per id, input escaped.

The page is parsed with the standard library's HTML parser: these tests are the fast tier; the
same page in a real browser is ``tests/browser``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.report.hostile import case_with_hostile_line

ROOT = Path(__file__).resolve().parents[2]
CASES = [str(ROOT / "fixtures" / "cases" / "seed-two-instances" / "input"),
         str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input")]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT)


class Page(HTMLParser):
    """Elements with their attributes, in document order, and the text of each id'd element's subtree."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text_parts: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text_parts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def ids(self, tag: str, cls: str = "") -> list[str]:
        return [a.get("id", "") for t, a in self.elements if t == tag and cls in a.get("class", "").split() + [""]]


@pytest.fixture(scope="module")
def bundled(tmp_path_factory) -> tuple[str, dict]:
    out = tmp_path_factory.mktemp("html") / "report.html"
    proc = run_cli("analyze", "--fail-on", "never", "--format", "html", "-o", str(out), *CASES)
    assert proc.returncode == 0, proc.stderr
    js = run_cli("analyze", "--fail-on", "never", "--format", "json", *CASES)
    return out.read_text(encoding="utf-8"), json.loads(js.stdout)


def test_the_page_has_summary_timelines_findings_and_config_changes(bundled) -> None:
    page_text, report = bundled
    page = Page(page_text)
    sections = page.ids("section")
    assert sections == ["summary", "timelines", "findings", "info", "config-changes", "inputs"]
    assert "46 finding(s)" in page.text and "8 error" in page.text
    # Every error and warning is an article with its full id, root causes first as the summary lists them.
    ranked = [f for f in report["findings"] if f["severity"] != "info"]
    articles = page.ids("article", "finding")
    assert sorted(articles) == sorted("finding-" + f["id"].replace("#", "-") for f in ranked)
    roots = [a for a in articles if a in {"finding-" + f["id"].replace("#", "-") for f in ranked if f["root_cause"]}]
    assert articles[:len(roots)] == roots
    assert articles[0] == "finding-EXP001-1" and "finding-MIS001-1" in articles
    # Evidence lines as file:line: text, the fix as a properties line, the runbook commands.
    fen = next(f for f in report["findings"] if f["id"] == "FEN002#1")
    for ev in fen["evidence"]:
        assert f"{ev['file']}:{ev['line']}: {ev['text']}" in page.text
    assert "transaction.timeout.ms=80000" in page.text
    tmo = next(f for f in report["findings"] if f["id"] == "TMO001#1")
    assert tmo["runbook"] and all(step in page.text for step in tmo["runbook"])
    # The info findings are there too, one row each.
    assert len([1 for t, a in page.elements if t == "tr" and a.get("id", "").startswith("finding-EXP003-")]) == 36


def test_a_timeline_picture_per_id_the_findings_are_about(bundled) -> None:
    page_text, _ = bundled
    page = Page(page_text)
    figures = [a["id"] for t, a in page.elements if t == "figure"]
    # Root causes first; the two sequence findings are about idempotent producers with no timeline events.
    keys = ["report-generator", "producer-0", "order-enricher", "settlement-batch", "billing-ledger", "ledger-writer",
            "invoice-exporter"]
    assert figures == [f"timeline-{i}-{k}" for i, k in enumerate(keys)]
    svgs = re.findall(r"<svg\b.*?</svg>", page_text, flags=re.S)
    assert len(svgs) == len(keys)
    for svg in svgs:
        width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
        assert width > 500 and height > 100
    order = svgs[keys.index("order-enricher")]
    for label in ("coordinator", "orders-0", "orders-1", "orders-2", "FEN002#1", "CompleteAbort", "ABORT marker", "+7d 0h"):
        assert label in order, label
    assert "No picture for producer 4006, producer 4007: the inputs hold no" in page.text
    # The finding links to its picture.
    assert 'href="#timeline-2-order-enricher"' in page_text


def test_the_page_is_self_contained(bundled) -> None:
    page_text, _ = bundled
    page = Page(page_text)
    for tag, attrs in page.elements:
        assert tag not in ("script", "link", "iframe", "object", "embed", "img"), tag
        for name in ("src", "href", "xlink:href", "action"):
            value = attrs.get(name, "")
            assert not value or value.startswith("#"), (tag, name, value)
    assert "@import" not in page_text
    assert re.findall(r"url\(([^)]*)\)", page_text) and all(ref.startswith("#") for ref in re.findall(r"url\(([^)]*)\)", page_text))
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//", page_text, flags=re.I)
    assert "default-src 'none'" in page_text  # nothing could be fetched even if a string escaped escaping


def test_hostile_input_is_text(tmp_path: Path) -> None:
    """A log line carrying markup, and a transactional.id that is markup, stay text in the page and the SVG."""
    case_with_hostile_line(tmp_path, "<script>alert('x')</script> $\\frac{a}{b}$ <img src=https://example.invalid/x.png>")
    out = tmp_path / "report.html"
    proc = run_cli("analyze", "--fail-on", "never", "--format", "html", "-o", str(out), str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    page = Page(text)
    assert not [t for t, _ in page.elements if t in ("script", "img")]
    assert "<script>alert('x')</script>" in page.text  # shown as itself
    assert "&lt;script&gt;" in text and "<script>" not in text
    assert text.count("<svg") == 1 and "client error" in text


def test_hostile_names_in_a_picture_are_escaped() -> None:
    """Lane and key names come from the inputs: the SVG stays well-formed XML with them as text."""
    import xml.etree.ElementTree as ET

    from kafkadiag.report.timeline_svg import render_timeline_svg
    from kafkadiag.report.timeline_model import Moment, Timeline, TimelineEvent

    evil = "</svg><script>alert(1)</script>$x^2$&amp;\x1b[31m"
    events = [
        TimelineEvent(1_000, "coordinator", "Ongoing", "coordinator", "x", "f:1"),
        TimelineEvent(1_100, "data", "first-write", f"{evil}-0", "x", "f:2"),
        TimelineEvent(1_900, "data", "ABORT", f"{evil}-0", "x", "f:3"),
        TimelineEvent(2_000, "coordinator", "CompleteAbort", "coordinator", "x", "f:4"),
        TimelineEvent(3_000, "client", "PRODUCER_FENCED", "client", evil, "f:5"),
    ]
    svg = render_timeline_svg(Timeline(evil, events, 0, [Moment(evil, "error", evil, 1_000, 2_000)]), "t")
    root = ET.fromstring(svg)  # well-formed
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    texts = "".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))
    assert "<script>alert(1)</script>" in texts and "$x^2$" in texts and "\\x1b[31m" in texts


def test_without_matplotlib_html_is_one_line_and_nothing_is_read() -> None:
    code = ("import sys; sys.modules['matplotlib'] = None; "
            f"sys.argv = ['kafkadiag', 'analyze', '--format', 'html', {CASES[0]!r}]; "
            "from kafkadiag.entry import main; main()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == ["kafkadiag: --format html needs matplotlib, which cannot be imported here: "
                                        "pip install 'matplotlib>=3.8'"]


def test_text_and_json_reports_do_not_load_the_html_libraries() -> None:
    code = ("import sys, io, contextlib; "
            f"sys.argv = ['kafkadiag', 'analyze', '--fail-on', 'never', {CASES[0]!r}]; "
            "from kafkadiag.cli import _run; "
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf): _run()\n"
            "print([m for m in ('matplotlib', 'jinja2', 'kafkadiag.report.html') if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_many_ids_are_capped_and_the_rest_named() -> None:
    from kafkadiag.report.timeline_model import MAX_TIMELINES, timelines_for
    import pandas as pd

    keys = [f"tx-{i:03d}" for i in range(MAX_TIMELINES + 5)]
    rows = [{"key": k, "time": 1000 + i, "source": "coordinator", "kind": "Ongoing", "transactional_id": k,
             "producer_id": i, "producer_epoch": 0, "topic": "", "partition": -1, "text": "t", "file_id": 0, "line": i + 1}
            for i, k in enumerate(keys)]
    got = timelines_for(keys, pd.DataFrame(rows), ["f"], [])
    assert [t.key for t in got.items] == keys[:MAX_TIMELINES] and got.left_out == keys[MAX_TIMELINES:]

    from kafkadiag.report.html import render_html
    from kafkadiag.report.model import Report
    import io

    report = Report("analyze", [])
    report.timelines = got
    out = io.StringIO()
    render_html(report, out)
    assert out.getvalue().count("<svg") == MAX_TIMELINES
    assert "5 more id(s) with findings have no picture here" in out.getvalue() and "tx-016" in out.getvalue()
