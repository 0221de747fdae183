"""Client settings written in application code, as the client reads them.

People paste, and commit, the producer's set-up code rather than a properties file: Java, Kotlin or
Scala ``props.put(ProducerConfig.ACKS_CONFIG, "all")`` or ``props.put("acks", "all")``, .NET
``new ProducerConfig { Acks = Acks.Leader, EnableIdempotence = true }`` (or constants with those
names), and the configuration dicts of librdkafka's other bindings (Python ``Producer({'acks': 1})``,
Go ``kafka.ConfigMap{"acks": 1}``, node-rdkafka, Ruby, PHP), whose keys are librdkafka's. A Flink
job's ``KafkaSink.builder()`` chain (or a legacy ``FlinkKafkaProducer`` with ``Semantic.EXACTLY_ONCE``)
and its ``enableCheckpointing(ms)`` make the file a Flink sink's configuration, under the option
names of Flink's table connector. Only literal values are read (a string, a number or a product
of numbers such as ``10 * 60 * 1000 + ""``, a boolean, ``Integer.MAX_VALUE``, an
``Acks``/``IsolationLevel`` member); a transactional.id is kept as written, expression and all, so
that an id made at every start (``UUID.randomUUID()``, ``Guid.NewGuid()``) is seen for what it is.
Commented-out code is not read. Entries point at their lines; they are not rewritten by ``--fix``.
"""

from __future__ import annotations

import ast
import re

from .keys import kafka_keys
from .model import Entry

#: Keys that make a dict a client's configuration rather than some other mapping that shares a name.
_CLIENT_MARKS = {"bootstrap.servers", "metadata.broker.list", "transactional.id", "enable.idempotence", "acks",
                 "request.required.acks", "group.id", "isolation.level"}

JVM_SUFFIXES = (".java", ".kt", ".kts", ".scala", ".groovy")
DOTNET_SUFFIXES = (".cs",)
BINDING_SUFFIXES = (".py", ".go", ".js", ".mjs", ".cjs", ".ts", ".rb", ".php")
CODE_SUFFIXES = JVM_SUFFIXES + DOTNET_SUFFIXES + BINDING_SUFFIXES

#: ``'key': value`` / ``"key" => value`` in a dict, map or hash literal of a binding's configuration.
_DICT_ITEM = re.compile(r"""(?P<q>['"])(?P<key>[a-z][a-z0-9_.\-]*)(?P=q)\s*(?::|=>)\s*(?P<value>[^,\n}\]]+?)\s*(?=[,\n}\]])""")
_BINDING_LITERALS = {"True": "true", "False": "false", "true": "true", "false": "false"}

#: ``put(XConfig.NAME_CONFIG, value)`` / ``put("name", value)`` / ``setProperty(...)``; Kotlin's ``props[...] = v``.
_JVM_PUT = re.compile(
    r"(?:\.(?:put|setProperty)\(\s*|\[\s*)"
    r"(?:(?:ProducerConfig|ConsumerConfig|CommonClientConfigs|StreamsConfig)\.(?P<const>[A-Z_]+?)(?:_CONFIG)?|\"(?P<key>[a-z][a-z0-9.\-]*)\")"
    r"\s*(?:,|\]\s*=)\s*(?P<value>[^;\n]+?)\s*(?:\)\s*;|\)\s*$|;|$)", re.M)
#: Constant names whose key is not their lower-cased, dotted spelling.
_JVM_KEYS = {"TRANSACTION_TIMEOUT": "transaction.timeout.ms"}
_JVM_VALUES = {"Integer.MAX_VALUE": "2147483647", "Long.MAX_VALUE": "9223372036854775807",
               "Boolean.TRUE": "true", "Boolean.FALSE": "false"}
_GUARANTEE = re.compile(r"StreamsConfig\.(EXACTLY_ONCE(?:_V2|_BETA)?|AT_LEAST_ONCE)$")

#: .NET ``ProducerConfig`` / ``ConsumerConfig`` properties and the librdkafka keys they set.
_DOTNET_KEYS = {
    "Acks": "acks", "EnableIdempotence": "enable.idempotence", "TransactionalId": "transactional.id",
    "TransactionTimeoutMs": "transaction.timeout.ms", "MessageTimeoutMs": "message.timeout.ms",
    "MessageSendMaxRetries": "message.send.max.retries", "MaxInFlight": "max.in.flight.requests.per.connection",
    "RequestTimeoutMs": "request.timeout.ms", "SocketTimeoutMs": "socket.timeout.ms", "LingerMs": "linger.ms",
    "BootstrapServers": "bootstrap.servers", "IsolationLevel": "isolation.level", "EnableAutoCommit": "enable.auto.commit",
}
_DOTNET_SET = re.compile(r"(?<![\w.])(?P<name>" + "|".join(_DOTNET_KEYS) + r")\s*=\s*(?P<value>[^,;\n}]+?)\s*(?=[,;\n}])")
_DOTNET_ENUMS = {"Acks.All": "all", "Acks.Leader": "1", "Acks.None": "0",
                 "IsolationLevel.ReadCommitted": "read_committed", "IsolationLevel.ReadUncommitted": "read_uncommitted"}
