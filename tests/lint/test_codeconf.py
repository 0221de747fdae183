"""Client settings written in application code: literal values are read, under Kafka's key names."""

from __future__ import annotations

from kafkadiag.lint.codeconf import code_dialect, parse_code_config

JAVA = """
Properties props = new Properties();
props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
props.put(ProducerConfig.ACKS_CONFIG, "1");
props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
props.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 900_000L);
props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "orders-" + UUID.randomUUID());
props.put("max.in.flight.requests.per.connection", "5");
streamsProps.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
"""

DOTNET = """using Confluent.Kafka;
var config = new ProducerConfig
{
    BootstrapServers = servers,
    EnableIdempotence = true,
    Acks = Acks.Leader,
    TransactionalId = Guid.NewGuid().ToString(),
    MessageTimeoutMs = 30000
};
"""


def test_java_puts_with_constants_or_key_strings() -> None:
    values = {e.key: e.value for e in parse_code_config(JAVA, ".java")}
    assert values == {"acks": "1", "enable.idempotence": "true", "retries": "2147483647",
                      "transaction.timeout.ms": "900000", "transactional.id": '"orders-" + UUID.randomUUID()',
                      "max.in.flight.requests.per.connection": "5", "processing.guarantee": "exactly_once_v2"}
    assert code_dialect(JAVA, ".java") == "java" and code_dialect(JAVA, ".txt") is None


def test_dotnet_producer_config_properties() -> None:
    entries = parse_code_config(DOTNET, ".cs")
    assert {e.key: e.value for e in entries} == {"enable.idempotence": "true", "acks": "1",
                                                 "transactional.id": "Guid.NewGuid().ToString()", "message.timeout.ms": "30000"}
    assert [e.line for e in entries] == [5, 6, 7, 8]
    assert code_dialect(DOTNET, ".cs") == "librdkafka"
    assert code_dialect("var x = new Thing { Acks = 1 };", ".cs") is None  # not Kafka code


def test_idempotence_with_acks_leader_in_code_fails_the_lint(lint, write) -> None:
    folder = write({"Producer.cs": DOTNET})
    run = lint(["Producer.cs", "--format", "json", "--isolated"], cwd=folder)
    assert "PRD002" in run.rules() and run.code != 0


def test_analyze_reads_client_code_as_a_config(tmp_path) -> None:
    import subprocess
    import sys

    path = tmp_path / "Producer.cs"
    path.write_text(DOTNET)
    out = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", str(path)], capture_output=True, text=True)
    assert "config/code" in out.stdout and "PRD002" in out.stdout


PYTHON = """from confluent_kafka import Producer
producer = Producer({
    'bootstrap.servers': brokers,
    'enable.idempotence': True,
    'acks': 1,
    'transactional.id': str(uuid.uuid4()),
    'on_delivery': report,
})
"""


def test_binding_config_dicts_in_python_and_go() -> None:
    assert code_dialect(PYTHON, ".py") == "librdkafka"
    assert {e.key: e.value for e in parse_code_config(PYTHON, ".py")} == {
        "enable.idempotence": "true", "acks": "1", "transactional.id": "str(uuid.uuid4())"}
    go = 'cfg := &kafka.ConfigMap{"bootstrap.servers": broker, "enable.idempotence": true, "acks": "1"}'
    assert {e.key: e.value for e in parse_code_config(go, ".go")} == {"enable.idempotence": "true", "acks": "1"}


def test_a_dict_that_is_not_a_client_config_is_not_read() -> None:
    assert code_dialect("settings = {'debug': True, 'log_level': 3}", ".py") is None  # no client key
    assert code_dialect("x = {'acks': 1}", ".py") is None  # one key is not a configuration


def test_idempotence_with_acks_1_in_python_fails_the_lint(lint, write) -> None:
    folder = write({"producer.py": PYTHON})
    assert "PRD002" in lint(["producer.py", "--format", "json", "--isolated"], cwd=folder).rules()
