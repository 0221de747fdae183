"""What `kafka-dump-log.sh` prints, per Kafka era (dump-log-format.md, transaction-log-format.md).

Each `Era` is a bundle of the spellings that changed between releases. The formatters below are
plain functions over a `Batch`/`Record` so the scenario renderer and the bulk generator print
exactly the same shapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from .util import java_string_hash

if TYPE_CHECKING:  # pragma: no cover
    from .log import Batch, ProducerEntry
    from .model import TxnLogValue

STATE_IDS = {"Empty": 0, "Ongoing": 1, "PrepareCommit": 2, "PrepareAbort": 3, "CompleteCommit": 4,
             "CompleteAbort": 5, "Dead": 6, "PrepareEpochFence": 7}


@dataclass(frozen=True)
class Era:
    """The text shapes of one Kafka release line (the specific release is `version`)."""

    name: str
    version: str
    batch_layout: str  # "0.11" (no count) | "2.0.0" (count) | "2.0.1" (+isControl) | "2.2" (reordered) | "3.2" (+deleteHorizonMs)
    record_layout: str  # "legacy0" | "legacy" | "pipe" | "superset" | "reduced"
    upper_codec: bool
    log_starting_offset: bool
    snapshot_layout: str  # "0.11" | "1.0.2" | "3.1"
    java_optional: bool
    txn_decoder: str  # "plain" | "prefixed" | "list" | "json"
    scala_set: str  # "Set" (Scala 2.11/2.12 builds) | "HashSet" (2.13 builds)
    tombstone_crash: bool
    null_value_key: bool
    print_implies_deep: bool
    abort_bumps_epoch: bool
    protocol: int
    json_value_v1: bool  # 4.x writes TransactionLogValue v1 when transaction.version >= 1
    start_ms: int

    @property
    def batch_lines_in_deep(self) -> bool:
        """From 2.2.0 the batch line is printed in deep mode too."""
        return self.batch_layout in ("2.2", "3.2")

    @property
    def non_consecutive_colon(self) -> bool:
        """`Non-consecutive offsets in :<path>` up to 2.2.x, without the colon from 2.3.0."""
        return self.batch_layout in ("0.11", "2.0.0", "2.0.1")


def _era(name: str, version: str, batch: str, record: str, *, upper: bool = True, lso: bool = False,
         snap: str = "1.0.2", java_opt: bool = False, decoder: str = "list", scala_set: str = "Set",
         crash: bool = False, null_key: bool = True, implies_deep: bool = True, bumps: bool = True,
         protocol: int = 1, v1: bool = False, start_ms: int = 1_700_000_000_000) -> Era:
    return Era(name, version, batch, record, upper, lso, snap, java_opt, decoder, scala_set, crash, null_key,
               implies_deep, bumps, protocol, v1, start_ms)


ERAS: dict[str, Era] = {e.name: e for e in (
    _era("0.11.0.0", "0.11.0.0", "0.11", "legacy0", snap="0.11", decoder="plain", crash=True, null_key=False,
         implies_deep=False, bumps=False, start_ms=1_500_000_000_000),
    _era("0.11", "0.11.0.3", "0.11", "legacy", snap="0.11", decoder="plain", crash=True, null_key=False,
         implies_deep=False, start_ms=1_515_000_000_000),
    _era("1.1", "1.1.1", "0.11", "legacy", decoder="plain", crash=True, null_key=False, start_ms=1_532_000_000_000),
    _era("2.0", "2.0.0", "2.0.0", "legacy", decoder="plain", crash=True, null_key=False, start_ms=1_538_000_000_000),
    _era("2.1", "2.1.1", "2.0.1", "legacy", decoder="plain", crash=True, null_key=False, start_ms=1_550_000_000_000),
    _era("2.4", "2.4.0", "2.2", "pipe", decoder="plain", crash=True, start_ms=1_577_000_000_000),
    _era("2.4.1", "2.4.1", "2.2", "pipe", decoder="prefixed", scala_set="HashSet", start_ms=1_585_000_000_000),
    _era("2.8", "2.8.2", "2.2", "superset", start_ms=1_635_000_000_000),
    _era("3.0", "3.0.2", "2.2", "reduced", upper=False, start_ms=1_645_000_000_000),
    _era("3.3", "3.3.2", "3.2", "reduced", upper=False, lso=True, snap="3.1", start_ms=1_672_000_000_000),
    _era("3.5", "3.5.2", "3.2", "reduced", upper=False, lso=True, snap="3.1", java_opt=True,
         start_ms=1_695_000_000_000),
    _era("4.0", "4.0.0", "3.2", "reduced", upper=False, lso=True, snap="3.1", java_opt=True, protocol=2, v1=True,
         start_ms=1_745_000_000_000),
    _era("4.1", "4.1.0", "3.2", "reduced", upper=False, lso=True, snap="3.1", java_opt=True, decoder="json",
         protocol=2, v1=True, start_ms=1_760_000_000_000),
)}

#: The eras named in the project brief; the two extra ones pin patch-level differences.
MAIN_ERAS = ("0.11", "1.1", "2.0", "2.1", "2.4", "2.8", "3.0", "3.3", "3.5", "4.0", "4.1")


def get_era(name: str) -> Era:
    if name not in ERAS:
        raise KeyError(f"unknown era {name!r}; choose from {', '.join(ERAS)}")
    return ERAS[name]


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def codec_text(era: Era, codec: str) -> str:
    """NONE/GZIP/LZ4 up to 2.8, none/gzip/lz4 from 3.0."""
    return codec.upper() if era.upper_codec else codec


def header(era: Era, path: str, base_offset: int) -> str:
    """The two header lines of a `.log` dump."""
    label = "Log starting offset" if era.log_starting_offset else "Starting offset"
    return f"Dumping {path}\n{label}: {base_offset}\n"


def batch_line(era: Era, b: "Batch") -> str:
    """The shallow/batch line, exact field order per era (dump-log-format.md §3.2)."""
    head = f"baseOffset: {b.base_offset} lastOffset: {b.last_offset} "
    if era.batch_layout != "0.11":
        head += f"count: {b.count} "
    head += (f"baseSequence: {b.base_sequence} lastSequence: {b.last_sequence} producerId: {b.producer_id} "
             f"producerEpoch: {b.producer_epoch} partitionLeaderEpoch: {b.leader_epoch} "
             f"isTransactional: {_b(b.is_transactional)} ")
    if era.batch_layout != "0.11" and era.batch_layout != "2.0.0":
        head += f"isControl: {_b(b.is_control)} "
    if era.batch_layout == "3.2":
        dh = "OptionalLong.empty" if b.delete_horizon is None else f"OptionalLong[{b.delete_horizon}]"
        head += f"deleteHorizonMs: {dh} "
    codec = codec_text(era, b.codec)
    if era.batch_lines_in_deep:
        return (f"{head}position: {b.position} CreateTime: {b.max_timestamp} size: {b.size} magic: 2 "
                f"compresscodec: {codec} crc: {b.crc} isvalid: {_b(b.valid)}")
    return (f"{head}position: {b.position} CreateTime: {b.max_timestamp} isvalid: {_b(b.valid)} size: {b.size} "
            f"magic: 2 compresscodec: {codec} crc: {b.crc}")


RecordFmt = Callable[[tuple, int, int, int, int, int, str], str]


def record_context(era: Era, b: "Batch") -> tuple:
    """Per-batch text pieces that record lines of some eras repeat."""
    codec = codec_text(era, b.codec)
    if era.record_layout in ("legacy", "legacy0"):
        epoch = f"producerEpoch: {b.producer_epoch} " if era.record_layout == "legacy" else ""
        return (f" position: {b.position} CreateTime: ",
                f" magic: 2 compresscodec: {codec} producerId: {b.producer_id} {epoch}sequence: ",
                f" isTransactional: {_b(b.is_transactional)} headerKeys: [")
    if era.record_layout == "superset":
        return (f"baseOffset: {b.base_offset} lastOffset: {b.last_offset} baseSequence: {b.base_sequence} "
                f"lastSequence: {b.last_sequence} producerEpoch: {b.producer_epoch} "
                f"partitionLeaderEpoch: {b.leader_epoch} batchSize: {b.size} magic: 2 compressType: {codec} "
                f"position: {b.position} ",)
    return ()


def _legacy(c: tuple, o: int, ts: int, k: int, v: int, s: int, h: str) -> str:
    return f"offset: {o}{c[0]}{ts} isvalid: true keysize: {k} valuesize: {v}{c[1]}{s}{c[2]}{h}]"


def _pipe(c: tuple, o: int, ts: int, k: int, v: int, s: int, h: str) -> str:
    return f"| offset: {o} CreateTime: {ts} keysize: {k} valuesize: {v} sequence: {s} headerKeys: [{h}]"


def _superset(c: tuple, o: int, ts: int, k: int, v: int, s: int, h: str) -> str:
    return (f"| offset: {o} isValid: true crc: null keySize: {k} valueSize: {v} CreateTime: {ts} "
            f"{c[0]}sequence: {s} headerKeys: [{h}]")


def _reduced(c: tuple, o: int, ts: int, k: int, v: int, s: int, h: str) -> str:
    return f"| offset: {o} CreateTime: {ts} keySize: {k} valueSize: {v} sequence: {s} headerKeys: [{h}]"


RECORD_FORMATS: dict[str, RecordFmt] = {"legacy0": _legacy, "legacy": _legacy, "pipe": _pipe,
                                        "superset": _superset, "reduced": _reduced}


def record_formatter(era: Era) -> RecordFmt:
    """f(ctx, offset, timestamp, keySize, valueSize, sequence, headerKeys) -> record metadata text."""
    return RECORD_FORMATS[era.record_layout]


def marker_suffix(marker: str, coordinator_epoch: int) -> str:
    return f" endTxnMarker: {marker} coordinatorEpoch: {coordinator_epoch}"


def data_suffix(era: Era, key: str | None, value: str | None) -> str:
    """` key: ... payload: ...` for `--print-data-log`; null values per era (§4.6)."""
    if value is None:
        return f" key: {key}" if (key is not None and era.null_value_key) else ""
    if key is None:
        return f" payload: {value}"
    return f" key: {key} payload: {value}"


# -- __transaction_state decoder ---------------------------------------------------------------

def _set_order(names: list[str]) -> list[str]:
    """Hash-set iteration order: arbitrary but stable."""
    return sorted(names, key=lambda n: (java_string_hash(n) & 0x7FFFFFFF) % 64)


def txn_suffix(era: Era, txn_id: str, value: "TxnLogValue | None") -> str | None:
    """` key: ... payload: ...` of `--transaction-log-decoder`; None where a tombstone crashes the tool."""
    if era.txn_decoder == "json":
        key = json.dumps({"type": "0", "data": {"transactionalId": txn_id}}, separators=(",", ":"),
                         ensure_ascii=False)
        return f" key: {key} payload: " + ("<DELETE>" if value is None else _json_value(value))
    key = f"transactionalId={txn_id}"
    if era.txn_decoder != "plain":
        key = "transaction_metadata::" + key
    if value is None:
        return None if era.tombstone_crash else f" key: {key} payload: <DELETE>"
    names = value.partition_names()
    if era.txn_decoder == "list":
        parts = "[" + ",".join(names) + "]"
    else:
        parts = f"{era.scala_set}(" + ", ".join(_set_order(names)) + ")"
    return (f" key: {key} payload: producerId:{value.producer_id},producerEpoch:{value.producer_epoch},"
            f"state={value.state},partitions={parts},txnLastUpdateTimestamp={value.last_update_ms},"
            f"txnTimeoutMs={value.timeout_ms}")


def _json_value(v: "TxnLogValue") -> str:
    """4.1+ JSON value: schema order, tagged fields only when set (transaction-log-format.md §7.4)."""
    parts = None if v.partitions is None else [{"topic": t, "partitionIds": list(ps)} for t, ps in v.partitions]
    data: dict[str, object] = {
        "producerId": v.producer_id, "producerEpoch": v.producer_epoch, "transactionTimeoutMs": v.timeout_ms,
        "transactionStatus": STATE_IDS[v.state], "transactionPartitions": parts,
        "transactionLastUpdateTimestampMs": v.last_update_ms, "transactionStartTimestampMs": v.start_ms,
    }
    if v.version >= 1 and v.client_txn_version:
        data["clientTransactionVersion"] = v.client_txn_version
    return json.dumps({"version": str(v.version), "data": data}, separators=(",", ":"), ensure_ascii=False)


# -- companions --------------------------------------------------------------------------------

def optional_text(era: Era, value: int) -> str:
    """Scala Option up to 3.4, Java OptionalLong from 3.5."""
    if era.java_optional:
        return "OptionalLong.empty" if value < 0 else f"OptionalLong[{value}]"
    return "None" if value < 0 else f"Some({value})"


def snapshot_line(era: Era, e: "ProducerEntry") -> str:
    """One producer of a `.snapshot` dump (dump-log-format.md §8)."""
    opt = optional_text(era, e.txn_first_offset)
    if era.snapshot_layout == "0.11":
        return (f"producerId: {e.producer_id} producerEpoch: {e.epoch} lastSequence: {e.last_sequence} "
                f"lastOffset: {e.last_offset} offsetDelta: {e.offset_delta} lastTimestamp: {e.last_timestamp} "
                f"coordinatorEpoch: {e.coordinator_epoch} currentTxnFirstOffset: {opt}")
    head = (f"producerId: {e.producer_id} producerEpoch: {e.epoch} coordinatorEpoch: {e.coordinator_epoch} "
            f"currentTxnFirstOffset: {opt} ")
    if era.snapshot_layout == "3.1":
        head += f"lastTimestamp: {e.last_timestamp} "
    if e.last_offset < 0:
        return head  # Scala tool leaves the trailing space
    first = e.last_sequence - e.offset_delta
    return (f"{head}firstSequence: {first} lastSequence: {e.last_sequence} lastOffset: {e.last_offset} "
            f"offsetDelta: {e.offset_delta} timestamp: {e.last_timestamp}")


def txnindex_line(pid: int, first: int, last: int, lso: int) -> str:
    """One aborted transaction of a `.txnindex` dump (same in every version)."""
    return f"version: 0 producerId: {pid} firstOffset: {first} lastOffset: {last} lastStableOffset: {lso}"


def dump_command(era: Era, files: list[str], deep: bool, print_data: bool, txn_decoder: bool = False) -> str:
    """The command line that would have produced the text."""
    cmd = ["kafka-dump-log.sh", "--files", ",".join(files)]
    if deep and (not (print_data or txn_decoder) or not era.print_implies_deep):
        cmd.append("--deep-iteration")
    if txn_decoder:
        cmd.append("--transaction-log-decoder")
    elif print_data:
        cmd.append("--print-data-log")
    return " ".join(cmd)
