"""Misspelt keys are warned with the real key meant; settings a framework or client never uses
are warned with where they belong; unset keys the client fills in itself are not alarms."""

from __future__ import annotations

from kafkadiag.lint.keycheck import suggestion


def test_suggestions_for_misspelt_keys():
    assert suggestion("transaction.timout.ms") == "transaction.timeout.ms"
    assert suggestion("enable.idempotance") == "enable.idempotence"
    assert suggestion("ack") == "acks"
    assert suggestion("producer.enable.idempotance") == "producer.enable.idempotence"
    assert suggestion("listener.name.internal.ssl.keystore.locaton") == "listener.name.internal.ssl.keystore.location"


def test_real_and_foreign_keys_are_left_alone():
    for key in ("acks", "transaction.timeout.ms", "schema.registry.url", "specific.avro.reader", "topic", "group",
                "spring.json.trusted.packages", "value.subject.name.strategy", "producer.acks", "retry"):
        assert suggestion(key) is None, key


def test_typos_in_a_properties_file_and_in_compose_variables(lint, write):
    folder = write({
        "producer.properties": "transactional.id=t\nenable.idempotance=true\ntransaction.timout.ms=900000\n",
        "docker-compose.yml": "services:\n  kafka:\n    image: apache/kafka:3.9.0\n    environment:\n"
                              "      KAFKA_NODE_ID: 1\n      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTR: 1\n",
    })
    run = lint([".", "--format", "json", "--isolated"], cwd=folder)
    found = {(f["location"]["file"], f["location"]["line"]): f["message"] for f in run.json()["findings"] if f["rule"] == "KEY001"}
    assert found[("producer.properties", 2)].count("did you mean") == 2
    assert "transaction.timeout.ms" in found[("producer.properties", 2)]
    assert "transaction.state.log.replication.factor" in found[("docker-compose.yml", 6)]


def test_streams_transactional_id_is_ignored_under_exactly_once(lint, write):
    folder = write({"streams.properties": "application.id=a\nprocessing.guarantee=exactly_once_v2\n"
                                          "producer.transactional.id=mine\n"})
    run = lint(["streams.properties", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "KEY002"]
    assert finding["location"]["line"] == 3
    alos = write({"streams.properties": "application.id=a\nproducer.transactional.id=mine\n"})
    assert "KEY002" not in lint(["streams.properties", "--format", "json", "--isolated"], cwd=alos).rules()


def test_clients_before_3_0_fill_in_acks_and_retries_for_idempotence(lint, write):
    folder = write({"producer.properties": "transactional.id=t\n"})
    for version in ("0.11", "2.0", "2.8", "3.7"):
        run = lint(["producer.properties", "--format", "json", "--isolated", "--kafka-version", version], cwd=folder)
        assert not run.rules() & {"PRD002", "PRD003"}, version
    plain = write({"producer.properties": "bootstrap.servers=k:9092\n"})
    assert not lint(["producer.properties", "--format", "json", "--isolated", "--kafka-version", "2.0"], cwd=plain).rules()


def test_every_refused_combination_is_reported_not_only_the_first(lint, write):
    folder = write({"producer.properties": "transactional.id=t\nacks=1\nretries=0\n"
                                           "max.in.flight.requests.per.connection=10\n"})
    run = lint(["producer.properties", "--format", "json", "--isolated"], cwd=folder)
    lines = {f["rule"]: f["location"]["line"] for f in run.json()["findings"]}
    assert lines == {"PRD002": 2, "PRD003": 3, "PRD004": 4}
