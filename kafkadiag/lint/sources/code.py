"""Client settings in application code (``lint/codeconf.py``): one config of the client's dialect."""

from __future__ import annotations

import os

from ..codeconf import code_dialect
from ..model import ConfigFile
from .base import derive


def read_code(cfg: ConfigFile) -> list[ConfigFile] | None:
    """The code's client settings as one config (Java's or librdkafka's), or None when the file is not code."""
    if cfg.fmt != "code":
        return None
    dialect = code_dialect(cfg.text, os.path.splitext(cfg.path)[1].lower())
    if dialect is None or not cfg.entries:
        return []
    source = "Java client code" if dialect == "java" else ".NET client code"
    return [derive(cfg, dialect, list(cfg.entries), source)]
