"""Text layouts of the loggers that print Kafka client and broker lines, one recogniser each.

A recogniser takes a cleaned line and returns a :class:`Head` or ``None``. They are grouped by
the first character they can start with, and the registry tries the one that matched last time
first, so a file in one layout costs one regular expression per line.
"""

from __future__ import annotations

import re
from typing import Callable

from kafkadiag.readers.logs.head import BROKER, DOTNET, GO, JAVA, PYTHON, TEXT, TOOL, Head
from kafkadiag.readers.logs.jsonlog import recognise_json
from kafkadiag.readers.logs.levels import LEVEL_WORDS, normalise_level
from kafkadiag.readers.logs.rdkafka import recognise_native
from kafkadiag.readers.logs.times import NO_STAMP, Stamp, parse_stamp
from kafkadiag.readers.logs.tools import tool_header, tool_message

Recogniser = Callable[[str], "Head | None"]

_TS_FULL = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z| ?[+-]\d\d:?\d\d| ?UTC)?"
_TS_TOD = r"\d\d:\d\d:\d\d(?:[.,]\d{1,9})?"
_TS = f"(?:{_TS_FULL}|{_TS_TOD})"
_LVL = f"(?:{LEVEL_WORDS})"
#: A bracketed thread name, but never a Kafka client's ``[Producer clientId=...]`` context.
_THREAD = r"\[(?!(?:Producer|Consumer|AdminClient|Admin|ShareConsumer) )"
_LOGGER = r"[A-Za-z_$][\w$.\-]*"

#: Loggers of the broker (and its tools), as opposed to the Java clients.
_BROKER_LOGGER = re.compile(
    r"(?:kafka\.(?:server|coordinator|log|cluster|controller|network|zk|utils|admin|raft|metrics|security|tools)\b"
    r"|org\.apache\.kafka\.(?:storage|server|coordinator|controller|raft|metadata|image|security|network)\b"
    r"|state\.change\.logger|kafka\.request\.logger|kafka\.authorizer\.logger|kafka$)"
)


def is_broker_logger(logger: str) -> bool:
    return bool(logger) and _BROKER_LOGGER.match(logger) is not None


#: Log prefixes of broker components (``[TransactionCoordinator id=1] ``, ``[Transaction State Manager 1]: ``).
_BROKER_PREFIX = re.compile(
    r"\[(?:TransactionCoordinator|Transaction State Manager|Transaction Marker|TxnMarkerSenderThread|GroupCoordinator|"
    r"GroupMetadataManager|ReplicaManager|ReplicaFetcher|KafkaApi|KafkaServer|BrokerServer|ControllerServer|"
    r"ProducerStateManager|UnifiedLog|Log partition|LogLoader|Partition |Controller|QuorumController|LogCleaner|"
    r"SocketServer|RaftManager|KafkaRaftServer|BrokerLifecycleManager)[\s\]=-]"
)


# --- [yyyy-MM-dd HH:mm:ss,SSS] LEVEL msg (logger): the broker and Kafka's own tools ------------------

_KAFKA_LOG4J = re.compile(rf"\[(?P<ts>{_TS_FULL})\] (?P<lvl>{_LVL}) (?P<msg>.*?)(?: \((?P<logger>[a-z][\w$]*(?:\.[\w$]+)*)\))?\s*$")


def kafka_log4j(text: str) -> Head | None:
    m = _KAFKA_LOG4J.match(text)
    if not m:
        return None
    logger = m["logger"] or ""
    broker = is_broker_logger(logger) or not logger.startswith("org.apache.kafka.") and _BROKER_PREFIX.match(m["msg"]) is not None
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), logger=logger, message=m["msg"],
                family=BROKER if broker else JAVA if logger else TEXT)


# --- Spring Boot: 2024-01-15 10:23:45.123  INFO 4242 --- [app] [  main] o.a.k.c.p.KafkaProducer : msg ------

