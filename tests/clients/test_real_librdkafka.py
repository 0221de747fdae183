"""Real librdkafka runs (confluent-kafka against the built-in mock cluster), then `kafkadiag analyze`.

Each scenario of ``scenarios.py`` runs once per module into a temporary folder. Two kinds of checks:

* the raw logs contain the librdkafka markers the scenario is about (facilities, error names,
  state changes). They pin the client's wording: when a confluent-kafka/librdkafka upgrade
  changes it, these fail first and ``regenerate_fixtures.py`` plus the readers need a look;
* ``kafkadiag analyze --format json`` on the captured files diagnoses what happened, for every
  form the same evidence arrives in: librdkafka's native lines, their Python ``logging``
  re-emit, the application's own log with the traceback, and all of them together.

Category of a message timeout inside a transaction (scenario ``message-timeout``): librdkafka
documents ``message.timeout.ms`` as a *local* limit on the time a produced message may take to be
delivered, including retries; with a ``transactional.id`` it is only capped by
``transaction.timeout.ms``. ``_MSG_TIMED_OUT`` therefore means the client gave up on delivery
(here after a ProduceRequest timed out in flight, REQTMOUT, against a broker that stopped
answering) and made the transaction abortable; the coordinator never timed the transaction out,
and no ``transaction.timeout.ms`` expired. That is category ``request-timeout``, not
``transaction-timeout``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from tests.clients.mockcluster import MockCluster
from tests.clients.scenarios import SCENARIOS, ScenarioResult

pytestmark = pytest.mark.slow  # the real librdkafka client against its mock cluster, with real timeouts

ROOT = Path(__file__).resolve().parents[2]
NATIVE_LINE = re.compile(r"^%[0-7]\|\d{9,}\.\d{3}\|[A-Z0-9_]+\|orders-svc#producer-\d+\| \[thrd:[^\]]*\]: ")
PYLOG_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) orders_service\.kafka: "
    r"[A-Z0-9_]+ \[orders-svc#producer-\d+\] \[thrd:[^\]]*\]: "
)
VARIANTS = ("native", "python-logging", "app", "all")
# The app log of a clean run holds only progress lines; it need not be recognised as a Kafka log.
QUIET_VARIANTS = ("native", "python-logging", "all")
APP_EVIDENCE = ("fenced", "message-timeout")
PROBLEMS = ("warning", "error")


@dataclass
class Report:
    """`kafkadiag analyze --format json` output for some captured files."""

    returncode: int
    stderr: str
    data: dict
    paths: list[Path]

    def findings(self, category: str | None = None, severities: tuple[str, ...] = PROBLEMS) -> list[dict]:
        return [
            f for f in self.data.get("findings", [])
            if f["severity"] in severities and (category is None or f["category"] == category)
        ]

    def describe(self) -> str:
        """Findings and input table, for assertion messages."""
        rows = [
            (f["severity"], f["category"], f["rule"], f["subject"].get("transactional_id"))
            for f in self.data.get("findings", [])
        ]
        inputs = [(i["path"], i["kind"], i["lines"], i["skipped"]) for i in self.data.get("inputs", [])]
        return f"findings={rows} inputs={inputs} rc={self.returncode} stderr={self.stderr[-500:]}"


def analyze(paths: list[Path], *extra: str) -> Report:
    proc = subprocess.run(
        [sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", *extra, *map(str, paths)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    try:
        data = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except json.JSONDecodeError:
        data = {}
    return Report(proc.returncode, proc.stderr, data, paths)


def variant_paths(result: ScenarioResult, variant: str) -> list[Path]:
    files = result.files
    single = {"native": [files.native], "python-logging": [files.python_logging], "app": [files.app]}
    return single.get(variant, files.all())


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], ScenarioResult]:
    """Runs each scenario at most once per module (they take seconds, the checks take none)."""
    cache: dict[str, ScenarioResult] = {}

    def run(name: str) -> ScenarioResult:
        if name not in cache:
            cache[name] = SCENARIOS[name](tmp_path_factory.mktemp(name))
        return cache[name]

    return run


@pytest.fixture(scope="module")
def analyzed(recorded: Callable[[str], ScenarioResult]) -> Callable[[str, str], Report]:
    """`analyze --fail-on never` on one variant of a scenario's logs, cached per (scenario, variant)."""
    cache: dict[tuple[str, str], Report] = {}

    def run(name: str, variant: str) -> Report:
        if (name, variant) not in cache:
            cache[(name, variant)] = analyze(variant_paths(recorded(name), variant), "--fail-on", "never")
        return cache[(name, variant)]

    return run


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def native_lines(result: ScenarioResult, facility: str) -> list[str]:
    return [line for line in read(result.files.native).splitlines() if f"|{facility}|" in line]


