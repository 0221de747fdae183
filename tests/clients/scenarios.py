"""Real transactional producer runs against librdkafka's mock cluster, with their logs captured.

Every scenario runs a confluent-kafka ``Producer`` (the bundled librdkafka) with a
``transactional.id`` against a ``MockCluster`` and writes three files, the evidence an on-call
engineer gets from a Python service:

* ``librdkafka.log``: the client's log lines in librdkafka's own stderr format
  ``%<level>|<seconds>.<millis>|<FACILITY>|<client name>| [thrd:...]: <msg>``, rebuilt from the
  ``logger`` callback fields (facility, client name and message are passed through untouched);
* ``python-logging.log``: the same records as confluent-kafka re-emits them through Python
  ``logging`` (``"%s [%s] %s" % (fac, name, msg)``), formatted with
  ``%(asctime)s %(levelname)s %(name)s: %(message)s``;
* ``app.log``: what the application itself logs with that formatter: its progress, delivery
  failures, ``error_cb`` calls and the ``KafkaException``s of the transactional API, with their
  ``name/code/fatal/retriable/txn_requires_abort`` fields and a Python traceback.

Two things are lost on the way through confluent-kafka's logger and cannot be recovered: the
syslog level is mapped to a Python level (0-2 -> CRITICAL, 5-6 -> INFO), so ``librdkafka.log``
writes those back as 2 and 6 (librdkafka itself prints ``FATAL`` at 0 and a fatal ``TXNERR`` at
1, NOTICE lines at 5); and records are queued by librdkafka (``log.queue``) and handed to Python
on ``poll()``, so a background thread polls every few milliseconds to keep the timestamps within
a poll interval of the real emission time. Times in the Python formats are UTC.

The mock cluster has no natural fencing, coordinator timeouts or read_committed filtering, so
failures are injected per request type; each scenario says which request fails and why that
is what a real cluster would answer.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from confluent_kafka import KafkaError, KafkaException, Producer, libversion, version

from tests.clients.mockcluster import ApiKey, MockCluster

TOPIC = "orders"
CLIENT_ID = "orders-svc"
KAFKA_LOGGER = "orders_service.kafka"
APP_LOGGER = "orders_service"
API_TIMEOUT_S = 5.0
PY_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# confluent-kafka maps syslog levels 0-7 to Python levels; this is the way back (lossy, see above).
SYSLOG_LEVEL = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}
PID_RE = re.compile(r"Acquired PID\{Id:(\d+),Epoch:(\d+)\}")


@dataclass
class LogFiles:
    """The three files one run writes."""

    native: Path
    python_logging: Path
    app: Path

    def all(self) -> list[Path]:
        return [self.native, self.python_logging, self.app]


@dataclass
class ScenarioResult:
    """Where a run's logs are and what happened in it (ground truth for assertions)."""

    name: str
    files: LogFiles
    outcome: dict


class NativeFormatHandler(logging.Handler):
    """Writes confluent-kafka logger records back in librdkafka's stderr line format."""

    def __init__(self, path: Path) -> None:
        super().__init__(logging.DEBUG)
        self.stream = path.open("w", encoding="utf-8", newline="\n")
        self.client_names: set[str] = set()
        self.pids: list[dict] = []
        self._facilities: set[str] = set()
        self._seen = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        if not (isinstance(record.args, tuple) and len(record.args) == 3):
            return  # not a librdkafka record
        fac, name, msg = (str(a) for a in record.args)
        secs, millis = int(record.created), int((record.created % 1) * 1000)
        level = SYSLOG_LEVEL.get(record.levelno, 7)
        with self.lock:
            self.stream.write(f"%{level}|{secs}.{millis:03d}|{fac}|{name}| {msg}\n")
            self.client_names.add(name)
            if m := PID_RE.search(msg):
                self.pids.append({"client": name, "producer_id": int(m[1]), "epoch": int(m[2])})
        with self._seen:
            self._facilities.add(fac)
            self._seen.notify_all()

    def wait_for(self, facility: str, timeout_s: float) -> bool:
        """Block until librdkafka has logged a line of ``facility`` (the poller delivers them)."""
        with self._seen:
            return self._seen.wait_for(lambda: facility in self._facilities, timeout_s)

    def close(self) -> None:
        self.stream.close()
        super().close()


class _RepoFormatter(logging.Formatter):
    """Tracebacks name files relative to the repository, so a recorded log says nothing of the machine."""

    root = str(Path(__file__).resolve().parents[2]) + "/"

    def formatException(self, ei) -> str:  # noqa: N802 - logging's name
        return super().formatException(ei).replace(self.root, "")


def _file_handler(path: Path) -> logging.FileHandler:
    """A plain application log file: standard formatter, UTC timestamps."""
    handler = logging.FileHandler(path, mode="w", encoding="utf-8")
    formatter = _RepoFormatter(PY_FORMAT)
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    return handler


