"""Which dialect a config file is written in, judged by its content and keys, never its name.

A ``server.properties`` renamed ``app.conf`` is still a broker config; ``--dialect`` overrides
the guess for the rare file whose keys are ambiguous (a Flink KafkaSink producer file looks
exactly like a Java producer file).
"""

from __future__ import annotations

from .keys import (
    BROKER_KEYS,
    FLINK_KEYS,
    LIBRDKAFKA_ONLY,
    STREAMS_KEYS,
    kafka_keys,
    librdkafka_key,
    spring_key,
    streams_client_key,
)
from .model import ConfigFile

DIALECTS = ("java", "librdkafka", "streams", "spring", "flink", "broker")


def detect_dialect(cfg: ConfigFile) -> str | None:
    """The dialect of a parsed file, or None when nothing in it is a Kafka setting."""
    if cfg.fmt == "describe":
        return "broker"
    keys = [e.key for e in cfg.entries]
    flat = set(keys)
    known = kafka_keys()
    if any(spring_key(k) for k in keys):
        return "spring"
    if flat & FLINK_KEYS or any(k.startswith(("execution.checkpointing.", "sink.")) for k in keys):
        return "flink"
    if any(k.startswith("properties.") for k in keys) and flat & {"connector", "topic", "format"}:
        return "flink"
    prefixed = cfg.fmt == "properties" and any(streams_client_key(k)[0] and streams_client_key(k)[1] in known for k in keys)
    if flat & STREAMS_KEYS or prefixed:
        return "streams"
    if flat & BROKER_KEYS:
        return "broker"
    if flat & LIBRDKAFKA_ONLY:
        return "librdkafka"
    sectioned = {k.split(".", 1)[1] for k in keys if "." in k} if cfg.fmt in ("yaml", "json") else set()
    if sectioned & LIBRDKAFKA_ONLY:
        return "librdkafka"
    if flat & known or {librdkafka_key(k) for k in sectioned} & known:
        return "librdkafka" if cfg.fmt in ("yaml", "json") else "java"
    return None
