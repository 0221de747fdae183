"""Spark engine tests: real PySpark on a local master, one session for the whole module run.

They are marked ``spark`` and left out of the default run (a JVM start and a Spark job per case
take minutes); CI runs them with ``pytest -m spark``. Without pyspark or Java they are skipped,
unless ``KAFKADIAG_REQUIRE_SPARK=1`` (set by CI) makes that a failure.
"""

from __future__ import annotations

import os

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
