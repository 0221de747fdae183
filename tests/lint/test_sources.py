"""Where configs live: compose and .env variables, Kubernetes resources, framework key spaces,
and files that are not configs at all. Each source is read from its content, points at the real
line, and is fixed in place where the format allows."""

from __future__ import annotations

import pytest

from kafkadiag.lint.sources.envnames import env_name, kafka_key

ONE_BROKER = """services:
  zookeeper:
    image: confluentinc/cp-zookeeper:7.5.0
    environment:
      ZOOKEEPER_CLIENT_PORT: 2181
  kafka:
    image: confluentinc/cp-kafka:7.5.0
    environment:
      KAFKA_BROKER_ID: 1
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 1
"""


def test_confluent_and_bitnami_env_names_round_trip():
    assert kafka_key("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR") == ("transaction.state.log.min.isr", "confluent")
    assert kafka_key("KAFKA_LISTENER_NAME_INTERNAL_SSL__KEY_PASSWORD")[0] == "listener.name.internal.ssl_key.password"
    assert kafka_key("KAFKA_SOME___DASHED_KEY")[0] == "some-dashed.key"
    assert kafka_key("KAFKA_CFG_TRANSACTION_STATE_LOG_MIN_ISR") == ("transaction.state.log.min.isr", "bitnami")
    assert kafka_key("KAFKA_HEAP_OPTS") is None and kafka_key("KAFKA_JMX_PORT") is None and kafka_key("ZOO_MY_ID") is None
    for key in ("transaction.state.log.min.isr", "listener.name.internal.ssl_key.password", "some-dashed.key"):
        assert kafka_key(env_name(key, "confluent"))[0] == key


def test_single_broker_compose_without_transaction_settings(lint, write):
    folder = write({"docker-compose.yml": ONE_BROKER})
    run = lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "BRK007"]
    assert finding["location"]["line"] == 9  # the broker service's anchor (KAFKA_BROKER_ID)
    assert run.json()["summary"]["files"] == 1 and len(run.json()["inputs"]) == 1


def test_compose_fix_adds_variables_to_the_environment_mapping(lint, write):
    folder = write({"docker-compose.yml": ONE_BROKER})
    lint(["docker-compose.yml", "--fix", "--isolated"], cwd=folder)
    text = (folder / "docker-compose.yml").read_text()
    assert text.startswith(ONE_BROKER)
    assert "      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: 1\n" in text
    assert "      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: 1\n" in text
    assert "BRK007" not in lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder).rules()


def test_compose_list_form_and_bitnami_names_are_fixed_in_place(lint, write):
    compose = """services:
  kafka-0:
    image: bitnami/kafka:3.7
    environment:
      - KAFKA_CFG_NODE_ID=0
      - "KAFKA_CFG_TRANSACTION_STATE_LOG_MIN_ISR=3"
      - KAFKA_CFG_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=2
"""
    folder = write({"docker-compose.yml": compose})
    run = lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder)
    brk003 = [f for f in run.json()["findings"] if f["rule"] == "BRK003"]
    assert brk003 and brk003[0]["location"]["line"] == 6
    assert "BRK007" in run.rules()  # one broker service, replication factor 2
    diff = lint(["docker-compose.yml", "--diff", "--isolated"], cwd=folder).out
    assert '+      - "KAFKA_CFG_TRANSACTION_STATE_LOG_MIN_ISR=1"' in diff
    assert "+      - KAFKA_CFG_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1" in diff


def test_bitnami_defaults_are_not_assumed(lint, write):
    """Bitnami ships its own server.properties: an unset key is not Kafka's default of 3."""
    compose = "services:\n  kafka:\n    image: bitnami/kafka:3.7\n    environment:\n      - KAFKA_CFG_NODE_ID=0\n"
    folder = write({"docker-compose.yml": compose})
    assert not lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder).rules()


@pytest.mark.parametrize("image", ["${REPOSITORY}/cp-server:${CONFLUENT_DOCKER_TAG}", "registry.example.com/mirror/cp-kafka:7.6.1"])
def test_confluent_images_under_any_registry_start_from_kafka_defaults(lint, write, image):
    """Confluent's own examples name the image ``${REPOSITORY}/cp-server`` (the repository in an
    ``.env`` file); a mirror keeps the ``cp-*`` name. Either starts from Kafka's default of 3."""
    compose = f"services:\n  broker:\n    image: {image}\n    environment:\n      KAFKA_BROKER_ID: 1\n"
    folder = write({"docker-compose.yml": compose})
    assert "BRK007" in lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder).rules()


