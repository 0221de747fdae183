"""Two streams joined with ``BatchStream.merge`` hold what one stream reading everything holds.

A random mix of transactional producers (commits, aborts, epoch bumps, open transactions) and
idempotent producers (sequence gaps, resets, single duplicate batches) on two partitions is cut
at every position and fed in random chunk sizes; spans, sequence breaks, partition statistics
and the carried state must equal the single stream's.
"""

from __future__ import annotations

import random

import pandas as pd
import pytest

from tests.facts.builders import T0, batch
from kafkadiag.facts.batch_stream import BatchStream
from kafkadiag.tables import BATCHES

pytestmark = pytest.mark.slow  # a join at every batch of a stream


def _traffic(seed: int) -> list[dict]:
    rnd = random.Random(seed)
    rows: list[dict] = []
    offsets = {0: 0, 1: 0}
    epochs = {100 + i: 0 for i in range(4)}
    sequences = {(part, 200 + i): 0 for part in (0, 1) for i in range(3)}
    last_batch: dict[tuple[int, int], dict] = {}
    duplicated: set[tuple[int, int]] = set()  # no duplicate right after a duplicate (see merge's docstring)
    t = T0
    for _ in range(160):
        part = rnd.choice((0, 1))
        t += rnd.randint(1, 500)
        if rnd.random() < 0.6:
            pid = rnd.choice(list(epochs))
            if rnd.random() < 0.1:
                epochs[pid] += rnd.choice((1, 2))
            for _ in range(rnd.randint(1, 3)):
                rows.append(batch(offsets[part], pid, epochs[pid], partition=part, ts=t, count=rnd.randint(1, 4)))
                offsets[part] = rows[-1]["last_offset"] + 1
            if rnd.random() < 0.85:
                marker = rnd.choice(("COMMIT", "COMMIT", "ABORT"))
                bump = 1 if marker == "ABORT" and rnd.random() < 0.3 else 0
                rows.append(batch(offsets[part], pid, epochs[pid] + bump, partition=part, ts=t + 1, marker=marker))
                offsets[part] += 1
                epochs[pid] += bump
        else:
            pid = rnd.choice((200, 201, 202))
            key = (part, pid)
            roll = rnd.random()
            if roll < 0.1 and key in last_batch and key not in duplicated:  # a duplicate of the previous batch
                duplicated.add(key)
                row = dict(last_batch[key], base_offset=offsets[part], last_offset=offsets[part], timestamp=t)
            else:
                duplicated.discard(key)
                if roll < 0.17:
                    sequences[key] += rnd.randint(1, 5)  # a gap
                elif roll < 0.2:
                    sequences[key] = 0  # a reset
                count = rnd.randint(1, 4)
                row = batch(offsets[part], pid, 0, partition=part, ts=t, seq=sequences[key], count=count, tx=False)
                sequences[key] += count
            rows.append(row)
            offsets[part] = row["last_offset"] + 1
            last_batch[key] = row
    # Lines and bytes as in one file holding both partitions' batches in this order.
    return [dict(r, line=i + 1, byte=i * 100) for i, r in enumerate(rows)]


def _frame(rows: list[dict], line_shift: int = 0) -> pd.DataFrame:
    data = {k: [r.get(k, -1) for r in rows] for k in BatchStream.COLUMNS}
    data["line"] = [r["line"] - line_shift for r in rows]
    data["marker_line"] = [r["line"] - line_shift if r["marker"] else -1 for r in rows]
    data["marker_byte"] = [r["byte"] if r["marker"] else -1 for r in rows]
    return BATCHES.frame(data, columns=BatchStream.COLUMNS)


def _feed(stream: BatchStream, rows: list[dict], rnd: random.Random, line_shift: int = 0) -> None:
    i = 0
    while i < len(rows):
        n = rnd.randint(1, 40)
        stream.add(_frame(rows[i : i + n], line_shift))
        i += n


def _state(stream: BatchStream) -> tuple:
    spans, sequences = stream.finish()
    keyed = spans.assign(tp=[stream.tp_keys[t] for t in spans["tp"]]).drop(columns=["chunk"])
    keyed = keyed.sort_values(["tp", "producer_id", "ordinal"]).reset_index(drop=True)
    if not sequences.empty:
        sequences = sequences.assign(tp=[stream.tp_keys[t] for t in sequences["tp"]])
    parts = {(p.topic, p.partition): (p.batches, p.holes, p.first_time, p.last_time, p.last_offset) for p in stream.partitions.values()}
    carries = {(stream.tp_keys[tp], pid): (c.ordinal, c.epoch, c.was_control) for (tp, pid), c in stream._carry.items()}
    seq_carries = {(stream.tp_keys[tp], pid): (c.epoch, c.last_sequence, c.line) for (tp, pid), c in stream._seq_carry.items()}
    return keyed, sequences.reset_index(drop=True), parts, carries, seq_carries


@pytest.mark.parametrize("seed", range(3))
def test_a_join_at_any_batch_equals_one_stream(seed: int) -> None:
    rows = _traffic(seed)
    whole = BatchStream()
    _feed(whole, rows, random.Random(seed))
    expected = _state(whole)
    assert len(expected[1]) > 0 and len(expected[0]) > 30
    for cut in range(1, len(rows), 3):
        rnd = random.Random(cut)
        first, later = BatchStream(), BatchStream(joinable=True)
        _feed(first, rows[:cut], rnd)
        shift = rows[cut]["line"] - 1  # the later range counts lines from its own start
        _feed(later, rows[cut:], rnd, line_shift=shift)
        first.merge(later, line_offset=shift)
        got = _state(first)
        assert got[0].equals(expected[0]), cut
        assert got[1].equals(expected[1]), cut
        assert got[2:] == expected[2:], cut
