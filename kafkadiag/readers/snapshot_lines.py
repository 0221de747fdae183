"""Parse dump lines of the companion files: producer-state `.snapshot`, `.txnindex`, indexes.

Snapshot lines changed shape five times (``dump-log-format.md`` §8) and print the open
transaction's first offset with the host language's optional type (``None``/``Some(n)`` up to
3.4, ``OptionalLong.empty``/``OptionalLong[n]`` from 3.5); a non-empty value is the signal of a
transaction that was open when the snapshot was taken.
"""

from __future__ import annotations

import re

from kafkadiag.readers.dumplog_lines import pairs, to_int

_OPTIONAL = re.compile(rb"^(?:Some\((-?\d+)\)|OptionalLong\[(-?\d+)\])$")
_BATCH_METADATA = re.compile(
    rb"BatchMetadata\(firstSeq=(-?\d+), lastSeq=(-?\d+), firstOffset=(-?\d+), lastOffset=(-?\d+), timestamp=(-?\d+)\)"
)


def optional_offset(value: bytes | None) -> tuple[int, str | None]:
    """Value of a printed Option/OptionalLong (-1 when empty) and the era shape of its spelling."""
    if value is None:
        return -1, None
    if value == b"None":
        return -1, "option-scala"
    if value == b"OptionalLong.empty":
        return -1, "option-java"
    m = _OPTIONAL.match(value)
    if m is None:
        return -1, None
    if m.group(1) is not None:
        return int(m.group(1)), "option-scala"
    return int(m.group(2)), "option-java"


def parse_snapshot(line: bytes) -> tuple[dict[str, int], tuple[str, ...]] | None:
    """One producer entry of a `.snapshot` dump (any era); None when it is not one."""
    head, sep, queue = line.partition(b" cachedMetadata: ")
    fields, _ = pairs(head.strip().split(b" "))
    if b"producerId" not in fields or b"producerEpoch" not in fields:
        return None
    txn_first, opt_shape = optional_offset(fields.get(b"currentTxnFirstOffset"))
    shapes: list[str] = [opt_shape] if opt_shape else []
    values = {
        "producer_id": to_int(fields[b"producerId"]),
        "producer_epoch": to_int(fields[b"producerEpoch"]),
        "coordinator_epoch": to_int(fields.get(b"coordinatorEpoch")),
        "current_txn_first_offset": txn_first,
        "last_timestamp": -1,
        "first_sequence": -1,
        "last_sequence": -1,
        "last_offset": -1,
    }
    if sep:
        shapes.append("snapshot-queue")
        batches = _BATCH_METADATA.findall(queue)
        if batches:
            first_seq, last_seq, _first_off, last_off, ts = batches[-1]
            values.update(first_sequence=int(first_seq), last_sequence=int(last_seq), last_offset=int(last_off), last_timestamp=int(ts))
        return values, tuple(shapes)
    keys = list(fields)
    values["last_sequence"] = to_int(fields.get(b"lastSequence"))
    values["last_offset"] = to_int(fields.get(b"lastOffset"))
    if b"firstSequence" in fields:
        values["first_sequence"] = to_int(fields[b"firstSequence"])
    elif b"offsetDelta" in fields and values["last_sequence"] >= 0:
        values["first_sequence"] = values["last_sequence"] - to_int(fields[b"offsetDelta"], 0)
    stamp = fields.get(b"lastTimestamp", fields.get(b"timestamp"))
    values["last_timestamp"] = to_int(stamp)
    if len(keys) > 2 and keys[2] == b"lastSequence":
        shapes.append("snapshot-0.11")
    elif b"lastTimestamp" in fields and b"firstSequence" in fields:
        shapes.append("snapshot-last-timestamp")
    elif b"firstSequence" in fields:
        shapes.append("snapshot-first-sequence")
    return values, tuple(shapes)


def parse_txnindex(line: bytes) -> dict[str, int] | None:
    """``version: V producerId: P firstOffset: F lastOffset: L lastStableOffset: LSO``."""
    fields, _ = pairs(line.split(b" "))
    if b"producerId" not in fields or b"firstOffset" not in fields:
        return None
    return {
        "producer_id": to_int(fields[b"producerId"]),
        "first_offset": to_int(fields[b"firstOffset"]),
        "last_offset": to_int(fields.get(b"lastOffset")),
        "last_stable_offset": to_int(fields.get(b"lastStableOffset")),
    }


def is_index_entry(tokens: list[bytes]) -> bool:
    """``offset: O position: P`` (`.index`) or ``timestamp: T offset: O`` (`.timeindex`)."""
    if len(tokens) != 4:
        return False
    if (tokens[0], tokens[2]) not in ((b"offset:", b"position:"), (b"timestamp:", b"offset:")):
        return False
    return to_int(tokens[1], None) is not None and to_int(tokens[3], None) is not None  # type: ignore[arg-type]