def _private_logger(name: str, *handlers: logging.Handler) -> logging.Logger:
    """A logger outside the global registry, so runs never share handlers or leak to root."""
    logger = logging.Logger(name, logging.DEBUG)
    logger.propagate = False
    for handler in handlers:
        logger.addHandler(handler)
    return logger


class Poller:
    """Serves the producer's queue in the background: delivers log records and callbacks promptly."""

    def __init__(self, producer: Producer, interval_s: float = 0.02) -> None:
        self.producer: Producer | None = producer
        self.interval_s = interval_s
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kafka-poll", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.producer.poll(self.interval_s)
            except KafkaException as exc:  # a fatal error surfaces in whichever call serves it
                self.errors.append(exc.args[0].name())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        try:
            self.producer.poll(0)  # whatever is still queued
        except KafkaException as exc:
            self.errors.append(exc.args[0].name())
        self.producer = None


@dataclass
class Session:
    """One running scenario: mock cluster, producer, loggers and the outcome being recorded."""

    name: str
    out_dir: Path
    transactional_id: str
    cluster: MockCluster
    files: LogFiles
    app: logging.Logger
    kafka_handlers: list[logging.Handler]
    native: NativeFormatHandler
    outcome: dict = field(default_factory=dict)
    producer: Producer | None = None
    poller: Poller | None = None
    poll_errors: list[str] = field(default_factory=list)
    aborted_run: bool = False
    _started: float = field(default_factory=time.monotonic)

    def start_producer(self, debug: str, **overrides: object) -> Producer:
        """Create the transactional producer and start serving its queue."""
        conf = {
            "bootstrap.servers": self.cluster.bootstrap_servers,
            "client.id": CLIENT_ID,
            "transactional.id": self.transactional_id,
            "debug": debug,
            "logger": _private_logger(KAFKA_LOGGER, *self.kafka_handlers),
            "error_cb": self._on_client_error,
            "retry.backoff.ms": 50,
            **overrides,
        }
        self.outcome["config"] = {k: v for k, v in conf.items() if isinstance(v, (str, int)) and k != "bootstrap.servers"}
        self.producer = Producer(conf)
        self.poller = Poller(self.producer)
        return self.producer

    def _on_client_error(self, err: KafkaError) -> None:
        """error_cb as applications write it: fatal errors at ERROR, the rest at WARNING."""
        self.outcome.setdefault("client_errors", []).append(error_fields(err))
        level = logging.ERROR if err.fatal() else logging.WARNING
        self.app.log(level, "Kafka client error: %s", err)

    def on_delivery(self, err: KafkaError | None, msg: object) -> None:
        """Delivery reports: purges by an abort are expected, anything else is a failure."""
        if err is None:
            self.outcome["delivered"] = self.outcome.get("delivered", 0) + 1
            return
        self.outcome.setdefault("delivery_errors", []).append(err.name())
        where = f"{msg.topic()} [{msg.partition()}]"  # type: ignore[attr-defined]
        if err.code() == KafkaError._PURGE_QUEUE:
            self.app.info("Message to %s was purged before delivery: %s", where, err)
        else:
            self.app.error("Message delivery failed for %s: %s", where, err)

    def record_error(self, api: str, exc: KafkaException) -> dict:
        fields = {"api": api, **error_fields(exc.args[0])}
        self.outcome.setdefault("api_errors", []).append(fields)
        return fields

    def count(self, key: str) -> None:
        self.outcome[key] = self.outcome.get(key, 0) + 1


def error_fields(err: KafkaError) -> dict:
    """The KafkaError facts an application can see, as one flat dict."""
    return {
        "name": err.name(),
        "code": err.code(),
        "fatal": err.fatal(),
        "retriable": err.retriable(),
        "txn_requires_abort": err.txn_requires_abort(),
        "str": err.str(),
    }


def describe(fields: dict) -> str:
    """The error fields in the key=value form used in the app log messages."""
    keys = ("name", "code", "fatal", "retriable", "txn_requires_abort")
    return " ".join(f"{k}={fields[k]}" for k in keys)


@contextmanager
def session(name: str, out_dir: Path, transactional_id: str, brokers: int = 3) -> Iterator[Session]:
    """Mock cluster + log files for one scenario; tears everything down in the right order.

    The logs go to ``out_dir/input/`` and the outcome to ``out_dir/run.json``, the layout of the
    bundled cases, so the input folder can be analysed on its own.
    """
    cluster = MockCluster(brokers)  # first: it skips the test when librdkafka cannot be found
    logs = out_dir / "input"
    logs.mkdir(parents=True, exist_ok=True)
    files = LogFiles(logs / "librdkafka.log", logs / "python-logging.log", logs / "app.log")
    native, pylog = NativeFormatHandler(files.native), _file_handler(files.python_logging)
    app_handler = _file_handler(files.app)
    app = _private_logger(APP_LOGGER, app_handler)
    s = Session(name, out_dir, transactional_id, cluster, files, app, [native, pylog], native)
    try:
        _layout(cluster, transactional_id)
        yield s
    except BaseException:
        s.aborted_run = True  # skip close(): it may wait on a transaction left half-done
        raise
    finally:
        _close_producer(s)
        cluster.close()
        _finish_outcome(s, native)
        for handler in (native, pylog, app_handler):
            handler.close()


