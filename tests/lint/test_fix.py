"""--diff prints the fixes as a unified diff (applying it makes the rule pass); --fix writes them,
keeping order, comments and formatting."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from kafkadiag.ruleset import load_rules

FIXABLE = sorted(r.id for r in load_rules() if r.table == "configs" and r.recommendations and r.id != "BRK004")


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs the patch tool")
@pytest.mark.parametrize("rule", FIXABLE)
def test_diff_round_trip(rule, lint, copy_case):
    folder, args = copy_case(rule)
    diff = lint([".", "--diff", *args], cwd=folder)
    assert diff.code == 1, diff.err
    assert diff.out.startswith("--- ")
    subprocess.run(["patch", "-p0", "-s"], input=diff.out, text=True, cwd=folder, check=True)
    after = lint([".", "--format", "json", *args], cwd=folder)
    assert rule not in after.rules(), after.out
    again = lint([".", "--diff", *args], cwd=folder)
    assert again.code == 0 and again.out == ""


@pytest.mark.parametrize("rule", FIXABLE)
def test_fix_writes_what_diff_shows(rule, lint, copy_case, tmp_path):
    folder, args = copy_case(rule)
    twin = tmp_path / "twin"
    shutil.copytree(folder, twin)
    run = lint([".", "--fix", "--format", "json", *args], cwd=folder)
    assert rule not in run.rules()
    assert run.code in (0, 1)
    if shutil.which("patch"):
        diff = lint([".", "--diff", *args], cwd=twin).out
        subprocess.run(["patch", "-p0", "-s"], input=diff, text=True, cwd=twin, check=True)
        for path in folder.rglob("*"):
            if path.is_file() and not path.name.endswith((".orig", ".rej")):
                assert path.read_text() == (twin / path.relative_to(folder)).read_text(), path.name


def test_fix_keeps_comments_and_order(lint, write):
    text = (
        "# Orders producer, owned by the payments team\n"
        "bootstrap.servers=kafka:9092\n"
        "! legacy comment style\n"
        "transactional.id=orders-0\n"
        "acks : 1\n"
        "# keep this one\n"
        "linger.ms=5\n"
    )
    folder = write({"p.properties": text})
    lint(["p.properties", "--fix"], cwd=folder)
    assert (folder / "p.properties").read_text() == text.replace("acks : 1", "acks : all")


def test_fix_adds_missing_key_in_the_files_dialect(lint, write):
    streams = "application.id=app\nprocessing.guarantee=exactly_once_v2\ncommit.interval.ms=60000\n"
    spring = (
        "spring:\n  kafka:\n    producer:\n      transaction-id-prefix: tx-\n    consumer:\n"
        "      group-id: g  # main group\n# trailing comment\n"
    )
    rdk = '{\n  "transactional.id": "t",\n  "message.timeout.ms": 300000\n}\n'
    upstream = "transactional.id=upstream-writer\n"  # another application: its output is what the consumer reads
    folder = write({"streams.properties": streams, "application.yml": spring, "rdkafka.json": rdk,
                    "upstream.properties": upstream})
    lint(["streams.properties", "--fix"], cwd=folder)
    assert (folder / "streams.properties").read_text() == streams.replace("60000", "5000")
    lint(["application.yml", "upstream.properties", "--fix"], cwd=folder)
    assert (folder / "application.yml").read_text() == spring.replace(
        "      group-id: g  # main group\n", "      group-id: g  # main group\n      isolation-level: read_committed\n")
    lint(["rdkafka.json", "--fix"], cwd=folder)
    assert '"message.timeout.ms": 60000' in (folder / "rdkafka.json").read_text()


def test_fix_adds_key_to_spring_properties_file(lint, write):
    folder = write({"application.properties": "spring.kafka.producer.transaction-id-prefix=tx-\n"
                                              "spring.kafka.producer.properties.max.in.flight.requests.per.connection=8\n"})
    lint(["application.properties", "--fix"], cwd=folder)
    assert "spring.kafka.producer.properties.max.in.flight.requests.per.connection=5" in (folder / "application.properties").read_text()


def test_fix_chains_until_stable(lint, write):
    folder = write({"p.properties": "transactional.id=t-0\nenable.idempotence=false\nacks=1\n"})
    run = lint(["p.properties", "--fix", "--format", "json"], cwd=folder)
    assert run.rules() == set()
    assert (folder / "p.properties").read_text() == "transactional.id=t-0\nenable.idempotence=true\nacks=all\n"


def test_broker_side_fix_goes_to_the_broker_file(lint, write):
    folder = write({"p.properties": "transactional.id=t\n", "server.properties": "broker.id=1\nunclean.leader.election.enable=true\n"})
    diff = lint([".", "--diff"], cwd=folder).out
    assert "+++ server.properties" in diff and "+unclean.leader.election.enable=false" in diff
    assert "p.properties" not in diff


def test_fix_adds_key_to_json_object(lint, write):
    text = '{\n  "sink.delivery-guarantee": "exactly-once",\n  "sink.transactional-id-prefix": "orders"\n}\n'
    folder = write({"sink.json": text})
    lint(["sink.json", "--dialect", "flink", "--fix"], cwd=folder)
    assert (folder / "sink.json").read_text() == (
        '{\n  "sink.delivery-guarantee": "exactly-once",\n  "sink.transactional-id-prefix": "orders",\n'
        '  "transaction.timeout.ms": 900000\n}\n'
    )
