"""Kafka settings spelled as container environment variables, and back.

Each image family documents its own spelling, so one table per family:

* Apache (``apache/kafka``) and Confluent (``confluentinc/cp-*``) images: ``KAFKA_`` + the key in
  upper case with ``.`` → ``_``, ``_`` → ``__`` and ``-`` → ``___``
  (``KAFKA_TRANSACTION_STATE_LOG_MIN_ISR`` is ``transaction.state.log.min.isr``). Kafka Connect
  workers of the Confluent images use ``CONNECT_`` the same way.
* Bitnami: ``KAFKA_CFG_`` + the key in upper case with ``.`` → ``_`` (no escaping).

Variables the images read for themselves (heap, JMX, log4j, cluster id...) are not Kafka keys.
"""

from __future__ import annotations

import re

#: Images that start from Kafka's built-in defaults when configured through the environment (the
#: Apache image uses its packaged server.properties only when no variable is given). Confluent's
#: ``cp-*`` names are its own under any registry or mirror (``${REPOSITORY}/cp-server``, as
#: Confluent's own examples write it, with the repository in an ``.env`` file).
BUILTIN_DEFAULT_IMAGES = re.compile(r"(^|/)(apache/kafka(-native)?|cp-(kafka|server|enterprise-kafka))(:|@|$)")
#: Broker images (Bitnami, wurstmeister and the like ship their own server.properties).
BROKER_IMAGES = re.compile(r"(^|/)(kafka|kafka-native|cp-kafka|cp-server|cp-enterprise-kafka|confluent-local|fabric-kafka)(:|@|$)")

#: Image variables with the Kafka prefix that are not server properties.
_NOT_KEYS = re.compile(
    r"(OPTS|HEAP_OPTS|JVM_PERFORMANCE_OPTS|JMX_.*|LOG4J_.*|TOOLS_LOG4J_.*|DEBUG|CREATE_TOPICS|ADVERTISED_HOST_NAME"
    r"|ADVERTISED_PORT|PORT|HOST_NAME|VERSION|HOME|KRAFT_.*|ENABLE_KRAFT|CLUSTER_ID|CLIENT_USERS|CLIENT_PASSWORDS"
    r"|INTER_BROKER_USER|INTER_BROKER_PASSWORD|CONTROLLER_USER|CONTROLLER_PASSWORD|ZOOKEEPER_USER|ZOOKEEPER_PASSWORD"
    r"|CERTIFICATE_PASSWORD|TLS_.*|SKIP_KRAFT_STORAGE_INIT|INITIAL_CONTROLLERS|MOUNTED_CONF_DIR|CONF_FILE|CFG_)$"
)


#: Image variables that are not Kafka keys but hold a credential the image writes into its JAAS file or
#: keystore setup (Bitnami: SASL users' passwords, the keystore password).
_CREDENTIALS = re.compile(r"(CLIENT_PASSWORDS|INTER_BROKER_PASSWORD|CONTROLLER_PASSWORD|ZOOKEEPER_PASSWORD|CERTIFICATE_PASSWORD)")


def credential_variable(name: str) -> bool:
    """Whether an image variable holds a credential although it is no Kafka key (``KAFKA_CLIENT_PASSWORDS``);
    committed as a literal it leaks as surely as ``sasl.jaas.config`` would."""
    return name.startswith("KAFKA_") and bool(_CREDENTIALS.fullmatch(name[len("KAFKA_"):]))


def kafka_key(name: str, prefix: str = "KAFKA_") -> tuple[str, str] | None:
    """(Kafka key, family) for an environment variable name, None when it is not a Kafka setting.

    family is ``bitnami`` for ``KAFKA_CFG_*``, ``confluent`` for the escaped ``KAFKA_*``/``CONNECT_*`` form.
    """
    if prefix == "KAFKA_" and name.startswith("KAFKA_CFG_"):
        rest = name[len("KAFKA_CFG_"):]
        if not rest or not re.fullmatch(r"[A-Z0-9_]+", rest):
            return None
        return rest.lower().replace("_", "."), "bitnami"
    if not name.startswith(prefix):
        return None
    rest = name[len(prefix):]
    if not rest or not re.fullmatch(r"[A-Z0-9_]+", rest) or (prefix == "KAFKA_" and _NOT_KEYS.fullmatch(rest)):
        return None
    return _unescape(rest), "confluent"


def _unescape(rest: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(rest):
        if rest.startswith("___", i):
            out.append("-")
            i += 3
        elif rest.startswith("__", i):
            out.append("_")
            i += 2
        elif rest[i] == "_":
            out.append(".")
            i += 1
        else:
            out.append(rest[i].lower())
            i += 1
    return "".join(out)


def env_name(key: str, family: str, prefix: str = "KAFKA_") -> str:
    """The environment variable an image family reads ``key`` from."""
    if family == "bitnami":
        return "KAFKA_CFG_" + key.upper().replace(".", "_").replace("-", "_")
    return prefix + key.replace("_", "__").replace("-", "___").replace(".", "_").upper()