def _layout(cluster: MockCluster, transactional_id: str) -> None:
    """Coordinator on broker 1, the topic's leader on broker 2: an outage can hit one of them."""
    cluster.create_topic(TOPIC, partitions=1, replication=min(3, cluster.brokers))
    cluster.set_leader(TOPIC, 0, 2 if cluster.brokers > 1 else 1)
    cluster.set_txn_coordinator(transactional_id, 1)


def _close_producer(s: Session) -> None:
    """Stop polling, drain the last records, then destroy the client before its cluster."""
    producer = s.producer
    if producer is None:
        return
    if len(producer):  # only after a failure: nothing may wait on a cluster about to go away
        producer.purge()
    try:
        producer.flush(1)
    except KafkaException:
        # A producer that failed fatally may raise that error again while it drains (when the
        # error event is served in this call rather than in the application's): it is recorded.
        if not _failed_fatally(s):
            raise
    if s.poller is not None:
        s.poller.stop()
        s.poll_errors, s.poller = s.poller.errors, None
    # close() aborts an open transaction first, which a fatally failed producer refuses (and which
    # would put an abort-after-fatal into the logs that the application never made): just release.
    if hasattr(producer, "close") and not (_failed_fatally(s) or s.aborted_run):  # newer than 2.3
        producer.close()
    s.producer = None
    del producer  # the last reference: librdkafka's handle is destroyed here, not by a later GC


def _failed_fatally(s: Session) -> bool:
    return any(e["fatal"] for e in s.outcome.get("api_errors", []))


def _finish_outcome(s: Session, native: NativeFormatHandler) -> None:
    s.outcome.update(
        scenario=s.name,
        transactional_id=s.transactional_id,
        client_id=CLIENT_ID,
        client_names=sorted(native.client_names),
        producer_ids=native.pids,
        librdkafka=libversion()[0],
        confluent_kafka=version() if isinstance(version(), str) else version()[0],
        errors_raised_by_poll=s.poll_errors,
        elapsed_s=round(time.monotonic() - s._started, 2),
    )


def _produce(s: Session, count: int, label: str) -> None:
    for i in range(count):
        s.producer.produce(TOPIC, key=label.encode(), value=f"{label}-{i}".encode(), on_delivery=s.on_delivery)


def commit_one(s: Session, number: int, messages: int = 2) -> None:
    """begin, produce, commit: one unit of work that is expected to succeed."""
    s.producer.begin_transaction()
    _produce(s, messages, f"order-{number}")
    s.producer.commit_transaction(API_TIMEOUT_S)
    s.count("commits")
    s.app.info("Committed transaction %d (%d messages) transactional.id=%s", number, messages, s.transactional_id)


def init(s: Session) -> None:
    s.producer.init_transactions(API_TIMEOUT_S)
    s.app.info("Transactional producer ready: transactional.id=%s client.id=%s", s.transactional_id, CLIENT_ID)


def abort_after(s: Session, exc: KafkaException, api: str, number: int) -> None:
    """The documented handling of an abortable error: abort, then the caller retries the work."""
    fields = s.record_error(api, exc)
    s.app.warning(
        "%s failed for transaction %d, aborting and retrying (transactional.id=%s %s)",
        api, number, s.transactional_id, describe(fields), exc_info=True,
    )
    s.producer.abort_transaction(API_TIMEOUT_S)
    s.count("aborts")
    s.app.info("Aborted transaction %d, retrying it", number)


def run_fenced(out_dir: Path) -> ScenarioResult:
    """A zombie: the coordinator answers PRODUCER_FENCED because a newer instance took the id.

    Injected: AddPartitionsToTxn -> PRODUCER_FENCED (90) for the second transaction, which is what
    the coordinator returns to the old epoch once another producer has called InitProducerId with
    the same transactional.id. librdkafka raises the fatal ``_FENCED``; the application logs it
    and closes the producer (the only correct handling: a fenced producer cannot be reused).
    """
    with session("fenced", out_dir, "orders-tx-fenced") as s:
        s.start_producer(debug="conf,eos,protocol,msg")
        init(s)
        commit_one(s, 1)
        s.cluster.push_errors(ApiKey.ADD_PARTITIONS_TO_TXN, [KafkaError.PRODUCER_FENCED])
        s.producer.begin_transaction()
        _produce(s, 2, "order-2")
        try:
            s.producer.commit_transaction(API_TIMEOUT_S)
        except KafkaException as exc:
            fields = s.record_error("commit_transaction", exc)
            s.app.exception(
                "commit_transaction failed for transaction 2 with a fatal error, closing the producer "
                "(transactional.id=%s %s)", s.transactional_id, describe(fields),
            )
    return _result(s)


