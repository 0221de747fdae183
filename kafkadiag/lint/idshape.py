"""Is a configured transactional.id stable across restarts?

Fencing only works when the restarted instance presents the same transactional.id. Values that
expand to something new at every start (UUIDs, ``${random.uuid}``, host names, pids, timestamps)
give every start a fresh producer id, so a zombie is never fenced and its open transaction only
ends by timeout. The analyze-side classifier (``facts.id_shapes``) judges ids seen in the log;
this one judges the configured template before it is expanded.
"""

from __future__ import annotations

import re

from ..facts.id_shapes import family_and_shape

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("random", re.compile(r"\$\{\s*random\.|\{\{\s*(uuid|random)|\$RANDOM\b|randomUUID|uuidgen|\$\{\s*uuid", re.IGNORECASE)),
    ("host", re.compile(r"\$\{\s*(env:)?(HOSTNAME|HOST|POD_NAME|COMPUTERNAME|hostname)\b|\$\(hostname\)|\$HOSTNAME\b|%h\b|InetAddress", re.IGNORECASE)),
    ("pid", re.compile(r"\$\{\s*(PID|pid|process\.id)\b|\$\$|%p\b|ProcessHandle|getpid", re.IGNORECASE)),
    ("time", re.compile(r"currentTimeMillis|\$\{\s*(timestamp|time|date|now)\b|\$\(date", re.IGNORECASE)),
)


def id_shape(value: str) -> str:
    """uuid, random, host, pid, time or plain; '' when there is no id."""
    text = value.strip()
    if not text:
        return ""
    for shape, pattern in _PATTERNS:
        if pattern.search(text):
            return shape
    shape = family_and_shape(text)[1]
    return shape if shape in ("uuid", "random") else "plain"
