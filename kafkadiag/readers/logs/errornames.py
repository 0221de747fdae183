"""The vocabulary of error names: Kafka protocol errors, librdkafka local codes and how clients spell them.

Every client prints the same broker error differently (Java's enum name or exception class,
librdkafka's ``Broker: ...`` text, sarama's ``kafka server: ...``, aiokafka's class, KafkaJS's
``type``). Rules should see one spelling, so this module maps all of them onto the Kafka protocol
name (``PRODUCER_FENCED``) and librdkafka's local codes onto their name without the leading
underscore (``_FENCED`` -> ``FENCED``).
"""

from __future__ import annotations

import re

#: Kafka protocol error names (org.apache.kafka.common.protocol.Errors), NONE left out.
KAFKA_ERRORS = frozenset(
    """
    UNKNOWN_SERVER_ERROR OFFSET_OUT_OF_RANGE CORRUPT_MESSAGE UNKNOWN_TOPIC_OR_PARTITION INVALID_FETCH_SIZE
    LEADER_NOT_AVAILABLE NOT_LEADER_OR_FOLLOWER REQUEST_TIMED_OUT BROKER_NOT_AVAILABLE REPLICA_NOT_AVAILABLE
    MESSAGE_TOO_LARGE STALE_CONTROLLER_EPOCH OFFSET_METADATA_TOO_LARGE NETWORK_EXCEPTION
    COORDINATOR_LOAD_IN_PROGRESS COORDINATOR_NOT_AVAILABLE NOT_COORDINATOR INVALID_TOPIC_EXCEPTION
    RECORD_LIST_TOO_LARGE NOT_ENOUGH_REPLICAS NOT_ENOUGH_REPLICAS_AFTER_APPEND INVALID_REQUIRED_ACKS
    ILLEGAL_GENERATION INCONSISTENT_GROUP_PROTOCOL INVALID_GROUP_ID UNKNOWN_MEMBER_ID INVALID_SESSION_TIMEOUT
    REBALANCE_IN_PROGRESS INVALID_COMMIT_OFFSET_SIZE TOPIC_AUTHORIZATION_FAILED GROUP_AUTHORIZATION_FAILED
    CLUSTER_AUTHORIZATION_FAILED INVALID_TIMESTAMP UNSUPPORTED_SASL_MECHANISM ILLEGAL_SASL_STATE
    UNSUPPORTED_VERSION TOPIC_ALREADY_EXISTS INVALID_PARTITIONS INVALID_REPLICATION_FACTOR
    INVALID_REPLICA_ASSIGNMENT INVALID_CONFIG NOT_CONTROLLER INVALID_REQUEST UNSUPPORTED_FOR_MESSAGE_FORMAT
    POLICY_VIOLATION OUT_OF_ORDER_SEQUENCE_NUMBER DUPLICATE_SEQUENCE_NUMBER INVALID_PRODUCER_EPOCH
    INVALID_TXN_STATE INVALID_PRODUCER_ID_MAPPING INVALID_TRANSACTION_TIMEOUT CONCURRENT_TRANSACTIONS
    TRANSACTION_COORDINATOR_FENCED TRANSACTIONAL_ID_AUTHORIZATION_FAILED SECURITY_DISABLED
    OPERATION_NOT_ATTEMPTED KAFKA_STORAGE_ERROR LOG_DIR_NOT_FOUND SASL_AUTHENTICATION_FAILED
    UNKNOWN_PRODUCER_ID REASSIGNMENT_IN_PROGRESS DELEGATION_TOKEN_AUTH_DISABLED DELEGATION_TOKEN_NOT_FOUND
    DELEGATION_TOKEN_OWNER_MISMATCH DELEGATION_TOKEN_REQUEST_NOT_ALLOWED DELEGATION_TOKEN_AUTHORIZATION_FAILED
    DELEGATION_TOKEN_EXPIRED INVALID_PRINCIPAL_TYPE NON_EMPTY_GROUP GROUP_ID_NOT_FOUND
    FETCH_SESSION_ID_NOT_FOUND INVALID_FETCH_SESSION_EPOCH LISTENER_NOT_FOUND TOPIC_DELETION_DISABLED
    FENCED_LEADER_EPOCH UNKNOWN_LEADER_EPOCH UNSUPPORTED_COMPRESSION_TYPE STALE_BROKER_EPOCH
    OFFSET_NOT_AVAILABLE MEMBER_ID_REQUIRED PREFERRED_LEADER_NOT_AVAILABLE GROUP_MAX_SIZE_REACHED
    FENCED_INSTANCE_ID ELIGIBLE_LEADERS_NOT_AVAILABLE ELECTION_NOT_NEEDED NO_REASSIGNMENT_IN_PROGRESS
    GROUP_SUBSCRIBED_TO_TOPIC INVALID_RECORD UNSTABLE_OFFSET_COMMIT THROTTLING_QUOTA_EXCEEDED PRODUCER_FENCED
    RESOURCE_NOT_FOUND DUPLICATE_RESOURCE UNACCEPTABLE_CREDENTIAL INCONSISTENT_VOTER_SET INVALID_UPDATE_VERSION
    FEATURE_UPDATE_FAILED PRINCIPAL_DESERIALIZATION_FAILURE SNAPSHOT_NOT_FOUND POSITION_OUT_OF_RANGE
    UNKNOWN_TOPIC_ID DUPLICATE_BROKER_REGISTRATION BROKER_ID_NOT_REGISTERED INCONSISTENT_TOPIC_ID
    INCONSISTENT_CLUSTER_ID TRANSACTIONAL_ID_NOT_FOUND FETCH_SESSION_TOPIC_ID_ERROR INELIGIBLE_REPLICA
    NEW_LEADER_ELECTED OFFSET_MOVED_TO_TIERED_STORAGE FENCED_MEMBER_EPOCH UNRELEASED_INSTANCE_ID
    UNSUPPORTED_ASSIGNOR STALE_MEMBER_EPOCH MISMATCHED_ENDPOINT_TYPE UNSUPPORTED_ENDPOINT_TYPE
    UNKNOWN_CONTROLLER_ID UNKNOWN_SUBSCRIPTION_ID TELEMETRY_TOO_LARGE INVALID_REGISTRATION
    TRANSACTION_ABORTABLE INVALID_RECORD_STATE SHARE_SESSION_NOT_FOUND INVALID_SHARE_SESSION_EPOCH
    FENCED_STATE_EPOCH INVALID_VOTER_KEY DUPLICATE_VOTER VOTER_NOT_FOUND
    """.split()
)

