"""librdkafka's built-in mock Kafka cluster, driven through ctypes for error injection.

Real client logs are the point of these tests, so the client is the real librdkafka that ships
inside the confluent-kafka wheel. The mock cluster (``rdkafka_mock.h``) is created on a small
``rd_kafka_t`` of its own (made with ctypes), and its ``bootstrap.servers`` are handed to an
ordinary ``confluent_kafka.Producer``. That avoids reaching into the Python object for its
``rd_kafka_t*`` and keeps the mock's lifetime independent of the clients under test.

The mock does not implement read_committed filtering, natural fencing or coordinator timeouts;
errors are injected per request type instead (``push_errors``), and brokers can be slowed down
(``set_rtt``) or taken down (``set_down``).

The mock API is experimental in librdkafka (no ABI guarantee): only the handful of functions used
here are bound, each with explicit argtypes/restype, and only non-variadic entry points are used
(``*_push_request_errors_array`` rather than the variadic form) so calls are portable across ABIs.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
from enum import IntEnum
from pathlib import Path
from typing import Iterable

import pytest

RD_KAFKA_PRODUCER = 0


class ApiKey(IntEnum):
    """Kafka protocol request types (ApiKey numbers from the Kafka protocol guide)."""

    PRODUCE = 0
    METADATA = 3
    FIND_COORDINATOR = 10
    INIT_PRODUCER_ID = 22
    ADD_PARTITIONS_TO_TXN = 24
    ADD_OFFSETS_TO_TXN = 25
    END_TXN = 26
    TXN_OFFSET_COMMIT = 28


def _candidate_paths() -> list[str]:
    """Places the wheel (or a source build) keeps librdkafka, best first."""
    import confluent_kafka  # noqa: F401 - loads cimpl, and with it librdkafka, into the process
    from confluent_kafka import cimpl

    paths = _loaded_librdkafka()
    pkg = Path(cimpl.__file__).resolve().parent
    patterns = ("librdkafka*.so*", "librdkafka*.dylib", "librdkafka*.dll", "rdkafka*.dll")
    for folder in (pkg.parent / "confluent_kafka.libs", pkg / ".libs", pkg / ".dylibs", pkg):
        for pattern in patterns:
            paths.extend(sorted(glob.glob(str(folder / pattern))))
    return list(dict.fromkeys(paths))


def _loaded_librdkafka() -> list[str]:
    """The librdkafka already mapped into this process (Linux): the very copy the client uses."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        return []
    found = []
    for line in maps.read_text().splitlines():
        path = line.split(maxsplit=5)[-1] if line.count(" ") >= 5 else ""
        if "librdkafka" in os.path.basename(path) and os.path.exists(path):
            found.append(path)
    return found


def find_library() -> str | None:
    """Path of a librdkafka that exports the mock API, or None."""
    for path in _candidate_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(lib, "rd_kafka_mock_cluster_new"):
            return path
    return None


