"""Decode `__transaction_state` records as the dump tool prints them, in every era.

Formats (``transaction-log-format.md`` §3, §4, §7): the text decoder with and without the
``transaction_metadata::`` prefix and with ``Set(...)``/``HashSet(...)``/``[...]`` partition lists,
the 4.1+ JSON decoder, ``<DELETE>`` tombstones, the decoder's own skip messages, raw key/value
bytes printed by the plain string decoder, and the console-consumer formatter lines. Each
decoder returns a :class:`TxnDecoded` holding either the row values or a skip reason.
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass, field

from kafkadiag.tables import TXN_STATES

_TEXT_KEY_PREFIX = b"transaction_metadata::transactionalId="
_TEXT_KEY_OLD = b"transactionalId="
_TEXT_VALUE = re.compile(
    rb"^producerId:(-?\d+),producerEpoch:(-?\d+),state=(\w+),partitions=(.*),"
    rb"txnLastUpdateTimestamp=(-?\d+),txnTimeoutMs=(-?\d+)\s*$",
    re.S,
)
_SET_FORM = re.compile(r"^(\w*)\((.*)\)$", re.S)
_CONSOLE_META = re.compile(
    r"::TransactionMetadata\(transactionalId=(?P<id>.*?), producerId=(?P<pid>-?\d+), producerEpoch=(?P<epoch>-?\d+), "
    r"txnTimeoutMs=(?P<timeout>-?\d+), state=(?P<state>\w+), pendingState=[^,]*, topicPartitions=(?P<parts>.*), "
    r"txnStartTimestamp=(?P<start>-?\d+), txnLastUpdateTimestamp=(?P<update>-?\d+)\)\s*$",
    re.S,
)
_REPLACEMENT = "\ufffd".encode()  # what the dump tool printed for bytes that were not UTF-8
_UNKNOWN_VERSION = re.compile(rb"^unknown::version=(-?\d+)")

#: Key shapes that mark a record as a __transaction_state record.
TXN_KEY_PREFIXES = (
    _TEXT_KEY_PREFIX,
    _TEXT_KEY_OLD,
    b'{"type":"0"',
    b"unknown::version=",
    b"Unknown record type ",
    b"Error at offset ",
)


@dataclass
class TxnDecoded:
    """One decoded record: column values for TXN_RECORDS, or why it was skipped."""

    values: dict[str, object] = field(default_factory=dict)
    skip: str = ""
    shapes: tuple[str, ...] = ()


def state_name(status: object) -> str:
    if isinstance(status, int) and 0 <= status < len(TXN_STATES):
        return TXN_STATES[status]
    if isinstance(status, str) and status.isdigit() and int(status) < len(TXN_STATES):
        return TXN_STATES[int(status)]
    return str(status)


def join_partitions(text: str) -> tuple[str, str]:
    """Normalise a printed partition set to ``t-0,t-1`` (printed order kept) and its wrapper kind."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner, kind = text[1:-1], "list"
    else:
        m = _SET_FORM.match(text)
        if m is None:
            return text, ""
        inner, kind = m.group(2), m.group(1)
    items = [p.strip() for p in inner.split(",")]
    return ",".join(p for p in items if p), kind


def _tombstone(txn_id: str, shapes: tuple[str, ...]) -> TxnDecoded:
    return TxnDecoded({"transactional_id": txn_id, "tombstone": True}, shapes=shapes)


def is_txn_key(key: bytes) -> bool:
    """Keys printed by `--transaction-log-decoder` in any era."""
    return key.startswith(TXN_KEY_PREFIXES)


def decode_decoder_text(key: bytes, payload: bytes | None) -> TxnDecoded:
    """A record printed by `--transaction-log-decoder` (text, JSON, or its skip messages)."""
    if key.startswith(b"{"):
        return _decode_json(key, payload)
    if key.startswith(b"Unknown record type "):
        return TxnDecoded(skip="unknown transaction record type", shapes=("txn-json-skip",))
    if key.startswith(b"Error at offset "):
        return TxnDecoded(skip="transaction record decode error", shapes=("txn-json-skip",))
    m = _UNKNOWN_VERSION.match(key)
    if m:
        return TxnDecoded(skip="unknown transaction key version", shapes=("txn-unknown-version",))
    prefixed = key.startswith(_TEXT_KEY_PREFIX)
    txn_id = key[len(_TEXT_KEY_PREFIX) if prefixed else len(_TEXT_KEY_OLD) :].decode("utf-8", "replace")
    if payload is None or payload.rstrip() == b"<DELETE>":
        return _tombstone(txn_id, ("txn-delete",) if payload is not None else ())
    m = _TEXT_VALUE.match(payload)
    if m is None:
        return TxnDecoded(skip="unparsable transaction metadata")
    parts, wrapper = join_partitions(m.group(4).decode("utf-8", "replace"))
    return TxnDecoded(
        {
            "transactional_id": txn_id,
            "producer_id": int(m.group(1)),
            "producer_epoch": int(m.group(2)),
            "state": m.group(3).decode("ascii"),
            "partitions": parts,
            "last_update_ms": int(m.group(5)),
            "timeout_ms": int(m.group(6)),
        },
        shapes=(text_shape(prefixed, wrapper),),
    )