#: Older or client-specific spellings of protocol errors -> the current protocol name.
ALIASES = {
    "NOT_LEADER_FOR_PARTITION": "NOT_LEADER_OR_FOLLOWER",
    "UNKNOWN_TOPIC_OR_PART": "UNKNOWN_TOPIC_OR_PARTITION",
    "MSG_SIZE_TOO_LARGE": "MESSAGE_TOO_LARGE",
    "INVALID_MSG": "CORRUPT_MESSAGE",
    "INVALID_MSG_SIZE": "INVALID_FETCH_SIZE",
    "STALE_CTRL_EPOCH": "STALE_CONTROLLER_EPOCH",
    "TOPIC_EXCEPTION": "INVALID_TOPIC_EXCEPTION",
    "INVALID_PRODUCER_IDMAPPING": "INVALID_PRODUCER_ID_MAPPING",
    "INVALID_TRANSACTION_STATE": "INVALID_TXN_STATE",
    "NOT_COORDINATOR_FOR_GROUP": "NOT_COORDINATOR",
    "GROUP_COORDINATOR_NOT_AVAILABLE": "COORDINATOR_NOT_AVAILABLE",
    "GROUP_LOAD_IN_PROGRESS": "COORDINATOR_LOAD_IN_PROGRESS",
}

