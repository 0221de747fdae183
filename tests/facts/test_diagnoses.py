"""The built-in rules over facts of known scenarios: the right rule fires, healthy traffic stays quiet."""

import uuid

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.ruleset import evaluate, load_rules
from tests.facts.builders import T0, batch, facts, record

RULES = load_rules()
CONFIG = EffectiveConfig.defaults().as_mapping()


def run(tables):
    return evaluate(RULES, tables, CONFIG, lambda refs: [])


def fired(tables, severity=None):
    return sorted({f.rule for f in run(tables) if severity is None or f.severity == severity})


def test_healthy_v1_traffic_has_no_errors_or_warnings():
    rows, off, seqs = [], 0, {100: 0, 101: 0, 102: 0}
    for i in range(20):
        pid = 100 + i % 3
        rows += [batch(off, pid, 0, seq=seqs[pid], ts=T0 + i * 1000), batch(off + 1, pid, 0, marker="COMMIT", ts=T0 + i * 1000 + 20)]
        seqs[pid] += 1
        off += 2
    rows += [batch(off, 101, 0, seq=seqs[101], ts=T0 + 30_000), batch(off + 1, 101, 0, marker="ABORT", ts=T0 + 30_050)]  # client abort
    assert fired(facts(rows, v2_possible=False)) == []


def test_healthy_v2_traffic_has_no_findings():
    rows, off = [], 0
    for epoch in range(10):
        rows += [batch(off, 7, epoch, seq=0, ts=T0 + epoch * 500), batch(off + 1, 7, epoch + 1, marker="COMMIT", ts=T0 + epoch * 500 + 10)]
        off += 2
    rows += [batch(off, 7, 10, seq=0, ts=T0 + 6000), batch(off + 1, 7, 11, marker="ABORT", ts=T0 + 6010)]
    assert fired(facts(rows)) == []


def test_fencing_from_data():
    rows = [batch(0, 0, 5, seq=0), batch(1, 0, 6, marker="ABORT"), batch(2, 0, 7, seq=0), batch(3, 0, 7, marker="COMMIT")]
    findings = run(facts(rows, v2_possible=False))
    assert [f.rule for f in findings] == ["FEN001"]
    f = findings[0]
    assert (f.category, f.severity, f.subject.producer_id, f.subject.producer_epoch, f.subject.topic) == ("fencing", "error", 0, 5, "orders")


def test_timeout_from_data_recommends_timeout():
    rows = [batch(0, 7, 2, seq=0, ts=T0), batch(1, 7, 3, marker="ABORT", ts=T0 + 75_000)]
    f = [f for f in run(facts(rows, v2_possible=False)) if f.rule == "TMO002"][0]
    assert f.category == "transaction-timeout"
    assert [(r.side, r.config, r.value) for r in f.recommendations] == [("producer", "transaction.timeout.ms", "120000")]


def test_hanging_error_past_timeout_warning_and_in_flight_info():
    rows = [batch(0, 1, 0, seq=0, ts=T0), batch(1, 4, 0, seq=0, ts=T0 + 800_000), batch(2, 3, 0, seq=0, ts=T0 + 1_000_000),
            batch(3, 2, 0, seq=0, ts=T0 + 1_000_100)]
    findings = run(facts(rows, v2_possible=False))
    by_pid = {f.subject.producer_id: (f.rule, f.severity) for f in findings}
    assert by_pid[1] == ("HNG001", "error")  # older than transaction.max.timeout.ms
    assert by_pid[4] == ("HNG002", "warning")  # 200 s: past transaction.timeout.ms (60 s), not yet hanging
    assert by_pid[3] == ("HNG009", "info")  # 100 ms: in flight
    hang = [f for f in findings if f.rule == "HNG001"][0]
    assert any("abort --topic orders --partition 0 --start-offset 0" in step for step in hang.runbook)


def test_expired_resume_abort():
    day = 86_400_000
    rows = [batch(2, 10041, 6, seq=0, count=2, ts=T0), batch(4, 10041, 6, marker="COMMIT", ts=T0 + 10),
            batch(5, 10041, 9, seq=0, ts=T0 + 8 * day), batch(6, 10041, 9, marker="ABORT", ts=T0 + 8 * day + 40)]
    rules = fired(facts(rows, v2_possible=False))
    assert "EXP001" in rules and "FEN005" not in rules


def test_coordinator_timeout_and_fence():
    recs = [record("slow", 9, 0, "Ongoing", T0, offset=0, partitions="o-0"),
            record("slow", 9, 1, "PrepareAbort", T0 + 70_000, offset=1, partitions="o-0"),
            record("slow", 9, 1, "CompleteAbort", T0 + 70_010, offset=2),
            record("dup", 4, 3, "Ongoing", T0, offset=3, partitions="o-1"),
            record("dup", 4, 4, "PrepareAbort", T0 + 2_000, offset=4, partitions="o-1"),
            record("dup", 4, 4, "CompleteAbort", T0 + 2_010, offset=5),
            record("dup", 4, 5, "Empty", T0 + 2_020, offset=6)]
    findings = run(facts(records=recs))
    assert {(f.rule, f.subject.transactional_id) for f in findings if f.severity == "error"} == {("TMO001", "slow"), ("FEN002", "dup")}


def test_unstable_ids_warning_groups_the_family():
    recs = []
    for i in range(5):
        tid = f"orders-{uuid.UUID(int=i + 7)}"
        recs += [record(tid, 50 + i, 0, "Empty", T0 + i, offset=10 * i),
                 record(tid, 50 + i, 0, "Ongoing", T0 + 10 + i, offset=10 * i + 1, partitions="o-0"),
                 record(tid, 50 + i, 0, "PrepareCommit", T0 + 20 + i, offset=10 * i + 2, partitions="o-0"),
                 record(tid, 50 + i, 0, "CompleteCommit", T0 + 30 + i, offset=10 * i + 3)]
    findings = [f for f in run(facts(records=recs)) if f.rule == "MIS001"]
    assert len(findings) == 1 and findings[0].category == "config-misuse" and "5 transactional.ids" in findings[0].message


@pytest.mark.parametrize("kind,rule", [("gap", "SEQ001"), ("dup", "SEQ002")])
def test_sequence_rules(kind, rule):
    second = batch(2, 5, 0, seq=6 if kind == "gap" else 1, tx=False)
    rows = [batch(0, 5, 0, seq=0, count=2, tx=False), second]
    assert fired(facts(rows)) == [rule]
