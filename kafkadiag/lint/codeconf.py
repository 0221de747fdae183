"""Client settings written in application code, as the client reads them.

People paste, and commit, the producer's set-up code rather than a properties file: Java, Kotlin or
Scala ``props.put(ProducerConfig.ACKS_CONFIG, "all")`` or ``props.put("acks", "all")``, .NET
``new ProducerConfig { Acks = Acks.Leader, EnableIdempotence = true }`` (or constants with those
names), and the configuration dicts of librdkafka's other bindings (Python ``Producer({'acks': 1})``,
Go ``kafka.ConfigMap{"acks": 1}``, node-rdkafka, Ruby, PHP), whose keys are librdkafka's. Only literal values are read (a string, a number, a boolean, ``Integer.MAX_VALUE``, an
``Acks``/``IsolationLevel`` member); a transactional.id is kept as written, expression and all, so
that an id made at every start (``UUID.randomUUID()``, ``Guid.NewGuid()``) is seen for what it is.
Entries point at their lines; they are not rewritten by ``--fix``.
"""

from __future__ import annotations

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
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"$')


def code_dialect(text: str, suffix: str) -> str | None:
    """``java`` or ``librdkafka`` for code that sets client properties, None otherwise."""
    if suffix in JVM_SUFFIXES and any(m["const"] or m["key"] for m in _JVM_PUT.finditer(text)):
        return "java"
    if suffix in DOTNET_SUFFIXES and "Confluent.Kafka" in text and _DOTNET_SET.search(text):
        return "librdkafka"
    if suffix in BINDING_SUFFIXES:
        keys = {m["key"] for m in _DICT_ITEM.finditer(text)} & kafka_keys()
        if len(keys) >= 2 and keys & _CLIENT_MARKS:
            return "librdkafka"
    return None


def dialect_of(suffix: str) -> str:
    """The dialect of code ``code_dialect`` already recognised: only JVM code is Java's."""
    return "java" if suffix in JVM_SUFFIXES else "librdkafka"


def parse_code_config(text: str, suffix: str) -> list[Entry]:
    """The literal client settings of the code, in file order (the last of a key wins, as in a file)."""
    out: list[Entry] = []
    if suffix in JVM_SUFFIXES:
        for m in _JVM_PUT.finditer(text):
            key = m["key"] or _JVM_KEYS.get(m["const"] or "", (m["const"] or "").lower().replace("_", "."))
            value = _jvm_value(key, m["value"])
            if value is not None:
                out.append(_entry(text, m, key, value))
    elif suffix in DOTNET_SUFFIXES:
        for m in _DOTNET_SET.finditer(text):
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


def _jvm_value(key: str, raw: str) -> str | None:
    raw = raw.strip()
    if raw in _JVM_VALUES:
        return _JVM_VALUES[raw]
    guarantee = _GUARANTEE.search(raw)
    if guarantee:
        return guarantee.group(1).lower()
    return _literal(key, raw)


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
