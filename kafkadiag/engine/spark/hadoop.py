"""Hadoop URIs through the driver's JVM: list them with Spark, read evidence lines back by seeking.

Python executors cannot reach the JVM, so whole inputs on a cluster file system are read by
Spark's ``binaryFile`` source; but the driver can, and that is how the few evidence lines a
report quotes are read back: a seek and a read per line, never a second pass over the data.
"""

from __future__ import annotations

import io
from typing import Any

from ...inputs import InputSpec, read_lines_at
from .plan import BINARY_FILE_LIMIT


def list_uri(spark: Any, uri: str) -> list[InputSpec]:
    """The files under a Hadoop path or glob, sorted, as inputs (an error input when none)."""
    try:
        frame = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
                 .load(uri).select("path", "length"))
        rows = sorted((str(r.path), int(r.length)) for r in frame.collect())
    except Exception as exc:  # AnalysisException (no such path), an unknown scheme, credentials
        text = str(exc).strip().splitlines()
        reason = text[0] if text else type(exc).__name__
        if "PATH_NOT_FOUND" in reason or "does not exist" in reason:
            return [InputSpec(uri, uri, f"no such file: {uri}")]
        return [InputSpec(uri, uri, f"cannot list {uri}: {reason[:300]}")]
    if not rows:
        return [InputSpec(uri, uri, f"no files in directory: {uri}")]
    specs = []
    for path, length in rows:
        error = ""
        if length > BINARY_FILE_LIMIT:
            error = (f"{path} is {length} bytes, above the 2 GiB Spark reads as one file; "
                     "split it, or give it as a path on a file system every executor mounts")
        specs.append(InputSpec(path, path, error))
    return specs


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
