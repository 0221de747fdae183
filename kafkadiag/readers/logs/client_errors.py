"""Client- and broker-side conditions that are not protocol errors, from ``rules/vocabulary/client-errors.yaml``.

``Cannot perform a 'send' before completing a call to initTransactions``, ``Number of alive
brokers '1' does not meet the required replication factor '3' for the transactions state
topic`` or franz-go's ``unable to initialize a producer ID`` say as much as a protocol error
does, but each client words them its own way and anywhere in an event (a JSON field, the third
``Caused by``). The table is data, reviewed like the rules; this module compiles it once and
names the conditions an event's text states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from kafkadiag.builtin import builtin_root

RESOURCE = "vocabulary/client-errors.yaml"
_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


class VocabularyError(ValueError):
    """The vocabulary file is malformed; the message names the entry and field."""


@dataclass(frozen=True)
class ClientError:
    name: str
    category: str
    tier: int
    pattern: re.Pattern[str]
    examples: tuple[str, ...]
    #: The name an event carries: a protocol error's (a client's own wording of it) or the entry's.
    error: str = ""
    #: Lower-case literals one of which every match contains ('' when a pattern has none): a
    #: substring test on the lowered text settles most events before any regex runs.
    needles: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()  # as written in the file

    def search(self, text: str, lowered: str) -> bool:
        if self.needles and not any(n in lowered for n in self.needles):
            return False
        return self.pattern.search(text) is not None


_META = set("\\[](){}.*+?|^$")


def needle(pattern: str) -> str:
    """The longest literal every match of ``pattern`` contains (as written), '' if it has none of 3+ characters.

    Three characters are enough to spare an event its regex: ``LSO (is )?(stuck|not advancing)``
    holds only ``LSO `` and ran on every multi-line event (half the time ``client_errors`` took on
    a 3.7 KB trace)."""
    best, piece, depth, i = "", "", 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if depth == 0 and not nxt.isalnum():
                piece += nxt
            else:
                best, piece = max(best, piece, key=len), ""
            i += 2
            continue
        if c in "?*{" and depth == 0:
            piece = piece[:-1]  # the character before is optional
        if c in _META or c == "{":
            best, piece = max(best, piece, key=len), ""
            depth += c in "(["
            depth -= c in ")]" and depth > 0
            if c == "{":
                i = pattern.find("}", i) + 1 or len(pattern)
                continue
        elif depth == 0:
            piece += c
        i += 1
    best = max(best, piece, key=len)
    return best if len(best.strip()) >= 3 else ""


def parse(doc: object, source: str = RESOURCE) -> tuple[ClientError, ...]:
    """Validate and compile the vocabulary document."""
    if not isinstance(doc, dict) or not isinstance(doc.get("errors"), list):
        raise VocabularyError(f"{source}: expected a mapping with an 'errors' list")
    out: list[ClientError] = []
    seen: set[str] = set()
    for i, entry in enumerate(doc["errors"]):
        where = f"{source}: errors[{i}]"
        if not isinstance(entry, dict):
            raise VocabularyError(f"{where}: expected a mapping")
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.fullmatch(name) or name in seen:
            raise VocabularyError(f"{where}.name: expected a new UPPER_SNAKE name, got {name!r}")
        seen.add(name)
        patterns = entry.get("patterns")
        if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p for p in patterns):
            raise VocabularyError(f"{where}.patterns: expected a list of regular expressions")
        try:
            pattern = re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)
        except re.error as exc:
            raise VocabularyError(f"{where}.patterns: {exc}") from None
        tier = entry.get("tier", 2)
        if tier not in (0, 1, 2):
            raise VocabularyError(f"{where}.tier: expected 0, 1 or 2")
        category = entry.get("category")
        if not isinstance(category, str) or not category:
            raise VocabularyError(f"{where}.category: expected a category name")
        examples = tuple(str(e) for e in entry.get("examples") or ())
        needles = tuple(needle(p).lower() for p in patterns)
        error = entry.get("error", name)
        if not isinstance(error, str) or not _NAME.fullmatch(error):
            raise VocabularyError(f"{where}.error: expected an UPPER_SNAKE protocol error name")
        out.append(ClientError(name, category, tier, pattern, examples, error, () if "" in needles else needles,
                               tuple(patterns)))
    return tuple(out)


@lru_cache(maxsize=1)
def vocabulary() -> tuple[ClientError, ...]:
    text = builtin_root().joinpath(RESOURCE).read_text(encoding="utf-8")
    return parse(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))  # noqa: S506 - a safe loader


def client_errors(text: str) -> list[str]:
    """Names of the conditions ``text`` states, in vocabulary order.

    Whitespace is folded first: a long message pasted across two lines still reads as one.
    """
    if "\n" in text or "  " in text:
        text = " ".join(text.split())
    lowered = text.lower()
    found: list[str] = []
    for entry in vocabulary():
        if entry.error not in found and entry.search(text, lowered):
            found.append(entry.error)
    return found


def prefilter_needles(min_length: int = 12) -> tuple[str, ...]:
    """Literals (as the clients write them) whose lines the log reader's pre-filter must keep.

    Only distinctive ones: a short literal such as ``Failed to`` would make every line a candidate,
    and the lines it stands for carry a Kafka word the pre-filter keeps anyway.
    """
    out: list[str] = []
    for entry in vocabulary():
        for pattern in entry.patterns:
            literal = needle(pattern)
            if len(literal.strip()) >= min_length and literal not in out:
                out.append(literal)
    return tuple(out)
