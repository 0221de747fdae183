"""``--format markdown``: the timelines of the HTML pictures as compact tables, every input string escaped."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from kafkadiag.report.markdown import render_timeline_tables
from kafkadiag.report.timeline_model import Collapsed, Moment, Timeline, TimelineEvent, Timelines, compact_rows

ROOT = Path(__file__).resolve().parents[2]


def _txn(t0: int, lane: str, marker: str = "COMMIT") -> list[TimelineEvent]:
    return [TimelineEvent(t0, "data", "first-write", lane, f"first write to {lane}", "d.log:1"),
            TimelineEvent(t0 + 1, "coordinator", "Ongoing", "coordinator", "Ongoing", "t.log:1"),
            TimelineEvent(t0 + 2, "coordinator", "PrepareCommit", "coordinator", "PrepareCommit", "t.log:2"),
            TimelineEvent(t0 + 3, "data", marker, lane, f"{marker} marker on {lane}", "d.log:2"),
            TimelineEvent(t0 + 4, "coordinator", "CompleteCommit", "coordinator", "CompleteCommit", "t.log:3")]


def test_healthy_runs_collapse_and_what_matters_stays() -> None:
    hanging = TimelineEvent(500, "data", "first-write", "orders-1", "first write to orders-1 at offset 7", "d.log:9")
    events = _txn(0, "orders-0") + _txn(100, "orders-0") + [hanging] + _txn(1000, "orders-0") + _txn(2000, "orders-0") \
        + [TimelineEvent(3000, "data", "still-open", "orders-1", "still open on orders-1", "d.log:9")]
    t = Timeline("tx", events, 0, [Moment("HNG001#1", "error", "open", 2000, 2004)])
    rows = compact_rows(t)
    collapsed = [r for r in rows if isinstance(r, Collapsed)]
    assert [(c.count, c.commits, c.lanes) for c in collapsed] == [(10, 2, ("orders-0",)), (5, 1, ("orders-0",))]
    kept = [r for r in rows if isinstance(r, TimelineEvent)]
    assert hanging in kept  # the first write of a transaction that never committed
    assert [r.time for r in kept if 2000 <= (r.time or 0) <= 2004] == [2000, 2001, 2002, 2003, 2004]  # in the window
    assert kept[-1].kind == "still-open"


def test_placeholders_and_markup_are_escaped() -> None:
    evil = TimelineEvent(1, "client", "ERROR", "client", "abort <BOOTSTRAP> | `x` <script>*y*</script>", "app.log:3")
    out = io.StringIO()
    render_timeline_tables(Timelines([Timeline("id|<b>", [evil], 2, [])], ["left|out"]), out)
    text = out.getvalue()
    assert "<" not in text.replace("<BOOTSTRAP>", "")  # nothing raw
    assert "&lt;BOOTSTRAP&gt;" in text and "&lt;script&gt;" in text and "\\|" in text and "\\`x\\`" in text
    assert "### id\\|&lt;b&gt;" in text
    row = next(line for line in text.splitlines() if "ERROR" in line or "abort" in line)
    assert row.count(" | ") == 3  # four cells: no pipe from the input splits the row
    assert "2 more event(s) not shown" in text and "left\\|out" in text


def test_analyze_markdown_has_the_same_timelines_as_the_html() -> None:
    cases = [str(ROOT / "fixtures" / "cases" / n / "input") for n in ("seed-two-instances", "mixed-2.4.1")]
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--fail-on", "never", "--format", "markdown",
                           *cases], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    section = proc.stdout.split("## Timelines\n", 1)[1]
    heads = [line for line in section.splitlines() if line.startswith("### ")]
    assert heads == ["### report-generator (EXP001\\#1)", "### producer 0 (FEN001\\#1)", "### order-enricher (FEN002\\#1)",
                     "### settlement-batch (HNG005\\#1)", "### billing-ledger (HNG008\\#1)", "### ledger-writer (TMO001\\#1)",
                     "### invoice-exporter (EXP002\\#1)"]
    assert "No timeline for producer 4006, producer 4007: the inputs hold no" in section
    enricher = section.split("### order-enricher", 1)[1].split("###", 1)[0]
    assert "PrepareAbort (producer id 4001, epoch 1)" in enricher and "ABORT marker on orders-0 at offset 116" in enricher
    assert "routine events" in enricher and enricher.count("\n| ") < 20  # compact: 80 events, a dozen rows
    assert "/fixtures/cases/mixed-2.4.1/input/orders-0.log.txt:157`" in enricher
