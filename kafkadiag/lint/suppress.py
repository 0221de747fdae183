"""Inline suppression: ``# kafkadiag: ignore=PRD002[,SEC]`` on the finding's line or the line above.

In ``.properties`` files a ``#`` after a value is part of the value (Java reads it so), so there
the comment belongs on its own line above the key. Selectors are rule ids, id prefixes, rule
names, categories or ``ALL``, as for ``--ignore``.
"""

from __future__ import annotations

import re

from ..ruleset.model import Rule
from .model import ConfigFile

MARKER = re.compile(r"#\s*kafkadiag:\s*ignore\s*=\s*(?P<ids>[A-Za-z0-9_\-]+(?:\s*,\s*[A-Za-z0-9_\-]+)*)", re.IGNORECASE)


def suppressions(cfg: ConfigFile) -> dict[int, set[str]]:
    """Line number → selectors written on that line."""
    out: dict[int, set[str]] = {}
    for number, line in enumerate(cfg.lines, start=1):
        for m in MARKER.finditer(line):
            out.setdefault(number, set()).update(s.strip() for s in m.group("ids").split(",") if s.strip())
    return out


def matches(selector: str, rule: Rule) -> bool:
    sel = selector.strip()
    return (
        sel.upper() == "ALL"
        or rule.id.startswith(sel.upper())
        or sel == rule.name
        or sel == rule.category
    )


def suppressed(rule: Rule, marks: dict[int, set[str]], lines: list[int]) -> bool:
    """Whether any of ``lines`` (of one file) carries, or follows a line carrying, a matching marker."""
    for line in lines:
        for at in (line, line - 1):
            if any(matches(sel, rule) for sel in marks.get(at, ())):
                return True
    return False
