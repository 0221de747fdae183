"""Hadoop URIs through the driver's JVM: list them with Spark, read evidence lines back by seeking.

Python executors cannot reach the JVM, so whole inputs on a cluster file system are read by
Spark's ``binaryFile`` source; but the driver can, and that is how the few evidence lines a
report quotes are read back: a seek and a read per line, never a second pass over the data.
"""

from __future__ import annotations

import io
from typing import Any

from ...inputs import InputSpec, read_lines_at
from .session import first_error


def list_uri(spark: Any, uri: str, sizes: dict[str, int]) -> list[InputSpec]:
    """The files under a Hadoop path or glob, sorted, as inputs (an error input when none).

    Listed with the Hadoop file system API, not with Spark's file sources: those skip names that
    start with ``_`` or ``.``, and ``__transaction_state-N`` dumps start with ``_``.
    """
    try:
        jvm = spark._jvm
        path = jvm.org.apache.hadoop.fs.Path(uri)
        fs = path.getFileSystem(spark._jsc.hadoopConfiguration())
        matches = fs.globStatus(path)
        rows: list[tuple[str, int]] = []
        for status in (matches or []):
            if status.isDirectory():
                found = fs.listFiles(status.getPath(), True)
                while found.hasNext():
                    leaf = found.next()
                    rows.append((str(leaf.getPath().toString()), int(leaf.getLen())))
            else:
                rows.append((str(status.getPath().toString()), int(status.getLen())))
    except Exception as exc:  # an unknown scheme, missing credentials, an unreachable name node
        return [InputSpec(uri, uri, f"cannot list {uri}: {first_error(exc)[:300]}")]
    if matches is None or len(matches) == 0:
        return [InputSpec(uri, uri, f"no such file: {uri}" if not _has_glob(uri) else f"no match: {uri}")]
    if not rows:
        return [InputSpec(uri, uri, f"no files in directory: {uri}")]
    sizes.update(rows)
    return [InputSpec(path, path) for path, _length in sorted(rows)]


def spark_skips(path: str) -> bool:
    """Names Spark's file sources never read, even when named: ``_x`` (without ``=``), ``.x``, ``x._COPYING_``."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return (name.startswith("_") and "=" not in name) or name.startswith(".") or name.endswith("._COPYING_")


def _has_glob(uri: str) -> bool:
    return any(c in uri for c in "*?[{")


class HadoopFile(io.RawIOBase):
    """A seekable read-only handle on a Hadoop file, through the driver's JVM."""

    def __init__(self, spark: Any, uri: str) -> None:
        super().__init__()
        jvm = spark._jvm
        path = jvm.org.apache.hadoop.fs.Path(uri)
        try:
            self._in = path.getFileSystem(spark._jsc.hadoopConfiguration()).open(path)
        except Exception as exc:
            raise OSError(str(exc).splitlines()[0] if str(exc) else uri) from None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 1:
            offset += self.tell()
        elif whence == 2:
            raise OSError("seek from the end is not supported")
        self._in.seek(offset)
        return offset

    def tell(self) -> int:
        return int(self._in.getPos())

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self._in.readNBytes(len(buffer))
        n = len(data)
        memoryview(buffer).cast("B")[:n] = data
        return n

    def close(self) -> None:
        if not self.closed:
            self._in.close()
        super().close()


def hadoop_lines(spark: Any):
    """An evidence-line fetcher for inputs given as Hadoop URIs."""

    def fetch(path: str, offsets: list[int], known: dict[int, int]) -> dict[int, tuple[int, str]]:
        return read_lines_at(path, offsets, known_lines=known or None, open_raw=lambda p: HadoopFile(spark, p))

    return fetch
