"""librdkafka lines: native stderr, and the same messages re-emitted by Python, Go, .NET and C++ loggers."""

from __future__ import annotations

import pytest

from loghelp import read_fixture, read_log, utc_ms


def test_native_lines_with_crlf_endings() -> None:
    result = read_fixture("librdkafka_stderr.log")
    assert result.report.kinds == ["log/librdkafka"] and result.report.lines == 12 and not result.report.notes
    assert set(result.events["library"]) == {"librdkafka"} and set(result.events["client_id"]) == {"rdkafka#producer-1"}
    assert not any(m.endswith("\r") for m in result.events["message"])
    first = result.at(1)
    assert (first["logger"], first["level"], first["time"]) == ("INIT", "DEBUG", 1715680682101)
    change = result.at(2)
    assert (change["state_from"], change["state_to"]) == ("Init", "WaitPID")
    assert change["message"] == "Transaction state change Init -> WaitPID"
    pid = result.at(3)
    assert (pid["logger"], pid["producer_id"], pid["producer_epoch"]) == ("GETPID", 2002, 0)
    assert result.at(5)["level"] == "WARN" and result.at(5)["logger"] == "REQTMOUT"
    timeout = result.at(7)
    assert (timeout["error"], timeout["txn_state"], timeout["level"]) == ("MSG_TIMED_OUT", "InTransaction", "ERROR")
    epoch = result.at(8)
    assert (epoch["error"], epoch["txn_state"]) == ("INVALID_PRODUCER_EPOCH", "BeginCommit")
    fatal = result.at(9)
    assert fatal["level"] == "ERROR" and fatal["error"] == "PRODUCER_FENCED"  # level 1 (alert)
    assert result.at(10)["logger"] == "FATAL" and result.at(10)["level"] == "ERROR"  # level 0 (emerg)
    assert (result.at(11)["topic"], result.at(11)["partition"]) == ("payments", 2)
    bug = result.at(12)
    assert (bug["state_from"], bug["state_to"]) == ("CommittingTransaction", "AbortingTransaction")


@pytest.mark.parametrize(("level", "expected"), [(0, "ERROR"), (1, "ERROR"), (2, "ERROR"), (3, "ERROR"), (4, "WARN"),
                                                 (5, "INFO"), (6, "INFO"), (7, "DEBUG")])
def test_syslog_levels(level: int, expected: str) -> None:
    line = f"%{level}|1715680682.5|TXNERR|app#producer-3| [thrd:main]: Current transaction failed in state InTransaction: x (_FENCED)\n"
    (row,) = read_log(line).rows()
    assert row["level"] == expected and row["time"] == 1715680682500 and row["error"] == "FENCED"


def test_python_logging_re_emits_librdkafka_and_prints_tracebacks() -> None:
    result = read_fixture("python_confluent_kafka.log")
    assert result.report.kinds == ["log/python", "log/librdkafka"]
    pid = result.at(2)
    assert (pid["library"], pid["logger"], pid["client_id"]) == ("librdkafka", "GETPID", "billing-worker#producer-1")
    assert (pid["producer_id"], pid["producer_epoch"], pid["level"]) == (6100, 3, "DEBUG")
    assert pid["message"] == "kafka-2:9092/2: Acquired PID{Id:6100,Epoch:3}"
    txnerr = result.at(3)
    assert (txnerr["error"], txnerr["txn_state"], txnerr["time"]) == ("REQUEST_TIMED_OUT", "BeginCommit", utc_ms("2024-05-14T15:01:02.871"))
    traceback = result.at(4)
    assert traceback["lines"] == 12 and traceback["library"] == "confluent-kafka-python"
    assert traceback["errors"] == "TIMED_OUT,FENCED,TXN_CALL_TIMEOUT" and traceback["error"] == "FENCED"
    assert traceback["exceptions"] == "KafkaException"
    bare = result.at(17)  # logging.basicConfig's LEVEL:name:message, no time
    assert (bare["level"], bare["time"], bare["logger"], bare["error"]) == ("WARN", -1, "FATAL", "FENCED")


def test_go_log_events_and_panics() -> None:
    result = read_fixture("go_confluent.log")
    assert result.at(1)["transactional_id"] == "ledger-go-1" and result.at(1)["time"] == utc_ms("2024-05-14T16:00:00")
    event = result.at(2)  # confluent-kafka-go LogEvent.String()
    assert (event["logger"], event["level"], event["client_id"], event["producer_id"]) == ("GETPID", "DEBUG", "rdkafka#producer-1", 8800)
    assert result.at(3)["error"] == "INVALID_PRODUCER_ID_MAPPING" and result.at(3)["level"] == "ERROR"
    state = result.at(4)
    assert (state["library"], state["level"], state["error"]) == ("confluent-kafka-go", "ERROR", "STATE")
    assert state["time"] == utc_ms("2024-05-14T16:02:11.204")
    panic = result.at(5)
    assert panic["lines"] == 7 and panic["error"] == "INVALID_PRODUCER_ID_MAPPING"


