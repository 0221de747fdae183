"""Project settings from pyproject.toml [tool.kafkadiag] or .kafkadiag.yaml."""

from __future__ import annotations

PRODUCER = "transactional.id=t-${random.uuid}\nenable.idempotence=false\n"


def test_pyproject_select_ignore_and_severity(lint, write):
    folder = write({
        "pyproject.toml": '[project]\nname = "x"\n\n[tool.kafkadiag]\nignore = ["PRD001"]\nseverity = { PRD008 = "info" }\nfail-on = "warning"\n',
        "conf/producer.properties": PRODUCER,
    })
    run = lint(["conf", "--format", "json"], cwd=folder)
    assert run.rules() == {"PRD008"}
    assert run.json()["findings"][0]["severity"] == "info"
    assert run.code == 0


def test_kafkadiag_yaml_wins_and_cli_overrides(lint, write):
    folder = write({".kafkadiag.yaml": "select: [PRD001]\nkafka-version: '2.8'\n", "p.properties": PRODUCER})
    run = lint(["p.properties", "--format", "json"], cwd=folder)
    assert run.rules() == {"PRD001"}
    assert run.json()["summary"]["kafka_version"] == "2.8"
    assert lint(["p.properties", "--format", "json", "--select", "PRD008"], cwd=folder).rules() == {"PRD008"}
    assert lint(["p.properties", "--format", "json", "--isolated"], cwd=folder).rules() == {"PRD001", "PRD008"}


def test_settings_found_in_parent_directory(lint, write):
    folder = write({".kafkadiag.yml": "ignore: fencing\n", "deep/er/p.properties": PRODUCER})
    assert lint(["p.properties", "--format", "json"], cwd=folder / "deep" / "er").rules() == {"PRD001"}


def test_dialect_and_exclude_settings(lint, write):
    folder = write({
        ".kafkadiag.yaml": "dialects:\n  'sinks/*.properties': flink\nexclude: ['legacy/*']\n",
        "sinks/orders.properties": "transactional.id=orders\n",
        "legacy/old.properties": PRODUCER,
    })
    run = lint([".", "--format", "json"], cwd=folder)
    assert [i["kind"] for i in run.json()["inputs"]] == ["flink"]


def test_bad_settings_exit_two(lint, write):
    for text in ("selekt: [PRD001]\n", "severity: {PRD001: fatal}\n", "infrequent-producers: {a: soon}\n"):
        folder = write({".kafkadiag.yaml": text, "p.properties": PRODUCER})
        run = lint(["p.properties"], cwd=folder)
        assert run.code == 2, text
        assert ".kafkadiag.yaml" in run.err


def test_idle_option(lint, write):
    folder = write({"p.properties": "transactional.id=monthly-close\n"})
    assert "BRK006" in lint(["p.properties", "--format", "json", "--idle", "monthly-*=31d"], cwd=folder).rules()
    assert "BRK006" not in lint(["p.properties", "--format", "json", "--idle", "monthly-*=2d"], cwd=folder).rules()
    assert lint(["p.properties", "--idle", "monthly"], cwd=folder).code == 2
