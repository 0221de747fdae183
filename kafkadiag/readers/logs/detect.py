"""Sniff detector for logs: claims inputs whose first lines are log lines or tool tables.

The score is the number of recognised lines in the head, so a real log outranks a stray match;
a head that ``kafka-dump-log`` output dominates is left to the dump reader (dumps can carry log
lines as record payloads). The kind names the line family: ``log/java``, ``log/broker``,
``log/librdkafka``, ``log/tool``, ... or ``log/mixed`` when several families share the head.
"""

from __future__ import annotations

from collections import Counter

from kafkadiag.readers import sniff
from kafkadiag.readers.logs.clean import clean, is_blank
from kafkadiag.readers.logs.head import BROKER, LIBRDKAFKA, TEXT, TOOL
from kafkadiag.readers.logs.layouts import Recognisers
from kafkadiag.readers.logs.library import FAMILY_OF_LIBRARY, library_of_logger
from kafkadiag.readers.logs.rdkafka import embedded
from kafkadiag.readers.logs.stack import is_shaped

_MAX_LINES = 2000
_MIN_SHARE = 0.2  # of non-blank lines that must be log-shaped
_DUMP_MARGIN = 4  # a log must outnumber dump lines this many times to win


def detect_log(head: bytes) -> tuple[int, str] | None:
    """``(score, "log/<family>")`` for a head made of log lines; None otherwise."""
    if sniff.looks_binary(head):
        return None
    dump = sniff.detect_dump_log(head)
    if dump is not None and _DUMP_MARGIN * dump[0] >= head.count(b"\n") + 1:
        return None  # a dump even if every other line were a log line: not worth recognising them
    text = head.decode("utf-8", "replace")
    lines = text.split("\n")
    if len(lines) > 1 and not text.endswith("\n"):
        lines.pop()  # the head may end mid-line
    recognise = Recognisers()
    families: Counter = Counter()
    heads = shaped = seen = 0
    for raw in lines[:_MAX_LINES]:
        _, line = clean(raw)
        if is_blank(line):
            continue
        seen += 1
        found = recognise(line)
        if found is not None:
            heads += 1
            family = found.family
            if family != LIBRDKAFKA and ("[thrd:" in found.message or "#producer-" in found.message) and embedded(found.message):
                family = LIBRDKAFKA
            elif found.logger and family not in (BROKER, TOOL, LIBRDKAFKA):
                family = FAMILY_OF_LIBRARY.get(library_of_logger(found.logger), family)
            families[family] += 1
        elif is_shaped(line):
            shaped += 1
    # One recognised line is enough when it is all there is (a pasted excerpt), unless it is generic text.
    single_excerpt = heads == seen == 1 and not families[TEXT]
    if not heads or (heads < 2 and not single_excerpt and not families[TOOL] and not families[LIBRDKAFKA]):
        return None
    if heads + shaped < _MIN_SHARE * seen and not families[TOOL]:
        return None
    if dump is not None and heads <= _DUMP_MARGIN * dump[0]:
        return None
    return heads, "log/" + _kind(families)


def _kind(families: Counter) -> str:
    """The family most lines belong to; ``mixed`` when a second family has a real share."""
    total = sum(families.values())
    named = [(f, n) for f, n in families.most_common() if f != TEXT]
    if not named:
        return TEXT
    if len(named) > 1 and named[1][1] >= max(2, 0.1 * total):
        return "mixed"
    return named[0][0]


sniff.register("log", detect_log)