_SPRING = re.compile(
    rf"(?P<ts>{_TS_FULL})\s+(?P<lvl>{_LVL})\s+\d+\s+---\s+(?:\[[^\]]*\]\s+)?\[\s*(?P<thread>[^\]]*?)\]\s+"
    rf"(?P<logger>\S+?)\s*:\s(?P<msg>.*)"
)


def spring(text: str) -> Head | None:
    m = _SPRING.match(text)
    if not m:
        return None
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), logger=m["logger"],
                message=m["msg"], family=JAVA, thread=m["thread"])


# --- JBoss / Quarkus: 2024-01-15 10:23:45,123 ERROR [org.apa.kaf.cli.pro.int.Sender] (thread) msg --------

_JBOSS = re.compile(rf"(?P<ts>{_TS})\s+(?P<lvl>{_LVL})\s+\[(?P<logger>[^\]\s]+)\]\s+\((?P<thread>[^)]*)\)\s?(?P<msg>.*)")


def jboss(text: str) -> Head | None:
    m = _JBOSS.match(text)
    if not m:
        return None
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), logger=m["logger"],
                message=m["msg"], family=JAVA, thread=m["thread"])


# --- log4j / log4j2 / logback / Flink: timestamp, [thread], LEVEL, logger, [MDC], " - " or ": " --------

_JAVA = re.compile(
    rf"(?P<ts>{_TS})\s+(?:{_THREAD}(?P<t1>[^\]]*)\]\s+)?(?P<lvl>{_LVL})\s*:?\s+(?:{_THREAD}(?P<t2>[^\]]*)\]\s+)?"
    rf"(?P<logger>{_LOGGER})(?::\d+)?\s*(?:\[[^\]]*\]\s*)?(?:-|:)\s(?P<msg>.*)"
)


def java(text: str) -> Head | None:
    m = _JAVA.match(text)
    if not m:
        return None
    logger = m["logger"]
    family = BROKER if is_broker_logger(logger) else JAVA if _is_java_logger(logger) else TEXT
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), logger=logger, message=m["msg"],
                family=family, thread=m["t1"] or m["t2"] or "")


def _is_java_logger(logger: str) -> bool:
    """Java loggers end in a class name (``o.a.k.c.p.KafkaProducer``); Python's end in a module (``app.worker``)."""
    last = logger.rsplit(".", 1)[-1]
    return "." in logger and (last[:1].isupper() or "$" in last)


# --- Python logging: "asctime - name - LEVEL - msg" and basicConfig's "LEVEL:name:msg" -------------

_PY_DASHES = re.compile(rf"(?P<ts>{_TS_FULL})\s+-\s+(?P<logger>[\w.]+)\s+-\s+(?P<lvl>{_LVL})\s+-\s+(?P<msg>.*)")
_PY_BASIC = re.compile(r"(?P<lvl>CRITICAL|ERROR|WARNING|INFO|DEBUG):(?P<logger>[\w.]*):(?P<msg>.*)")


def python_dashes(text: str) -> Head | None:
    m = _PY_DASHES.match(text)
    if not m:
        return None
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), logger=m["logger"],
                message=m["msg"], family=PYTHON)


def python_basic(text: str) -> Head | None:
    m = _PY_BASIC.match(text)
    if not m:
        return None
    return Head(level=normalise_level(m["lvl"]), logger=m["logger"], message=m["msg"], family=PYTHON)


# --- Go's log package: [prefix] 2024/01/15 10:23:45.123456 file.go:12: msg ---------------------------

_GO = re.compile(
    r"(?:\[(?P<pfx>[\w.\-]+)\] )?(?P<ts>\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d+)?) (?:(?P<file>[\w.\-/]+\.go:\d+): )?(?P<msg>.*)"
)
_INLINE_LEVEL = re.compile(rf"\[?(?P<lvl>{_LVL}|ERR|WRN|INF|DBG)\]?:?\s+", re.I)


