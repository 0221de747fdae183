"""Every text report opens with the triage summary: one line per root cause (severity, id,
subject, diagnosis, the fix), its consequences under it; the details follow in that order."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from kafkadiag.findings import Finding, Recommendation, Subject
from kafkadiag.report.model import Report
from kafkadiag.report.text import render_text
from kafkadiag.report.triage import in_triage_order, triage

ROOT = Path(__file__).resolve().parents[2]
DEMO = [str(ROOT / "fixtures" / "cases" / "seed-two-instances" / "input"), str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input")]


def _finding(fid: str, severity: str, caused_by: tuple[str, ...] = (), tid: str = "tx-1") -> Finding:
    rule = fid.split("#")[0]
    return Finding(rule, "fencing", severity, f"title of {fid}", f"message of {fid}", Subject(transactional_id=tid),
                   recommendations=[Recommendation("producer", "transaction.timeout.ms", "90000", "why")],
                   caused_by=list(caused_by), id=fid)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_consequences_come_under_their_cause_and_causes_by_severity() -> None:
    findings = [_finding("TMO101#1", "warning", ("FEN002#1",)), _finding("HNG002#1", "warning"),
                _finding("FEN002#1", "error"), _finding("SEQ001#1", "error", ("GONE#1",)), _finding("EXP003#1", "info")]
    causes = triage(findings)
    assert [c.finding.id for c in causes] == ["FEN002#1", "SEQ001#1", "HNG002#1"]  # a cause not in the report: a root
    assert [f.id for f in causes[0].consequences] == ["TMO101#1"]
    assert [f.id for f in in_triage_order(findings)] == ["FEN002#1", "TMO101#1", "SEQ001#1", "HNG002#1", "EXP003#1"]


def test_the_report_opens_with_the_causes_and_the_details_follow_in_that_order() -> None:
    findings = [_finding("TMO101#1", "warning", ("FEN002#1",)), _finding("FEN002#1", "error")]
    for boxes in (False, True):
        out = io.StringIO()
        render_text(Report("analyze", findings), out, color=False, width=120, boxes=boxes)
        lines = out.getvalue().splitlines()
        assert lines[1].startswith("ERROR FEN002#1 transactional.id tx-1: title of FEN002#1; fix: transaction.timeout.ms=90000")
        assert lines[2].strip().startswith("consequence TMO101#1")
        details = "\n".join(lines[3:])  # after the summary: the root cause's detail comes first
        assert 0 <= details.index("FEN002#1 title of FEN002#1") < details.index("TMO101#1 title of TMO101#1")


def test_quiet_prints_only_the_summary_and_keeps_the_exit_code() -> None:
    quiet = _cli("analyze", "-q", *DEMO)
    full = json.loads(_cli("analyze", "--format", "json", "--fail-on", "never", *DEMO).stdout)
    assert quiet.returncode == 1
    lines = quiet.stdout.splitlines()
    ranked = [f for f in full["findings"] if f["severity"] in ("error", "warning")]
    assert len(lines) == 1 + len(ranked)  # the head line, then one line per root cause (no consequences here)
    assert not any(line.startswith(("input:", "  ")) for line in lines)


def test_statistics_count_findings_per_rule() -> None:
    stats = _cli("analyze", "--statistics", "--fail-on", "never", *DEMO)
    full = json.loads(_cli("analyze", "--format", "json", "--fail-on", "never", *DEMO).stdout)
    counts = Counter(f["rule"] for f in full["findings"])
    got = {line.split()[1]: int(line.split()[0]) for line in stats.stdout.splitlines()}
    assert got == dict(counts)


def test_quiet_with_a_machine_format_is_a_usage_error() -> None:
    proc = _cli("analyze", "-q", "--format", "json", *DEMO)
    assert proc.returncode == 2 and proc.stdout == "" and "--quiet" in proc.stderr
