"""Exit codes like linters: 0 clean, 1 findings at or above --fail-on, 2 usage or parse errors."""

from __future__ import annotations

CLEAN = "bootstrap.servers=kafka:9092\ntransactional.id=orders-0\n"
WARNING_ONLY = "bootstrap.servers=kafka:9092\ntransactional.id=orders-${random.uuid}\n"


def test_clean_config_exits_zero(lint, write):
    folder = write({"producer.properties": CLEAN})
    run = lint.process(["producer.properties"], cwd=folder)
    assert run.code == 0, run.err
    assert "No problems found." in run.out


def test_warning_fails_by_default_but_not_with_fail_on_error(lint, write):
    folder = write({"producer.properties": WARNING_ONLY})
    assert lint.process(["producer.properties"], cwd=folder).code == 1
    assert lint.process(["producer.properties", "--fail-on", "error"], cwd=folder).code == 0
    assert lint.process(["producer.properties", "--fail-on", "never"], cwd=folder).code == 0


def test_exit_zero(lint, write):
    folder = write({"producer.properties": "transactional.id=t\nenable.idempotence=false\n"})
    run = lint.process(["producer.properties", "--exit-zero"], cwd=folder)
    assert run.code == 0 and "PRD001" in run.out


def test_missing_file_is_usage_error(lint, write):
    run = lint.process(["no-such.properties"], cwd=write({}))
    assert run.code == 2
    assert "no such file" in run.err


def test_parse_error_in_named_file_exits_two(lint, write):
    folder = write({"application.yml": "spring:\n  kafka: [unclosed\n", "producer.properties": CLEAN})
    run = lint.process(["application.yml", "producer.properties"], cwd=folder)
    assert run.code == 2
    assert "application.yml" in run.err and "invalid YAML" in run.err


def test_parse_error_in_scanned_directory_is_a_note(lint, write):
    folder = write({"charts/values.yaml": "a: {{ .Values.x }\n", "producer.properties": CLEAN})
    run = lint.process(["."], cwd=folder)
    assert run.code == 0
    assert "values.yaml" in run.out


def test_bad_kafka_version_and_selector_exit_two(lint, write):
    folder = write({"producer.properties": CLEAN})
    assert lint.process(["producer.properties", "--kafka-version", "latest"], cwd=folder).code == 2
    run = lint.process(["producer.properties", "--select", "NOPE999"], cwd=folder)
    assert run.code == 2 and "unknown rule selector" in run.err


def test_diff_and_fix_together_is_usage_error(lint, write):
    folder = write({"producer.properties": CLEAN})
    assert lint.process(["producer.properties", "--diff", "--fix"], cwd=folder).code == 2


def test_non_kafka_file_is_skipped(lint, write):
    folder = write({"notes.properties": "title=hello\n", "producer.properties": CLEAN})
    run = lint.process(["notes.properties", "producer.properties"], cwd=folder)
    assert run.code == 0
    assert "no Kafka settings recognised" in run.out


def test_select_and_ignore(lint, write):
    folder = write({"producer.properties": "transactional.id=t-${random.uuid}\nenable.idempotence=false\n"})
    assert lint(["producer.properties", "--format", "json"], cwd=folder).rules() == {"PRD001", "PRD008"}
    assert lint(["producer.properties", "--format", "json", "--select", "PRD008"], cwd=folder).rules() == {"PRD008"}
    assert lint(["producer.properties", "--format", "json", "--ignore", "fencing"], cwd=folder).rules() == {"PRD001"}


def test_a_folder_without_config_files_says_nothing_was_checked(lint, write):
    folder = write({"README.md": "# notes\n", "app.py": "print('hello')\n"})
    run = lint.process(["."], cwd=folder)
    assert run.code == 0  # a pre-commit run whose commit touched no config passes
    assert "No Kafka config file found: nothing was checked." in run.out and "No problems found" not in run.out
