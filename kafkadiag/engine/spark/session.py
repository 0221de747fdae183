"""Start (or find) the Spark session a run uses, quietly and on loopback for local masters.

Executors must run the same Python as the driver (``PYSPARK_PYTHON``); a local master must not
listen on the machine's public interfaces; pyspark's and the JVM's chatter must not reach the
user's terminal (it goes to a log file whose path is given when something fails); pyspark 4's
warning about pandas 3 is the extra's business (it pins pandas below 3), not the user's.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
import warnings
from typing import Any, Mapping

from . import class_archive

#: Said when ``--engine spark`` cannot run here; ``auto`` says it as a notice and stays local.
INSTALL_HINT = ("install it with: pip install 'kafka-txn-diag[spark]' (from a checkout: pip install '.[spark]'), "
                "and a Java 17 or 21 runtime on PATH or in JAVA_HOME")


class SparkUnavailable(Exception):
    """Spark cannot run here (no pyspark, no Java, the session did not start): one line for the user."""


class SparkFailed(Exception):
    """A Spark job failed (an executor could not import the package, a task kept failing): one line."""


def first_error(exc: BaseException) -> str:
    """The line of a Spark or Java error that says what happened, not the stack around it."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    for line in lines:
        for marker in ("ModuleNotFoundError", "ImportError", "Exception:", "Error:"):
            if marker in line and not line.startswith("at "):
                return line[:400]
    return (lines[0] if lines else type(exc).__name__)[:400]


def spark_missing() -> str | None:
    """What is missing for the Spark engine, or None; cheap (nothing is imported or started)."""
    if importlib.util.find_spec("pyspark") is None:
        return "the Spark engine needs pyspark, which is not installed; " + INSTALL_HINT
    java_home = os.environ.get("JAVA_HOME", "")
    if not (java_home and os.path.exists(os.path.join(java_home, "bin", "java"))) and shutil.which("java") is None:
        return "the Spark engine needs Java, which was not found; " + INSTALL_HINT
    return None


#: JVM options of a local master's driver (``--spark-conf spark.driver.defaultJavaOptions=`` replaces them).
LOCAL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1"


def local_driver_gb() -> int:
    """JVM heap for a local master: a quarter of this machine's memory, between 1 and 8 GB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2
    return max(1, min(8, total // (4 << 30)))


def is_local_master(master: str) -> bool:
    return master == "local" or master.startswith("local[") or master.startswith("local-cluster[")


_session: Any = None
_archive: class_archive.ClassArchive | None = None  # the class archive this run's JVM maps or writes
_proc: Any = None  # the driver JVM this process launched
_log_path: str | None = None
_log_cited = False


def log_path() -> str | None:
    """Where the JVM's own output of this run went; an error that names it keeps it after the run."""
    global _log_cited
    _log_cited = _log_path is not None
    return _log_path


def under_spark_submit() -> bool:
    """Started by ``spark-submit``: its JVM is already up and holds the master and resources."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def start_session(master: str | None, conf: Mapping[str, str]) -> Any:
    """The run's SparkSession with the user's ``--spark-conf`` applied last.

    ``master`` None: the one spark-submit was given, else ``local[*]``.
    """
    global _session, _log_path, _archive, _proc
    missing = spark_missing()
    if missing:
        raise SparkUnavailable(missing)
    if _session is not None:
        return _session
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    settings = {
        "spark.app.name": "kafkadiag",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        # Results of a task are reduced events, not raw rows; they may still be tens of MB.
        "spark.driver.maxResultSize": "0",
        "spark.python.worker.reuse": "true",
    }
    _archive, _proc = None, None
    if under_spark_submit():
        return _join_submitted(master, {**settings, **conf})
    master = master or "local[*]"
    if is_local_master(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        settings.update({"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
                         # A local master's tasks run in the driver's JVM: Spark's 1 GB default ran out
                         # of heap on 10 GB of dumps. A quarter of the machine's memory, 1 to 8 GB.
                         "spark.driver.memory": f"{local_driver_gb()}g",
                         # The JVM of a local run lives seconds and only moves bytes between Python
                         # workers; its optimising compiler (C2) cost more CPU than it saved: 1 GB on
                         # local[2], JVM CPU 1.3-1.6 -> 0.8 s, engine 3.0-3.3 -> 2.8 s. As default
                         # options, so that extraJavaOptions (spark-defaults.conf, --spark-conf) add to them.
                         "spark.driver.defaultJavaOptions": LOCAL_JVM_OPTIONS})
        if "spark.driver.defaultJavaOptions" not in conf:
            _archive = class_archive.prepare(LOCAL_JVM_OPTIONS, conf.get(class_archive.ARCHIVE_CONF, "true").lower() != "false")
            if _archive is not None:
                settings["spark.driver.defaultJavaOptions"] = f"{LOCAL_JVM_OPTIONS} {_archive.option}"
    settings.update(conf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pyspark import SparkConf, SparkContext
        from pyspark.java_gateway import launch_gateway
        from pyspark.sql import SparkSession

    spark_conf = SparkConf().setMaster(master)
    for key, value in settings.items():
        spark_conf.set(key, value)
    fd, _log_path = tempfile.mkstemp(prefix="kafkadiag-spark-", suffix=".log")
    log = os.fdopen(fd, "wb")
    try:
        gateway = launch_gateway(spark_conf, popen_kwargs={"stdout": log, "stderr": log})
        _proc = getattr(gateway, "proc", None)
        context = SparkContext(gateway=gateway, conf=spark_conf)
    except Exception as exc:  # the JVM did not start or refused the master
        raise SparkUnavailable(f"Spark did not start on {master}: {first_error(exc)} (JVM log: {_log_path})") from None
    finally:
        log.close()
    context.setLogLevel("ERROR")
    _session = SparkSession(context)
    import atexit

    atexit.register(stop_session)
    return _session


def _join_submitted(master: str | None, settings: Mapping[str, str]) -> Any:
    """Inside spark-submit: build on its configuration (master, deploy mode) instead of replacing it."""
    global _session
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pyspark.sql import SparkSession

    builder = SparkSession.builder
    if master:
        builder = builder.master(master)
    for key, value in settings.items():
        builder = builder.config(key, value)
    _session = builder.getOrCreate()
    _session.sparkContext.setLogLevel("ERROR")
    return _session


def stop_session() -> None:
    """Stop the run's session (tests start several masters in one process)."""
    global _session, _log_path, _log_cited, _archive, _proc
    if _session is not None:
        try:
            _session.stop()
        except Exception:  # the JVM is already gone: nothing left to stop
            pass
        _session = None
        if _proc is not None:
            # Let the driver JVM this process launched exit (it does at the end of its input), and
            # forget its gateway: pyspark would hand it to the next session of this process instead
            # of the JVM that session launches. A first run waits: its JVM writes the class archive.
            if _archive is not None and _archive.part is not None:
                class_archive.finish(_archive, _proc)
            elif _proc.stdin is not None:
                with contextlib.suppress(OSError):
                    _proc.stdin.close()
            from pyspark import SparkContext

            SparkContext._gateway, SparkContext._jvm = None, None
        _archive, _proc = None, None
        if _log_path and not _log_cited:  # a run that went well leaves no JVM log behind
            with contextlib.suppress(OSError):
                os.unlink(_log_path)
        _log_path, _log_cited = None, False
