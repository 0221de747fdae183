"""Spans and their causes, built from hand-made batch rows of known protocol behaviour."""

from tests.facts.builders import T0, batch, facts


def test_seed_two_instances_is_fencing_by_new_instance():
    # Data at epoch 5, ABORT at 6 written by the coordinator, then the new instance at epoch 7.
    t = facts([
        batch(0, 0, 5, seq=0), batch(1, 0, 6, marker="ABORT"),
        batch(2, 0, 7, seq=0), batch(3, 0, 7, marker="COMMIT"),
    ], v2_possible=False)
    spans = t["spans"]
    first, second = spans.iloc[0], spans.iloc[1]
    assert (first.state, first.ended_by, first.cause, first.protocol) == ("aborted", "coordinator", "new-instance", "v1")
    assert (first.marker_epoch, first.next_epoch) == (6, 7)
    assert (second.state, second.ended_by) == ("committed", "producer")
    change = t["epoch_changes"].iloc[0]
    assert (change.from_epoch, change.producer_epoch, bool(change.explained_by_abort)) == (5, 7, True)


def test_protocol_v2_commit_at_bumped_epoch_is_not_fencing():
    rows = []
    off = 0
    for epoch in range(3):
        rows += [batch(off, 42, epoch, seq=0, ts=T0 + epoch * 1000), batch(off + 1, 42, epoch + 1, marker="COMMIT", ts=T0 + epoch * 1000 + 50)]
        off += 2
    rows += [batch(off, 42, 3, seq=0, ts=T0 + 5000), batch(off + 1, 42, 4, marker="ABORT", ts=T0 + 5050)]
    spans = facts(rows)["spans"]
    assert set(spans["protocol"]) == {"v2"}
    assert list(spans["state"]) == ["committed", "committed", "committed", "aborted"]
    assert set(spans["ended_by"]) == {"producer"}
    assert (spans["cause"] == "").all()


def test_timeout_abort_from_duration():
    rows = [batch(0, 7, 2, seq=0, ts=T0), batch(1, 7, 2, seq=1, ts=T0 + 20_000), batch(2, 7, 3, marker="ABORT", ts=T0 + 68_000)]
    s = facts(rows, v2_possible=False)["spans"].iloc[0]
    assert (s.ended_by, s.cause, s.duration_ms, s.timeout_source) == ("coordinator", "timeout", 68_000, "default")
    assert s.recommended_timeout_ms == 120_000


def test_open_span_age_and_hanging_vs_in_flight():
    rows = [
        batch(0, 1, 0, seq=0, ts=T0),  # never ends
        batch(1, 2, 0, seq=0, ts=T0 + 1_000), batch(2, 2, 0, marker="COMMIT", ts=T0 + 1_100),
        batch(3, 3, 0, seq=0, ts=T0 + 2_000_000),  # in flight at the end
        batch(4, 2, 0, seq=1, ts=T0 + 2_000_100), batch(5, 2, 0, marker="COMMIT", ts=T0 + 2_000_200),
    ]
    spans = facts(rows, v2_possible=False)["spans"].set_index("producer_id")
    assert spans.loc[1, "state"] == "open" and spans.loc[1, "age_ms"] == 2_000_200
    assert spans.loc[3, "state"] == "open" and spans.loc[3, "age_ms"] == 200


def test_expiry_resume_after_long_idle_then_abort():
    week = 604_800_000
    rows = [
        batch(2, 10041, 6, seq=0, count=2, ts=T0), batch(4, 10041, 6, marker="COMMIT", ts=T0 + 10),
        batch(2059, 10041, 9, seq=2, count=2, ts=T0 + week + 3_600_000), batch(2061, 10041, 9, marker="ABORT", ts=T0 + week + 3_600_050),
    ]
    spans = facts(rows, v2_possible=False)["spans"]
    last = spans.iloc[-1]
    assert last.state == "aborted" and last.idle_before_ms == week + 3_600_000 - 10
    assert last.recommended_expiration_ms == 777_600_000  # 9 days: 1.25 x the gap, rounded up to a day


def test_superseded_open_span_on_excerpted_partition_is_not_open():
    # The seed's expiry excerpt: epoch 6 data, an elided stretch (offset hole), then epoch 9 data and ABORT.
    rows = [batch(2, 10041, 6, seq=0, count=2, ts=T0), batch(2059, 10041, 9, seq=2, count=2, ts=T0 + 9 * 86_400_000),
            batch(2061, 10041, 9, marker="ABORT", ts=T0 + 9 * 86_400_000 + 40)]
    spans = facts(rows, v2_possible=False)["spans"]
    assert list(spans["state"]) == ["ended", "aborted"]


def test_sequence_gap_and_duplicate():
    rows = [batch(0, 5, 0, seq=0, count=2, tx=False), batch(2, 5, 0, seq=5, count=1, tx=False),
            batch(3, 5, 0, seq=3, count=2, tx=False)]
    seq = facts(rows)["sequence_anomalies"]
    assert list(seq["kind"]) == ["gap", "duplicate"]
    assert list(seq["missing"]) == [3, 2]  # 2,3,4 skipped; then 3 and 4 written again
    assert not seq["compacted"].any()


def test_sequence_wraps_at_int_max():
    rows = [batch(0, 5, 0, seq=2**31 - 2, count=2, tx=False), batch(2, 5, 0, seq=0, count=1, tx=False)]
    assert facts(rows)["sequence_anomalies"].empty


def test_unstable_producers_population():
    rows = []
    for i in range(6):
        rows += [batch(2 * i, 100 + i, 0, seq=0, ts=T0 + i * 30_000), batch(2 * i + 1, 100 + i, 0, marker="COMMIT", ts=T0 + i * 30_000 + 5)]
    tp = facts(rows, v2_possible=False)["topic_producers"].iloc[0]
    assert (tp.single_txn_epoch0, tp.multi_txn_producers, tp.reinitialised) == (6, 0, 0)
    assert tp.window_ms == 150_005


def test_a_newer_epoch_stamped_earlier_on_the_same_partition_is_clock_skew_not_a_zombie():
    # A new instance on a host whose clock is 3 ms behind: its epoch-18 batch follows the epoch-17
    # transaction on the partition (later offsets) but carries an earlier CreateTime. A broker never
    # takes an older epoch after a newer one on one partition, so nothing here is a zombie write.
    rows = [
        batch(42, 77, 17, seq=4086, count=4, ts=T0 + 38), batch(58, 77, 17, marker="COMMIT", ts=T0 + 40),
        batch(78, 77, 18, seq=0, count=3, ts=T0 + 35), batch(81, 77, 18, marker="COMMIT", ts=T0 + 45),
    ]
    spans = facts(rows, v2_possible=False)["spans"]
    assert not spans["zombie"].any()


def test_an_old_epoch_written_to_another_partition_after_a_newer_one_is_a_zombie():
    # The new instance (epoch 8) writes orders-0; later the fenced one (epoch 7) still writes orders-1,
    # which had not seen epoch 8: the broker of orders-1 accepts it.
    rows = [
        batch(0, 77, 8, partition=0, seq=0, ts=T0 + 1_000), batch(1, 77, 8, partition=0, marker="COMMIT", ts=T0 + 1_100),
        batch(0, 77, 7, partition=1, seq=40, ts=T0 + 2_000), batch(1, 77, 7, partition=1, marker="COMMIT", ts=T0 + 2_100),
    ]
    spans = facts(rows, v2_possible=False)["spans"].set_index("partition")
    assert bool(spans.loc[1, "zombie"]) and not bool(spans.loc[0, "zombie"])
