"""The ``configs`` fact table: one row per client or broker, effective values as columns.

Every value is what the client would really use: the file's setting, else the default of that
client and Kafka version, after the client's own adjustments (librdkafka lowers
``message.timeout.ms`` to the transaction timeout, Streams under exactly-once uses a 10 s
transaction timeout...). Broker values are joined onto every client row, taken from the broker
files of the deployment or Kafka's defaults, so cross-file rules are plain column comparisons.
Beside the table, ``sources`` records which entries each column came from, so a finding can
point at the line to change. No secret value is ever copied into the table.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import pandas as pd

from ..facts.registry import CONFIGS
from . import defaults
from .idshape import id_shape
from .keycheck import suggestion
from .model import ConfigFile, Entry
from .rows import Row
from .secrets import is_plaintext_secret

TEXT_COLUMNS = {
    "file", "dialect", "role", "section", "kafka_version", "transactional_id", "topic", "transactional_id_shape",
    "idempotence_config", "acks", "isolation_level", "processing_guarantee", "delivery_guarantee",
    "deployment_txn", "plaintext_secret_keys", "unknown_key_list", "ignored_key_list",
}
BOOL_COLUMNS = {
    "transactional", "idempotence_requested", "enable_idempotence", "max_in_flight_set", "delivery_timeout_set",
    "transaction_timeout_set", "socket_timeout_set", "eos", "unclean_leader_election", "broker_given", "reads_txn_output",
    "version_assumed", "flink_prefix_required",
}
EOS_GUARANTEES = ("exactly_once", "exactly_once_beta", "exactly_once_v2")


@dataclass
class Facts:
    """The table and, per row, the entries each column was read from."""

    frame: pd.DataFrame
    rows: list[Row]
    sources: list[dict[str, list[Entry]]] = field(default_factory=list)


def build_facts(rows: list[Row], version: str, idle: Mapping[str, int] | None = None, version_assumed: bool = False) -> Facts:
    """The ``configs`` table of a deployment (all rows linted together).

    ``version_assumed``: nobody said which Kafka runs (no ``--kafka-version``), so ``version`` is the
    newest known; a rule about what one version removed must not call an older deployment broken.
    """
    code = defaults.version_code(version)
    own = [_row_values(row, code) for row in rows]
    deployment, deployment_sources = _deployment(rows, own, code)
    txn_rows = [row for row, (values, _) in zip(rows, own) if values.get("transactional")]
    secrets = _secrets({id(r.cfg): r.cfg for r in rows}.values())
    records: list[dict[str, object]] = []
    sources: list[dict[str, list[Entry]]] = []
    for row_id, (row, (values, src)) in enumerate(zip(rows, own)):
        record = _base(row, row_id, version, code)
        record["version_assumed"] = version_assumed
        record.update(values)
        _cross(record, deployment, row)
        known = _known_idle(str(record.get("transactional_id") or ""), idle or {})
        record["known_idle_ms"] = known
        record["reads_txn_output"] = _reads_txn_output(row, txn_rows)
        record["recommended_expiration_ms"] = min(defaults.INT_MAX, known * 2) if known > 0 else -1
        count, names, entries = secrets.get(id(row.cfg), (0, "", []))
        record["plaintext_secrets"], record["plaintext_secret_keys"] = count, names
        src = dict(src)
        src["plaintext_secrets"] = src["plaintext_secret_keys"] = entries
        for column, found in deployment_sources.items():
            if not src.get(column) and not (row.role == "broker" and column in _BROKER_COLUMNS):
                src[column] = found
        records.append(record)
        sources.append(src)
    return Facts(_frame(records), rows, sources)


def _reads_txn_output(row: Row, txn_rows: list[Row]) -> bool:
    """Whether the files show this consumer reading what a transactional producer writes: their
    topics meet, or (topics unknown on either side) the producer is another application, i.e. in
    another file linted with it. A producer in the consumer's own file with no topic in common is
    the same application writing its own output."""
    if row.role != "consumer":
        return False
    for producer in txn_rows:
        if row.cfg.topics and producer.cfg.topics:
            if set(row.cfg.topics) & set(producer.cfg.topics):
                return True
        elif producer.cfg.path != row.cfg.path:
            return True
    return False


def _frame(records: list[dict[str, object]]) -> pd.DataFrame:
    columns = list(CONFIGS.columns)
    data: dict[str, object] = {}
    for name in columns:
        values = [r.get(name) for r in records]
        if name in TEXT_COLUMNS:
            data[name] = pd.Series(["" if v is None else str(v) for v in values], dtype="str")
        elif name in BOOL_COLUMNS:
            data[name] = pd.Series([bool(v) for v in values], dtype=bool)
        else:
            data[name] = pd.Series([-1 if v is None else int(v) for v in values], dtype="int64")
    return pd.DataFrame(data, columns=columns)


def _base(row: Row, row_id: int, version: str, code: int) -> dict[str, object]:
    anchor = row.anchor()
    return {
        "row_id": row_id, "file_id": row.cfg.file_id, "line": anchor.line if anchor else 1, "file": row.cfg.path,
        "dialect": row.dialect, "role": row.role, "section": row.section, "kafka_version": version,
        "version_code": code, "start_time": -1, "end_time": -1, "topic": row.topic,
    }


# --- value parsing ---------------------------------------------------------------------------

#: A Java long: a config value outside it is refused by the client, and cannot be a fact column.
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1


def _int(entry: Entry | None, default: object) -> int | None:
    """The entry as a whole number (``1_000``, ``1e3``, ``30s`` forms too); ``default`` when it is
    not one or does not fit a Java long (``99999999999999999999``, ``1e309``)."""
    if entry is None:
        return default  # type: ignore[return-value]
    text = entry.value.strip().replace("_", "")
    try:
        value = int(text)
    except ValueError:
        try:
            value = int(float(text))
        except (ValueError, OverflowError):
            ms = defaults.duration_ms(text)
            value = ms if ms is not None else None
    if value is None or not _LONG_MIN <= value <= _LONG_MAX:
        return default  # type: ignore[return-value]
    return value


def _bool(entry: Entry | None, default: bool | None) -> bool | None:
    if entry is None:
        return default
    text = entry.value.strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    return default


def _written_bool(entry: Entry | None) -> str:
    """``true``/``false`` as set, '' when unset, the text itself when it is neither."""
    if entry is None:
        return ""
    value = _bool(entry, None)
    return entry.value.strip().lower() if value is None else ("true" if value else "false")


def _acks(entry: Entry | None, default: str) -> str:
    if entry is None:
        return default
    text = entry.value.strip().lower()
    return "all" if text in ("all", "-1") else text


def _word(entry: Entry | None, default: str = "") -> str:
    return default if entry is None else entry.value.strip().lower().replace("-", "_")


# --- one row ---------------------------------------------------------------------------------

def _row_values(row: Row, code: int) -> tuple[dict[str, object], dict[str, list[Entry]]]:
    values, src = _row_own_values(row, code)
    _key_problems(row, values, src)
    return values, src


def _key_problems(row: Row, values: dict[str, object], src: dict[str, list[Entry]]) -> None:
    """Misspelt keys (with the real key meant) and settings the framework or client never uses."""
    unknown: list[tuple[Entry, str]] = []
    if row.dialect not in ("librdkafka", "flink") and row.cfg.fmt != "describe":
        seen: set[int] = set()
        for view in row.views.values():
            for key, entry in view.items():
                if id(entry) in seen:
                    continue
                seen.add(id(entry))
                meant = suggestion(key)
                if meant:
                    unknown.append((entry, meant))
    unknown.sort(key=lambda p: (p[0].line, p[0].column))
    values["unknown_keys"] = len(unknown)
    values["unknown_key_list"] = ", ".join(f"{e.key} (did you mean {m}?)" for e, m in unknown)
    src["unknown_keys"] = src["unknown_key_list"] = [e for e, _ in unknown]
    ignored = list(row.ignored)
    if values.get("eos"):
        tid = row.entry("producer", "transactional.id")
        if tid is not None:
            ignored.append((tid, "nothing: Kafka Streams sets transactional.id itself under exactly-once"))
    ignored.sort(key=lambda p: (p[0].line, p[0].column))
    values["ignored_keys"] = len(ignored)
    values["ignored_key_list"] = ", ".join(f"{e.key} (belongs in {where})" if not where.startswith("nothing")
                                           else f"{e.key} ({where[len('nothing: '):]})" for e, where in ignored)
    src["ignored_keys"] = src["ignored_key_list"] = [e for e, _ in ignored]


def _row_own_values(row: Row, code: int) -> tuple[dict[str, object], dict[str, list[Entry]]]:
    if row.role in ("broker", "topic"):
        return _broker_values(row, code)
    values: dict[str, object] = {}
    src: dict[str, list[Entry]] = {}
    if row.role in ("producer", "streams"):
        _producer_values(row, code, values, src)
    elif row.dialect == "flink":
        _flink_transactional(row, values, src)
    if row.role == "consumer":
        e = row.entry("consumer", "isolation.level")
        values["isolation_level"] = _word(e, defaults.CONSUMER_ISOLATION.get(row.dialect, "read_uncommitted"))
        src["isolation_level"] = [e] if e else []
    return values, src


def _producer_values(row: Row, code: int, values: dict[str, object], src: dict[str, list[Entry]]) -> None:
    get = lambda key: row.entry("producer", key)  # noqa: E731
    rdk = row.dialect == "librdkafka"
    base = defaults.librdkafka_producer() if rdk else defaults.java_producer(code)
    streams = row.role == "streams"
    eos = False
    if streams:
        guarantee = row.entry("streams", "processing.guarantee") or get("processing.guarantee")
        values["processing_guarantee"] = _word(guarantee, "at_least_once")
        eos = values["processing_guarantee"] in EOS_GUARANTEES
        values["eos"] = eos
        src["processing_guarantee"] = src["eos"] = [guarantee] if guarantee else []
        base["linger.ms"] = defaults.STREAMS["linger.ms"]
        if eos:
            base["transaction.timeout.ms"] = defaults.STREAMS["eos.transaction.timeout.ms"]
            base["delivery.timeout.ms"] = defaults.STREAMS["eos.delivery.timeout.ms"]
            base["retries"] = defaults.INT_MAX
        interval = row.entry("streams", "commit.interval.ms")
        values["commit_interval_ms"] = _int(interval, defaults.STREAMS["eos.commit.interval.ms" if eos else "commit.interval.ms"])
        src["commit_interval_ms"] = [interval] if interval else []
    tid_entry = get("transactional.id")
    tid = tid_entry.value.strip() if tid_entry else ""
    if row.dialect == "flink":
        tid_entry, tid, transactional = _flink_transactional(row, values, src)
        base["transaction.timeout.ms"] = defaults.FLINK["transaction.timeout.ms"]
    elif streams:
        app = row.entry("streams", "application.id") or get("application.id")
        tid, tid_entry, transactional = (app.value.strip() if app else ""), app, eos
    else:
        transactional = bool(tid)
        if not transactional and row.cfg.txn_hint is not None:
            transactional, tid_entry = True, row.cfg.txn_hint  # Connect assigns the transactional.id itself
    values["transactional"] = transactional
    values["transactional_id"] = tid
    values["transactional_id_shape"] = id_shape(tid) if transactional and not streams else ""
    src["transactional_id"] = src["transactional"] = src["transactional_id_shape"] = [tid_entry] if tid_entry else []

    idem = get("enable.idempotence")
    idem_cfg = _written_bool(idem)
    acks_e, retries_e, mif_e = get("acks"), get("retries"), get("max.in.flight.requests.per.connection")
    acks = _acks(acks_e, str(base["acks"]))
    retries = _int(retries_e, base["retries"])
    if streams and eos:
        requested = enabled = True
    else:
        requested = idem_cfg == "true" or (transactional and idem_cfg != "false")
        if idem_cfg in ("true", "false"):
            enabled = idem_cfg == "true"
        elif transactional:
            enabled = True
        else:
            enabled = bool(base["enable.idempotence"])
    if requested:
        # The client fills in what idempotence needs when the user left it unset (Java before 3.0:
        # acks=all and unbounded retries; librdkafka likewise): an unset acks is not "acks=1".
        if acks_e is None:
            acks = "all"
        if retries_e is None:
            retries = defaults.INT_MAX
    mif = _int(mif_e, base["max.in.flight.requests.per.connection"])
    if rdk and enabled and mif_e is None:
        mif = min(int(mif or 5), 5)
    values.update(idempotence_config=idem_cfg, idempotence_requested=requested, enable_idempotence=enabled,
                  acks=acks, retries=retries, max_in_flight=mif, max_in_flight_set=mif_e is not None)
    src.update(idempotence_config=_some(idem), idempotence_requested=_some(idem, tid_entry),
               enable_idempotence=_some(idem, tid_entry), acks=_some(acks_e), retries=_some(retries_e),
               max_in_flight=_some(mif_e), max_in_flight_set=_some(mif_e))

    linger_e, request_e, delivery_e, txn_e = get("linger.ms"), get("request.timeout.ms"), get("delivery.timeout.ms"), get("transaction.timeout.ms")
    linger = _int(linger_e, base["linger.ms"]) or 0
    request = _int(request_e, base["request.timeout.ms"]) or 0
    txn = _int(txn_e, base["transaction.timeout.ms"]) or 0
    delivery = _int(delivery_e, base["delivery.timeout.ms"]) or 0
    if rdk and transactional and delivery_e is None:
        delivery = txn
    values.update(linger_ms=linger, request_timeout_ms=request, delivery_timeout_ms=delivery,
                  delivery_timeout_set=delivery_e is not None, min_delivery_timeout_ms=linger + request,
                  recommended_delivery_timeout_ms=max(120_000, linger + request),
                  transaction_timeout_ms=txn, transaction_timeout_set=txn_e is not None,
                  socket_timeout_limit_ms=txn + 100, recommended_socket_timeout_ms=max(txn - 100, 900),
                  recommended_commit_interval_ms=max(txn // 2, 1))
    src.update(linger_ms=_some(linger_e), request_timeout_ms=_some(request_e), delivery_timeout_ms=_some(delivery_e),
               delivery_timeout_set=_some(delivery_e), min_delivery_timeout_ms=_some(linger_e, request_e),
               transaction_timeout_ms=_some(txn_e), transaction_timeout_set=_some(txn_e))
    socket_e = get("socket.timeout.ms")
    if rdk:
        socket = _int(socket_e, None)
        if socket is None:
            socket = max(txn - 100, 900) if transactional else int(base["socket.timeout.ms"])
        values.update(socket_timeout_ms=socket, socket_timeout_set=socket_e is not None)
        src.update(socket_timeout_ms=_some(socket_e), socket_timeout_set=_some(socket_e))


def _flink_transactional(row: Row, values: dict[str, object], src: dict[str, list[Entry]]) -> tuple[Entry | None, str, bool]:
    """Flink sinks are transactional under an exactly-once delivery guarantee; the id is the prefix."""
    flink = row.view("flink")
    guarantee_key = next((k for k in ("sink.delivery-guarantee", "delivery-guarantee", "sink.semantic") if k in flink), "")
    guarantee = flink[guarantee_key] if guarantee_key else None
    prefix = next((flink[k] for k in ("sink.transactional-id-prefix", "transactional-id-prefix", "transactional.id.prefix")
                   if k in flink), None)
    text = guarantee.value.strip().lower().replace("_", "-") if guarantee else ""
    values["delivery_guarantee"] = text
    src["delivery_guarantee"] = _some(guarantee)
    # KafkaSink (sink.delivery-guarantee, setDeliveryGuarantee) names its transactional ids from a prefix it
    # must be given; the legacy FlinkKafkaProducer (sink.semantic, Semantic.EXACTLY_ONCE) derives them itself.
    values["flink_prefix_required"] = text == "exactly-once" and guarantee_key != "sink.semantic"
    src["flink_prefix_required"] = _some(guarantee)
    interval = flink.get("execution.checkpointing.interval")
    values["checkpoint_interval_ms"] = defaults.duration_ms(interval.value) if interval else None
    timeout = flink.get("execution.checkpointing.timeout")
    values["_checkpoint_timeout_ms"] = (defaults.duration_ms(timeout.value) if timeout else None) or defaults.FLINK["execution.checkpointing.timeout"]
    src["checkpoint_interval_ms"] = _some(interval)
    explicit_timeout = row.entry("producer", "transaction.timeout.ms") is not None
    transactional = text == "exactly-once" or (not text and (prefix is not None or explicit_timeout))
    anchor = prefix or guarantee
    return anchor, (prefix.value.strip() if prefix else ""), transactional


def _broker_values(row: Row, code: int) -> tuple[dict[str, object], dict[str, list[Entry]]]:
    view = row.view("broker")
    base = defaults.broker(code)
    get = view.get
    values: dict[str, object] = {}
    src: dict[str, list[Entry]] = {}
    unclean = get("unclean.leader.election.enable")
    values["unclean_leader_election"] = _bool(unclean, bool(base["unclean.leader.election.enable"]))
    src["unclean_leader_election"] = _some(unclean)
    if row.role == "topic":
        return values, src
    rf, isr = get("transaction.state.log.replication.factor"), get("transaction.state.log.min.isr")
    # An image that ships its own server.properties (Bitnami, wurstmeister) sets unset keys itself: unknown here.
    builtin = row.cfg.image_defaults
    values["txn_state_replication_factor"] = _int(rf, base["transaction.state.log.replication.factor"] if builtin else None)
    values["txn_state_min_isr"] = _int(isr, base["transaction.state.log.min.isr"] if builtin else None)
    values["broker_count"] = row.cfg.broker_count if row.cfg.broker_count else None
    values["recommended_txn_min_isr"] = min(2, max(1, (row.cfg.broker_count or 3) - 1)) if row.cfg.broker_count else 2
    src["txn_state_replication_factor"], src["txn_state_min_isr"] = _some(rf), _some(isr)
    src["broker_count"] = []
    for column, key in _BROKER_COLUMNS.items():
        e = get(key)
        default = base[key]
        if key == "producer.id.expiration.ms" and default is None:
            e, default = get("transactional.id.expiration.ms"), base["transactional.id.expiration.ms"]
        values[column] = _int(e, default)
        src[column] = _some(e)
    return values, src


_BROKER_COLUMNS = {
    "broker_max_timeout_ms": "transaction.max.timeout.ms",
    "broker_abort_interval_ms": "transaction.abort.timed.out.transaction.cleanup.interval.ms",
    "broker_producer_id_expiration_ms": "producer.id.expiration.ms",
    "broker_transactional_id_expiration_ms": "transactional.id.expiration.ms",
}
#: How several broker files combine: the value that bites first.
_COMBINE = {
    "broker_max_timeout_ms": min,
    "broker_abort_interval_ms": max,
    "broker_producer_id_expiration_ms": min,
    "broker_transactional_id_expiration_ms": min,
}


def _some(*entries: Entry | None) -> list[Entry]:
    return [e for e in entries if e is not None]


# --- deployment ------------------------------------------------------------------------------

def _deployment(rows: list[Row], own: list[tuple[dict[str, object], dict[str, list[Entry]]]], code: int) -> tuple[dict[str, object], dict[str, list[Entry]]]:
    brokers = [(r, v, s) for r, (v, s) in zip(rows, own) if r.role == "broker"]
    base = defaults.broker(code)
    out: dict[str, object] = {"broker_given": bool(brokers)}
    src: dict[str, list[Entry]] = {}
    for column, key in _BROKER_COLUMNS.items():
        found = [int(v[column]) for _, v, _ in brokers if v.get(column) is not None]
        default = base[key] if base[key] is not None else base["transactional.id.expiration.ms"]
        out[column] = _COMBINE[column](found) if found else default
        src[column] = [e for _, v, s in brokers if v.get(column) == out[column] for e in s.get(column, [])]
    producers = [v for r, (v, _) in zip(rows, own) if "transactional" in v]
    if any(v.get("transactional") for v in producers):
        out["deployment_txn"] = "yes"
    else:
        out["deployment_txn"] = "no" if producers else "unknown"
    intervals = [(v["checkpoint_interval_ms"], s) for r, (v, s) in zip(rows, own) if v.get("checkpoint_interval_ms")]
    out["checkpoint_interval_ms"] = intervals[0][0] if intervals else None
    src["checkpoint_interval_ms"] = intervals[0][1].get("checkpoint_interval_ms", []) if intervals else []
    return out, src


def _cross(record: dict[str, object], deployment: Mapping[str, object], row: Row) -> None:
    """Join the deployment's broker values (and the Flink checkpoint interval) onto a row."""
    for column, value in deployment.items():
        if column == "checkpoint_interval_ms":
            if row.dialect == "flink" and record.get(column) is None:
                record[column] = value
            continue
        if row.role == "broker" and column in _BROKER_COLUMNS:
            continue
        record[column] = value
    interval = record.get("checkpoint_interval_ms")
    max_timeout = int(record["broker_max_timeout_ms"])  # type: ignore[arg-type]
    ckpt_timeout = int(record.pop("_checkpoint_timeout_ms", defaults.FLINK["execution.checkpointing.timeout"]))  # type: ignore[arg-type]
    record["recommended_flink_timeout_ms"] = min(max_timeout, int(interval) + ckpt_timeout) if interval else max_timeout
    delivery = record.get("delivery_timeout_ms")
    record["recommended_producer_id_expiration_ms"] = max(86_400_000, int(delivery)) if delivery is not None else 86_400_000  # type: ignore[arg-type]


def _known_idle(transactional_id: str, idle: Mapping[str, int]) -> int:
    if not transactional_id:
        return -1
    matches = [ms for pattern, ms in idle.items() if fnmatch.fnmatchcase(transactional_id, pattern)]
    return max(matches) if matches else -1


def _secrets(files: Iterable[ConfigFile]) -> dict[int, tuple[int, str, list[Entry]]]:
    out: dict[int, tuple[int, str, list[Entry]]] = {}
    for cfg in files:
        found = [e for e in [*cfg.entries, *cfg.credentials] if e.secret and is_plaintext_secret(e.key, e.value)]
        names = ",".join(dict.fromkeys(e.key for e in found))
        out[id(cfg)] = (len(found), names, found)
    return out
