"""`kafkadiag timeline`: coordinator, data and log events of one transactional.id in time order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
