"""Broker server.log / kafkaServer.out: transaction components, relevance, container prefixes."""

from __future__ import annotations

from loghelp import read_fixture, read_log, utc_ms


def test_broker_transaction_lines() -> None:
    result = read_fixture("broker_server.log")
    assert result.report.kinds == ["log/broker"]
    assert result.report.notes == {"other log lines": 3}  # server start, partition load, segment roll
    assert set(result.events["source"]) == {"broker"} and set(result.events["library"]) == {"broker"}
    loading = result.at(4)
    assert loading["logger"] == "kafka.coordinator.transaction.TransactionStateManager" and loading["coordinator_id"] == 2
    assert (loading["topic"], loading["partition"]) == ("__transaction_state", 31)
    assert loading["message"] == "Loading transaction metadata from __transaction_state-31 at epoch 9"
    init = result.at(7)
    assert (init["transactional_id"], init["producer_id"], init["producer_epoch"]) == ("orders-api-tx-0", 4001, 12)
    assert init["time"] == utc_ms("2024-05-14T09:58:02.120") and init["message"].startswith("Initialized transactionalId")
    rollback = result.at(8)
    assert rollback["transactional_id"] == "orders-api-tx-0" and rollback["error"] == ""
    assert result.at(9)["producer_epoch"] == 14
    aborting = result.at(10)
    assert aborting["error"] == "PRODUCER_FENCED" and aborting["transactional_id"] == "orders-api-tx-0"
    append = result.at(11)
    assert append["lines"] == 2 and append["level"] == "ERROR" and append["logger"] == "kafka.server.ReplicaManager"
    assert (append["producer_id"], append["producer_epoch"], append["topic"], append["partition"]) == (4001, 12, "orders", 3)
    assert append["error"] == "INVALID_PRODUCER_EPOCH" and append["exception"] == "InvalidProducerEpochException"
    marker = result.at(13)
    assert marker["error"] == "NOT_LEADER_OR_FOLLOWER" and marker["transactional_id"] == "orders-api-tx-0"
    assert (marker["topic"], marker["partition"]) == ("orders", 3)
    concurrent = result.at(14)
    assert concurrent["transactional_id"] == "billing-tx-7" and concurrent["error"] == "CONCURRENT_TRANSACTIONS"
    assert result.at(15)["group_id"] == "payments" and result.at(15)["txn_state"] == ""
    assert (result.at(17)["topic"], result.at(17)["partition"]) == ("orders", 3)
    expired = result.at(21)
    assert expired["transactional_id"] == "reports-tx-2" and expired["error"] == "NOT_ENOUGH_REPLICAS"
    assert result.at(22)["transactional_id"] == "reports-tx-3"


def test_component_prefixes_give_coordinator_ids() -> None:
    text = (
        "[2024-05-14 10:00:00,000] INFO [Transaction Marker Channel Manager 3]: Shutdown completed (kafka.coordinator.transaction.TransactionMarkerChannelManager)\n"
        "[2024-05-14 10:00:00,001] WARN [KafkaApi-3] Error when handling request: transactionalId=x1 producerId=44 (kafka.server.KafkaApis)\n"
        "[2024-05-14 10:00:00,002] INFO [ProducerStateManager partition=events-9] Wrote producer snapshot at offset 77 with 0 producer ids in 1 ms. (org.apache.kafka.storage.internals.log.ProducerStateManager)\n"
    )
    marker, api, state = read_log(text).rows()
    assert marker["coordinator_id"] == 3 and marker["message"] == "Shutdown completed"
    assert (api["coordinator_id"], api["transactional_id"], api["producer_id"]) == (3, "x1", 44)
    assert (state["topic"], state["partition"], state["source"]) == ("events", 9, "broker")


def test_container_prefixes_and_ansi_colours() -> None:
    result = read_fixture("docker_compose.log")
    assert result.report.kinds == ["log/broker", "log/java"]
    broker = result.at(2)
    assert (broker["source"], broker["transactional_id"], broker["producer_id"]) == ("broker", "ledger-tx", 11)
    assert broker["time"] == utc_ms("2024-05-14T09:58:02.120") and "\x1b" not in broker["message"]
    client = result.at(3)
    assert (client["source"], client["error"], client["topic"], client["partition"]) == ("client", "NOT_ENOUGH_REPLICAS", "ledger", 0)
    assert not client["message"].endswith("m")  # colour reset removed
    failed = result.at(4)
    assert failed["lines"] == 4 and failed["error"] == "PRODUCER_FENCED"
    assert failed["exceptions"] == "KafkaException,ProducerFencedException"