def test_env_file(lint, write):
    folder = write({"kafka.env": "KAFKA_BROKER_ID=1\nKAFKA_TRANSACTION_STATE_LOG_MIN_ISR=\"3\"\n"
                                 "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=2\n"})
    run = lint(["kafka.env", "--format", "json", "--isolated"], cwd=folder)
    assert "BRK003" in run.rules()
    lint(["kafka.env", "--fix", "--isolated", "--select", "BRK003"], cwd=folder)
    assert 'KAFKA_TRANSACTION_STATE_LOG_MIN_ISR="2"' in (folder / "kafka.env").read_text()


STRIMZI = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaNodePool
metadata:
  name: brokers
  labels:
    strimzi.io/cluster: {cluster}
spec:
  replicas: 2
  roles:
    - broker
---
apiVersion: kafka.strimzi.io/v1beta2
kind: Kafka
metadata:
  name: my-cluster
spec:
  kafka:
    config:
      transaction.state.log.replication.factor: 3
"""


def test_strimzi_broker_count_from_node_pools(lint, write):
    folder = write({"kafka.yaml": STRIMZI.format(cluster="my-cluster")})
    run = lint(["kafka.yaml", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "BRK007"]
    assert finding["location"]["line"] == 19
    assert "2 broker(s)" in finding["message"]
    other = write({"kafka.yaml": STRIMZI.format(cluster="another-cluster")})
    assert "BRK007" not in lint(["kafka.yaml", "--format", "json", "--isolated"], cwd=other).rules()


def test_configmap_properties_payload_points_at_the_file_line(lint, write):
    cm = """apiVersion: v1
kind: ConfigMap
metadata:
  name: producer
data:
  producer.properties: |
    bootstrap.servers=kafka:9092
    transactional.id=orders
    acks=1
"""
    folder = write({"cm.yaml": cm})
    run = lint(["cm.yaml", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "PRD002"]
    assert finding["location"]["line"] == 9
    lint(["cm.yaml", "--fix", "--isolated"], cwd=folder)
    assert "    acks=all\n" in (folder / "cm.yaml").read_text()


def test_quarkus_channels_streams_and_profiles(lint, write):
    props = ("kafka.bootstrap.servers=localhost:9092\n"
             "mp.messaging.outgoing.orders.transactional.id=orders-tx\n"
             "%dev.mp.messaging.outgoing.orders.acks=1\n"
             "quarkus.kafka-streams.application-id=agg\n"
             "kafka-streams.processing.guarantee=exactly_once_v2\n")
    folder = write({"application.properties": props})
    assert not lint(["application.properties", "--format", "json", "--isolated"], cwd=folder).rules()
    dev = lint(["application.properties", "--format", "json", "--isolated", "--profile", "dev"], cwd=folder)
    assert [f["location"]["line"] for f in dev.json()["findings"] if f["rule"] == "PRD002"] == [3]


def test_micronaut_producers_and_streams(lint, write):
    yml = ("kafka:\n  bootstrap:\n    servers: localhost:9092\n  producers:\n    payments:\n"
           "      transactional.id: payments-tx\n      retries: 0\n  streams:\n    default:\n"
           "      processing.guarantee: exactly_once\n")
    folder = write({"application.yml": yml})
    run = lint(["application.yml", "--format", "json", "--isolated", "--kafka-version", "3.7"], cwd=folder)
    lines = {f["rule"]: f["location"]["line"] for f in run.json()["findings"]}
    assert lines["PRD003"] == 7 and lines["STR001"] == 10


def test_spring_cloud_stream_transactional_binder(lint, write):
    yml = """spring:
  cloud:
    stream:
      kafka:
        binder:
          transaction:
            transaction-id-prefix: tx-
            producer:
              configuration:
                acks: 1
        bindings:
          output:
            producer:
              configuration:
                max.in.flight.requests.per.connection: 10