#: librdkafka local (negative) error codes, by name without the leading underscore.
LOCAL_ERRORS = frozenset(
    """
    BAD_MSG BAD_COMPRESSION DESTROY FAIL TRANSPORT CRIT_SYS_RESOURCE RESOLVE MSG_TIMED_OUT PARTITION_EOF
    UNKNOWN_PARTITION FS UNKNOWN_TOPIC ALL_BROKERS_DOWN INVALID_ARG TIMED_OUT QUEUE_FULL ISR_INSUFF
    NODE_UPDATE SSL WAIT_COORD UNKNOWN_GROUP IN_PROGRESS PREV_IN_PROGRESS EXISTING_SUBSCRIPTION
    ASSIGN_PARTITIONS REVOKE_PARTITIONS CONFLICT STATE UNKNOWN_PROTOCOL NOT_IMPLEMENTED AUTHENTICATION
    NO_OFFSET OUTDATED TIMED_OUT_QUEUE UNSUPPORTED_FEATURE WAIT_CACHE INTR KEY_SERIALIZATION
    VALUE_SERIALIZATION KEY_DESERIALIZATION VALUE_DESERIALIZATION PARTIAL READ_ONLY NOENT UNDERFLOW
    INVALID_TYPE RETRY PURGE_QUEUE PURGE_INFLIGHT FATAL INCONSISTENT GAPLESS_GUARANTEE MAX_POLL_EXCEEDED
    UNKNOWN_BROKER NOT_CONFIGURED FENCED APPLICATION ASSIGNMENT_LOST NOOP AUTO_OFFSET_RESET LOG_TRUNCATION
    INVALID_DIFFERENT_RECORD
    """.split()
)

#: Exception classes whose name does not spell their error (one-to-one mappings only).
EXCEPTION_ERRORS = {
    "InvalidPidMappingException": "INVALID_PRODUCER_ID_MAPPING",
    "OutOfOrderSequenceException": "OUT_OF_ORDER_SEQUENCE_NUMBER",
    "DuplicateSequenceException": "DUPLICATE_SEQUENCE_NUMBER",
    "DuplicateSequenceNumberException": "DUPLICATE_SEQUENCE_NUMBER",
    "InvalidTxnTimeoutException": "INVALID_TRANSACTION_TIMEOUT",
    "TransactionalIdAuthorizationException": "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
    "TopicAuthorizationException": "TOPIC_AUTHORIZATION_FAILED",
    "GroupAuthorizationException": "GROUP_AUTHORIZATION_FAILED",
    "ClusterAuthorizationException": "CLUSTER_AUTHORIZATION_FAILED",
    "DelegationTokenAuthorizationException": "DELEGATION_TOKEN_AUTHORIZATION_FAILED",
    "RecordTooLargeException": "MESSAGE_TOO_LARGE",
    "RecordBatchTooLargeException": "RECORD_LIST_TOO_LARGE",
    "CorruptRecordException": "CORRUPT_MESSAGE",
    "UnknownServerException": "UNKNOWN_SERVER_ERROR",
    "NetworkException": "NETWORK_EXCEPTION",
    "InvalidTopicException": "INVALID_TOPIC_EXCEPTION",
    "KafkaStorageException": "KAFKA_STORAGE_ERROR",
    "NotLeaderForPartitionException": "NOT_LEADER_OR_FOLLOWER",
    "ControllerMovedException": "STALE_CONTROLLER_EPOCH",
    "InvalidConfigurationException": "INVALID_CONFIG",
    "TopicExistsException": "TOPIC_ALREADY_EXISTS",
    # aiokafka / kafka-python spellings
    "InvalidProducerIdMapping": "INVALID_PRODUCER_ID_MAPPING",
    "InvalidPidMappingError": "INVALID_PRODUCER_ID_MAPPING",
    "RequestTimedOutError": "REQUEST_TIMED_OUT",
    "OutOfOrderSequenceNumberError": "OUT_OF_ORDER_SEQUENCE_NUMBER",
}

#: Exception simple names that are never an error name even though they end like one.
_NOT_ERRORS = frozenset({"TimeoutException", "KafkaTimeoutError", "KafkaException", "KafkaError", "ApiException"})

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SUFFIX = re.compile(r"(?:Exception|Error)$")


def error_of_exception(simple_name: str) -> str:
    """Protocol error name of an exception class, '' when it is not one-to-one with one."""
    if simple_name in EXCEPTION_ERRORS:
        return EXCEPTION_ERRORS[simple_name]
    if simple_name in _NOT_ERRORS:
        return ""
    base = _SUFFIX.sub("", simple_name)
    if not base or not base[0].isupper():
        return ""
    snake = _CAMEL.sub("_", base).upper()
    if snake in KAFKA_ERRORS:
        return snake
    if snake.endswith("_AUTHORIZATION") and snake + "_FAILED" in KAFKA_ERRORS:
        return snake + "_FAILED"
    return ALIASES.get(snake, "")