def test_dotnet_default_handler_serilog_and_microsoft_console() -> None:
    result = read_fixture("dotnet_confluent.log")
    native = result.at(1)
    assert (native["level"], native["logger"], native["client_id"], native["producer_id"]) == ("INFO", "GETPID", "rdkafka#producer-1", 9100)
    assert native["time"] == utc_ms("2024-05-14T16:30:00.101")
    assert result.at(2)["error"] == "CONCURRENT_TRANSACTIONS"
    serilog = result.at(3)
    assert serilog["time"] == utc_ms("2024-05-14T16:31:12")  # time of day on the last full date
    assert serilog["exception"] == "KafkaTxnRequiresAbortException" and serilog["lines"] == 5
    assert serilog["library"] == "confluent-kafka-dotnet"
    console = result.at(8)
    assert (console["level"], console["logger"], console["error"]) == ("ERROR", "Shipping.Worker", "STATE")
    assert console["message"] == "Aborting after error: Local_State"


def test_cpp_logger_with_nanosecond_times() -> None:
    result = read_fixture("cpp_spdlog.log")
    pid, txnerr, local = result.rows()
    assert pid["time"] == utc_ms("2024-05-14T17:00:00.120") and pid["client_id"] == "pricing#producer-1"
    assert (txnerr["logger"], txnerr["error"], txnerr["txn_state"]) == ("TXNERR", "COORDINATOR_NOT_AVAILABLE", "CommittingTransaction")
    assert local["level"] == "WARN" and local["error"] == "TIMED_OUT"


def test_librdkafka_message_without_thread_names() -> None:
    text = "2024-05-14 10:00:00,000 WARNING confluent_kafka: REQTMOUT [svc#producer-2] kafka-1:9092/1: Timed out ProduceRequest in flight\n"
    (row,) = read_log(text).rows()
    assert (row["library"], row["logger"], row["client_id"]) == ("librdkafka", "REQTMOUT", "svc#producer-2")
    assert row["message"] == "kafka-1:9092/1: Timed out ProduceRequest in flight"


def test_json_logger_re_emitting_librdkafka() -> None:
    line = ('{"time":"2024-05-14T10:00:00.250Z","level":"error","logger":"kafka","msg":"TXNERR [ingest#producer-4] '
            '[thrd:main]: Current transaction failed in state InTransaction: Broker: Unknown Producer Id (UNKNOWN_PRODUCER_ID)"}\n')
    (row,) = read_log(line).rows()
    assert (row["library"], row["logger"], row["client_id"], row["level"]) == ("librdkafka", "TXNERR", "ingest#producer-4", "ERROR")
    assert (row["error"], row["txn_state"], row["time"]) == ("UNKNOWN_PRODUCER_ID", "InTransaction", utc_ms("2024-05-14T10:00:00.250"))


def test_the_config_dump_names_the_transactional_id_for_the_later_lines_of_that_client() -> None:
    text = (
        "%7|1715680682.100|CONF|orders-svc#producer-2| [thrd:app]: Client configuration:\n"
        "%7|1715680682.100|CONF|orders-svc#producer-2| [thrd:app]:   transactional.id = orders-tx-fenced\n"
        "%7|1715680682.100|CONF|orders-svc#producer-2| [thrd:app]:   transaction.timeout.ms = 60000\n"
        "%3|1715680683.214|ADDPARTS|orders-svc#producer-2| [thrd:main]: TxnCoordinator/1: Failed to add partition \"orders\" [0] to transaction: Broker: There is a newer producer with the same transactionalId which fences the current one\n"
        "%3|1715680683.300|TXNERR|other-svc#producer-1| [thrd:main]: Current transaction failed in state InTransaction: x (_FENCED)\n"
    )
    rows = read_log(text).rows()
    assert [r["transactional_id"] for r in rows] == ["", "orders-tx-fenced", "orders-tx-fenced", "orders-tx-fenced", ""]
    assert rows[2]["timeout_ms"] == 60000
    added = rows[3]
    assert (added["topic"], added["partition"], added["error"], added["logger"]) == ("orders", 0, "PRODUCER_FENCED", "ADDPARTS")
