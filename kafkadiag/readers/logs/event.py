"""Turn the lines of one log event into one LOG_EVENTS row.

The head line gives time, level, logger and message; the continuation lines give the exception
chain and more text to read identifiers and error names from. The message keeps only the first
line, without timestamp, level, logger, thread, client log-context or broker component prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkadiag.readers.logs import errornames
from kafkadiag.readers.logs.fields import Fields, read_pairs, read_phrases, strip_context
from kafkadiag.readers.logs.head import BROKER, JAVA, LIBRDKAFKA, Head
from kafkadiag.readers.logs.library import classify, family_of
from kafkadiag.readers.logs.rdkafka import embedded
from kafkadiag.readers.logs.stack import exceptions_in_text, parse_trace
from kafkadiag.tables import LOG_EVENTS

MESSAGE_CHARS = 1000
COLUMNS = tuple(LOG_EVENTS.names)
#: Columns that depend on where the event is, not on what it says.
PLACE_COLUMNS = ("file_id", "line", "byte", "lines", "seq", "time")
DERIVED = tuple(c for c in COLUMNS if c not in PLACE_COLUMNS)

_COMPONENT = re.compile(
    r"\[(?P<name>[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)(?:(?: id=| broker=| nodeId=|-| )(?P<id>\d+)(?=[\],\s]))?(?P<rest>[^\]]*)\]:?\s+"
)
_REST_ID = re.compile(r"(?:id|broker|nodeId|brokerId)=(?P<id>\d+)")
_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:RD_KAFKA_RESP_ERR_|ERR_)?(?P<n>_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|_[A-Z][A-Z0-9]+)(?![A-Za-z0-9])")
_DOTNET_CODE = re.compile(r"\b(?P<local>Local_[A-Z]\w*)|(?:ErrorCode|Code)\s*[.:=]\s*(?P<code>[A-Z]\w+)")
#: Broker components whose every line matters for transactions.
TXN_COMPONENTS = frozenset({
    "TransactionCoordinator", "TransactionStateManager", "TransactionMarkerChannelManager",
    "TransactionMarkerRequestCompletionHandler", "TxnMarkerSenderThread", "TransactionLog", "ProducerStateManager",
    "ProducerIdManager", "RPCProducerIdManager", "ZkProducerIdManager", "ProducerIdControlManager", "GroupCoordinator",
    "GroupMetadataManager", "GroupCoordinatorService", "TransactionMarkerChannel",
})
_BROKER_WORDS = ("ransaction", "roducer", "PID", "enced", "txn", "Txn")
_ERROR_KEYS = ("error", "err", "type", "code", "reason", "error.message", "error.type", "exception", "exc_info")
_ID_KEYS = frozenset({
    "transactionalId", "transactional_id", "transactional.id", "clientId", "client_id", "client.id", "groupId",
    "group_id", "group.id", "producerId", "producer_id", "producerEpoch", "producer_epoch", "topic", "partition",
    "txnTimeoutMs", "transactionTimeout", "transactionTimeoutMs",
})


@dataclass(slots=True)
class RawEvent:
    """The cleaned lines of one event and where it starts."""

    line: int
    byte: int
    count: int
    head: Head | None
    first: str  # cleaned first line
    rest: list[str]  # cleaned continuation lines


def describe(ev: RawEvent, known_broker: bool) -> tuple[dict[str, object], str] | None:
    """What one event says: the derived column values and its kind family; None for broker chatter."""
    head = ev.head
    if head is not None:
        message = head.message
        family = head.family
        level, logger, client = head.level, head.logger, head.client
        extra = head.stack.split("\n") if head.stack else []
        trace = parse_trace(ev.rest + extra) if ev.rest or extra else None
        if not message.strip() and ev.rest:  # ``fail: Category[0]`` puts the message on the next line
            message = ev.rest[0].strip()
    else:
        trace = parse_trace([ev.first] + ev.rest)
        message = trace.first_header or ev.first.strip()
        family, level, logger, client = "", "", "", ""
    fields = Fields()
    is_rdk = family == LIBRDKAFKA
    if not is_rdk and ("[thrd:" in message or "#producer-" in message or "#consumer-" in message):
        found = embedded(message)
        if found is not None:
            facility, client, _thread, message = found
            logger = facility or logger
            family, is_rdk = LIBRDKAFKA, True
    component = ""
    if not is_rdk:
        message = strip_context(message, fields)
        if message[:1] == "[" and (family == BROKER or known_broker and family in ("", JAVA)):
            message, component = _strip_component(message, fields)
            if component and family != BROKER and not logger:
                family = BROKER
    if client and not fields.client_id:
        fields.client_id = client
    texts = [message] + trace.texts if trace is not None else [message]
    if head is not None and head.fields:
        texts.extend(_json_texts(head.fields))
    for text in texts:
        read_pairs(text, fields)
        read_phrases(text, fields, is_rdk)
    joined = texts[0] if len(texts) == 1 else "\n".join(texts)
    exceptions = trace.exceptions if trace is not None and trace.exceptions else exceptions_in_text(message)
    errors = find_errors(joined, exceptions)
    if family == BROKER and not _broker_relevant(level, logger, component, message, errors):
        return None
    source, library = classify(family or "text", logger, texts, errornames.KAFKA_ERRORS)
    return {
        "level": level, "source": source, "library": library, "logger": logger or component,
        "client_id": fields.client_id, "transactional_id": fields.transactional_id, "group_id": fields.group_id,
        "producer_id": fields.producer_id, "producer_epoch": fields.producer_epoch, "topic": fields.topic,
        "partition": fields.partition, "coordinator_id": fields.coordinator_id,
        "error": errornames.main_error(errors), "errors": ",".join(errors),
        "exception": exceptions[0] if exceptions else "", "root_cause": exceptions[-1] if exceptions else "",
        "exceptions": ",".join(exceptions), "state_from": fields.state_from, "state_to": fields.state_to,
        "start_offset": -1, "duration_ms": -1, "timeout_ms": fields.timeout_ms, "txn_state": fields.txn_state,
        "message": message.strip()[:MESSAGE_CHARS], "current_offset": -1, "log_end_offset": -1, "lag": -1,
    }, family_of(library, family or "text")


def _strip_component(message: str, fields: Fields) -> tuple[str, str]:
    """Read and drop a broker log prefix (``[TransactionCoordinator id=1] ``, ``[ReplicaManager broker=1] ``)."""
    m = _COMPONENT.match(message)
    if not m:
        return message, ""
    name = m["name"].replace(" ", "")
    rest = m["rest"] or ""
    if m["id"]:
        fields.coordinator_id = int(m["id"])
    elif rest:
        idm = _REST_ID.search(rest)
        if idm:
            fields.coordinator_id = int(idm["id"])
    if rest:
        read_pairs(rest, fields)
        first = rest.strip().split(" ")[0].rstrip(",")
        if name == "Partition" and "-" in first:
            read_pairs("partition=" + first, fields)
    return message[m.end():], name


def _broker_relevant(level: str, logger: str, component: str, message: str, errors: list[str]) -> bool:
    if level in ("WARN", "ERROR", "FATAL") or errors:
        return True
    simple = logger.rsplit(".", 1)[-1] if logger else ""
    if component in TXN_COMPONENTS or simple in TXN_COMPONENTS:
        return True
    return any(w in message for w in _BROKER_WORDS)


def _json_texts(flat: dict[str, object]) -> list[str]:
    """JSON/logfmt fields that name ids or errors, as texts to read."""
    out: list[str] = []
    for key, value in flat.items():
        if isinstance(value, (dict, list)) or value is None:
            continue
        leaf = key.rsplit(".", 1)[-1]
        if key in _ERROR_KEYS or leaf in _ERROR_KEYS:
            out.append(str(value)[:2000])
        elif leaf in _ID_KEYS:
            out.append(f"{leaf}={value}")
    return out


def find_errors(text: str, exceptions: list[str]) -> list[str]:
    """Every error name the text states, in order of appearance, normalised and without repeats."""
    found: list[tuple[int, str]] = []
    if "_" in text:
        for m in _TOKEN.finditer(text):
            name = errornames.error_of_token(m["n"])
            if name:
                found.append((m.start(), name))
    found.extend(errornames.errors_in_text(text.lower()))
    for exc in exceptions:
        name = errornames.error_of_exception(exc)
        if name:
            pos = text.find(exc)
            found.append((pos if pos >= 0 else len(text), name))
    if "Local_" in text or "Code" in text:
        for m in _DOTNET_CODE.finditer(text):
            name = errornames.error_of_dotnet_code(m["local"] or m["code"])
            if name:
                found.append((m.start(), name))
    if not found:
        return []
    found.sort(key=lambda pair: pair[0])
    out: list[str] = []
    for _, name in found:
        if name not in out:
            out.append(name)
    return out


def full_row(ev: RawEvent, place: tuple, known_broker: bool) -> tuple[tuple, str] | None:
    """``(row, family)`` of an event at ``place`` (file_id, line, byte, lines, seq, time); None for chatter."""
    described = describe(ev, known_broker)
    if described is None:
        return None
    values, family = described
    return place + tuple(values[c] for c in DERIVED), family