def error_of_token(token: str) -> str:
    """Normalised name of an UPPER_SNAKE token (``_FENCED`` -> ``FENCED``), '' if not an error name."""
    if token.startswith("_"):
        name = token.lstrip("_")
        return name if name in LOCAL_ERRORS else ""
    if token in KAFKA_ERRORS:
        return token
    return ALIASES.get(token, "")


def error_of_dotnet_code(code: str) -> str:
    """Confluent.Kafka ``ErrorCode`` member (``Local_Fenced``, ``InvalidProducerEpoch``) -> error name."""
    if code.startswith("Local_"):
        name = _CAMEL.sub("_", code[6:]).upper()
        return name if name in LOCAL_ERRORS else ""
    return error_of_exception(code)


# ---------------------------------------------------------------------------------------------
# Error texts (librdkafka err2str, sarama, KafkaJS, Java Errors descriptions), lower case
# ---------------------------------------------------------------------------------------------

_LOCAL_TEXTS = {
    "bad message format": "BAD_MSG",
    "invalid compressed data": "BAD_COMPRESSION",
    "broker handle destroyed": "DESTROY",
    "communication failure with broker": "FAIL",
    "broker transport failure": "TRANSPORT",
    "critical system resource failure": "CRIT_SYS_RESOURCE",
    "host resolution failure": "RESOLVE",
    "message timed out": "MSG_TIMED_OUT",
    "unknown partition": "UNKNOWN_PARTITION",
    "unknown topic": "UNKNOWN_TOPIC",
    "all broker connections are down": "ALL_BROKERS_DOWN",
    "invalid argument or configuration": "INVALID_ARG",
    "timed out in queue": "TIMED_OUT_QUEUE",
    "timed out": "TIMED_OUT",
    "queue full": "QUEUE_FULL",
    "isr count insufficient": "ISR_INSUFF",
    "ssl error": "SSL",
    "waiting for coordinator": "WAIT_COORD",
    "unknown group": "UNKNOWN_GROUP",
    "operation in progress": "IN_PROGRESS",
    "previous operation in progress": "PREV_IN_PROGRESS",
    "conflicting use": "CONFLICT",
    "erroneous state": "STATE",
    "not implemented": "NOT_IMPLEMENTED",
    "authentication failure": "AUTHENTICATION",
    "outdated": "OUTDATED",
    "required feature not supported by broker": "UNSUPPORTED_FEATURE",
    "operation interrupted": "INTR",
    "purged in queue": "PURGE_QUEUE",
    "purged in flight": "PURGE_INFLIGHT",
    "fatal error": "FATAL",
    "inconsistent state": "INCONSISTENT",
    "gap-less ordering would not be guaranteed if proceeding": "GAPLESS_GUARANTEE",
    "maximum application poll interval (max.poll.interval.ms) exceeded": "MAX_POLL_EXCEEDED",
    "functionality not configured": "NOT_CONFIGURED",
    "this instance has been fenced by a newer instance": "FENCED",
    "application generated error": "APPLICATION",
    "group partition assignment lost": "ASSIGNMENT_LOST",
    "partition log truncation detected": "LOG_TRUNCATION",
}