_NUMBER = re.compile(r"-?\d+(?:_\d+)*[lL]?$")
#: Integer arithmetic as code writes a duration: ``10 * 60 * 1000``, ``(5 * 60 + 30) * 1000L``.
_PRODUCT = re.compile(r"[\d_lL\s*+()-]+$")
#: What turns a number into the string a property takes: ``x + ""``, ``String.valueOf(x)``.
_AS_STRING = re.compile(r'^(?:String\.valueOf|Integer\.toString|Long\.toString)\((?P<a>.*)\)$|^(?P<b>.*?)\s*\+\s*""$|^""\s*\+\s*(?P<c>.*)$')

#: Flink's DataStream sink: the builder chain, its guarantee and prefix, and checkpointing.
_FLINK_SINK = re.compile(r"KafkaSink\s*\.\s*(?:<[^>]*>\s*)?builder\s*\(\s*\)")
_FLINK_LEGACY = re.compile(r"FlinkKafkaProducer\w*\s*\.\s*Semantic\s*\.\s*(?P<value>EXACTLY_ONCE|AT_LEAST_ONCE|NONE)\b")
#: ``setDeliverGuarantee`` is Flink 1.14's spelling of ``setDeliveryGuarantee`` (deprecated in 1.15).
_FLINK_CALL = re.compile(
    r"\.\s*(?P<call>setDeliv(?:ery|er)Guarantee|setTransactionalIdPrefix)\s*\(\s*(?P<args>[^;]*?)\)\s*(?=[.;\s])")
_FLINK_BUILD = re.compile(r"\.\s*build\s*\(\s*\)\s*;")
_CHECKPOINTING = re.compile(
    r"\.\s*(?P<call>enableCheckpointing|setCheckpointInterval|setCheckpointTimeout)\s*\(\s*(?P<value>[^,;)]+(?:\([^)]*\))?)")
_CHECKPOINT_KEYS = {"enableCheckpointing": "execution.checkpointing.interval",
                    "setCheckpointInterval": "execution.checkpointing.interval",
                    "setCheckpointTimeout": "execution.checkpointing.timeout"}
#: Keys only a Flink sink's configuration has: the file is Flink's when it has one.
FLINK_MARKS = ("sink.", "execution.checkpointing.")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"$')


def code_dialect(text: str, suffix: str) -> str | None:
    """``java`` or ``librdkafka`` for code that sets client properties (or builds a Flink sink), None otherwise."""
    if suffix in JVM_SUFFIXES:
        code = without_comments(text)
        if any(m["const"] or m["key"] for m in _JVM_PUT.finditer(code)) or _FLINK_SINK.search(code) or _FLINK_LEGACY.search(code):
            return "java"
    if suffix in DOTNET_SUFFIXES and "Confluent.Kafka" in text and _DOTNET_SET.search(without_comments(text)):
        return "librdkafka"
    if suffix in BINDING_SUFFIXES:
        keys = {m["key"] for m in _DICT_ITEM.finditer(text)} & kafka_keys()
        if len(keys) >= 2 and keys & _CLIENT_MARKS:
            return "librdkafka"
    return None


def dialect_of(suffix: str, keys: list[str] | None = None) -> str:
    """The dialect of code ``code_dialect`` already recognised: JVM code is Java's, or Flink's when
    ``keys`` (what ``parse_code_config`` read) include a sink's options."""
    if suffix not in JVM_SUFFIXES:
        return "librdkafka"
    return "flink" if any(k.startswith(FLINK_MARKS) for k in keys or ()) else "java"


#: A C-family string or character literal (left alone) or a comment (blanked).
_LITERAL_OR_COMMENT = re.compile(r""""(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*.*?(?:\*/|\Z)""", re.S)


def without_comments(text: str) -> str:
    """C-family code with its ``//`` and ``/* */`` comments blanked (newlines kept, so offsets and
    lines stay); string and character literals are left alone, so a URL's ``//`` is not a comment."""

    def blank(m: re.Match) -> str:
        s = m.group(0)
        return s if s[0] in "\"'" else re.sub(r"[^\n]", " ", s)

    return _LITERAL_OR_COMMENT.sub(blank, text)


