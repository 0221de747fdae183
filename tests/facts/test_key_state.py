"""The columns a batch stream carries per (partition, producer id): rows, tables, views, pickling."""

from __future__ import annotations

import pickle

import numpy as np

from kafkadiag.facts.key_state import KeyState, KeyTable


def _arrays(keys):
    return np.array([k[0] for k in keys], dtype=np.int64), np.array([k[1] for k in keys], dtype=np.int64)


def test_a_key_keeps_its_row_and_tables_hold_only_what_was_written() -> None:
    state = KeyState()
    first = state.rows(*_arrays([(0, 7), (1, 2**40), (0, 7)]))
    assert first.tolist() == [0, 1, 0] and state.size == 2
    again = state.rows(*_arrays([(1, 2**40), (3, 5)]))
    assert again.tolist() == [1, 2]
    state.put("carry", again[:1], ordinal=np.array([4]), epoch=np.array([9]), was_control=np.array([True]))
    assert state.has("carry", np.array([0, 1, 2])).tolist() == [False, True, False]
    assert not state.has("seq", np.array([0, 1])).any()  # a table never written holds nothing


def test_rows_grow_past_their_first_capacity() -> None:
    state = KeyState()
    keys = [(i % 7, i) for i in range(1000)]
    rows = state.rows(*_arrays(keys))
    state.put("first_tx", rows, was_control=np.zeros(1000, dtype=bool), epoch=np.arange(1000))
    more = state.rows(*_arrays([(0, 5000 + i) for i in range(300)]))
    assert more.tolist() == list(range(1000, 1300))
    assert state.column("first_tx", "epoch")[rows].tolist() == list(range(1000))


def test_the_record_view_reads_what_the_table_holds() -> None:
    state = KeyState()
    pairs = KeyTable(state, "first_tx", lambda ctrl, epoch: (bool(ctrl), int(epoch)))
    rows = state.rows(*_arrays([(2, 11), (5, 5)]))
    state.put("first_tx", rows[:1], was_control=np.array([True]), epoch=np.array([3]))
    assert pairs.records(rows) == [(True, 3), None]
    assert list(pairs.items()) == [((2, 11), (True, 3))]
    assert state.rows(*_arrays([(2, 11), (9, 9)]), make=False).tolist() == [0, -1] and state.size == 2


def test_one_partition_alone_and_a_pickled_copy_hold_the_same() -> None:
    state = KeyState()
    rows = state.rows(*_arrays([(0, 1), (4, 2), (4, 3)]))
    state.put("seq", rows, **{f: np.array([10, 20, 30]) for f in
                              ("epoch", "base_sequence", "last_sequence", "last_offset", "time", "file_id", "line", "byte")})
    alone = state.only(4)
    assert alone.size == 2 and alone.find((0, 2)) == 0 and alone.find((0, 3)) == 1 and alone.find((4, 2)) == -1
    assert alone.column("seq", "epoch")[:2].tolist() == [20, 30]
    copy = pickle.loads(pickle.dumps(state))
    assert copy.find((4, 3)) == 2 and copy.column("seq", "line")[2] == 30 and copy.has("seq", np.array([2]))[0]
    assert copy.rows(*_arrays([(7, 7)])).tolist() == [3]  # it grows like the original
