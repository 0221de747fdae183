"""Find the lines of a block that can concern Kafka, without touching the others in Python.

Most lines of an application log are chatter. The block's lines become one Arrow binary array
(no copy: the offsets come from a numpy newline search) and RE2 tests them all against the
keyword set in C++. Kafka's own logger name at the end of a broker line
(``(kafka.server.ReplicaManager)``) does not count, or every broker line would be a candidate.
A second pass marks lines that start with a timestamp: those always begin a new event, which
lets event grouping skip the layout recognisers for them.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kafkadiag.readers.logs.client_errors import prefilter_needles
from kafkadiag.readers.logs.vocabulary import prefilter_literals, token_literal

#: Words that make a line worth parsing though they name no error (case-sensitive literals): Kafka's
#: own words and logger abbreviations, librdkafka's thread tag and error-text prefixes, tool headers.
BASE_KEYWORDS = (
    "KAFKA", "o.a.k.", "o.s.k.", "ransaction", "TRANSACTION", "roducer", "PRODUCER", "PID{", "enced", "EPOCH",
    "COORDINATOR", "oordinator", "Local: ", "Broker: ", "Local_", "thrd:", "txn", "Txn", "TXN", "sarama", "kgo",
    "LOG-END-OFFSET", "CURRENT-OFFSET", "clientId=", "groupId=", "onsumer group", "\\_\\_transaction",
    "read_committed", "LSO",
)
#: ... and every error name and spelling of the error vocabulary that contains none of them, so that
#: no known error is dropped before parsing.
_CLIENT_NEEDLES = frozenset(prefilter_needles())
KEYWORDS = prefilter_literals(BASE_KEYWORDS + tuple(sorted(_CLIENT_NEEDLES)))


def _keyword_re(keyword: str) -> str:
    """An error name matches only as a whole token (``_SSL`` is not in ``SASL_SSL``); an error's
    text and a client condition's literal in any case, as the readers match them (a user quotes
    Sarama's ``the broker received an out of order sequence number`` in lower case)."""
    if keyword in BASE_KEYWORDS:
        return re.escape(keyword)
    if keyword not in _CLIENT_NEEDLES and token_literal(keyword):
        return r"(?:^|[^A-Za-z0-9])" + re.escape(keyword) + r"(?:[^A-Za-z0-9]|$)"
    return "(?i:" + re.escape(keyword) + ")"


_KEYWORDS_RE = "|".join(_keyword_re(k) for k in KEYWORDS)
_KAFKA_RE = "[Kk]afka"
#: ``(kafka.server.ReplicaManager)`` / ``(org.apache.kafka.storage.x.Y)``: a broker (or shared) logger ending a line.
_LOGGER_TAIL_RE = (
    r"\((?:kafka\.|org\.apache\.kafka\.(?:storage|server|coordinator|controller|raft|metadata|image|queue|timeline|"
    r"snapshot|security|common|clients\.NetworkClient))[\w.$]*\)\s*$"
)
#: Lines that start with a date-time (any layout), or librdkafka's ``%level|``.
_STAMP_START_RE = (
    r"^(?:[A-Za-z0-9][\w.\-]{0,62}\s*\| |\[pod/[^\]\s]+\] )?"  # a container prefix (docker compose, kubectl)
    r"(?:\[?\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d[.,]\d|%[0-7]\|)"
)


def line_array(data: bytes, starts: np.ndarray) -> pa.Array:
    """The lines of ``data`` (which ends with a newline) as an Arrow binary array, newlines included."""
    offsets = np.empty(len(starts) + 1, dtype=np.int64)
    offsets[:-1] = starts
    offsets[-1] = len(data)
    return pa.Array.from_buffers(pa.large_binary(), len(starts), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def hit_mask(lines: pa.Array) -> np.ndarray:
    """Boolean mask of the lines that contain a keyword (a broker line's own logger name excluded)."""
    if len(lines) == 0:
        return np.zeros(0, dtype=bool)
    mask = np.asarray(pc.match_substring_regex(lines, _KEYWORDS_RE), dtype=bool)
    # "kafka" beyond a broker's logger name only matters on the lines no keyword kept: in a
    # librdkafka debug log that is none of them (every line has ``thrd:``), a third of its scan.
    rest = np.flatnonzero(~mask)
    if len(rest) == 0:
        return mask
    others = lines if len(rest) == len(lines) else lines.take(pa.array(rest))
    kafka = np.asarray(pc.count_substring_regex(others, _KAFKA_RE))
    if kafka.any():
        tails = np.asarray(pc.count_substring_regex(others, _LOGGER_TAIL_RE))
        mask[rest] = kafka > tails
    return mask


def stamp_mask(lines: pa.Array) -> np.ndarray:
    """Boolean mask of the lines that start with a timestamp (they always start an event)."""
    if len(lines) == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(pc.match_substring_regex(lines, _STAMP_START_RE), dtype=bool)