def parse_code_config(text: str, suffix: str) -> list[Entry]:
    """The literal client settings of the code, in file order (the last of a key wins, as in a file)."""
    out: list[Entry] = []
    if suffix in JVM_SUFFIXES:
        code = without_comments(text)
        for m in _JVM_PUT.finditer(code):
            key = _jvm_key(m)
            value = _jvm_value(key, m["value"])
            if value is not None:
                out.append(_entry(code, m, key, value))
        flink = _flink_sink(code)
        if flink:
            out = sorted(out + flink, key=lambda e: (e.line, e.column or 0))
    elif suffix in DOTNET_SUFFIXES:
        for m in _DOTNET_SET.finditer(without_comments(text)):
            key = _DOTNET_KEYS[m["name"]]
            value = _dotnet_value(key, m["value"])
            if value is not None:
                out.append(_entry(text, m, key, value))
    elif suffix in BINDING_SUFFIXES:
        known = kafka_keys()
        for m in _DICT_ITEM.finditer(text):
            if m["key"] not in known:
                continue
            raw = m["value"].strip()
            value = _BINDING_LITERALS.get(raw) or _literal(m["key"], raw.replace("'", '"') if raw[:1] == "'" else raw)
            if value is not None:
                out.append(_entry(text, m, m["key"], value))
    return out


def _jvm_key(m: re.Match) -> str:
    return m["key"] or _JVM_KEYS.get(m["const"] or "", (m["const"] or "").lower().replace("_", "."))


def _jvm_value(key: str, raw: str) -> str | None:
    raw = raw.strip()
    if raw in _JVM_VALUES:
        return _JVM_VALUES[raw]
    guarantee = _GUARANTEE.search(raw)
    if guarantee:
        return guarantee.group(1).lower()
    value = _literal(key, raw)
    return value if value is not None else _number(raw)


def _number(raw: str) -> str | None:
    """The value of integer arithmetic, also turned into a string (``10 * 60 * 1000 + ""``); None otherwise."""
    s = _AS_STRING.match(raw.strip())
    if s:
        raw = s["a"] or s["b"] or s["c"] or ""
    raw = raw.strip()
    if not raw or not _PRODUCT.match(raw) or not any(ch.isdigit() for ch in raw):
        return None
    expr = re.sub(r"(?<=\d)[lL]\b", "", raw).replace("_", "")
    try:
        value = _arithmetic(ast.parse(expr, mode="eval").body)
    except (SyntaxError, ValueError):
        return None
    return str(value)


def _arithmetic(node: ast.expr) -> int:
    """The value of integer constants joined by + - *; ValueError for anything else."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_arithmetic(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        return left + right if isinstance(node.op, ast.Add) else left - right if isinstance(node.op, ast.Sub) else left * right
    raise ValueError("not integer arithmetic")


def _flink_sink(code: str) -> list[Entry]:
    """A Flink sink's options from its builder chain (or legacy producer) and the job's checkpointing."""
    out: list[Entry] = []
    for start in _FLINK_SINK.finditer(code):
        end = _FLINK_BUILD.search(code, start.end())
        stop = end.end() if end else len(code)
        for m in _FLINK_CALL.finditer(code, start.end(), stop):
            args = m["args"].strip()
            if m["call"] != "setTransactionalIdPrefix":
                out.append(_entry(code, m, "sink.delivery-guarantee", args.rsplit(".", 1)[-1].lower().replace("_", "-")))
            else:  # its setProperty calls are read with every other put of the file
                out.append(_entry(code, m, "sink.transactional-id-prefix", _literal("transactional.id", args) or args))
    for m in _FLINK_LEGACY.finditer(code):
        out.append(_entry(code, m, "sink.semantic", m["value"].lower().replace("_", "-")))
    if out:
        for m in _CHECKPOINTING.finditer(code):
            value = _number(m["value"])
            if value is not None:
                out.append(_entry(code, m, _CHECKPOINT_KEYS[m["call"]], value))
    return out


def _dotnet_value(key: str, raw: str) -> str | None:
    raw = raw.strip()
    for name, value in _DOTNET_ENUMS.items():
        if raw == name or raw.endswith("." + name):
            return value
    return _literal(key, raw)


def _literal(key: str, raw: str) -> str | None:
    string = _STRING.match(raw)
    if string:
        return string.group(1)
    if raw in ("true", "false"):
        return raw
    if _NUMBER.match(raw):
        return raw.rstrip("lL").replace("_", "")
    # An id computed when the code runs is kept as written: its shape (a random UUID) is the finding.
    return raw if key == "transactional.id" else None


def _entry(text: str, m: re.Match, key: str, value: str) -> Entry:
    line = text.count("\n", 0, m.start()) + 1
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return Entry(key=key, value=value, line=line, column=column, end_line=line)
