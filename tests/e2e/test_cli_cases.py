"""`kafkadiag analyze` on every bundled case: the findings, their subjects and the exit code.

Each fixtures/cases/<case>/ holds the inputs under input/ and expected.json: the exact set of
error and warning findings (rule, category, severity, subject) and the exit code. Seed cases are
real dump excerpts; the others are simulated incidents (truth.json holds the ground truth).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted(p for p in (ROOT / "fixtures" / "cases").iterdir() if (p / "expected.json").exists())


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT)


def _key(f: dict) -> tuple:
    return (f["rule"], f["category"], f["severity"], json.dumps(f["subject"], sort_keys=True))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text())
    proc = run_cli("analyze", "--format", "json", *expected["args"], str(case / "input"))
    assert proc.returncode == expected["exit_code"], proc.stderr
    report = json.loads(proc.stdout)
    got = sorted(
        _key({**f, "subject": {k: v for k, v in f["subject"].items() if v is not None}})
        for f in report["findings"] if f["severity"] != "info"
    )
    assert got == sorted(_key(f) for f in expected["findings"])
    for f in report["findings"]:
        assert f["evidence"], f["rule"]
        assert all(e["text"] and e["line"] for e in f["evidence"]), f
    assert all(i["skipped"] == 0 for i in report["inputs"]), report["inputs"]


def test_truth_agrees_with_expected_categories() -> None:
    """The simulated cases' expected findings cover exactly the categories the simulator caused."""
    for case in CASES:
        truth_file = case / "truth.json"
        if not truth_file.exists():
            continue
        truth = json.loads(truth_file.read_text())
        expected = json.loads((case / "expected.json").read_text())
        assert {f["category"] for f in expected["findings"]} == set(truth["findings"]), case.name


def test_json_schema_shape_and_determinism() -> None:
    case = ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input"
    first = run_cli("analyze", "--format", "json", str(case))
    second = run_cli("analyze", "--format", "json", str(case))
    assert first.stdout == second.stdout
    report = json.loads(first.stdout)
    assert set(report) >= {"findings", "inputs", "summary"}
    finding = report["findings"][0]
    assert set(finding) >= {"rule", "category", "severity", "title", "message", "subject", "window", "evidence",
                            "recommendations", "runbook"}
    assert set(finding["subject"]) == {"transactional_id", "producer_id", "producer_epoch", "topic", "partition"}
    assert finding["window"]["start"].endswith("Z")
    assert set(report["inputs"][0]) >= {"path", "kind", "era", "lines", "skipped"}
    assert report["summary"]["error"] >= 1


def test_text_report_plain_when_piped() -> None:
    proc = run_cli("analyze", str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input"))
    assert proc.returncode == 1
    assert "\x1b[" not in proc.stdout
    assert proc.stdout.startswith("1 finding(s): 1 error")
    assert "error: TMO001#1 " in proc.stdout and "transaction.timeout.ms=" in proc.stdout
    assert any(line.startswith("config change (producer") and "transaction.timeout.ms=" in line
               for line in proc.stdout.splitlines())


@pytest.mark.slow  # four cases through the CLI; test_text_report_plain_when_piped is the quick check
@pytest.mark.parametrize("case", ["fencing-3.3", "hanging-3.5", "timeout-2.4", "expiration-3.5"])
def test_piped_text_has_no_boxes_and_one_line_per_evidence(case: str) -> None:
    """Like a linter: ``grep file:line`` finds the whole evidence line, whatever its length."""
    path = str(ROOT / "fixtures" / "cases" / case / "input")
    text = run_cli("analyze", "--fail-on", "never", path).stdout
    report = json.loads(run_cli("analyze", "--fail-on", "never", "--format", "json", path).stdout)
    assert not set(text) & set("╭╮╰╯│─━")
    lines = set(text.splitlines())
    evidence = [e for f in report["findings"] for e in f["evidence"]]
    assert evidence
    for e in evidence:
        assert f"  {e['file']}:{e['line']}: {e['text']}" in lines, e
    for f in report["findings"]:
        assert any(line.startswith(f"{f['severity']}: {f['id']} ") for line in lines), f["id"]


@pytest.mark.parametrize("env, colour", [({"FORCE_COLOR": "1"}, True), ({"CLICOLOR_FORCE": "1"}, True),
                                         ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False), ({}, False)])
def test_colour_follows_the_conventions(env: dict, colour: bool) -> None:
    import os

    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--fail-on", "never",
                           str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input")],
                          capture_output=True, text=True, cwd=ROOT, env={**base, **env})
    assert ("\x1b[" in proc.stdout) is colour
    assert not set(proc.stdout) & set("╭│")  # piped: lines, coloured or not


