"""Which client library (or the broker, or a tool) wrote an event, from its logger and its words."""

from __future__ import annotations

import re

from kafkadiag.readers.logs.head import BROKER, DOTNET, GO, JAVA, KAFKAJS, LIBRDKAFKA, PYTHON, TEXT, TOOL

#: library -> reported kind family
FAMILY_OF_LIBRARY = {
    "java": JAVA, "streams": JAVA, "spring": JAVA, "flink": JAVA, "connect": JAVA,
    "broker": BROKER, "librdkafka": LIBRDKAFKA, "kafkajs": KAFKAJS,
    "sarama": GO, "franz-go": GO, "confluent-kafka-go": GO, "kafka-go": GO,
    "aiokafka": PYTHON, "kafka-python": PYTHON, "confluent-kafka-python": PYTHON,
    "confluent-kafka-dotnet": DOTNET, "kafka-transactions": TOOL, "kafka-consumer-groups": TOOL, "rpk": TOOL,
}

#: (logger words, library); a logger segment may abbreviate its word (``o.a.k.c.p.KafkaProducer``).
_LOGGER_PREFIXES = (
    (("org", "apache", "kafka", "streams"), "streams"),
    (("org", "apache", "kafka", "connect"), "connect"),
    (("org", "apache", "kafka"), "java"),
    (("org", "springframework", "kafka"), "spring"),
    (("org", "springframework", "transaction"), "spring"),
    (("org", "apache", "flink"), "flink"),
    (("io", "smallrye", "reactive", "messaging", "kafka"), "java"),
    (("io", "confluent"), "java"),
    (("aiokafka",), "aiokafka"),
    (("confluent_kafka",), "confluent-kafka-python"),
    (("kafkajs",), "kafkajs"),
    (("sarama",), "sarama"),
    (("kgo",), "franz-go"),
    (("Confluent", "Kafka"), "confluent-kafka-dotnet"),
)
_TEXT_HINTS = (
    ("KafkaJS", "kafkajs"),
    ("kafkajs", "kafkajs"),
    ("aiokafka", "aiokafka"),
    ("confluent_kafka", "confluent-kafka-python"),
    ("cimpl.", "confluent-kafka-python"),
    ("KafkaError{", "confluent-kafka-python"),
    ("Confluent.Kafka", "confluent-kafka-dotnet"),
    ("Local_", "confluent-kafka-dotnet"),
    ("confluent-kafka-go", "confluent-kafka-go"),
    ("confluentinc/confluent-kafka-go", "confluent-kafka-go"),
    ("twmb/franz-go", "franz-go"),
    ("IBM/sarama", "sarama"),
    ("Shopify/sarama", "sarama"),
    ("[sarama]", "sarama"),
    ("kafka server: ", "sarama"),
    ("segmentio/kafka-go", "kafka-go"),
    ("kafka.errors.", "kafka-python"),
    ("org.springframework.kafka", "spring"),
    ("KafkaTemplate", "spring"),
    ("org.apache.flink", "flink"),
    ("FlinkKafkaProducer", "flink"),
    ("FlinkKafkaInternalProducer", "flink"),
    ("TwoPhaseCommitSinkFunction", "flink"),
    ("KafkaSink", "flink"),
    ("KafkaWriter", "flink"),
    ("KafkaCommitter", "flink"),
    ("stream-thread [", "streams"),
    ("stream-client [", "streams"),
    ("org.apache.kafka.streams", "streams"),
    ("org.apache.kafka.connect", "connect"),
    ("org.apache.kafka", "java"),
    ("[Producer clientId=", "java"),
    ("[Consumer clientId=", "java"),
)
_logger_cache: dict[str, str] = {}
_KERR = re.compile(r"\b(?P<n>[A-Z][A-Z_]{4,}): [A-Z][a-z]")


def library_of_logger(logger: str) -> str:
    """The client library a logger name belongs to ('' when the name does not say).

    Cached: a log names a few dozen loggers on thousands of lines (sniffing alone asks for 2,000).
    """
    library = _logger_cache.get(logger)
    if library is None:
        library = _logger_library(logger)
        if len(_logger_cache) > 10_000:
            _logger_cache.clear()
        _logger_cache[logger] = library
    return library


def _logger_library(logger: str) -> str:
    if not logger:
        return ""
    parts = [p for p in re.split(r"[./]", logger) if p]
    for words, library in _LOGGER_PREFIXES:
        if len(parts) < len(words):
            continue
        abbreviate = len(words) >= 3  # only Java-style package paths get abbreviated by layouts
        if all(part == word or abbreviate and len(part) < len(word) and word.startswith(part)
               for part, word in zip(parts, words)):
            if library == "connect" and len(parts[3]) == 1:
                continue  # ``o.a.k.c`` is clients far more often than connect
            return library
    return ""


_JAVA_HINTS = tuple((n, lib) for n, lib in _TEXT_HINTS if FAMILY_OF_LIBRARY.get(lib) == JAVA and lib != "java")


def classify(family: str, logger: str, texts: list[str], known_errors: frozenset[str] | set[str]) -> tuple[str, str]:
    """``(source, library)`` of an event: its line family, logger and the words of its lines."""
    if family == TOOL:
        return "tool", ""
    if family == LIBRDKAFKA:
        return "client", "librdkafka"
    if family == BROKER:
        return "broker", "broker"
    library = library_of_logger(logger)
    if library == "java":
        joined = texts[0] if len(texts) == 1 else "\n".join(texts)
        for needle, hinted in _JAVA_HINTS:
            if needle in joined:
                return "client", hinted
        return "client", library
    if library:
        return "client", library
    joined = texts[0] if len(texts) == 1 else "\n".join(texts)
    for needle, hinted in _TEXT_HINTS:
        if needle in joined or needle in logger:
            library = hinted
            break
    if not library and family == GO and ("Local: " in joined or "Broker: " in joined):
        library = "confluent-kafka-go"
    if (not library or family == GO) and ": " in joined:
        m = _KERR.search(joined)
        if m and m["n"] in known_errors:
            library = "franz-go"
    if not library and family == PYTHON and logger.startswith("kafka."):
        library = "kafka-python"
    return "client", library


def family_of(library: str, family: str) -> str:
    """The kind family reported for an event: its library's, else its line layout's."""
    return FAMILY_OF_LIBRARY.get(library, family if family != TEXT else TEXT)
