"""Client settings written in application code: literal values are read, under Kafka's key names."""

from __future__ import annotations

from kafkadiag.lint.codeconf import code_dialect, dialect_of, parse_code_config, without_comments

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


FLINK_SINK = """
env.enableCheckpointing(2000, CheckpointingMode.EXACTLY_ONCE);
KafkaSink<String> sink = KafkaSink.<String>builder()
        .setBootstrapServers("PLAINTEXT://broker:9092") // a URL's // is no comment
        .setRecordSerializer(KafkaRecordSerializationSchema.<String>builder()
                .setTopic("orders")
                .build())
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix("orders-")
{timeout}        .build();
"""


def test_a_flink_sink_builder_is_a_flink_sink_config() -> None:
    text = FLINK_SINK.replace("{timeout}", '        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10 * 60 * 1000 + "")\n')
    values = {e.key: e.value for e in parse_code_config(text, ".java")}
    assert values == {"execution.checkpointing.interval": "2000", "sink.delivery-guarantee": "exactly-once",
                      "sink.transactional-id-prefix": "orders-", "transaction.timeout.ms": "600000"}
    assert code_dialect(text, ".java") == "java" and dialect_of(".java", list(values)) == "flink"


def test_a_commented_out_timeout_leaves_flinks_one_hour_default(lint, write) -> None:
    text = FLINK_SINK.replace("{timeout}", '//        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600000)\n'
                              '        /* .setProperty("transaction.timeout.ms", "600000") */\n')
    assert "transaction.timeout.ms" not in {e.key for e in parse_code_config(text, ".java")}
    folder = write({"Job.java": text})
    run = lint(["Job.java", "--format", "json", "--isolated"], cwd=folder)
    assert run.rules() == {"FLK002"}
    folder = write({"Job.java": text.replace("//        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600000)",
                                             "        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600000)")})
    assert lint(["Job.java", "--format", "json", "--isolated"], cwd=folder).rules() == set()


def test_flink_1_14s_set_deliver_guarantee_spelling_is_read(lint, write) -> None:
    """``setDeliverGuarantee`` (Flink 1.14) sets the guarantee too: at-least-once with a prefix is no transaction."""
    text = FLINK_SINK.replace("{timeout}", "").replace(".setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)",
                                                       ".setDeliverGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)")
    assert {e.key: e.value for e in parse_code_config(text, ".java")}["sink.delivery-guarantee"] == "at-least-once"
    folder = write({"Job.java": text})
    assert lint(["Job.java", "--format", "json", "--isolated"], cwd=folder).rules() == set()
    folder = write({"Job.java": text.replace("AT_LEAST_ONCE", "EXACTLY_ONCE")})
    assert lint(["Job.java", "--format", "json", "--isolated"], cwd=folder).rules() == {"FLK002"}


def test_a_legacy_exactly_once_producer_is_a_flink_sink() -> None:
    text = ('props.put("transaction.timeout.ms", String.valueOf(5 * 60_000));\n'
            'new FlinkKafkaProducer011<>("out", schema, props, FlinkKafkaProducer011.Semantic.EXACTLY_ONCE);\n'
            "env.enableCheckpointing(5000);\n")
    values = {e.key: e.value for e in parse_code_config(text, ".java")}
    assert values == {"transaction.timeout.ms": "300000", "sink.semantic": "exactly-once",
                      "execution.checkpointing.interval": "5000"}


def test_an_exactly_once_sink_needs_a_transactional_id_prefix(lint, write) -> None:
    """Flink refuses a KafkaSink without one (FLK003); the legacy FlinkKafkaProducer names its own ids."""
    sink = FLINK_SINK.replace("{timeout}", "        .setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600000)\n")
    folder = write({"Job.java": sink.replace('        .setTransactionalIdPrefix("orders-")\n', "")})
    assert lint(["Job.java", "--format", "json", "--isolated"], cwd=folder).rules() == {"FLK003"}
    folder = write({"Job.java": sink})
    assert lint(["Job.java", "--format", "json", "--isolated"], cwd=folder).rules() == set()
    legacy = ('props.put("transaction.timeout.ms", String.valueOf(5 * 60_000));\n'
              'new FlinkKafkaProducer<>("out", schema, props, FlinkKafkaProducer.Semantic.EXACTLY_ONCE);\n'
              "env.enableCheckpointing(5000);\n")
    folder = write({"Job.java": legacy})
    assert "FLK003" not in lint(["Job.java", "--format", "json", "--isolated"], cwd=folder).rules()


def test_comments_are_blanked_but_strings_and_lines_kept() -> None:
    code = 'a("http://x"); // b\n/* c\n d */ e("it\'s");\n'
    blank = without_comments(code)
    assert len(blank) == len(code) and blank.count("\n") == code.count("\n")
    assert 'a("http://x");' in blank and "b" not in blank and "c" not in blank and 'e("it\'s")' in blank
