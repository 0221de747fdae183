"""Config values as rules see them: the caller's effective config over its defaults.

Values read from .properties files arrive as text; rules compare them with numbers, so numeric
and boolean text is coerced once here rather than in every condition.
"""

from __future__ import annotations

import re
from typing import Mapping

MISSING = object()
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def coerce(value: object) -> object:
    """Turn numeric / boolean text into numbers / bools; anything else is returned unchanged."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return value


class ConfigView:
    """Read-only lookup: ``config`` first, then ``defaults``; ``MISSING`` when neither has the key."""

    def __init__(self, config: Mapping[str, object] | None = None, defaults: Mapping[str, object] | None = None):
        self._config = dict(config or {})
        self._defaults = dict(defaults or {})

    def get(self, key: str) -> object:
        if key in self._config and self._config[key] is not None:
            return coerce(self._config[key])
        if key in self._defaults and self._defaults[key] is not None:
            return coerce(self._defaults[key])
        return MISSING
