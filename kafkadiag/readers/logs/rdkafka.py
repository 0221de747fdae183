"""librdkafka log lines: the native ``%level|time|FAC|name| msg`` form and the same messages re-emitted.

librdkafka hands every binding a ``(level, facility, client name, "[thrd:x]: msg")`` tuple; each
binding prints it its own way (confluent-kafka-python ``FAC [name] [thrd:x]: msg`` through Python
logging, Go's ``[time][name][FAC][level][thrd:x]: msg``, .NET's ``Level|time|name|FAC| msg``,
Microsoft.Extensions.Logging's ``[FAC] name: msg``). The native shapes are line recognisers; the
re-emitted ones are found inside any host logger's message by the ``[thrd:`` marker or a
``name#producer-N`` client name.
"""

from __future__ import annotations

import re

from kafkadiag.readers.logs.head import LIBRDKAFKA, Head
from kafkadiag.readers.logs.levels import normalise_level, syslog_level
from kafkadiag.readers.logs.times import parse_stamp

_NATIVE = re.compile(r"%(?P<lvl>[0-7])\|(?P<ts>[^|]{1,40})\|(?P<a>[^|]{0,40})\|(?P<b>[^|]{0,120})\|\s?(?P<msg>.*)")
_DOTNET = re.compile(
    r"%?(?P<lvl>Emergency|Alert|Critical|Error|Warning|Notice|Info|Debug|[0-7])\|(?P<ts>[^|]{1,40})\|"
    r"(?P<a>[^|]{0,120})\|(?P<b>[^|]{0,120})\|\s?(?P<msg>.*)"
)
_GO = re.compile(r"\[(?P<ts>[^\]]{8,40})\]\[(?P<b>[^\]]*)\]\[(?P<a>[A-Z0-9_]+)\]\[(?P<lvl>[0-7])\]\s?(?P<msg>.*)")
_FACILITY = re.compile(r"[A-Z][A-Z0-9_]{1,19}")
_THREAD = re.compile(r"\[thrd:(?P<thrd>[^\]]*)\]:?\s*")
_CLIENT_NAME = re.compile(r"[\w.\-]*#(?:producer|consumer)-\d+")
_TOKEN = re.compile(r"[\w.#\-]+")
_NOT_FACILITIES = frozenset({"ERROR", "WARN", "WARNING", "INFO", "DEBUG", "TRACE", "CRITICAL", "NOTICE", "ERR", "WRN", "INF", "DBG"})


def recognise_native(text: str) -> Head | None:
    """The three shapes librdkafka (or its binding's default logger) prints by itself."""
    c = text[:1]
    if c == "%":
        m = _NATIVE.match(text)
        if m:
            return _head(m, syslog_level(m["lvl"]))
    if c == "[":
        m = _GO.match(text)
        if m:
            return _head(m, syslog_level(m["lvl"]))
        return None
    if c.isalpha() or c == "%":
        m = _DOTNET.match(text)
        if m:
            lvl = m["lvl"]
            return _head(m, syslog_level(lvl) if lvl.isdigit() else normalise_level(lvl))
    return None


def _head(m: re.Match, level: str) -> Head | None:
    a, b = m["a"].strip(), m["b"].strip()
    if _FACILITY.fullmatch(a):
        facility, client = a, b
    elif _FACILITY.fullmatch(b):
        facility, client = b, a
    else:
        return None
    stamp = parse_stamp(m["ts"])
    message, thread = strip_thread(m["msg"])
    return Head(stamp=stamp, level=level, logger=facility, message=message, family=LIBRDKAFKA,
                thread=thread, facility=facility, client=client, ts=m["ts"])


def strip_thread(message: str) -> tuple[str, str]:
    """``[thrd:main]: msg`` -> ``("msg", "main")``."""
    m = _THREAD.match(message.lstrip())
    if m:
        return message.lstrip()[m.end():], m["thrd"]
    return message, ""


def embedded(message: str) -> tuple[str, str, str, str] | None:
    """``(facility, client name, thread, message)`` of a librdkafka message re-emitted by a host logger."""
    idx = message.find("[thrd:")
    if idx >= 0:
        m = _THREAD.match(message, idx)
        if not m:
            return None
        prefix = message[:idx]
        rest = message[m.end():]
        thread = m["thrd"]
    else:
        name = _CLIENT_NAME.search(message)
        if not name or name.start() > 80:
            return None
        prefix = message[: name.end()]
        rest = message[name.end():].lstrip("]: ")
        thread = ""
    if len(prefix) > 160:
        return None
    tokens = _TOKEN.findall(prefix)
    facility = ""
    client = ""
    for token in tokens:
        if "#" in token:
            client = token
        elif not facility and _FACILITY.fullmatch(token) and token not in _NOT_FACILITIES:
            facility = token
    if not client and tokens and not _FACILITY.fullmatch(tokens[-1]):
        client = tokens[-1]
    return facility, client, thread, rest
