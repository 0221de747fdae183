"""Each log-signature rule on realistic client and broker lines, and healthy chatter that must stay quiet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
J = "2024-05-14 10:00:0{s},123 {lvl} [kafka-producer-network-thread | producer-orders-tx-1] o.a.k.c.p.i.{cls} - [Producer clientId=producer-orders-tx-1, transactionalId=orders-tx-1] {msg}"

CASES = {
    "FEN101": [J.format(s=1, lvl="ERROR", cls="Sender", msg="Aborting producer batches due to fatal error"),
               "org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same transactionalId which fences the current one.",
               ],
    "EXP101": [J.format(s=2, lvl="ERROR", cls="TransactionManager", msg="Transiting to fatal error state due to org.apache.kafka.common.errors.InvalidPidMappingException: The producer attempted to use a producer id which is not currently assigned to its transactional id.")],
    "TMO101": ["[2024-05-14 10:00:03,000] INFO [TransactionCoordinator id=1] Completed rollback of ongoing transaction for transactionalId orders-tx-1 due to timeout (kafka.coordinator.transaction.TransactionCoordinator)"],
    "TMO102": [J.format(s=4, lvl="ERROR", cls="KafkaProducer", msg="commitTransaction failed: org.apache.kafka.common.errors.TimeoutException: Timeout expired after 60000ms while awaiting EndTxn(true)")],
    "REQ101": [J.format(s=5, lvl="ERROR", cls="Sender", msg="Expiring 3 record(s) for orders-2:120003 ms has passed since batch creation")],
    "SEQ101": [J.format(s=6, lvl="ERROR", cls="Sender", msg="The broker returned org.apache.kafka.common.errors.OutOfOrderSequenceException: The broker received an out of order sequence number. for topic-partition orders-1")],
    "UPI101": [J.format(s=7, lvl="WARN", cls="Sender", msg="Got error produce response with correlation id 88 on topic-partition orders-1, retrying. Error: UNKNOWN_PRODUCER_ID")],
    "URS101": [J.format(s=8, lvl="ERROR", cls="TransactionManager", msg="The client hasn't received acknowledgment for some previously sent messages and can no longer retry them. It isn't safe to continue.")],
    "AUT101": [J.format(s=9, lvl="ERROR", cls="TransactionManager", msg="Transiting to fatal error state due to org.apache.kafka.common.errors.TransactionalIdAuthorizationException: Transactional Id authorization failed.")],
    "ITT101": [J.format(s=1, lvl="ERROR", cls="TransactionManager", msg="Transiting to fatal error state due to org.apache.kafka.common.errors.InvalidTxnTimeoutException: The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).")],
    "MIS101": [J.format(s=2, lvl="ERROR", cls="KafkaProducer", msg="abort failed: java.lang.IllegalStateException: Cannot execute transactional method because we are in an error state")],
    "MIS102": [J.format(s=3, lvl="ERROR", cls="TransactionManager", msg="Invalid transition attempted from state COMMITTING_TRANSACTION to state ABORTING_TRANSACTION")],
    "IST101": [J.format(s=4, lvl="ERROR", cls="TransactionManager", msg="Invalid transition attempted from state READY to state COMMITTING_TRANSACTION")],
    "CNA101": [J.format(s=s, lvl="ERROR", cls="TransactionManager", msg="Could not find coordinator: org.apache.kafka.common.errors.CoordinatorNotAvailableException: The coordinator is not available.")
               for s in (5, 6, 7)],
    "CNA102": [J.format(s=8, lvl="ERROR", cls="KafkaProducer", msg="initTransactions failed: org.apache.kafka.common.errors.TimeoutException: Timeout expired after 60000ms while awaiting InitProducerId")],
    "CNA103": ["[2024-05-14 10:00:09,000] ERROR [ReplicaManager broker=1] Error processing append operation on partition __transaction_state-18 (kafka.server.ReplicaManager)",
               "org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR Set(1) is insufficient to satisfy the min.isr requirement of 2 for partition __transaction_state-18"],
    "MIS104": [J.format(s=1, lvl="ERROR", cls="KafkaProducer", msg="send failed: java.lang.IllegalStateException: Cannot perform a 'send' before completing a call to initTransactions when transactions are enabled.")],
    "MIS105": ["[2024-05-14 10:00:02,446] ERROR [KafkaApi-1001] Number of alive brokers '1' does not meet the required replication factor '3' for the transactions state topic (configured via 'transaction.state.log.replication.factor'). This error can be ignored if the cluster is starting up and not all brokers are up yet. (kafka.server.KafkaApis)"],
    "FEN102": ["[2024-05-14 10:00:0{s},000] INFO [TransactionCoordinator id=1] Initialized transactionalId orders-tx-1 with producerId 1000 "
               "and producer epoch {e} on partition __transaction_state-12 (kafka.coordinator.transaction.TransactionCoordinator)".format(s=s, e=s + 2)
               for s in (1, 2, 3)],
    "CCT102": [J.format(s=3, lvl="ERROR", cls="KafkaProducer", msg="sendOffsetsToTransaction failed: org.apache.kafka.common.errors.ConcurrentTransactionsException: The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.")],
    "CCT101": [J.format(s=6, lvl="WARN", cls="TransactionManager", msg="Got error CONCURRENT_TRANSACTIONS for AddPartitionsToTxn, retrying")],
}

HEALTHY = [
    J.format(s=1, lvl="INFO", cls="TransactionManager", msg="ProducerId set to 1000 with epoch 0"),
    J.format(s=2, lvl="DEBUG", cls="TransactionManager", msg="Transition from state READY to IN_TRANSACTION"),
    J.format(s=3, lvl="DEBUG", cls="TransactionManager", msg="Transition from state IN_TRANSACTION to COMMITTING_TRANSACTION"),
    J.format(s=4, lvl="INFO", cls="KafkaProducer", msg="Aborting incomplete transaction due to shutdown"),
    J.format(s=5, lvl="INFO", cls="TransactionManager", msg="Transition from state ABORTING_TRANSACTION to READY"),
    "[2024-05-14 10:00:06,000] INFO [TransactionCoordinator id=1] Initialized transactionalId orders-tx-1 with producerId 1000 and producer epoch 1 on partition __transaction_state-12 (kafka.coordinator.transaction.TransactionCoordinator)",
    "2024-05-14 10:00:07,000 INFO [main] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=c-1, groupId=orders] Revoke previously assigned partitions orders-0",
    # one retried coordinator move and one retried CONCURRENT_TRANSACTIONS are not findings
    J.format(s=8, lvl="WARN", cls="TransactionManager", msg="Got error NOT_COORDINATOR for FindCoordinator, retrying"),
    J.format(s=9, lvl="ERROR", cls="TransactionManager", msg="Could not find coordinator: org.apache.kafka.common.errors.CoordinatorNotAvailableException: The coordinator is not available."),
    J.format(s=9, lvl="WARN", cls="TransactionManager", msg="Got error CONCURRENT_TRANSACTIONS for AddPartitionsToTxn, retrying"),
    # an admin request refused at cluster level is not a producer's authorization problem
    "2024-05-14 10:00:09,500 ERROR [main] c.e.orders.TopicBootstrap - Failed to create topic orders-dlq: "
    "org.apache.kafka.common.errors.ClusterAuthorizationException: Cluster authorization failed.",
]


def analyze(tmp_path: Path, lines: list[str]) -> dict:
    log = tmp_path / "app.log"
    log.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", "--fail-on", "never", str(log)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires(tmp_path: Path, rule: str) -> None:
    report = analyze(tmp_path, HEALTHY + CASES[rule])
    fired = {f["rule"] for f in report["findings"]}
    assert rule in fired, (rule, [(f["rule"], f["message"][:80]) for f in report["findings"]])
    finding = next(f for f in report["findings"] if f["rule"] == rule)
    assert finding["evidence"] and finding["evidence"][0]["line"] >= 1


def test_healthy_chatter_is_quiet(tmp_path: Path) -> None:
    report = analyze(tmp_path, HEALTHY)
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []


def test_a_connection_torn_down_for_timed_out_requests_is_no_delivery_timeout(tmp_path: Path) -> None:
    """librdkafka 0.9 gave the disconnect "Local: Message timed out" as its reason, for any requests (a
    consumer's offset commits too); only a delivery that failed with it is a delivery timeout."""
    disconnect = ("%3|1476107497.650|FAIL|rdkafka#consumer-1| [thrd:server1:9092/1]: server1:9092/1: "
                  "2241 request(s) timed out: disconnect(Local: Message timed out)")
    assert {f["rule"] for f in analyze(tmp_path, HEALTHY + [disconnect])["findings"]} & {"REQ101", "REQ102"} == set()
    delivery = ("%4|1476107498.100|MSGTIMEOUT|rdkafka#producer-1| [thrd:app]: Delivery failed for orders [2]: "
                "Local: Message timed out")
    assert "REQ101" in {f["rule"] for f in analyze(tmp_path, HEALTHY + [disconnect, delivery])["findings"]}


def test_timeout_chain_is_linked(tmp_path: Path) -> None:
    report = analyze(tmp_path, HEALTHY + CASES["TMO101"] + [
        "2024-05-14 10:00:09,500 ERROR [kafka-producer-network-thread | producer-orders-tx-1] o.a.k.c.p.i.TransactionManager - "
        "[Producer clientId=producer-orders-tx-1, transactionalId=orders-tx-1] Transiting to fatal error state due to "
        "org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same transactionalId which fences the current one."])
    by_rule = {f["rule"]: f for f in report["findings"]}
    assert by_rule["FEN101"]["caused_by"] == [by_rule["TMO101"]["id"]] and by_rule["TMO101"]["root_cause"]


def test_pasted_kafka_transactions_output_is_diagnosed() -> None:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json",
                           str(ROOT / "fixtures" / "logs" / "kafka_transactions.txt")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1
    by_rule = {f["rule"]: f for f in json.loads(proc.stdout)["findings"]}
    assert by_rule["HNG101"]["runbook"][0].endswith("abort --topic orders --partition 3 --start-offset 900017")
    assert by_rule["HNG102"]["subject"]["transactional_id"] == "orders-api-tx-0"