"""
    folder = write({"application.yml": yml})
    run = lint(["application.yml", "--format", "json", "--isolated"], cwd=folder)
    # acks=1 of the transactional producer is refused; the binding's own producer settings are never used
    assert {f["rule"]: f["location"]["line"] for f in run.json()["findings"]} == {"PRD002": 10, "KEY002": 15}


def test_custom_section_with_a_transaction_id_prefix(lint, write):
    yml = ("app:\n  kafka:\n    producer:\n      transaction-id-prefix: tx-app-\n      acks: all\n"
           "      enable-idempotence: true\n      max-in-flight-requests-per-connection: 6\n")
    folder = write({"application.yml": yml})
    run = lint(["application.yml", "--format", "json", "--isolated"], cwd=folder)
    assert [(f["rule"], f["location"]["line"]) for f in run.json()["findings"]] == [("PRD004", 7)]


def test_spring_profile_documents_apply_only_when_active(lint, write):
    yml = ("spring:\n  kafka:\n    producer:\n      transaction-id-prefix: tx-\n      acks: all\n---\n"
           "spring:\n  config:\n    activate:\n      on-profile: legacy\n  kafka:\n    producer:\n      acks: 1\n")
    folder = write({"application.yml": yml})
    assert "PRD002" not in lint(["application.yml", "--format", "json", "--isolated"], cwd=folder).rules()
    legacy = lint(["application.yml", "--format", "json", "--isolated", "--profile", "legacy"], cwd=folder)
    assert "PRD002" in legacy.rules()


def test_templates_and_workflows_are_skipped_quietly(lint, write):
    folder = write({
        "templates/kafka.yaml": "apiVersion: v1\nkind: ConfigMap\ndata:\n  acks: {{ .Values.acks | quote }}\n",
        "connect.properties": "bootstrap.servers={{ kafka.bootstrap }}\nexactly.once.source.support=enabled\n",
        ".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                                    "    env:\n      KAFKA_ACKS: 1\n    steps:\n      - run: echo\n",
        "producer.properties": "transactional.id=t\nacks=all\n",
    })
    run = lint([".", "--format", "json", "--isolated"], cwd=folder)
    assert run.code == 0, run.err
    named = lint(["templates/kafka.yaml", "connect.properties", ".github/workflows/ci.yml", "--format", "json",
                  "--isolated"], cwd=folder)
    assert named.code == 0 and not named.json()["findings"], named.err


def test_bitnami_helm_values_broker_count_and_override_map(lint, write):
    values = ("image:\n  repository: bitnami/kafka\nkraft:\n  enabled: true\ncontroller:\n  replicaCount: 1\n"
              "broker:\n  replicaCount: 0\noverrideConfiguration:\n  transaction.state.log.replication.factor: 3\n")
    folder = write({"values.yaml": values})
    run = lint(["values.yaml", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "BRK007"]
    assert finding["location"]["line"] == 10
    lint(["values.yaml", "--fix", "--isolated"], cwd=folder)
    text = (folder / "values.yaml").read_text()
    assert "  transaction.state.log.replication.factor: 1\n" in text and "  transaction.state.log.min.isr: 1\n" in text


def test_bitnami_helm_values_properties_block(lint, write):
    values = ("replicaCount: 3\nconfig: |\n  transaction.state.log.replication.factor=3\n"
              "  transaction.state.log.min.isr=4\n")
    folder = write({"values.yaml": values})
    run = lint(["values.yaml", "--format", "json", "--isolated"], cwd=folder)
    assert [f["location"]["line"] for f in run.json()["findings"] if f["rule"] == "BRK003"] == [4]


def test_confluent_helm_values(lint, write):
    values = 'cp-kafka:\n  brokers: 1\n  configurationOverrides:\n    "offsets.topic.replication.factor": "1"\n'
    folder = write({"values.yaml": values})
    assert "BRK007" in lint(["values.yaml", "--format", "json", "--isolated"], cwd=folder).rules()


def test_compose_connect_worker_variables(lint, write):
    compose = ("services:\n  connect:\n    image: confluentinc/cp-kafka-connect:7.6.0\n    environment:\n"
               "      CONNECT_BOOTSTRAP_SERVERS: kafka:9092\n      CONNECT_CONFIG_STORAGE_TOPIC: configs\n"
               "      CONNECT_OFFSET_STORAGE_TOPIC: offsets\n      CONNECT_EXACTLY_ONCE_SOURCE_SUPPORT: enabled\n"
               "      CONNECT_PRODUCER_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION: 10\n")
    folder = write({"docker-compose.yml": compose})
    run = lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder)
    assert {f["rule"]: f["location"]["line"] for f in run.json()["findings"]} == {"PRD004": 9}


def test_derived_configs_survive_pickling(tmp_path):
    """The Spark runner ships parsed configuration inputs between processes with pickle."""
    import pickle

    from kafkadiag.readers.configs import parse_config

    texts = {
        "docker-compose.yml": "services:\n  kafka:\n    image: apache/kafka:3.9.0\n    environment:\n      KAFKA_NODE_ID: 1\n",
        "kafka.yaml": STRIMZI.format(cluster="my-cluster"),
        "application.properties": "mp.messaging.outgoing.o.transactional.id=t\nkafka-streams.processing.guarantee=exactly_once_v2\n",
        "values.yaml": "cp-kafka:\n  brokers: 1\n  configurationOverrides:\n    \"a.b\": \"1\"\n",
    }
    for name, text in texts.items():
        units, _ = parse_config(text, name)
        again = pickle.loads(pickle.dumps(units))
        assert [u.entries[0].key for u in again] == [u.entries[0].key for u in units], name
        assert [u.writer("broker", "x.y") for u in again] == [u.writer("broker", "x.y") for u in units]


def test_cns001_follows_topics_the_files_name(lint, write):
    processor = ("spring:\n  cloud:\n    stream:\n      bindings:\n        process-out-0:\n          destination: orders\n"
                 "      kafka:\n        binder:\n          transaction:\n            transaction-id-prefix: tx-\n")
    reader = ("spring:\n  cloud:\n    stream:\n      bindings:\n        audit-in-0:\n          destination: {topic}\n"
              "          group: audit\n")
    folder = write({"processor.yml": processor, "reader.yml": reader.format(topic="orders")})
    run = lint(["processor.yml", "reader.yml", "--format", "json", "--isolated"], cwd=folder)
    assert [(f["location"]["file"], f["location"]["line"]) for f in run.json()["findings"] if f["rule"] == "CNS001"] == [
        ("reader.yml", 6)]
    other = write({"processor.yml": processor, "reader.yml": reader.format(topic="payments")})
    assert "CNS001" not in lint(["processor.yml", "reader.yml", "--format", "json", "--isolated"], cwd=other).rules()


def test_quarkus_consumer_of_its_own_transactional_channel(lint, write):
    props = ("mp.messaging.outgoing.out.topic=ledger\nmp.messaging.outgoing.out.transactional.id=ledger-tx\n"
             "mp.messaging.incoming.in.topic=ledger\nmp.messaging.incoming.audit.topic=other\n")
    folder = write({"application.properties": props})
    run = lint(["application.properties", "--format", "json", "--isolated"], cwd=folder)
    assert [f["location"]["line"] for f in run.json()["findings"] if f["rule"] == "CNS001"] == [3]


CONNECT_WORKER = ("bootstrap.servers=kafka:9092\ngroup.id=connect-cluster\n"
                  "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
                  "offset.storage.topic=connect-offsets\nexactly.once.source.support=enabled\nproducer.acks=1\n")
MIRROR_MAKER_2 = ("clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"
                  "exactly.once.source.support = enabled\nB.producer.acks = 1\n")


@pytest.mark.parametrize("name, text, without", [
    ("connect-distributed.properties", CONNECT_WORKER, ("enabled", "disabled")),
    ("mm2.properties", MIRROR_MAKER_2, ("exactly.once.source.support = enabled\n", "")),
], ids=["connect-worker", "mirror-maker-2"])
def test_exactly_once_source_support_makes_the_producers_transactional(lint, write, name, text, without):
    """Connect workers and MirrorMaker 2 with exactly-once source support run transactional producers:
    acks=1 there is refused; without it, the same settings are no problem."""
    folder = write({name: text})
    run = lint([name, "--format", "json", "--isolated"], cwd=folder)
    assert {f["rule"]: f["location"]["line"] for f in run.json()["findings"]} == {"PRD002": 6}
    plain = write({name: text.replace(*without)})
    assert not lint([name, "--format", "json", "--isolated"], cwd=plain).rules()


def test_configmap_of_broker_environment_variables(lint, write):
    cm = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kafka-env\ndata:\n  KAFKA_PROCESS_ROLES: \"controller,broker\"\n"
          "  KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: \"1\"\n  KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: \"2\"\n")
    folder = write({"cm.yaml": cm})
    run = lint(["cm.yaml", "--format", "json", "--isolated"], cwd=folder)
    assert [f["location"]["line"] for f in run.json()["findings"] if f["rule"] == "BRK003"] == [8]
    lint(["cm.yaml", "--fix", "--isolated", "--select", "BRK003"], cwd=folder)
    assert (folder / "cm.yaml").read_text() == cm.replace('REPLICATION_FACTOR: "1"', 'REPLICATION_FACTOR: "3"')
    assert "BRK003" not in lint(["cm.yaml", "--format", "json", "--isolated"], cwd=folder).rules()


def test_statefulset_env_list_and_replicas(lint, write):
    sts = """apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kafka
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: broker
          image: confluentinc/cp-kafka:7.6.0
          env:
            - name: KAFKA_BROKER_ID
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: KAFKA_ZOOKEEPER_CONNECT
              value: zk:2181
            - name: KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR
              value: "2"
