"""Bad input never produces a traceback: a one-line error or counted skips, exit 2 only when nothing was readable."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "fixtures" / "cases" / "timeout-2.4" / "input"


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, input=stdin, cwd=ROOT)


def assert_clean_failure(proc: subprocess.CompletedProcess) -> None:
    err = proc.stderr.decode()
    assert "Traceback" not in err and "Traceback" not in proc.stdout.decode()


def test_missing_path_alone_is_exit_2_with_one_line(tmp_path: Path) -> None:
    proc = run_cli("analyze", str(tmp_path / "nope.log"))
    assert proc.returncode == 2
    assert_clean_failure(proc)
    assert "nope.log" in proc.stderr.decode()


@pytest.mark.parametrize("command", ["analyze", "timeline"])
def test_a_missing_path_next_to_good_input_fails_before_any_report(tmp_path: Path, command: str) -> None:
    """A mistyped path is named once and nothing is printed: a report without that input would
    read as if it had been there."""
    proc = run_cli(command, "--format", "json", str(GOOD), str(tmp_path / "nope.log"), str(tmp_path / "*.gz"))
    assert proc.returncode == 2 and proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].count("nope.log") == 1 and "*.gz" in lines[0]
    assert_clean_failure(proc)


def test_binary_garbage_and_empty_file(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4000)
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    proc = run_cli("analyze", "--format", "json", str(garbage), str(empty))
    assert proc.returncode == 2
    assert_clean_failure(proc)
    assert "nothing readable" in proc.stderr.decode()


def test_truncated_gzip_keeps_what_was_read(tmp_path: Path) -> None:
    text = b"".join(p.read_bytes() for p in sorted(GOOD.iterdir()) if p.name.startswith("payment-events-0.log"))
    packed = gzip.compress(text)
    broken = tmp_path / "dump.log.gz"
    broken.write_bytes(packed[: len(packed) * 2 // 3])
    proc = run_cli("analyze", "--format", "json", "--partition", "payment-events-0", str(broken))
    assert_clean_failure(proc)
    report = json.loads(proc.stdout)
    entry = report["inputs"][0]
    assert "truncated" in entry.get("damage", "") and "error" not in entry and entry["lines"] > 0
    assert report["summary"]["transactions"] > 0
    assert proc.returncode in (0, 1) and "warning:" in proc.stderr.decode()  # by findings, not "nothing readable"


def test_crlf_non_utf8_and_huge_line(tmp_path: Path) -> None:
    source = sorted(GOOD.glob("payment-events-0*.log.txt"))[0].read_bytes()
    crlf = tmp_path / "crlf.log"
    crlf.write_bytes(source.replace(b"\n", b"\r\n"))
    noisy = tmp_path / "noisy.log"
    noisy.write_bytes(source + b"\xff\xfe broken \xc3\x28 bytes\n" + b"x" * 3_000_000 + b"\n")
    a = json.loads(run_cli("analyze", "--format", "json", str(crlf)).stdout)
    b = json.loads(run_cli("analyze", "--format", "json", str(noisy)).stdout)
    assert a["summary"]["transactions"] == b["summary"]["transactions"] > 0
    assert a["inputs"][0]["skipped"] == 0
    assert b["inputs"][0]["skipped"] == 2


def test_stdin(tmp_path: Path) -> None:
    seed = (ROOT / "fixtures" / "cases" / "seed-two-instances" / "input" / "Topic-Test-0.dump.log").read_bytes()
    proc = run_cli("analyze", "--format", "json", "-", stdin=seed)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert [f["rule"] for f in report["findings"]] == ["FEN001"]
    assert report["findings"][0]["evidence"][0]["text"].startswith("offset: 0 ... producerId: 0 producerEpoch: 5")


def test_stdin_spool_is_removed_when_the_command_exits(tmp_path: Path) -> None:
    """The CLI leaves without the interpreter's teardown; its exit handlers still run."""
    import os

    seed = (ROOT / "fixtures" / "cases" / "seed-two-instances" / "input" / "Topic-Test-0.dump.log").read_bytes()
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "-"], input=seed, capture_output=True, cwd=ROOT, env=env)
    assert proc.returncode == 1 and b"FEN001" in proc.stdout
    assert list(tmp_path.iterdir()) == []


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli("analyze").returncode == 2
    assert run_cli("analyze", "--now", "yesterday-ish", str(GOOD)).returncode == 2
    assert run_cli("analyze", "--select", "NOPE999", str(GOOD)).returncode == 2
    bad_rules = tmp_path / "rules"
    bad_rules.mkdir()
    (bad_rules / "x.yaml").write_text("category: fencing\nrules:\n  - id: ZZZ001\n    name: x\n    table: spans\n"
                                      "    severity: error\n    title: t\n    when: {field: nope, eq: 1}\n    message: m\n")
    proc = run_cli("analyze", "--rules", str(bad_rules), str(GOOD))
    assert proc.returncode == 2 and "x.yaml" in proc.stderr.decode() and "nope" in proc.stderr.decode()
    props = tmp_path / "p.properties"
    props.write_text("transaction.timeout.ms=soon\n")
    proc = run_cli("analyze", "--config", str(props), str(GOOD))
    assert proc.returncode == 2 and "p.properties:1" in proc.stderr.decode()
    assert_clean_failure(proc)
