"""Turn the lines of one log event into one LOG_EVENTS row.

The head line gives time, level, logger and message; the continuation lines give the exception
chain and more text to read identifiers and error names from. The message keeps only the first
line, without timestamp, level, logger, thread, client log-context or broker component prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafkadiag.readers.logs import broker, errornames
from kafkadiag.readers.logs.client_errors import client_errors
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

PROMPT = re.compile(r"[$#] \S")  # a shell command line pasted above its output
#: Words that tie a line without a known Kafka logger to Kafka.
_KAFKA_WORDS = (
    "afka", "KAFKA", "ransactional", "roducerId", "roducer id", "roducer_id", "PID{", "__transaction_state", "enced",
    "FENCED", "opicPartition", "thrd:", "transaction.timeout", "txn", "Txn", "TXN", "clientId=", "groupId=",
    "onsumer group", "LOG-END-OFFSET", "PRODUCER", "EPOCH", "COORDINATOR",
)
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
        if PROMPT.match(ev.first):
            return None  # a shell command line pasted with the output
        trace = parse_trace([ev.first] + ev.rest, prose=True)
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
    context = False
    if not is_rdk:
        stripped = strip_context(message, fields)
        context = stripped is not message or bool(fields.client_id)
        message = stripped
        if message[:1] == "[" and (family == BROKER or known_broker and family in ("", JAVA)):
            message, component = broker.strip_component(message, fields)
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
    errors = errornames.find_errors(joined, exceptions)
    errors += [name for name in client_errors(joined) if name not in errors]
    # `error` is the main protocol error; client conditions only add to `errors`
    main = errornames.main_error([e for e in errors if e in errornames.KAFKA_ERRORS or e in errornames.LOCAL_ERRORS])
    if family == BROKER and not broker.relevant(level, logger, component, message, errors):
        return None
    source, library = classify(family or "text", logger, texts, errornames.KAFKA_ERRORS)
    if head is not None and head.library:
        library = head.library
    elif context and not library:
        library = "java"  # ``[Producer clientId=...]`` is the Java client's log context
    if not library and not errors and family not in (BROKER, LIBRDKAFKA):
        if head is None and not exceptions and not _names_something(fields):
            return None  # a stray line that only mentions Kafka
        if not any(w in joined for w in _KAFKA_WORDS) and not _names_something(fields):
            return None  # application chatter that only shares a word with Kafka (a database transaction, ...)
    return {
        "level": level, "source": source, "library": library, "logger": logger or component,
        "client_id": fields.client_id, "transactional_id": fields.transactional_id, "group_id": fields.group_id,
        "producer_id": fields.producer_id, "producer_epoch": fields.producer_epoch, "topic": fields.topic,
        "partition": fields.partition, "coordinator_id": fields.coordinator_id,
        "error": main, "errors": ",".join(errors),
        "exception": exceptions[0] if exceptions else "", "root_cause": exceptions[-1] if exceptions else "",
        "exceptions": ",".join(exceptions), "state_from": fields.state_from, "state_to": fields.state_to,
        "start_offset": -1, "duration_ms": -1, "timeout_ms": fields.timeout_ms, "txn_state": fields.txn_state,
        "message": message.strip()[:MESSAGE_CHARS], "current_offset": -1, "log_end_offset": -1, "lag": -1,
    }, family_of(library, family or "text")


def _names_something(fields: Fields) -> bool:
    return bool(fields.transactional_id or fields.client_id or fields.group_id) or fields.producer_id >= 0


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


def names_an_error(text: str) -> bool:
    """Whether one line of an event names an error by itself (an exception, a protocol error, a
    client's own wording): the line a reader should be shown."""
    exceptions = exceptions_in_text(text)
    return bool(exceptions or errornames.find_errors(text, exceptions) or client_errors(text))


def full_row(ev: RawEvent, place: tuple, known_broker: bool) -> tuple[tuple, str] | None:
    """``(row, family)`` of an event at ``place`` (file_id, line, byte, lines, seq, time); None for chatter."""
    described = describe(ev, known_broker)
    if described is None:
        return None
    values, family = described
    return place + tuple(values[c] for c in DERIVED), family