"""
    folder = write({"sts.yaml": sts})
    run = lint(["sts.yaml", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "BRK007"]
    assert "2 broker(s)" in finding["message"] and finding["location"]["line"] == 18
    three = write({"sts.yaml": sts.replace("replicas: 2", "replicas: 3")})
    assert "BRK007" not in lint(["sts.yaml", "--format", "json", "--isolated"], cwd=three).rules()


def test_bitnami_helm_extra_env_vars(lint, write):
    values = ("kraft:\n  enabled: false\nreplicaCount: 1\nextraEnvVars:\n  - name: KAFKA_CFG_TRANSACTION_STATE_LOG_REPLICATION_FACTOR\n"
              "    value: \"1\"\n  - name: KAFKA_CFG_TRANSACTION_STATE_LOG_MIN_ISR\n    value: \"2\"\n")
    folder = write({"values.yaml": values})
    run = lint(["values.yaml", "--format", "json", "--isolated"], cwd=folder)
    assert [f["location"]["line"] for f in run.json()["findings"] if f["rule"] == "BRK003"] == [8]


CREDENTIALS = {
    "kafka.env": "KAFKA_CFG_PROCESS_ROLES=controller,broker\nKAFKA_CLIENT_USERS=user\nKAFKA_CLIENT_PASSWORDS=s3cret-a\n"
                 "KAFKA_CONTROLLER_PASSWORD=${CONTROLLER_PASSWORD}\n",
    "docker-compose.yml": "services:\n  kafka:\n    image: bitnami/kafka:3.7\n    environment:\n"
                          "      - KAFKA_CFG_PROCESS_ROLES=controller,broker\n      - KAFKA_CLIENT_PASSWORDS=s3cret-a\n",
    "values.yaml": "image:\n  repository: bitnami/kafka\nextraEnvVars:\n  - name: KAFKA_CFG_NUM_PARTITIONS\n    value: \"3\"\n"
                   "  - name: KAFKA_INTER_BROKER_PASSWORD\n    value: s3cret-a\n",
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kafka-env\ndata:\n  KAFKA_PROCESS_ROLES: broker\n"
               "  KAFKA_CERTIFICATE_PASSWORD: s3cret-a\n",
}
CREDENTIALS["sts.yaml"] = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: kafka\nspec:\n  replicas: 3\n"
                           "  template:\n    spec:\n      containers:\n        - name: kafka\n          image: bitnami/kafka:3.7\n"
                           "          env:\n            - name: KAFKA_CFG_PROCESS_ROLES\n              value: broker\n"
                           "            - name: KAFKA_ZOOKEEPER_PASSWORD\n              value: s3cret-a\n")
CREDENTIAL_LINES = {"kafka.env": 3, "docker-compose.yml": 6, "values.yaml": 7, "cm.yaml": 7, "sts.yaml": 16}


def test_image_credential_variables_are_plaintext_secrets(lint, write):
    """The Bitnami image's SASL and keystore passwords are no Kafka keys, yet committed literally they leak."""
    for name, text in CREDENTIALS.items():
        folder = write({name: text})
        run = lint([name, "--format", "json", "--isolated"], cwd=folder)
        (finding,) = [f for f in run.json()["findings"] if f["rule"] == "SEC001"]
        assert finding["location"]["line"] == CREDENTIAL_LINES[name], name
        assert "CONTROLLER_PASSWORD" not in finding["message"]  # a placeholder is resolved at run time
        shown = lint([name, "--isolated", "--exit-zero"], cwd=folder)
        assert "s3cret-a" not in shown.out + shown.err, name
    placeholders = write({"kafka.env": "KAFKA_CFG_PROCESS_ROLES=broker\nKAFKA_CLIENT_PASSWORDS=${KAFKA_PASSWORDS}\n"})
    assert "SEC001" not in lint(["kafka.env", "--format", "json", "--isolated"], cwd=placeholders).rules()


