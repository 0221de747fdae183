"""Text, JSON, JUnit and GitHub annotation output of lint findings (and of analyze findings)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from kafkadiag.findings import Evidence, Finding
from kafkadiag.report.github import annotation, render_github
from kafkadiag.report.junit import render_junit
from kafkadiag.report.model import Report

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "lint" / "PRD006" / "fail"


def test_text_is_one_line_per_finding(lint):
    run = lint(["."], cwd=CASE)
    first = run.out.splitlines()[0]
    assert first.startswith("producer.properties:4:1: PRD006 [*] error: ")
    assert "\x1b[" not in run.out
    assert "Found 1 problem(s)" in run.out


def test_json_adds_location_and_config_only(lint):
    doc = lint([".", "--format", "json"], cwd=CASE).json()
    (finding,) = doc["findings"]
    assert finding["location"] == {"file": "producer.properties", "line": 4, "column": 1}
    assert finding["config"] == "transaction.timeout.ms"
    assert {"id", "rule", "category", "severity", "title", "message", "subject", "window", "evidence",
            "recommendations", "runbook", "references"} <= set(finding)
    assert doc["command"] == "lint" and doc["summary"]["error"] == 1
    assert finding["evidence"][1] == {"file": "server.properties", "line": 3, "text": "transaction.max.timeout.ms=900000"}


def test_output_file(lint, tmp_path):
    target = tmp_path / "out.xml"
    run = lint([".", "--format", "junit", "--output", str(target)], cwd=CASE)
    assert run.out == "" and run.code == 1
    root = ET.parse(target).getroot()
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    names = [c.get("name") for c in suite.iter("testcase")]
    assert any("PRD006" in n and "producer.properties:4" in n for n in names)
    assert "server.properties" in names  # a checked file without findings passes


def test_github_annotations(lint):
    run = lint([".", "--format", "github"], cwd=CASE)
    (line,) = run.out.splitlines()
    assert line.startswith("::error file=producer.properties,line=4,col=1,title=PRD006 ")
    assert "%0AFix: transaction.timeout.ms=900000 (producer.properties)" in line


def test_github_escaping_and_analyze_findings():
    f = Finding(rule="HNG001", category="hanging-transaction", severity="warning", title="a: b, c",
                message="100% stuck\nreally", evidence=[Evidence("dump.txt", 7, "x")])
    text = annotation(f)
    assert text == "::warning file=dump.txt,line=7,title=HNG001 a%3A b%2C c::100% stuck really".replace("100%", "100%25")
    out = io.StringIO()
    render_github(Report("analyze", [f]), out)
    assert out.getvalue().startswith("::warning ")
    xml = io.StringIO()
    render_junit(Report("analyze", [f], inputs=[{"path": "other.txt"}]), xml)
    root = ET.fromstring(xml.getvalue())
    assert [c.get("name") for c in root.iter("testcase")] == ["HNG001 a: b, c (dump.txt:7)", "other.txt"]


def test_markdown(lint):
    run = lint([".", "--format", "markdown"], cwd=CASE)
    assert "## ERROR PRD006" in run.out


def test_lint_rules_listed_and_explained(lint):
    from typer.testing import CliRunner

    from kafkadiag.cli import app

    listing = json.loads(CliRunner().invoke(app, ["rules", "--format", "json", "--select", "PRD"]).stdout)
    assert {r["id"] for r in listing} >= {"PRD001", "PRD006"}
    text = CliRunner().invoke(app, ["explain", "PRD006"]).stdout
    assert "transaction-timeout-above-broker-max" in text and "Why is this bad?" in text
