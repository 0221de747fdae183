"""Defaults each client applies when a key is not set, by Kafka version where they changed.

Sources are the clients' own config definitions: ProducerConfig (idempotence and acks=all by
default from 3.0, KIP-679; linger.ms 5 from 4.0, KIP-1030; retries unbounded from 2.1, KIP-91),
StreamsConfig (exactly-once overrides: 10 s transaction timeout, 100 ms commit interval), the
broker's transaction coordinator settings (producer.id.expiration.ms from 3.4, KIP-854),
librdkafka's CONFIGURATION (idempotence off, message.timeout.ms 300 s, read_committed consumers)
and Flink's KafkaSinkBuilder (transaction.timeout.ms of one hour).
"""

from __future__ import annotations

import re

DEFAULT_KAFKA_VERSION = "4.1"
INT_MAX = 2_147_483_647


class VersionError(ValueError):
    """An unreadable --kafka-version."""


def version_code(text: str) -> int:
    """``3.7`` / ``3.7.1`` / ``0.11.0.2`` as major*100+minor (307, 11)."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)*\s*", str(text))
    if not m:
        raise VersionError(f"--kafka-version: expected a version such as 3.7 or 4.0.1, got {text!r}")
    return int(m.group(1)) * 100 + int(m.group(2))


def java_producer(code: int) -> dict[str, object]:
    return {
        "acks": "all" if code >= 300 else "1",
        "retries": INT_MAX if code >= 201 else 0,
        "linger.ms": 5 if code >= 400 else 0,
        "delivery.timeout.ms": 120_000,
        "request.timeout.ms": 30_000,
        "max.in.flight.requests.per.connection": 5,
        "transaction.timeout.ms": 60_000,
        "enable.idempotence": code >= 300,
    }


def librdkafka_producer() -> dict[str, object]:
    return {
        "acks": "all",
        "retries": INT_MAX,
        "linger.ms": 5,
        "delivery.timeout.ms": 300_000,
        "request.timeout.ms": 30_000,
        "max.in.flight.requests.per.connection": 1_000_000,
        "transaction.timeout.ms": 60_000,
        "socket.timeout.ms": 60_000,
        "enable.idempotence": False,
    }


STREAMS = {
    "commit.interval.ms": 30_000,
    "eos.commit.interval.ms": 100,
    "eos.transaction.timeout.ms": 10_000,
    "eos.delivery.timeout.ms": INT_MAX,
    "linger.ms": 100,
}
FLINK = {"transaction.timeout.ms": 3_600_000, "execution.checkpointing.timeout": 600_000}


def broker(code: int) -> dict[str, object]:
    return {
        "transaction.max.timeout.ms": 900_000,
        "transaction.state.log.replication.factor": 3,
        "transaction.state.log.min.isr": 2,
        "unclean.leader.election.enable": False,
        "transactional.id.expiration.ms": 604_800_000,
        "producer.id.expiration.ms": 86_400_000 if code >= 304 else None,
        "transaction.abort.timed.out.transaction.cleanup.interval.ms": 10_000,
        "transaction.remove.expired.transaction.cleanup.interval.ms": 3_600_000,
    }


CONSUMER_ISOLATION = {"java": "read_uncommitted", "librdkafka": "read_committed"}

_UNITS = {
    "ms": 1, "milli": 1, "millis": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "m": 60_000, "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")
_ISO = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?", re.IGNORECASE)


def duration_ms(text: str) -> int | None:
    """``60000``, ``10 s``, ``1min``, ``7d``, ``PT10S`` as milliseconds; None when unreadable.

    A bare number is milliseconds (Flink's and Kafka's convention)."""
    value = str(text).strip()
    iso = _ISO.fullmatch(value)
    if iso and value.upper() != "P":
        d, h, m, s = (float(g) if g else 0.0 for g in iso.groups())
        return int(((d * 24 + h) * 60 + m) * 60_000 + s * 1000)
    m2 = _DURATION.fullmatch(value)
    if not m2:
        return None
    unit = m2.group(2).lower() or "ms"
    if unit not in _UNITS:
        return None
    return int(float(m2.group(1)) * _UNITS[unit])