def go_log(text: str) -> Head | None:
    m = _GO.match(text)
    if not m:
        return None
    message = m["msg"]
    level = ""
    lm = _INLINE_LEVEL.match(message)
    if lm:
        level = normalise_level(lm["lvl"])
        message = message[lm.end():]
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=level, logger=m["pfx"] or m["file"] or "", message=message, family=GO)


# --- .NET: Serilog console "[10:23:45 ERR] msg", Microsoft console "fail: Category[0]" ---------------

_SERILOG = re.compile(rf"\[(?P<ts>{_TS}) (?P<lvl>VRB|DBG|INF|WRN|ERR|FTL)\] (?P<msg>.*)")
_MS_CONSOLE = re.compile(r"(?P<lvl>trce|dbug|info|warn|fail|crit): (?P<logger>[\w.`]+)\[\d+\]\s*(?P<msg>.*)")


def serilog(text: str) -> Head | None:
    m = _SERILOG.match(text)
    if not m:
        return None
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), message=m["msg"], family=DOTNET)


def ms_console(text: str) -> Head | None:
    m = _MS_CONSOLE.match(text)
    if not m:
        return None
    return Head(level=normalise_level(m["lvl"]), logger=m["logger"], message=m["msg"], family=DOTNET)


# --- C++ loggers: spdlog "[ts] [name] [error] msg", glog "E0115 10:23:45.123456 42 file.cc:12] msg" ------

_SPDLOG = re.compile(
    rf"\[(?P<ts>{_TS_FULL})\] (?:\[(?P<logger>[^\]]+)\] )?\[(?P<lvl>trace|debug|info|warning|warn|error|err|critical)\] (?P<msg>.*)",
    re.I,
)
_GLOG = re.compile(r"(?P<lvl>[IWEF])(?P<md>\d{4}) (?P<tod>\d\d:\d\d:\d\d\.\d+)\s+\d+ (?P<src>[^\]\s]+)\] (?P<msg>.*)")


def spdlog(text: str) -> Head | None:
    m = _SPDLOG.match(text)
    if not m:
        return None
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=normalise_level(m["lvl"]), logger=m["logger"] or "",
                message=m["msg"], family=TEXT)


def glog(text: str) -> Head | None:
    m = _GLOG.match(text)
    if not m:
        return None
    tod = parse_stamp(m["tod"])
    md = int(m["md"])
    if not (101 <= md <= 1231) or tod.tod < 0:
        return None
    return Head(stamp=Stamp(tod=tod.tod, month_day=md), level=normalise_level(m["lvl"]), logger=m["src"],
                message=m["msg"], family=TEXT)


# --- syslog: "Jan 15 10:23:45 host tag[pid]: msg" (the message may itself be a log line) -------------

_SYSLOG = re.compile(
    r"(?:<\d{1,3}>\d? ?)?(?P<ts>(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d\d:\d\d:\d\d) "
    r"(?P<host>\S+) (?P<tag>[^:\[\s]+)(?:\[\d+\])?: (?P<msg>.*)"
)


def syslog(text: str) -> Head | None:
    m = _SYSLOG.match(text)
    if not m:
        return None
    inner = recognise(m["msg"]) if m["msg"][:1] not in ("", " ") else None
    outer = parse_stamp(m["ts"])
    if inner is not None:
        if inner.stamp is NO_STAMP:
            inner.stamp = outer
        return inner
    return Head(stamp=outer, logger=m["tag"], message=m["msg"], family=TEXT)


# --- logfmt: time=... level=error msg="..." err="..." (logrus text, slog text, go-kit) ----------------

_LOGFMT_PAIR = re.compile(r'(?P<k>[\w.@]+)=(?:"(?P<q>(?:[^"\\]|\\.)*)"|(?P<v>\S*))')


