"""Identifiers an event names: client.id, transactional.id, group.id, producer id/epoch, topic-partition, states.

Clients spell them many ways (``transactionalId=``, ``transactional.id = ``, ``TransactionalId X:``,
``PID{Id:..,Epoch:..}``, ``ProducerIdAndEpoch(producerId=.., epoch=..)``, ``with producerId P and
producer epoch E``, ``TopicPartition(topic='t', partition=3)``, librdkafka's ``t [3]``). Keyed
spellings are found from their ``=``/``:`` separators; every other pattern starts with a literal
word and runs only when that word is present, so a message that names nothing costs a few
substring probes. The first value found for a field wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEY_FIELDS = {
    "transactionalId": "transactional_id", "transactional.id": "transactional_id", "transactional_id": "transactional_id",
    "transactionalID": "transactional_id", "TransactionalId": "transactional_id", "TransactionalID": "transactional_id",
    "clientId": "client_id", "client.id": "client_id", "client_id": "client_id", "ClientId": "client_id",
    "groupId": "group_id", "group.id": "group_id", "group_id": "group_id", "GroupId": "group_id",
    "consumerGroup": "group_id",
    "producerId": "producer_id", "producer_id": "producer_id", "ProducerId": "producer_id", "producerID": "producer_id",
    "producerEpoch": "producer_epoch", "producer_epoch": "producer_epoch", "ProducerEpoch": "producer_epoch",
    "epoch": "epoch",
    "txnTimeoutMs": "timeout_ms", "transaction.timeout.ms": "timeout_ms", "transaction_timeout_ms": "timeout_ms",
    "transactionTimeoutMs": "timeout_ms", "transactionTimeout": "timeout_ms", "TransactionTimeoutMs": "timeout_ms",
    "txnState": "txn_state", "state": "txn_state", "currentState": "txn_state", "TransactionState": "txn_state",
    "topic": "topic", "partition": "partition",
}
_INT_FIELDS = frozenset({"producer_id", "producer_epoch", "timeout_ms", "partition", "coordinator_id"})
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._")
_VALUE_END = frozenset(" \t,;)]}\"'\n")
_LIST_VALUE = re.compile(r"[^,\]}=\n]{1,200}?(?=, [\w.]+=|[\]}])")
_COLON_KEYS = re.compile(
    r"(?<![\w.])(?P<k>producerId|producer_id|ProducerId|producerEpoch|producer_epoch|ProducerEpoch|transactionalId|"
    r"transactional_id|TransactionalId|clientId|client_id|groupId|group_id|topic|partition|epoch|txnTimeoutMs|"
    r"transactionTimeout|transactionTimeoutMs|state)[\"']?\s*:\s*[\"']?(?P<v>[^\s,;)\]}\"']*)"
)
_CONTEXT = re.compile(r"\[(?:Producer|Consumer|AdminClient|Admin|ShareConsumer|Share Consumer|Streams?) (?P<body>[^\]]*)\]\s*")
_PID_BRACES = re.compile(r"PID\{Id:(?P<p>-?\d+),\s*Epoch:(?P<e>-?\d+)")
_PID_WORDS = re.compile(
    r"roducer(?:[ _]?[Ii][Dd])?(?::| is|=)?\s+(?P<p>-?\d+)(?:'s)?"
    r"(?:(?:,| and| with)?\s*(?:producer )?epoch(?::| is|=)?\s*(?P<e>-?\d+))?"
)
_SET_TO = re.compile(r"set to (?P<p>-?\d+) with epoch (?P<e>-?\d+)")
_PRODUCER_EPOCH = re.compile(r"roducer [Ee]poch(?::| is|=)?\s*(?P<e>-?\d+)")
_STALE_EPOCH = re.compile(r" is (?P<e>-?\d+), which is smaller than the last seen epoch")
_TXN_WORDS = re.compile(r"ransactional(?:Id:?| id| ID)\s+\"?[`']?(?P<t>[^\s\"'`,;)]+?)[`'\"]?(?=:|\s|$|,|;|\))")
_TXN_POSSESSIVE = re.compile(
    r" (?P<t>[^\s']+)'s (?:InitProducerId|AddPartitions|EndTransaction|AddOffsets|TxnOffsetCommit|transaction marker|"
    r"new metadata|state)"
)
_TXN_SARAMA = re.compile(r"txnmgr/[\w-]+ \[(?P<t>[^\]\s]+)\]")
_PID_KGO = re.compile(r"roducer id [^;]*; id: (?P<p>-?\d+), epoch: (?P<e>-?\d+)")
_TXN_COORDINATOR = re.compile(r"(?:no longer the coordinator for|partition that contains|for producer) (?P<t>\S+?)(?:;| which| to the transaction log)")
_GROUP_WORDS = re.compile(r"roup \"?'?(?P<g>[\w.\-]+?)[\"']?(?= in | with | generation|\s*\(|:| has| is|$|\. )")
_TP_PARTITION = re.compile(
    r"artitions?[=:]?\s*[\[(]?(?:HashSet\(|Set\()?(?P<t>[A-Za-z0-9_][\w.\-]*?)-(?P<p>\d+)(?![\w.\-'])"
)
_TP_RECORDS = re.compile(r"ecord(?:s|\(s\)) for (?P<t>[A-Za-z0-9_][\w.\-]*?)-(?P<p>\d+)(?![\w.\-'])")
_TP_PREPOSITION = re.compile(r" (?:in|of|to|from|on|for) (?P<t>[A-Za-z_][\w.\-]*?)-(?P<p>\d+)(?![\w.\-'])")
_RDK_TP = re.compile(
    r"(?:(?<![\w#:])\[(?P<b>[A-Za-z0-9_][\w.\-]*)\]|(?<![\w#\]])\"?(?P<t>[A-Za-z0-9_][\w.\-]*)\"?) \[(?P<p>\d+)\](?!\d)"
)
_TRANSITION = re.compile(
    r"ransition(?:ed)? (?:attempted )?from (?:state )?(?P<f>[A-Za-z_|]+) to (?:error state |state )?(?P<t>[A-Za-z_|]+)"
)
_STATE_CHANGE = re.compile(r"tate (?:change|transition)(?: attempted)?:? (?P<f>[A-Za-z_]+) -> (?P<t>[A-Za-z_]+)")
_IN_STATE = re.compile(r"(?:in state|with state|state is|ransaction state|txn state) (?P<s>[A-Za-z_]+)")
_COORDINATOR = re.compile(r"oordinator \S+ \(id: (?P<id>-?\d+)")
#: Words that follow "transactionalId" in prose rather than an id ("... the same transactionalId which ...",
#: "Transactional id prefixes need to be unique", "transactional id mapping", "transactional.id expiration").
_STOPWORDS = frozenset("""
    which that is was are and or to of the with for in on has have had does did not could can cannot must may
    will would should a an this it its be been being from by as at if when while whose
    prefix prefixes mapping mappings expiration expired authorization ids names name needs need
