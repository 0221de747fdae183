"""Warnings that describe normal traffic are collapsed in the text report like info, and only there.

A rule says so in its YAML (``normal_traffic: <why>``, reviewed like code). The input here is a
simulated cluster where a slow but healthy job commits 40 transactions each within 80-95 % of its
60 s timeout (40 TMO003 warnings), next to a real incident: a transaction the coordinator aborted
on timeout (TMO001). The terminal report shows the incident's box and one line per collapsed rule;
JSON, SARIF, JUnit, GitHub annotations and the exit code see every finding as before.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import analyze
from kafkadiag.findings import Finding, Subject
from kafkadiag.report.model import Report
from kafkadiag.report.text import render_text
from kafkadiag.report.triage import collapsible
from kafkadiag.ruleset import load_rules

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from kafkasim import Producer, RenderOptions, Sim, finalize_truth, get_era, populate, write_case  # noqa: E402

RULES = load_rules()
SLOW_COMMITS = 40
#: The warning rules whose findings are healthy traffic. Adding one is a reviewed decision: it must
#: not be able to be the only evidence of a failure (see the README, "Normal traffic").
NORMAL_TRAFFIC_RULES = {"TMO003", "TMO004"}


def _slow_job(sim: Sim, start: int) -> None:
    """A nightly export whose every transaction takes 50-56 s of its 60 s timeout, and commits."""
    tps = [tp for tp in sim.create_topic("nightly-export", 2)]
    prod = Producer(sim, "nightly-export", txn_id="nightly-export", timeout_ms=60_000)

    def run():
        yield from prod.init()
        for i in range(SLOW_COMMITS):
            prod.begin()
            prod.send(tps[i % 2], 5)
            yield sim.jitter(50_000, 56_000)
            prod.send(tps[i % 2], 1)
            if prod.commit():
                return
            yield sim.jitter(500, 2_000)

    sim.spawn(run(), start)


@pytest.fixture(scope="module")
def slow_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sim = Sim(get_era("3.3"), seed=1)
    populate(sim, "timeout")  # the real incident, with healthy background traffic
    _slow_job(sim, sim.now + 3_000)
    sim.run()
    for finalize in sim.finalizers:
        finalize(sim)
    finalize_truth(sim)
    out = tmp_path_factory.mktemp("slow-commits")
    write_case(sim, "timeout", ["timeout"], RenderOptions(), out)
    return out


def _report(paths: list[str], select: list[str] | None = None) -> Report:
    from kafkadiag.ruleset import select_rules

    rules = select_rules(RULES, select or [], [])
    result = analyze(paths, rules, EffectiveConfig.defaults())
    return Report("analyze", result.findings, inputs=[r.to_json() for r in result.inputs], stats=result.stats)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def _boxes(text: str) -> list[str]:
    return [line.split()[1] for line in text.splitlines() if line.startswith("╭─ ")]


def test_the_marked_rules_are_the_reviewed_ones_and_all_warnings() -> None:
    marked = {r.id: r for r in RULES if r.normal_traffic}
    assert set(marked) == NORMAL_TRAFFIC_RULES
    assert all(r.severity == "warning" and len(r.normal_traffic) > 40 for r in marked.values())


def test_only_a_warning_rule_may_say_normal_traffic(tmp_path: Path) -> None:
    rule = """category: hanging-transaction
rules:
  - id: ZZZ001
    name: every-open-span
    table: spans
    severity: {severity}
    title: Open span
    when: {{all: [{{field: state, eq: open}}]}}
    message: "Producer id {{producer_id}} has an open span."
    normal_traffic: Every open span at the end of a dump is a transaction in flight.