def run_abortable(out_dir: Path) -> ScenarioResult:
    """Retriable produce errors, then an abortable error, abort_transaction() and a good retry.

    Injected: Produce -> NOT_ENOUGH_REPLICAS (19) twice in the first transaction (retried by the
    client, then delivered), and AddPartitionsToTxn -> TRANSACTION_ABORTABLE (120, KIP-890) in the
    second. librdkafka enters AbortableError, commit_transaction raises with
    ``txn_requires_abort()``, the application aborts and redoes the work in a third transaction.
    This is healthy client handling, not a fault of the transaction protocol.
    """
    with session("abortable", out_dir, "orders-tx-abortable") as s:
        s.start_producer(debug="conf,eos,msg,broker")
        init(s)
        s.cluster.push_errors(ApiKey.PRODUCE, [KafkaError.NOT_ENOUGH_REPLICAS] * 2)
        commit_one(s, 1)
        s.cluster.push_errors(ApiKey.ADD_PARTITIONS_TO_TXN, [KafkaError.TRANSACTION_ABORTABLE])
        try:
            commit_one(s, 2)
        except KafkaException as exc:
            abort_after(s, exc, "commit_transaction", 2)
            commit_one(s, 2)
    return _result(s)


def run_message_timeout(out_dir: Path) -> ScenarioResult:
    """The partition leader stops answering: a ProduceRequest times out, the message exceeds
    ``message.timeout.ms`` (``_MSG_TIMED_OUT``) and the transaction must be aborted.

    Injected: a 4 s response delay on broker 2 (the leader) with socket.timeout.ms=2000 and
    message.timeout.ms=1500, both below transaction.timeout.ms=10000. librdkafka times the request
    out (REQTMOUT), fails the message with ``_MSG_TIMED_OUT`` and raises the abortable
    ``_TIMED_OUT`` from commit_transaction; since the message may have been written, the abort
    bumps the producer epoch. The broker recovers and the retry commits. The coordinator never
    timed the transaction out: this is a client-side delivery/request timeout.
    """
    with session("message-timeout", out_dir, "orders-tx-timeout") as s:
        s.start_producer(
            debug="conf,eos,msg,broker,protocol",
            **{"message.timeout.ms": 1500, "socket.timeout.ms": 2000, "transaction.timeout.ms": 10000},
        )
        init(s)
        commit_one(s, 1)
        s.cluster.set_rtt(2, 4000)
        try:
            s.producer.begin_transaction()
            _produce(s, 1, "order-2")
            # librdkafka counts the failed delivery, then marks the transaction abortable (TXNERR). A
            # commit that lands between the two fails with _INCONSISTENT ("1 message(s) failed
            # delivery") instead of the stored _TIMED_OUT, which happens on a loaded machine. An
            # application that commits after its delivery reports sees the order waited for here.
            s.native.wait_for("TXNERR", 15)
            s.producer.commit_transaction(API_TIMEOUT_S)
            s.count("commits")
        except KafkaException as exc:
            s.cluster.set_rtt(2, 0)
            abort_after(s, exc, "commit_transaction", 2)
            commit_one(s, 2, messages=1)
    return _result(s)


def run_healthy(out_dir: Path) -> ScenarioResult:
    """Init, three commits, one abort the application chose to make, close: nothing to report."""
    with session("healthy", out_dir, "orders-tx-healthy") as s:
        s.start_producer(debug="conf,eos")
        init(s)
        for number in (1, 2, 3):
            commit_one(s, number)
        s.producer.begin_transaction()
        _produce(s, 1, "order-4")
        s.app.info("Order 4 was cancelled, aborting its transaction")
        s.producer.abort_transaction(API_TIMEOUT_S)
        s.count("aborts")
        commit_one(s, 5)
        s.producer.flush(API_TIMEOUT_S)
        s.app.info("Shutting down the producer")
    return _result(s)


def _result(s: Session) -> ScenarioResult:
    (s.out_dir / "run.json").write_text(json.dumps(s.outcome, indent=2, sort_keys=True) + "\n")
    return ScenarioResult(s.name, s.files, s.outcome)


SCENARIOS: dict[str, Callable[[Path], ScenarioResult]] = {
    "fenced": run_fenced,
    "abortable": run_abortable,
    "message-timeout": run_message_timeout,
    "healthy": run_healthy,
}