""".split())
#: Transaction states as the coordinator, the Java client, librdkafka and sarama name them (lower case).
TXN_STATES = frozenset(s.lower() for s in """
    Empty Ongoing PrepareCommit PrepareAbort CompleteCommit CompleteAbort Dead PrepareEpochFence
    UNINITIALIZED INITIALIZING READY IN_TRANSACTION COMMITTING_TRANSACTION ABORTING_TRANSACTION ABORTABLE_ERROR
    FATAL_ERROR PREPARING_TRANSACTION Init WaitPID ReadyNotAcked Ready InTransaction BeginCommit CommittingTransaction
    CommitNotAcked BeginAbort AbortingTransaction AbortedNotAcked AbortableError FatalError
""".split())
_ERROR_NAME = re.compile(r"_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_NULLS = frozenset({"", "null", "None", "none", "-", "<null>", "undefined", "nil"})
#: After a bare preposition, ``x-3`` is a topic-partition only if ``x`` is not a thread or client name.
_NOT_TOPICS = re.compile(
    r"(?:^|[-.|])(?:producer|consumer|admin|adminclient|thread|pool|exec|worker|StreamThread|main|task|node|broker|"
    r"client|group|generation|epoch|id|v)$",
    re.I,
)


@dataclass(slots=True)
class Fields:
    """Values found so far; -1 / '' mean not named."""

    client_id: str = ""
    transactional_id: str = ""
    group_id: str = ""
    producer_id: int = -1
    producer_epoch: int = -1
    topic: str = ""
    partition: int = -1
    coordinator_id: int = -1
    state_from: str = ""
    state_to: str = ""
    timeout_ms: int = -1
    txn_state: str = ""


def _int(value: object) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        return -1


def _text(value: object) -> str:
    text = str(value).strip().strip("\"'`").rstrip(".:")
    return "" if text in _NULLS else text


def strip_context(message: str, fields: Fields) -> str:
    """Read and drop a Kafka client's log-context prefix (``[Producer clientId=p, transactionalId=t] ``)."""
    if "Id=" not in message:
        return message
    m = _CONTEXT.match(message)
    if m is None:
        m = _CONTEXT.search(message)
        if m is not None:
            _context_body(m["body"], fields)
        return message
    _context_body(m["body"], fields)
    return message[m.end():]


