"""A real Spark standalone cluster: a master and one worker on 127.0.0.1, started from pyspark's
own distribution; ``kafkadiag analyze --master spark://...`` ships the package to the executor
and reports exactly what the local engine reports. Everything started here is stopped here.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = [ROOT / "fixtures" / "cases" / "fencing-3.3" / "input", ROOT / "fixtures" / "logs"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent)


def _start(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [os.path.join(_spark_home(), "bin", "spark-class"), *args],
        stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env, start_new_session=True,
    )


def _wait_for(log: Path, text: str, proc: subprocess.Popen, seconds: float = 40) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    pytest.fail(f"{text!r} not seen in {log.name}:\n{log.read_text(errors='replace')[-2000:]}")


@pytest.fixture(scope="module")
def cluster(spark_ready, tmp_path_factory):
    work = tmp_path_factory.mktemp("standalone")
    port = _free_port()
    env = {**os.environ, "SPARK_HOME": _spark_home(), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(work),
           "SPARK_WORKER_DIR": str(work / "worker")}
    master = _start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                     "--webui-port", "0"], work / "master.log", env)
    procs = [master]
    try:
        _wait_for(work / "master.log", "I have been elected leader", master)
        worker = _start(["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--webui-port", "0",
                         "--cores", "2", "--memory", "2g", f"spark://127.0.0.1:{port}"], work / "worker.log", env)
        procs.append(worker)
        _wait_for(work / "worker.log", "Successfully registered with master", worker)
        yield f"spark://127.0.0.1:{port}"
    finally:
        for proc in reversed(procs):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _analyze(*args: str, env: dict | None = None) -> dict:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", "--fail-on", "never",
                           *args], capture_output=True, text=True, cwd=ROOT, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr  # nothing of Spark's or the JVM's chatter reaches the user
    return json.loads(proc.stdout)


def test_standalone_cluster_matches_local(cluster: str, tmp_path: Path) -> None:
    paths = [str(p.relative_to(ROOT)) for p in CASES]
    temp = tmp_path / "temp"
    temp.mkdir()
    spark = _analyze("--master", cluster, "--spark-conf", "spark.executor.memory=1g",
                     "--spark-conf", "spark.kafkadiag.oneTaskBytes=0", *paths,  # shuffles, as a large input has
                     env={**os.environ, "TMPDIR": str(temp)})
    assert list(temp.iterdir()) == []  # the shipped package and the JVM's log are gone with the run
    local = _analyze("--engine", "local", *paths)
    engine = spark["summary"].pop("engine")
    assert engine["name"] == "spark" and engine["master"] == cluster
    assert engine["executors_ran"] == ["shipped package"]
    assert engine["keyed_stages"] == "2 buckets"
    local["summary"].pop("engine")
    assert spark["findings"] == local["findings"] and spark["findings"]
    assert spark["inputs"] == local["inputs"]
    assert spark["summary"] == local["summary"]