MM2_V1BETA2 = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaMirrorMaker2
metadata:
  name: mm2
spec:
  connectCluster: target
  clusters:
  - alias: source
    bootstrapServers: source:9092
    config:
      exactly.once.source.support: enabled
  - alias: target
    bootstrapServers: target:9092
    config:
      exactly.once.source.support: {eos}
      producer.max.in.flight.requests.per.connection: 6
  mirrors:
  - sourceCluster: source
    targetCluster: target
    sourceConnector:
      config:
        replication.factor: -1
        producer.override.acks: 1
"""


def test_strimzi_mirror_maker_2_reads_its_connect_cluster_and_connector_producers(lint, write):
    folder = write({"mm2.yaml": MM2_V1BETA2.format(eos="enabled")})
    run = lint(["mm2.yaml", "--format", "json", "--isolated"], cwd=folder)
    found = {(f["rule"], f["location"]["line"]) for f in run.json()["findings"]}
    assert ("PRD002", 23) in found  # the connector's acks override, transactional through the workers' EOS
    assert ("PRD004", 16) in found  # the workers' own producer setting, inherited by every source task
    # only the Connect cluster's config is a worker config: EOS on the source cluster changes nothing
    plain = write({"mm2.yaml": MM2_V1BETA2.format(eos="disabled")})
    assert "PRD002" not in lint(["mm2.yaml", "--format", "json", "--isolated"], cwd=plain).rules()


def test_strimzi_mirror_maker_2_v1_layout(lint, write):
    mm2 = """apiVersion: kafka.strimzi.io/v1
