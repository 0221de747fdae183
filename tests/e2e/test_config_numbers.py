"""Config values too large for a Java long are refused in one line (analyze --config) or read as
not set (lint), never an internal error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "fixtures" / "cases" / "timeout-2.4" / "input"


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, cwd=ROOT)


@pytest.mark.parametrize("value", ["99999999999999999999", "1e309", "-1e309"])
def test_lint_reads_a_value_out_of_range_as_not_set(tmp_path: Path, value: str) -> None:
    config = tmp_path / "producer.properties"
    config.write_text(f"transactional.id=app-1\ntransaction.timeout.ms={value}\nacks=1\n", encoding="utf-8")
    proc = run_cli("lint", str(config))
    assert proc.returncode == 1, proc.stderr.decode()  # the acks finding is still there
    assert "internal error" not in proc.stderr.decode()


def test_analyze_refuses_a_config_value_out_of_range_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "producer.properties"
    config.write_text("transaction.timeout.ms=99999999999999999999\n", encoding="utf-8")
    proc = run_cli("analyze", "--config", str(config), str(CASE))
    err = proc.stderr.decode().strip()
    assert proc.returncode == 2
    assert len(err.splitlines()) == 1 and "out of range" in err and "producer.properties:1" in err
