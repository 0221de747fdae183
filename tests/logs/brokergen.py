"""Generate a broker ``server.log`` for speed measurements, with the count of Kafka events in it.

The lines have the shapes of the real broker logs in ``fixtures/real`` (log4j's
``[%d] %p %m (%c)%n``, a ``[Component id=N]`` prefix on the message): mostly routine lines a
busy broker writes (segment rolls and deletions, fetcher truncations, controller elections),
some from the group and transaction coordinators and the producer state manager, and now and
then an ERROR whose next line is the exception (Kafka's API exceptions carry no stack frames) or
a WARN with a stack trace. Which lines are events follows what a broker line means: a problem
(WARN, ERROR), the transaction and group machinery, or a line naming producers; routine lines
are not. ``python tests/logs/brokergen.py 100 /tmp/server.log`` writes a 100 MB file.
"""

from __future__ import annotations

import random
import sys
from typing import TextIO

_DATA = "/var/lib/kafka/data"
#: (weight, is an event, level, logger, message) - {names} are filled per line.
_LINES = (
    (30, False, "INFO", "kafka.log.UnifiedLog",
     "[UnifiedLog partition={topic}-{p}, dir=" + _DATA + "] Rolled new log segment at offset {offset} in {ms} ms."),
    (20, False, "INFO", "kafka.log.LocalLog$",
     "[LocalLog partition={topic}-{p}, dir=" + _DATA + "] Deleting segment files LogSegment(baseOffset={offset}, "
     "size={size}, lastModifiedTime={epoch_ms}, largestRecordTimestamp=Some({epoch_ms}))"),
    (15, False, "INFO", "kafka.server.ReplicaFetcherThread",
     "[ReplicaFetcher replicaId={broker}, leaderId={leader}, fetcherId=0] Truncating partition {topic}-{p} with "
     "TruncationState(offset={offset}, completed=true) due to leader epoch and offset "
     "EpochEndOffset(errorCode=0, partition={p}, leaderEpoch={epoch}, endOffset={offset})"),
    (8, False, "INFO", "kafka.controller.KafkaController",
     "[Controller id={broker}] Processing automatic preferred replica leader election"),
    (8, True, "INFO", "kafka.log.ProducerStateManager",
     "[ProducerStateManager partition={topic}-{p}] Wrote producer snapshot at offset {offset} with {n} producer ids "
     "in {ms} ms."),
    (6, True, "INFO", "kafka.coordinator.group.GroupCoordinator",
     "[GroupCoordinator {broker}]: Stabilized group {group} generation {gen} (__consumer_offsets-{cp}) with {n} members"),
    (1, True, "INFO", "kafka.coordinator.transaction.TransactionCoordinator",
     "[TransactionCoordinator id={broker}] Initialized transactionalId {txn} with producerId {txn_pid} and producer "
     "epoch {txn_epoch} on partition __transaction_state-{tp}"),
    (0.5, True, "INFO", "kafka.coordinator.transaction.TransactionCoordinator",
     "[TransactionCoordinator id={broker}] Completed rollback of ongoing transaction for transactionalId {txn} due "
     "to timeout"),
    (0.5, True, "INFO", "kafka.coordinator.transaction.TransactionStateManager",
     "[Transaction State Manager {broker}]: Loading transaction metadata from __transaction_state-{tp} at epoch "
     "{epoch}"),
    (0.5, True, "ERROR", "kafka.server.ReplicaManager",
     "[ReplicaManager broker={broker}] Error processing append operation on partition {topic}-{p}\n"
     "org.apache.kafka.common.errors.OutOfOrderSequenceException: Out of order sequence number for producer {pid} "
     "at offset {offset} in partition {topic}-{p}: {seq} (incoming seq. number), {seq0} (current end sequence number)"),
    (0.5, True, "ERROR", "kafka.server.ReplicaManager",
     "[ReplicaManager broker={broker}] Error processing append operation on partition __transaction_state-{tp}\n"
     "org.apache.kafka.common.errors.NotEnoughReplicasException: The size of the current ISR Set({broker}) is "
     "insufficient to satisfy the min.isr requirement of 2 for partition __transaction_state-{tp}"),
    (0.5, True, "WARN", "kafka.server.ReplicaFetcherThread",
     "[ReplicaFetcher replicaId={broker}, leaderId={leader}, fetcherId=0] Error in response for fetch request "
     "(type=FetchRequest, replicaId={broker}, maxWait=500, minBytes=1, maxBytes=10485760)\n"
     "java.io.IOException: Connection to {leader} was disconnected before the response was read\n"
     "\tat org.apache.kafka.clients.NetworkClientUtils.sendAndReceive(NetworkClientUtils.java:99)\n"
     "\tat kafka.server.BrokerBlockingSender.sendRequest(BrokerBlockingSender.scala:113)\n"
     "\tat kafka.server.RemoteLeaderEndPoint.fetch(RemoteLeaderEndPoint.scala:79)\n"
     "\tat kafka.server.AbstractFetcherThread.processFetchRequest(AbstractFetcherThread.scala:316)\n"
     "\tat kafka.server.AbstractFetcherThread.$anonfun$maybeFetch$3(AbstractFetcherThread.scala:130)\n"
     "\tat kafka.server.AbstractFetcherThread.maybeFetch(AbstractFetcherThread.scala:129)\n"
     "\tat kafka.server.AbstractFetcherThread.doWork(AbstractFetcherThread.scala:112)\n"
     "\tat kafka.utils.ShutdownableThread.run(ShutdownableThread.scala:98)"),
)
_TOPICS = ("orders", "payments", "audit-events", "inventory", "clicks")
_GROUPS = ("payments", "orders-sink", "fraud-check")
_WEIGHTS = [w for w, *_ in _LINES]
_TXN_IDS = 2000


