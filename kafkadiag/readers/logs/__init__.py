"""Client, broker and tool logs -> LOG_EVENTS rows.

Reads Java client logs (log4j/log4j2/logback/Spring Boot/JBoss/Quarkus/Flink, JSON layouts),
librdkafka lines (native and re-emitted by Python, Go, .NET, C++ and JSON loggers), KafkaJS,
sarama, franz-go, aiokafka and Python tracebacks, broker ``server.log``/``kafkaServer.out`` and
pasted ``kafka-transactions.sh``/``kafka-consumer-groups.sh`` tables. A file may mix all of them;
lines are recognised one by one. Importing the package registers the sniff detector (kind
prefix ``log``); the reader itself is imported on first use, so runs over dumps alone skip it.
"""

from kafkadiag.readers.logs.detect import detect_log

__all__ = ["detect_log", "read_logs"]


def __getattr__(name: str):
    if name == "read_logs":
        from kafkadiag.readers.logs.reader import read_logs

        return read_logs
    raise AttributeError(name)
