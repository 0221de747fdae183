"""Where Kafka configs live besides plain client and broker files, each read by its own detector.

A detector looks at a parsed file's content and returns the configs it finds there, mapped to
Kafka's key names with their places in the file kept (see ``base.derive``), or None when the
file is not its kind. The first detector that recognises a file wins; a file none recognises is
read as a plain config in the dialect its keys show (``detect.detect_dialect``).
"""

from __future__ import annotations

from typing import Callable

from ..model import ConfigFile
from .compose import read_compose, read_env_file
from .code import read_code
from .flinksql import read_flink_sql
from .connect import read_connect_worker, read_mirror_maker
from .frameworks import read_custom_sections, read_micronaut, read_quarkus, read_spring_cloud_stream
from .helm import read_helm_values
from .kube import read_kube
from .notconfig import not_a_config

Detector = Callable[..., "list[ConfigFile] | None"]

#: In order: the more specific layouts first.
DETECTORS: tuple[tuple[str, Detector], ...] = (
    ("flink-sql", read_flink_sql),
    ("code", read_code),
    ("compose", read_compose),
    ("kubernetes", read_kube),
    ("helm-values", read_helm_values),
    ("env", read_env_file),
    ("mirror-maker-2", read_mirror_maker),
    ("connect", read_connect_worker),
    ("quarkus", read_quarkus),
    ("micronaut", read_micronaut),
    ("spring-cloud-stream", read_spring_cloud_stream),
)


def expand(cfg: ConfigFile, profile: str | None = None) -> tuple[str, list[ConfigFile]] | None:
    """(source kind, configs) for a file one of the detectors recognises; None otherwise.

    A Spring file is both: its ``spring.kafka.*`` keys stay a Spring config (the caller reads
    them), and Spring Cloud Stream binder sections or an application's own producer section
    add configs of their own.
    """
    reason = not_a_config(cfg)
    if reason:
        return "not-a-config", []
    for kind, detector in DETECTORS:
        found = detector(cfg) if kind in ("flink-sql", "code", "compose", "kubernetes", "helm-values", "env", "mirror-maker-2", "connect") else detector(cfg, profile)
        if found is not None:
            if kind == "spring-cloud-stream":
                found = found + (read_custom_sections(cfg, profile) or [])
            return kind, found
    custom = read_custom_sections(cfg, profile)
    if custom:
        return "spring-section", custom
    return None