def _context_body(body: str, fields: Fields) -> None:
    for part in body.split(","):
        key, _, value = part.strip().partition("=")
        name = _KEY_FIELDS.get(key)
        if name:
            assign(fields, name, value)


def read_pairs(text: str, fields: Fields) -> None:
    """Keyed spellings: ``transactionalId=x``, ``transaction.timeout.ms = 60000``, ``"producerId":1``."""
    last_pid_end = -100
    i = text.find("=")
    while i >= 0:
        j = i
        while j > 0 and text[j - 1] in " \"'":
            j -= 1
        k = j
        while k > 0 and text[k - 1] in _KEY_CHARS:
            k -= 1
        name = _KEY_FIELDS.get(text[k:j]) if j > k else None
        if name:
            v = i + 1
            while v < len(text) and text[v] in " \"'(":
                v += 1
            end = v
            while end < len(text) and text[end] not in _VALUE_END:
                end += 1
            if end < len(text) and text[end] == " " and name in ("transactional_id", "client_id") and k > 0 and text[k - 1] in "[{ ,(":
                m = _LIST_VALUE.match(text, v)  # ``[transactionalId=Sink: my-sink-3, producerId=...]``
                if m:
                    end = m.end()
            last_pid_end = _pair(fields, name, text[v:end], k, end, last_pid_end)
        i = text.find("=", i + 1)
    if ":" in text and ('":' in text or "Id: " in text or "id: " in text or "poch: " in text or "': " in text):
        for m in _COLON_KEYS.finditer(text):
            last_pid_end = _pair(fields, _KEY_FIELDS[m["k"]], m["v"], m.start(), m.end(), last_pid_end)


def _pair(fields: Fields, name: str, value: str, start: int, end: int, last_pid_end: int) -> int:
    if name == "epoch":
        if start - last_pid_end > 40:
            return last_pid_end  # a bare epoch counts only right after a producer id (leader epochs are not ours)
        name = "producer_epoch"
    assign(fields, name, value)
    return end if name == "producer_id" else last_pid_end


def assign(fields: Fields, name: str, value: object) -> None:
    """Set a field unless already set; ints parsed, null-ish texts ignored."""
    if name in _INT_FIELDS:
        if getattr(fields, name) >= 0:
            return
        raw = str(value).strip().rstrip(".,")
        if name == "partition" and not raw.lstrip("-").isdigit():
            _tp_value(fields, raw)  # ``partition=t-0`` (ProducerStateManager, UnifiedLog prefixes)
            return
        number = _int(raw)
        if number >= 0:
            setattr(fields, name, number)
        return
    if not getattr(fields, name):
        text = _text(value)
        if name == "txn_state" and (not text[:1].isalpha() or text.lower() not in TXN_STATES):
            return
        setattr(fields, name, text)


def _tp_value(fields: Fields, value: str) -> None:
    value = value.strip().strip("\"'")
    dash = value.rfind("-")
    if dash > 0 and value[dash + 1:].isdigit() and not fields.topic:
        fields.topic, fields.partition = value[:dash], int(value[dash + 1:])