def assert_read(report: Report, scenario: str) -> None:
    """The inputs carrying client evidence were recognised and read: else quiet proves nothing."""
    assert report.returncode == 0, report.describe()
    inputs = {Path(i["path"]).name: i for i in report.data["inputs"]}
    for path in report.paths:
        if path.name == "app.log" and len(report.paths) > 1 and scenario not in APP_EVIDENCE:
            continue
        entry = inputs[path.name]
        assert entry["kind"] != "unknown" and entry["skipped"] < entry["lines"], report.describe()


def assert_names_txn(findings: list[dict], transactional_id: str, report: Report) -> None:
    assert any(f["subject"].get("transactional_id") == transactional_id for f in findings), report.describe()


# --- the mock cluster helper -------------------------------------------------------------------


def test_mock_cluster_starts_and_tears_down() -> None:
    with MockCluster(brokers=2) as cluster:
        servers = cluster.bootstrap_servers.split(",")
        assert len(servers) == 2 and all(re.fullmatch(r"[\w.\-]+:\d+", s) for s in servers)
        cluster.create_topic("t", partitions=2)
        cluster.set_rtt(1, 10)
        cluster.set_down(2)
        cluster.set_up(2)
    cluster.close()  # idempotent


# --- raw logs: the librdkafka markers each scenario must show -----------------------------------


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_log_formats(recorded: Callable[[str], ScenarioResult], name: str) -> None:
    """Native lines in librdkafka's stderr shape; the Python re-emit holds the same records."""
    result = recorded(name)
    native = read(result.files.native).splitlines()
    pylog = read(result.files.python_logging).splitlines()
    assert native and all(NATIVE_LINE.match(line) for line in native), [l for l in native if not NATIVE_LINE.match(l)][:3]
    assert all(PYLOG_LINE.match(line) for line in pylog), [l for l in pylog if not PYLOG_LINE.match(l)][:3]
    assert len(pylog) == len(native)
    tid = result.outcome["transactional_id"]
    assert any(f"| [thrd:app]:   transactional.id = {tid}" in line for line in native_lines(result, "CONF"))
    assert f"Transactional producer ready: transactional.id={tid}" in read(result.files.app)
    assert native_lines(result, "GETPID") and "Acquired PID{Id:" in "".join(native_lines(result, "GETPID"))


def test_fenced_raw_logs(recorded: Callable[[str], ScenarioResult]) -> None:
    result = recorded("fenced")
    err = result.outcome["api_errors"][0]
    assert (err["name"], err["fatal"], err["txn_requires_abort"]) == ("_FENCED", True, False), err
    addparts = " ".join(native_lines(result, "ADDPARTS"))
    assert "Failed to add partition" in addparts and "fences the current one" in addparts
    txnerr = native_lines(result, "TXNERR")
    fatal = [line for line in txnerr if line.startswith("%2|") and "Fatal transaction error" in line]
    assert any("(_FENCED)" in line for line in fatal), txnerr
    assert any("fenced by a newer instance" in line for line in native_lines(result, "FATAL"))
    assert "Transaction state change BeginCommit -> FatalError" in read(result.files.native)
    pylog = read(result.files.python_logging)
    assert re.search(r" CRITICAL orders_service\.kafka: TXNERR \[orders-svc#producer-\d+\] .*\(_FENCED\)", pylog)
    app = read(result.files.app)
    assert " ERROR orders_service: commit_transaction failed" in app and "Traceback (most recent call last):" in app
    assert 'KafkaException: KafkaError{FATAL,code=_FENCED,val=-144,str="' in app and "fatal=True" in app


def test_abortable_raw_logs(recorded: Callable[[str], ScenarioResult]) -> None:
    result = recorded("abortable")
    err = result.outcome["api_errors"][0]
    assert (err["name"], err["fatal"], err["txn_requires_abort"]) == ("TRANSACTION_ABORTABLE", False, True), err
    assert (result.outcome["commits"], result.outcome["aborts"]) == (2, 1)
    native = read(result.files.native)
    assert "encountered error: Broker: Not enough in-sync replicas (actions Retry" in native  # retried, then delivered
    txnerr = native_lines(result, "TXNERR")
    assert any(line.startswith("%3|") and "(TRANSACTION_ABORTABLE)" in line for line in txnerr), txnerr
    for marker in ("-> AbortableError", "AbortableError -> BeginAbort", "Transaction successfully aborted"):
        assert marker in native, marker
    assert native.count("Transaction successfully committed") == 2
    assert not native_lines(result, "FATAL") and "Fatal transaction error" not in native
    app = read(result.files.app)
    assert "KafkaException: KafkaError{code=TRANSACTION_ABORTABLE,val=120" in app and "txn_requires_abort=True" in app