def logfmt(text: str) -> Head | None:
    if "=" not in text[:24]:
        return None
    pairs = {m["k"]: (m["q"] if m["q"] is not None else m["v"]) for m in _LOGFMT_PAIR.finditer(text)}
    level = normalise_level(pairs.get("level") or pairs.get("lvl") or pairs.get("severity"))
    message = pairs.get("msg") or pairs.get("message") or ""
    if not level or len(pairs) < 2:
        return None
    stamp = parse_stamp(pairs.get("time") or pairs.get("ts") or pairs.get("t") or "")
    stack = " ".join(v for k, v in pairs.items() if k in ("err", "error", "stack", "exception") and v)
    return Head(stamp=stamp, level=level, logger=pairs.get("logger") or pairs.get("caller") or "", message=message,
                family=GO, stack=stack.replace("\\n", "\n").replace('\\"', '"'), fields=dict(pairs))


# --- lines with no timestamp: "ERROR [main] org.x.Y - msg", "[WARN] msg", "WARN: msg" -----------------

_LEVEL_FIRST = re.compile(
    rf"\[?(?P<lvl>{_LVL})\]?(?::\s*|\s+)(?:{_THREAD}(?P<thread>[^\]]*)\]\s+)?"
    rf"(?:(?P<logger>[A-Za-z_$][\w$]*(?:\.[\w$]+)+)(?::\d+)?\s*(?:-|:)\s)?(?P<msg>.*)"
)


def level_first(text: str) -> Head | None:
    m = _LEVEL_FIRST.match(text)
    if not m:
        return None
    logger = m["logger"] or ""
    return Head(level=normalise_level(m["lvl"]), logger=logger, message=m["msg"],
                family=BROKER if is_broker_logger(logger) else JAVA if logger else TEXT, thread=m["thread"] or "")


_CLIENT_CONTEXT = re.compile(r"\[(?:Producer|Consumer|AdminClient|Admin|ShareConsumer|Share Consumer) clientId=")


def client_context(text: str) -> Head | None:
    """A bare Kafka client message (``[Producer clientId=p, transactionalId=t] ...``), pasted without its prefix."""
    if not _CLIENT_CONTEXT.match(text):
        return None
    return Head(message=text, family=JAVA)


# --- anything that starts with a timestamp -------------------------------------------------------------

_GENERIC = re.compile(
    rf"\[?(?P<ts>{_TS_FULL}|\d{{4}}/\d\d/\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?|\d{{1,2}}-[A-Z][a-z]{{2}}-\d{{4}} {_TS_TOD}|{_TS_TOD})\]?"
    r"(?:[\s|:,;-]+|$)(?P<rest>.*)"
)
_GENERIC_LEVEL = re.compile(
    rf"(?:^|[\s\[|(<])(?P<lvl>{_LVL}|ERR|WRN|INF|DBG|Error|Warning|Warn|Info|Debug|error|warning|warn|info|debug|fatal)(?=[\]\s|:)>]|$)"
)
_GENERIC_LOGGER = re.compile(rf"\[?(?P<logger>{_LOGGER}(?:\.[\w$]+)+)\]?(?::\d+)?\s*(?:-|:)\s")


def generic(text: str) -> Head | None:
    m = _GENERIC.match(text)
    if not m:
        return None
    rest = m["rest"]
    level = ""
    lm = _GENERIC_LEVEL.search(rest, 0, 48)
    if lm:
        level = normalise_level(lm["lvl"])
        rest = rest[lm.end():].lstrip(" ]|:\t-")
    logger = ""
    gm = _GENERIC_LOGGER.match(rest)
    if gm:
        logger = gm["logger"]
        rest = rest[gm.end():]
    return Head(stamp=parse_stamp(m["ts"]), ts=m["ts"], level=level, logger=logger, message=rest,
                family=BROKER if is_broker_logger(logger) else TEXT)


