"""A large `__transaction_state` dump: many transactional ids, each through a few transactions.

For the benchmark matrix (100k ids and more): ids are spread over the 50 partitions as Kafka
spreads them (``Utils.abs(hash) % 50``), each partition is built and written on its own, so only
one partition's batches are in memory at a time. Every id registers (``Empty``), then goes
through 1–3 transactions (``Ongoing`` → ``PrepareCommit|PrepareAbort`` →
``CompleteCommit|CompleteAbort``) that all complete: nothing hangs, and the summary counts what
was written (records, ids, commits, aborts).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from .eras import get_era
from .log import TxnLogPartition
from .model import TxnLogValue
from .render import RenderOptions, render_txn_log
from .util import txn_partition

TXN_TOPIC = "__transaction_state"
PARTITIONS = 50


def generate_txn_state(path: str | Path, ids: int, era: str = "3.3", seed: int = 1, topic: str = "orders") -> dict:
    """Write the `--transaction-log-decoder` dump of ``ids`` transactional ids to ``path``; return its summary."""
    the_era = get_era(era)
    rng = random.Random(seed)
    started = time.perf_counter()
    names = [f"orders-processor-{i}" for i in range(ids)]
    by_partition: dict[int, list[int]] = {}
    for i, name in enumerate(names):
        by_partition.setdefault(txn_partition(name, PARTITIONS), []).append(i)
    stats = {"coordinator_records": 0, "commits": 0, "aborts": 0}
    opts = RenderOptions()
    with open(path, "w", encoding="utf-8") as out:
        for partition in range(PARTITIONS):
            log = TxnLogPartition(TXN_TOPIC, partition, leader_epoch=rng.randrange(0, 10))
            now = the_era.start_ms + rng.randrange(0, 3_600_000)
            for i in by_partition.get(partition, []):
                name, pid, epoch = names[i], 10_000 + i, rng.randrange(0, 5)
                now += rng.randrange(1, 50)
                _state(log, name, TxnLogValue(pid, epoch, 60_000, "Empty", None, now, -1), now, stats)
                for _ in range(rng.randrange(1, 4)):
                    start = now = now + rng.randrange(1, 200)
                    parts = (((topic, (rng.randrange(0, 12),)),))
                    _state(log, name, TxnLogValue(pid, epoch, 60_000, "Ongoing", parts, now, start), now, stats)
                    commit = rng.random() >= 0.1
                    now += rng.randrange(5, 3000)
                    prepare = "PrepareCommit" if commit else "PrepareAbort"
                    _state(log, name, TxnLogValue(pid, epoch, 60_000, prepare, parts, now, start), now, stats)
                    now += rng.randrange(1, 20)
                    complete = "CompleteCommit" if commit else "CompleteAbort"
                    _state(log, name, TxnLogValue(pid, epoch, 60_000, complete, (), now, start), now, stats)
                    stats["commits" if commit else "aborts"] += 1
            text, _stderr, _crash = render_txn_log(the_era, log, opts)
            out.write(text)
    elapsed = time.perf_counter() - started
    size = Path(path).stat().st_size
    summary = {"format": "kafkadiag-sim-txnbulk/1", "era": the_era.name, "seed": seed, "transactional_ids": ids,
               "bytes": size, "seconds": round(elapsed, 3), **stats}
    Path(str(path) + ".expected.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def _state(log: TxnLogPartition, name: str, value: TxnLogValue, now: int, stats: dict) -> None:
    log.append_states([(name, value, value.size())], now)
    stats["coordinator_records"] += 1