kind: KafkaMirrorMaker2
metadata:
  name: mm2
spec:
  target:
    alias: cluster-b
    bootstrapServers: b:9092
    config:
      exactly.once.source.support: enabled
  mirrors:
  - source:
      alias: cluster-a
      bootstrapServers: a:9092
    sourceConnector:
      config:
        producer.override.retries: 0
"""
    folder = write({"mm2.yaml": mm2})
    run = lint(["mm2.yaml", "--format", "json", "--isolated"], cwd=folder)
    (finding,) = [f for f in run.json()["findings"] if f["rule"] == "PRD003"]
    assert finding["location"]["line"] == 17


def test_env_files_are_found_in_folders_and_other_env_files_passed_over(lint, write):
    """``kafka.env`` / ``.env.production`` hold broker variables; an application's own ``.env`` is no Kafka config."""
    folder = write({"deploy/kafka.env": "KAFKA_CFG_PROCESS_ROLES=broker\nKAFKA_CLIENT_PASSWORDS=s3cret-a\n",
                    "deploy/.env.production": "KAFKA_BROKER_ID=1\nKAFKA_TRANSACTION_STATE_LOG_MIN_ISR=2\n"
                                              "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1\n",
                    "app/.env": "DB_HOST=localhost\nDB_PASSWORD=hunter2\n"})
    run = lint([".", "--format", "json", "--isolated"], cwd=folder)
    found = {(f["rule"], f["location"]["file"]) for f in run.json()["findings"]}
    assert ("SEC001", "deploy/kafka.env") in found and ("BRK003", "deploy/.env.production") in found
    assert not any(file.startswith("app") for _, file in found)


