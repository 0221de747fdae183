"""Key names per dialect, folded onto Kafka's Java names so one rule covers every client.

librdkafka spells several settings differently (``message.timeout.ms`` is its
``delivery.timeout.ms``), Spring Boot has its own property names with relaxed binding
(``transaction-id-prefix``, ``transactionIdPrefix``), Flink's table options prefix client keys
with ``properties.`` and Kafka Streams with ``producer.``/``consumer.``. Keys are normalised once
here; rules only ever see the Java names.
"""

from __future__ import annotations

#: librdkafka names (and aliases) of settings whose Java name differs.
LIBRDKAFKA_TO_JAVA = {
    "metadata.broker.list": "bootstrap.servers",
    "message.timeout.ms": "delivery.timeout.ms",
    "queue.buffering.max.ms": "linger.ms",
    "message.send.max.retries": "retries",
    "request.required.acks": "acks",
    "max.in.flight": "max.in.flight.requests.per.connection",
}

#: Keys only librdkafka (and confluent-kafka bindings built on it) understands.
LIBRDKAFKA_ONLY = {
    "message.timeout.ms", "socket.timeout.ms", "queue.buffering.max.ms", "queue.buffering.max.messages",
    "queue.buffering.max.kbytes", "message.send.max.retries", "request.required.acks", "metadata.broker.list",
    "topic.metadata.refresh.interval.ms", "statistics.interval.ms", "enable.partition.eof", "api.version.request",
    "batch.num.messages", "sasl.username", "sasl.password", "ssl.ca.location", "ssl.key.location",
    "ssl.certificate.location", "enable.ssl.certificate.verification", "max.in.flight", "queued.max.messages.kbytes",
    "queued.min.messages", "fetch.wait.max.ms", "socket.keepalive.enable", "log_level", "enable.auto.offset.store",
    "go.events.channel.enable", "go.delivery.reports", "dr_cb", "dr_msg_cb", "error_cb", "compression.codec",
    "enable.gapless.guarantee", "sasl.oauthbearer.method", "sasl.oauthbearer.client.secret", "debug",
    "sticky.partitioning.linger.ms", "coordinator.query.interval.ms", "ssl.key.pem", "ssl.certificate.pem",
}

PRODUCER_KEYS = {
    "transactional.id", "acks", "enable.idempotence", "linger.ms", "batch.size", "key.serializer",
    "value.serializer", "delivery.timeout.ms", "max.in.flight.requests.per.connection", "retries",
    "transaction.timeout.ms", "compression.type", "buffer.memory", "partitioner.class", "max.block.ms",
    "max.request.size", "compression.codec", "batch.num.messages", "queue.buffering.max.messages",
}
CONSUMER_KEYS = {
    "group.id", "isolation.level", "key.deserializer", "value.deserializer", "auto.offset.reset",
    "enable.auto.commit", "max.poll.records", "max.poll.interval.ms", "heartbeat.interval.ms", "fetch.min.bytes",
    "partition.assignment.strategy", "group.instance.id", "auto.commit.interval.ms", "enable.partition.eof",
    "enable.auto.offset.store", "fetch.wait.max.ms", "fetch.max.wait.ms", "group.protocol",
}
COMMON_CLIENT_KEYS = {
    "bootstrap.servers", "client.id", "security.protocol", "sasl.mechanism", "sasl.mechanisms", "sasl.jaas.config",
    "request.timeout.ms", "socket.timeout.ms", "ssl.truststore.location", "ssl.keystore.location",
}
STREAMS_KEYS = {
    "application.id", "processing.guarantee", "default.key.serde", "default.value.serde", "num.stream.threads",
    "commit.interval.ms", "state.dir", "topology.optimization", "num.standby.replicas", "cache.max.bytes.buffering",
    "statestore.cache.max.bytes", "default.deserialization.exception.handler", "default.production.exception.handler",
}
STREAMS_PREFIXES = ("producer.", "consumer.", "main.consumer.", "restore.consumer.", "global.consumer.", "admin.")
BROKER_KEYS = {
    "broker.id", "node.id", "process.roles", "log.dirs", "log.dir", "listeners", "advertised.listeners",
    "zookeeper.connect", "controller.quorum.voters", "controller.quorum.bootstrap.servers", "controller.listener.names",
    "num.partitions", "num.network.threads", "num.io.threads", "transaction.state.log.replication.factor",
    "transaction.state.log.min.isr", "transaction.max.timeout.ms", "offsets.topic.replication.factor",
    "default.replication.factor", "log.retention.hours", "log.retention.ms", "log.segment.bytes",
    "auto.create.topics.enable", "unclean.leader.election.enable", "transactional.id.expiration.ms",
    "producer.id.expiration.ms", "transaction.abort.timed.out.transaction.cleanup.interval.ms",
    "inter.broker.listener.name", "min.insync.replicas", "log.cleaner.enable", "group.initial.rebalance.delay.ms",
}
FLINK_KEYS = {
    "sink.delivery-guarantee", "sink.transactional-id-prefix", "sink.semantic", "connector",
    "execution.checkpointing.interval", "execution.checkpointing.mode", "execution.checkpointing.timeout",
    "state.backend", "state.backend.type", "taskmanager.numberOfTaskSlots", "jobmanager.rpc.address",
    "parallelism.default", "transactional-id-prefix", "delivery-guarantee",
}
FLINK_PREFIXES = ("execution.checkpointing.", "properties.", "sink.", "state.checkpoints.", "taskmanager.", "jobmanager.")