def text_shape(prefixed: bool, wrapper: str) -> str:
    """Era evidence of a text-decoder record: its key prefix and partition-set wrapper."""
    if prefixed:
        return "txn-prefix-list" if wrapper == "list" else "txn-prefix-set"
    return "txn-no-prefix-hashset" if wrapper == "HashSet" else "txn-no-prefix"


def _json_value_fields(data: dict) -> dict[str, object]:
    parts = data.get("transactionPartitions")
    names: list[str] = []
    if isinstance(parts, list):
        for entry in parts:
            if isinstance(entry, dict):
                topic = entry.get("topic", "")
                names.extend(f"{topic}-{p}" for p in entry.get("partitionIds") or [])
    values: dict[str, object] = {
        "producer_id": _json_int(data.get("producerId")),
        "producer_epoch": _json_int(data.get("producerEpoch")),
        "state": state_name(data.get("transactionStatus")),
        "partitions": ",".join(names),
        "last_update_ms": _json_int(data.get("transactionLastUpdateTimestampMs")),
        "start_ms": _json_int(data.get("transactionStartTimestampMs")),
        "timeout_ms": _json_int(data.get("transactionTimeoutMs")),
        "client_txn_version": _json_int(data.get("clientTransactionVersion")),
        "previous_producer_id": _json_int(data.get("previousProducerId")),
        "next_producer_id": _json_int(data.get("nextProducerId")),
        "next_producer_epoch": _json_int(data.get("nextProducerEpoch")),
    }
    return values


def _json_int(value: object) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return -1
    return -1


