"""Generate a realistic Spring Boot application log for speed measurements.

About two thirds of the lines are application chatter, a third are Kafka client lines (INFO and
DEBUG from TransactionManager, Sender, the consumer coordinator), and about one event in a
hundred is an ERROR with a 30-line stack trace, some Kafka and some not.

``python tests/logs/loggen.py 100 /tmp/app.log`` writes a 100 MB file.
"""

from __future__ import annotations

import random
import sys
from typing import TextIO

_APP = (
    "c.e.orders.OrderController               : Handling order {n} for customer {c}",
    "o.h.e.t.internal.TransactionImpl         : begin",
    "c.e.orders.PricingService                : Computed price {n}.{c} EUR for basket of {c} items",
    "o.s.web.servlet.DispatcherServlet        : Completed 200 OK",
    "c.e.orders.InventoryClient               : Reserved {c} units of sku-{n}",
    "com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Pool stats (total=10, active={c}, idle=2, waiting=0)",
)
_KAFKA = (
    "o.a.k.c.p.internals.TransactionManager   : [Producer clientId=producer-tx-{t}, transactionalId=tx-{t}] Transition from state IN_TRANSACTION to COMMITTING_TRANSACTION",
    "o.a.k.c.p.internals.TransactionManager   : [Producer clientId=producer-tx-{t}, transactionalId=tx-{t}] Transition from state READY to IN_TRANSACTION",
    "o.a.k.clients.producer.internals.Sender  : [Producer clientId=producer-tx-{t}, transactionalId=tx-{t}] Got error produce response with correlation id {n} on topic-partition orders-{c}, retrying (2147483646 attempts left). Error: NOT_LEADER_OR_FOLLOWER",
    "o.a.k.clients.NetworkClient              : [Consumer clientId=consumer-orders-{t}, groupId=orders] Node {c} disconnected.",
    "o.a.k.c.c.internals.ConsumerCoordinator  : [Consumer clientId=consumer-orders-{t}, groupId=orders] Setting offset for partition orders-{c} to the committed offset FetchPosition{{offset={n}, offsetEpoch=Optional[3]}}",
    "o.a.k.c.p.internals.TransactionManager   : [Producer clientId=producer-tx-{t}, transactionalId=tx-{t}] ProducerId set to {n} with epoch {c}",
)
_KAFKA_TRACE = (
    "org.apache.kafka.common.KafkaException: Cannot execute transactional method because we are in an error state\n"
    + "".join(f"\tat org.springframework.aop.framework.ReflectiveMethodInvocation.proceed(ReflectiveMethodInvocation.java:{180 + i}) ~[spring-aop-6.1.3.jar:6.1.3]\n" for i in range(28))
    + "Caused by: org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same transactionalId which fences the current one.\n"
    "\t... 25 common frames omitted\n"
)
_APP_TRACE = (
    "java.lang.IllegalArgumentException: Unknown currency code XYZ\n"
    + "".join(f"\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:{880 + i}) ~[spring-webmvc-6.1.3.jar:6.1.3]\n" for i in range(28))
)
_LEVELS = ("  INFO", " DEBUG", "  WARN")


def write_log(out: TextIO, megabytes: float, seed: int = 7, counts: dict[str, int] | None = None) -> int:
    """Write about ``megabytes`` MB of log to ``out``; return the number of characters written.

    ``counts`` receives the Kafka events written: ``kafka_lines`` (one-line client events) and
    ``kafka_traces`` (ERROR lines whose trace names a Kafka exception), the truth benchmarks check.
    """
    kafka_lines = kafka_traces = 0
    rnd = random.Random(seed)
    target = int(megabytes * (1 << 20))
    size = 0
    i = 0
    while size < target:
        i += 1
        ts = "2024-03-04 %02d:%02d:%02d.%03d" % (10 + i // 3_600_000 % 14, i // 60_000 % 60, i // 1000 % 60, i % 1000)
        r = rnd.random()
        if r < 0.62:
            body = rnd.choice(_APP).format(n=rnd.randint(1, 99999), c=rnd.randint(1, 30))
            line = f"{ts}{rnd.choice(_LEVELS)} 48211 --- [nio-8080-exec-{i % 10}] {body}\n"
        elif r < 0.985:
            body = rnd.choice(_KAFKA).format(n=rnd.randint(1, 99999), c=rnd.randint(0, 11), t=rnd.randint(0, 5))
            line = f"{ts}{rnd.choice(_LEVELS)} 48211 --- [ad | producer-tx-{i % 6}] {body}\n"
            kafka_lines += 1
        elif r < 0.993:
            line = f"{ts} ERROR 48211 --- [nio-8080-exec-{i % 10}] c.e.orders.OrderService                  : Commit failed for order {i}\n\n" + _KAFKA_TRACE
            kafka_traces += 1
        else:
            line = f"{ts} ERROR 48211 --- [nio-8080-exec-{i % 10}] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() threw exception\n" + _APP_TRACE
        out.write(line)
        size += len(line)
    if counts is not None:
        counts.update(kafka_lines=kafka_lines, kafka_traces=kafka_traces)
    return size


if __name__ == "__main__":
    with open(sys.argv[2], "w") as f:
        write_log(f, float(sys.argv[1]))
