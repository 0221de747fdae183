"""Configurations pasted as code blocks in a text (an issue, a note) are read beside its log lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ISSUE = """We run one broker:

```yaml
services:
  kafka:
    image: confluentinc/cp-kafka:7.6.0
    environment:
      KAFKA_BROKER_ID: 1
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 1
```

and the producer says:

```
2024-05-01 10:00:00 ERROR [main] TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId
```
"""

ADOC = """. Create the cluster:
+
[source,yaml]
----
cat << EOF | kubectl apply -f -
apiVersion: kafka.strimzi.io/v1beta2
kind: Kafka
metadata:
  name: my-cluster
spec:
  kafka:
    replicas: 1
    config:
      transaction.state.log.replication.factor: 3
      transaction.state.log.min.isr: 2
EOF
----
"""


def _analyze(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", str(path), "--format", "json"],
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def test_a_compose_file_in_a_markdown_fence_is_linted_at_its_lines(tmp_path) -> None:
    path = tmp_path / "issue.md"
    path.write_text(ISSUE)
    report = _analyze(path)
    assert report["inputs"][0]["kind"] == "log/text,config/compose"
    rules = {f["rule"]: f for f in report["findings"]}
    assert "CNA102" in rules  # the log line is still read
    assert rules["BRK007"]["location"]["line"] == 8  # KAFKA_BROKER_ID, in the user's file


def test_a_strimzi_resource_in_an_asciidoc_block_behind_a_heredoc(tmp_path) -> None:
    path = tmp_path / "guide.adoc"
    path.write_text(ADOC)
    assert any(f["category"] == "config-misuse" for f in _analyze(path)["findings"])


def test_a_block_of_log_lines_is_not_a_configuration(tmp_path) -> None:
    path = tmp_path / "issue.md"
    path.write_text("```\nacks = all\n2024-05-01 10:00:00 INFO [main] Started\nretries = 0\n```\n")
    report = _analyze(path)
    assert not report["findings"] and "config" not in report["inputs"][0]["kind"]


CODE_ISSUE = """My producer keeps failing:

```java
Properties props = new Properties();
props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
props.put(ProducerConfig.ACKS_CONFIG, "1");
```

and the .NET one too:

```
using Confluent.Kafka;
var config = new ProducerConfig { EnableIdempotence = true, Acks = Acks.Leader };
```
"""


def test_client_code_in_a_block_is_read_in_its_language(tmp_path) -> None:
    path = tmp_path / "question.md"
    path.write_text(CODE_ISSUE)
    findings = [f for f in _analyze(path)["findings"] if f["rule"] == "PRD002"]
    assert sorted(f["location"]["line"] for f in findings) == [6, 13]  # the Java block by its tag, the C# one by its using
    from kafkadiag.readers.configs import block_language

    assert block_language("```kotlin", "") == ".kt" and block_language("```", "plain text\n") == ""
