"""The Spark runner: the same pipeline with the reading spread over a Spark cluster.

Each input file, or byte range of a large plain dump, is one Spark task that runs the
project's own reader and batch reduction (:mod:`.task`); the driver joins the reduced results
in file and range order exactly as the local runner joins its parallel ranges, and the shared
stages of :mod:`kafkadiag.engine.pipeline` do the rest. Inputs given as Hadoop URIs
(``hdfs://``, ``s3a://``, ``file://`` ...) are listed and read through Spark's own file
source, so whatever file systems the cluster is configured for work here too.

Nothing in this package imports pyspark at import time: a run that stays local never pays for it.
"""

from .session import SparkFailed, SparkUnavailable, spark_missing

__all__ = ["SparkFailed", "SparkUnavailable", "spark_missing"]
