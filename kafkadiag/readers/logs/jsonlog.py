"""JSON-per-line layouts: logstash/ECS/log4j2 JsonLayout, KafkaJS, zap, logrus, slog, Serilog, Python.

Each layout names the same things differently, so fields are picked by alias lists. A line cut
mid-way is not valid JSON; its fields are then recovered with a tolerant key search so the
event still counts.
"""

from __future__ import annotations

import json
import re

from kafkadiag.readers.logs.head import JAVA, KAFKAJS, TEXT, Head
from kafkadiag.readers.logs.levels import normalise_level
from kafkadiag.readers.logs.times import NO_STAMP, Stamp, epoch_value_ms, parse_stamp

_TIME_KEYS = ("@timestamp", "timestamp", "time", "ts", "@t", "datetime", "date", "asctime", "t", "timeMillis", "instant")
_LEVEL_KEYS = ("level", "log.level", "levelname", "severity", "@l", "lvl", "loglevel", "level_name")
_LOGGER_KEYS = ("logger_name", "logger", "loggerName", "log.logger", "logName", "name", "caller", "category", "SourceContext")
_MESSAGE_KEYS = ("message", "msg", "@m", "@mt", "log", "short_message")
_STACK_KEYS = ("stack_trace", "stackTrace", "stack", "exception", "error.stack_trace", "@x", "exc_info", "thrown", "err", "error")
_THREAD_KEYS = ("thread_name", "thread", "process.thread.name", "threadName")

_LOOSE_PAIR = re.compile(r'"(?P<k>[@\w.]+)"\s*:\s*(?:"(?P<s>(?:[^"\\]|\\.)*)"?|(?P<n>-?\d+(?:\.\d+)?))')


def recognise_json(text: str) -> Head | None:
    """A JSON object on one line (or the start of one, when the line was cut)."""
    if not text.startswith("{") or '"' not in text[:3]:
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        obj = _loose(text)
    except RecursionError:
        return None  # nested beyond what a log line holds: not a log record
    if not isinstance(obj, dict) or not obj:
        return None
    flat = _flatten(obj)
    message = _first_text(flat, _MESSAGE_KEYS)
    level = normalise_level(_first_text(flat, _LEVEL_KEYS)) or _level_value(flat.get("level"))
    if not message and not level:
        return None
    logger = _first_text(flat, _LOGGER_KEYS)
    stack = _stack(flat)
    family = KAFKAJS if logger.lower() == "kafkajs" else JAVA if logger.startswith(("org.", "kafka.", "io.")) else TEXT
    return Head(stamp=_stamp(flat), level=level, logger=logger, message=message.split("\n", 1)[0],
                family=family, thread=_first_text(flat, _THREAD_KEYS), stack=_with_rest(message, stack),
                fields=flat)


def _loose(text: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for m in _LOOSE_PAIR.finditer(text):
        if m["s"] is not None:
            out.setdefault(m["k"], _unescape(m["s"]))
        else:
            out.setdefault(m["k"], float(m["n"]) if "." in m["n"] else int(m["n"]))
    return out


def _unescape(value: str) -> str:
    try:
        return json.loads('"' + value.rstrip("\\") + '"')
    except ValueError:
        return value


def _flatten(obj: dict, prefix: str = "", out: dict[str, object] | None = None, depth: int = 0) -> dict[str, object]:
    """Nested objects become dotted keys (ECS ``log.level``, ``error.stack_trace``); the top key is kept too."""
    out = {} if out is None else out
    for key, value in obj.items():
        name = prefix + str(key)
        if isinstance(value, dict) and depth < 3:
            out.setdefault(name, value)
            _flatten(value, name + ".", out, depth + 1)
        else:
            out.setdefault(name, value)
    return out


def _first_text(flat: dict[str, object], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = flat.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _level_value(value: object) -> str:
    """Numeric levels (pino/bunyan 10-60, log4j2 intLevel) -> the common vocabulary."""
    if isinstance(value, int) and not isinstance(value, bool):
        for bound, name in ((60, "FATAL"), (50, "ERROR"), (40, "WARN"), (30, "INFO"), (20, "DEBUG")):
            if value >= bound:
                return name
        return "TRACE"
    return ""


def _stamp(flat: dict[str, object]) -> Stamp:
    seconds = flat.get("instant.epochSecond")
    if isinstance(seconds, int):
        nanos = flat.get("instant.nanoOfSecond")
        return Stamp(seconds * 1000 + (nanos // 1_000_000 if isinstance(nanos, int) else 0))
    for key in _TIME_KEYS:
        value = flat.get(key)
        if value is None or isinstance(value, dict):
            continue
        if isinstance(value, str):
            stamp = parse_stamp(value)
            if stamp is not NO_STAMP:
                return stamp
        else:
            ms = epoch_value_ms(value)
            if ms >= 0:
                return Stamp(ms)
    return NO_STAMP


def _stack(flat: dict[str, object]) -> str:
    for key in _STACK_KEYS:
        value = flat.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict):
            return _thrown(value)
    return ""


def _thrown(value: dict) -> str:
    """log4j2 JsonLayout ``thrown`` object -> Java stack-trace text (name: message, Caused by: ...)."""
    lines: list[str] = []
    node: object = value
    first = True
    while isinstance(node, dict) and len(lines) < 50:
        name = node.get("name") or node.get("type") or ""
        msg = node.get("message") or node.get("localizedMessage") or ""
        if name:
            lines.append(("" if first else "Caused by: ") + f"{name}" + (f": {msg}" if msg else ""))
        first = False
        node = node.get("cause")
    return "\n".join(lines)


def _with_rest(message: str, stack: str) -> str:
    """A multi-line message's other lines belong to the event like a stack trace does."""
    rest = message.split("\n", 1)[1] if "\n" in message else ""
    if rest and stack:
        return rest + "\n" + stack
    return rest or stack