"""
    (tmp_path / "mine.yaml").write_text(rule.format(severity="error"), encoding="utf-8")
    proc = _cli("rules", "--rules", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "rules[0].normal_traffic" in proc.stderr and "only a warning rule" in proc.stderr
    (tmp_path / "mine.yaml").write_text(rule.format(severity="warning"), encoding="utf-8")
    assert _cli("rules", "--rules", str(tmp_path), "--select", "ZZZ001").returncode == 0


def test_terminal_report_collapses_normal_traffic_and_keeps_the_incident(slow_case: Path) -> None:
    report = _report([str(slow_case)])
    assert sorted(f.rule for f in report.findings) == ["TMO001"] + ["TMO003"] * SLOW_COMMITS
    out = io.StringIO()
    render_text(report, out, color=False, width=120, boxes=True)
    text = out.getvalue()
    assert _boxes(text) == ["TMO001#1"]  # before: 41 boxes, 40 of them one committed transaction each
    head, summary = text.splitlines()[0], text.split("\ninput ")[0]
    assert f"{SLOW_COMMITS} warning ({SLOW_COMMITS} normal traffic, collapsed: --all shows them)" in head
    assert f"WARNING TMO003 ×{SLOW_COMMITS} normal traffic: Transaction used more than 80% of its timeout" in summary
    assert "fix: transaction.timeout.ms=" in summary.split("TMO003", 1)[1]
    assert f"WARNING, normal traffic ({SLOW_COMMITS}): collapsed, --all shows each in full" in text
    assert f"TMO003 … and {SLOW_COMMITS - 5} more like these" in text

    everything = io.StringIO()
    render_text(report, everything, color=False, width=120, boxes=True, show_all=True)
    assert len(_boxes(everything.getvalue())) == 1 + SLOW_COMMITS
    assert "normal traffic" not in everything.getvalue()


def test_piped_report_lists_every_finding_and_counts_the_traffic_in_the_summary(slow_case: Path) -> None:
    report = _report([str(slow_case)])
    out = io.StringIO()
    render_text(report, out, color=False, boxes=False)
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("ERROR TMO001#1") and lines[2].startswith(f"WARNING TMO003 ×{SLOW_COMMITS} normal traffic")
    assert sum(line.startswith("warning: TMO003#") for line in lines) == SLOW_COMMITS  # grep still finds each


def test_machine_formats_and_exit_code_see_every_collapsed_warning(slow_case: Path) -> None:
    only = ["--select", "TMO003"]  # nothing but the collapsed warnings
    as_json = json.loads(_cli("analyze", "--format", "json", "--fail-on", "never", *only, str(slow_case)).stdout)
    assert as_json["summary"]["warning"] == len(as_json["findings"]) == SLOW_COMMITS
    assert all(set(f) == set(as_json["findings"][0]) and "normal_traffic" not in f for f in as_json["findings"])
    sarif = json.loads(_cli("analyze", "--format", "sarif", "--fail-on", "never", *only, str(slow_case)).stdout)
    assert len(sarif["runs"][0]["results"]) == SLOW_COMMITS
    github = _cli("analyze", "--format", "github", "--fail-on", "never", *only, str(slow_case)).stdout
    assert sum(line.startswith("::warning") for line in github.splitlines()) == SLOW_COMMITS
    junit = _cli("analyze", "--format", "junit", "--fail-on", "never", *only, str(slow_case)).stdout
    assert junit.count("<failure") == SLOW_COMMITS
    assert _cli("analyze", "--fail-on", "warning", *only, str(slow_case)).returncode == 1
    assert _cli("analyze", "-q", "--fail-on", "warning", *only, str(slow_case)).returncode == 1
    assert _cli("analyze", "--fail-on", "error", *only, str(slow_case)).returncode == 0
    assert _cli("analyze", "--all", "--format", "json", str(slow_case)).returncode == 2  # --all shapes text only


def test_a_normal_traffic_warning_tied_to_an_incident_is_shown_in_full() -> None:
    def warning(fid: str, caused_by: tuple[str, ...] = ()) -> Finding:
        return Finding(fid.split("#")[0], "transaction-timeout", "warning", "near timeout", "m", Subject(producer_id=7),
                       caused_by=list(caused_by), id=fid, normal_traffic=True)

    cause = warning("TMO004#1")  # named as the cause of a fence: part of the incident
    effect = Finding("FEN003", "fencing", "warning", "fenced", "m", Subject(producer_id=7), caused_by=["TMO004#1"],
                     id="FEN003#1")
    consequence = warning("TMO004#2", caused_by=("CNA101#1",))
    alone = warning("TMO004#3")
    assert collapsible([cause, effect, consequence, alone]) == [alone]


def test_no_bundled_case_has_a_collapsed_finding() -> None:
    """Every warning of the bundled incidents is a diagnosis: none may be collapsed."""
    for case in sorted((ROOT / "fixtures" / "cases").iterdir()):
        findings = analyze([str(case / "input")], RULES, EffectiveConfig.defaults()).findings
        assert collapsible(findings) == [], case.name