def test_spring_boot_environment_variables_of_an_application_service(lint, write):
    """An application service configured through Spring Boot's environment variables (both spellings
    of a dashed property, map and list forms) is read as the Spring properties they bind to."""
    from kafkadiag.lint.keys import spring_env_property

    assert spring_env_property("SPRING_KAFKA_PRODUCER_TRANSACTION_ID_PREFIX") == "spring.kafka.producer.transaction-id-prefix"
    assert spring_env_property("SPRING_KAFKA_PRODUCER_TRANSACTIONIDPREFIX") == "spring.kafka.producer.transaction-id-prefix"
    assert spring_env_property("SPRING_KAFKA_PRODUCER_PROPERTIES_ENABLE_IDEMPOTENCE") == \
        "spring.kafka.producer.properties.enable.idempotence"
    assert spring_env_property("SPRING_DATASOURCE_URL") is None and spring_env_property("SPRING_KAFKA_PRODUCER_FOO") is None
    compose = ONE_BROKER + """  orders:
    image: example/orders:1.0
    environment:
      SPRING_KAFKA_BOOTSTRAP_SERVERS: kafka:9092
      SPRING_KAFKA_PRODUCER_TRANSACTION_ID_PREFIX: orders-tx-
      SPRING_KAFKA_PRODUCER_ACKS: "1"
  billing:
    image: example/billing:1.0
    environment:
      - SPRING_KAFKA_PRODUCER_PROPERTIES_ENABLE_IDEMPOTENCE=true
      - SPRING_KAFKA_PRODUCER_PROPERTIES_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION=10
      - SPRING_DATASOURCE_URL=jdbc:postgresql://db/billing
"""
    folder = write({"docker-compose.yml": compose})
    run = lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder)
    found = {(f["rule"], f["location"]["line"]) for f in run.json()["findings"]}
    assert ("PRD002", 16) in found  # acks=1 next to a transaction-id-prefix, at the ACKS line
    assert ("PRD004", 21) in found  # 10 requests in flight with idempotence, at that line
    fixed = lint(["docker-compose.yml", "--fix", "--isolated"], cwd=folder)
    assert fixed.code in (0, 1), fixed.err
    assert 'SPRING_KAFKA_PRODUCER_ACKS: "all"' in (folder / "docker-compose.yml").read_text()


@pytest.mark.parametrize("runs", [
    '    entrypoint: ["/opt/kafka/bin/connect-distributed.sh", "/connect.properties"]\n',
    "    command: /opt/kafka/bin/connect-standalone.sh /worker.properties /source.properties\n",
])
def test_a_broker_image_started_as_another_program_is_no_broker(lint, write, runs):
    """One broker plus Connect run from the same apache/kafka image with only JVM variables: one broker,
    whose replication factor of 1 fits it."""
    compose = ("services:\n  kafka:\n    image: apache/kafka:3.9.1\n    environment:\n      KAFKA_NODE_ID: 1\n"
               "      KAFKA_PROCESS_ROLES: broker,controller\n      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: 1\n"
               "      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: 1\n      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 1\n"
               "  connect:\n    image: apache/kafka:3.9.1\n" + runs +
               "    environment:\n      KAFKA_HEAP_OPTS: -Xms512m -Xmx2g\n      KAFKA_OPTS: -javaagent:/jmx/agent.jar\n")
    folder = write({"docker-compose.yml": compose})
    run = lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder)
    assert "BRK007" not in run.rules() and "BRK001" not in run.rules()


def test_only_jvm_variables_do_not_make_a_broker_image_a_broker(lint, write):
    compose = ("services:\n  kafka:\n    image: confluentinc/cp-kafka:7.6.0\n    environment:\n      KAFKA_BROKER_ID: 1\n"
               "  tools:\n    image: confluentinc/cp-kafka:7.6.0\n    environment:\n      KAFKA_HEAP_OPTS: -Xmx256m\n")
    folder = write({"docker-compose.yml": compose})
    findings = lint(["docker-compose.yml", "--format", "json", "--isolated"], cwd=folder).json()["findings"]
    assert [f["message"].split(",")[0] for f in findings if f["rule"] == "BRK007"] == ["The cluster has 1 broker(s)"]
