"""Inputs the Spark engine reads in other ways: Hadoop URIs through Spark's file source, stdin on
the driver, large plain dumps in byte ranges, gzip whole; each gives the local engine's findings."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input"
sys.path.insert(0, str(ROOT / "benchmarks"))


def _run(args: list[str], monkeypatch: pytest.MonkeyPatch, cwd: Path = ROOT) -> tuple[int, dict, str]:
    from kafkadiag.cli import app

    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, ["analyze", "--format", "json", "--fail-on", "never", *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, (json.loads(result.stdout) if result.stdout.strip() else {}), result.stderr


def _findings(report: dict, rename=lambda f: f) -> list[dict]:
    out = []
    for f in report["findings"]:
        f = json.loads(json.dumps(f))
        for ev in f.get("evidence", []):
            ev["file"] = rename(ev["file"])
        out.append(f)
    return out


def test_file_uris_read_through_spark_sources(tmp_path: Path, spark_ready: str, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "dumps"
    shutil.copytree(CASE, folder)
    _, local, _ = _run(["--engine", "local", str(folder)], monkeypatch)
    code, spark, err = _run(["--master", spark_ready, f"file://{folder}", f"file://{folder}/*.nothing"], monkeypatch)
    assert code == 0, err
    assert spark["summary"]["engine"]["reason"].startswith("--master")
    files = [i["path"] for i in spark["inputs"] if not i.get("error")]
    assert files == [f"file:{p}" for p in sorted(str(p) for p in folder.iterdir())]  # inputs are numbered in name order
    assert [i["error"] for i in spark["inputs"] if i.get("error")] == [f"no match: file://{folder}/*.nothing"]
    # Spark's file sources skip names starting with "_" even when named: those are streamed by the driver.
    by_driver = [i["path"] for i in spark["inputs"] if any("read by the driver" in n for n in i.get("notes", {}))]
    assert by_driver and all("/__transaction_state" in p for p in by_driver)
    # Same findings; the evidence names the URI and its text was read back through the driver's JVM.
    assert _findings(spark, lambda f: f.removeprefix("file:")) == _findings(local)
    assert any(ev["text"] for f in spark["findings"] for ev in f["evidence"])


def test_stdin_is_read_on_the_driver(spark_ready: str) -> None:
    dump = next(p for p in sorted(CASE.iterdir()) if "transaction_state" not in p.name)
    out = []
    for engine in (["--engine", "local"], ["--engine", "spark", "--master", spark_ready]):
        proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", "--fail-on", "never",
                               *engine, "-"], input=dump.read_bytes(), capture_output=True, cwd=ROOT, timeout=180)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == b""
        report = json.loads(proc.stdout)
        report["summary"].pop("engine")
        report["notes"] = [n for n in report["notes"] if not n.startswith("engine:")]
        out.append(report)
    assert out[0] == out[1] and out[0]["findings"]


def test_large_dump_in_ranges_and_gzip_whole(tmp_path: Path, spark_ready: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dump big enough to be cut into several ranges (one task each), and the same dump gzipped."""
    from kafkasim import generate_bulk

    from kafkadiag.engine.spark import plan

    dump = tmp_path / "bulk.txt"
    generate_bulk(dump, 12 << 20, era="2.4", seed=3)
    monkeypatch.setattr(plan, "MIN_RANGE_BYTES", 1 << 20)
    monkeypatch.setattr(plan, "MAX_RANGE_BYTES", 2 << 20)
    with gzip.open(tmp_path / "bulk.txt.gz", "wb") as z:
        z.write(dump.read_bytes())
    for name in ("bulk.txt", "bulk.txt.gz"):
        _, local, _ = _run(["--engine", "local", name], monkeypatch, tmp_path)
        _, spark, _ = _run(["--engine", "spark", "--master", spark_ready, "--spark-conf",
                            "spark.kafkadiag.oneTaskBytes=0", name], monkeypatch, tmp_path)
        engine = spark["summary"].pop("engine")
        local["summary"].pop("engine")
        assert engine["tasks"] >= (5 if name == "bulk.txt" else 1)
        assert engine["keyed_stages"] == "2 buckets"
        assert spark["summary"] == local["summary"] and local["summary"]["batches"] > 10000
        assert spark["findings"] == local["findings"]
        assert spark["inputs"] == local["inputs"]
