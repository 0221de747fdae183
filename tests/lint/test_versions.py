"""Defaults follow --kafka-version where Kafka changed them."""

from __future__ import annotations


def test_linger_default_five_from_4_0(lint, write):
    folder = write({"p.properties": "acks=all\ndelivery.timeout.ms=30002\n"})
    assert "PRD005" not in lint(["p.properties", "--format", "json", "--kafka-version", "3.9"], cwd=folder).rules()
    assert "PRD005" in lint(["p.properties", "--format", "json", "--kafka-version", "4.0"], cwd=folder).rules()


def test_idempotence_default_on_from_3_0(lint, write):
    folder = write({"p.properties": "acks=all\nmax.in.flight.requests.per.connection=10\n"})
    assert "PRD004" not in lint(["p.properties", "--format", "json", "--kafka-version", "2.8"], cwd=folder).rules()
    assert "PRD004" in lint(["p.properties", "--format", "json", "--kafka-version", "3.0.1"], cwd=folder).rules()


def test_acks_default_one_before_3_0_is_overridden_for_idempotence(lint, write):
    """Before 3.0 acks defaulted to 1, but KafkaProducer overrides an unset acks to all when idempotence
    is on ("Overriding the default acks to all since idempotence is enabled"): only a written acks=1 is refused."""
    folder = write({"p.properties": "enable.idempotence=true\n"})
    assert "PRD002" not in lint(["p.properties", "--format", "json", "--kafka-version", "2.8"], cwd=folder).rules()
    assert "PRD002" not in lint(["p.properties", "--format", "json", "--kafka-version", "3.0"], cwd=folder).rules()
    folder = write({"p.properties": "enable.idempotence=true\nacks=1\n"})
    assert "PRD002" in lint(["p.properties", "--format", "json", "--kafka-version", "2.8"], cwd=folder).rules()


def test_librdkafka_defaults_differ(lint, write):
    folder = write({
        "rd.json": '{"group.id": "g", "bootstrap.servers": "k"}',
        "p.properties": "transactional.id=t\n",
        "c.properties": "group.id=g2\n",
    })
    run = lint([".", "--format", "json"], cwd=folder)
    flagged = [f["location"]["file"] for f in run.json()["findings"] if f["rule"] == "CNS001"]
    assert flagged == ["c.properties"]


def test_streams_eos_defaults(lint, write):
    folder = write({"s.properties": "application.id=a\nprocessing.guarantee=exactly_once_v2\ncommit.interval.ms=10000\n"})
    assert "STR003" not in lint(["s.properties", "--format", "json"], cwd=folder).rules()
    folder = write({"s.properties": "application.id=a\nprocessing.guarantee=exactly_once_v2\ncommit.interval.ms=10001\n"})
    assert "STR003" in lint(["s.properties", "--format", "json"], cwd=folder).rules()
    folder = write({"s.properties": "application.id=a\nprocessing.guarantee=exactly_once_v2\ncommit.interval.ms=30000\nproducer.transaction.timeout.ms=60000\n"})
    assert "STR003" not in lint(["s.properties", "--format", "json"], cwd=folder).rules()


def test_eos_v1_is_an_error_only_on_a_stated_4_x(lint, write):
    """exactly_once is the only mode of Streams 2.x: with no version stated, what 4.0 removed is a
    warning (STR001), and analyze (errors only) says nothing about it."""
    folder = write({"s.properties": "application.id=a\nprocessing.guarantee=exactly_once\n"})
    assumed = lint(["s.properties", "--format", "json"], cwd=folder).rules()
    assert "STR001" in assumed and "STR002" not in assumed
    stated = lint(["s.properties", "--format", "json", "--kafka-version", "4.0"], cwd=folder).rules()
    assert "STR002" in stated and "STR001" not in stated
    assert "STR001" not in lint(["s.properties", "--format", "json", "--kafka-version", "2.8"], cwd=folder).rules()