def _decode_json(key: bytes, payload: bytes | None) -> TxnDecoded:
    try:
        key_obj = json.loads(key)
        txn_id = key_obj["data"]["transactionalId"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return TxnDecoded(skip="unparsable transaction key JSON")
    if payload is None or payload.rstrip() == b"<DELETE>":
        return _tombstone(str(txn_id), ("txn-json",))
    try:
        value_obj = json.loads(payload)
        data = value_obj["data"]
        if not isinstance(data, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError, RecursionError):
        return TxnDecoded(skip="unparsable transaction value JSON")
    values = _json_value_fields(data)
    values["transactional_id"] = str(txn_id)
    values["value_version"] = _json_int(value_obj.get("version"))
    return TxnDecoded(values, shapes=("txn-json",))


# ---------------------------------------------------------------------------------------------
# Raw bytes (dump without the decoder)
# ---------------------------------------------------------------------------------------------


def raw_key_id(key: bytes, key_size: int) -> str | None:
    """The transactional id of a TransactionLogKey v0 whose bytes survived the text round trip."""
    if len(key) < 4 or key[0] != 0 or key[1] != 0 or _REPLACEMENT in key:
        return None
    length = struct.unpack_from(">h", key, 2)[0]
    if length < 0 or len(key) != 4 + length or (key_size >= 0 and key_size != len(key)):
        return None
    try:
        return key[4:].decode("utf-8")
    except UnicodeDecodeError:
        return None


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> int:
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def uvarint(self) -> int:
        shift = 0
        result = 0
        while True:
            if self.pos >= len(self.data) or shift > 35:
                raise ValueError("bad varint")
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7

    def raw(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError("short read")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out


def raw_value(value: bytes) -> dict[str, object] | None:
    """Decode TransactionLogValue v0/v1 bytes; None when they do not form a valid value."""
    try:
        cur = _Cursor(value)
        version = cur.take(">h")
        if version not in (0, 1):
            return None
        pid = cur.take(">q")
        epoch = cur.take(">h")
        timeout = cur.take(">i")
        status = cur.take(">b")
        if not 0 <= status < len(TXN_STATES):
            return None
        names: list[str] = []
        if version == 0:
            count = cur.take(">i")
            for _ in range(max(count, 0)):
                topic = cur.raw(cur.take(">h")).decode("utf-8")
                ids = cur.take(">i")
                names.extend(f"{topic}-{cur.take('>i')}" for _ in range(max(ids, 0)))
        else:
            count = cur.uvarint() - 1
            for _ in range(max(count, 0)):
                topic = cur.raw(cur.uvarint() - 1).decode("utf-8")
                ids = cur.uvarint() - 1
                names.extend(f"{topic}-{cur.take('>i')}" for _ in range(max(ids, 0)))
                _skip_tags(cur)
        last_update = cur.take(">q")
        start = cur.take(">q")
        tags: dict[int, bytes] = _skip_tags(cur) if version >= 1 else {}
        if cur.pos != len(value):
            return None
    except (struct.error, ValueError, UnicodeDecodeError):
        return None
    out: dict[str, object] = {
        "producer_id": pid,
        "producer_epoch": epoch,
        "state": TXN_STATES[status],
        "partitions": ",".join(names),
        "last_update_ms": last_update,
        "start_ms": start,
        "timeout_ms": timeout,
        "value_version": version,
    }
    for tag, column, fmt in ((0, "previous_producer_id", ">q"), (1, "next_producer_id", ">q"), (2, "client_txn_version", ">h"), (3, "next_producer_epoch", ">h")):
        if tag in tags and len(tags[tag]) == struct.calcsize(fmt):
            out[column] = struct.unpack(fmt, tags[tag])[0]
    return out


def _skip_tags(cur: _Cursor) -> dict[int, bytes]:
    tags: dict[int, bytes] = {}
    for _ in range(cur.uvarint()):
        tag = cur.uvarint()
        tags[tag] = cur.raw(cur.uvarint())
    return tags


def decode_raw(key: bytes, payload: bytes | None, key_size: int, value_size: int) -> TxnDecoded | None:
    """A record dumped with the plain string decoder; None when the key is not a transaction key."""
    txn_id = raw_key_id(key, key_size)
    if txn_id is None:
        return None
    if payload is None or value_size == -1:
        return _tombstone(txn_id, ())
    if _REPLACEMENT in payload or (value_size >= 0 and len(payload) != value_size):
        return TxnDecoded(skip="transaction value bytes lost in text")
    values = raw_value(payload)
    if values is None:
        return TxnDecoded(skip="undecodable transaction value bytes")
    values["transactional_id"] = txn_id
    return TxnDecoded(values)


# ---------------------------------------------------------------------------------------------
# Console-consumer formatter lines
# ---------------------------------------------------------------------------------------------

CONSOLE_MARKERS = (b"::TransactionMetadata(", b'{"key":{"version":', b'{"key":{"type":')


def is_console_line(line: bytes) -> bool:
    return b"::TransactionMetadata(" in line or line.startswith(CONSOLE_MARKERS[1:]) or line.endswith(b"::NULL")


def decode_console(line: bytes) -> TxnDecoded | None:
    """One line of `kafka-console-consumer` with a transaction-log formatter."""
    text = line.decode("utf-8", "replace").rstrip()
    if text.startswith('{"key":'):
        try:
            obj = json.loads(text)
            key = obj["key"]
            txn_id = key["data"]["transactionalId"]
        except (ValueError, KeyError, TypeError, RecursionError):
            return TxnDecoded(skip="unparsable transaction key JSON")
        value = obj.get("value")
        if value is None:
            return _tombstone(str(txn_id), ())
        data = value.get("data") if isinstance(value, dict) else None
        if not isinstance(data, dict):
            return TxnDecoded(skip="unknown transaction value version")
        values = _json_value_fields(data)
        values["transactional_id"] = str(txn_id)
        values["value_version"] = _json_int(value.get("version"))
        return TxnDecoded(values)
    if text.endswith("::NULL"):
        return _tombstone(text[: -len("::NULL")], ())
    m = _CONSOLE_META.search(text)
    if m is None:
        return None
    parts, _ = join_partitions(m.group("parts"))
    return TxnDecoded(
        {
            "transactional_id": m.group("id"),
            "producer_id": int(m.group("pid")),
            "producer_epoch": int(m.group("epoch")),
            "state": m.group("state"),
            "partitions": parts,
            "last_update_ms": int(m.group("update")),
            "start_ms": int(m.group("start")),
            "timeout_ms": int(m.group("timeout")),
        }
    )