def kafka_keys() -> set[str]:
    """Every key that marks a file as some Kafka configuration."""
    return (PRODUCER_KEYS | CONSUMER_KEYS | COMMON_CLIENT_KEYS | STREAMS_KEYS | BROKER_KEYS
            | set(LIBRDKAFKA_ONLY) | set(LIBRDKAFKA_TO_JAVA.values()))


def librdkafka_key(key: str) -> str:
    """The Java name of a librdkafka key (unchanged when they agree)."""
    return LIBRDKAFKA_TO_JAVA.get(key, key)


# --- Spring Boot ---------------------------------------------------------------------------

SPRING_PREFIX = "spring.kafka."
_SPRING_COMMON = {
    "bootstrapservers": "bootstrap.servers", "clientid": "client.id", "security.protocol": "security.protocol",
    "ssl.keypassword": "ssl.key.password", "ssl.keystorepassword": "ssl.keystore.password",
    "ssl.truststorepassword": "ssl.truststore.password", "ssl.keystorelocation": "ssl.keystore.location",
    "ssl.truststorelocation": "ssl.truststore.location", "ssl.keystoretype": "ssl.keystore.type",
    "ssl.truststoretype": "ssl.truststore.type", "ssl.protocol": "ssl.protocol",
}
SPRING_SCOPED = {
    "producer": {
        **_SPRING_COMMON, "acks": "acks", "retries": "retries", "batchsize": "batch.size",
        "buffermemory": "buffer.memory", "compressiontype": "compression.type", "keyserializer": "key.serializer",
        "valueserializer": "value.serializer", "transactionidprefix": "transactional.id",
    },
    "consumer": {
        **_SPRING_COMMON, "groupid": "group.id", "isolationlevel": "isolation.level",
        "autooffsetreset": "auto.offset.reset", "enableautocommit": "enable.auto.commit",
        "maxpollrecords": "max.poll.records", "keydeserializer": "key.deserializer",
        "valuedeserializer": "value.deserializer",
    },
    "streams": {
        **_SPRING_COMMON, "applicationid": "application.id", "replicationfactor": "replication.factor",
        "statedir": "state.dir",
    },
    "common": dict(_SPRING_COMMON),
}
#: Spring property to write for a Java key, per scope (others go under ``<scope>.properties.``).
SPRING_NAMES = {
    scope: {java: name for name, java in table.items() if "." not in name}
    for scope, table in SPRING_SCOPED.items()
}
_SPRING_WRITTEN = {
    "acks": "acks", "retries": "retries", "batch.size": "batch-size", "transactional.id": "transaction-id-prefix",
    "isolation.level": "isolation-level", "group.id": "group-id", "application.id": "application-id",
}


def spring_relaxed(component: str) -> str:
    """Spring relaxed binding: case, dashes and underscores do not matter in property names."""
    return component.replace("-", "").replace("_", "").lower()


