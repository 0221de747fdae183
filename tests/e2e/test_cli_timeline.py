"""`kafkadiag timeline`: coordinator, data and log events of one transactional.id in time order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_timeline_of_a_timed_out_transaction() -> None:
    proc = run_cli("timeline", "--format", "json", str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input"))
    assert proc.returncode == 0, proc.stderr
    timelines = json.loads(proc.stdout)["timelines"]
    assert [t["key"] for t in timelines] == ["ledger-writer"]  # by default: the ids with findings
    events = timelines[0]["events"]
    times = [e["time"] for e in events if e["time"]]
    assert times == sorted(times)
    kinds = [(e["source"], e["kind"]) for e in events]
    assert ("coordinator", "PrepareAbort") in kinds and ("data", "ABORT") in kinds
    abort = next(e for e in events if e["kind"] == "ABORT")
    assert "coordinator's decision" in abort["text"] and abort["file"].endswith(".log.txt") and abort["line"] > 0
    prepare = kinds.index(("coordinator", "PrepareAbort"))
    assert kinds.index(("data", "ABORT")) > prepare


def test_timeline_filters_and_text_output() -> None:
    case = str(ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input")
    proc = run_cli("timeline", "--format", "json", "-t", "order-enricher", case)
    assert [t["key"] for t in json.loads(proc.stdout)["timelines"]] == ["order-enricher"]
    text = run_cli("timeline", "--all", "--limit", "3", case)
    assert text.returncode == 0 and "more events (raise --limit)" in text.stdout


def test_mixed_folder_is_one_report_and_one_incident(tmp_path: Path) -> None:
    """Dumps, a broker log and a client log of the same timeout: one finding with evidence from both sides."""
    import shutil

    for f in (ROOT / "fixtures" / "cases" / "timeout-2.4" / "input").iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "server.log").write_text(
        "[2019-12-22 12:34:31,935] INFO [TransactionCoordinator id=1] Completed rollback of ongoing transaction for "
        "transactionalId ledger-writer due to timeout (kafka.coordinator.transaction.TransactionCoordinator)\n")
    (tmp_path / "app.log").write_text(
        "2019-12-22 12:34:40,100 ERROR [kafka-producer-network-thread | producer-ledger] o.a.k.c.p.i.TransactionManager - "
        "[Producer clientId=producer-ledger, transactionalId=ledger-writer] Transiting to fatal error state due to "
        "org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same transactionalId "
        "which fences the current one.\n")
    proc = run_cli("analyze", "--format", "json", str(tmp_path))
    report = json.loads(proc.stdout)
    kinds = {i["path"].rsplit("/", 1)[-1]: i["kind"] for i in report["inputs"]}
    assert kinds["server.log"].startswith("log/") and kinds["app.log"].startswith("log/")
    timeouts = [f for f in report["findings"] if f["category"] == "transaction-timeout"]
    assert len(timeouts) == 1
    files = {e["file"].rsplit("/", 1)[-1] for e in timeouts[0]["evidence"]}
    assert "server.log" in files and any(name.startswith("__transaction_state") for name in files)
    fenced = [f for f in report["findings"] if f["category"] == "fencing"]
    assert len(fenced) == 1 and fenced[0]["caused_by"] == [timeouts[0]["id"]]
    assert timeouts[0]["root_cause"] and not fenced[0]["root_cause"]


CASES = sorted(p for p in (ROOT / "fixtures" / "cases").iterdir() if (p / "input").is_dir())


def _everything(case: Path):
    from kafkadiag.config import EffectiveConfig
    from kafkadiag.engine.local import analyze
    from kafkadiag.engine.timeline import build_timeline
    from kafkadiag.ruleset import load_rules

    result = analyze([str(case / "input")], load_rules(), EffectiveConfig.defaults())
    return result, build_timeline(result.tables, result.tables.get("txn_records"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_id_in_a_case_has_its_events_selected(case: Path) -> None:
    """``-t`` finds every event keyed by a transactional.id; ``-p`` every event of a producer id,
    also when the producer is keyed by its transactional.id."""
    from kafkadiag.engine.timeline import build_timeline

    result, everything = _everything(case)
    if everything.empty:
        pytest.skip("no timeline events")
    records = result.tables.get("txn_records")
    for tid in sorted({t for t in everything["transactional_id"] if t})[:5]:
        selected = build_timeline(result.tables, records, keys={tid})
        assert len(selected) == int((everything["key"] == tid).sum()) > 0
    for pid in sorted({int(p) for p in everything["producer_id"] if p >= 0})[:5]:
        selected = build_timeline(result.tables, records, keys=set(), producer_ids=[pid])
        assert int((selected["producer_id"] == pid).sum()) == int((everything["producer_id"] == pid).sum()) > 0


def test_a_producer_id_with_a_transactional_id_is_found() -> None:
    proc = run_cli("timeline", "-p", "36000", "--format", "json", str(ROOT / "fixtures" / "cases" / "commit-4.1" / "input"))
    assert proc.returncode == 0, proc.stderr
    (timeline,) = json.loads(proc.stdout)["timelines"]
    assert timeline["key"] == "order-service-0" and len(timeline["events"]) > 3


def test_an_id_that_is_not_there_lists_the_ids_that_are() -> None:
    proc = run_cli("timeline", "-t", "no-such-id", str(ROOT / "fixtures" / "cases" / "commit-4.1" / "input"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "no event of transactional id no-such-id" in proc.stderr
    assert "transactional ids order-service-0" in proc.stderr and "producer ids 36000" in proc.stderr


@pytest.mark.parametrize("command, fmt", [
    *(("timeline", f) for f in ("sarif", "junit", "github")),
    *(("rules", f) for f in ("sarif", "junit", "github", "markdown", "html")),
])
def test_formats_a_command_does_not_write_are_a_usage_error(command: str, fmt: str) -> None:
    args = [command, "--format", fmt] + ([str(ROOT / "fixtures" / "cases" / "commit-4.1" / "input")] if command == "timeline" else [])
    proc = run_cli(*args)
    assert proc.returncode == 2 and "--format" in proc.stderr and proc.stdout == ""


def test_timeline_as_html_pictures_and_markdown_tables() -> None:
    """``timeline --format html`` draws the asked ids; ``--format markdown`` has the same events as compact tables."""
    case = str(ROOT / "fixtures" / "cases" / "timeout-2.4" / "input")
    page = run_cli("timeline", "--format", "html", "-t", "ledger-writer", case)
    assert page.returncode == 0, page.stderr
    assert page.stdout.count("<svg") == 1 and 'id="timeline-0-ledger-writer"' in page.stdout
    assert "TMO001#1" in page.stdout and "PrepareAbort" in page.stdout and 'id="findings"' not in page.stdout
    md = run_cli("timeline", "--format", "markdown", "-t", "ledger-writer", case)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# kafkadiag timeline\n") and "### ledger-writer (TMO001\\#1)" in md.stdout
    rows = [line for line in md.stdout.splitlines() if line.startswith("| ")][1:]
    assert any("ABORT marker on payment-events-" in r and "coordinator's decision" in r for r in rows)
    assert any("routine events" in r for r in rows)  # healthy transactions collapsed
    nothing = run_cli("timeline", "--format", "html", "-t", "no-such-id", case)
    assert nothing.returncode == 2 and nothing.stdout == "" and "no event of transactional id no-such-id" in nothing.stderr
