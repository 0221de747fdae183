"""What analyze says about each input: what was found in it, configs read as configs, and failures that show."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from kafkadiag import readers
from kafkadiag.cli import app

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "fixtures" / "cases" / "timeout-2.4" / "input"
STACK = (ROOT / "fixtures" / "real" / "streams-bugout-89-invalid-pid-mapping").glob("*.log")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT)


def findings(proc: subprocess.CompletedProcess) -> list[tuple[str, str]]:
    return sorted((f["rule"], f["severity"]) for f in json.loads(proc.stdout)["findings"])


def test_a_config_input_is_read_exactly_as_config_option(tmp_path: Path) -> None:
    props = tmp_path / "producer.properties"
    props.write_text("bootstrap.servers=kafka-1:9092\ntransactional.id=payments-tx\ntransaction.timeout.ms=900000\n")
    as_option = run_cli("analyze", "--format", "json", "--fail-on", "never", "--config", str(props), str(CASE))
    as_input = run_cli("analyze", "--format", "json", "--fail-on", "never", str(props), str(CASE))
    option_report, input_report = json.loads(as_option.stdout), json.loads(as_input.stdout)
    assert findings(as_option) == findings(as_input)
    assert [c for c in input_report["config"] if not c["default"]] == [
        {"key": "transaction.timeout.ms", "value": 900000, "source": f"{props}:3", "default": False}]
    assert [c["value"] for c in option_report["config"]] == [c["value"] for c in input_report["config"]]
    entry = next(i for i in input_report["inputs"] if i["path"] == str(props))
    assert entry["kind"] == "config/java" and entry["events"] == 3


def test_a_config_that_breaks_transactions_is_a_finding(tmp_path: Path) -> None:
    props = tmp_path / "producer.properties"
    props.write_text("bootstrap.servers=kafka-1:9092\ntransactional.id=payments-tx\nenable.idempotence=false\n")
    report = json.loads(run_cli("analyze", "--format", "json", "--fail-on", "never", str(props)).stdout)
    prd = [f for f in report["findings"] if f["rule"] == "PRD001"]
    assert prd and prd[0]["evidence"][0]["line"] == 3 and prd[0]["severity"] == "error"


def test_inputs_without_kafka_evidence_are_named(tmp_path: Path) -> None:
    prose = tmp_path / "notes.txt"
    prose.write_text("We restarted the service at noon and it recovered.\nNothing else changed.\n")
    proc = run_cli("analyze", "--format", "json", str(prose), str(CASE))
    assert proc.returncode == 1  # the timeout finding of the case
    entry = next(i for i in json.loads(proc.stdout)["inputs"] if i["path"] == str(prose))
    assert entry["found"] == "no Kafka evidence" and f"{prose}: no Kafka evidence found" in proc.stderr
    alone = run_cli("analyze", str(prose))
    assert alone.returncode == 2 and "no Kafka evidence" in alone.stderr


def test_a_pasted_stack_trace_is_evidence_not_unknown() -> None:
    path = next(iter(STACK))
    report = json.loads(run_cli("analyze", "--format", "json", "--fail-on", "never", str(path)).stdout)
    entry = report["inputs"][0]
    assert entry["kind"] != "unknown" and entry["events"] >= 1 and entry["found"].endswith(("Kafka event", "Kafka events"))
    assert {f["category"] for f in report["findings"]} >= {"expired-transactional-id"}


def test_a_reader_that_fails_makes_the_run_fail_and_names_the_input(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "client.log"
    log.write_text("2024-05-14 10:00:01,000 ERROR [main] o.a.k.c.p.KafkaProducer - boom ProducerFencedException\n")

    def broken(stream, ctx):
        raise ValueError("cannot cope")
        yield  # pragma: no cover

    monkeypatch.setitem(readers.READERS, "log", broken)
    result = CliRunner().invoke(app, ["analyze", "--format", "json", str(log), str(CASE)])
    assert result.exit_code == 3
    assert f"{log}: reader failed" in result.stderr and "cannot cope" in result.stderr
    report = json.loads(result.stdout)
    assert any(f["rule"] == "TMO001" for f in report["findings"])  # the other input still counts