def spring_key(key: str) -> tuple[str, str] | None:
    """(scope, Java key) of a ``spring.kafka.*`` property; None for anything else.

    Scopes: producer, consumer, streams, common (``spring.kafka.properties.*`` and shared
    settings) and template (``spring.kafka.template.transaction-id-prefix``).
    """
    parts = key.split(".")
    if len(parts) < 3 or spring_relaxed(parts[0]) != "spring" or spring_relaxed(parts[1]) != "kafka":
        return None
    rest = parts[2:]
    scope = spring_relaxed(rest[0])
    if scope in ("producer", "consumer", "streams", "admin"):
        rest = rest[1:]
    elif scope == "template":
        if len(rest) == 2 and spring_relaxed(rest[1]) == "transactionidprefix":
            return "template", "transactional.id"
        return None
    else:
        scope = "common"
    if not rest:
        return None
    if spring_relaxed(rest[0]) == "properties" and len(rest) > 1:
        return ("common" if scope == "admin" else scope), ".".join(rest[1:])
    if scope == "admin":
        return None
    relaxed = ".".join(spring_relaxed(p) for p in rest)
    java = SPRING_SCOPED[scope].get(relaxed)
    return (scope, java) if java else None


def spring_env_property(name: str) -> str | None:
    """The ``spring.kafka.*`` property an environment variable binds to, as Spring Boot reads the
    environment (``SPRING_KAFKA_PRODUCER_TRANSACTIONIDPREFIX`` or, the legacy form,
    ``SPRING_KAFKA_PRODUCER_TRANSACTION_ID_PREFIX``); None for other variables.

    Underscores separate levels, but a property's own dashes are dropped or written as
    underscores, so the words after the scope are matched against Boot's property names with
    separators ignored; under ``PROPERTIES_`` the rest is a Kafka key, its underscores dots.
    """
    parts = name.lower().split("_")
    if len(parts) < 4 or parts[:2] != ["spring", "kafka"] or "" in parts:
        return None
    scope, rest = parts[2], parts[3:]
    if scope not in ("producer", "consumer", "streams"):
        scope, rest = "common", parts[2:]
    prefix = SPRING_PREFIX if scope == "common" else f"{SPRING_PREFIX}{scope}."
    if rest[0] == "properties" and len(rest) > 1:
        return f"{prefix}properties.{'.'.join(rest[1:])}"
    if scope == "producer" and "".join(rest) == "transactionidprefix":
        return f"{prefix}transaction-id-prefix"
    joined = "".join(rest)
    for relaxed in SPRING_SCOPED[scope]:
        if relaxed.replace(".", "") == joined:
            return prefix + relaxed
    return None


def spring_unbound(key: str) -> tuple[str, str] | None:
    """(scope, Kafka key) of a ``spring.kafka.<scope>.*`` name that Spring Boot has no property for but
    that spells a Kafka key (``spring.kafka.producer.enable-idempotence``): Boot never passes it to the
    client; it belongs under ``spring.kafka.<scope>.properties.``."""
    parts = key.split(".")
    if len(parts) < 4 or spring_relaxed(parts[0]) != "spring" or spring_relaxed(parts[1]) != "kafka":
        return None
    scope = spring_relaxed(parts[2])
    if scope not in ("producer", "consumer", "streams") or spring_relaxed(parts[3]) == "properties":
        return None
    relaxed = "".join(spring_relaxed(p) for p in parts[3:])
    for java in kafka_keys():
        if java.replace(".", "") == relaxed and java not in SPRING_SCOPED[scope].values():
            return scope, java
    return None


def spring_property(scope: str, java_key: str) -> str:
    """The ``spring.kafka.*`` name to write a Java key under, for a scope."""
    named = _SPRING_WRITTEN.get(java_key)
    if named and java_key in SPRING_NAMES.get(scope, {}):
        return f"{SPRING_PREFIX}{scope}.{named}"
    return f"{SPRING_PREFIX}{scope}.properties.{java_key}"


# --- Kafka Streams and Flink ---------------------------------------------------------------

def streams_client_key(key: str) -> tuple[str, str]:
    """(client, key) for a Streams config key: ``producer.acks`` → (producer, acks); plain keys → ('', key)."""
    for prefix in ("main.consumer.", "consumer.", "producer."):
        if key.startswith(prefix):
            return ("producer" if prefix == "producer." else "consumer"), key[len(prefix):]
    return "", key


def flink_client_key(key: str) -> str | None:
    """The Kafka key behind a Flink table option (``properties.transaction.timeout.ms``); None otherwise."""
    if key.startswith("properties."):
        return key[len("properties."):]
    return None
