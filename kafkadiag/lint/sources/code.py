"""Client settings in application code (``lint/codeconf.py``): one config of the client's dialect."""

from __future__ import annotations

import os

from ..codeconf import dialect_of
from ..model import ConfigFile
from .base import derive


def read_code(cfg: ConfigFile) -> list[ConfigFile] | None:
    """The code's client settings as one config (Java's or librdkafka's), or None when the file is not code."""
    if cfg.fmt != "code":
        return None  # ``load.sniff_format`` names code it recognised "code"
    if not cfg.entries:
        return []
    suffix = cfg.code_suffix or os.path.splitext(cfg.path)[1].lower()
    dialect = dialect_of(suffix, [e.key for e in cfg.entries])
    source = {"java": "Java client code", "flink": "Flink Kafka sink code"}.get(dialect) or (
        ".NET client code" if suffix == ".cs" else "librdkafka binding code")
    return [derive(cfg, dialect, list(cfg.entries), source)]
