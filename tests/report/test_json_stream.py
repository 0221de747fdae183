"""The streamed JSON report is byte for byte what ``json.dump(report.to_json(), indent=2)`` writes."""

from __future__ import annotations

import io
import json

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import analyze
from kafkadiag.findings import Evidence, Finding, Recommendation, Subject
from kafkadiag.report.json_stream import write_json
from kafkadiag.report.model import Report
from kafkadiag.ruleset import load_rules
from tests.casebook import FIXTURES, absolute, fixture_cases

CASES = [case for case in fixture_cases() if case.startswith(("cases/", "real/confluent"))]


def both(report: Report) -> tuple[str, str]:
    whole, streamed = io.StringIO(), io.StringIO()
    json.dump(report.to_json(), whole, indent=2)
    write_json(report, streamed)
    return whole.getvalue(), streamed.getvalue()


@pytest.mark.parametrize("case", CASES)
def test_reports_of_the_bundled_cases(case: str) -> None:
    folder, args = fixture_cases()[case]
    paths = [a for a in absolute(folder, args) if not a.startswith("-")]
    if any(a.startswith("-") for a in args):
        pytest.skip("a case with options")
    result = analyze(paths, load_rules(), EffectiveConfig.defaults())
    report = Report("analyze", result.findings, inputs=[{"path": p} for p in paths], stats=result.stats,
                    notes=["engine: local"])
    whole, streamed = both(report)
    assert streamed == whole


def test_no_findings_and_awkward_text() -> None:
    assert both(Report("analyze", []))[1] == both(Report("analyze", []))[0]
    odd = Finding(rule="X001", category="c", severity="error", title='"findings": []',
                  message='line one\n  "findings": []\tend — ünïcode ✓ \u2028',
                  subject=Subject(transactional_id="tx-ü"),
                  evidence=[Evidence(file="a\nb.log", line=3, text='  "findings": []')],
                  recommendations=[Recommendation("producer", "acks", "all", "why\n")])
    report = Report("analyze", [odd, odd], inputs=[{"findings": [], "nested": {"findings": []}}],
                    notes=['"findings": []'])
    whole, streamed = both(report)
    assert streamed == whole
    assert json.loads(streamed)["findings"][1]["message"] == odd.message


def test_the_cases_exist() -> None:
    assert len(CASES) >= 15 and (FIXTURES / "cases").is_dir()


def _ascii_finding(**changes) -> Finding:
    values = dict(rule="X002", category="c", severity="warning", title='quote " backslash \\ slash </x>',
                  message="controls \x00 \x01 \x1f \b \f \r \t and\nnewline", subject=Subject(producer_id=2**63 - 1),
                  window_start=0, window_end=1_700_000_000_123, caused_by=["X001#1"], runbook=[], references=["r"],
                  evidence=[Evidence(file="f.log", line=None, text="")], id="X002#1")
    values.update(changes)
    return Finding(**values)


@pytest.mark.parametrize("finding", [
    _ascii_finding(),
    _ascii_finding(message="DEL \x7f is escaped by json"),
    _ascii_finding(subject=Subject(producer_id=2**70)),  # beyond 64 bits: orjson refuses it
    _ascii_finding(message="non-ASCII é and \u2028"),
], ids=["ascii", "del", "big-int", "non-ascii"])
def test_a_finding_reads_as_json_dumps_writes_it(finding: Finding) -> None:
    from kafkadiag.report.json_stream import finding_text

    assert finding_text(finding.to_json()) == json.dumps(finding.to_json(), indent=2)


def test_an_ascii_finding_is_encoded_without_the_python_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    from kafkadiag.report import json_stream

    doc = _ascii_finding().to_json()
    expected = json.dumps(doc, indent=2)

    class NoPythonEncoder:
        @staticmethod
        def dumps(*_args, **_kwargs):
            raise AssertionError("the slow encoder ran")

    monkeypatch.setattr(json_stream, "json", NoPythonEncoder)
    assert json_stream.finding_text(doc) == expected