def test_message_timeout_raw_logs(recorded: Callable[[str], ScenarioResult]) -> None:
    result = recorded("message-timeout")
    err = result.outcome["api_errors"][0]
    assert (err["name"], err["fatal"], err["txn_requires_abort"]) == ("_TIMED_OUT", False, True), err
    assert "_MSG_TIMED_OUT" in result.outcome["delivery_errors"]
    reqtmout = " ".join(native_lines(result, "REQTMOUT"))
    assert "Timed out ProduceRequest in flight" in reqtmout
    assert re.search(r"^%4\|[^|]+\|REQTMOUT\|", read(result.files.native), re.M)
    assert "message.timeout.ms exceeded" in " ".join(native_lines(result, "TIMEOUT"))
    txnerr = native_lines(result, "TXNERR")
    assert any("timed out on orders [0] (_TIMED_OUT, requires epoch bump)" in line for line in txnerr), txnerr
    # the abort bumps the epoch itself: a client-side bump, not a newer instance
    assert re.search(r"Acquired PID\{Id:(\d+),Epoch:1\} \(previous PID\{Id:\1,Epoch:0\}\)", read(result.files.native))
    app = read(result.files.app)
    assert "code=_MSG_TIMED_OUT" in app and "KafkaException: KafkaError{code=_TIMED_OUT" in app


def test_healthy_raw_logs(recorded: Callable[[str], ScenarioResult]) -> None:
    result = recorded("healthy")
    native = read(result.files.native)
    assert (result.outcome["commits"], result.outcome["aborts"]) == (4, 1)
    assert native.count("Transaction successfully committed") == 4 and native.count("Transaction successfully aborted") == 1
    assert not re.search(r"^%[0-4]\|", native, re.M), "librdkafka logged a warning or worse"
    assert not re.search(r" (WARNING|ERROR|CRITICAL) ", read(result.files.python_logging) + read(result.files.app))


# --- diagnosis: kafkadiag analyze on the captured logs ------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_fenced_is_diagnosed(analyzed: Callable[[str, str], Report], variant: str) -> None:
    """(a) fatal _FENCED / PRODUCER_FENCED: a fencing finding naming the transactional.id."""
    report = analyzed("fenced", variant)
    assert_read(report, "fenced")
    fencing = report.findings("fencing")
    assert fencing, report.describe()
    assert_names_txn(fencing, "orders-tx-fenced", report)


@pytest.mark.parametrize("variant", QUIET_VARIANTS)
def test_abort_and_retry_is_healthy(analyzed: Callable[[str, str], Report], variant: str) -> None:
    """(b) retriable errors, an abortable error, abort_transaction() and a good retry: handled."""
    report = analyzed("abortable", variant)
    assert_read(report, "abortable")
    assert not report.findings("fencing", ("error",)), report.describe()
    assert not report.findings(severities=("error",)), report.describe()


@pytest.mark.parametrize("variant", VARIANTS)
def test_message_timeout_is_a_request_timeout(analyzed: Callable[[str, str], Report], variant: str) -> None:
    """(c) _MSG_TIMED_OUT inside a transaction: request-timeout (see the module docstring)."""
    report = analyzed("message-timeout", variant)
    assert_read(report, "message-timeout")
    timeouts = report.findings("request-timeout")
    assert timeouts, report.describe()
    assert_names_txn(timeouts, "orders-tx-timeout", report)
    assert not report.findings("transaction-timeout", ("error",)), report.describe()
    assert not report.findings("fencing"), report.describe()  # the epoch bump after the abort is the client's own


@pytest.mark.parametrize("variant", QUIET_VARIANTS)
def test_healthy_run_is_quiet(analyzed: Callable[[str, str], Report], variant: str) -> None:
    """(d) init, commits, a client abort and close: no warning or error."""
    report = analyzed("healthy", variant)
    assert_read(report, "healthy")
    assert not report.findings(), report.describe()


def test_exit_codes_follow_the_findings(recorded: Callable[[str], ScenarioResult]) -> None:
    """CI use: the fenced run fails the default gate, the healthy run passes even --fail-on warning."""
    fenced = analyze(recorded("fenced").files.all())
    assert fenced.returncode == 1, fenced.describe()
    healthy = analyze(recorded("healthy").files.all(), "--fail-on", "warning")
    assert healthy.returncode == 0, healthy.describe()
