"""The JVM a local master starts runs with the options kafkadiag chose for short local runs."""

from __future__ import annotations

import os

from kafkadiag.engine.spark import session
from kafkadiag.engine.spark.session import LOCAL_JVM_OPTIONS, start_session, stop_session


def test_local_jvm_runs_with_the_client_compiler_only(spark_ready: str) -> None:
    spark = start_session(spark_ready, {})
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    arguments = list(runtime.getInputArguments())
    assert all(option in arguments for option in LOCAL_JVM_OPTIONS.split()), arguments


def _workers_in_task(_item: int) -> int:
    from kafkadiag.engine.spark.task import claim_task_cores
    from kafkadiag.readers.prefetch import default_workers

    claim_task_cores()
    return default_workers()


def test_a_task_scans_with_the_cores_spark_gave_it(spark_ready: str) -> None:
    spark = start_session(spark_ready, {})
    assert spark.sparkContext.parallelize([0, 1], 2).map(_workers_in_task).collect() == [1, 1]


def test_the_option_leaves_room_for_the_user_s_extra_java_options(spark_ready: str) -> None:
    """Set as default options: extraJavaOptions from spark-defaults.conf or --spark-conf add to them."""
    conf = start_session(spark_ready, {}).sparkContext.getConf()
    assert conf.get("spark.driver.defaultJavaOptions").startswith(LOCAL_JVM_OPTIONS)
    assert conf.get("spark.driver.extraJavaOptions", "") != LOCAL_JVM_OPTIONS


def test_the_jvm_log_stays_only_when_an_error_names_it(spark_ready: str) -> None:
    """A run that went well leaves nothing in the temp folder; one whose error cites the log keeps it."""
    start_session(spark_ready, {})
    quiet = session._log_path
    stop_session()
    assert quiet and not os.path.exists(quiet)

    start_session(spark_ready, {})
    cited = session.log_path()  # what an error message does
    stop_session()
    try:
        assert cited and os.path.exists(cited)
    finally:
        os.unlink(cited)


def _jvm_arguments(spark) -> list[str]:
    return list(spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())


def test_the_first_session_writes_the_class_archive_and_the_next_maps_it(spark_ready: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("KAFKADIAG_CACHE_DIR", str(tmp_path))
    stop_session()
    first = start_session(spark_ready, {})
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in _jvm_arguments(first))
    stop_session()  # waits for the JVM to write it
    (archive,) = tmp_path.glob("spark-classes-*.jsa")
    assert archive.stat().st_size > 1_000_000 and not list(tmp_path.glob("*.part"))

    second = start_session(spark_ready, {})
    assert f"-XX:SharedArchiveFile={archive}" in _jvm_arguments(second)
    assert second.sparkContext.parallelize(range(10), 2).sum() == 45
    stop_session()
    third = start_session(spark_ready, {"spark.kafkadiag.classArchive": "false"})
    assert not any("Archive" in a for a in _jvm_arguments(third))
    stop_session()
