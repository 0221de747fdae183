"""Spark engine tests: real PySpark on a local master, one session for the whole module run.

They are marked ``spark`` and left out of the default run (a JVM start and a Spark job per case
take minutes); CI runs them with ``pytest -m spark``. Without pyspark or Java they are skipped,
unless ``KAFKADIAG_REQUIRE_SPARK=1`` (set by CI) makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from kafkadiag.engine.spark import spark_missing

MASTER = "local[2]"


def pytest_collection_modifyitems(items) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here + os.sep):
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session")
def spark_ready() -> str:
    missing = spark_missing()
    if missing:
        if os.environ.get("KAFKADIAG_REQUIRE_SPARK"):
            pytest.fail(missing)
        pytest.skip(missing)
    return MASTER


@pytest.fixture(scope="session", autouse=True)
def class_archive_folder():
    """The driver JVM's class archive goes to a folder of this test run, removed at its end."""
    if os.environ.get("KAFKADIAG_CACHE_DIR"):
        yield os.environ["KAFKADIAG_CACHE_DIR"]
        return
    folder = tempfile.mkdtemp(prefix="kafkadiag-test-cache-")
    os.environ["KAFKADIAG_CACHE_DIR"] = folder
    try:
        yield folder
    finally:
        from kafkadiag.engine.spark.session import stop_session

        stop_session()
        del os.environ["KAFKADIAG_CACHE_DIR"]
        shutil.rmtree(folder, ignore_errors=True)
