"""Config lint: the CI check of Kafka client and broker configs (``kafkadiag lint``).

Files of every dialect (Java properties, Spring Boot, Kafka Streams, Flink, librdkafka JSON/YAML,
broker ``server.properties`` and ``kafka-configs --describe`` output) are parsed with their
positions, split into one row per client or broker, and turned into the ``configs`` fact table
that the YAML rules in ``rules/lint-*.yaml`` read, through the same engine analyze uses.
"""

from __future__ import annotations

__all__ = ["LintOptions", "LintResult", "run_lint"]


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    """The run API, imported on first use: ``kafkadiag.config`` reads ``lint.defaults`` without it."""
    if name in __all__:
        from . import run

        return getattr(run, name)
    raise AttributeError(name)
