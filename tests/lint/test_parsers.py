"""Parsers keep positions; dialects are told apart by content and keys, not file names."""

from __future__ import annotations


import pytest

from kafkadiag.lint.describe import parse_describe
from kafkadiag.lint.detect import detect_dialect
from kafkadiag.lint.keys import spring_key
from kafkadiag.lint.load import read_config
from kafkadiag.lint.properties import escape_value, parse_properties, unescape
from kafkadiag.lint.rows import build_rows
from kafkadiag.lint.yamlconf import parse_yaml


def test_properties_separators_escapes_and_continuations():
    text = "# c\n! c\na=1\n  b : two words\nc\\:d = x\\u0041\\\\\nlong=first \\\n   second\nflag\n"
    entries = {e.key: e for e in parse_properties(text)}
    assert entries["a"].value == "1" and (entries["a"].line, entries["a"].column) == (3, 1)
    assert entries["b"].value == "two words" and entries["b"].column == 3
    assert entries["c:d"].value == "xA\\"
    assert entries["long"].value == "first second" and (entries["long"].line, entries["long"].end_line) == (6, 7)
    assert text[entries["long"].span[0]:entries["long"].span[1]] == "first \\\n   second"
    assert entries["flag"].value == ""
    assert unescape(escape_value(" lead\\tab\n")) == " lead\\tab\n"


def test_yaml_flattening_keeps_positions():
    text = "spring:\n  kafka:\n    producer:\n      properties:\n        \"[enable.idempotence]\": false\n    bootstrap-servers: [a, b]\n"
    entries, tree = parse_yaml(text)
    by_key = {e.key: e for e in entries}
    e = by_key["spring.kafka.producer.properties.enable.idempotence"]
    assert (e.value, e.line, e.column) == ("false", 5, 9)
    assert by_key["spring.kafka.bootstrap-servers"].value == "a,b"
    assert (0, "spring.kafka.producer") in tree.mappings


def test_describe_output():
    text = (
        "All configs for broker 1 are:\n"
        "  transaction.max.timeout.ms=900000 sensitive=false synonyms={DEFAULT_CONFIG:transaction.max.timeout.ms=900000}\n"
        "  unclean.leader.election.enable=true sensitive=false synonyms={STATIC_BROKER_CONFIG:unclean.leader.election.enable=true, DEFAULT_CONFIG:unclean.leader.election.enable=false}\n"
        "  ssl.key.password=null sensitive=true synonyms={}\n"
        "Dynamic configs for topic orders are:\n"
        "  min.insync.replicas=2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=2}\n"
    )
    entries = parse_describe(text)
    assert [(e.key, e.section, e.explicit) for e in entries] == [
        ("transaction.max.timeout.ms", "broker 1", False),
        ("unclean.leader.election.enable", "broker 1", True),
        ("ssl.key.password", "broker 1", True),
        ("min.insync.replicas", "topic orders", True),
    ]
    assert entries[2].value == ""


def test_spring_relaxed_binding():
    assert spring_key("spring.kafka.producer.transaction-id-prefix") == ("producer", "transactional.id")
    assert spring_key("spring.kafka.producer.transactionIdPrefix") == ("producer", "transactional.id")
    assert spring_key("SPRING.KAFKA.PRODUCER.TRANSACTION_ID_PREFIX") == ("producer", "transactional.id")
    assert spring_key("spring.kafka.consumer.isolation-level") == ("consumer", "isolation.level")
    assert spring_key("spring.kafka.producer.properties.enable.idempotence") == ("producer", "enable.idempotence")
    assert spring_key("spring.kafka.properties.sasl.jaas.config") == ("common", "sasl.jaas.config")
    assert spring_key("spring.kafka.template.transaction-id-prefix") == ("template", "transactional.id")
    assert spring_key("spring.datasource.url") is None


CASES = {
    "java": ("client.cfg", "bootstrap.servers=k:9092\ntransactional.id=t\n"),
    "broker": ("settings.conf", "node.id=1\nprocess.roles=broker\nlog.dirs=/d\n"),
    "streams": ("app.conf", "application.id=a\nbootstrap.servers=k:9092\n"),
    "spring": ("app.yml", "spring:\n  kafka:\n    consumer:\n      group-id: g\n"),
    "flink": ("job.yaml", "execution.checkpointing.interval: 1 min\n"),
    "librdkafka": ("client.json", '{"bootstrap.servers": "k", "queue.buffering.max.ms": 5}'),
}


@pytest.mark.parametrize("dialect", sorted(CASES))
def test_dialect_detected_from_content(dialect, tmp_path):
    name, text = CASES[dialect]
    path = tmp_path / name
    path.write_text(text)
    assert detect_dialect(read_config(path, name)) == dialect


def test_unrelated_file_is_not_a_kafka_config(tmp_path):
    path = tmp_path / "x.properties"
    path.write_text("server.port=8080\nlogging.level.root=INFO\n")
    assert detect_dialect(read_config(path, "x.properties")) is None


def test_dialect_override(lint, write):
    props = "transactional.id=t\ntransaction.timeout.ms=5000\n"
    folder = write({"sink.properties": props})
    assert "FLK002" not in lint(["sink.properties", "--format", "json"], cwd=folder).rules()
    run = lint(["sink.properties", "--format", "json", "--dialect", "flink"], cwd=folder)
    assert run.json()["inputs"][0]["kind"] == "flink"


def test_spring_file_yields_producer_and_consumer_rows_of_the_profile_in_force(tmp_path):
    """Spring applies a profile document only when its profile is active, never 'the last document wins'."""
    path = tmp_path / "application.yml"
    path.write_text("spring:\n  kafka:\n    producer:\n      acks: all\n    consumer:\n      group-id: g\n"
                    "---\nspring.config.activate.on-profile: prod\nspring.kafka.consumer.isolation-level: read-committed\n")
    cfg = read_config(path, "application.yml")
    cfg.dialect = detect_dialect(cfg) or ""
    rows = build_rows(cfg)
    assert [(r.role, r.section) for r in rows] == [("producer", "spring.kafka.producer"), ("consumer", "spring.kafka.consumer")]
    assert rows[1].value("consumer", "isolation.level") is None
    cfg.profile = "prod"
    rows = build_rows(cfg)
    assert [(r.role, r.section) for r in rows] == [
        ("producer", "spring.kafka.producer (profile prod)"), ("consumer", "spring.kafka.consumer (profile prod)"),
    ]
    assert rows[1].value("consumer", "isolation.level") == "read-committed"
    assert rows[1].value("consumer", "group.id") == "g"


def test_streams_prefixes(tmp_path):
    path = tmp_path / "s.properties"
    path.write_text("application.id=a\nacks=1\nproducer.acks=all\nconsumer.isolation.level=x\nmain.consumer.isolation.level=y\n")
    cfg = read_config(path, "s.properties")
    cfg.dialect = "streams"
    (row,) = build_rows(cfg)
    assert row.value("producer", "acks") == "all" and row.value("consumer", "isolation.level") == "y"
    assert row.write_key("producer", "linger.ms") == "producer.linger.ms"
    assert row.write_key("streams", "commit.interval.ms") == "commit.interval.ms"


def test_librdkafka_aliases(lint, write):
    folder = write({"rd.conf": "transactional.id=t\nrequest.required.acks=1\nqueue.buffering.max.ms=10\n"})
    run = lint(["rd.conf", "--format", "json"], cwd=folder)
    assert run.json()["inputs"][0]["kind"] == "librdkafka"
    finding = next(f for f in run.json()["findings"] if f["rule"] == "PRD002")
    assert finding["location"]["line"] == 2 and finding["config"] == "acks"