def read_phrases(text: str, fields: Fields, librdkafka: bool = False) -> None:
    """Unkeyed spellings, each tried only when its marker word is present."""
    if fields.producer_id < 0 or fields.producer_epoch < 0:
        _read_pid(text, fields)
    if not fields.transactional_id:
        _read_txn(text, fields)
    if not fields.group_id and "roup " in text:
        m = _GROUP_WORDS.search(text)
        if m and m["g"].lower() not in _STOPWORDS and _word_start_g(text, m.start() - 1):
            fields.group_id = _text(m["g"])
    if not fields.topic:
        _read_tp(text, fields, librdkafka)
    if not fields.state_from:
        m = None
        if "ransition" in text:
            m = _TRANSITION.search(text)
        if m is None and "tate " in text and " -> " in text:
            m = _STATE_CHANGE.search(text)
        if m is not None:
            fields.state_from, fields.state_to = m["f"], m["t"]
    if not fields.txn_state and "tate " in text:
        m = _IN_STATE.search(text)
        if m and m["s"].lower() in TXN_STATES:
            fields.txn_state = m["s"]
    if fields.coordinator_id < 0 and "(id: " in text:
        m = _COORDINATOR.search(text)
        if m:
            fields.coordinator_id = _int(m["id"])


def _read_pid(text: str, fields: Fields) -> None:
    if "PID{" in text:
        m = _PID_BRACES.search(text)
        if m:
            _set_pid(fields, m["p"], m["e"])
    if fields.producer_id < 0 and "; id: " in text:
        m = _PID_KGO.search(text)
        if m:
            _set_pid(fields, m["p"], m["e"])
    if fields.producer_id < 0 and "set to " in text:
        m = _SET_TO.search(text)
        if m:
            _set_pid(fields, m["p"], m["e"])
    if fields.producer_id < 0 and "roducer" in text:
        for m in _PID_WORDS.finditer(text):
            if _word_start(text, m.start() - 1):
                _set_pid(fields, m["p"], m["e"])
                break
    if fields.producer_epoch < 0 and "poch" in text:
        m = _PRODUCER_EPOCH.search(text) or _STALE_EPOCH.search(text)
        if m:
            fields.producer_epoch = _int(m["e"])


def _word_start(text: str, i: int) -> bool:
    """``text[i]`` is the P of a word "Producer"/"producer" (not "idempotentProducer" or "xproducer")."""
    return i >= 0 and text[i] in "Pp" and (i == 0 or not text[i - 1].isalpha())


def _word_start_g(text: str, i: int) -> bool:
    """``text[i]`` is the G of a word "group"/"Group"."""
    return i >= 0 and text[i] in "Gg" and (i == 0 or not text[i - 1].isalpha())


def _set_pid(fields: Fields, pid: str | None, epoch: str | None) -> None:
    if fields.producer_id < 0 and pid is not None:
        fields.producer_id = _int(pid)
    if fields.producer_epoch < 0 and epoch is not None:
        fields.producer_epoch = _int(epoch)


def _read_txn(text: str, fields: Fields) -> None:
    candidates = []
    if "ransactional" in text:
        candidates.append(_TXN_WORDS)
    if "'s " in text:
        candidates.append(_TXN_POSSESSIVE)
    if "coordinator for" in text or "that contains" in text or "for producer" in text:
        candidates.append(_TXN_COORDINATOR)
    if "txnmgr/" in text:
        candidates.append(_TXN_SARAMA)
    for pattern in candidates:
        for m in pattern.finditer(text):
            value = m["t"]
            if value.lower() not in _STOPWORDS and not value.isdigit() and value[:1] not in "([{<" and not _ERROR_NAME.fullmatch(value):
                fields.transactional_id = _text(value)
                return


def _read_tp(text: str, fields: Fields, librdkafka: bool) -> None:  # noqa: ARG001 - same spelling in every client
    if "artition" in text:
        m = _TP_PARTITION.search(text)
        if m:
            fields.topic, fields.partition = m["t"], int(m["p"])
            return
    if "ecord" in text:
        m = _TP_RECORDS.search(text)
        if m:
            fields.topic, fields.partition = m["t"], int(m["p"])
            return
    if "__transaction_state-" in text or "__consumer_offsets-" in text or " offset " in text:
        for m in _TP_PREPOSITION.finditer(text):
            if m["t"].startswith("__") or not _NOT_TOPICS.search(m["t"]):
                fields.topic, fields.partition = m["t"], int(m["p"])
                return
    if " [" in text and "]" in text:
        for m in _RDK_TP.finditer(text):
            topic = m["b"] or m["t"]
            if not topic.startswith("thrd") and "#" not in topic:
                fields.topic, fields.partition = topic, int(m["p"])
                return
