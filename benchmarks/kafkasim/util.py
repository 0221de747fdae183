"""Byte-level helpers: Java string hash, varint sizes, record and batch sizes, CRC stand-ins.

Sizes are computed from the real binary layouts (record-batch-binary.md) so that `size`,
`position`, `keySize` and `valueSize` in the generated text are what Kafka would print.
"""

from __future__ import annotations

import zlib

BATCH_OVERHEAD = 61  # v2 record batch header, including the 12-byte offset+length prefix
MARKER_BATCH_SIZE = 78  # control batch with one end-transaction marker record
INT32_MAX = 2147483647


def java_string_hash(text: str) -> int:
    """Java's String.hashCode over UTF-16 code units, as a signed 32-bit int."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - 0x100000000 if h >= 0x80000000 else h


def txn_partition(txn_id: str, partitions: int = 50) -> int:
    """`__transaction_state` partition of a transactional id (Kafka's Utils.abs(hash) % n)."""
    h = java_string_hash(txn_id)
    return (0 if h == -0x80000000 else abs(h)) % partitions


def zigzag_len(n: int) -> int:
    """Bytes taken by a zig-zag varint/varlong (record fields)."""
    z = (n << 1) ^ (n >> 63)
    if z < 0x80:
        return 1
    if z < 0x4000:
        return 2
    if z < 0x200000:
        return 3
    if z < 0x10000000:
        return 4
    size = 5
    z >>= 35
    while z:
        size += 1
        z >>= 7
    return size


def uvarint_len(n: int) -> int:
    """Bytes taken by an unsigned LEB128 varint (flexible message schemas)."""
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


def utf8_len(text: str | None) -> int:
    """Encoded length of a key/value, -1 for null (Kafka's convention)."""
    if text is None:
        return -1
    return len(text.encode("utf-8")) if not text.isascii() else len(text)


def record_size(offset_delta: int, ts_delta: int, key_len: int, value_len: int,
                header_sizes: tuple[tuple[int, int], ...] = ()) -> int:
    """Size of one v2 record including its length varint."""
    body = 1 + zigzag_len(ts_delta) + zigzag_len(offset_delta)
    body += zigzag_len(key_len) + max(key_len, 0) + zigzag_len(value_len) + max(value_len, 0)
    body += zigzag_len(len(header_sizes))
    for hk, hv in header_sizes:
        body += zigzag_len(hk) + hk + zigzag_len(hv) + max(hv, 0)
    return zigzag_len(body) + body


#: Rough compressed/raw ratios for text-like payloads; only used for `size` of compressed batches.
CODEC_RATIO = {"gzip": 0.38, "lz4": 0.55, "snappy": 0.58, "zstd": 0.34}
CODEC_FRAME = {"gzip": 20, "lz4": 19, "snappy": 20, "zstd": 13}


def batch_size(records_bytes: int, codec: str) -> int:
    """Total batch size for a given uncompressed record section and codec."""
    if codec == "none":
        return BATCH_OVERHEAD + records_bytes
    return BATCH_OVERHEAD + CODEC_FRAME[codec] + int(records_bytes * CODEC_RATIO[codec])


def pseudo_crc(*parts: object) -> int:
    """A stable 32-bit stand-in for the batch CRC-32C (the text never lets anyone verify it)."""
    return zlib.crc32(":".join(str(p) for p in parts).encode())


def txn_key_size(txn_id: str) -> int:
    """TransactionLogKey v0: int16 version + int16 length + UTF-8 id."""
    return 4 + utf8_len(txn_id)


def wrap_sequence(seq: int) -> int:
    """Producer sequences wrap from Int.MaxValue back to 0."""
    return seq % (INT32_MAX + 1)
