"""``--engine auto|local|spark``: what runs where, and what the user is told when Spark cannot run.

None of these start Spark: the choice is made before anything heavy is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafkadiag.engine import choose
from kafkadiag.engine.choose import EngineError, choose_engine

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "fixtures" / "cases" / "fencing-3.3" / "input"


def _no_pyspark(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(choose, "spark_missing", lambda: "the Spark engine needs pyspark, which is not installed; "
                        "install it with: pip install 'kafka-txn-diag[spark]'")


def test_auto_stays_local_for_small_inputs() -> None:
    choice = choose_engine("auto", None, [str(CASE)])
    assert choice.name == "local" and "below" in choice.reason and not choice.notice


def test_auto_picks_spark_for_master_uri_and_size(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(choose, "spark_missing", lambda: None)
    assert choose_engine("auto", "spark://127.0.0.1:7077", [str(CASE)]).name == "spark"
    uri = choose_engine("auto", None, ["hdfs:///dumps/x.log"])
    assert uri.name == "spark" and "Hadoop URI" in uri.reason
    big = tmp_path / "big.log"
    with big.open("wb") as f:
        f.truncate(3000)  # sparse: the size counts, not the content
    monkeypatch.setattr(choose, "SPARK_AUTO_BYTES", 2048)
    sized = choose_engine("auto", None, [str(tmp_path)])
    assert sized.name == "spark" and sized.reason.startswith("auto:")


def test_auto_stays_local_with_a_notice_without_spark(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _no_pyspark(monkeypatch)
    monkeypatch.setattr(choose, "SPARK_AUTO_BYTES", 10)
    (tmp_path / "a.log").write_text("x" * 100)
    choice = choose_engine("auto", None, [str(tmp_path)])
    assert choice.name == "local" and "pip install 'kafka-txn-diag[spark]'" in choice.notice


def test_spark_without_pyspark_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pyspark(monkeypatch)
    with pytest.raises(EngineError, match=r"pip install 'kafka-txn-diag\[spark\]'"):
        choose_engine("spark", None, [str(CASE)])
    with pytest.raises(EngineError, match="--master"):
        choose_engine("auto", "yarn", [str(CASE)])


def test_local_refuses_master_and_uris() -> None:
    with pytest.raises(EngineError, match="--master needs the Spark engine"):
        choose_engine("local", "yarn", [str(CASE)])
    with pytest.raises(EngineError, match="Hadoop URIs"):
        choose_engine("local", None, ["s3a://bucket/dumps/"])


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


def test_cli_without_java_says_what_to_install(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(bin_dir)  # no java anywhere on it
    proc = _cli("analyze", "--engine", "spark", str(CASE), env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs" in lines[0] and "kafka-txn-diag[spark]" in lines[0], proc.stderr


def test_cli_bad_spark_conf_and_local_master() -> None:
    bad = _cli("analyze", "--engine", "spark", "--spark-conf", "spark.executor.memory", str(CASE))
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr
    mixed = _cli("analyze", "--engine", "local", "--master", "local[2]", str(CASE))
    assert mixed.returncode == 2 and "--master needs the Spark engine" in mixed.stderr


def test_small_dump_on_auto_never_imports_spark() -> None:
    """The default engine on a small input answers without importing pyspark (no JVM)."""
    code = ("import sys; from kafkadiag.cli import app\n"
            "try:\n    app(['analyze', '--format', 'json', '-o', '/dev/null', sys.argv[1]], standalone_mode=False)\n"
            "except SystemExit: pass\n"
            "print('pyspark' in sys.modules, 'py4j' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code, str(CASE)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.stdout.strip().splitlines()[-1] == "False False", proc.stdout + proc.stderr