_BROKER_TEXTS = {
    "unknown topic or partition": "UNKNOWN_TOPIC_OR_PARTITION",
    "leader not available": "LEADER_NOT_AVAILABLE",
    "not leader for partition": "NOT_LEADER_OR_FOLLOWER",
    "request timed out": "REQUEST_TIMED_OUT",
    "broker not available": "BROKER_NOT_AVAILABLE",
    "message size too large": "MESSAGE_TOO_LARGE",
    "broker disconnected before response received": "NETWORK_EXCEPTION",
    "coordinator load in progress": "COORDINATOR_LOAD_IN_PROGRESS",
    "coordinator not available": "COORDINATOR_NOT_AVAILABLE",
    "not coordinator": "NOT_COORDINATOR",
    "not enough in-sync replicas": "NOT_ENOUGH_REPLICAS",
    "message(s) written to insufficient number of in-sync replicas": "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
    "topic authorization failed": "TOPIC_AUTHORIZATION_FAILED",
    "group authorization failed": "GROUP_AUTHORIZATION_FAILED",
    "cluster authorization failed": "CLUSTER_AUTHORIZATION_FAILED",
    "api version not supported": "UNSUPPORTED_VERSION",
    "invalid request": "INVALID_REQUEST",
    "message format on broker does not support request": "UNSUPPORTED_FOR_MESSAGE_FORMAT",
    "broker received an out of order sequence number": "OUT_OF_ORDER_SEQUENCE_NUMBER",
    "broker received a duplicate sequence number": "DUPLICATE_SEQUENCE_NUMBER",
    "producer attempted an operation with an old epoch": "INVALID_PRODUCER_EPOCH",
    "producer attempted a transactional operation in an invalid state": "INVALID_TXN_STATE",
    "producer attempted to use a producer id which is not currently assigned to its transactional id": "INVALID_PRODUCER_ID_MAPPING",
    "transaction timeout is larger than the maximum value allowed by the broker's max.transaction.timeout.ms": "INVALID_TRANSACTION_TIMEOUT",
    "producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing": "CONCURRENT_TRANSACTIONS",
    "indicates that the transaction coordinator sending a writetxnmarker is no longer the current coordinator for a given producer": "TRANSACTION_COORDINATOR_FENCED",
    "transactional id authorization failed": "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
    "operation not attempted": "OPERATION_NOT_ATTEMPTED",
    "disk error when trying to access log file on disk": "KAFKA_STORAGE_ERROR",
    "unknown producer id": "UNKNOWN_PRODUCER_ID",
    "there is a newer producer with the same transactionalid which fences the current one": "PRODUCER_FENCED",
    "static consumer fenced by other consumer with same group.instance.id": "FENCED_INSTANCE_ID",
    "group rebalance in progress": "REBALANCE_IN_PROGRESS",
    "unknown member": "UNKNOWN_MEMBER_ID",
    "specified group generation id is not valid": "ILLEGAL_GENERATION",
    "there are unstable offsets that need to be cleared": "UNSTABLE_OFFSET_COMMIT",
    "transactional id not found": "TRANSACTIONAL_ID_NOT_FOUND",
    "the server experienced an unexpected error when processing the request": "UNKNOWN_SERVER_ERROR",
    "unknown broker error": "UNKNOWN_SERVER_ERROR",
}

#: Phrases that name an error in any client's wording (Java descriptions, sarama, KafkaJS, aiokafka).
_PHRASES = {
    "producer attempted an operation with an old epoch": "INVALID_PRODUCER_EPOCH",
    "producer attempted to produce with an old epoch": "INVALID_PRODUCER_EPOCH",
    "there is a newer producer with the same transactionalid which fences the current one": "PRODUCER_FENCED",
    "there is a newer producer using the same transactional_id": "PRODUCER_FENCED",
    "attempted to use a producer id which is not currently assigned to its transactional id": "INVALID_PRODUCER_ID_MAPPING",
    "attempted a transactional operation in an invalid state": "INVALID_TXN_STATE",
    "transaction timeout is larger than the maximum value allowed by the broker": "INVALID_TRANSACTION_TIMEOUT",
    "update a transaction while another concurrent operation on the same transaction was ongoing": "CONCURRENT_TRANSACTIONS",
    "transaction coordinator sending a writetxnmarker is no longer the current coordinator": "TRANSACTION_COORDINATOR_FENCED",
    "transactional id authorization failed": "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
    "received an out of order sequence number": "OUT_OF_ORDER_SEQUENCE_NUMBER",
    "received a duplicate sequence number": "DUPLICATE_SEQUENCE_NUMBER",
    "could not locate the producer metadata associated with the producerid": "UNKNOWN_PRODUCER_ID",
    "the coordinator is loading and hence can't process requests": "COORDINATOR_LOAD_IN_PROGRESS",
    "the coordinator is not available": "COORDINATOR_NOT_AVAILABLE",
    "this is not the correct coordinator": "NOT_COORDINATOR",
    "the transactionalid could not be found": "TRANSACTIONAL_ID_NOT_FOUND",
    "the server encountered an error with the transaction": "TRANSACTION_ABORTABLE",
    "this instance has been fenced by a newer instance": "FENCED",
}


def _alternation(texts: dict[str, str]) -> str:
    return "|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True))


