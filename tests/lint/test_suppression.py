"""Inline ``# kafkadiag: ignore=ID`` on the finding's line or the line above."""

from __future__ import annotations

PRODUCER = "bootstrap.servers=kafka:9092\n{comment}transactional.id=t-1\nenable.idempotence=false\n"


def test_comment_on_line_above_suppresses(lint, write):
    folder = write({"p.properties": "transactional.id=t-1\n# kafkadiag: ignore=PRD001\nenable.idempotence=false\n"})
    run = lint(["p.properties", "--format", "json"], cwd=folder)
    assert "PRD001" not in run.rules()
    assert run.json()["summary"]["suppressed"] == 1
    assert run.code == 0


def test_comment_on_same_line_in_yaml(lint, write):
    text = (
        "spring:\n  kafka:\n    producer:\n      transaction-id-prefix: tx-\n"
        "      acks: 1  # kafkadiag: ignore=PRD002\n"
    )
    folder = write({"application.yml": text})
    assert "PRD002" not in lint(["application.yml", "--format", "json"], cwd=folder).rules()


def test_prefix_list_and_all(lint, write):
    for marker in ("# kafkadiag: ignore=SEC,PRD", "# kafkadiag: ignore=ALL", "#kafkadiag:ignore=prd001"):
        folder = write({"p.properties": f"transactional.id=t-1\n{marker}\nenable.idempotence=false\n"})
        assert "PRD001" not in lint(["p.properties", "--format", "json"], cwd=folder).rules(), marker


def test_other_ids_and_distant_lines_do_not_suppress(lint, write):
    folder = write({"p.properties": "# kafkadiag: ignore=PRD001\n\ntransactional.id=t-1\nenable.idempotence=false\n"})
    assert "PRD001" in lint(["p.properties", "--format", "json"], cwd=folder).rules()
    folder = write({"p.properties": "transactional.id=t-1\n# kafkadiag: ignore=PRD002\nenable.idempotence=false\n"})
    assert "PRD001" in lint(["p.properties", "--format", "json"], cwd=folder).rules()


def test_cross_file_finding_suppressed_at_either_line(lint, write):
    folder = write({
        "p.properties": "transactional.id=t-1\ntransaction.timeout.ms=1200000\n",
        "server.properties": "broker.id=1\n# kafkadiag: ignore=PRD006\ntransaction.max.timeout.ms=900000\n",
    })
    assert "PRD006" not in lint([".", "--format", "json"], cwd=folder).rules()
