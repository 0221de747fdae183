"""Pasted output of kafka-transactions.sh and kafka-consumer-groups.sh."""

from __future__ import annotations

from loghelp import read_fixture, read_log


def test_kafka_transactions_list_describe_producers_and_find_hanging() -> None:
    result = read_fixture("kafka_transactions.txt")
    assert result.report.kinds == ["log/tool"]
    assert result.report.notes == {"shell command lines": 4}  # the four `$ kafka-transactions.sh ...` command lines
    assert set(result.events["source"]) == {"tool"} and set(result.events["library"]) == {"kafka-transactions"}
    listed = result.events[result.events["logger"] == "list"]
    assert list(listed["transactional_id"]) == ["orders-api-tx-0", "billing-tx-7", "reports-tx-3"]
    assert list(listed["txn_state"]) == ["Ongoing", "CompleteCommit", "PrepareAbort"]
    assert list(listed["coordinator_id"]) == [2, 1, 3] and list(listed["producer_id"]) == [4001, 90210, 17]
    described = result.at(9)
    assert (described["logger"], described["transactional_id"], described["producer_epoch"]) == ("describe", "orders-api-tx-0", 14)
    assert (described["timeout_ms"], described["duration_ms"], described["txn_state"]) == (60000, 912000, "Ongoing")
    assert described["time"] == 1715680741000 + 912000  # when the tool ran
    assert (described["topic"], described["partition"]) == ("orders", 3)
    assert described["message"].startswith("2 orders-api-tx-0 4001 14 Ongoing")
    open_txn = result.at(13)
    assert (open_txn["producer_id"], open_txn["start_offset"], open_txn["time"]) == (4001, 912101, 1715680745001)
    assert result.at(14)["start_offset"] == -1  # "None": no open transaction
    hanging = result.at(18)
    assert (hanging["logger"], hanging["topic"], hanging["partition"], hanging["producer_id"]) == ("find-hanging", "orders", 3, 3001)
    assert (hanging["start_offset"], hanging["duration_ms"]) == (900017, 1354 * 60_000)


def test_kafka_consumer_groups_describe() -> None:
    result = read_fixture("kafka_consumer_groups.txt")
    assert set(result.events["library"]) == {"kafka-consumer-groups"}
    row = result.at(4)
    assert (row["group_id"], row["topic"], row["partition"], row["client_id"]) == ("payments", "orders", 3, "consumer-payments-1")
    assert (row["current_offset"], row["log_end_offset"], row["lag"]) == (900017, 912300, 12283)
    empty = result.at(6)
    assert (empty["current_offset"], empty["log_end_offset"], empty["lag"], empty["client_id"]) == (-1, 310, -1, "")
    no_members = result.at(8)
    assert (no_members["group_id"], no_members["source"], no_members["message"]) == (
        "reports", "tool", "Consumer group 'reports' has no active members.")


def test_tables_with_tabs_turned_into_spaces_and_an_empty_result() -> None:
    text = (
        "Topic  Partition  ProducerId  ProducerEpoch  CoordinatorEpoch  StartOffset  LastTimestamp  Duration(min)\n"
        "\n"
        "TransactionalId Coordinator ProducerId TransactionState\n"
        "t1 1 5 Ongoing\n"
        "TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID\n"
        "orders 0 10 12 2 - - -\n"
    )
    hanging, listed, group = read_log(text).rows()
    assert hanging["logger"] == "find-hanging" and hanging["producer_id"] == -1  # no hanging transactions found
    assert (listed["transactional_id"], listed["producer_id"], listed["txn_state"]) == ("t1", 5, "Ongoing")
    assert (group["topic"], group["lag"], group["group_id"]) == ("orders", 2, "")


def test_rpk_cluster_txn_list_and_describe() -> None:
    """rpk prints the same admin answers as kafka-transactions.sh under its own headers (Go tabwriter,
    upper case, hyphens; describe's timeout is a Go duration, its start an RFC 3339 instant)."""
    text = (
        "$ rpk cluster txn list\n"
        "COORDINATOR  TRANSACTIONAL-ID  PRODUCER-ID  STATE\n"
        "0            333               35001        PrepareCommit\n"
        "1            orders-tx-0       35002        Ongoing\n"
        "$ rpk cluster txn describe orders-tx-0\n"
        "COORDINATOR  TRANSACTIONAL-ID  PRODUCER-ID  PRODUCER-EPOCH  STATE    START-TIMESTAMP           TIMEOUT  TOPICS\n"
        "1            orders-tx-0       35002        7               Ongoing  2024-05-14T10:00:01.000Z  1m0s     orders,payments\n"
    )
    result = read_log(text)
    assert set(result.events["library"]) == {"rpk"}
    listed = result.events[result.events["logger"] == "list"]
    assert list(listed["transactional_id"]) == ["333", "orders-tx-0"]
    assert list(listed["txn_state"]) == ["PrepareCommit", "Ongoing"] and list(listed["producer_id"]) == [35001, 35002]
    assert list(listed["coordinator_id"]) == [0, 1] and list(listed["duration_ms"]) == [-1, -1]
    described = result.at(7)
    assert (described["logger"], described["producer_epoch"], described["txn_state"]) == ("describe", 7, "Ongoing")
    assert (described["timeout_ms"], described["time"], described["topic"]) == (60_000, 1715680801000, "orders")
