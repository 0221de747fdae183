"""SARIF output validates against the official SARIF 2.1.0 schema shipped in tests/lint/data."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from kafkadiag.findings import Evidence, Finding, Recommendation, Subject
from kafkadiag.report.model import Report
from kafkadiag.report.sarif import render_sarif

SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lint"


def _validate(doc: dict) -> None:
    jsonschema.Draft7Validator(SCHEMA).validate(doc)


@pytest.mark.parametrize("rule", ["PRD006", "CNS001", "BRK004", "SEC001", "FLK001"])
def test_lint_sarif_is_valid(rule, lint):
    case = FIXTURES / rule / "fail"
    run = lint([".", "--format", "sarif"], cwd=case)
    doc = json.loads(run.out)
    _validate(doc)
    (sarif_run,) = doc["runs"]
    driver = sarif_run["tool"]["driver"]
    ids = [r["id"] for r in driver["rules"]]
    assert rule in ids and all(r["id"].isalnum() for r in driver["rules"])
    result = next(r for r in sarif_run["results"] if r["ruleId"] == rule)
    assert ids[result["ruleIndex"]] == rule
    assert result["level"] in ("error", "warning", "note")
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] >= 1 and region["startColumn"] >= 1
    assert not result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("/")
    assert result["partialFingerprints"]


def test_fingerprints_survive_line_moves(lint, write):
    text = "transactional.id=t\nenable.idempotence=false\n"
    a = json.loads(lint(["p.properties", "--format", "sarif"], cwd=write({"p.properties": text})).out)
    b = json.loads(lint(["p.properties", "--format", "sarif"], cwd=write({"p.properties": "# moved\n\n" + text})).out)
    ra, rb = a["runs"][0]["results"][0], b["runs"][0]["results"][0]
    assert ra["locations"] != rb["locations"]
    assert ra["partialFingerprints"] == rb["partialFingerprints"]


def test_related_location_for_cross_file_rule(lint):
    doc = json.loads(lint([".", "--format", "sarif"], cwd=FIXTURES / "PRD006" / "fail").out)
    result = next(r for r in doc["runs"][0]["results"] if r["ruleId"] == "PRD006")
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "producer.properties"
    related = result["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "server.properties" and related["region"]["startLine"] == 3


def test_clean_run_is_valid_sarif(lint, write):
    doc = json.loads(lint(["p.properties", "--format", "sarif"], cwd=write({"p.properties": "transactional.id=t\n"})).out)
    _validate(doc)
    assert doc["runs"][0]["results"] == []


def test_analyze_findings_use_evidence_location():
    finding = Finding(
        rule="HNG001", category="hanging-transaction", severity="error", title="Hanging transaction",
        message="open for 3h", subject=Subject(transactional_id="tx", topic="orders", partition=3),
        evidence=[Evidence("dump/orders-3.log.txt", 120, "baseOffset: 7 ..."), Evidence("dump/state.txt", None, "x")],
        recommendations=[Recommendation("producer", "transaction.timeout.ms", "60000", "shorter")],
        id="HNG001#1",
    )
    out = io.StringIO()
    render_sarif(Report("analyze", [finding]), out, rules=[])
    doc = json.loads(out.getvalue())
    _validate(doc)
    result = doc["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 120
    assert doc["runs"][0]["tool"]["driver"]["rules"][0]["id"] == "HNG001"
    assert "relatedLocations" in result and "region" not in result["relatedLocations"][0]["physicalLocation"]
