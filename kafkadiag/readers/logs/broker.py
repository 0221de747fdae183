"""Broker log lines: the component prefix every broker class logs with, and which lines matter.

A broker writes every line as ``[Component id=N] message`` (``[TransactionCoordinator id=1]``,
``[Transaction State Manager 1]:``, ``[ReplicaManager broker=1]``, ``[ProducerStateManager
partition=t-0]``); the id is the broker's, which for coordinator components is the coordinator.
Most broker lines are routine (segment rolls, fetcher restarts); only the transaction
machinery's lines, warnings, errors and lines naming transactional ids or producers are events.
"""

from __future__ import annotations

import re

from kafkadiag.readers.logs.fields import Fields, read_pairs

_COMPONENT = re.compile(
    r"\[(?P<name>[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)(?:(?: id=| broker=| nodeId=|-| )(?P<id>\d+)(?=[\],\s]))?(?P<rest>[^\]]*)\]:?\s+"
)
_REST_ID = re.compile(r"(?:id|broker|nodeId|brokerId)=(?P<id>\d+)")
#: Broker components whose every line matters for transactions.
TXN_COMPONENTS = frozenset({
    "TransactionCoordinator", "TransactionStateManager", "TransactionMarkerChannelManager",
    "TransactionMarkerRequestCompletionHandler", "TxnMarkerSenderThread", "TransactionLog", "ProducerStateManager",
    "ProducerIdManager", "RPCProducerIdManager", "ZkProducerIdManager", "ProducerIdControlManager", "GroupCoordinator",
    "GroupMetadataManager", "GroupCoordinatorService", "TransactionMarkerChannel",
})
#: Words that make a routine component's line worth keeping.
_BROKER_WORDS = ("ransaction", "roducer", "PID", "enced", "txn", "Txn")


def strip_component(message: str, fields: Fields) -> tuple[str, str]:
    """Read and drop a broker log prefix (``[TransactionCoordinator id=1] ``, ``[ReplicaManager broker=1] ``)."""
    m = _COMPONENT.match(message)
    if not m:
        return message, ""
    name = m["name"].replace(" ", "")
    rest = m["rest"] or ""
    if m["id"]:
        fields.coordinator_id = int(m["id"])
    elif rest:
        idm = _REST_ID.search(rest)
        if idm:
            fields.coordinator_id = int(idm["id"])
    if rest:
        read_pairs(rest, fields)
        first = rest.strip().split(" ")[0].rstrip(",")
        if name == "Partition" and "-" in first:
            read_pairs("partition=" + first, fields)
    return message[m.end():], name


def relevant(level: str, logger: str, component: str, message: str, errors: list[str]) -> bool:
    """A broker line worth an event: a problem, the transaction machinery, or one naming producers."""
    if level in ("WARN", "ERROR", "FATAL") or errors:
        return True
    simple = logger.rsplit(".", 1)[-1] if logger else ""
    if component in TXN_COMPONENTS or simple in TXN_COMPONENTS:
        return True
    return any(w in message for w in _BROKER_WORDS)
