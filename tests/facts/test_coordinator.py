"""Coordinator history: who ended each transaction and why, id expiry, id families, transitions."""

import uuid

from tests.facts.builders import T0, batch, facts, record


def _txn(tid, pid, e, start, *, end_state="CompleteCommit", prepare_epoch=None, dur=100, offset=0, parts="orders-0", **kw):
    prep = "PrepareCommit" if end_state == "CompleteCommit" else "PrepareAbort"
    pe = e if prepare_epoch is None else prepare_epoch
    return [
        record(tid, pid, e, "Ongoing", start, offset=offset, partitions=parts, **kw),
        record(tid, pid, pe, prep, start + dur, offset=offset + 1, partitions=parts, **kw),
        record(tid, pid, pe, end_state, start + dur + 5, offset=offset + 2, **kw),
    ]


def test_timeout_abort_then_later_restart():
    recs = [record("app-1", 9, 0, "Empty", T0, offset=0)]
    recs += _txn("app-1", 9, 0, T0 + 1000, end_state="CompleteAbort", prepare_epoch=1, dur=70_000, offset=1)
    recs += [record("app-1", 9, 2, "Empty", T0 + 400_000, offset=4)]
    txn = facts(records=recs)["coordinator_txns"].iloc[0]
    assert (txn.ended_by, txn.cause, txn.duration_ms, txn.epoch_bump) == ("coordinator", "timeout", 70_000, 1)
    assert txn.recommended_timeout_ms == 140_000


def test_new_instance_fences_running_transaction():
    recs = [record("app-2", 9, 3, "Empty", T0, offset=0)]
    recs += _txn("app-2", 9, 3, T0 + 1000, end_state="CompleteAbort", prepare_epoch=4, dur=5_000, offset=1)
    recs += [record("app-2", 9, 5, "Empty", T0 + 6_200, offset=4)]
    txn = facts(records=recs)["coordinator_txns"].iloc[0]
    assert (txn.ended_by, txn.cause, txn.protocol) == ("coordinator", "new-instance", "unknown")
    assert txn.next_init_epoch == 5


def test_v2_client_abort_and_commit_are_client_decisions():
    recs = _txn("v2", 5, 3, T0, end_state="CompleteCommit", prepare_epoch=4, dur=50, offset=0, client_tv=2)
    recs += _txn("v2", 5, 4, T0 + 1000, end_state="CompleteAbort", prepare_epoch=5, dur=50, offset=3, client_tv=2)
    recs += _txn("v2", 5, 5, T0 + 2000, end_state="CompleteCommit", prepare_epoch=6, dur=50, offset=6, client_tv=2)
    txns = facts(records=recs)["coordinator_txns"]
    assert set(txns["protocol"]) == {"v2"}
    assert set(txns["ended_by"]) == {"client"}


def test_v2_detected_from_commit_epoch_without_tag():
    recs = _txn("v2b", 5, 3, T0, prepare_epoch=4, offset=0)
    assert facts(records=recs)["coordinator_txns"].iloc[0].protocol == "v2"


def test_stuck_ongoing_and_prepare():
    recs = [record("slow", 1, 0, "Ongoing", T0, offset=0, partitions="orders-1"),
            record("prep", 2, 0, "Ongoing", T0, offset=1, partitions="orders-2"),
            record("prep", 2, 0, "PrepareCommit", T0 + 10, offset=2, partitions="orders-2"),
            record("other", 3, 0, "Empty", T0 + 7_200_000, offset=3)]
    txns = facts(records=recs)["coordinator_txns"].set_index("transactional_id")
    assert bool(txns.loc["slow", "stuck"]) and txns.loc["slow", "last_state"] == "Ongoing"
    assert bool(txns.loc["prep", "stuck"]) and txns.loc["prep", "last_state"] == "PrepareCommit"


def test_expired_id_comes_back_with_new_producer_id():
    day = 86_400_000
    recs = _txn("nightly", 100, 0, T0, offset=0)
    recs += [record("nightly", 0, 0, "", T0 + 8 * day, offset=3, tombstone=True),
             record("nightly", 200, 0, "Empty", T0 + 9 * day, offset=4)]
    ids = facts(records=recs)["transactional_ids"].iloc[0]
    assert bool(ids.new_pid_after_idle) and ids.tombstones == 1 and ids.producer_ids == 2
    assert ids.max_idle_ms == 9 * day - 105  # last activity to the comeback, across the tombstone


def test_unstable_uuid_ids_form_a_family():
    recs = []
    for i in range(4):
        tid = f"orders-{uuid.UUID(int=i + 1)}"
        recs += [record(tid, 50 + i, 0, "Empty", T0 + i, offset=10 * i)]
        recs += _txn(tid, 50 + i, 0, T0 + 100 + i, offset=10 * i + 1)
    recs += [record("stable-0", 7, 3, "Empty", T0, offset=99)]
    ids = facts(records=recs)["transactional_ids"].set_index("transactional_id")
    uu = ids[ids["id_shape"] == "uuid"]
    assert len(uu) == 4 and uu["once_epoch0"].all() and (uu["family_once_epoch0"] == 4).all()
    assert ids.loc["stable-0", "id_shape"] == "numbered" and not ids.loc["stable-0", "once_epoch0"]


def test_invalid_transition_flagged_unless_compacted():
    recs = [record("x", 1, 0, "Ongoing", T0, offset=0), record("x", 1, 0, "CompleteCommit", T0 + 5, offset=1)]
    tr = facts(records=recs)["transitions"]
    assert list(tr["valid"]) == [False] and list(tr["compacted"]) == [False]
    recs = [record("x", 1, 0, "Ongoing", T0, offset=0), record("x", 1, 0, "CompleteCommit", T0 + 5, offset=9)]
    assert list(facts(records=recs)["transitions"]["compacted"]) == [True]


def test_data_spans_take_timeout_and_id_from_the_coordinator():
    recs = [record("pay", 31, 2, "Empty", T0, offset=0, timeout=10_000)]
    recs += _txn("pay", 31, 2, T0 + 1000, end_state="CompleteAbort", prepare_epoch=3, dur=12_000, offset=1, timeout=10_000,
                 parts="payments-0")
    data = [batch(0, 31, 2, seq=0, topic="payments", ts=T0 + 1000), batch(1, 31, 3, topic="payments", marker="ABORT", ts=T0 + 13_010)]
    t = facts(data, recs)
    span = t["spans"].iloc[0]
    assert (span.transactional_id, span.timeout_ms, span.timeout_source, bool(span.coordinator_seen)) == ("pay", 10_000, "coordinator", True)
    assert (span.ended_by, span.cause) == ("coordinator", "timeout")
    prepared = t["prepared_partitions"].iloc[0]
    assert bool(prepared.marker_seen)


def test_prepared_partition_without_marker():
    recs = _txn("lost", 8, 0, T0, offset=0, parts="orders-0,orders-1")
    data = [batch(0, 8, 0, seq=0, partition=0, ts=T0), batch(1, 8, 0, marker="COMMIT", partition=0, ts=T0 + 120),
            batch(0, 8, 0, seq=0, partition=1, ts=T0 + 1), batch(1, 99, 0, seq=0, partition=1, ts=T0 + 500_000)]
    pp = facts(data, recs)["prepared_partitions"].set_index("partition")
    assert bool(pp.loc[0, "marker_seen"]) and not bool(pp.loc[1, "marker_seen"])
    assert bool(pp.loc[1, "covered"]) and pp.loc[1, "first_offset"] == 0