def test_fail_on_and_never() -> None:
    case = str(ROOT / "fixtures" / "cases" / "unstable-ids-4.1" / "input")
    assert run_cli("analyze", case).returncode == 0
    assert run_cli("analyze", "--fail-on", "warning", case).returncode == 1
    assert run_cli("analyze", "--fail-on", "never", str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input")).returncode == 0


def test_bootstrap_server_fills_runbook() -> None:
    proc = run_cli("analyze", "--format", "json", "--bootstrap-server", "kafka-1:9092",
                   str(ROOT / "fixtures" / "cases" / "hanging-3.5" / "input"))
    steps = [s for f in json.loads(proc.stdout)["findings"] for s in f["runbook"]]
    assert any("--bootstrap-server kafka-1:9092 abort --topic orders --partition 2 --start-offset 8" in s for s in steps)
    assert not any("<BOOTSTRAP>" in s for s in steps)


def test_config_file_changes_thresholds(tmp_path: Path) -> None:
    props = tmp_path / "server.properties"
    props.write_text("# broker\ntransaction.max.timeout.ms=60000\n")
    case = str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input")
    report = json.loads(run_cli("analyze", "--format", "json", "--config", str(props), case).stdout)
    by_key = {c["key"]: c for c in report["config"]}
    assert by_key["transaction.max.timeout.ms"]["value"] == 60000 and not by_key["transaction.max.timeout.ms"]["default"]
    assert by_key["transaction.timeout.ms"]["default"]
    recs = {(r["side"], r["config"]) for f in report["findings"] for r in f["recommendations"]}
    # The transaction needed 33.6 s against a 30 s timeout: 70 s recommended, above the 60 s broker maximum.
    assert recs == {("producer", "transaction.timeout.ms"), ("broker", "transaction.max.timeout.ms")}


def test_select_ignore_and_rules_listing() -> None:
    case = str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input")
    only = json.loads(run_cli("analyze", "--format", "json", "--select", "HNG", case).stdout)
    assert {f["rule"][:3] for f in only["findings"]} == {"HNG"}
    without = json.loads(run_cli("analyze", "--format", "json", "--ignore", "HNG,SEQ001", case).stdout)
    assert not {f["rule"] for f in without["findings"]} & {"HNG005", "HNG008", "SEQ001"}
    listing = json.loads(run_cli("rules", "--format", "json").stdout)
    assert {"FEN001", "HNG001", "TMO001", "EXP001", "SEQ001", "MIS001"} <= {r["id"] for r in listing}
    explained = run_cli("explain", "HNG001")
    assert explained.returncode == 0 and "kafka-transactions.sh" in explained.stdout


def test_markdown_report() -> None:
    proc = run_cli("analyze", "--format", "markdown", str(ROOT / "fixtures" / "cases" / "seed-two-instances" / "input"))
    assert proc.returncode == 1
    assert proc.stdout.startswith("# kafkadiag report") and "## ERROR FEN001\\#1" in proc.stdout


def test_markdown_opens_with_root_causes_and_folds_info() -> None:
    """As the text report: causes first with their fix and consequences, findings in that order with
    their full ids (the summary links to them), info folded in a ``<details>`` block after them."""
    proc = run_cli("analyze", "--format", "json", str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input"))
    findings = json.loads(proc.stdout)["findings"]
    md = run_cli("analyze", "--format", "markdown", str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input")).stdout
    summary, details = md.split("## Root causes first", 1)[1].split("\n## ", 1)
    causes = [f for f in findings if f["severity"] in ("error", "warning")]
    assert causes and all(f["id"].replace("#", "\\#") in summary for f in causes)
    assert summary.index("**ERROR**") < summary.index("**WARNING**")  # errors first
    headings = re.findall(r"^#{2,3} (ERROR|WARNING|INFO) (\S+?): ", md, flags=re.M)
    assert [h[1].replace("\\#", "#") for h in headings if h[0] != "INFO"] == [
        f["id"] for f in sorted(causes, key=lambda f: f["severity"] != "error")]
    for target in re.findall(r"\]\(#([a-z0-9-]+)\)", summary):  # every link of the summary has its heading
        assert any(re.sub(r"[^a-z0-9 -]", "", " ".join(h.split()[1:]).replace("\\", "").lower()).replace(" ", "-") == target
                   for h in re.findall(r"^##.*$", md, flags=re.M)), target
    infos = [f for f in findings if f["severity"] == "info"]
    folded = md.split("<details>", 1)[1].split("</details>", 1)[0]
    assert infos and f"{len(infos)} more finding(s)" in folded and md.index("<details>") > md.index(headings[0][1])
    assert all(f["id"].replace("#", "\\#") in folded for f in infos)


def test_on_a_terminal_findings_are_boxes_titled_with_their_ids() -> None:
    import io

    from kafkadiag.config import EffectiveConfig
    from kafkadiag.engine.local import analyze
    from kafkadiag.report.model import Report
    from kafkadiag.report.text import render_text
    from kafkadiag.ruleset import load_rules

    result = analyze([str(ROOT / "fixtures" / "cases" / "fencing-3.3" / "input")], load_rules(), EffectiveConfig.defaults())
    out = io.StringIO()
    render_text(Report("analyze", result.findings, inputs=[r.to_json() for r in result.inputs]), out, color=False,
                width=100, boxes=True)
    text = out.getvalue()
    assert "╭─ FEN002#1 " in text and max(len(line) for line in text.splitlines()) <= 100


@pytest.mark.parametrize("env", [{}, {"NO_COLOR": "1"}], ids=["colour", "no-colour"])
def test_boxes_on_a_terminal_take_its_width_from_columns(env: dict) -> None:
    """On a terminal the report is boxes as wide as ``COLUMNS`` says, coloured or not."""
    import os
    import pty

    case = str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input")
    for columns in (80, 132):
        master, slave = pty.openpty()
        base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
        proc = subprocess.Popen([sys.executable, "-m", "kafkadiag.cli", "analyze", "--fail-on", "never", case],
                                stdout=slave, stderr=subprocess.DEVNULL, cwd=ROOT,
                                env={**base, "COLUMNS": str(columns), "KAFKADIAG_PROGRESS": "0", **env})
        os.close(slave)
        raw = b""
        while True:
            try:
                piece = os.read(master, 1 << 16)
            except OSError:  # the child closed the terminal
                break
            if not piece:
                break
            raw += piece
        assert proc.wait(timeout=60) == 0
        os.close(master)
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode("utf-8", "replace"))
        lines = [line.rstrip("\r") for line in text.split("\n")]
        box_edges = [line for line in lines if line.startswith("╭")]
        assert box_edges, text[:400]
        assert max(len(line) for line in lines) == columns and all(len(e) == columns for e in box_edges)
        assert ("\x1b[" in raw.decode("utf-8", "replace")) is not bool(env)
