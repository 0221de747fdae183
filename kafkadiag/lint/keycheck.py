"""Setting names Kafka does not know, and the real key each one most likely meant.

Kafka itself only logs "The configuration 'transaction.timout.ms' was supplied but isn't a known
config" and goes on with the default, so a misspelt key silently does nothing. The catalog is
every key Apache Kafka's config definitions name (``kafka-keys.txt``) plus kafkadiag's own key
tables; a name not in it that is one or two edits away from a real key is reported with that key.
Names far from every key (an application's own settings, a serializer's options) are left alone.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from importlib import resources

from .keys import BROKER_KEYS, FLINK_KEYS, LIBRDKAFKA_ONLY, kafka_keys

#: Prefixes under which Kafka passes the rest of the key on to another client or listener.
_PASS_ON = ("producer.override.", "consumer.override.", "admin.override.", "main.consumer.", "restore.consumer.",
            "global.consumer.", "producer.", "consumer.", "admin.", "topic.")


@lru_cache(maxsize=1)
def catalog() -> frozenset[str]:
    """Every key kafkadiag knows to be a real Kafka setting."""
    text = resources.files("kafkadiag.lint").joinpath("kafka-keys.txt").read_text(encoding="utf-8")
    listed = {ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")}
    return frozenset(listed | kafka_keys() | BROKER_KEYS | FLINK_KEYS | LIBRDKAFKA_ONLY)


_UNDOTTED = frozenset({"acks", "retries", "listeners"})


def _bare(key: str) -> str:
    for prefix in _PASS_ON:
        if key.startswith(prefix) and len(key) > len(prefix):
            return key[len(prefix):]
    if key.startswith("listener.name.") and key.count(".") >= 3:
        return key.split(".", 3)[3]
    return key


def suggestion(key: str) -> str | None:
    """The real key a misspelt ``key`` most likely meant; None when ``key`` is real or not close to any."""
    known = catalog()
    bare = _bare(key)
    if key in known or bare in known or not bare or bare != bare.lower() or not any(c.isalpha() for c in bare):
        return None
    if "." not in bare:
        known = _UNDOTTED  # one-word names are mostly an application's own; only the client's few are checked
    for candidate in difflib.get_close_matches(bare, known, n=3, cutoff=0.8):
        limit = 1 if len(bare) <= 5 else 2
        if _distance(bare, candidate) <= limit:
            return key[: len(key) - len(bare)] + candidate
    return None


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (adjacent swaps count once: ``acsk`` is one edit from ``acks``)."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        rows[i][0] = i
    for j in range(len(b) + 1):
        rows[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[len(a)][len(b)]
