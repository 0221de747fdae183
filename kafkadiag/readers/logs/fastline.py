"""Single-line events by whole-line template: parse each line shape once, then fill in its numbers.

Logs repeat a few hundred line shapes: a Kafka client prints each message from a format string,
and the layout adds a timestamp, a thread and a logger. Blank out the digit runs of a line and
the rest (the template) decides everything a row holds except those numbers. The first line of
a template is parsed in full; a probe copy with every non-timestamp digit run replaced by a
distinct sentinel number is parsed too, and where a sentinel shows up in a column value that
column is a function of that digit run. A recipe is kept only if it reproduces the first line's
row exactly; a template whose meaning depends on its numbers is always parsed in full.
"""

from __future__ import annotations

import re
from typing import Callable

from kafkadiag.readers.logs.event import DERIVED, RawEvent, describe
from kafkadiag.readers.logs.head import Head
from kafkadiag.readers.logs.layouts import Recognisers
from kafkadiag.readers.logs.times import Stamp, parse_stamp

_DIGITS = re.compile(r"(\d+)")
_SENTINEL = 91_000_001
_SENTINEL_RUN = re.compile(r"91\d{6}")
_LIMIT = 50_000

UNCACHEABLE = object()
DROPPED = object()

Formatter = Callable[[list], object]


class LineRecipe:
    """How to build the row of any line of one template from its digit runs."""

    __slots__ = ("ts_count", "ts_format", "base", "variables", "family")

    def __init__(self, ts_count: int, ts_format: str, base: tuple, variables: tuple, family: str) -> None:
        self.ts_count = ts_count
        self.ts_format = ts_format
        self.base = base
        self.variables = variables
        self.family = family

    def values(self, digits: list[str]) -> tuple:
        if not self.variables:
            return self.base
        out = list(self.base)
        for i, fmt in self.variables:
            out[i] = fmt(digits)
        return tuple(out)

    def stamp(self, digits: list[str]) -> Stamp:
        if not self.ts_format:
            return Stamp()
        return parse_stamp(self.ts_format.format(*digits[: self.ts_count]))


class LineTemplates:
    """Recipes by whole-line template for one input."""

    def __init__(self, recognise: Recognisers) -> None:
        self._recognise = recognise
        self._recipes: dict[tuple[str, bool], object] = {}

    def lookup(self, line: str, known_broker: bool) -> tuple[object, list[str]]:
        """``(recipe or UNCACHEABLE or DROPPED, digit runs)`` for a clean single-line event."""
        parts = _DIGITS.split(line)
        digits = parts[1::2]
        key = ("\0".join(parts[0::2]), known_broker)
        recipe = self._recipes.get(key)
        if recipe is None:
            recipe = self._learn(line, parts, known_broker)
            if len(self._recipes) >= _LIMIT:
                self._recipes.clear()
            self._recipes[key] = recipe
        return recipe, digits

    def _learn(self, line: str, parts: list[str], known_broker: bool) -> object:
        head = self._recognise(line)
        if head is None or head.stack or head.fields:
            return UNCACHEABLE
        digits = parts[1::2]
        ts_count, ts_format = _timestamp_runs(line, head, parts)
        if ts_count < 0:
            return UNCACHEABLE
        real = describe(RawEvent(0, 0, 1, head, line, []), known_broker)
        sentinels = [str(_SENTINEL + i) for i in range(len(digits))]
        probe_parts = list(parts)
        for i in range(ts_count, len(digits)):
            probe_parts[2 * i + 1] = sentinels[i]
        probe_line = "".join(probe_parts)
        probe_head = self._recognise(probe_line)
        if probe_head is None or probe_head.family != head.family or probe_head.stack or probe_head.fields:
            return UNCACHEABLE
        probe = describe(RawEvent(0, 0, 1, probe_head, probe_line, []), known_broker)
        if (real is None) != (probe is None):
            return UNCACHEABLE
        if real is None or probe is None:
            return DROPPED
        if real[1] != probe[1]:
            return UNCACHEABLE
        specs = [_column_spec(probe[0][c], sentinels) for c in DERIVED]
        base = tuple(spec if kind is False else None for kind, spec in specs)
        variables = tuple((i, _formatter(kind, spec)) for i, (kind, spec) in enumerate(specs) if kind is not False)
        recipe = LineRecipe(ts_count, ts_format, base, variables, probe[1])
        if recipe.values(digits) != tuple(real[0][c] for c in DERIVED) or recipe.stamp(digits) != head.stamp:
            return UNCACHEABLE
        return recipe


def _timestamp_runs(line: str, head: Head, parts: list[str]) -> tuple[int, str]:
    """How many leading digit runs form the timestamp, and a format rebuilding it; (-1, '') if not leading."""
    if not head.ts:
        return (0, "") if head.stamp.ms < 0 and head.stamp.tod < 0 else (-1, "")
    start = line.find(head.ts)
    if start < 0 or any(ch.isdigit() for ch in line[:start]):
        return -1, ""
    ts_parts = _DIGITS.split(head.ts)
    count = len(ts_parts) // 2
    if ts_parts[1::2] != parts[1::2][:count]:
        return -1, ""
    fmt = "".join(("{%d}" % (i // 2)) if i % 2 else p.replace("{", "{{").replace("}", "}}") for i, p in enumerate(ts_parts))
    return count, fmt


def _column_spec(value: object, sentinels: list[str]) -> tuple:
    """``(False, constant)``, ``(None, run index)`` for an int, or ``(True, pieces)`` for a string."""
    if isinstance(value, int):
        text = str(value)
        return (None, sentinels.index(text)) if text in sentinels else (False, value)
    text = str(value)
    if "91" not in text:
        return (False, value)
    pieces: list[object] = []
    rest = text
    while True:
        m = _SENTINEL_RUN.search(rest)
        if m is None or m.group(0) not in sentinels:
            pieces.append(rest)
            break
        pieces.append(rest[: m.start()])
        pieces.append(sentinels.index(m.group(0)))
        rest = rest[m.end():]
    return (True, pieces)


def _formatter(kind: object, spec: object) -> Formatter:
    """A function of the digit runs: ``int(digits[k])`` or a ``str.format`` of constant text and runs."""
    if kind is None:
        index = spec
        return lambda digits: int(digits[index])  # type: ignore[index]
    fmt = "".join("{%d}" % p if isinstance(p, int) else p.replace("{", "{{").replace("}", "}}") for p in spec)  # type: ignore[union-attr]
    return lambda digits: fmt.format(*digits)
