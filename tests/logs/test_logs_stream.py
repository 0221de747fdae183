"""Sniffing logs by content, and logs streaming through EventStream next to dumps."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from loghelp import FIXTURES, REPO, fixture_bytes
from kafkadiag.readers import EventStream, ReadOptions
from kafkadiag.readers.sniff import sniff

EXPECTED_SNIFF = {
    "broker_server.log": "log/broker",
    "java_spring_boot.log": "log/java",
    "kafka_streams.log": "log/java",
    "flink_taskmanager.log": "log/java",
    "quarkus.log": "log/java",
    "logstash.jsonl": "log/java",
    "librdkafka_stderr.log": "log/librdkafka",
    "cpp_spdlog.log": "log/librdkafka",
    "kafkajs.log": "log/kafkajs",
    "sarama.log": "log/go",
    "kafka_transactions.txt": "log/tool",
    "kafka_consumer_groups.txt": "log/tool",
    "python_confluent_kafka.log": "log/mixed",
    "app_stdout_mixed.log": "log/mixed",
    "docker_compose.log": "log/mixed",
}


@pytest.mark.parametrize(("name", "kind"), sorted(EXPECTED_SNIFF.items()))
def test_fixtures_sniff_as_logs(name: str, kind: str) -> None:
    assert sniff(fixture_bytes(name)[:65536]) == kind


def test_every_fixture_is_claimed_by_the_log_reader() -> None:
    for name in os.listdir(FIXTURES):
        assert sniff(fixture_bytes(name)[:65536]).startswith("log/"), name


def test_dumps_stay_dumps_even_with_log_lines_in_payloads() -> None:
    for name in ("seed001_elided_deep.txt", "seed001_binary_payloads.txt"):
        with open(os.path.join(REPO, "fixtures", "readers", name), "rb") as f:
            assert sniff(f.read(65536)) == "dump-log/data", name
    batch = ("baseOffset: {o} lastOffset: {o} count: 1 baseSequence: 0 lastSequence: 0 producerId: 9 producerEpoch: 0 "
             "partitionLeaderEpoch: 0 isTransactional: false isControl: false position: 0 CreateTime: 1 size: 70 "
             "magic: 2 compresscodec: none crc: 1 isvalid: true\n"
             "| offset: {o} CreateTime: 1 keySize: -1 valueSize: 90 sequence: 0 headerKeys: [] payload: "
             "[2024-05-14 10:00:00,000] INFO [TransactionCoordinator id=1] Initialized transactionalId t{o} (kafka)\n")
    dump = "Dumping /data/app-logs-0/00000000000000000000.log\nLog starting offset: 0\n" + "".join(batch.format(o=i) for i in range(30))
    assert sniff(dump.encode()) == "dump-log/data"


def test_prose_and_a_few_timestamps_are_not_a_log() -> None:
    prose = b"Meeting notes\n\nWe talked about kafka transactions.\nNext steps: none.\n2024-05-14 is the date.\n"
    assert sniff(prose) == "unknown"


def test_mixed_folder_streams_each_input_with_its_kind(tmp_path) -> None:
    folder = tmp_path / "incident"
    folder.mkdir()
    shutil.copy(os.path.join(REPO, "fixtures", "readers", "seed001_elided_deep.txt"), folder / "a-orders-3.txt")
    shutil.copy(os.path.join(FIXTURES, "java_spring_boot.log"), folder / "b-client.log")
    shutil.copy(os.path.join(FIXTURES, "broker_server.log"), folder / "c-server.log")
    shutil.copy(os.path.join(FIXTURES, "kafka_transactions.txt"), folder / "d-tools.txt")
    (folder / "e-empty.log").write_bytes(b"")
    stream = EventStream([str(folder)], ReadOptions(chunk_rows=5))
    chunks = list(stream)
    assert all(len(frame) <= 5 for _, frame in chunks)
    tables = {name for name, _ in chunks}
    assert {"batches", "log_events"} <= tables
    events = pd.concat([frame for name, frame in chunks if name == "log_events"], ignore_index=True)
    kinds = [report.kinds for report in stream.reports]
    assert kinds == [["dump-log/data"], ["log/java"], ["log/broker"], ["log/tool"], []]
    assert all(report.error == "" for report in stream.reports)
    assert sorted(set(events["file_id"])) == [1, 2, 3]
    assert set(events[events["file_id"] == 2]["source"]) == {"broker"}
    assert set(events[events["file_id"] == 3]["source"]) == {"tool"}
    per_file = events.groupby("file_id")["seq"].apply(list)
    assert all(seqs == list(range(len(seqs))) for seqs in per_file)
    assert stream.reports[1].to_json()["kind"] == "log/java" and stream.reports[1].lines == 35
