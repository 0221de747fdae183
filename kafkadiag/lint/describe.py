"""``kafka-configs.sh --describe [--all]`` output: the values a running cluster really uses.

Each entity block (``All configs for broker 1 are:``, ``Default configs for brokers in the cluster
are:``, ``Dynamic configs for topic orders are:``) becomes one section. A value whose first synonym
is ``DEFAULT_CONFIG`` is the built-in default, so it is not "set explicitly".
"""

from __future__ import annotations

import re

from .model import Entry

HEADER = re.compile(r"^(?:All|Dynamic|Default|Static)\s+configs\s+for\s+(?P<entity>.+?)\s+are:\s*$", re.IGNORECASE)
VALUE = re.compile(
    r"^(?P<indent>\s+)(?P<key>[A-Za-z0-9_.\-]+)=(?P<value>.*?)\s+sensitive=(?:true|false)(?:\s+synonyms=\{(?P<syn>.*)\})?\s*$"
)


def looks_like_describe(text: str) -> bool:
    head = text[:20000]
    return any(HEADER.match(line) for line in head.splitlines()) and "sensitive=" in head


def parse_describe(text: str) -> list[Entry]:
    """One entry per described config; ``section`` names the entity (``broker 1``, ``topic orders``)."""
    entries: list[Entry] = []
    entity = "brokers"
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        raw = line.rstrip("\r")
        header = HEADER.match(raw)
        if header:
            entity = _entity(header.group("entity"))
        else:
            m = VALUE.match(raw)
            if m:
                synonyms = m.group("syn") or ""
                value = m.group("value")
                entries.append(
                    Entry(
                        key=m.group("key"),
                        value="" if value == "null" else value,
                        line=number,
                        column=len(m.group("indent")) + 1,
                        end_line=number,
                        span=(offset + m.start("value"), offset + m.end("value")),
                        section=entity,
                        explicit=not synonyms.startswith("DEFAULT_CONFIG"),
                    )
                )
        offset += len(line) + 1
    return entries


def _entity(text: str) -> str:
    """``broker 1`` / ``brokers`` / ``topic orders`` from the header's entity phrase."""
    words = text.replace("'", "").split()
    if words and words[0].lower() == "brokers":
        return "brokers"
    if len(words) >= 2 and words[0].lower() in ("broker", "topic", "broker-logger"):
        return f"{words[0].lower()} {words[1]}"
    return " ".join(words)
