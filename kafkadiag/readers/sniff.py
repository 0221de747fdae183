"""Decide what an input is from its first bytes, never from its name.

A small registry of detectors, each scoring the head of the input (about 64 KiB, already
decompressed). The highest score wins; a reader added later (client or broker logs, raw
segments) registers its own detector and claims its inputs without touching this one. When no
detector scores, the head is called ``binary`` or ``unknown`` so the caller can report it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

HEAD_BYTES = 64 << 10

EMPTY = "empty"
BINARY = "binary"
UNKNOWN = "unknown"

Detector = Callable[[bytes], "tuple[int, str] | None"]


@dataclass(frozen=True)
class _Entry:
    name: str
    detect: Detector


_REGISTRY: list[_Entry] = []


def register(name: str, detect: Detector) -> None:
    """Add (or replace) a detector returning ``(score, kind)`` for heads it recognises."""
    _REGISTRY[:] = [e for e in _REGISTRY if e.name != name]
    _REGISTRY.append(_Entry(name, detect))


def sniff(head: bytes) -> str:
    """Kind of an input from its head: a registered kind, ``empty``, ``binary`` or ``unknown``."""
    if not head.strip():
        return EMPTY
    best: tuple[int, str] | None = None
    for entry in _REGISTRY:
        found = entry.detect(head)
        if found is not None and found[0] > 0 and (best is None or found[0] > best[0]):
            best = found
    if best is not None:
        return best[1]
    return BINARY if looks_binary(head) else UNKNOWN


_TEXT_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def looks_binary(head: bytes) -> bool:
    """NUL bytes or many control bytes: not text a person or a tool printed."""
    sample = head[:8192]
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _TEXT_CONTROL))
    return controls > len(sample) // 20


# ---------------------------------------------------------------------------------------------
# kafka-dump-log text
# ---------------------------------------------------------------------------------------------

DUMP_LINE = re.compile(
    rb"^(?:"
    rb"(?P<batch>baseOffset: -?\d+ )"
    rb"|(?P<index>offset: \d+ position: \d+\r?$|timestamp: -?\d+ offset: \d+\r?$)"
    rb"|(?P<record>\| offset: -?\d+ |offset: -?\d+ (?:position: |\.\.\. |CreateTime: |LogAppendTime: |NoTimestampType: |isvalid: ))"
    rb"|(?P<header>Dumping \S[^\n]*\.(?:log|index|timeindex|txnindex|snapshot|checkpoint)\r?$|Starting offset: \d|Log starting offset: \d)"
    rb"|(?P<snapshot>producerId: -?\d+ producerEpoch: -?\d+ (?:coordinatorEpoch|lastSequence): )"
    rb"|(?P<txnindex>version: \d+ producerId: -?\d+ firstOffset: )"
    rb"|(?P<skipmeta>\| key: |\| payload: )"
    rb"|(?P<tool>Non-consecutive offsets in |Found \d+ invalid bytes at the end of |\s+at (?:kafka|org\.apache\.kafka)\.tools\.DumpLogSegments)"
    rb"|(?P<console>[^\n]*::TransactionMetadata\(transactionalId=|\{\"key\":\{\"(?:version|type)\":0,\"data\":\{\"transactionalId\")"
    rb")",
    re.M,
)
#: Groups of DUMP_LINE that only dump output has (headers, index and tool lines can stand alone).
STRONG_GROUPS = frozenset({"batch", "record", "snapshot", "console"})


def dump_line_kind(line: bytes) -> str | None:
    """The DUMP_LINE group one line (no newline) belongs to, None if it is not dump output."""
    m = DUMP_LINE.match(line)
    return m.lastgroup if m else None


_TXN_HINTS = (
    b"key: transaction_metadata::",
    b"key: transactionalId=",
    b'key: {"type":"0"',
    b"__transaction_state-",
    b"::TransactionMetadata(",
    b'{"key":{"',
)


def dump_at_a_glance(head: bytes) -> bool:
    """Most of the first lines are ``kafka-dump-log.sh`` lines: a cheap look before full detection
    (a config or a log detector need not parse such a head; a planner can weigh the file)."""
    first = [line for line in head[:4096].split(b"\n")[:12] if line.strip()][:6]
    return len(first) >= 3 and sum(1 for line in first if DUMP_LINE.match(line)) * 2 > len(first)


def detect_dump_log(head: bytes) -> tuple[int, str] | None:
    """Lines shaped like `kafka-dump-log.sh` output (any era, any file type)."""
    counts: dict[str, int] = {}
    for m in DUMP_LINE.finditer(head):
        group = m.lastgroup or ""
        counts[group] = counts.get(group, 0) + 1
    total = sum(counts.values())
    strong = total - counts.get("index", 0) - counts.get("console", 0)
    if not strong and total < 2:
        return None
    return total, "dump-log/" + _dump_subkind(head, counts)


def _dump_subkind(head: bytes, counts: dict[str, int]) -> str:
    if any(h in head for h in _TXN_HINTS):
        return "transaction-state"
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    for group, _ in ranked:
        if group in ("snapshot", "txnindex", "index"):
            return group
        if group in ("batch", "record", "skipmeta"):
            return "data"
    return "stderr" if counts.get("tool") else "data"


register("dump-log", detect_dump_log)


def is_dump_kind(kind: str) -> bool:
    return kind.startswith("dump-log/")
