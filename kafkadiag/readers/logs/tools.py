"""Tables printed by ``kafka-transactions.sh``, ``kafka-consumer-groups.sh`` and Redpanda's
``rpk cluster txn``, as people paste them.

The tools print a header row and padded rows (``kafka-transactions.sh`` ends every cell with a
tab, the others pad with spaces); pasting usually turns tabs into spaces, so rows are split on
whitespace and matched to the header by position. ``rpk cluster txn list|describe`` answers the
same admin requests (ListTransactions, DescribeTransactions) under upper-case hyphenated headers;
its columns are read under the names ``kafka-transactions.sh`` gives them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Header columns -> (library, subcommand) for each table the tools print.
_TABLES: dict[tuple[str, ...], tuple[str, str]] = {
    ("TransactionalId", "Coordinator", "ProducerId", "TransactionState"): ("kafka-transactions", "list"),
    (
        "CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs",
        "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions",
    ): ("kafka-transactions", "describe"),
    (
        "ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp",
        "CurrentTransactionStartOffset",
    ): ("kafka-transactions", "describe-producers"),
    (
        "Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch", "StartOffset", "LastTimestamp",
        "Duration(min)",
    ): ("kafka-transactions", "find-hanging"),
}
#: Columns a table must have, and may have, to be recognised whatever the tool's version prints
#: (``find-hanging`` printed ``Duration(s)`` and no ``CoordinatorEpoch`` before it printed minutes).
_VARIANTS: tuple[tuple[frozenset[str], frozenset[str], tuple[str, str]], ...] = (
    (frozenset({"Topic", "Partition", "ProducerId", "StartOffset"}),
     frozenset({"ProducerEpoch", "CoordinatorEpoch", "LastTimestamp", "Duration(min)", "Duration(s)", "Duration(ms)"}),
     ("kafka-transactions", "find-hanging")),
    (frozenset({"TransactionalId", "ProducerId", "TransactionState"}),
     frozenset({"CoordinatorId", "Coordinator", "ProducerEpoch", "TransactionTimeoutMs", "CurrentTransactionStartTimeMs",
                "TransactionDurationMs", "TopicPartitions"}),
     ("kafka-transactions", "describe")),
)


def _by_columns(cells: tuple[str, ...]) -> tuple[str, str] | None:
    names = set(cells)
    for core, extra, known in _VARIANTS:
        if core <= names and names <= core | extra:
            if known[1] == "describe" and "TransactionTimeoutMs" not in names and "TopicPartitions" not in names:
                return ("kafka-transactions", "list")
            return known
    return None


#: ``rpk cluster txn list|describe`` header cells -> the ``kafka-transactions.sh`` column they hold.
_RPK_TXN_COLUMNS = {
    "COORDINATOR": "Coordinator", "TRANSACTIONAL-ID": "TransactionalId", "PRODUCER-ID": "ProducerId",
    "PRODUCER-EPOCH": "ProducerEpoch", "STATE": "TransactionState", "START-TIMESTAMP": "StartTimestamp",
    "TIMEOUT": "Timeout", "TOPICS": "TopicPartitions", "TOPIC": "Topic", "PARTITION": "Partition",
}


def _rpk_txn(cells: tuple[str, ...]) -> Table | None:
    """An ``rpk cluster txn list`` or ``describe`` header, its columns renamed."""
    if "TRANSACTIONAL-ID" not in cells or "PRODUCER-ID" not in cells or not all(c in _RPK_TXN_COLUMNS for c in cells):
        return None
    command = "describe" if "PRODUCER-EPOCH" in cells else "list"
    return Table("rpk", command, tuple(_RPK_TXN_COLUMNS[c] for c in cells))


_GROUP_COLUMNS = frozenset({"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
                            "HOST", "CLIENT-ID", "COORDINATOR(ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS",
                            "#PARTITIONS", "ASSIGNMENT", "LEADER-EPOCH", "OWNER"})
_MISSING = frozenset({"-", "None", "unknown", "null", ""})


@dataclass(frozen=True)
class Table:
    """A recognised header: which tool printed it and its column names."""

    library: str
    command: str
    columns: tuple[str, ...]


def tool_header(text: str) -> Table | None:
    """The table a header line starts, or None."""
    if not text or not text[0].isalpha():
        return None
    cells = tuple(text.replace("COORDINATOR (ID)", "COORDINATOR(ID)").split())
    if len(cells) < 3:
        return None
    known = _TABLES.get(cells) or _by_columns(cells)
    if known is not None:
        return Table(known[0], known[1], cells)
    rpk = _rpk_txn(cells)
    if rpk is not None:
        return rpk
    if "GROUP" in cells or "TOPIC" in cells:
        if all(c in _GROUP_COLUMNS for c in cells) and ("CURRENT-OFFSET" in cells or "CONSUMER-ID" in cells or "STATE" in cells):
            return Table("kafka-consumer-groups", "describe", cells)
    return None


def parse_row(table: Table, text: str) -> dict[str, str] | None:
    """Cells of a row under ``table`` by column name (missing values dropped); None if not a row."""
    stripped = text.strip()
    if not stripped or tool_header(stripped) is not None:
        return None
    cells = stripped.split("\t") if "\t" in stripped else stripped.split()
    cells = [c.strip() for c in cells if c.strip()] if "\t" in stripped else cells
    if len(cells) != len(table.columns):
        if len(cells) == len(table.columns) - 1 and table.command == "describe" and table.columns[-1] == "TopicPartitions":
            cells.append("")  # a transaction with no partitions prints an empty last cell
        else:
            return None
    return {col: cell for col, cell in zip(table.columns, cells) if cell not in _MISSING}


_TP = re.compile(r"(?P<t>.+)-(?P<p>\d+)$")

#: Messages the tools print instead of (or next to) a table: (pattern, library, subcommand).
_TOOL_MESSAGES = (
    (re.compile(r"(?:Error: )?Consumer group '[^']+' (?:has no active members|is rebalancing|does not exist)"),
     "kafka-consumer-groups", "describe"),
    (re.compile(r"Failed to (?:describe|list|abort|validate) .*Enable debug logging for additional detail"),
     "kafka-transactions", ""),
    (re.compile(r"Could not find any open transactions starting at offset \d+ on partition "),
     "kafka-transactions", "abort"),
)


def tool_message(text: str) -> tuple[str, str] | None:
    """``(library, subcommand)`` of a message one of the tools prints, or None."""
    for pattern, library, command in _TOOL_MESSAGES:
        if pattern.match(text):
            return library, command
    return None


def row_fields(table: Table, row: dict[str, str]) -> dict[str, object]:
    """LOG_EVENTS column values of one row (names as in the schema)."""
    out: dict[str, object] = {}

    def num(col: str) -> int:
        try:
            return int(row[col])
        except (KeyError, ValueError):
            return -1

    if table.library == "kafka-consumer-groups":
        out["group_id"] = row.get("GROUP", "")
        out["topic"] = row.get("TOPIC", "")
        out["partition"] = num("PARTITION")
        out["client_id"] = row.get("CLIENT-ID", "")
        out["current_offset"] = num("CURRENT-OFFSET")
        out["log_end_offset"] = num("LOG-END-OFFSET")
        out["lag"] = num("LAG")
        out["txn_state"] = ""
        return out
    out["transactional_id"] = row.get("TransactionalId", "")
    out["producer_id"] = num("ProducerId")
    out["producer_epoch"] = num("ProducerEpoch")
    out["coordinator_id"] = num("CoordinatorId") if "CoordinatorId" in row else num("Coordinator")
    out["txn_state"] = row.get("TransactionState", "")
    out["timeout_ms"] = num("TransactionTimeoutMs") if "Timeout" not in row else _go_duration_ms(row["Timeout"])
    if table.library == "rpk":
        out["time"] = _iso_ms(row.get("StartTimestamp", ""))  # when the transaction started; rpk prints no duration
        out["topic"] = row.get("Topic", "") or row.get("TopicPartitions", "").split(",")[0].split("[")[0]
        out["partition"] = num("Partition")
    elif table.command == "describe":
        start, duration = num("CurrentTransactionStartTimeMs"), num("TransactionDurationMs")
        out["duration_ms"] = duration
        out["time"] = start + duration if start >= 0 and duration >= 0 else -1  # when the tool ran
        first = row.get("TopicPartitions", "").split(",")[0]
        m = _TP.match(first)
        if m:
            out["topic"], out["partition"] = m["t"], int(m["p"])
    elif table.command == "describe-producers":
        out["start_offset"] = num("CurrentTransactionStartOffset")
        out["time"] = num("LastTimestamp")
    elif table.command == "find-hanging":
        out["topic"] = row.get("Topic", "")
        out["partition"] = num("Partition")
        out["start_offset"] = num("StartOffset")
        out["time"] = num("LastTimestamp") if row.get("LastTimestamp", "").isdigit() else _iso_ms(row.get("LastTimestamp", ""))
        for col, unit in (("Duration(min)", 60_000), ("Duration(s)", 1000), ("Duration(ms)", 1)):
            if col in row:
                value = num(col)
                out["duration_ms"] = value * unit if value >= 0 else -1
    return out


_GO_DURATION = re.compile(r"(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?")


def _go_duration_ms(text: str) -> int:
    """Milliseconds of a Go duration as rpk prints one (``1m0s``, ``15m0s``, ``500ms``), -1 if it is not one."""
    m = _GO_DURATION.fullmatch(text)
    if not text or m is None or not any(m.groups()):
        return -1
    h, mins, secs, ms = m.groups()
    return int(h or 0) * 3_600_000 + int(mins or 0) * 60_000 + round(float(secs or 0) * 1000) + int(ms or 0)


def _iso_ms(text: str) -> int:
    """Epoch milliseconds of an ISO-8601 instant (``2022-06-06T03:16:47Z``), -1 if it is not one."""
    from datetime import datetime, timezone

    try:
        instant = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return -1
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=timezone.utc)  # the tool prints UTC
    return int(instant.timestamp() * 1000)
