"""The coordinator facts computed over whole columns keep the walk's meaning at id boundaries,
clock steps and tombstones (``facts.coordinator_columns``)."""

from tests.facts.builders import T0, facts, record

DAY = 86_400_000


def _ids(recs: list[dict]):
    return facts(records=recs)["transactional_ids"].set_index("transactional_id")


def test_no_transition_or_idle_gap_spans_two_ids() -> None:
    recs = [record("a", 1, 0, "Empty", T0, offset=0),
            record("b", 2, 0, "Ongoing", T0 + 5 * DAY, offset=1)]
    out = facts(records=recs)
    assert out["transitions"].empty
    ids = out["transactional_ids"].set_index("transactional_id")
    assert list(ids["max_idle_ms"]) == [-1, -1] and not ids["new_pid_after_idle"].any()
    assert list(ids["pid_switches"]) == [0, 0]


def test_longest_idle_ends_at_its_first_occurrence_and_ignores_clock_steps_back() -> None:
    recs = [record("x", 1, 0, "Empty", T0, offset=0),
            record("x", 1, 0, "Empty", T0 + 1_000, offset=1),  # idle 1 s
            record("x", 1, 0, "Empty", T0 - 50_000, offset=2),  # clock stepped back: no gap
            record("x", 1, 0, "Empty", T0 - 49_000, offset=3)]  # idle 1 s again: not the end
    ids = _ids(recs)
    assert ids.loc["x", "max_idle_ms"] == 1_000 and ids.loc["x", "idle_end_time"] == T0 + 1_000


def test_idle_runs_only_from_a_record_at_rest() -> None:
    recs = [record("x", 1, 0, "Ongoing", T0, offset=0, partitions="t-0"),
            record("x", 1, 0, "PrepareCommit", T0 + 3 * DAY, offset=1),
            record("x", 1, 0, "CompleteCommit", T0 + 3 * DAY + 5, offset=2),
            record("x", 1, 1, "Empty", T0 + 4 * DAY + 5, offset=3)]
    assert _ids(recs).loc["x", "max_idle_ms"] == DAY  # not the 3 days the transaction ran


def test_a_new_producer_after_a_short_idle_counts_only_across_a_tombstone() -> None:
    short = [record("x", 1, 0, "Empty", T0, offset=0), record("x", 2, 0, "Empty", T0 + 10, offset=1)]
    assert not _ids(short).loc["x", "new_pid_after_idle"]
    expired = [record("x", 1, 0, "Empty", T0, offset=0), record("x", 0, 0, "", T0 + 5, offset=1, tombstone=True),
               record("x", 2, 0, "Empty", T0 + 10, offset=2)]
    ids = _ids(expired)
    assert ids.loc["x", "new_pid_after_idle"] and ids.loc["x", "max_idle_ms"] == 10
    assert ids.loc["x", "pid_switches"] == 0  # a tombstone's successor is a new start, not a switch


def test_first_epoch_is_the_first_known_and_switches_count_live_changes() -> None:
    recs = [record("x", 1, -1, "Empty", T0, offset=0), record("x", 1, 4, "Empty", T0 + 1, offset=1),
            record("x", 2, 6, "Empty", T0 + 2, offset=2), record("x", 2, 7, "Empty", T0 + 3, offset=3)]
    ids = _ids(recs)
    assert (ids.loc["x", "first_epoch"], ids.loc["x", "max_epoch"]) == (4, 7)
    assert (ids.loc["x", "producer_ids"], ids.loc["x", "pid_switches"], ids.loc["x", "inits"]) == (2, 1, 4)
    assert (ids.loc["x", "producer_id"], ids.loc["x", "producer_epoch"]) == (2, 7)


def test_an_id_of_tombstones_only_has_no_epoch_and_ends_at_its_last_record() -> None:
    recs = [record("gone", 0, 0, "", T0, offset=0, tombstone=True), record("gone", 0, 0, "", T0 + 9, offset=1, tombstone=True)]
    ids = _ids(recs)
    assert (ids.loc["gone", "first_epoch"], ids.loc["gone", "max_epoch"], ids.loc["gone", "tombstones"]) == (-1, -1, 2)
    assert not ids.loc["gone", "once_epoch0"] and ids.loc["gone", "last_state"] == ""
    assert facts(records=recs)["transitions"]["valid"].tolist() == [False]
