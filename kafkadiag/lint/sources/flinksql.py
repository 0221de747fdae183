"""Flink SQL: each Kafka table of a DDL file (or of SQL in a job's code) is one Flink sink or source config."""

from __future__ import annotations

from ..model import ConfigFile, Entry
from .base import derive


def read_flink_sql(cfg: ConfigFile) -> list[ConfigFile] | None:
    """One ``flink`` config per Kafka table, or None when the file is not Flink SQL DDL."""
    if cfg.fmt != "sql":
        return None
    tables: dict[str, list[Entry]] = {}
    for entry in cfg.entries:
        tables.setdefault(entry.section, []).append(entry)
    return [derive(cfg, "flink", entries, f"Flink SQL table {name}" if name else "Flink SQL table")
            for name, entries in tables.items()]
