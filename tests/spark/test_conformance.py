"""Both engines give the same report on every fixture and on every simulated incident of every era.

The whole JSON report is compared (findings with rule, category, severity, subject, evidence
file, line and text, fixes; the inputs table; the summary counts), except the line that says
which engine ran. Both runs go through the command line in this process, with absolute paths.
A Spark job spends most of its time waiting on the scheduler, so the Spark runs of all cases are
started first, a few at a time on the one session, the local runs are made meanwhile in the main
thread, and each test then compares its case.

Inputs this small run the keyed stages in one Spark task; a sample of the cases (every
``SHUFFLED_EVERY``-th) is also run with the shuffles a large input gets (one task per bucket and
stage), which the other Spark tests use too.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.casebook import ROOT, fixture_cases, json_report

sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402

ERAS = ["0.11", "1.1", "2.0", "2.1", "2.4", "2.4.1", "2.8", "3.0", "3.3", "3.5", "4.0", "4.1"]
SCENARIOS = [
    "commit", "client-abort", "fencing", "timeout", "hanging", "lost-marker", "expiration", "expired-zombie",
    "unstable-ids", "sequence-gap", "sequence-duplicate", "restart", "txnlog-compaction", "invalid-transition", "mixed",
]
# Named at collection (the cases are parameters), made only when the Spark runs start, removed after.
SIMULATED = Path(tempfile.gettempdir()) / f"kafkadiag-conformance-{os.getpid()}"
CONCURRENT_RUNS = 3
SHUFFLED_EVERY = 6
SHUFFLED = ["--spark-conf", "spark.kafkadiag.oneTaskBytes=0"]


def _cases() -> dict[str, tuple[Path, list[str]]]:
    """id -> (folder, analyze arguments relative to it) for every fixture and simulated case."""
    cases = fixture_cases()
    for era in ERAS:
        for scenario in SCENARIOS:
            cases[f"simulated/{era}/{scenario}"] = (SIMULATED / era / scenario, [])
    return cases


CASES = _cases()


def _simulate() -> None:
    for era in ERAS:
        for scenario in SCENARIOS:
            folder = SIMULATED / era / scenario
            if not folder.exists():
                simulate.generate(scenario, era, folder, seed=1)


def report(case: str, engine: list[str]) -> dict:
    """The JSON report of ``kafkadiag analyze`` on a case, without the engine's own line."""
    folder, args = CASES[case]
    return json_report(folder, args, engine)


@pytest.fixture(scope="module")
def simulated_cases() -> Iterator[Path]:
    """The simulated cases on disk for this module's tests, and gone afterwards."""
    _simulate()
    yield SIMULATED
    shutil.rmtree(SIMULATED, ignore_errors=True)


@pytest.fixture(scope="module")
def spark_reports(spark_ready: str, simulated_cases: Path) -> dict[str, dict | BaseException]:
    engine = ["--engine", "spark", "--master", spark_ready]

    def one_run(case: str, args: list[str]):
        try:
            return report(case, args)
        except BaseException as exc:  # reported by the test of that case
            return exc

    report(next(iter(CASES)), engine)  # the session and its workers start once, not in every thread
    runs = [(case, []) for case in CASES] + [(case, SHUFFLED) for case in SHUFFLED_CASES]
    # typer sets PYDANTIC_DISABLE_PLUGINS while it builds a parameter and deletes it after when it was
    # unset: two threads parsing at once delete it twice (KeyError). Set beforehand, it is only restored.
    previous = os.environ.get("PYDANTIC_DISABLE_PLUGINS")
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "1"
    try:
        with ThreadPoolExecutor(max_workers=CONCURRENT_RUNS) as pool:
            spark = pool.map(lambda run: one_run(run[0], engine + run[1]), runs)
            # The Spark runs mostly wait on the JVM: the local reports are made meanwhile, in this thread.
            local = {case: one_run(case, ["--engine", "local"]) for case in CASES}
            results = list(spark)
    finally:
        if previous is None:
            os.environ.pop("PYDANTIC_DISABLE_PLUGINS", None)
        else:
            os.environ["PYDANTIC_DISABLE_PLUGINS"] = previous
    reports = {(case, bool(extra)): result for (case, extra), result in zip(runs, results)}
    reports.update({("local", case): result for case, result in local.items()})
    return reports


SHUFFLED_CASES = list(CASES)[::SHUFFLED_EVERY]


def _compare(spark, local) -> None:
    for result in (spark, local):
        if isinstance(result, BaseException):
            raise result
    assert spark["findings"] == local["findings"]
    assert spark == local


@pytest.mark.parametrize("case", list(CASES))
def test_same_report(case: str, spark_reports: dict) -> None:
    _compare(spark_reports[(case, False)], spark_reports[("local", case)])


@pytest.mark.parametrize("case", SHUFFLED_CASES)
def test_same_report_with_shuffles(case: str, spark_reports: dict) -> None:
    _compare(spark_reports[(case, True)], spark_reports[("local", case)])