def tool(text: str) -> Head | None:
    """A tool's table header (the rows follow) or one of its messages."""
    table = tool_header(text)
    if table is not None:
        return Head(logger=table.command, message=text.strip(), family=TOOL, fields={"table": table},
                    library=table.library)
    found = tool_message(text)
    if found is not None:
        return Head(logger=found[1], message=text.strip(), family=TOOL, library=found[0])
    return None


# --- fields between pipes, logger first: "org.x.Y | 2018-10-22T10:04:23.519Z | ERROR | msg | ..." ----------

_PIPE = re.compile(r"\s*\|\s+")
_PIPE_TS = re.compile(rf"\[?(?P<ts>{_TS_FULL})\]?")
_PIPE_LEVEL = re.compile(rf"\[?(?P<lvl>{_LVL})\]?")
_PIPE_LOGGER = re.compile(rf"{_LOGGER}(?:\.[\w$]+)+")


def pipe_fields(text: str) -> Head | None:
    """A logback/log4j pattern that puts its fields between pipes and starts with the logger or the
    thread (``%logger | %date | %level | %msg | %mdc | %thread``, ONAP's and many services' layout).

    The timestamp and then the level must be among the first four fields; the message is what follows
    the level (and a logger field right after it), trailing fields included: a pattern's later fields
    (thread, MDC) cannot be told from a message that holds a pipe itself.
    """
    if " | " not in text[:160]:
        return None
    parts = _PIPE.split(text, maxsplit=4)
    ts = level = logger = thread = ""
    for i, part in enumerate(parts[:4]):
        if not ts and (m := _PIPE_TS.fullmatch(part)):
            ts = m["ts"]
        elif not level and (m := _PIPE_LEVEL.fullmatch(part.strip())):
            if not ts:
                return None
            level = normalise_level(m["lvl"])
            break
        elif not logger and _PIPE_LOGGER.fullmatch(part):
            logger = part
        elif not thread and i == 0:
            thread = part.strip()
        else:
            return None
    if not level or len(parts) <= i + 1:
        return None
    rest = _PIPE.split(text, maxsplit=i + 1)[-1]
    if not logger:
        fields = _PIPE.split(rest, maxsplit=1)
        if len(fields) == 2 and _PIPE_LOGGER.fullmatch(fields[0]):
            logger, rest = fields
    family = BROKER if is_broker_logger(logger) else JAVA if _is_java_logger(logger) else TEXT
    return Head(stamp=parse_stamp(ts) if ts else NO_STAMP, ts=ts, level=level, logger=logger, message=rest,
                family=family, thread=thread)


# --- registry ---------------------------------------------------------------------------------------

_DIGIT = (spring, jboss, java, python_dashes, go_log, generic)
_BRACKET = (kafka_log4j, recognise_native, serilog, spdlog, go_log, client_context, level_first, generic)
_LETTER = (recognise_native, level_first, python_basic, ms_console, glog, syslog, logfmt, tool, pipe_fields)
_BY_FIRST: dict[str, tuple[Recogniser, ...]] = {}
for _c in "0123456789":
    _BY_FIRST[_c] = _DIGIT
_BY_FIRST["["] = _BRACKET
_BY_FIRST["{"] = (recognise_json,)
_BY_FIRST["%"] = (recognise_native,)
_BY_FIRST["<"] = (syslog,)


def _candidates(text: str) -> tuple[Recogniser, ...]:
    c = text[:1]
    found = _BY_FIRST.get(c)
    if found is not None:
        return found
    if c.isalpha():
        return _LETTER
    return ()


class Recognisers:
    """Finds the layout of a line: the first recogniser, in priority order, that accepts it."""

    def __call__(self, text: str) -> Head | None:
        if not text or text[0] in " \t":
            return None
        for rec in _candidates(text):
            head = rec(text)
            if head is not None:
                return head
        return None


_shared = Recognisers()


def recognise(text: str) -> Head | None:
    """Module-level convenience (syslog payloads, tests)."""
    return _shared(text)