def write_broker_log(out: TextIO, megabytes: float, seed: int = 7, counts: dict[str, int] | None = None) -> int:
    """Write about ``megabytes`` MB of broker log to ``out``; return the characters written.

    ``counts`` receives ``events`` (the lines that are Kafka events) and ``lines`` (log events written).
    """
    rnd = random.Random(seed)
    target = int(megabytes * (1 << 20))
    size = events = written = 0
    ms = 0
    epoch_ms = 1_709_546_400_000  # 2024-03-04 10:00:00 UTC
    chosen = rnd.choices(range(len(_LINES)), weights=_WEIGHTS, k=4096)
    epochs = [0] * _TXN_IDS  # each initialisation of an id bumps its epoch; its producer id stays
    while size < target:
        ms += rnd.randint(1, 40)
        hour, minute, second, milli = 10 + ms // 3_600_000 % 14, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000
        _weight, is_event, level, logger, message = _LINES[chosen[written % len(chosen)]]
        txn = rnd.randrange(_TXN_IDS)
        if "{txn_epoch}" in message:
            epochs[txn] += 1
        text = message.format(
            txn=f"tx-{txn}", txn_pid=4000 + txn, txn_epoch=epochs[txn],
            topic=rnd.choice(_TOPICS), p=rnd.randint(0, 23), offset=rnd.randint(0, 9_999_999), ms=rnd.randint(0, 40),
            size=rnd.randint(1000, 1 << 30), epoch_ms=epoch_ms + ms, broker=rnd.randint(1, 3), leader=rnd.randint(1, 3),
            epoch=rnd.randint(0, 60), n=rnd.randint(1, 12), group=rnd.choice(_GROUPS), gen=rnd.randint(1, 400),
            cp=rnd.randint(0, 49), pid=rnd.randint(1000, 99999), tp=txn % 50,
            seq=rnd.randint(5, 9999), seq0=rnd.randint(0, 4),
        )
        head, newline, rest = text.partition("\n")
        line = f"[2024-03-04 {hour:02d}:{minute:02d}:{second:02d},{milli:03d}] {level} {head} ({logger})\n"
        if newline:
            line += rest + "\n"
        out.write(line)
        size += len(line)
        written += 1
        events += is_event
    if counts is not None:
        counts.update(events=events, lines=written)
    return size


if __name__ == "__main__":
    with open(sys.argv[2], "w") as f:
        write_broker_log(f, float(sys.argv[1]))