def _bind(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Declare the signatures of the functions used here (from rdkafka.h / rdkafka_mock.h)."""
    p, i32, i16 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int16
    sigs = {
        "rd_kafka_version": ([], ctypes.c_int),
        "rd_kafka_conf_new": ([], p),
        "rd_kafka_conf_set": ([p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t], ctypes.c_int),
        "rd_kafka_conf_destroy": ([p], None),
        "rd_kafka_new": ([ctypes.c_int, p, ctypes.c_char_p, ctypes.c_size_t], p),
        "rd_kafka_destroy": ([p], None),
        "rd_kafka_mock_cluster_new": ([p, ctypes.c_int], p),
        "rd_kafka_mock_cluster_destroy": ([p], None),
        "rd_kafka_mock_cluster_bootstraps": ([p], ctypes.c_char_p),
        "rd_kafka_mock_push_request_errors_array": ([p, i16, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)], None),
        "rd_kafka_mock_clear_request_errors": ([p, i16], None),
        "rd_kafka_mock_topic_create": ([p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "rd_kafka_mock_partition_set_leader": ([p, ctypes.c_char_p, i32, i32], ctypes.c_int),
        "rd_kafka_mock_coordinator_set": ([p, ctypes.c_char_p, ctypes.c_char_p, i32], ctypes.c_int),
        "rd_kafka_mock_broker_set_down": ([p, i32], ctypes.c_int),
        "rd_kafka_mock_broker_set_up": ([p, i32], ctypes.c_int),
        "rd_kafka_mock_broker_set_rtt": ([p, i32, ctypes.c_int], ctypes.c_int),
    }
    for name, (argtypes, restype) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, restype
    return lib


def load_library() -> ctypes.CDLL:
    """The bound librdkafka, or skip the test when no copy with the mock API can be found."""
    path = find_library()
    if path is None:
        pytest.skip(
            "librdkafka with the mock cluster API (rd_kafka_mock_cluster_new) not found in the "
            "confluent-kafka installation (looked in the process maps, confluent_kafka.libs, "
            "confluent_kafka/.libs and the package folder)"
        )
    return _bind(ctypes.CDLL(path))


class MockCluster:
    """A running mock cluster; use as a context manager so it is always torn down."""

    def __init__(self, brokers: int = 3) -> None:
        self.lib = load_library()
        self._rk = self._new_handle()
        self._mc = self.lib.rd_kafka_mock_cluster_new(self._rk, brokers)
        if not self._mc:
            self.lib.rd_kafka_destroy(self._rk)
            raise RuntimeError("rd_kafka_mock_cluster_new failed")
        self.brokers = brokers

    def _new_handle(self) -> int:
        """A quiet producer handle that only hosts the mock cluster (it never produces)."""
        conf = self.lib.rd_kafka_conf_new()
        errstr = ctypes.create_string_buffer(512)
        # Only real errors of the host handle reach stderr; client logs are captured elsewhere.
        for key, value in ((b"log_level", b"3"), (b"client.id", b"kafkadiag-mock-host")):
            if self.lib.rd_kafka_conf_set(conf, key, value, errstr, len(errstr)) != 0:
                self.lib.rd_kafka_conf_destroy(conf)
                raise RuntimeError(errstr.value.decode())
        rk = self.lib.rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, len(errstr))
        if not rk:  # rd_kafka_new only takes ownership of conf on success
            self.lib.rd_kafka_conf_destroy(conf)
            raise RuntimeError(errstr.value.decode())
        return rk

    @property
    def bootstrap_servers(self) -> str:
        """The mock brokers' listeners, for a client's ``bootstrap.servers``."""
        return self.lib.rd_kafka_mock_cluster_bootstraps(self._mc).decode()

    def create_topic(self, topic: str, partitions: int = 1, replication: int = 1) -> None:
        """Create a topic up front so metadata is stable (no auto-creation races)."""
        self._check(self.lib.rd_kafka_mock_topic_create(self._mc, topic.encode(), partitions, replication))

    def set_leader(self, topic: str, partition: int, broker_id: int) -> None:
        """Pin a partition to a broker, so a broker outage hits that partition only."""
        self._check(self.lib.rd_kafka_mock_partition_set_leader(self._mc, topic.encode(), partition, broker_id))

    def set_txn_coordinator(self, transactional_id: str, broker_id: int) -> None:
        """Pin the transaction coordinator of an id (kept apart from partition leaders)."""
        rc = self.lib.rd_kafka_mock_coordinator_set(self._mc, b"transaction", transactional_id.encode(), broker_id)
        self._check(rc)

    def push_errors(self, api_key: ApiKey | int, errors: Iterable[int]) -> None:
        """The next requests of this type, cluster-wide, fail with these error codes in order."""
        codes = [int(e) for e in errors]
        array = (ctypes.c_int * len(codes))(*codes)
        self.lib.rd_kafka_mock_push_request_errors_array(self._mc, int(api_key), len(codes), array)

    def clear_errors(self, api_key: ApiKey | int) -> None:
        """Drop errors still queued for this request type."""
        self.lib.rd_kafka_mock_clear_request_errors(self._mc, int(api_key))

    def set_down(self, broker_id: int = -1) -> None:
        """Disconnect the broker (-1: all) and refuse new connections; leaders do not move."""
        self._check(self.lib.rd_kafka_mock_broker_set_down(self._mc, broker_id))

    def set_up(self, broker_id: int = -1) -> None:
        """Accept connections again after ``set_down``."""
        self._check(self.lib.rd_kafka_mock_broker_set_up(self._mc, broker_id))

    def set_rtt(self, broker_id: int, rtt_ms: int) -> None:
        """Delay every response of the broker (-1: all) by this many milliseconds."""
        self._check(self.lib.rd_kafka_mock_broker_set_rtt(self._mc, broker_id, rtt_ms))

    def close(self) -> None:
        """Destroy the cluster, then its host handle; safe to call twice."""
        if self._mc:
            self.lib.rd_kafka_mock_cluster_destroy(self._mc)
            self._mc = None
        if self._rk:
            self.lib.rd_kafka_destroy(self._rk)
            self._rk = None

    def _check(self, rc: int) -> None:
        if rc != 0:
            from confluent_kafka import KafkaError

            raise RuntimeError(f"mock cluster call failed: {KafkaError(rc).name()}")

    def __enter__(self) -> "MockCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # quick manual check: python tests/clients/mockcluster.py
    print(find_library(), file=sys.stderr)
