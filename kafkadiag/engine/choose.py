"""``--engine auto|local|spark``: which runner reads the inputs, and the reason the report gives.

Measured on a 2-core machine (benchmarks/spark_bench.py, 1 GB of dumps and client logs): the
local engine analyses it in about 6.4 s, the Spark engine on local[2] in about 21 s (6 s of it
starting the JVM), so on one machine Spark never wins on time. What grows is memory: the local
engine holds every transaction span, about 380 MB per GB of a busy cluster's dump, while the Spark
driver stayed at about 144 MB. ``auto`` therefore picks Spark when a master is named, when an
input is a Hadoop URI, or when the local inputs reach ``SPARK_AUTO_BYTES`` (20 GB: where the local
engine would need some 8 GB of memory); otherwise local.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .spark.plan import is_uri
from .spark.session import spark_missing

#: Inputs at least this large go to Spark on ``auto`` (see benchmarks/README.md for the measurement).
SPARK_AUTO_BYTES = 20 << 30
DEFAULT_MASTER = "local[*]"


class EngineError(Exception):
    """The engine asked for cannot run: one line for the user (exit 2)."""


@dataclass(frozen=True)
class EngineChoice:
    name: str  # local | spark
    reason: str
    master: str = ""  # as given; "" = spark-submit's, else local[*]
    notice: str = ""  # said on stderr: auto wanted Spark but stayed local

    def describe(self) -> str:
        where = f" on {self.master or DEFAULT_MASTER}" if self.name == "spark" else ""
        return f"{self.name}{where} ({self.reason})"


def input_bytes(paths: list[str], stop_at: int) -> int:
    """Bytes of the local inputs (files, directories, globs), counted until ``stop_at`` is reached."""
    import glob

    total = 0
    for given in paths:
        for path in (sorted(glob.glob(given, recursive=True)) if glob.has_magic(given) else [given]):
            if os.path.isdir(path):
                for root, _dirs, files in os.walk(path):
                    for name in files:
                        total += _size(os.path.join(root, name))
                        if total >= stop_at:
                            return total
            else:
                total += _size(path)
            if total >= stop_at:
                return total
    return total


def choose_engine(engine: str, master: str | None, paths: list[str]) -> EngineChoice:
    if engine == "local":
        if master:
            raise EngineError("--master needs the Spark engine (--engine spark or auto)")
        uris = [p for p in paths if is_uri(p)]
        if uris:
            raise EngineError(f"{uris[0]}: Hadoop URIs are read by the Spark engine (--engine spark or auto)")
        return EngineChoice("local", "--engine local")
    missing = spark_missing()
    if engine == "spark":
        if missing:
            raise EngineError(missing)
        return EngineChoice("spark", "--engine spark", master or "")
    uris = [p for p in paths if is_uri(p)]
    if master or uris:
        why = f"--master {master}" if master else f"{uris[0]} is a Hadoop URI"
        if missing:
            raise EngineError(f"{why}: {missing}")
        return EngineChoice("spark", why, master or "")
    size = input_bytes(paths, SPARK_AUTO_BYTES)
    if size < SPARK_AUTO_BYTES:
        return EngineChoice("local", f"auto: {_human(size)} of input, below the {_human(SPARK_AUTO_BYTES)} at which Spark pays")
    if missing:
        return EngineChoice("local", f"auto: {_human(size)} of input, but Spark cannot run here",
                            notice=f"staying local: {missing}")
    return EngineChoice("spark", f"auto: {_human(size)} of input, at least {_human(SPARK_AUTO_BYTES)}")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def make_runner(choice: EngineChoice, spark_conf: dict[str, str]):
    """The runner for a choice (Spark's is imported only when it is chosen)."""
    if choice.name == "spark":
        from .spark.runner import SparkRunner

        return SparkRunner(choice.master or None, spark_conf)
    from .buckets import BUCKET_SPANS
    from .local import LocalRunner

    # As the Spark runner: only the log rows a rule may match, and a large run's facts in buckets.
    return LocalRunner(reduce_logs=True, bucket_spans=BUCKET_SPANS)