_CODED_TEXT = re.compile(
    r"(?:local: (" + _alternation(_LOCAL_TEXTS) + r")|broker: (" + _alternation(_BROKER_TEXTS) + r"))"
)
#: Cheap test before the phrase search: every phrase contains one of these.
_PHRASE_HINTS = ("epoch", "newer producer", "producer id", "transaction", "sequence number", "producerid",
                 "coordinator", "instance")


def errors_in_text(lowered: str) -> list[tuple[int, str]]:
    """``(position, name)`` of every error named by an error text in ``lowered`` (already lower case)."""
    found: list[tuple[int, str]] = []
    if "local: " in lowered or "broker: " in lowered:
        for m in _CODED_TEXT.finditer(lowered):
            name = _LOCAL_TEXTS[m.group(1)] if m.group(1) else _BROKER_TEXTS[m.group(2)]
            found.append((m.start(), name))
    for hint in _PHRASE_HINTS:
        if hint in lowered:
            for phrase, name in _PHRASES.items():
                pos = lowered.find(phrase)
                if pos >= 0:
                    found.append((pos, name))
            break
    return found


# ---------------------------------------------------------------------------------------------
# Which error is the event's main one
# ---------------------------------------------------------------------------------------------

_TIER0 = frozenset(
    """
    PRODUCER_FENCED INVALID_PRODUCER_EPOCH FENCED INVALID_PRODUCER_ID_MAPPING TRANSACTIONAL_ID_NOT_FOUND
    INVALID_TXN_STATE OUT_OF_ORDER_SEQUENCE_NUMBER UNKNOWN_PRODUCER_ID INVALID_TRANSACTION_TIMEOUT
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED CONCURRENT_TRANSACTIONS TRANSACTION_ABORTABLE
    TRANSACTION_COORDINATOR_FENCED DUPLICATE_SEQUENCE_NUMBER
    """.split()
)
_TIER1 = frozenset(
    """
    COORDINATOR_NOT_AVAILABLE NOT_COORDINATOR COORDINATOR_LOAD_IN_PROGRESS REQUEST_TIMED_OUT TIMED_OUT
    MSG_TIMED_OUT TIMED_OUT_QUEUE CLUSTER_AUTHORIZATION_FAILED TOPIC_AUTHORIZATION_FAILED
    GROUP_AUTHORIZATION_FAILED FATAL
    """.split()
)


def tier(name: str) -> int:
    """0 for transaction errors, 1 for coordinator/timeout/authorization errors, 2 for the rest."""
    return 0 if name in _TIER0 else 1 if name in _TIER1 else 2


def main_error(names: list[str]) -> str:
    """The most telling of the event's errors (first of the best tier); '' when there are none."""
    best = ""
    best_tier = 3
    for name in names:
        t = tier(name)
        if t < best_tier:
            best, best_tier = name, t
    return best


# ---------------------------------------------------------------------------------------------
# Finding them in a text
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:RD_KAFKA_RESP_ERR_|ERR_)?(?P<n>_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|_[A-Z][A-Z0-9]+)(?![A-Za-z0-9])")
_DOTNET_CODE = re.compile(r"\b(?P<local>Local_[A-Z]\w*)|(?:ErrorCode|Code)\s*[.:=]\s*(?P<code>[A-Z]\w+)")


def find_errors(text: str, exceptions: list[str]) -> list[str]:
    """Every error name the text states, in order of appearance, normalised and without repeats."""
    found: list[tuple[int, str]] = []
    if "_" in text:
        for m in _TOKEN.finditer(text):
            name = error_of_token(m["n"])
            if name:
                found.append((m.start(), name))
    found.extend(errors_in_text(text.lower()))
    for exc in exceptions:
        name = error_of_exception(exc)
        if name:
            pos = text.find(exc)
            found.append((pos if pos >= 0 else len(text), name))
    if "Local_" in text or "Code" in text:
        for m in _DOTNET_CODE.finditer(text):
            name = error_of_dotnet_code(m["local"] or m["code"])
            if name:
                found.append((m.start(), name))
    if not found:
        return []
    found.sort(key=lambda pair: pair[0])
    out: list[str] = []
    for _, name in found:
        if name not in out:
            out.append(name)
    return out
